package clientgo

// The informer side of both libraries, behind one small interface so the
// pipeline, end-to-end, memory and smoke tests drive them the same way:
// start an informer with counting handlers, wait until every handler has
// seen the adds it should, check the cache, stop.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/informer"
)

var large = flag.Bool("large", false, "also run the 100,000-object informer and memory cases")

// sizes returns the object counts of the informer benchmarks: 10,000, and
// 100,000 with -large.
func sizes() []int {
	if *large {
		return []int{10_000, 100_000}
	}
	return []int{10_000}
}

// waitTimeout bounds every wait for a handler, so a lost event fails the
// benchmark instead of hanging it.
const waitTimeout = 2 * time.Minute

// counter counts a handler's notifications and closes done once it has
// seen want adds. Anything but an add is unexpected in these benchmarks.
type counter struct {
	want  atomic.Int64
	adds  atomic.Int64
	other atomic.Int64 // updates and deletes
	once  sync.Once
	done  chan struct{}
}

func newCounter(want int) *counter {
	c := &counter{done: make(chan struct{})}
	c.setWant(want)
	return c
}

func (c *counter) add() {
	if c.adds.Add(1) == c.want.Load() {
		c.once.Do(func() { close(c.done) })
	}
}

// setWant changes how many adds close done: the end-to-end benchmark lowers
// it by the events client-go's fake clientset lost. Either add sees the new
// want or setWant sees the add, so done is closed exactly when adds reach
// want.
func (c *counter) setWant(want int) {
	c.want.Store(int64(want))
	if c.adds.Load() >= int64(want) {
		c.once.Do(func() { close(c.done) })
	}
}

func (c *counter) check() error {
	if a, w, o := c.adds.Load(), c.want.Load(), c.other.Load(); a != w || o != 0 {
		return fmt.Errorf("handler saw %d adds (want %d) and %d updates or deletes", a, w, o)
	}
	return nil
}

// clientGoHandler is a counter as a client-go cache.ResourceEventHandler.
type clientGoHandler struct{ *counter }

func (h clientGoHandler) OnAdd(any, bool)   { h.add() }
func (h clientGoHandler) OnUpdate(_, _ any) { h.other.Add(1) }
func (h clientGoHandler) OnDelete(any)      { h.other.Add(1) }

// miniplaneHandler is a counter as a miniplane informer.Handler.
type miniplaneHandler struct{ *counter }

func (h miniplaneHandler) OnAdd(api.Object, bool)   { h.add() }
func (h miniplaneHandler) OnUpdate(_, _ api.Object) { h.other.Add(1) }
func (h miniplaneHandler) OnDelete(any)             { h.other.Add(1) }

// running is an informer started with counting handlers.
type running interface {
	// wait returns once every handler has seen its adds and its
	// registration has synced, or fails after waitTimeout.
	wait() error
	// check checks the handlers' counts and the cache's size.
	check(cached int) error
	// stop stops the informer and returns once its goroutines have.
	stop()
}

// waitCounters waits for every counter's done, then for synced.
func waitCounters(counters []*counter, synced func(context.Context) bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	for i, c := range counters {
		select {
		case <-c.done:
		case <-ctx.Done():
			return fmt.Errorf("handler %d: timed out with %d of %d adds", i, c.adds.Load(), c.want.Load())
		}
	}
	if !synced(ctx) {
		return errors.New("timed out waiting for the handlers' registrations to sync")
	}
	return nil
}

func checkCounters(counters []*counter, cached, want int) error {
	for i, c := range counters {
		if err := c.check(); err != nil {
			return fmt.Errorf("handler %d: %w", i, err)
		}
	}
	if cached != want {
		return fmt.Errorf("cache holds %d objects, want %d", cached, want)
	}
	return nil
}

// ---- client-go ----

// clientGoRun is a running client-go SharedIndexInformer.
type clientGoRun struct {
	inf      cache.SharedIndexInformer
	counters []*counter
	regs     []cache.ResourceEventHandlerRegistration
	cancel   context.CancelFunc
	done     chan struct{}
}

// newClientGoInformer returns a SharedIndexInformer of pods over lw with
// the namespace index, as client-go's generated pod informer has.
func newClientGoInformer(lw cache.ListerWatcher) cache.SharedIndexInformer {
	return cache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0,
		cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
}

// startClientGo adds handlers counting to want each to inf, and runs it.
func startClientGo(inf cache.SharedIndexInformer, want, handlers int, run func(ctx context.Context)) (*clientGoRun, error) {
	r := &clientGoRun{inf: inf, done: make(chan struct{})}
	for range handlers {
		c := newCounter(want)
		reg, err := inf.AddEventHandler(clientGoHandler{c})
		if err != nil {
			return nil, err
		}
		r.counters = append(r.counters, c)
		r.regs = append(r.regs, reg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go func() {
		defer close(r.done)
		run(ctx)
	}()
	return r, nil
}

func (r *clientGoRun) wait() error {
	return waitCounters(r.counters, func(ctx context.Context) bool {
		checkers := []cache.DoneChecker{r.inf.HasSyncedChecker()}
		for _, reg := range r.regs {
			checkers = append(checkers, reg.HasSyncedChecker())
		}
		for _, c := range checkers {
			select {
			case <-c.Done():
			case <-ctx.Done():
				return false
			}
		}
		return true
	})
}

func (r *clientGoRun) check(want int) error {
	return checkCounters(r.counters, len(r.inf.GetStore().ListKeys()), want)
}

func (r *clientGoRun) stop() {
	r.cancel()
	<-r.done
}

// noWatchList opts a ListWatch out of client-go's streaming list
// (WatchListClient, on by default since 1.35), as the fake clientset does:
// the fakes here answer a LIST, and send no initial-events bookmark.
type noWatchList struct{}

func (noWatchList) IsWatchListSemanticsUnSupported() bool { return true }

// fakeListWatch answers every LIST with list, the first WATCH with w and
// later ones with a watch that never sends.
func fakeListWatch(list *corev1.PodList, w watch.Interface) cache.ListerWatcher {
	var watched atomic.Bool
	return cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
		ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
			return list, nil
		},
		WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) {
			if watched.Swap(true) {
				return watch.NewFake(), nil
			}
			return w, nil
		},
	}, noWatchList{})
}

// clientGoPods returns pods 0..n-1 as stored at resourceVersions 2..n+1.
func clientGoPods(n int) []*corev1.Pod {
	created := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	pods := make([]*corev1.Pod, n)
	for i := range pods {
		pods[i] = ClientGoStoredPod(i, int64(i+2), created)
	}
	return pods
}

// clientGoList returns pods as a PodList at resourceVersion n+1.
func clientGoList(pods []*corev1.Pod) *corev1.PodList {
	l := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: fmt.Sprint(len(pods) + 1)}}
	l.Items = make([]corev1.Pod, len(pods))
	for i, p := range pods {
		l.Items[i] = *p
	}
	return l
}

// ---- miniplane ----

// miniplaneRun is a running miniplane informer.
type miniplaneRun struct {
	inf      *informer.Informer
	counters []*counter
	cancel   context.CancelFunc
	wg       sync.WaitGroup
}

// startMiniplane runs an informer over lw on the real clock, with handlers
// counting to want each.
func startMiniplane(lw informer.ListerWatcher, want, handlers int) *miniplaneRun {
	r := &miniplaneRun{inf: informer.New(lw, informer.Config{Clock: clock.Real{}})}
	for range handlers {
		c := newCounter(want)
		r.inf.AddEventHandler(miniplaneHandler{c}, 0)
		r.counters = append(r.counters, c)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	r.wg.Go(func() { r.inf.Run(ctx) })
	return r
}

func (r *miniplaneRun) wait() error {
	return waitCounters(r.counters, r.inf.WaitForHandlers)
}

func (r *miniplaneRun) check(want int) error {
	return checkCounters(r.counters, r.inf.Indexer().Len(), want)
}

func (r *miniplaneRun) stop() {
	r.cancel()
	r.wg.Wait()
}

// newServer returns an API server on the real clock holding the Namespaces
// namespaces, with a history window of history events.
func newServer(history int) (*apiserver.Server, error) {
	s, err := apiserver.New(apiserver.Config{Clock: clock.Real{}, Rand: rand.New(rand.NewPCG(1, 2)), HistoryLimit: history})
	if err != nil {
		return nil, err
	}
	for n := range Namespaces {
		if _, err := s.Create(context.Background(), &api.Namespace{Metadata: api.ObjectMeta{Name: NamespaceName(n)}}); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// podServer is an API server holding pods 0..n-1, created after revision
// before.
type podServer struct {
	s      *apiserver.Server
	before string // resourceVersion of the list just before the first pod
}

func newPodServer(n int) (*podServer, error) {
	s, err := newServer(n + 1000)
	if err != nil {
		return nil, err
	}
	l, err := s.List(context.Background(), client.Pods, "", client.ListOptions{Limit: 1})
	if err != nil {
		return nil, err
	}
	pods := client.For[*api.Pod](s)
	for i := range n {
		if _, err := pods.Create(context.Background(), MiniplanePod(i)); err != nil {
			return nil, err
		}
	}
	return &podServer{s: s, before: l.Metadata.ResourceVersion}, nil
}

// replaySource is a ListerWatcher that lists nothing, at the revision
// before the pods were created, so the informer's watch replays their N
// creates from the server's history: the events are waiting, as in
// client-go's prefilled fake watcher.
type replaySource struct{ ps *podServer }

func (r replaySource) List(context.Context, client.ListOptions) (*client.List, error) {
	return &client.List{Metadata: api.ListMeta{ResourceVersion: r.ps.before}}, nil
}

func (r replaySource) Watch(ctx context.Context, opts client.ListOptions) (client.Watcher, error) {
	return r.ps.s.Watch(ctx, client.Pods, "", opts)
}

// stepMiniplane drives an informer over lw from the calling goroutine, as
// the simulator does — reflector step, then every popped delta, then every
// notification — until nothing is left to do, with handlers counting to
// want each. It does not start the informer's goroutines.
func stepMiniplane(b *testing.B, lw informer.ListerWatcher, want, handlers int) *miniplaneRun {
	r := &miniplaneRun{inf: informer.New(lw, informer.Config{Clock: clock.Real{}})}
	var regs []*informer.Registration
	for range handlers {
		c := newCounter(want)
		regs = append(regs, r.inf.AddEventHandler(miniplaneHandler{c}, 0))
		r.counters = append(r.counters, c)
	}
	ctx := b.Context()
	for {
		did := r.inf.Reflector().Step(ctx)
		for r.inf.ProcessOne() {
			did = true
		}
		for _, reg := range regs {
			for reg.DispatchOne() {
				did = true
			}
		}
		if !did {
			break
		}
	}
	return r
}
