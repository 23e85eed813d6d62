package apiserver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
)

// TestCustomResourceDefaultsOnRead defaults what is read from storage with
// the definition's current schema, as kube-apiserver does (the conformance
// test "custom resource defaulting for requests and from storage works"):
// an object stored before its definition gained a default reads with it,
// by get, list and watch, and the stored object stays as it was.
func TestCustomResourceDefaultsOnRead(t *testing.T) {
	s, _ := newServer(t)
	ctx := context.Background()
	noDefault := strings.Replace(widgetCRD, `"minimum": 0, "default": 1`, `"minimum": 0`, 1)
	_, err := s.Create(ctx, decodeCRD(t, noDefault))
	require.NoError(t, err)
	_, err = s.Create(ctx, widget(t, `{"apiVersion":"demo.example.com/v1","kind":"Widget",
		"metadata":{"name":"w","namespace":"default"},"spec":{"size":"small"}}`))
	require.NoError(t, err)
	got, err := s.Get(ctx, "widgets", "default", "w", client.GetOptions{})
	require.NoError(t, err)
	assert.NotContains(t, got.(*api.Unstructured).Content["spec"], "replicas", "no default yet")

	cur, err := s.Get(ctx, "customresourcedefinitions", "", "widgets.demo.example.com", client.GetOptions{})
	require.NoError(t, err)
	crd := decodeCRD(t, widgetCRD)
	crd.Metadata = cur.(*api.CustomResourceDefinition).Metadata
	_, err = s.Update(ctx, crd)
	require.NoError(t, err)

	got, err = s.Get(ctx, "widgets", "default", "w", client.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, int64(1), got.(*api.Unstructured).Content["spec"].(map[string]any)["replicas"], "get")
	list, err := s.List(ctx, "widgets", "default", client.ListOptions{})
	require.NoError(t, err)
	require.Len(t, list.Items, 1)
	assert.Equal(t, int64(1), list.Items[0].(*api.Unstructured).Content["spec"].(map[string]any)["replicas"], "list")
	w, err := s.Watch(ctx, "widgets", "default", client.ListOptions{})
	require.NoError(t, err)
	defer w.Stop()
	evs, err := w.Poll(nil, 0)
	require.NoError(t, err)
	require.Len(t, evs, 1)
	ev := evs[0]
	assert.Equal(t, int64(1), ev.Object.(*api.Unstructured).Content["spec"].(map[string]any)["replicas"], "watch")
	got, err = s.Get(ctx, "widgets", "default", "w", client.GetOptions{})
	require.NoError(t, err)
	assert.NotSame(t, ev.Object, got, "each read is a copy of its own")
}
