package schema

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
)

const testSchema = `{"type":"object","properties":{
  "spec":{"type":"object","required":["size"],"properties":{
    "replicas":{"type":"integer","minimum":0,"maximum":10,"default":1},
    "size":{"type":"string","enum":["small","large"]},
    "name":{"type":"string","minLength":2,"maxLength":5,"pattern":"^[a-z]+$"},
    "when":{"type":"string","format":"date-time"},
    "tags":{"type":"array","maxItems":2,"items":{"type":"string"},"x-kubernetes-list-type":"set"},
    "ports":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"port":{"type":"integer","format":"int32"}}},
             "x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"]},
    "labels":{"type":"object","additionalProperties":{"type":"string"}},
    "free":{"type":"object","x-kubernetes-preserve-unknown-fields":true},
    "port":{"x-kubernetes-int-or-string":true}
  }}}}`

func testRoot(t testing.TB) *Schema {
	var s api.JSONSchemaProps
	require.NoError(t, json.Unmarshal([]byte(testSchema), &s))
	return Compile(&s)
}

func obj(t testing.TB, s string) map[string]any {
	v, err := api.DecodeJSONValue([]byte(s))
	require.NoError(t, err)
	return v.(map[string]any)
}

func TestValidate(t *testing.T) {
	root := testRoot(t)
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"valid", `{"spec":{"size":"small","replicas":3,"name":"ab","tags":["a","b"],"port":"http","free":{"x":1}}}`, nil},
		{"minimum", `{"spec":{"size":"small","replicas":-1}}`, []string{"spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0"}},
		{"maximum", `{"spec":{"size":"small","replicas":11}}`, []string{"spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10"}},
		{"type", `{"spec":{"size":"small","replicas":"x"}}`, []string{`spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"`}},
		{"required", `{"spec":{}}`, []string{"spec.size: Required value"}},
		{"enum", `{"spec":{"size":"huge"}}`, []string{`spec.size: Unsupported value: "huge": supported values: "small", "large"`}},
		{"lengths and pattern", `{"spec":{"size":"small","name":"A"}}`, []string{
			`spec.name: Invalid value: "A": spec.name in body should be at least 2 chars long`,
			`spec.name: Invalid value: "A": spec.name in body should match '^[a-z]+$'`}},
		{"too long", `{"spec":{"size":"small","name":"abcdef"}}`, []string{`spec.name: Too long: may not be more than 5 bytes`}},
		{"date-time", `{"spec":{"size":"small","when":"yesterday"}}`, []string{`spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"`}},
		{"set", `{"spec":{"size":"small","tags":["a","a"]}}`, []string{`spec.tags[1]: Duplicate value: "a"`}},
		{"too many", `{"spec":{"size":"small","tags":["a","b","c"]}}`, []string{`spec.tags: Too many: must have at most 2 items`}},
		{"map keys", `{"spec":{"size":"small","ports":[{"name":"a","port":1},{"name":"a","port":2}]}}`, []string{`spec.ports[1]: Duplicate value: map[string]interface {}{"name":"a"}`}},
		{"int32", `{"spec":{"size":"small","ports":[{"name":"a","port":3000000000}]}}`, []string{`spec.ports[0].port: Invalid value: 3000000000: spec.ports[0].port in body must be of type int32: "3000000000"`}},
		{"map values", `{"spec":{"size":"small","labels":{"a":1}}}`, []string{`spec.labels.a: Invalid value: "integer": spec.labels.a in body must be of type string: "integer"`}},
		{"null", `{"spec":{"size":null}}`, []string{`spec.size: Invalid value: "null": spec.size in body must be of type string: "null"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, e := range Validate(obj(t, tc.in), root) {
				got = append(got, e.Error())
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestPruneAndDefault(t *testing.T) {
	root := testRoot(t)
	o := obj(t, `{"top":1,"spec":{"size":"small","bad":true,"free":{"kept":{"deep":1}},"labels":{"a":"b"},"ports":[{"name":"a","junk":1}]}}`)
	assert.Equal(t, []string{"spec.bad", "spec.ports[0].junk", "top"}, UnknownFields(o, root))
	assert.Contains(t, o, "top", "UnknownFields changes nothing")
	assert.Equal(t, []string{"spec.bad", "spec.ports[0].junk", "top"}, Prune(o, root))
	Default(o, root)
	assert.Equal(t, obj(t, `{"spec":{"size":"small","replicas":1,"free":{"kept":{"deep":1}},"labels":{"a":"b"},"ports":[{"name":"a"}]}}`), o)
}

// TestSettled: HasUnknown and LacksDefaults answer, without changing the
// object, whether Prune and Default would change it.
func TestSettled(t *testing.T) {
	root := testRoot(t)
	for _, tc := range []struct {
		name, in       string
		unknown, lacks bool
	}{
		{"settled", `{"spec":{"size":"small","replicas":2,"free":{"any":{"deep":1}},"labels":{"a":"b"},"ports":[{"name":"a"}]}}`, false, false},
		{"unknown at the root", `{"top":1,"spec":{"replicas":1}}`, true, false},
		{"unknown in a list item", `{"spec":{"replicas":1,"ports":[{"name":"a","junk":1}]}}`, true, false},
		{"a default missing", `{"spec":{"size":"small"}}`, false, true},
		{"a default over null", `{"spec":{"replicas":null}}`, false, true},
		{"no spec, nothing to default in", `{}`, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := obj(t, tc.in)
			before := api.JSONObject(o).DeepCopy()
			assert.Equal(t, tc.unknown, HasUnknown(o, root), "HasUnknown")
			assert.Equal(t, tc.lacks, LacksDefaults(o, root), "LacksDefaults")
			assert.Equal(t, before, api.JSONObject(o), "asking changes nothing")
			Prune(o, root)
			Default(o, root)
			assert.Equal(t, tc.unknown || tc.lacks, !assert.ObjectsAreEqual(before, api.JSONObject(o)), "Prune and Default change it")
		})
	}
}

// FuzzSchema runs pruning, defaulting and validation of any JSON value against any schema:
// none may panic.
func FuzzSchema(f *testing.F) {
	f.Add(testSchema, `{"spec":{"size":"small","tags":["a","a"],"ports":[{"name":"a"}]}}`)
	f.Add(`{"type":"object","additionalProperties":{"type":"array","items":{"type":"integer","default":3}}}`, `{"a":[null,1,"x"]}`)
	f.Add(`{"type":"object","properties":{"a":{"type":"string","pattern":"(","default":"zz"}}}`, `{"a":null}`)
	f.Fuzz(func(t *testing.T, schemaJSON, objJSON string) {
		var props api.JSONSchemaProps
		if json.Unmarshal([]byte(schemaJSON), &props) != nil {
			return
		}
		s := Compile(&props)
		v, err := api.DecodeJSONValue([]byte(objJSON))
		if err != nil {
			return
		}
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		_ = UnknownFields(m, s)
		settled := !HasUnknown(m, s) && !LacksDefaults(m, s)
		before := api.JSONObject(m).DeepCopy()
		Prune(m, s)
		Default(m, s)
		if settled {
			require.Equal(t, before, api.JSONObject(m), "HasUnknown and LacksDefaults said Prune and Default change nothing")
		}
		_ = Validate(m, s)
	})
}
