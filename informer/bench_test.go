package informer_test

// Benchmarks of the informer pipeline, comparable with client-go's figures.
// Run:
//
//	go test -run='^$' -bench=. -benchtime=3x -count=3 ./informer/
//
// The side-by-side run against client-go lives in interop/.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/informer"
	"github.com/miniplane/miniplane/internal/testenv"
)

// benchServer returns a server on a fake clock holding n pods in 100
// namespaces, with a history window big enough for the benchmark's writes.
func benchServer(b *testing.B, n int) (*apiserver.Server, *clock.Fake) {
	b.Helper()
	clk := clock.NewFake(testenv.Epoch())
	s, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(1, 2)), HistoryLimit: 2*n + 1000})
	require.NoError(b, err)
	for ns := range min(n, 100) {
		_, err := s.Create(ctx, &api.Namespace{Metadata: api.ObjectMeta{Name: fmt.Sprintf("ns-%d", ns)}})
		require.NoError(b, err)
	}
	for i := range n {
		_, err := s.Create(ctx, pod(fmt.Sprintf("ns-%d", i%100), fmt.Sprintf("pod-%d", i), map[string]string{"app": fmt.Sprintf("a%d", i%10)}))
		require.NoError(b, err)
	}
	return s, clk
}

type countingHandler struct{ adds, updates, deletes atomic.Int64 }

func (h *countingHandler) OnAdd(api.Object, bool)   { h.adds.Add(1) }
func (h *countingHandler) OnUpdate(_, _ api.Object) { h.updates.Add(1) }
func (h *countingHandler) OnDelete(any)             { h.deletes.Add(1) }
func (h *countingHandler) total() int64             { return h.adds.Load() + h.updates.Load() + h.deletes.Load() }
func stepAll(inf *informer.Informer, regs []*informer.Registration) bool {
	did := inf.Reflector().Step(ctx)
	for inf.ProcessOne() {
		did = true
	}
	for _, r := range regs {
		for r.DispatchOne() {
			did = true
		}
	}
	return did
}

// BenchmarkInformerList: N objects exist; list them into a fresh informer
// until every handler has been handed all N. Reports ns per object.
func BenchmarkInformerList(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		s, clk := benchServer(b, n)
		for _, handlers := range []int{1, 3} {
			b.Run(fmt.Sprintf("objects=%d/handlers=%d", n, handlers), func(b *testing.B) {
				for b.Loop() {
					inf := informer.New(informer.Source{Client: s, Resource: client.Pods}, informer.Config{Clock: clk})
					hs := make([]*countingHandler, handlers)
					regs := make([]*informer.Registration, handlers)
					for i := range hs {
						hs[i] = &countingHandler{}
						regs[i] = inf.AddEventHandler(hs[i], 0)
					}
					for stepAll(inf, regs) {
					}
					for i, h := range hs {
						if h.adds.Load() != int64(n) || !regs[i].HasSynced() {
							b.Fatalf("handler %d saw %d of %d adds", i, h.adds.Load(), n)
						}
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/object")
			})
		}
	}
}

// BenchmarkInformerWatch: a synced informer; N updates arrive through the
// watch and are handed to every handler. Reports ns per object.
func BenchmarkInformerWatch(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		for _, handlers := range []int{1, 3} {
			b.Run(fmt.Sprintf("objects=%d/handlers=%d", n, handlers), func(b *testing.B) {
				s, clk := benchServer(b, n)
				pods, _, err := client.For[*api.Pod](s).List(ctx, "", client.ListOptions{})
				require.NoError(b, err)
				inf := informer.New(informer.Source{Client: s, Resource: client.Pods}, informer.Config{Clock: clk})
				hs := make([]*countingHandler, handlers)
				regs := make([]*informer.Registration, handlers)
				for i := range hs {
					hs[i] = &countingHandler{}
					regs[i] = inf.AddEventHandler(hs[i], 0)
				}
				for stepAll(inf, regs) {
				}
				round := 0
				for b.Loop() {
					b.StopTimer()
					round++
					for _, h := range hs {
						h.updates.Store(0)
					}
					for _, p := range pods { // the writes are not what is measured
						p = p.DeepCopy()
						p.Metadata.ResourceVersion = ""
						p.Metadata.Annotations = map[string]string{"round": fmt.Sprint(round)}
						_, err := s.Update(ctx, p)
						require.NoError(b, err)
					}
					b.StartTimer()
					for stepAll(inf, regs) {
					}
					for i, h := range hs {
						if h.updates.Load() != int64(n) {
							b.Fatalf("handler %d saw %d of %d updates", i, h.updates.Load(), n)
						}
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/object")
			})
		}
	}
}

// BenchmarkCreateUntilSeen: the live path end to end. One goroutine creates
// N pods through the API server while an informer runs (Run, with its own
// goroutines); it ends when the handler has seen all N. No event may be
// lost at any burst size. Reports creates per second.
func BenchmarkCreateUntilSeen(b *testing.B) {
	for _, n := range []int{1_000, 10_000} {
		b.Run(fmt.Sprintf("pods=%d", n), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				clk := clock.NewFake(testenv.Epoch())
				s, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(1, 2)), HistoryLimit: 2 * n})
				require.NoError(b, err)
				inf := informer.New(informer.Source{Client: s, Resource: client.Pods}, informer.Config{Clock: clk})
				seen := make(chan struct{})
				var count atomic.Int64
				inf.AddEventHandler(informer.HandlerFuncs{AddFunc: func(api.Object, bool) {
					if count.Add(1) == int64(n) {
						close(seen)
					}
				}}, 0)
				runCtx, cancel := context.WithCancel(ctx)
				var wg sync.WaitGroup
				wg.Go(func() { inf.Run(runCtx) })
				<-inf.Synced()
				b.StartTimer()
				for i := range n {
					if _, err := s.Create(ctx, pod("default", fmt.Sprintf("p-%d", i), nil)); err != nil {
						b.Fatal(err)
					}
				}
				<-seen
				b.StopTimer()
				cancel()
				wg.Wait()
				if got := count.Load(); got != int64(n) {
					b.Fatalf("handler saw %d adds, want %d", got, n)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "creates/s")
		})
	}
}

// BenchmarkCacheMemory reports the heap an informer holds per cached object
// beyond the object itself (objects are shared with the store, not copied):
// the cache's map entry, key string and namespace-index entry.
func BenchmarkCacheMemory(b *testing.B) {
	const n = 100_000
	s, clk := benchServer(b, n)
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		inf := informer.New(informer.Source{Client: s, Resource: client.Pods}, informer.Config{Clock: clk})
		for stepAll(inf, nil) {
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		if inf.Indexer().Len() != n {
			b.Fatalf("cached %d of %d", inf.Indexer().Len(), n)
		}
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "bytes/object")
		runtime.KeepAlive(inf)
	}
}
