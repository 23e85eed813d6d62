package httpapi_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/clock"
)

// gadgetsCRDYAML has three versions: v1 stored, v1beta1 served too (with a
// default of its own), v2 not served.
const gadgetsCRDYAML = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.demo.example.com
spec:
  group: demo.example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  versions:
  - name: v1beta1
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, default: 3}
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
  - name: v2
    served: false
    storage: false
    schema:
      openAPIV3Schema: {type: object}
`

// TestKubectlCustomResourceVersions serves every served version of a
// definition over one store, as kube-apiserver does with conversion None:
// discovery lists the served versions by priority, an object written in
// one version is read in the other with its apiVersion rewritten, each
// version defaults with its own schema, and a version not served is 404.
func TestKubectlCustomResourceVersions(t *testing.T) {
	ts := newTestServer(t, clock.Real{}, nil)
	k := newKubectl(t, ts.url)
	k.ok(gadgetsCRDYAML, "apply", "-f", "-")

	assert.JSONEq(t, `{"kind":"APIGroup","apiVersion":"v1","name":"demo.example.com",
		"versions":[{"groupVersion":"demo.example.com/v1","version":"v1"},{"groupVersion":"demo.example.com/v1beta1","version":"v1beta1"}],
		"preferredVersion":{"groupVersion":"demo.example.com/v1","version":"v1"}}`,
		k.ok("", "get", "--raw", "/apis/demo.example.com"))

	assert.Equal(t, "gadget.demo.example.com/old created\n",
		k.ok("apiVersion: demo.example.com/v1beta1\nkind: Gadget\nmetadata:\n  name: old\nspec: {}\n", "apply", "-f", "-"))
	assert.Equal(t, "demo.example.com/v1 3", k.ok("", "get", "gadget", "old", "-o", "jsonpath={.apiVersion} {.spec.size}"),
		"read in the preferred version, defaulted by v1beta1's schema")
	assert.Equal(t, "demo.example.com/v1beta1", k.ok("", "get", "gadgets.v1beta1.demo.example.com", "old", "-o", "jsonpath={.apiVersion}"))
	assert.Equal(t, "gadget.demo.example.com/new created\n",
		k.ok("apiVersion: demo.example.com/v1\nkind: Gadget\nmetadata:\n  name: new\nspec: {}\n", "apply", "-f", "-"))
	assert.Equal(t, "demo.example.com/v1beta1 demo.example.com/v1beta1 ",
		k.ok("", "get", "gadgets.v1beta1.demo.example.com", "-o", "jsonpath={range .items[*]}{.apiVersion} {end}"))
	assert.Equal(t, "", k.ok("", "get", "gadget", "new", "-o", "jsonpath={.spec.size}"), "v1 has no default")

	assert.Contains(t, k.fails("", "get", "--raw", "/apis/demo.example.com/v2/namespaces/default/gadgets"), "NotFound")
	k.ok("", "delete", "crd", "gadgets.demo.example.com")
}
