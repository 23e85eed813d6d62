package informer_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/informer"
	"github.com/miniplane/miniplane/internal/testenv"
)

// newFactory returns a factory over a server holding pods default/a and
// default/b (and, as every server, namespaces default and kube-system), on a
// fake clock that never moves.
func newFactory(t *testing.T, namespace string) (*informer.Factory, *apiserver.Server) {
	t.Helper()
	srv, clk := testenv.NewServer(t, apiserver.Config{})
	for _, name := range []string{"a", "b"} {
		_, err := client.For[*api.Pod](srv).Create(ctx, pod("default", name, nil))
		require.NoError(t, err)
	}
	return informer.NewFactory(srv, namespace, clk, testenv.Logger(t)), srv
}

// startFactory starts f on a context that the returned stop cancels; stop
// then waits for Shutdown. It also runs at cleanup.
func startFactory(t *testing.T, f *informer.Factory) (runCtx context.Context, stop func()) {
	t.Helper()
	runCtx, cancel := context.WithCancel(ctx)
	f.Start(runCtx)
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			waitClosed(t, shutdown(f), "Shutdown returns after the context is cancelled")
		})
	}
	t.Cleanup(stop)
	return runCtx, stop
}

// shutdown calls f.Shutdown and returns a channel closed when it returns.
func shutdown(f *informer.Factory) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.Shutdown()
	}()
	return done
}

// waitClosed waits for c to close, and fails the test if it does not soon.
func waitClosed(t *testing.T, c <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-c:
	case <-time.After(eventually):
		t.Fatal(what)
	}
}

func TestFactoryMakesOneInformerPerResource(t *testing.T) {
	f, _ := newFactory(t, "")
	pods := f.ForResource(client.Pods)
	assert.Same(t, pods, f.ForResource(client.Pods), "the same informer each time")
	nss := f.ForResource(client.Namespaces)
	assert.NotSame(t, pods, nss)
	assert.Equal(t, []*informer.Informer{nss, pods}, f.Informers(), "in resource name order")
	assert.Equal(t, []string{client.Namespaces, client.Pods}, f.Resources(), "in the same order")
}

func TestFactoryStartStartsOnlyTheInformersAskedForSoFar(t *testing.T) {
	f, _ := newFactory(t, "")
	pods := f.ForResource(client.Pods)
	runCtx, stop := startFactory(t, f)
	nss := f.ForResource(client.Namespaces) // asked for after Start

	assert.Equal(t, map[string]bool{client.Pods: true}, f.WaitForCacheSync(ctx), "only pods was started")
	assert.Equal(t, []string{"default/a", "default/b"}, pods.Indexer().ListKeys())
	assert.False(t, nss.HasSynced())
	assert.Equal(t, 0, nss.Reflector().Stats().Lists, "namespaces stays idle")

	f.Start(runCtx) // starts namespaces; pods is not started twice
	assert.Equal(t, map[string]bool{client.Pods: true, client.Namespaces: true}, f.WaitForCacheSync(ctx))
	assert.Equal(t, []string{"default", "kube-system"}, nss.Indexer().ListKeys())
	stop()
}

// gatedHandler blocks in its first OnAdd until the gate opens.
type gatedHandler struct {
	recorder
	once    sync.Once
	entered chan struct{} // closed when the first OnAdd starts
	gate    chan struct{}
}

func (g *gatedHandler) OnAdd(obj api.Object, isInInitialList bool) {
	g.once.Do(func() { close(g.entered) })
	<-g.gate
	g.recorder.OnAdd(obj, isInInitialList)
}

// TestFactoryWaitForCacheSyncWaitsForHandlers: a synced cache is not enough;
// every handler must have been handed the initial list. client-go's returns
// as soon as the caches have synced (kubernetes/kubernetes#113763).
func TestFactoryWaitForCacheSyncWaitsForHandlers(t *testing.T) {
	f, _ := newFactory(t, "")
	pods := f.ForResource(client.Pods)
	h := &gatedHandler{entered: make(chan struct{}), gate: make(chan struct{})}
	pods.AddEventHandler(h, 0)
	startFactory(t, f)
	var openGate sync.Once
	open := func() { openGate.Do(func() { close(h.gate) }) }
	t.Cleanup(open) // runs before the factory's cleanup, so Shutdown cannot hang on the handler

	result := make(chan map[string]bool, 1)
	go func() { result <- f.WaitForCacheSync(ctx) }()
	waitClosed(t, h.entered, "the handler is handed the first add")
	require.Eventually(t, pods.HasSynced, eventually, tick, "the cache syncs")

	select {
	case got := <-result:
		t.Fatalf("WaitForCacheSync returned %v while the handler was still in its first add", got)
	default:
	}

	open()
	select {
	case got := <-result:
		assert.Equal(t, map[string]bool{client.Pods: true}, got)
	case <-time.After(eventually):
		t.Fatal("WaitForCacheSync did not return once the handler had the initial list")
	}
	assert.Equal(t, 2, h.Len(), "both initial adds were handed over")
}

func TestFactoryWaitForCacheSyncGivesUpWhenTheContextEnds(t *testing.T) {
	f, _ := newFactory(t, "")
	pods := f.ForResource(client.Pods)
	reg := pods.AddEventHandler(&recorder{}, 0)
	f.ForResource("widgets") // not served: its list fails, and it backs off forever on the fake clock
	startFactory(t, f)
	require.Eventually(t, reg.HasSynced, eventually, tick)

	waitCtx, cancel := context.WithCancel(ctx)
	cancel()
	assert.Equal(t, map[string]bool{client.Pods: true, "widgets": false}, f.WaitForCacheSync(waitCtx))
}

func TestFactoryShutdown(t *testing.T) {
	t.Run("returns at once when nothing was started", func(t *testing.T) {
		f, _ := newFactory(t, "")
		f.ForResource(client.Pods)
		waitClosed(t, shutdown(f), "Shutdown returns")
	})
	t.Run("returns after the context is cancelled", func(t *testing.T) {
		f, _ := newFactory(t, "")
		f.ForResource(client.Pods)
		f.ForResource(client.Namespaces)
		runCtx, cancel := context.WithCancel(ctx)
		f.Start(runCtx)
		f.WaitForCacheSync(ctx)
		done := shutdown(f)
		select {
		case <-done:
			t.Fatal("Shutdown returned while the informers were running")
		default:
		}
		cancel()
		waitClosed(t, done, "Shutdown returns after the context is cancelled")
	})
}

func TestFactoryScopesInformersToItsNamespace(t *testing.T) {
	f, srv := newFactory(t, "kube-system")
	_, err := client.For[*api.Pod](srv).Create(ctx, pod("kube-system", "dns", nil))
	require.NoError(t, err)
	pods := f.ForResource(client.Pods)
	startFactory(t, f)
	require.Equal(t, map[string]bool{client.Pods: true}, f.WaitForCacheSync(ctx))
	assert.Equal(t, []string{"kube-system/dns"}, pods.Indexer().ListKeys())
}
