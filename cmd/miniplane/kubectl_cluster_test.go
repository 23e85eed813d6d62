package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/controllers/manager"
	"github.com/miniplane/miniplane/plane"
	"github.com/miniplane/miniplane/plane/planetest"
)

// TestKubectlSeesWhatAClusterHas: what kubectl users and Kubernetes' e2e
// suite expect before they write anything — a namespace gets its default
// ServiceAccount and kube-root-ca.crt, default has the kubernetes Service
// and Endpoints, and a pod naming a missing account is refused.
func TestKubectlSeesWhatAClusterHas(t *testing.T) {
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not installed")
	}
	opts := manager.DefaultOptions()
	opts.Nodes = 1
	p := planetest.Start(t, plane.Config{Listen: "127.0.0.1:0", Options: &opts, Seed: 1})
	kcPath, remove, err := writeKubeconfig(filepath.Join(t.TempDir(), "kubeconfig"), kubeconfig(p.URL(), nil, ""))
	require.NoError(t, err)
	t.Cleanup(remove)
	k := newKubectl(t, kcPath)

	k.ok("", "create", "namespace", "x")
	eventually(t, "the default account in x", func() bool {
		out, _, err := k.run("", "get", "sa", "-n", "x", "-o", "name")
		return err == nil && strings.Contains(out, "serviceaccount/default")
	})
	eventually(t, "kube-root-ca.crt in x", func() bool {
		_, _, err := k.run("", "get", "cm", "kube-root-ca.crt", "-n", "x")
		return err == nil
	})
	assert.Contains(t, k.ok("", "get", "cm", "kube-root-ca.crt", "-n", "x", "-o", "jsonpath={.data.ca\\.crt}"), "-----BEGIN CERTIFICATE-----")

	rows := columns(k.ok("", "get", "svc", "kubernetes"))
	require.Len(t, rows, 2)
	assert.Equal(t, []string{"kubernetes", "ClusterIP", "10.96.0.1", "<none>", "443/TCP"}, rows[1][:5])
	port := p.URL()[strings.LastIndex(p.URL(), ":")+1:]
	assert.Equal(t, "127.0.0.1:"+port, k.ok("", "get", "endpoints", "kubernetes", "-o", "jsonpath={.subsets[0].addresses[0].ip}:{.subsets[0].ports[0].port}"))

	const pod = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"x"},
"spec":{"serviceAccountName":"ghost","containers":[{"name":"c","image":"nginx"}]}}`
	assert.Contains(t, k.fails(pod, "create", "-f", "-"),
		`Error from server (Forbidden): error when creating "STDIN": pods "p" is forbidden: error looking up service account x/ghost: serviceaccount "ghost" not found`)
	_, _, err = k.run("", "get", "pod", "p", "-n", "x")
	assert.Error(t, err, "nothing stored")
	k.ok(strings.Replace(pod, `"serviceAccountName":"ghost",`, "", 1), "create", "-f", "-")
	assert.Equal(t, "default", k.ok("", "get", "pod", "p", "-n", "x", "-o", "jsonpath={.spec.serviceAccountName}"))
}
