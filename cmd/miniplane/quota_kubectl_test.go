package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestResourceQuotaWithKubectl is a quota's life with the real kubectl
// against `miniplane serve`: create one, see the resourcequota controller
// count it, fill it with two pods, have a third refused with
// kube-apiserver's message and nothing stored, describe it, and have a pod
// that leaves a capped limit unsaid refused too.
func TestResourceQuotaWithKubectl(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a live control plane and kubectl")
	}
	url, _, _ := startServe(t)
	k := newKubectlSession(t, url)
	eventually(t, "ready", func() bool { return k.get("get", "--raw", "/readyz") == "ok" })

	out := k.ok("create", "quota", "q", "--hard=pods=2")
	assert.Contains(t, out, "resourcequota/q created")
	eventually(t, "the quota counted", func() bool { return k.get("get", "quota", "q", "-o", "jsonpath={.status.used.pods}") == "0" })

	k.ok("run", "a", "--image=nginx")
	k.ok("run", "b", "--image=nginx")
	eventually(t, "two pods counted", func() bool { return k.get("get", "quota", "q", "-o", "jsonpath={.status.used.pods}") == "2" })
	out, err := k.run(nil, "run", "c", "--image=nginx")
	require.Error(t, err)
	assert.Contains(t, out, `pods "c" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2`)
	_, err = k.run(nil, "get", "pod", "c")
	assert.Error(t, err, "a refused pod is not stored")

	out = k.ok("get", "quota")
	assert.Regexp(t, `NAME\s+AGE\s+REQUEST\s+LIMIT`, out)
	assert.Regexp(t, `q\s+\d+s\s+pods: 2/2`, out)
	out = k.ok("describe", "quota", "q")
	assert.Regexp(t, `Resource\s+Used\s+Hard`, out)
	assert.Regexp(t, `pods\s+2\s+2`, out)

	k.ok("delete", "pod", "a", "--wait=false")
	eventually(t, "the deleted pod given back", func() bool { return k.get("get", "quota", "q", "-o", "jsonpath={.status.used.pods}") == "1" })

	k.ok("create", "namespace", "capped")
	k.ok("create", "quota", "cpu", "-n", "capped", "--hard=limits.cpu=2")
	eventually(t, "the cpu quota counted", func() bool {
		return k.get("get", "quota", "cpu", "-n", "capped", "-o", "jsonpath={.status.used.limits\\.cpu}") == "0"
	})
	out, err = k.run(nil, "run", "x", "-n", "capped", "--image=nginx")
	require.Error(t, err)
	assert.Contains(t, out, `pods "x" is forbidden: failed quota: cpu: must specify limits.cpu for: x`)
}
