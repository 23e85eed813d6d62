package httpapi_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/clock"
)

// TestKubectlNamespaceFinalize: the finalize subresource through the real
// kubectl (replace --raw, as people unstick a namespace): a finalizer
// added there holds a deleted namespace once its content is gone, in
// Terminating with its conditions said; removing it there deletes the
// namespace. GET on the subresource is not allowed, as in kube-apiserver.
func TestKubectlNamespaceFinalize(t *testing.T) {
	ts := newTestServer(t, clock.Real{}, nil)
	k := newKubectl(t, ts.url)
	k.ok("", "create", "namespace", "stuck")
	k.ok("", "create", "configmap", "app", "-n", "stuck", "--from-literal=a=b")

	withFake := `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"stuck"},"spec":{"finalizers":["kubernetes","e2e.example.com/fake"]}}`
	k.ok(withFake, "replace", "--raw", "/api/v1/namespaces/stuck/finalize", "-f", "-")
	assert.Equal(t, `["kubernetes","e2e.example.com/fake"]`, k.ok("", "get", "ns", "stuck", "-o", "jsonpath={.spec.finalizers}"))

	k.ok("", "delete", "namespace", "stuck", "--wait=false")
	ts.srv.Sweep() // what Run does when the namespace is marked
	assert.Equal(t, "Terminating", k.ok("", "get", "ns", "stuck", "-o", "jsonpath={.status.phase}"))
	assert.Equal(t, `["e2e.example.com/fake"]`, k.ok("", "get", "ns", "stuck", "-o", "jsonpath={.spec.finalizers}"),
		"content gone, the kubernetes finalizer is off")
	assert.Contains(t, k.ok("", "describe", "ns", "stuck"), "NamespaceContentRemaining")
	assert.Contains(t, k.fails("", "get", "--raw", "/api/v1/namespaces/stuck/finalize"), "MethodNotAllowed")

	k.ok(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"stuck"},"spec":{"finalizers":[]}}`,
		"replace", "--raw", "/api/v1/namespaces/stuck/finalize", "-f", "-")
	assert.Contains(t, k.fails("", "get", "ns", "stuck"), `namespaces "stuck" not found`)
}
