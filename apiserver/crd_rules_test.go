package apiserver_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
)

// gadgetCRD has CEL rules at the root, on spec, on list items and map
// values, a transition rule, a messageExpression, a reason and a fieldPath.
const gadgetCRD = `{
  "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
  "metadata": {"name": "gadgets.demo.example.com"},
  "spec": {
    "group": "demo.example.com", "scope": "Namespaced",
    "names": {"plural": "gadgets", "kind": "Gadget"},
    "versions": [{
      "name": "v1", "served": true, "storage": true, "subresources": {"status": {}},
      "schema": {"openAPIV3Schema": {
        "type": "object",
        "x-kubernetes-validations": [{"rule": "self.metadata.name.startsWith('g-')", "message": "name must start with g-"}],
        "properties": {
          "spec": {"type": "object",
            "x-kubernetes-validations": [
              {"rule": "self.min <= self.max", "messageExpression": "'min is over max in mode ' + self.mode"},
              {"rule": "self.mode == oldSelf.mode", "message": "mode is immutable"},
              {"rule": "!has(self.owner) || self.owner != ''", "reason": "FieldValueRequired", "fieldPath": ".owner", "message": "owner may not be empty"}],
            "properties": {
              "min": {"type": "integer"}, "max": {"type": "integer", "maximum": 100},
              "mode": {"type": "string", "maxLength": 10},
              "owner": {"type": "string"},
              "ports": {"type": "array", "maxItems": 10, "items": {"type": "integer", "x-kubernetes-validations": [{"rule": "self > 1024", "message": "privileged port"}]}},
              "labels": {"type": "object", "maxProperties": 10, "additionalProperties": {"type": "string", "maxLength": 63,
                "x-kubernetes-validations": [{"rule": "self.lowerAscii() == self", "message": "lower case only"}]}}
            }},
          "status": {"type": "object", "properties": {"ready": {"type": "integer"}},
            "x-kubernetes-validations": [{"rule": "self.ready >= 0", "message": "ready may not be negative"}]}
        }
      }}
    }]
  }
}`

func gadget(t testing.TB, name, spec string) *api.Unstructured {
	return widget(t, `{"apiVersion":"demo.example.com/v1","kind":"Gadget","metadata":{"name":"`+name+`","namespace":"default"},"spec":`+spec+`}`)
}

func TestCustomResourceRules(t *testing.T) {
	s, _ := newServer(t)
	ctx := context.Background()
	_, err := s.Create(ctx, decodeCRD(t, gadgetCRD))
	require.NoError(t, err)

	for _, tc := range []struct {
		name, obj, spec, want string
	}{
		{"valid", "g-ok", `{"min":1,"max":2,"mode":"a","ports":[2000],"labels":{"a":"b"}}`, ""},
		{"root rule", "bad", `{"min":1,"max":2,"mode":"a"}`,
			`Gadget.demo.example.com "bad" is invalid: <nil>: Invalid value: "object": name must start with g-`},
		{"messageExpression", "g-1", `{"min":3,"max":2,"mode":"a"}`,
			`Gadget.demo.example.com "g-1" is invalid: spec: Invalid value: "object": min is over max in mode a`},
		{"reason and fieldPath", "g-2", `{"min":1,"max":2,"mode":"a","owner":""}`,
			`Gadget.demo.example.com "g-2" is invalid: spec.owner: Required value: owner may not be empty`},
		{"list items", "g-3", `{"min":1,"max":2,"mode":"a","ports":[2000,80]}`,
			`Gadget.demo.example.com "g-3" is invalid: spec.ports[1]: Invalid value: "integer": privileged port`},
		{"map values", "g-4", `{"min":1,"max":2,"mode":"a","labels":{"x":"Up"}}`,
			`Gadget.demo.example.com "g-4" is invalid: spec.labels[x]: Invalid value: "string": lower case only`},
		{"schema errors block the rules", "bad", `{"min":300,"max":200,"mode":"a"}`,
			`Gadget.demo.example.com "bad" is invalid: [spec.max: Invalid value: 200: spec.max in body should be less than or equal to 100, ` +
				`<nil>: Invalid value: "object": name must start with g-, spec: Invalid value: "object": min is over max in mode a]`},
		{"type errors skip the rules", "bad", `{"min":"x","max":2,"mode":"a"}`,
			`Gadget.demo.example.com "bad" is invalid: [spec.min: Invalid value: "string": spec.min in body must be of type integer: "string", ` +
				`<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.Create(ctx, gadget(t, tc.obj, tc.spec))
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.True(t, apierrors.IsInvalid(err))
			assert.Equal(t, tc.want, err.Error())
			_, err = s.Get(ctx, "gadgets", "default", tc.obj, client.GetOptions{})
			assert.True(t, apierrors.IsNotFound(err), "nothing stored")
		})
	}

	// The transition rule runs on update only, against the stored object.
	got, err := s.Get(ctx, "gadgets", "default", "g-ok", client.GetOptions{})
	require.NoError(t, err)
	up := got.(*api.Unstructured).DeepCopy()
	up.Content["spec"].(map[string]any)["mode"] = "b"
	_, err = s.Update(ctx, up)
	require.Error(t, err)
	assert.Equal(t, `Gadget.demo.example.com "g-ok" is invalid: spec: Invalid value: "object": mode is immutable`, err.Error())
	up.Content["spec"].(map[string]any)["mode"] = "a"
	up.Content["spec"].(map[string]any)["max"] = int64(5)
	_, err = s.Update(ctx, up)
	require.NoError(t, err, "a change the rules allow")

	// Status writes run the status's rules.
	got, err = s.Get(ctx, "gadgets", "default", "g-ok", client.GetOptions{})
	require.NoError(t, err)
	st := got.(*api.Unstructured).DeepCopy()
	st.Content["status"] = map[string]any{"ready": int64(-1)}
	_, err = s.UpdateStatus(ctx, st)
	require.Error(t, err)
	assert.Equal(t, `Gadget.demo.example.com "g-ok" is invalid: status: Invalid value: "object": ready may not be negative`, err.Error())
}
