package httpapi

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
)

// The types the schema builder is tested on: one of every shape.

type testInner struct {
	A string `json:"a,omitempty"`
}

type testKind struct {
	api.TypeMeta `json:",inline"`
	Name         string            `json:"name"`
	Count        int32             `json:"count,omitempty"`
	Big          *int64            `json:"big,omitempty"`
	Ready        bool              `json:"ready"`
	Ratio        float64           `json:"ratio,omitempty"`
	Inner        testInner         `json:"inner,omitempty"`
	InnerPtr     *testInner        `json:"innerPtr,omitempty"`
	List         []testInner       `json:"list,omitempty"`
	PtrList      []*testInner      `json:"ptrList,omitempty"`
	Names        []string          `json:"names"`
	Labels       map[string]string `json:"labels,omitempty"`
	Raw          []byte            `json:"raw,omitempty"`
	When         api.Time          `json:"when,omitempty"`
	WhenPtr      *api.Time         `json:"whenPtr,omitempty"`
	Micro        api.MicroTime     `json:"micro,omitempty"`
	Port         api.IntOrString   `json:"port"`
	Limits       api.ResourceList  `json:"limits,omitempty"`
	Fields       json.RawMessage   `json:"fields,omitempty"`
	Skipped      string            `json:"-"`
	Untagged     string
	hidden       string // unexported: left out
}

type testTree struct {
	Children []testTree `json:"children,omitempty"`
}

type testMarshaler struct{ v int }

func (m testMarshaler) MarshalJSON() ([]byte, error) { return json.Marshal(m.v) }

type testHasMarshaler struct {
	M testMarshaler `json:"m"`
}

type testChan struct {
	C chan int `json:"c"`
}

type testIntMap struct {
	M map[int]string `json:"m"`
}

type testOther struct {
	B string `json:"b"`
}

type testClash struct {
	Inner testInner `json:"inner"`
	Other testOther `json:"other"`
}

var testDocs = map[string]string{
	"testKind":      "testKind is a kind.",
	"testKind.Name": "Name names it.",
	"testKind.Port": "Port is a number or a name.",
	"testInner":     "testInner is inside.",
	"TypeMeta.Kind": "Kind is the kind.",
	"Time":          "Time is a timestamp.",
}

var testNames = map[string]string{"testInner": "io.test.Inner"}

// TestSchemaProperties builds testKind's definition and checks the schema
// of each field: the shape of each Go type, optionality, defaults and
// descriptions.
func TestSchemaProperties(t *testing.T) {
	b := newSchemaBuilder(testDocs, testNames, "io.test.v1.")
	name, err := b.definition(reflect.TypeFor[testKind]())
	require.NoError(t, err)
	require.Equal(t, "io.test.v1.testKind", name, "a type without a Kubernetes name gets the fallback")
	def := b.defs[name]
	require.NotNil(t, def)
	assert.Equal(t, "object", def.Type)
	assert.Equal(t, "testKind is a kind.", def.Description)
	assert.Equal(t, []string{"name", "ready", "names", "port", "Untagged"}, def.Required,
		"fields without omitempty that are not pointers, in field order")

	tests := []struct {
		field string
		want  string // the property's schema in JSON; "" means absent
	}{
		{"apiVersion", `{"type":"string"}`},
		{"kind", `{"type":"string","description":"Kind is the kind."}`},
		{"name", `{"type":"string","description":"Name names it.","default":""}`},
		{"count", `{"type":"integer","format":"int32"}`},
		{"big", `{"type":"integer","format":"int64"}`},
		{"ready", `{"type":"boolean","default":false}`},
		{"ratio", `{"type":"number","format":"double"}`},
		{"inner", `{"allOf":[{"$ref":"io.test.Inner"}],"default":{}}`},
		{"innerPtr", `{"$ref":"io.test.Inner"}`},
		{"list", `{"type":"array","items":{"allOf":[{"$ref":"io.test.Inner"}],"default":{}}}`},
		{"ptrList", `{"type":"array","items":{"$ref":"io.test.Inner"}}`},
		{"names", `{"type":"array","items":{"type":"string","default":""}}`},
		{"labels", `{"type":"object","additionalProperties":{"type":"string","default":""}}`},
		{"raw", `{"type":"string","format":"byte"}`},
		{"when", `{"$ref":"io.k8s.apimachinery.pkg.apis.meta.v1.Time"}`},
		{"whenPtr", `{"$ref":"io.k8s.apimachinery.pkg.apis.meta.v1.Time"}`},
		{"micro", `{"$ref":"io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime"}`},
		{"port", `{"allOf":[{"$ref":"io.k8s.apimachinery.pkg.util.intstr.IntOrString"}],"description":"Port is a number or a name."}`},
		{"limits", `{"type":"object","additionalProperties":{"$ref":"io.k8s.apimachinery.pkg.api.resource.Quantity"}}`},
		{"fields", `{"type":"object","x-kubernetes-preserve-unknown-fields":true}`},
		{"Untagged", `{"type":"string","default":""}`},
		{"Skipped", ""},
		{"-", ""},
		{"hidden", ""},
		{"TypeMeta", ""},
	}
	for _, tt := range tests {
		t.Run(tt.field, func(t *testing.T) {
			prop, ok := def.Properties[tt.field]
			if tt.want == "" {
				assert.False(t, ok)
				return
			}
			require.True(t, ok)
			got, err := json.Marshal(prop)
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(got))
		})
	}
	assert.Len(t, def.Properties, len(tests)-4)
}

// TestSchemaDefinitions checks the definitions a kind's schema refers to:
// the structs it holds, and the special shapes of the types with their own
// JSON encoding.
func TestSchemaDefinitions(t *testing.T) {
	b := newSchemaBuilder(testDocs, testNames, "io.test.v1.")
	_, err := b.definition(reflect.TypeFor[testKind]())
	require.NoError(t, err)
	tests := []struct {
		name string
		want string
	}{
		{"io.test.Inner", `{"type":"object","description":"testInner is inside.","properties":{"a":{"type":"string"}}}`},
		{"io.k8s.apimachinery.pkg.apis.meta.v1.Time", `{"type":"string","format":"date-time","description":"Time is a timestamp."}`},
		{"io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime", `{"type":"string","format":"date-time"}`},
		{"io.k8s.apimachinery.pkg.util.intstr.IntOrString", `{"format":"int-or-string","oneOf":[{"type":"integer"},{"type":"string"}]}`},
		{quantityDefinition, `{"description":` + mustQuote(t, quantityDescription) + `,"oneOf":[{"type":"string"},{"type":"number"}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			def, ok := b.defs[tt.name]
			require.True(t, ok)
			got, err := json.Marshal(def)
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(got))
		})
	}
	assert.Len(t, b.defs, len(tests)+1, "and testKind's own")
}

func mustQuote(t *testing.T, s string) string {
	b, err := json.Marshal(s)
	require.NoError(t, err)
	return string(b)
}

// TestSchemaRecursive checks that a type holding itself ends in a $ref to
// its own definition.
func TestSchemaRecursive(t *testing.T) {
	b := newSchemaBuilder(nil, nil, "io.test.v1.")
	name, err := b.definition(reflect.TypeFor[testTree]())
	require.NoError(t, err)
	got, err := json.Marshal(b.defs[name].Properties["children"])
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"array","items":{"allOf":[{"$ref":"io.test.v1.testTree"}],"default":{}}}`, string(got))
}

// TestSchemaRefusals checks the types the builder has no schema for.
func TestSchemaRefusals(t *testing.T) {
	tests := []struct {
		name  string
		typ   reflect.Type
		names map[string]string
		want  string
	}{
		{"not a struct", reflect.TypeFor[string](), nil, "string is not a named struct type"},
		{"own JSON encoding", reflect.TypeFor[testHasMarshaler](), nil, "testHasMarshaler.M: httpapi.testMarshaler has its own JSON encoding"},
		{"channel", reflect.TypeFor[testChan](), nil, "testChan.C: chan int has no JSON schema"},
		{"map with int keys", reflect.TypeFor[testIntMap](), nil, "testIntMap.M: map key int is not a string"},
		{"two types with one name", reflect.TypeFor[testClash](), map[string]string{"testInner": "io.test.Same", "testOther": "io.test.Same"},
			"httpapi.testInner and httpapi.testOther would both be the definition io.test.Same"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newSchemaBuilder(nil, tt.names, "io.test.v1.")
			_, err := b.definition(tt.typ)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// TestSwaggerSchema checks the v3 to v2 conversion: references into
// #/definitions/, the allOf wrapper dropped, oneOf written as a string.
func TestSwaggerSchema(t *testing.T) {
	tests := []struct {
		name, v3, v2 string
	}{
		{"ref", `{"$ref":"io.test.Inner"}`, `{"$ref":"#/definitions/io.test.Inner"}`},
		{"wrapped ref", `{"allOf":[{"$ref":"io.test.Inner"}],"default":{},"description":"d"}`,
			`{"$ref":"#/definitions/io.test.Inner","default":{},"description":"d"}`},
		{"nested", `{"type":"array","items":{"allOf":[{"$ref":"io.test.Inner"}]}}`,
			`{"type":"array","items":{"$ref":"#/definitions/io.test.Inner"}}`},
		{"properties", `{"type":"object","properties":{"a":{"$ref":"X"}},"additionalProperties":{"$ref":"Y"}}`,
			`{"type":"object","properties":{"a":{"$ref":"#/definitions/X"}},"additionalProperties":{"$ref":"#/definitions/Y"}}`},
		{"int or string", `{"format":"int-or-string","oneOf":[{"type":"integer"},{"type":"string"}]}`,
			`{"type":"string","format":"int-or-string"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in schema
			require.NoError(t, json.Unmarshal([]byte(tt.v3), &in))
			before, err := json.Marshal(&in)
			require.NoError(t, err)
			got, err := json.Marshal(swaggerSchema(&in))
			require.NoError(t, err)
			assert.JSONEq(t, tt.v2, string(got))
			after, err := json.Marshal(&in)
			require.NoError(t, err)
			assert.JSONEq(t, string(before), string(after), "the v3 schema is unchanged")
		})
	}
}
