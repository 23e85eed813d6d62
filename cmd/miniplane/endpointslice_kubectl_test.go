package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEndpointSlicesAndNodePortsWithKubectl exposes a Deployment through
// the real kubectl against serve: `create service nodeport` keeps the
// chosen node port, a second service asking for it is refused with
// kube-apiserver's message, and `get endpointslices` shows the slice the
// endpointslice controller keeps, with the pods' addresses once ready.
func TestEndpointSlicesAndNodePortsWithKubectl(t *testing.T) {
	if testing.Short() {
		t.Skip("runs serve and kubectl for about 10 seconds")
	}
	url, _, stop := startServe(t, "--nodes=2")
	defer stop()
	k := newKubectlSession(t, url)
	eventually(t, "ready", func() bool { return k.get("get", "--raw", "/readyz") == "ok" })

	k.ok("create", "deployment", "web", "--image=nginx", "--replicas=2")
	k.ok("create", "service", "nodeport", "web", "--tcp=80:80", "--node-port=30080")
	assert.Equal(t, "30080", k.get("get", "service", "web", "-o", "jsonpath={.spec.ports[0].nodePort}"))
	out, err := k.run(nil, "create", "service", "nodeport", "other", "--tcp=80:80", "--node-port=30080")
	require.Error(t, err)
	assert.Contains(t, out, `failed to create NodePort service: Service "other" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated`)

	k.ok("rollout", "status", "deployment/web", "--timeout=60s")
	eventually(t, "the slice lists both ready pods", func() bool {
		return len(strings.Fields(k.get("get", "endpointslices", "-l", "kubernetes.io/service-name=web",
			"-o", "jsonpath={.items[*].endpoints[?(@.conditions.ready==true)].addresses[0]}"))) == 2
	})
	rows := columns(k.ok("get", "endpointslices", "-l", "kubernetes.io/service-name=web"))
	require.Len(t, rows, 2)
	assert.Equal(t, []string{"NAME", "ADDRESSTYPE", "PORTS", "ENDPOINTS", "AGE"}, rows[0])
	assert.True(t, strings.HasPrefix(rows[1][0], "web-"), "named after the service: %v", rows[1])
	assert.Equal(t, []string{"IPv4", "80"}, rows[1][1:3])
	assert.Equal(t, "endpointslice-controller.k8s.io",
		k.get("get", "endpointslices", "-l", "kubernetes.io/service-name=web", "-o", `jsonpath={.items[0].metadata.labels.endpointslice\.kubernetes\.io/managed-by}`))
}
