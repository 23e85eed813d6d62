package httpapi_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/clock"
)

// fooSchema is the Foo schema of Kubernetes' CustomResourcePublishOpenAPI
// conformance tests (test/e2e/apimachinery/crd_publish_openapi.go), in JSON.
const fooSchema = `{"description":"Foo CRD for Testing","type":"object","properties":{
 "spec":{"type":"object","description":"Specification of Foo","properties":{
  "bars":{"description":"List of Bars and their specs.","type":"array","items":{"type":"object","required":["name"],"properties":{
   "name":{"description":"Name of Bar.","type":"string"},
   "age":{"description":"Age of Bar.","type":"string"},
   "feeling":{"description":"Whether Bar is feeling great.","type":"string","enum":["Great","Down"]},
   "bazs":{"description":"List of Bazs.","items":{"type":"string"},"type":"array"}}}}}},
 "status":{"description":"Status of Foo","type":"object","properties":{
  "bars":{"description":"List of Bars and their statuses.","type":"array","items":{"type":"object","properties":{
   "name":{"description":"Name of Bar.","type":"string"},
   "available":{"description":"Whether the Bar is installed.","type":"boolean"},
   "quxType":{"description":"Indicates to external qux type.","pattern":"in-tree|out-of-tree","type":"string"}}}}}}}}`

// fooCRD is a definition of Foos in versions (the first stored), each
// served when served says so, with schema.
func fooCRD(schema string, served map[string]bool, versions ...string) string {
	var vs []map[string]any
	for i, v := range versions {
		vs = append(vs, map[string]any{"name": v, "served": served[v], "storage": i == 0,
			"schema": map[string]any{"openAPIV3Schema": json.RawMessage(schema)}})
	}
	crd, _ := json.Marshal(map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "e2e-test-foos.crd-test-foo.example.com"},
		"spec": map[string]any{"group": "crd-test-foo.example.com", "scope": "Namespaced",
			"names":    map[string]any{"plural": "e2e-test-foos", "singular": "e2e-test-foo", "kind": "e2e-test-foo", "listKind": "e2e-test-fooList"},
			"versions": vs},
	})
	return string(crd)
}

// v2Definitions returns /openapi/v2's definitions.
func v2Definitions(t *testing.T, k *kubectl) map[string]map[string]any {
	var doc struct {
		Definitions map[string]map[string]any `json:"definitions"`
	}
	require.NoError(t, json.Unmarshal([]byte(k.ok("", "get", "--raw", "/openapi/v2")), &doc))
	return doc.Definitions
}

// withoutAdded is a published definition without what kube-apiserver adds
// to the definition's schema, as the conformance test's dropDefaults.
func withoutAdded(def map[string]any) string {
	if props, ok := def["properties"].(map[string]any); ok {
		delete(props, "metadata")
		delete(props, "apiVersion")
		delete(props, "kind")
		if len(props) == 0 {
			delete(def, "properties")
		}
	}
	delete(def, "x-kubernetes-group-version-kind")
	b, _ := json.Marshal(def)
	return string(b)
}

// TestKubectlCustomResourceOpenAPI publishes each served version of a
// definition in /openapi/v2 and v3 as kube-apiserver does (the
// CustomResourcePublishOpenAPI conformance tests): under the reversed group,
// the version and the kind, with the definition's schema unchanged; kubectl
// explains it and refuses what it does not allow; a renamed version's
// definition is replaced and one no longer served is removed.
func TestKubectlCustomResourceOpenAPI(t *testing.T) {
	ts := newTestServer(t, clock.Real{}, nil)
	k := newKubectl(t, ts.url)
	const prefix = "com.example.crd-test-foo."
	k.ok(fooCRD(fooSchema, map[string]bool{"v1": true, "v2": true}, "v1", "v2"), "apply", "-f", "-")

	defs := v2Definitions(t, k)
	for _, v := range []string{"v1", "v2"} {
		def, ok := defs[prefix+v+".e2e-test-foo"]
		require.True(t, ok, "the %s definition is published", v)
		assert.Equal(t, []any{map[string]any{"group": "crd-test-foo.example.com", "version": v, "kind": "e2e-test-foo"}},
			def["x-kubernetes-group-version-kind"])
		assert.Equal(t, "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", def["properties"].(map[string]any)["metadata"].(map[string]any)["$ref"])
		assert.JSONEq(t, fooSchema, withoutAdded(def))
	}
	var v3 struct {
		Components struct {
			Schemas map[string]map[string]any `json:"schemas"`
		} `json:"components"`
	}
	require.NoError(t, json.Unmarshal([]byte(k.ok("", "get", "--raw", "/openapi/v3/apis/crd-test-foo.example.com/v2")), &v3))
	assert.JSONEq(t, fooSchema, withoutAdded(v3.Components.Schemas[prefix+"v2.e2e-test-foo"]))

	for _, c := range []struct {
		args    []string
		pattern string
	}{
		{[]string{"e2e-test-foos"}, `(?s)DESCRIPTION:.*Foo CRD for Testing.*FIELDS:.*apiVersion.*<string>.*APIVersion defines.*spec.*<Object>.*Specification of Foo`},
		{[]string{"e2e-test-foos.metadata"}, `(?s)DESCRIPTION:.*Standard object's metadata.*FIELDS:.*creationTimestamp.*<string>.*CreationTimestamp is a timestamp`},
		{[]string{"e2e-test-foos.spec.bars"}, `(?s)(FIELD|RESOURCE):.*bars.*<\[\]Object>.*DESCRIPTION:.*List of Bars and their specs.*FIELDS:.*bazs.*<\[\]string>.*List of Bazs.*name.*<string>.*Name of Bar`},
	} {
		assert.Regexp(t, regexp.MustCompile(c.pattern), k.ok("", append([]string{"explain"}, c.args...)...))
	}
	assert.Contains(t, k.fails("", "explain", "e2e-test-foos.spec.bars2"), `field "bars2" does not exist`)

	meta := `"kind":"e2e-test-foo","apiVersion":"crd-test-foo.example.com/v1","metadata":{"name":"test-foo"}`
	k.ok(fmt.Sprintf(`{%s,"spec":{"bars":[{"name":"test-bar"}]}}`, meta), "create", "-f", "-")
	k.ok("", "delete", "e2e-test-foos", "test-foo")
	for _, c := range []struct{ spec, want string }{
		{`{"bars":[{"name":"test-bar","feeling":"NonExistentValue"}]}`, `Unsupported value: "NonExistentValue"`},
		{`{"foo":true}`, `unknown field "spec.foo"`},
		{`{"bars":[{"age":"10"}]}`, `spec.bars[0].name: Required value`},
	} {
		for _, verb := range []string{"create", "apply"} {
			assert.Contains(t, k.fails(fmt.Sprintf(`{%s,"spec":%s}`, meta, c.spec), verb, "-f", "-"), c.want, verb)
		}
	}

	k.ok(fooCRD(fooSchema, map[string]bool{"v1": true, "v3": true}, "v1", "v3"), "apply", "-f", "-")
	defs = v2Definitions(t, k)
	assert.Contains(t, defs, prefix+"v3.e2e-test-foo", "the renamed version")
	assert.NotContains(t, defs, prefix+"v2.e2e-test-foo", "the old name")
	k.ok(fooCRD(fooSchema, map[string]bool{"v1": true}, "v1", "v3"), "apply", "-f", "-")
	assert.NotContains(t, v2Definitions(t, k), prefix+"v3.e2e-test-foo", "not served")

	k.ok("", "delete", "crd", "e2e-test-foos.crd-test-foo.example.com")
	assert.NotContains(t, v2Definitions(t, k), prefix+"v1.e2e-test-foo", "the definition goes with its CRD")
}

// TestKubectlCustomResourceOpenAPIKeepingUnknown publishes a schema that
// keeps unknown fields at its root as a bare object in /openapi/v2, as
// kube-apiserver does, so that kubectl validates none of its fields.
func TestKubectlCustomResourceOpenAPIKeepingUnknown(t *testing.T) {
	ts := newTestServer(t, clock.Real{}, nil)
	k := newKubectl(t, ts.url)
	k.ok(fooCRD(`{"type":"object","x-kubernetes-preserve-unknown-fields":true}`, map[string]bool{"v1": true}, "v1"), "apply", "-f", "-")
	def := v2Definitions(t, k)["com.example.crd-test-foo.v1.e2e-test-foo"]
	require.NotNil(t, def)
	assert.JSONEq(t, `{"type":"object"}`, withoutAdded(def))
	k.ok(`{"kind":"e2e-test-foo","apiVersion":"crd-test-foo.example.com/v1","metadata":{"name":"test-cr"},"a":{"b":[{"c":"d"}]}}`, "create", "-f", "-")
	assert.Regexp(t, `(?s)DESCRIPTION:.*<empty>`, k.ok("", "explain", "e2e-test-foos"))
}
