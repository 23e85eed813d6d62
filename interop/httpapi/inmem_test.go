package httpapi

import (
	"context"
	"math/rand/v2"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/apiserver/httpapi"
	"github.com/miniplane/miniplane/apiserver/httpapi/inmem"
	"github.com/miniplane/miniplane/clock"
)

// inMemory returns a stock clientset whose requests miniplane's HTTP API
// serves in memory (apiserver/httpapi/inmem): rest.Config names the host
// and the transport and nothing else, so the clientset speaks protobuf, as
// it does against a cluster.
func inMemory(t *testing.T) (*apiserver.Server, kubernetes.Interface) {
	t.Helper()
	srv, h := newHandler(t)
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: inmem.Host, Transport: inmem.NewTransport(h)})
	require.NoError(t, err)
	return srv, cs
}

func newHandler(t *testing.T) (*apiserver.Server, *httpapi.Handler) {
	t.Helper()
	srv, err := apiserver.New(apiserver.Config{Clock: clock.Real{}, Rand: rand.New(rand.NewPCG(1, 2))})
	require.NoError(t, err)
	h, err := httpapi.New(httpapi.Config{Server: srv, Clock: clock.Real{}})
	require.NoError(t, err)
	return srv, h
}

// contentTypes is a RoundTripper that notes the Content-Type of every
// request body it passes on.
type contentTypes struct {
	next http.RoundTripper
	mu   sync.Mutex
	seen map[string]bool
}

func (c *contentTypes) RoundTrip(r *http.Request) (*http.Response, error) {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		c.mu.Lock()
		c.seen[ct] = true
		c.mu.Unlock()
	}
	return c.next.RoundTrip(r)
}

// TestClientsetInMemory creates pods and watches them with a stock
// clientset over the in-memory transport, inside a synctest bubble: no
// socket, no real time, and synctest.Test fails if a goroutine is left.
func TestClientsetInMemory(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, h := newHandler(t)
		types := &contentTypes{next: inmem.NewTransport(h), seen: map[string]bool{}}
		cs, err := kubernetes.NewForConfig(&rest.Config{Host: inmem.Host, Transport: types})
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		pods := cs.CoreV1().Pods("default")
		first, err := pods.Create(ctx, clientGoPod("first"), metav1.CreateOptions{})
		require.NoError(t, err)

		w, err := pods.Watch(ctx, metav1.ListOptions{ResourceVersion: first.ResourceVersion})
		require.NoError(t, err)
		defer w.Stop()
		for _, name := range []string{"a", "b"} {
			_, err := pods.Create(ctx, clientGoPod(name), metav1.CreateOptions{})
			require.NoError(t, err)
			ev := <-w.ResultChan()
			require.Equal(t, watch.Added, ev.Type, "%v", ev.Object)
			assert.Equal(t, name, ev.Object.(*corev1.Pod).Name)
		}
		w.Stop()
		synctest.Wait() // the watch's goroutines and the handler's have ended

		l, err := pods.List(ctx, metav1.ListOptions{})
		require.NoError(t, err)
		assert.Len(t, l.Items, 3)
		assert.Equal(t, map[string]bool{"application/vnd.kubernetes.protobuf": true}, types.seen, "the stock clientset speaks protobuf")
	})
}

// TestSharedInformerInMemory runs a stock shared informer over the
// in-memory transport inside a synctest bubble: it syncs, sees a create,
// and stops leaving no goroutine behind.
func TestSharedInformerInMemory(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, cs := inMemory(t)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		_, err := cs.CoreV1().Pods("default").Create(ctx, clientGoPod("before"), metav1.CreateOptions{})
		require.NoError(t, err)

		factory := informers.NewSharedInformerFactory(cs, 0)
		informer := factory.Core().V1().Pods()
		rec := newRecorder()
		_, err = informer.Informer().AddEventHandler(rec.handler())
		require.NoError(t, err)
		stop := make(chan struct{})
		factory.Start(stop)
		for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
			require.True(t, ok, "%v did not sync", typ)
		}
		rec.waitFor(t, ctx, "the initial pod", func(r *recorder) bool { return len(r.adds) == 1 })

		_, err = cs.CoreV1().Pods("default").Create(ctx, clientGoPod("after"), metav1.CreateOptions{})
		require.NoError(t, err)
		rec.waitFor(t, ctx, "the create", func(r *recorder) bool { return len(r.adds) == 2 })
		assert.Equal(t, []string{"before", "after"}, rec.adds)
		cached, err := informer.Lister().Pods("default").Get("after")
		require.NoError(t, err)
		assert.Equal(t, "after", cached.Name)

		start := time.Now()
		close(stop)
		factory.Shutdown()
		synctest.Wait()
		assert.Equal(t, 0, srv.Store().Stats().Watchers, "the informer's watch has ended")
		assert.Zero(t, time.Since(start), "shutting down took no virtual time")
	})
}
