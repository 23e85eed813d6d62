package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// foosCRD is a definition shaped as Kubernetes' CustomResourcePublishOpenAPI
// conformance tests make theirs: two served versions of one schema.
const foosCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: foos.crd-publish-openapi-test.example.com
spec:
  group: crd-publish-openapi-test.example.com
  scope: Namespaced
  names: {plural: foos, singular: foo, kind: Foo, listKind: FooList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: &schema
        description: Foo CRD for Testing
        type: object
        properties:
          spec:
            type: object
            description: Specification of Foo
            properties:
              bars:
                description: List of Bars and their specs.
                type: array
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {description: Name of Bar., type: string}
                    bazs: {description: List of Bazs., type: array, items: {type: string}}
  - name: v2
    served: true
    storage: false
    schema:
      openAPIV3Schema: *schema
`

// TestCustomResourceExplainWithKubectl explains a custom resource with the
// real kubectl against serve, in each served version, as the
// CustomResourcePublishOpenAPI conformance tests do.
func TestCustomResourceExplainWithKubectl(t *testing.T) {
	if testing.Short() {
		t.Skip("runs serve and kubectl")
	}
	url, _, stop := startServe(t, "--nodes=0")
	defer stop()
	k := newKubectlSession(t, url)
	eventually(t, "ready", func() bool { return k.get("get", "--raw", "/readyz") == "ok" })
	k.ok("apply", "-f", k.file("foos.yaml", foosCRD))

	assert.Regexp(t, `(?s)DESCRIPTION:.*Foo CRD for Testing.*FIELDS:.*apiVersion.*<string>.*APIVersion defines.*spec.*<Object>.*Specification of Foo`,
		k.ok("explain", "foos"))
	assert.Regexp(t, `(?s)DESCRIPTION:.*Standard object's metadata.*FIELDS:.*creationTimestamp.*<string>.*CreationTimestamp is a timestamp`,
		k.ok("explain", "foos.metadata"))
	assert.Regexp(t, `(?s)(FIELD|RESOURCE):.*bars.*<\[\]Object>.*DESCRIPTION:.*List of Bars and their specs.*FIELDS:.*bazs.*<\[\]string>.*List of Bazs.*name.*<string>.*Name of Bar`,
		k.ok("explain", "foos.spec.bars"))
	assert.Contains(t, k.ok("explain", "foos.spec", "--api-version=crd-publish-openapi-test.example.com/v2"), "VERSION:    v2")
}
