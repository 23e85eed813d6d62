package stock

import (
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	clientfeatures "k8s.io/client-go/features"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/miniplane/miniplane/interop/internal/planetest"
)

// TestTypedClientSpeaksProtobuf checks what the stock clientset put on the
// wire: every request body of a built-in kind in protobuf (create, update,
// and the DeleteOptions of a delete), protobuf first in every Accept, and
// every answer, the watch stream included, in protobuf. It is what makes the
// other tests of this package prove the default path and not JSON.
func TestTypedClientSpeaksProtobuf(t *testing.T) {
	p, cs := start(t)
	ctx := boundedContext(t)
	pods := cs.CoreV1().Pods(metav1.NamespaceDefault)
	created, err := pods.Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "wire"}, Spec: podSpec()}, metav1.CreateOptions{})
	require.NoError(t, err)
	w, err := pods.Watch(ctx, metav1.ListOptions{ResourceVersion: created.ResourceVersion})
	require.NoError(t, err)
	defer w.Stop()
	created.Labels = map[string]string{"step": "update"}
	_, err = pods.Update(ctx, created, metav1.UpdateOptions{})
	require.NoError(t, err)
	_, err = pods.Get(ctx, "wire", metav1.GetOptions{})
	require.NoError(t, err)
	_, err = pods.List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	require.NoError(t, pods.Delete(ctx, "wire", metav1.DeleteOptions{}))
	waitWatch(t, ctx, w, watch.Deleted, "wire")

	seen := map[string]int{}
	for _, r := range p.Requests() {
		if !strings.HasPrefix(r.Path, "/api/v1/namespaces/default/pods") {
			continue
		}
		seen[r.Method]++
		assert.True(t, strings.HasPrefix(r.Accept, planetest.Protobuf), "%s %s: Accept %q does not put protobuf first", r.Method, r.Path, r.Accept)
		if r.Method != "GET" {
			assert.Equal(t, planetest.Protobuf, r.ContentType, "%s %s: the body's Content-Type", r.Method, r.Path)
		}
		assert.True(t, strings.HasPrefix(r.Answer, planetest.Protobuf), "%s %s?%s: answered %d with Content-Type %q", r.Method, r.Path, r.Query, r.Status, r.Answer)
	}
	assert.Equal(t, map[string]int{"POST": 1, "GET": 3, "PUT": 1, "DELETE": 1}, seen, "requests by method")
}

// TestInformerSyncsWithWatchList checks that a stock shared informer syncs
// the way client-go v0.37 does by default: WatchListClient is on, so the
// reflector opens one watch with sendInitialEvents and no LIST, and the
// objects that existed before arrive as its initial events.
func TestInformerSyncsWithWatchList(t *testing.T) {
	require.True(t, clientfeatures.FeatureGates().Enabled(clientfeatures.WatchListClient),
		"client-go v0.37 turns WatchListClient on by default; this process turned it off")
	p, cs := start(t)
	ctx := boundedContext(t)
	_, err := cs.CoreV1().Pods(metav1.NamespaceDefault).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "wl-before"}, Spec: podSpec()}, metav1.CreateOptions{})
	require.NoError(t, err)

	factory := informers.NewSharedInformerFactory(cs, 0)
	informer := factory.Core().V1().Pods().Informer()
	rec := newRecorder("wl-")
	_, err = informer.AddEventHandler(rec.handler())
	require.NoError(t, err)
	stop := make(chan struct{})
	factory.Start(stop)
	t.Cleanup(func() {
		close(stop)
		factory.Shutdown()
	})
	require.True(t, cache.WaitForCacheSync(ctx.Done(), informer.HasSynced), "the informer did not sync")
	rec.waitFor(t, ctx, "add wl-before")

	var watches int
	for _, r := range p.Requests() {
		if r.Path != "/api/v1/pods" {
			continue
		}
		q, err := url.ParseQuery(r.Query)
		require.NoError(t, err)
		require.Equal(t, "true", q.Get("watch"), "the informer listed instead of streaming: %s?%s", r.Path, r.Query)
		watches++
		assert.Equal(t, "true", q.Get("sendInitialEvents"), r.Query)
		assert.Equal(t, "NotOlderThan", q.Get("resourceVersionMatch"), r.Query)
		assert.Equal(t, "true", q.Get("allowWatchBookmarks"), r.Query)
		assert.Equal(t, 200, r.Status, r.Query)
		assert.True(t, strings.HasPrefix(r.Answer, planetest.Protobuf), "the watch stream's Content-Type %q", r.Answer)
	}
	assert.Equal(t, 1, watches, "the informer's watches of /api/v1/pods")
}
