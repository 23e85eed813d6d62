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

// paintCRD serves Paints, namespaced unless scope says otherwise, whose
// color, coats and dry fields are field-selector fields.
func paintCRD(t *testing.T, scope string) *api.CustomResourceDefinition {
	return decodeCRD(t, `{
  "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
  "metadata": {"name": "paints.demo.example.com"},
  "spec": {
    "group": "demo.example.com", "scope": "`+scope+`",
    "names": {"plural": "paints", "kind": "Paint"},
    "versions": [{
      "name": "v1", "served": true, "storage": true,
      "selectableFields": [{"jsonPath": ".spec.color"}, {"jsonPath": ".spec.coats"}, {"jsonPath": ".spec.dry"}],
      "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "color": {"type": "string"}, "coats": {"type": "integer"}, "dry": {"type": "boolean"}}}}}}
    }]
  }
}`)
}

func paint(name, ns string, spec map[string]any) *api.Unstructured {
	return &api.Unstructured{
		TypeMeta: api.TypeMeta{APIVersion: "demo.example.com/v1", Kind: "Paint"},
		Metadata: api.ObjectMeta{Namespace: ns, Name: name},
		Content:  api.JSONObject{"spec": spec},
	}
}

// TestCustomResourceFieldSelectors: list and watch of custom resources
// filter on the version's selectableFields with =, == and != (an absent
// field is ""), and a field the version does not name is refused as
// apiextensions-apiserver's ConvertFieldLabel refuses it. Kubernetes:
// test/integration/fieldselector_test.go of apiextensions-apiserver.
func TestCustomResourceFieldSelectors(t *testing.T) {
	s, _ := newServer(t)
	ctx := context.Background()
	_, err := s.Create(ctx, paintCRD(t, "Namespaced"))
	require.NoError(t, err)
	_, err = s.Create(ctx, &api.Namespace{Metadata: api.ObjectMeta{Name: "other"}})
	require.NoError(t, err)
	for _, p := range []*api.Unstructured{
		paint("red", "default", map[string]any{"color": "red", "coats": int64(2), "dry": true}),
		paint("blue", "default", map[string]any{"color": "blue", "coats": int64(1), "dry": false}),
		paint("blank", "default", map[string]any{}),
		paint("blue-elsewhere", "other", map[string]any{"color": "blue"}),
	} {
		_, err := s.Create(ctx, p)
		require.NoError(t, err)
	}
	for _, tc := range []struct {
		name, ns, selector string
		want               []string
		wantErr            string
	}{
		{name: "=", selector: "spec.color=blue", want: []string{"blue", "blue-elsewhere"}},
		{name: "==", ns: "default", selector: "spec.color==blue", want: []string{"blue"}},
		{name: "!=", ns: "default", selector: "spec.color!=blue", want: []string{"blank", "red"}},
		{name: "an integer", selector: "spec.coats=2", want: []string{"red"}},
		{name: "a boolean", selector: "spec.dry=false", want: []string{"blue"}},
		{name: "absent is empty", selector: "spec.color=", want: []string{"blank"}},
		{name: "with the name", selector: "spec.color=blue,metadata.name=blue", want: []string{"blue"}},
		{name: "with the namespace", selector: "spec.color=blue,metadata.namespace=other", want: []string{"blue-elsewhere"}},
		{name: "a field not selectable", selector: "spec.shade=blue", wantErr: "field label not supported: spec.shade"},
		{name: "a label not a field", selector: "metadata.labels=x", wantErr: "field label not supported: metadata.labels"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			list, err := s.List(ctx, "paints.demo.example.com", tc.ns, client.ListOptions{FieldSelector: tc.selector})
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.True(t, apierrors.IsBadRequest(err), "a BadRequest: %v", err)
				assert.Equal(t, tc.wantErr, err.Error())
				_, err = s.Watch(ctx, "paints.demo.example.com", tc.ns, client.ListOptions{FieldSelector: tc.selector})
				assert.Equal(t, tc.wantErr, err.Error(), "watch refuses it too")
				return
			}
			require.NoError(t, err)
			var got []string
			for _, o := range list.Items {
				got = append(got, o.GetObjectMeta().Name)
			}
			assert.ElementsMatch(t, tc.want, got)
		})
	}

	t.Run("watch", func(t *testing.T) {
		w, err := s.Watch(ctx, "paints.demo.example.com", "default", client.ListOptions{FieldSelector: "spec.color=green"})
		require.NoError(t, err)
		defer w.Stop()
		_, err = s.Create(ctx, paint("green", "default", map[string]any{"color": "green"}))
		require.NoError(t, err)
		_, err = s.Create(ctx, paint("grey", "default", map[string]any{"color": "grey"}))
		require.NoError(t, err)
		evs, err := w.Poll(nil, 0)
		require.NoError(t, err)
		var got []string
		for _, ev := range evs {
			got = append(got, ev.Type+" "+ev.Object.GetObjectMeta().Name)
		}
		assert.Equal(t, []string{"ADDED green"}, got)
	})
}

// TestClusterScopedCustomResourceFieldSelectors: a cluster-scoped custom
// kind has no metadata.namespace field, unlike a built-in one.
func TestClusterScopedCustomResourceFieldSelectors(t *testing.T) {
	s, _ := newServer(t)
	ctx := context.Background()
	_, err := s.Create(ctx, paintCRD(t, "Cluster"))
	require.NoError(t, err)
	_, err = s.Create(ctx, paint("red", "", map[string]any{"color": "red"}))
	require.NoError(t, err)
	list, err := s.List(ctx, "paints.demo.example.com", "", client.ListOptions{FieldSelector: "metadata.name=red,spec.color=red"})
	require.NoError(t, err)
	assert.Len(t, list.Items, 1)
	_, err = s.List(ctx, "paints.demo.example.com", "", client.ListOptions{FieldSelector: "metadata.namespace="})
	require.Error(t, err)
	assert.Equal(t, "field label not supported: metadata.namespace", err.Error())
	_, err = s.List(ctx, client.Nodes, "", client.ListOptions{FieldSelector: "metadata.namespace="})
	assert.NoError(t, err, "a built-in cluster-scoped kind has it")
}
