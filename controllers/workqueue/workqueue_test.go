package workqueue_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/workqueue"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// newQueue returns a queue of string keys on a fake clock reading epoch.
func newQueue(metrics bool) (*workqueue.Queue[string], *clock.Fake) {
	clk := clock.NewFake(epoch)
	return workqueue.New(workqueue.Config[string]{Name: "test", Clock: clk, Metrics: metrics}), clk
}

// takeReady hands out every queued item, in order, finishing each with Done
// (so an item added while in flight would be queued again and taken too).
func takeReady(q *workqueue.Queue[string]) []string {
	var got []string
	for {
		item, ok, _ := q.TryGet()
		if !ok {
			return got
		}
		got = append(got, item)
		q.Done(item)
	}
}

// mustGet hands out the next queued item, which must exist.
func mustGet(t *testing.T, q *workqueue.Queue[string]) string {
	t.Helper()
	item, ok, shutdown := q.TryGet()
	require.True(t, ok, "an item is queued")
	require.False(t, shutdown)
	return item
}

// requireNothingReady checks that no item is queued, and whether Get would
// report shutdown.
func requireNothingReady(t *testing.T, q *workqueue.Queue[string], shutdown bool) {
	t.Helper()
	item, ok, gotShutdown := q.TryGet()
	require.False(t, ok, "nothing is queued, but TryGet handed out %q", item)
	require.Equal(t, shutdown, gotShutdown, "shutdown")
}

// TestGuarantees probes client-go's queue contract, one promise per case.
func TestGuarantees(t *testing.T) {
	tests := []struct {
		name  string
		probe func(t *testing.T, q *workqueue.Queue[string])
	}{
		{
			name: "duplicates collapse while queued",
			probe: func(t *testing.T, q *workqueue.Queue[string]) {
				q.Add("a")
				q.Add("a")
				q.Add("b")
				q.Add("a")
				assert.Equal(t, 2, q.Len())
				assert.Equal(t, []string{"a", "b"}, takeReady(q))
			},
		},
		{
			name: "FIFO by the first add of a dirty period; a re-add keeps the place",
			probe: func(t *testing.T, q *workqueue.Queue[string]) {
				for _, k := range []string{"c", "a", "b", "a", "c"} {
					q.Add(k)
				}
				assert.Equal(t, []string{"c", "a", "b"}, takeReady(q))
				// A new dirty period starts after Done: the next add goes to the back.
				q.Add("b")
				q.Add("a")
				assert.Equal(t, []string{"b", "a"}, takeReady(q))
			},
		},
		{
			name: "an item in flight is not handed out again",
			probe: func(t *testing.T, q *workqueue.Queue[string]) {
				q.Add("a")
				require.Equal(t, "a", mustGet(t, q))
				q.Add("a")
				assert.Equal(t, 0, q.Len(), "a re-added in flight waits for Done, not in the queue")
				requireNothingReady(t, q, false)
			},
		},
		{
			name: "re-added while in flight: queued again exactly once on Done",
			probe: func(t *testing.T, q *workqueue.Queue[string]) {
				q.Add("a")
				require.Equal(t, "a", mustGet(t, q))
				q.Add("a")
				q.Add("a")
				q.Add("a")
				q.Done("a")
				assert.Equal(t, 1, q.Len())
				assert.Equal(t, []string{"a"}, takeReady(q))
				requireNothingReady(t, q, false)
			},
		},
		{
			name: "not re-added while in flight: gone after Done",
			probe: func(t *testing.T, q *workqueue.Queue[string]) {
				q.Add("a")
				require.Equal(t, "a", mustGet(t, q))
				q.Done("a")
				assert.Equal(t, 0, q.Len())
				requireNothingReady(t, q, false)
			},
		},
		{
			name: "Done of an item not in flight changes nothing",
			probe: func(t *testing.T, q *workqueue.Queue[string]) {
				q.Done("never-added")
				q.Add("a")
				q.Done("a") // queued, not in flight: client-go would queue a duplicate
				assert.Equal(t, 1, q.Len())
				require.Equal(t, "a", mustGet(t, q))
				q.Done("a")
				q.Done("a") // a second Done
				assert.Equal(t, 0, q.Len())
				requireNothingReady(t, q, false)
			},
		},
		{
			name: "adds of every kind after ShutDown are dropped",
			probe: func(t *testing.T, q *workqueue.Queue[string]) {
				q.ShutDown()
				q.Add("a")
				q.AddAfter("b", 0)
				q.AddAfter("c", time.Second)
				q.AddRateLimited("d")
				assert.Equal(t, 0, q.Len())
				assert.Equal(t, 0, q.NumRequeues("d"), "a dropped retry is not a failure")
				_, pending := q.NextDelayed()
				assert.False(t, pending)
				requireNothingReady(t, q, true)
			},
		},
		{
			name: "ShutDown hands out what is queued, then reports shutdown",
			probe: func(t *testing.T, q *workqueue.Queue[string]) {
				q.Add("a")
				q.Add("b")
				assert.Empty(t, q.ShutDown(), "nothing delayed to drop")
				assert.True(t, q.ShuttingDown())
				item, shutdown := q.Get()
				assert.Equal(t, "a", item)
				assert.False(t, shutdown)
				q.Done("a")
				item, shutdown = q.Get()
				assert.Equal(t, "b", item)
				assert.False(t, shutdown)
				q.Done("b")
				item, shutdown = q.Get()
				assert.Equal(t, "", item)
				assert.True(t, shutdown)
			},
		},
		{
			name: "an item re-added in flight before ShutDown is queued again on Done",
			probe: func(t *testing.T, q *workqueue.Queue[string]) {
				q.Add("a")
				require.Equal(t, "a", mustGet(t, q))
				q.Add("a")
				q.ShutDown()
				requireNothingReady(t, q, true) // idle workers may leave
				q.Done("a")                     // the worker holding a loops back to Get
				assert.Equal(t, []string{"a"}, takeReady(q))
				requireNothingReady(t, q, true)
			},
		},
		{
			name: "ShuttingDown is false until a shutdown",
			probe: func(t *testing.T, q *workqueue.Queue[string]) {
				assert.False(t, q.ShuttingDown())
				q.ShutDown()
				assert.True(t, q.ShuttingDown())
				assert.Nil(t, q.ShutDown(), "a second ShutDown drops nothing more")
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, _ := newQueue(false)
			tt.probe(t, q)
		})
	}
}

// TestGetWaits checks that Get blocks until there is work or the queue is
// finished, inside a synctest bubble (no sleeps: synctest.Wait returns when
// every goroutine of the test is durably blocked).
func TestGetWaits(t *testing.T) {
	tests := []struct {
		name         string
		wake         func(t *testing.T, q *workqueue.Queue[string])
		wantItem     string
		wantShutdown bool
	}{
		{name: "an Add wakes it", wake: func(_ *testing.T, q *workqueue.Queue[string]) { q.Add("a") }, wantItem: "a"},
		{name: "ShutDown wakes it", wake: func(_ *testing.T, q *workqueue.Queue[string]) { q.ShutDown() }, wantShutdown: true},
		{name: "a drain of an empty queue wakes it", wake: func(t *testing.T, q *workqueue.Queue[string]) {
			assert.NoError(t, q.ShutDownWithDrain(context.Background()))
		}, wantShutdown: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q, _ := newQueue(false)
				type result struct {
					item     string
					shutdown bool
				}
				got := make(chan result, 1)
				go func() {
					item, shutdown := q.Get()
					got <- result{item, shutdown}
				}()
				synctest.Wait()
				require.Empty(t, got, "Get returned from an empty queue")
				tt.wake(t, q)
				r := <-got
				assert.Equal(t, tt.wantItem, r.item)
				assert.Equal(t, tt.wantShutdown, r.shutdown)
			})
		})
	}
}

// TestNeverTwoWorkersOnOneKey runs producers and workers concurrently (run it
// with -race) and checks the two promises that matter to a controller: no key
// is in two workers at once, and no add is lost — the last processing of each
// key started after its last add.
func TestNeverTwoWorkersOnOneKey(t *testing.T) {
	const (
		producers = 4
		workers   = 8
		keys      = 50
		addsEach  = 5000
	)
	q := workqueue.New(workqueue.Config[int]{Clock: clock.Real{}})

	var (
		mu       sync.Mutex
		inFlight = map[int]bool{}
		version  [keys]int // bumped before each add of the key
		seen     [keys]int // version when the key's latest processing began
	)
	var overlaps, processed atomic.Int64

	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				key, shutdown := q.Get()
				if shutdown {
					return
				}
				mu.Lock()
				if inFlight[key] {
					overlaps.Add(1)
				}
				inFlight[key] = true
				seen[key] = version[key]
				mu.Unlock()

				processed.Add(1)

				mu.Lock()
				delete(inFlight, key)
				mu.Unlock()
				q.Done(key)
			}
		})
	}
	var pwg sync.WaitGroup
	for p := range producers {
		pwg.Go(func() {
			for i := range addsEach {
				key := (i*7 + p) % keys
				mu.Lock()
				version[key]++
				mu.Unlock()
				q.Add(key)
			}
		})
	}
	pwg.Wait()
	require.NoError(t, q.ShutDownWithDrain(context.Background()))
	wg.Wait()

	assert.Zero(t, overlaps.Load(), "a key was handed to two workers at once")
	assert.Equal(t, version, seen, "every key's last add was followed by a processing")
	assert.LessOrEqual(t, processed.Load(), int64(producers*addsEach))
	assert.GreaterOrEqual(t, processed.Load(), int64(keys))
}

// TestShutDownWithDrain checks that the drain waits for everything the queue
// holds — the case client-go fails is items still queued when the in-flight
// ones are done — and that ctx ends the wait.
func TestShutDownWithDrain(t *testing.T) {
	t.Run("waits for queued and in-flight items", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q, _ := newQueue(false)
			q.Add("a")
			q.Add("b")
			q.Add("c")
			require.Equal(t, "a", mustGet(t, q))

			drained := make(chan error, 1)
			go func() { drained <- q.ShutDownWithDrain(context.Background()) }()
			synctest.Wait()
			require.Empty(t, drained, "returned with a in flight and b, c queued")
			assert.True(t, q.ShuttingDown())

			q.Add("d") // dropped: the queue is shutting down
			require.Equal(t, "b", mustGet(t, q))
			q.Done("b")
			q.Done("a")
			synctest.Wait()
			require.Empty(t, drained, "returned with nothing in flight but c still queued (client-go's bug)")

			require.Equal(t, "c", mustGet(t, q))
			synctest.Wait()
			require.Empty(t, drained, "returned with c in flight")
			q.Done("c")
			require.NoError(t, <-drained)
			requireNothingReady(t, q, true)
		})
	})

	t.Run("waits for the extra round of an item re-added in flight", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q, _ := newQueue(false)
			q.Add("a")
			require.Equal(t, "a", mustGet(t, q))
			q.Add("a")
			drained := make(chan error, 1)
			go func() { drained <- q.ShutDownWithDrain(context.Background()) }()
			synctest.Wait()
			q.Done("a")
			synctest.Wait()
			require.Empty(t, drained, "returned before the second round of a")
			assert.Equal(t, []string{"a"}, takeReady(q))
			require.NoError(t, <-drained)
		})
	})

	t.Run("returns at once when already empty", func(t *testing.T) {
		q, _ := newQueue(false)
		require.NoError(t, q.ShutDownWithDrain(context.Background()))
		require.NoError(t, q.ShutDownWithDrain(context.Background()), "a second drain too")
	})

	t.Run("returns ctx.Err() when ctx ends first; the queue stays shut down", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q, _ := newQueue(false)
			q.Add("a")
			q.Add("b")
			require.Equal(t, "a", mustGet(t, q))
			ctx, cancel := context.WithCancel(context.Background())
			drained := make(chan error, 1)
			go func() { drained <- q.ShutDownWithDrain(ctx) }()
			synctest.Wait()
			require.Empty(t, drained)
			cancel()
			require.ErrorIs(t, <-drained, context.Canceled)

			assert.True(t, q.ShuttingDown())
			q.Add("c")
			q.Done("a")
			assert.Equal(t, []string{"b"}, takeReady(q), "what was queued is still handed out")
			requireNothingReady(t, q, true)
		})
	})

	t.Run("ShutDown does not end the wait", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q, _ := newQueue(false)
			q.Add("a")
			require.Equal(t, "a", mustGet(t, q))
			drained := make(chan error, 1)
			go func() { drained <- q.ShutDownWithDrain(context.Background()) }()
			synctest.Wait()
			q.ShutDown()
			synctest.Wait()
			require.Empty(t, drained, "only ctx or an empty queue ends the wait")
			q.Done("a")
			require.NoError(t, <-drained)
		})
	})

	t.Run("drained wins over a ctx that ended too", func(t *testing.T) {
		q, _ := newQueue(false)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		for range 100 {
			require.NoError(t, q.ShutDownWithDrain(ctx))
		}
	})
}

// TestDrainWithRealWorkers is the shutdown a controller does, on the real
// clock: workers in Get/Done loops, delayed retries still pending, and a drain
// that returns only when all of it is done. Run it with -race.
func TestDrainWithRealWorkers(t *testing.T) {
	const keys, workers = 200, 4
	q := workqueue.New(workqueue.Config[int]{Clock: clock.Real{}})
	var processed [keys]atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				key, shutdown := q.Get()
				if shutdown {
					return
				}
				processed[key].Add(1)
				q.Done(key)
			}
		})
	}
	for k := range keys {
		if k%2 == 0 {
			q.Add(k)
		} else {
			q.AddAfter(k, time.Duration(k%7)*time.Millisecond)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.NoError(t, q.ShutDownWithDrain(ctx))
	wg.Wait()
	for k := range keys {
		assert.Equal(t, int64(1), processed[k].Load(), "key %d", k)
	}
	_, pending := q.NextDelayed()
	assert.False(t, pending)
}

func Example() {
	// A worker loop driven as the simulator drives it: one goroutine, a fake
	// clock, TryGet for each step, and the clock moved straight to the next
	// delayed item when nothing is ready.
	clk := clock.NewFake(epoch)
	q := workqueue.New(workqueue.Config[string]{Name: "pods", Clock: clk})

	attempts := map[string]int{}
	sync := func(key string) error {
		attempts[key]++
		if key == "default/web" && attempts[key] < 3 {
			return fmt.Errorf("conflict")
		}
		return nil
	}

	q.Add("default/web")
	q.Add("default/db")
	q.Add("default/web") // collapses with the queued copy
	for {
		key, ok, shutdown := q.TryGet()
		if shutdown {
			break
		}
		if !ok {
			next, pending := q.NextDelayed()
			if !pending {
				q.ShutDown()
				continue
			}
			clk.SetTime(next)
			continue
		}
		at := clk.Since(epoch)
		if err := sync(key); err != nil {
			q.AddRateLimited(key)
			fmt.Printf("%-6v %s: %v, retry %d\n", at, key, err, q.NumRequeues(key))
		} else {
			q.Forget(key)
			fmt.Printf("%-6v %s: synced\n", at, key)
		}
		q.Done(key)
	}
	// Output:
	// 0s     default/web: conflict, retry 1
	// 0s     default/db: synced
	// 5ms    default/web: conflict, retry 2
	// 15ms   default/web: synced
}
