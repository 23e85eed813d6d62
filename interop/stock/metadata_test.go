package stock

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"

	"github.com/miniplane/miniplane/interop/internal/planetest"
)

// TestMetadataInformer runs a stock metadata-only informer of pods
// (metadata.NewForConfig, metadatainformer): it syncs, holds
// PartialObjectMetadata, and sees adds, updates and deletes.
func TestMetadataInformer(t *testing.T) {
	p, cs := start(t)
	ctx := boundedContext(t)
	cfg := p.Config()
	planetest.RequireStock(t, cfg)
	mc, err := metadata.NewForConfig(cfg)
	require.NoError(t, err)
	pods := cs.CoreV1().Pods(metav1.NamespaceDefault)
	_, err = pods.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "meta-before"}, Spec: podSpec()}, metav1.CreateOptions{})
	require.NoError(t, err)

	factory := metadatainformer.NewSharedInformerFactory(mc, 0)
	informer := factory.ForResource(corev1.SchemeGroupVersion.WithResource("pods"))
	rec := newRecorder("meta-")
	_, err = informer.Informer().AddEventHandler(rec.handler())
	require.NoError(t, err)
	stop := make(chan struct{})
	factory.Start(stop)
	t.Cleanup(func() {
		close(stop)
		factory.Shutdown()
	})
	require.True(t, cache.WaitForCacheSync(ctx.Done(), informer.Informer().HasSynced), "the metadata informer did not sync")
	rec.waitFor(t, ctx, "add meta-before")

	_, err = pods.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "meta-after"}, Spec: podSpec()}, metav1.CreateOptions{})
	require.NoError(t, err)
	rec.waitFor(t, ctx, "add meta-after")
	_, err = pods.Patch(ctx, "meta-after", types.MergePatchType, []byte(`{"metadata":{"labels":{"step":"update"}}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	rec.waitFor(t, ctx, "update meta-after step=update")
	require.NoError(t, pods.Delete(ctx, "meta-before", metav1.DeleteOptions{}))
	rec.waitFor(t, ctx, "delete meta-before")

	cached, err := informer.Lister().Get("default/meta-after")
	require.NoError(t, err)
	pm, ok := cached.(*metav1.PartialObjectMetadata)
	require.True(t, ok, "the metadata informer caches PartialObjectMetadata, not %T", cached)
	assert.Equal(t, "update", pm.Labels["step"])
	assert.NotEmpty(t, pm.UID)
	_, err = informer.Lister().Get("default/meta-before")
	assert.Error(t, err, "the deleted pod left the cache")

	// The informer asked for PartialObjectMetadata, and synced and followed
	// the changes on one stream (WatchList): a stream it cannot decode makes
	// its reflector list or watch again, and the events still arrive, late.
	var requests []string
	for _, r := range p.Requests() {
		if r.Path == "/api/v1/pods" {
			assert.Contains(t, r.Accept, "as=PartialObjectMetadata", "%+v", r)
			assert.Equal(t, 200, r.Status, "%+v", r)
			requests = append(requests, r.Query)
		}
	}
	assert.Len(t, requests, 1, "the metadata informer's requests for /api/v1/pods: %q", requests)
}
