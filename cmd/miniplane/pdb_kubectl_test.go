package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDisruptionBudgetWithKubectl protects a Deployment's pods with a
// PodDisruptionBudget through the real kubectl against serve: `create pdb`
// (no "nothing acts" warning: the disruption controller runs), `get pdb`'s
// ALLOWED DISRUPTIONS as pods become ready, `drain` refused with the
// budget's message while it allows none, and a drain that succeeds once a
// third pod makes room.
func TestDisruptionBudgetWithKubectl(t *testing.T) {
	if testing.Short() {
		t.Skip("runs serve and kubectl for about 15 seconds")
	}
	url, _, stop := startServe(t, "--nodes=2")
	defer stop()
	k := newKubectlSession(t, url)
	eventually(t, "ready", func() bool { return k.get("get", "--raw", "/readyz") == "ok" })
	allowed := func() string { return k.get("get", "pdb", "web", "-o", "jsonpath={.status.disruptionsAllowed}") }

	out := k.ok("create", "pdb", "web", "--selector=app=web", "--min-available=2")
	assert.Equal(t, "poddisruptionbudget.policy/web created\n", out, "no warning: the disruption controller acts on it")
	eventually(t, "the controller saw the budget", func() bool {
		return k.get("get", "pdb", "web", "-o", "jsonpath={.status.observedGeneration}") == "1"
	})
	assert.Equal(t, "0", allowed(), "no pods yet")

	k.ok("create", "deployment", "web", "--image=nginx", "--replicas=2")
	k.ok("rollout", "status", "deployment/web", "--timeout=60s")
	eventually(t, "two healthy pods counted", func() bool {
		return k.get("get", "pdb", "web", "-o", "jsonpath={.status.currentHealthy}/{.status.expectedPods}") == "2/2"
	})
	rows := columns(k.ok("get", "pdb", "web"))
	require.Len(t, rows, 2)
	assert.Equal(t, []string{"NAME", "MIN", "AVAILABLE", "MAX", "UNAVAILABLE", "ALLOWED", "DISRUPTIONS", "AGE"}, rows[0])
	assert.Equal(t, []string{"web", "2", "N/A", "0"}, rows[1][:4], "two healthy of two needed: none may go")

	node := k.ok("get", "pods", "-l", "app=web", "-o", "jsonpath={.items[0].spec.nodeName}")
	require.NotEmpty(t, node)
	out, err := k.run(nil, "drain", node, "--timeout=3s")
	require.Error(t, err, "the budget refuses: %s", out)
	assert.Contains(t, out, "node/"+node+" cordoned")
	assert.Contains(t, out, "(will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.")
	assert.Len(t, strings.Fields(k.ok("get", "pods", "-l", "app=web", "-o", "name")), 2, "both pods stay")

	k.ok("scale", "deployment", "web", "--replicas=3")
	eventually(t, "a third ready pod allows one disruption", func() bool { return allowed() == "1" })
	assert.Equal(t, []string{"web", "2", "N/A", "1"}, columns(k.ok("get", "pdb", "web"))[1][:4])

	out = k.ok("drain", node, "--timeout=60s")
	assert.Contains(t, out, "evicted")
	assert.Contains(t, out, "node/"+node+" drained")
	eventually(t, "the evicted pod replaced on the other node, the budget healthy again", func() bool {
		return allowed() == "1" && !strings.Contains(k.get("get", "pods", "-l", "app=web", "-o", "jsonpath={.items[*].spec.nodeName}"), node)
	})
}
