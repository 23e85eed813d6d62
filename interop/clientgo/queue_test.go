package clientgo

// BenchmarkQueue: the workqueue scenarios of the client-go baseline
// (producers × workers, unique and duplicate keys, delayed and retried adds), each run against
// client-go's queue and miniplane's in turn. b.N counts adds (items, for the
// delayed and retry rows); the time includes draining the queue, so ns/op is
// ns per add. Both queues are driven through the same small interfaces by the
// same code, with int keys. Run it with -benchtime=1000000x, as the baseline
// was: with unique keys the backlog, and so the cost per add, grows with b.N.
//
// With duplicate keys, how many adds collapse depends on how the scheduler
// interleaves producers and workers, so processed/add differs between runs
// and sides, and ns/add with it; ns/processed is the time per item handed
// out. The …/queued rows start the workers only after the last add, so
// every add but the first of each key is a duplicate: the cost of a
// duplicate add alone.
//
// client-go's side is its plain queue (workqueue.NewTypedWithConfig) for the
// Add/Get/Done rows — its fastest type — and its rate-limiting queue for the
// delayed and retry rows; miniplane has one queue type for all of them.

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	kworkqueue "k8s.io/client-go/util/workqueue"

	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/workqueue"
)

// queue is what the Add/Get/Done rows use of a queue; client-go's
// *workqueue.Typed[int] and miniplane's *workqueue.Queue[int] both have it.
type queue interface {
	Add(item int)
	Get() (item int, shutdown bool)
	Done(item int)
}

// retryQueue is what the delayed and retry rows use.
type retryQueue interface {
	queue
	AddAfter(item int, d time.Duration)
	AddRateLimited(item int)
	Forget(item int)
	NumRequeues(item int) int
}

// queueUnderTest is one side's queue in one scenario.
type queueUnderTest struct {
	q        queue
	shutDown func()
	// checkMetrics, with metrics on, checks that the queue's metrics agree
	// with processed items handed out and nothing left waiting.
	checkMetrics func(processed int) error
}

// queueSide makes a side's queue for the Add/Get/Done rows.
type queueSide struct {
	name     string
	newQueue func(metrics bool) queueUnderTest
}

func queueSides() []queueSide {
	return []queueSide{
		{name: "clientgo", newQueue: newClientGoQueue},
		{name: "miniplane", newQueue: newMiniplaneQueue},
	}
}

func newClientGoQueue(metrics bool) queueUnderTest {
	cfg := kworkqueue.TypedQueueConfig[int]{}
	var provider *MemoryMetrics
	if metrics {
		provider = &MemoryMetrics{}
		cfg.Name, cfg.MetricsProvider = "bench", provider
	}
	q := kworkqueue.NewTypedWithConfig(cfg)
	u := queueUnderTest{q: q, shutDown: q.ShutDown}
	if metrics {
		u.checkMetrics = func(processed int) error {
			m := provider.Queue("bench")
			if m.Adds.Value() != uint64(processed) || m.Latency.Count() != uint64(processed) ||
				m.WorkDuration.Count() != uint64(processed) || m.Depth.Value() != 0 {
				return fmt.Errorf("metrics disagree with %d processed: adds %d, latency %d, work %d, depth %v",
					processed, m.Adds.Value(), m.Latency.Count(), m.WorkDuration.Count(), m.Depth.Value())
			}
			return nil
		}
	}
	return u
}

func newMiniplaneQueue(metrics bool) queueUnderTest {
	q := workqueue.New(workqueue.Config[int]{Name: "bench", Clock: clock.Real{}, Metrics: metrics})
	u := queueUnderTest{q: q, shutDown: func() { q.ShutDown() }}
	if metrics {
		u.checkMetrics = func(processed int) error {
			m := q.Metrics()
			if m.Adds != uint64(processed) || m.QueueDuration.Count != uint64(processed) ||
				m.WorkDuration.Count != uint64(processed) || m.Depth != 0 {
				return fmt.Errorf("metrics disagree with %d processed: %+v", processed, m)
			}
			return nil
		}
	}
	return u
}

// queueScenario is one row of the baseline: producers adding b.N keys in
// all (each a new key, or drawn round-robin from keys), workers taking them
// with Get and Done.
type queueScenario struct {
	name               string
	producers, workers int
	keys               int // 0: every add is a new key
	metrics            bool
	// queued: the workers start only once every add is done, so all but
	// the first add of each key find it waiting: the cost of a duplicate
	// add alone, whatever the scheduler does.
	queued bool
}

func queueScenarios() []queueScenario {
	return []queueScenario{
		{name: "P1W1/unique", producers: 1, workers: 1},
		{name: "P4W4/unique", producers: 4, workers: 4},
		{name: "P4W4/keys1000", producers: 4, workers: 4, keys: 1000},
		{name: "P8W2/keys100", producers: 8, workers: 2, keys: 100},
		{name: "P2W8/keys10000", producers: 2, workers: 8, keys: 10000},
		{name: "P1/keys1000/queued", producers: 1, workers: 1, keys: 1000, queued: true},
		{name: "P4/keys1000/queued", producers: 4, workers: 4, keys: 1000, queued: true},
		{name: "P1W1/unique/metrics", producers: 1, workers: 1, metrics: true},
		{name: "P4W4/unique/metrics", producers: 4, workers: 4, metrics: true},
		{name: "P4W4/keys1000/metrics", producers: 4, workers: 4, keys: 1000, metrics: true},
	}
}

func BenchmarkQueue(b *testing.B) {
	for _, s := range queueScenarios() {
		for _, side := range queueSides() {
			b.Run(s.name+"/"+side.name, func(b *testing.B) {
				u := side.newQueue(s.metrics)
				processed := runQueue(b, u, s)
				b.StopTimer()
				switch {
				case s.keys == 0 && processed != b.N:
					b.Fatalf("processed %d of %d unique keys", processed, b.N)
				case s.keys > 0 && (processed < min(b.N, s.keys) || processed > b.N):
					b.Fatalf("processed %d for %d adds of %d keys", processed, b.N, s.keys)
				case s.queued && processed != min(b.N, s.keys):
					b.Fatalf("processed %d for %d adds of %d keys all queued", processed, b.N, s.keys)
				}
				if u.checkMetrics != nil {
					if err := u.checkMetrics(processed); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(processed)/float64(b.N), "processed/add")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(processed), "ns/processed")
			})
		}
	}
	b.Run("AddAfter1ms/P4W4", func(b *testing.B) {
		for _, side := range retrySides() {
			b.Run(side.name, func(b *testing.B) {
				q, shutDown := side.newQueue(time.Millisecond)
				benchAddAfter(b, q, shutDown)
			})
		}
	})
	b.Run("Retry1ms/P4W4", func(b *testing.B) {
		for _, side := range retrySides() {
			b.Run(side.name, func(b *testing.B) {
				q, shutDown := side.newQueue(time.Millisecond)
				benchRetry(b, q, shutDown)
			})
		}
	})
}

// runQueue runs scenario s on u with b.N adds, from the first add until
// the queue is drained and every worker has returned, and returns how many
// items the workers were handed.
func runQueue(b *testing.B, u queueUnderTest, s queueScenario) int {
	processed := make([]int, s.workers) // one per worker: no shared counter on the hot path
	var workers sync.WaitGroup
	startWorkers := func() {
		for w := range s.workers {
			workers.Go(func() {
				n := 0
				for {
					key, shutdown := u.q.Get()
					if shutdown {
						break
					}
					n++
					u.q.Done(key)
				}
				processed[w] = n
			})
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	if !s.queued {
		startWorkers()
	}
	var producers sync.WaitGroup
	for p := range s.producers {
		producers.Go(func() {
			for i := p; i < b.N; i += s.producers {
				key := i
				if s.keys > 0 {
					key = i % s.keys
				}
				u.q.Add(key)
			}
		})
	}
	producers.Wait()
	if s.queued {
		startWorkers()
	}
	// Both queues still hand out what is queued after ShutDown, and requeue
	// on Done an item added while in flight; Get reports shutdown only once
	// nothing is queued.
	u.shutDown()
	workers.Wait()
	total := 0
	for _, n := range processed {
		total += n
	}
	return total
}

// retrySide makes a side's rate-limiting queue whose limiter is a per-item
// exponential backoff starting at base (and capped at a second).
type retrySide struct {
	name     string
	newQueue func(base time.Duration) (q retryQueue, shutDown func())
}

func retrySides() []retrySide {
	return []retrySide{
		{name: "clientgo", newQueue: func(base time.Duration) (retryQueue, func()) {
			q := kworkqueue.NewTypedRateLimitingQueue(kworkqueue.NewTypedItemExponentialFailureRateLimiter[int](base, time.Second))
			return q, q.ShutDown
		}},
		{name: "miniplane", newQueue: func(base time.Duration) (retryQueue, func()) {
			q := workqueue.New(workqueue.Config[int]{
				Clock:       clock.Real{},
				RateLimiter: workqueue.NewItemExponentialFailureRateLimiter[int](base, time.Second),
			})
			return q, func() { q.ShutDown() }
		}},
	}
}

// benchAddAfter: 4 producers add b.N distinct keys with AddAfter(1 ms) on
// the real clock, 4 workers process them; the time runs until the last one
// is processed. ns/op is per item.
func benchAddAfter(b *testing.B, q retryQueue, shutDown func()) {
	const producers, workers = 4, 4
	var processed atomic.Int64
	allDone := make(chan struct{})
	var wg sync.WaitGroup
	b.ReportAllocs()
	b.ResetTimer()
	for range workers {
		wg.Go(func() {
			for {
				key, shutdown := q.Get()
				if shutdown {
					return
				}
				if processed.Add(1) == int64(b.N) {
					close(allDone)
				}
				q.Done(key)
			}
		})
	}
	for p := range producers {
		wg.Go(func() {
			for i := p; i < b.N; i += producers {
				q.AddAfter(i, time.Millisecond)
			}
		})
	}
	<-allDone // not ShutDown first: client-go's would discard the delayed items
	b.StopTimer()
	shutDown()
	wg.Wait()
	if got := processed.Load(); got != int64(b.N) {
		b.Fatalf("processed %d of %d delayed keys", got, b.N)
	}
}

// benchRetry: the canonical worker loop where each of b.N distinct keys
// fails once (AddRateLimited on a 1 ms exponential limiter), succeeds on
// the retry and is forgotten. 4 producers, 4 workers; ns/op is per key.
func benchRetry(b *testing.B, q retryQueue, shutDown func()) {
	const producers, workers = 4, 4
	var finished, processed atomic.Int64
	allDone := make(chan struct{})
	var wg sync.WaitGroup
	b.ReportAllocs()
	b.ResetTimer()
	for range workers {
		wg.Go(func() {
			for {
				key, shutdown := q.Get()
				if shutdown {
					return
				}
				processed.Add(1)
				if q.NumRequeues(key) == 0 {
					q.AddRateLimited(key) // the first attempt fails
				} else {
					q.Forget(key)
					if finished.Add(1) == int64(b.N) {
						close(allDone)
					}
				}
				q.Done(key)
			}
		})
	}
	for p := range producers {
		wg.Go(func() {
			for i := p; i < b.N; i += producers {
				q.Add(i)
			}
		})
	}
	<-allDone
	b.StopTimer()
	shutDown()
	wg.Wait()
	if got := processed.Load(); got != 2*int64(b.N) {
		b.Fatalf("processed %d times for %d keys failing once each", got, b.N)
	}
}
