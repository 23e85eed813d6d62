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

// portsCRDYAML has a list of type map keyed by containerPort and protocol,
// as the FieldValidation conformance tests' definition.
const portsCRDYAML = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: sockets.demo.example.com
spec:
  group: demo.example.com
  scope: Cluster
  names: {plural: sockets, singular: socket, kind: Socket}
  versions:
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
              foo: {type: string}
              ports:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [containerPort, protocol]
                items:
                  type: object
                  required: [containerPort, protocol]
                  properties:
                    containerPort: {type: integer}
                    protocol: {type: string}
                    name: {type: string}
`

// TestKubectlCustomResourceServerSideApply applies custom resources on
// the server: created, then merged with another manager's fields (a list
// of type map merges by key), and refused on a conflict.
func TestKubectlCustomResourceServerSideApply(t *testing.T) {
	ts := newTestServer(t, clock.Real{}, nil)
	k := newKubectl(t, ts.url)
	k.ok(portsCRDYAML, "apply", "-f", "-")
	const head = "apiVersion: demo.example.com/v1\nkind: Socket\nmetadata:\n  name: s\n"
	assert.Equal(t, "socket.demo.example.com/s serverside-applied\n",
		k.ok(head+"spec:\n  foo: a\n  ports:\n  - {containerPort: 80, protocol: TCP, name: web}\n", "apply", "--server-side", "--field-manager=one", "-f", "-"))
	k.ok(head+"spec:\n  ports:\n  - {containerPort: 53, protocol: UDP, name: dns}\n", "apply", "--server-side", "--field-manager=two", "-f", "-")
	assert.Equal(t, "a web dns", k.ok("", "get", "socket", "s", "-o",
		`jsonpath={.spec.foo} {.spec.ports[?(@.containerPort==80)].name} {.spec.ports[?(@.containerPort==53)].name}`), "merged by key")
	assert.Contains(t, k.fails(head+"spec:\n  foo: b\n", "apply", "--server-side", "--field-manager=two", "-f", "-"),
		`conflict with "one": .spec.foo`)
}
