package apiserver_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
)

// widgetCRD is the definition the custom resource tests serve: namespaced
// Widgets of demo.example.com/v1 with a status and a scale subresource, a
// printer column and a default.
const widgetCRD = `{
  "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
  "metadata": {"name": "widgets.demo.example.com"},
  "spec": {
    "group": "demo.example.com", "scope": "Namespaced",
    "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "shortNames": ["wd"]},
    "versions": [{
      "name": "v1", "served": true, "storage": true,
      "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}},
      "additionalPrinterColumns": [{"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"}],
      "schema": {"openAPIV3Schema": {
        "type": "object",
        "properties": {
          "spec": {"type": "object", "required": ["size"], "properties": {
            "replicas": {"type": "integer", "minimum": 0, "default": 1},
            "size": {"type": "string", "enum": ["small", "large"]},
            "tags": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
            "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}
          }},
          "status": {"type": "object", "properties": {"replicas": {"type": "integer"}}}
        }
      }}
    }]
  }
}`

func decodeCRD(t testing.TB, s string) *api.CustomResourceDefinition {
	t.Helper()
	var crd api.CustomResourceDefinition
	require.NoError(t, json.Unmarshal([]byte(s), &crd))
	return &crd
}

func widget(t testing.TB, s string) *api.Unstructured {
	t.Helper()
	var u api.Unstructured
	require.NoError(t, json.Unmarshal([]byte(s), &u))
	return &u
}

func TestCustomResourceLifecycle(t *testing.T) {
	s, _ := newServer(t)
	ctx := context.Background()
	_, err := s.Get(ctx, "widgets", "default", "w", client.GetOptions{})
	require.True(t, apierrors.IsNotFound(err), "not served before the definition")

	_, err = s.Create(ctx, decodeCRD(t, widgetCRD))
	require.NoError(t, err)
	got, err := s.Get(ctx, "customresourcedefinitions", "", "widgets.demo.example.com", client.GetOptions{})
	require.NoError(t, err)
	crd := got.(*api.CustomResourceDefinition)
	require.Len(t, crd.Status.Conditions, 2)
	assert.Equal(t, api.CRDEstablished, crd.Status.Conditions[1].Type)
	assert.Equal(t, api.ConditionTrue, crd.Status.Conditions[1].Status)
	assert.Equal(t, "Widget", crd.Status.AcceptedNames.Kind)
	assert.Equal(t, []string{"v1"}, crd.Status.StoredVersions)
	assert.Equal(t, "WidgetList", crd.Spec.Names.ListKind, "defaulted")

	info, ok := s.Resource("widgets.demo.example.com")
	require.True(t, ok)
	assert.True(t, info.HasStatus)
	assert.True(t, info.HasScale)
	assert.True(t, info.JSONOnly)

	created, err := s.Create(ctx, widget(t, `{"apiVersion":"demo.example.com/v1","kind":"Widget",
		"metadata":{"name":"w","namespace":"default"},
		"spec":{"size":"small","unknown":1,"extra":{"kept":true}},"status":{"replicas":5}}`))
	require.NoError(t, err)
	w := created.(*api.Unstructured)
	assert.Equal(t, api.JSONObject{"spec": map[string]any{"size": "small", "replicas": int64(1), "extra": map[string]any{"kept": true}}},
		w.Content, "pruned, defaulted, status dropped on create")
	assert.Equal(t, int64(1), w.Metadata.Generation)
	assert.NotEmpty(t, w.Metadata.UID)

	// A status update changes status only, and not the generation.
	st := w.DeepCopy()
	st.Content["status"] = map[string]any{"replicas": int64(2)}
	st.Content["spec"].(map[string]any)["size"] = "large"
	updated, err := s.UpdateStatus(ctx, st)
	require.NoError(t, err)
	w = updated.(*api.Unstructured)
	assert.Equal(t, "small", w.Content["spec"].(map[string]any)["size"])
	assert.Equal(t, map[string]any{"replicas": int64(2)}, w.Content["status"])
	assert.Equal(t, int64(1), w.Metadata.Generation)

	// A main update keeps status and bumps the generation on a spec change.
	up := w.DeepCopy()
	up.Content["spec"].(map[string]any)["replicas"] = int64(3)
	delete(up.Content, "status")
	updated, err = s.Update(ctx, up)
	require.NoError(t, err)
	w = updated.(*api.Unstructured)
	assert.Equal(t, int64(2), w.Metadata.Generation)
	assert.Equal(t, map[string]any{"replicas": int64(2)}, w.Content["status"])

	scale, err := s.GetScale(ctx, "widgets.demo.example.com", "default", "w")
	require.NoError(t, err)
	assert.Equal(t, int32(3), scale.Spec.Replicas)
	assert.Equal(t, int32(2), scale.Status.Replicas)
	scale.Spec.Replicas = 7
	_, err = s.UpdateScale(ctx, "widgets", "default", scale)
	require.NoError(t, err)
	got, err = s.Get(ctx, "widgets", "default", "w", client.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, int64(7), got.(*api.Unstructured).Content["spec"].(map[string]any)["replicas"])
	assert.Equal(t, int64(3), got.GetObjectMeta().Generation)
	assert.Equal(t, int64(3), w.Content["spec"].(map[string]any)["replicas"], "the object read before is unchanged")

	// Invalid objects are refused with kube-apiserver's messages.
	_, err = s.Create(ctx, widget(t, `{"apiVersion":"demo.example.com/v1","kind":"Widget",
		"metadata":{"name":"bad","namespace":"default"},"spec":{"size":"medium","replicas":-1,"tags":["a","a"]}}`))
	require.Error(t, err)
	assert.Equal(t, `Widget.demo.example.com "bad" is invalid: [spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0, `+
		`spec.size: Unsupported value: "medium": supported values: "small", "large", spec.tags[1]: Duplicate value: "a"]`, err.Error())
	_, err = s.Get(ctx, "widgets", "default", "bad", client.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "nothing stored on refusal")

	l, err := s.List(ctx, "widgets", "", client.ListOptions{})
	require.NoError(t, err)
	assert.Len(t, l.Items, 1)

	w2 := `{"apiVersion":"demo.example.com/v1","kind":"Widget","metadata":{"name":"w2","namespace":"default"},"spec":{"size":"large"}}`
	_, err = s.Create(ctx, widget(t, w2))
	require.NoError(t, err)

	watch, err := s.Watch(ctx, "widgets", "default", client.ListOptions{ResourceVersion: l.Metadata.ResourceVersion})
	require.NoError(t, err)
	defer watch.Stop()

	_, err = s.Delete(ctx, "customresourcedefinitions", "", "widgets.demo.example.com", api.DeleteOptions{})
	require.NoError(t, err)
	_, err = s.Get(ctx, "widgets", "default", "w", client.GetOptions{})
	require.True(t, apierrors.IsNotFound(err), "not served after the definition is gone")
	evs, err := watch.Poll(nil, 0)
	require.NoError(t, err)
	var types []string
	for _, ev := range evs {
		types = append(types, ev.Type+" "+ev.Object.GetObjectMeta().Name)
	}
	assert.Equal(t, []string{"ADDED w2", "DELETED w", "DELETED w2"}, types)
	_, ok = s.Resource("widgets")
	assert.False(t, ok)
}
