package workqueue_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAddAfter probes delayed adds on the fake clock: each step moves the
// clock, then checks what is ready, what is pending, and the timers the queue
// holds on the clock.
func TestAddAfter(t *testing.T) {
	type step struct {
		do          func(q queue)
		advance     time.Duration
		wantReady   []string // handed out (and Done) after the advance, in order
		wantNext    time.Duration
		wantPending bool
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{
			name: "not before it is due",
			steps: []step{
				{do: func(q queue) { q.AddAfter("a", 2*time.Second) }, wantNext: 2 * time.Second, wantPending: true},
				{advance: 2*time.Second - time.Nanosecond, wantNext: 2 * time.Second, wantPending: true},
				{advance: time.Nanosecond, wantReady: []string{"a"}},
			},
		},
		{
			name: "d ≤ 0 adds now",
			steps: []step{
				{do: func(q queue) { q.AddAfter("a", 0); q.AddAfter("b", -time.Second) }, wantReady: []string{"a", "b"}},
			},
		},
		{
			name: "a shorter delay pulls a pending item forward",
			steps: []step{
				{do: func(q queue) { q.AddAfter("a", 5*time.Second); q.AddAfter("a", 2*time.Second) }, wantNext: 2 * time.Second, wantPending: true},
				{advance: 2 * time.Second, wantReady: []string{"a"}},
				{advance: 10 * time.Second, wantReady: nil},
			},
		},
		{
			name: "a longer delay of a pending item is ignored",
			steps: []step{
				{do: func(q queue) { q.AddAfter("a", 2*time.Second); q.AddAfter("a", 5*time.Second) }, wantNext: 2 * time.Second, wantPending: true},
				{advance: 2 * time.Second, wantReady: []string{"a"}},
				{advance: 10 * time.Second, wantReady: nil},
			},
		},
		{
			name: "items come due in ready-time order, ties in add order",
			steps: []step{
				{do: func(q queue) {
					q.AddAfter("c", 3*time.Second)
					q.AddAfter("a", 1*time.Second)
					q.AddAfter("b1", 2*time.Second)
					q.AddAfter("b2", 2*time.Second)
					q.AddAfter("late", time.Minute)
				}, wantNext: time.Second, wantPending: true},
				{advance: 1500 * time.Millisecond, wantReady: []string{"a"}, wantNext: 2 * time.Second, wantPending: true},
				{advance: 10 * time.Second, wantReady: []string{"b1", "b2", "c"}, wantNext: time.Minute, wantPending: true},
				{advance: time.Hour, wantReady: []string{"late"}},
			},
		},
		{
			name: "a due item collapses with a queued copy",
			steps: []step{
				// do runs before the advance: a comes due while queued, and is handed out once.
				{do: func(q queue) { q.Add("a"); q.AddAfter("a", time.Second); q.Add("b") }, advance: time.Second, wantReady: []string{"a", "b"}},
			},
		},
		{
			name: "a delayed add of a queued item still comes due after it is processed",
			steps: []step{
				{do: func(q queue) { q.Add("a"); q.AddAfter("a", time.Second) }, wantReady: []string{"a"}, wantNext: time.Second, wantPending: true},
				{advance: time.Second, wantReady: []string{"a"}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, clk := newQueue(false)
			for i, s := range tt.steps {
				if s.do != nil {
					s.do(q)
				}
				clk.Step(s.advance)
				assert.Equal(t, s.wantReady, takeReady(q), "step %d: ready", i)
				next, pending := q.NextDelayed()
				require.Equal(t, s.wantPending, pending, "step %d: pending", i)
				if pending {
					assert.Equal(t, epoch.Add(s.wantNext), next, "step %d: NextDelayed", i)
					assert.Equal(t, 1, clk.Waiters(), "step %d: one timer for all delayed items", i)
				} else {
					assert.Zero(t, clk.Waiters(), "step %d: no timer left on the clock", i)
				}
			}
		})
	}
}

// TestNextDelayedDrivesTheClock is the simulator's loop: move the fake clock
// to NextDelayed until nothing is pending; every item comes due at its time.
func TestNextDelayedDrivesTheClock(t *testing.T) {
	q, clk := newQueue(false)
	delays := map[string]time.Duration{"x": 7 * time.Second, "y": 3 * time.Second, "z": 3 * time.Second, "w": time.Millisecond}
	for _, k := range []string{"x", "y", "z", "w"} {
		q.AddAfter(k, delays[k])
	}
	var got []string
	for {
		next, ok := q.NextDelayed()
		if !ok {
			break
		}
		clk.SetTime(next)
		for _, k := range takeReady(q) {
			assert.Equal(t, delays[k], clk.Since(epoch), "%s came due at its ready time", k)
			got = append(got, k)
		}
	}
	assert.Equal(t, []string{"w", "y", "z", "x"}, got)
}

// TestShutDownReportsDroppedDelayedItems checks that ShutDown never discards a
// pending delayed item silently.
func TestShutDownReportsDroppedDelayedItems(t *testing.T) {
	q, clk := newQueue(false)
	q.AddAfter("c", 3*time.Second)
	q.AddAfter("a2", time.Second)
	q.AddAfter("a1", 5*time.Second)
	q.AddAfter("a1", time.Second) // pulled forward: now due with a2, added after it
	q.AddAfter("b", 2*time.Second)
	q.Add("queued")
	clk.Step(500 * time.Millisecond)

	assert.Equal(t, []string{"a2", "a1", "b", "c"}, q.ShutDown(), "by ready time, then add order")
	assert.Nil(t, q.ShutDown(), "nothing left to drop")
	assert.Zero(t, clk.Waiters(), "the queue's timer is stopped")
	clk.Step(time.Hour)
	assert.Equal(t, []string{"queued"}, takeReady(q), "queued items are still handed out")
	requireNothingReady(t, q, true)
}

// TestDrainWaitsForDelayedItems checks that ShutDownWithDrain keeps delayed
// items, hands them out when they come due, and keeps workers in Get until
// then; and that ShutDown after an abandoned drain returns what was pending.
func TestDrainWaitsForDelayedItems(t *testing.T) {
	t.Run("delayed items come due and are processed", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			const workers = 3
			q, clk := newQueue(false)
			q.AddAfter("b", 7*time.Second)
			q.AddAfter("a", 5*time.Second)
			processed := make(chan string, 10)
			var exited sync.WaitGroup
			for range workers {
				exited.Go(func() {
					for {
						item, shutdown := q.Get()
						if shutdown {
							return
						}
						processed <- item
						q.Done(item)
					}
				})
			}
			drained := make(chan error, 1)
			go func() { drained <- q.ShutDownWithDrain(context.Background()) }()
			synctest.Wait()
			require.Empty(t, drained, "returned with a and b still delayed")
			require.Empty(t, processed)

			q.AddAfter("late", time.Second) // dropped: shutting down
			clk.Step(5 * time.Second)
			synctest.Wait()
			require.Empty(t, drained, "returned with b still delayed")
			require.Equal(t, "a", <-processed)

			clk.Step(2 * time.Second)
			require.NoError(t, <-drained)
			exited.Wait() // every idle worker learns that the queue is finished
			require.Equal(t, "b", <-processed)
			require.Empty(t, processed)
		})
	})

	t.Run("an abandoned drain leaves them pending; ShutDown returns them", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			q, clk := newQueue(false)
			q.AddAfter("b", 2*time.Second)
			q.AddAfter("a", time.Second)
			ctx, cancel := context.WithCancel(context.Background())
			drained := make(chan error, 1)
			go func() { drained <- q.ShutDownWithDrain(ctx) }()
			synctest.Wait()
			cancel()
			require.ErrorIs(t, <-drained, context.Canceled)

			_, pending := q.NextDelayed()
			assert.True(t, pending, "the delayed items did not vanish with the drain")
			requireNothingReady(t, q, false)
			clk.Step(time.Second)
			assert.Equal(t, []string{"a"}, takeReady(q), "a came due during the abandoned drain")
			assert.Equal(t, []string{"b"}, q.ShutDown())
			requireNothingReady(t, q, true)
		})
	})
}
