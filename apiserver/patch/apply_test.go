package patch

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rcFrontend is an RC as `kubectl apply` of the reference's rc3.yaml leaves it, with the
// fields the server adds.
const rcFrontend = `{
 "apiVersion":"v1","kind":"ReplicationController",
 "metadata":{"name":"frontend","namespace":"default","uid":"u-1","resourceVersion":"12",
   "labels":{"app":"frontend","tier":"web"},"annotations":{"note":"x"},
   "finalizers":["a.example/f"],
   "ownerReferences":[{"apiVersion":"v1","kind":"ReplicationController","name":"o","uid":"o-1"}]},
 "spec":{"replicas":3,"selector":{"app":"frontend"},
  "template":{"metadata":{"labels":{"app":"frontend"}},
   "spec":{"containers":[
    {"name":"php","image":"php:8.2-apache","args":["-a","-b"],
     "ports":[{"containerPort":80,"protocol":"TCP"},{"containerPort":8080,"protocol":"TCP"}],
     "env":[{"name":"A","value":"1"},{"name":"B","value":"2"}]},
    {"name":"sidecar","image":"busybox"}],
    "volumes":[{"name":"data","emptyDir":{}}]}}}}`

// podWeb is a running pod with status.
const podWeb = `{
 "apiVersion":"v1","kind":"Pod",
 "metadata":{"name":"web","namespace":"default","labels":{"app":"web"}},
 "spec":{"nodeName":"n1","containers":[{"name":"web","image":"nginx:1.25","ports":[{"containerPort":80}]}]},
 "status":{"phase":"Running","conditions":[
   {"type":"PodScheduled","status":"True"},{"type":"Ready","status":"False"}]}}`

func TestApplyMergePatch(t *testing.T) {
	tests := []struct {
		name     string
		original string
		patch    string
		want     string
	}{
		{
			name:     "kubectl label adds a label",
			original: `{"metadata":{"name":"web","labels":{"app":"web"}}}`,
			patch:    `{"metadata":{"labels":{"env":"prod"}}}`,
			want:     `{"metadata":{"name":"web","labels":{"app":"web","env":"prod"}}}`,
		},
		{
			name:     "kubectl label env- deletes with null",
			original: `{"metadata":{"name":"web","labels":{"app":"web","env":"prod"}}}`,
			patch:    `{"metadata":{"labels":{"env":null}}}`,
			want:     `{"metadata":{"name":"web","labels":{"app":"web"}}}`,
		},
		{
			name:     "kubectl scale sets spec.replicas of a Scale",
			original: `{"kind":"Scale","apiVersion":"autoscaling/v1","metadata":{"name":"frontend"},"spec":{"replicas":3},"status":{"replicas":3}}`,
			patch:    `{"spec":{"replicas":5}}`,
			want:     `{"kind":"Scale","apiVersion":"autoscaling/v1","metadata":{"name":"frontend"},"spec":{"replicas":5},"status":{"replicas":3}}`,
		},
		{
			name:     "lists are replaced whole",
			original: `{"spec":{"containers":[{"name":"a","image":"x","ports":[{"containerPort":80}]}]}}`,
			patch:    `{"spec":{"containers":[{"name":"a","image":"y"}]}}`,
			want:     `{"spec":{"containers":[{"name":"a","image":"y"}]}}`,
		},
		{
			name:     "an object patched into nothing loses its nulls",
			original: `{"metadata":{"name":"web"}}`,
			patch:    `{"metadata":{"annotations":{"a":"1","b":null}}}`,
			want:     `{"metadata":{"name":"web","annotations":{"a":"1"}}}`,
		},
		{
			name:     "an object replaces a scalar",
			original: `{"spec":"x"}`,
			patch:    `{"spec":{"a":1}}`,
			want:     `{"spec":{"a":1}}`,
		},
		{
			name:     "nulls inside arrays are kept",
			original: `{}`,
			patch:    `{"a":[null,{"b":null}]}`,
			want:     `{"a":[null,{"b":null}]}`,
		},
		{
			name:     "numbers keep every digit",
			original: `{"a":9007199254740993,"b":1.10}`,
			patch:    `{"c":12345678901234567890}`,
			want:     `{"a":9007199254740993,"b":1.10,"c":12345678901234567890}`,
		},
		{
			name:     "an empty patch changes nothing",
			original: podWeb,
			patch:    `{}`,
			want:     podWeb,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Apply(MergePatchType, "Pod", []byte(tt.original), []byte(tt.patch))
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(got))
		})
	}
}

func TestApplyMergePatchKeepsDigits(t *testing.T) {
	got, err := Apply(MergePatchType, "Pod", []byte(`{"a":9007199254740993}`), []byte(`{"b":1.10}`))
	require.NoError(t, err)
	assert.Equal(t, `{"a":9007199254740993,"b":1.10}`, string(got))
}

func TestApplyJSONPatch(t *testing.T) {
	tests := []struct {
		name     string
		original string
		patch    string
		want     string
	}{
		{"add a member", `{"a":1}`, `[{"op":"add","path":"/b","value":{"c":2}}]`, `{"a":1,"b":{"c":2}}`},
		{"add replaces an existing member", `{"a":1}`, `[{"op":"add","path":"/a","value":2}]`, `{"a":2}`},
		{"add inserts into an array", `{"a":[1,3]}`, `[{"op":"add","path":"/a/1","value":2}]`, `{"a":[1,2,3]}`},
		{"add at the end index", `{"a":[1]}`, `[{"op":"add","path":"/a/1","value":2}]`, `{"a":[1,2]}`},
		{"dash appends", `{"a":[1]}`, `[{"op":"add","path":"/a/-","value":2}]`, `{"a":[1,2]}`},
		{"add null", `{}`, `[{"op":"add","path":"/a","value":null}]`, `{"a":null}`},
		{"remove a member", `{"a":1,"b":2}`, `[{"op":"remove","path":"/a"}]`, `{"b":2}`},
		{"remove an element", `{"a":[1,2,3]}`, `[{"op":"remove","path":"/a/1"}]`, `{"a":[1,3]}`},
		{"replace a member", `{"spec":{"replicas":3}}`, `[{"op":"replace","path":"/spec/replicas","value":5}]`, `{"spec":{"replicas":5}}`},
		{"replace an element", `{"a":[1,2]}`, `[{"op":"replace","path":"/a/0","value":9}]`, `{"a":[9,2]}`},
		{"replace the whole document", `{"a":1}`, `[{"op":"replace","path":"","value":{"b":2}}]`, `{"b":2}`},
		{"move a member", `{"a":{"x":1},"b":{}}`, `[{"op":"move","from":"/a/x","path":"/b/y"}]`, `{"a":{},"b":{"y":1}}`},
		{"move an element", `{"a":[1,2,3]}`, `[{"op":"move","from":"/a/0","path":"/a/-"}]`, `{"a":[2,3,1]}`},
		{"copy is deep", `{"a":{"x":[1]}}`, `[{"op":"copy","from":"/a","path":"/b"},{"op":"add","path":"/b/x/-","value":2}]`, `{"a":{"x":[1]},"b":{"x":[1,2]}}`},
		{"test passes, then replace", `{"metadata":{"resourceVersion":"7"}}`, `[{"op":"test","path":"/metadata/resourceVersion","value":"7"},{"op":"replace","path":"/metadata/resourceVersion","value":"8"}]`, `{"metadata":{"resourceVersion":"8"}}`},
		{"test compares numbers by value", `{"a":1}`, `[{"op":"test","path":"/a","value":1.0}]`, `{"a":1}`},
		{"test compares objects deeply", `{"a":{"b":[1,{"c":null}]}}`, `[{"op":"test","path":"/a","value":{"b":[1,{"c":null}]}}]`, `{"a":{"b":[1,{"c":null}]}}`},
		{"escaped slash in a key", `{"metadata":{"annotations":{"a/b":"1"}}}`, `[{"op":"replace","path":"/metadata/annotations/a~1b","value":"2"}]`, `{"metadata":{"annotations":{"a/b":"2"}}}`},
		{"escaped tilde in a key", `{"m":{"x~y":1}}`, `[{"op":"remove","path":"/m/x~0y"}]`, `{"m":{}}`},
		{"~01 is ~1 literally", `{"m":{"~1":1}}`, `[{"op":"remove","path":"/m/~01"}]`, `{"m":{}}`},
		{"the empty key", `{"":1}`, `[{"op":"replace","path":"/","value":2}]`, `{"":2}`},
		{"an empty patch changes nothing", `{"a":1}`, `[]`, `{"a":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Apply(JSONPatchType, "Pod", []byte(tt.original), []byte(tt.patch))
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(got))
		})
	}
}

func TestApplyErrors(t *testing.T) {
	tests := []struct {
		name      string
		patchType string
		kind      string
		original  string
		patch     string
		reason    Reason
		field     string
		message   string // a substring of the error's message
	}{
		// Any type.
		{"unknown patch type", "application/json", "Pod", `{}`, `{}`, ReasonUnsupportedMediaType, "", `unsupported patch type "application/json"`},
		{"apply body to Apply", ApplyPatchType, "Pod", `{}`, `{}`, ReasonUnsupportedMediaType, "", "ServerSideApply"},
		{"patch not JSON", MergePatchType, "Pod", `{}`, `{"a":`, ReasonBadRequest, "", "not valid JSON"},
		{"patch empty", MergePatchType, "Pod", `{}`, ``, ReasonBadRequest, "", "empty body"},
		{"trailing data", MergePatchType, "Pod", `{}`, `{} {}`, ReasonBadRequest, "", "after the JSON value"},
		{"original not an object", MergePatchType, "Pod", `[1]`, `{}`, ReasonInvalid, "", "not a JSON object"},

		// JSON merge patch.
		{"merge patch not an object", MergePatchType, "Pod", `{}`, `[1]`, ReasonBadRequest, "", "a merge patch must be a JSON object, got an array"},
		{"merge patch null", MergePatchType, "Pod", `{}`, `null`, ReasonBadRequest, "", "got null"},

		// JSON patch: malformed.
		{"json patch not an array", JSONPatchType, "Pod", `{}`, `{"op":"add"}`, ReasonBadRequest, "", "must be a JSON array of operations, got an object"},
		{"operation not an object", JSONPatchType, "Pod", `{}`, `[1]`, ReasonBadRequest, "[0]", "must be an object"},
		{"no op", JSONPatchType, "Pod", `{}`, `[{"path":"/a"}]`, ReasonBadRequest, "[0]", `needs an "op" string`},
		{"unknown op", JSONPatchType, "Pod", `{}`, `[{"op":"merge","path":"/a"}]`, ReasonBadRequest, "[0]", `unknown JSON patch operation "merge"`},
		{"no path", JSONPatchType, "Pod", `{}`, `[{"op":"remove"}]`, ReasonBadRequest, "[0]", `needs a "path" string`},
		{"no value", JSONPatchType, "Pod", `{}`, `[{"op":"add","path":"/a"}]`, ReasonBadRequest, "[0]", `"add" operation needs a "value"`},
		{"no from", JSONPatchType, "Pod", `{}`, `[{"op":"copy","path":"/a"}]`, ReasonBadRequest, "[0]", `needs a "from" string`},
		{"pointer without slash", JSONPatchType, "Pod", `{}`, `[{"op":"remove","path":"a"}]`, ReasonBadRequest, "[0]", `must be empty or start with "/"`},
		{"bad escape", JSONPatchType, "Pod", `{}`, `[{"op":"remove","path":"/a~2"}]`, ReasonBadRequest, "[0]", `"~" must be followed by "0" or "1"`},
		{"second op is the bad one", JSONPatchType, "Pod", `{}`, `[{"op":"remove","path":"/a"},{"op":"x","path":"/a"}]`, ReasonBadRequest, "[1]", `unknown JSON patch operation "x"`},

		// JSON patch: cannot apply.
		{"test fails", JSONPatchType, "Pod", `{"a":1}`, `[{"op":"test","path":"/a","value":2}]`, ReasonInvalid, "/a", "operation 0 (test): test failed"},
		{"test of a missing path", JSONPatchType, "Pod", `{"a":1}`, `[{"op":"test","path":"/b","value":2}]`, ReasonInvalid, "/b", `path "/b" does not exist`},
		{"remove a missing member", JSONPatchType, "Pod", `{"a":1}`, `[{"op":"remove","path":"/b"}]`, ReasonInvalid, "/b", `path "/b" does not exist`},
		{"replace a missing member", JSONPatchType, "Pod", `{"a":1}`, `[{"op":"replace","path":"/b","value":1}]`, ReasonInvalid, "/b", `does not exist`},
		{"add under a missing parent", JSONPatchType, "Pod", `{}`, `[{"op":"add","path":"/spec/replicas","value":1}]`, ReasonInvalid, "/spec/replicas", `path "/spec" does not exist`},
		{"add under a scalar", JSONPatchType, "Pod", `{"a":1}`, `[{"op":"add","path":"/a/b","value":1}]`, ReasonInvalid, "/a/b", "not an object or array"},
		{"index out of range", JSONPatchType, "Pod", `{"a":[1]}`, `[{"op":"add","path":"/a/2","value":1}]`, ReasonInvalid, "/a/2", "array index 2 is out of range (the array has 1 elements)"},
		{"remove past the end", JSONPatchType, "Pod", `{"a":[1]}`, `[{"op":"remove","path":"/a/1"}]`, ReasonInvalid, "/a/1", "out of range"},
		{"dash only for add", JSONPatchType, "Pod", `{"a":[1]}`, `[{"op":"remove","path":"/a/-"}]`, ReasonInvalid, "/a/-", `"-" is not an array index`},
		{"leading zero", JSONPatchType, "Pod", `{"a":[1,2]}`, `[{"op":"remove","path":"/a/01"}]`, ReasonInvalid, "/a/01", `"01" is not an array index`},
		{"negative index", JSONPatchType, "Pod", `{"a":[1,2]}`, `[{"op":"remove","path":"/a/-1"}]`, ReasonInvalid, "/a/-1", `not an array index`},
		{"move from a missing path", JSONPatchType, "Pod", `{}`, `[{"op":"move","from":"/x","path":"/y"}]`, ReasonInvalid, "/y", `path "/x" does not exist`},
		{"move into itself", JSONPatchType, "Pod", `{"a":{}}`, `[{"op":"move","from":"/a","path":"/a/b"}]`, ReasonInvalid, "/a/b", "cannot move a value into itself"},
		{"remove the document", JSONPatchType, "Pod", `{"a":1}`, `[{"op":"remove","path":""}]`, ReasonInvalid, "", "cannot remove the whole document"},
		{"result not an object", JSONPatchType, "Pod", `{"a":1}`, `[{"op":"replace","path":"","value":5}]`, ReasonInvalid, "", "must be a JSON object, but the patch made it a number"},

		// Strategic merge patch.
		{"smp of an unknown kind", StrategicMergePatchType, "Widget", `{}`, `{}`, ReasonUnsupportedMediaType, "", `not supported for kind "Widget"`},
		{"smp not an object", StrategicMergePatchType, "Pod", `{}`, `[]`, ReasonBadRequest, "", "must be a JSON object, got an array"},
		{"unknown $patch", StrategicMergePatchType, "Pod", `{}`, `{"spec":{"$patch":"merge"}}`, ReasonBadRequest, ".spec.$patch", `unknown directive "merge"`},
		{"unknown directive", StrategicMergePatchType, "Pod", `{}`, `{"spec":{"$foo":1}}`, ReasonBadRequest, ".spec.$foo", `unknown directive "$foo"`},
		{"unknown $patch in a list", StrategicMergePatchType, "Pod", `{}`, `{"spec":{"containers":[{"name":"a","$patch":"keep"}]}}`, ReasonBadRequest, ".spec.containers[0]", `unknown directive "keep"`},
		{"element without merge key", StrategicMergePatchType, "Pod", `{"spec":{"containers":[{"name":"a"}]}}`, `{"spec":{"containers":[{"image":"x"}]}}`, ReasonBadRequest, ".spec.containers[0]", `no merge key "name"`},
		{"element not an object", StrategicMergePatchType, "Pod", `{}`, `{"spec":{"containers":["a"]}}`, ReasonBadRequest, ".spec.containers[0]", `merged by "name", so its elements must be objects, not a string`},
		{"nested error has the key in its path", StrategicMergePatchType, "Pod", podWeb, `{"spec":{"containers":[{"name":"web","ports":[{"name":"http"}]}]}}`, ReasonBadRequest, `.spec.containers[name="web"].ports[0]`, `no merge key "containerPort"`},
		{"delete from a set with $patch", StrategicMergePatchType, "Pod", `{}`, `{"metadata":{"finalizers":[{"$patch":"delete"}]}}`, ReasonBadRequest, ".metadata.finalizers[0]", "$deleteFromPrimitiveList/"},
		{"$retainKeys not a list", StrategicMergePatchType, "Pod", `{}`, `{"spec":{"$retainKeys":"a"}}`, ReasonBadRequest, ".spec.$retainKeys", "must be a list of field names, not a string"},
		{"$retainKeys not strings", StrategicMergePatchType, "Pod", `{}`, `{"spec":{"$retainKeys":[1]}}`, ReasonBadRequest, ".spec.$retainKeys", "holds a number"},
		{"$retainKeys misses a set field", StrategicMergePatchType, "Pod", `{}`, `{"spec":{"$retainKeys":["a"],"b":1}}`, ReasonInvalid, ".spec.b", "does not name"},
		{"$setElementOrder not a list", StrategicMergePatchType, "Pod", `{}`, `{"spec":{"$setElementOrder/containers":{}}}`, ReasonBadRequest, ".spec.$setElementOrder/containers", "must be a list, not an object"},
		{"$setElementOrder without the key", StrategicMergePatchType, "Pod", `{}`, `{"spec":{"$setElementOrder/containers":[{"image":"x"}]}}`, ReasonBadRequest, ".spec.$setElementOrder/containers[0]", `has no merge key "name"`},
		{"$setElementOrder not naming a patch element", StrategicMergePatchType, "Pod", `{"spec":{"containers":[{"name":"a"}]}}`, `{"spec":{"$setElementOrder/containers":[{"name":"a"}],"containers":[{"name":"c"}]}}`, ReasonBadRequest, ".spec.$setElementOrder/containers", `the patch's "containers" list holds "c", which this order does not name`},
		{"$setElementOrder in another order than the patch", StrategicMergePatchType, "Pod", `{}`, `{"spec":{"$setElementOrder/containers":[{"name":"b"},{"name":"a"}],"containers":[{"name":"a"},{"name":"b"}]}}`, ReasonBadRequest, ".spec.$setElementOrder/containers", `holds "b", which this order does not name after the elements before it`},
		{"$setElementOrder of primitives not naming a patch element", StrategicMergePatchType, "Pod", `{"metadata":{"finalizers":["x"]}}`, `{"metadata":{"$setElementOrder/finalizers":["x"],"finalizers":["q"]}}`, ReasonBadRequest, ".metadata.$setElementOrder/finalizers", `holds "q"`},
		{"$deleteFromPrimitiveList not a list", StrategicMergePatchType, "Pod", `{}`, `{"metadata":{"$deleteFromPrimitiveList/finalizers":"a"}}`, ReasonBadRequest, ".metadata.$deleteFromPrimitiveList/finalizers", "must be a list"},
		{"$deleteFromPrimitiveList on a keyed list", StrategicMergePatchType, "Pod", `{}`, `{"spec":{"$deleteFromPrimitiveList/containers":["a"]}}`, ReasonBadRequest, ".spec.$deleteFromPrimitiveList/containers", "not a list of primitives"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Apply(tt.patchType, tt.kind, []byte(tt.original), []byte(tt.patch))
			require.Error(t, err)
			assert.Nil(t, got)
			var perr *Error
			require.True(t, errors.As(err, &perr), "error %v is not a *Error", err)
			assert.Equal(t, tt.reason, perr.Reason)
			assert.Equal(t, tt.field, perr.Field)
			assert.Contains(t, perr.Message, tt.message)
		})
	}
}

func TestApplyTooManyOperations(t *testing.T) {
	ops := []byte("[")
	for i := 0; i <= maxJSONPatchOperations; i++ {
		if i > 0 {
			ops = append(ops, ',')
		}
		ops = append(ops, `{"op":"test","path":"","value":{}}`...)
	}
	ops = append(ops, ']')
	_, err := Apply(JSONPatchType, "Pod", []byte(`{}`), ops)
	var perr *Error
	require.ErrorAs(t, err, &perr)
	assert.Equal(t, ReasonBadRequest, perr.Reason)
	assert.Contains(t, perr.Message, "at most 10000 operations")
}

func TestApplyCopyBomb(t *testing.T) {
	// Each copy doubles the document; without a bound 40 of them would need 2^40 values.
	ops := `[{"op":"add","path":"/a","value":[1,2,3,4,5,6,7,8]}`
	for i := 0; i < 40; i++ {
		ops += `,{"op":"copy","from":"/a","path":"/a/-"}`
	}
	ops += `]`
	_, err := Apply(JSONPatchType, "Pod", []byte(`{}`), []byte(ops))
	var perr *Error
	require.ErrorAs(t, err, &perr)
	assert.Equal(t, ReasonInvalid, perr.Reason)
	assert.Contains(t, perr.Message, "copy more than")
}

func TestApplyDoesNotChangeItsInput(t *testing.T) {
	original := []byte(rcFrontend)
	patchBody := []byte(`{"spec":{"template":{"spec":{"containers":[{"name":"php","image":"php:8.3"}]}}}}`)
	keepOriginal, keepPatch := string(original), string(patchBody)
	for _, pt := range []string{MergePatchType, StrategicMergePatchType} {
		_, err := Apply(pt, "ReplicationController", original, patchBody)
		require.NoError(t, err)
	}
	_, err := Apply(JSONPatchType, "ReplicationController", original, []byte(`[{"op":"remove","path":"/spec"}]`))
	require.NoError(t, err)
	assert.Equal(t, keepOriginal, string(original))
	assert.Equal(t, keepPatch, string(patchBody))
}
