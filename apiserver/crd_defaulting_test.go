package apiserver_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
)

// defaultingCRD is apiextensions-apiserver's defaultingFixture
// (test/integration/defaulting_test.go): cluster-scoped Foos served as
// v1beta1 and stored as v1beta2, whose schemas default spec and status
// alike, each version a field of its own name.
func defaultingCRD(t *testing.T) *api.CustomResourceDefinition {
	t.Helper()
	half := func(version string) string {
		return `{"type": "object", "properties": {
		  "a": {"type": "string", "default": "A"}, "b": {"type": "string", "default": "B"}, "c": {"type": "string"},
		  "v1beta1": {"type": "string"` + map[bool]string{true: `, "default": "v1beta1"`}[version == "v1beta1"] + `},
		  "v1beta2": {"type": "string"` + map[bool]string{true: `, "default": "v1beta2"`}[version == "v1beta2"] + `},
		  "replicas": {"type": "integer", "format": "int32", "minimum": 0, "default": REPLICAS}}}`
	}
	version := func(name string, storage, served bool) string {
		spec, status := half(name), half(name)
		spec = strings.Replace(spec, "REPLICAS", "1", 1)
		status = strings.Replace(status, "REPLICAS", "0", 1)
		b, _ := json.Marshal(storage)
		s, _ := json.Marshal(served)
		return `{"name": "` + name + `", "storage": ` + string(b) + `, "served": ` + string(s) + `,
		  "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}},
		  "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": ` + spec + `, "status": ` + status + `}}}}`
	}
	return decodeCRD(t, `{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
	  "metadata": {"name": "foos.tests.example.com"},
	  "spec": {"group": "tests.example.com", "scope": "Cluster",
	    "names": {"plural": "foos", "singular": "foo", "kind": "Foo", "listKind": "FooList"},
	    "versions": [`+version("v1beta1", false, true)+`, `+version("v1beta2", true, false)+`]}}`)
}

// fields returns which of the fields named (as "spec.a") obj has.
func fields(obj api.Object, names ...string) []string {
	content := obj.(*api.Unstructured).Content
	var out []string
	for _, n := range names {
		top, field, _ := strings.Cut(n, ".")
		if m, ok := content[top].(map[string]any); ok {
			if _, ok := m[field]; ok {
				out = append(out, n)
			}
		}
	}
	return out
}

// TestCustomResourceDefaulting is apiextensions-apiserver's testDefaulting:
// a request is defaulted by its version's schema, what is read from
// storage (get, list, watch, and a write's response) by the storage
// version's schema as it is now, and a status write keeps the stored spec.
func TestCustomResourceDefaulting(t *testing.T) {
	s, _ := newServer(t)
	ctx := context.Background()
	_, err := s.Create(ctx, defaultingCRD(t))
	require.NoError(t, err)
	setDefault := func(version, key string, value *string) {
		t.Helper()
		cur, err := s.Get(ctx, "customresourcedefinitions", "", "foos.tests.example.com", client.GetOptions{})
		require.NoError(t, err)
		crd := cur.(*api.CustomResourceDefinition).DeepCopy()
		for i := range crd.Spec.Versions {
			if crd.Spec.Versions[i].Name != version {
				continue
			}
			root := crd.Spec.Versions[i].Schema.OpenAPIV3Schema
			for _, half := range []string{"spec", "status"} {
				p := root.Properties[half]
				prop := api.JSONSchemaProps{Type: "string"}
				if value != nil {
					prop.Default = json.RawMessage(`"` + *value + `"`)
				}
				p.Properties[key] = prop
				root.Properties[half] = p
			}
		}
		_, err = s.Update(ctx, crd)
		require.NoError(t, err)
	}
	all := []string{"spec.a", "spec.b", "spec.c", "spec.v1beta1", "spec.v1beta2", "spec.replicas",
		"status.a", "status.b", "status.c", "status.v1beta1", "status.v1beta2", "status.replicas"}

	// spec.a and spec.b are defaulted by both versions, spec.v1beta1 by the
	// request's, spec.v1beta2 by the storage version's on the way out; the
	// status is dropped on create.
	foo, err := s.Create(ctx, widget(t, `{"apiVersion": "tests.example.com/v1beta1", "kind": "Foo", "metadata": {"name": "foo"},
		"spec": {"a": "a"}, "status": {"b": "b"}}`))
	require.NoError(t, err)
	assert.Equal(t, "tests.example.com/v1beta1", foo.GetTypeMeta().APIVersion)
	assert.Equal(t, []string{"spec.a", "spec.b", "spec.v1beta1", "spec.v1beta2", "spec.replicas"}, fields(foo, all...), "create")
	createdRV := foo.GetObjectMeta().ResourceVersion

	up := foo.(*api.Unstructured).DeepCopy()
	up.Content["status"] = map[string]any{}
	foo, err = s.UpdateStatus(ctx, up)
	require.NoError(t, err)
	assert.Equal(t, []string{"spec.a", "spec.b", "spec.v1beta1", "spec.v1beta2", "spec.replicas",
		"status.a", "status.b", "status.v1beta1", "status.v1beta2", "status.replicas"}, fields(foo, all...), "status update")

	// A default added to the storage version shows in every read.
	setDefault("v1beta2", "c", ptr("C"))
	withC := []string{"spec.a", "spec.b", "spec.c", "spec.v1beta1", "spec.v1beta2", "spec.replicas",
		"status.a", "status.b", "status.c", "status.v1beta1", "status.v1beta2", "status.replicas"}
	foo, err = s.Get(ctx, "foos.v1beta1.tests.example.com", "", "foo", client.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, withC, fields(foo, all...), "get")
	assert.Equal(t, "C", foo.(*api.Unstructured).Content["spec"].(map[string]any)["c"])
	list, err := s.List(ctx, "foos.v1beta1.tests.example.com", "", client.ListOptions{})
	require.NoError(t, err)
	require.Len(t, list.Items, 1)
	assert.Equal(t, withC, fields(list.Items[0], all...), "list")
	w, err := s.Watch(ctx, "foos.v1beta1.tests.example.com", "", client.ListOptions{ResourceVersion: createdRV})
	require.NoError(t, err)
	defer w.Stop()
	evs, err := w.Poll(nil, 0)
	require.NoError(t, err)
	require.Len(t, evs, 1)
	assert.Equal(t, api.WatchModified, evs[0].Type)
	assert.Equal(t, "tests.example.com/v1beta1", evs[0].Object.GetTypeMeta().APIVersion)
	assert.Equal(t, withC, fields(evs[0].Object, all...), "watch")

	// A default of the served version only does not apply to reads: the
	// storage version's went, so c is gone.
	setDefault("v1beta1", "c", ptr("C"))
	setDefault("v1beta2", "c", nil)
	foo, err = s.Get(ctx, "foos.v1beta1.tests.example.com", "", "foo", client.GetOptions{})
	require.NoError(t, err)
	assert.NotContains(t, fields(foo, all...), "spec.c")
	assert.NotContains(t, fields(foo, all...), "status.c")

	// A status write is defaulted by the request's version, and keeps the
	// stored spec: c is set in status only.
	foo, err = s.UpdateStatus(ctx, foo.(*api.Unstructured).DeepCopy())
	require.NoError(t, err)
	assert.Contains(t, fields(foo, all...), "status.c")
	assert.NotContains(t, fields(foo, all...), "spec.c")

	// Defaults removed from the served version: what was stored stays.
	setDefault("v1beta1", "a", nil)
	setDefault("v1beta1", "b", nil)
	setDefault("v1beta1", "c", nil)
	foo, err = s.Get(ctx, "foos.v1beta1.tests.example.com", "", "foo", client.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{"spec.a", "spec.b", "status.a", "status.b", "status.c"}, fields(foo, "spec.a", "spec.b", "spec.c", "status.a", "status.b", "status.c"))
}

// TestCustomResourcePrunedOnRead is apiextensions-apiserver's
// TestPruningFromStorage, with the unknown field made by a schema change
// (miniplane's store is not written behind the server's back): a field the
// storage version's schema no longer names is not read, and stays stored.
func TestCustomResourcePrunedOnRead(t *testing.T) {
	s, _ := newServer(t)
	ctx := context.Background()
	_, err := s.Create(ctx, decodeCRD(t, widgetCRD))
	require.NoError(t, err)
	_, err = s.Create(ctx, widget(t, `{"apiVersion":"demo.example.com/v1","kind":"Widget",
		"metadata":{"name":"w","namespace":"default"},"spec":{"size":"small","tags":["a"]}}`))
	require.NoError(t, err)

	cur, err := s.Get(ctx, "customresourcedefinitions", "", "widgets.demo.example.com", client.GetOptions{})
	require.NoError(t, err)
	crd := cur.(*api.CustomResourceDefinition).DeepCopy()
	spec := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	delete(spec.Properties, "tags")
	crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = spec
	_, err = s.Update(ctx, crd)
	require.NoError(t, err)

	got, err := s.Get(ctx, "widgets", "default", "w", client.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"size": "small", "replicas": int64(1)}, got.(*api.Unstructured).Content["spec"])
	stored := storedContent(t, s, "widgets.demo.example.com", "default", "w")
	assert.Contains(t, stored["spec"], "tags", "the stored object is not changed by a read")
}

// TestCustomResourceReadShared: an object its schema leaves as it is is
// read as the stored object itself, allocating no copy — whether the
// definition's schema never changed (reads do not look), or changed in a
// way the object already meets (reads look and find nothing to do).
func TestCustomResourceReadShared(t *testing.T) {
	s, _ := newServer(t)
	ctx := context.Background()
	_, err := s.Create(ctx, decodeCRD(t, widgetCRD))
	require.NoError(t, err)
	created, err := s.Create(ctx, widget(t, `{"apiVersion":"demo.example.com/v1","kind":"Widget",
		"metadata":{"name":"w","namespace":"default"},"spec":{"size":"small","replicas":2}}`))
	require.NoError(t, err)
	updateCRD := func(change func(*api.CustomResourceDefinition)) {
		t.Helper()
		cur, err := s.Get(ctx, "customresourcedefinitions", "", "widgets.demo.example.com", client.GetOptions{})
		require.NoError(t, err)
		crd := cur.(*api.CustomResourceDefinition).DeepCopy()
		change(crd)
		_, err = s.Update(ctx, crd)
		require.NoError(t, err)
	}
	for _, tc := range []struct {
		name   string
		change func(*api.CustomResourceDefinition)
	}{
		{"unchanged", nil},
		{"a label on the definition", func(crd *api.CustomResourceDefinition) { crd.Metadata.Labels = map[string]string{"a": "b"} }},
		{"a default the object has", func(crd *api.CustomResourceDefinition) {
			spec := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
			replicas := spec.Properties["replicas"]
			replicas.Default = json.RawMessage(`3`)
			spec.Properties["replicas"] = replicas
			crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = spec
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.change != nil {
				updateCRD(tc.change)
			}
			a, err := s.Get(ctx, "widgets", "default", "w", client.GetOptions{})
			require.NoError(t, err)
			b, err := s.Get(ctx, "widgets", "default", "w", client.GetOptions{})
			require.NoError(t, err)
			assert.Same(t, a, b)
			assert.Same(t, created, a)
		})
	}
}

func storedContent(t *testing.T, s *apiserver.Server, resource, namespace, name string) map[string]any {
	t.Helper()
	key := "/registry/" + resource + "/" + namespace + "/" + name
	if namespace == "" {
		key = "/registry/" + resource + "/" + name
	}
	rec, err := s.Store().Get(key, 0)
	require.NoError(t, err)
	return rec.Value.(*api.Unstructured).Content
}
