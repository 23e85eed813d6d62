package workqueue_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/workqueue"
)

// exponentialSequence is client-go's measured default backoff of one key:
// 5 ms doubling, capped at 1000 s from the 19th failure.
func exponentialSequence(failures int) []time.Duration {
	var want []time.Duration
	d := 5 * time.Millisecond
	for range failures {
		want = append(want, min(d, 1000*time.Second))
		d *= 2
	}
	return want
}

func TestItemExponentialFailureRateLimiter(t *testing.T) {
	r := workqueue.NewItemExponentialFailureRateLimiter[string](5*time.Millisecond, 1000*time.Second)
	var got []time.Duration
	for range 25 {
		got = append(got, r.When("a"))
	}
	want := exponentialSequence(25)
	assert.Equal(t, want, got)
	assert.Equal(t, []time.Duration{5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond}, got[:3])
	assert.Equal(t, 655360*time.Millisecond, got[17], "the 18th failure is the last below the cap")
	assert.Equal(t, 1000*time.Second, got[18], "capped from the 19th failure")
	assert.Equal(t, 25, r.NumRequeues("a"))

	assert.Equal(t, 5*time.Millisecond, r.When("b"), "items are independent")
	assert.Equal(t, 1, r.NumRequeues("b"))

	r.Forget("a")
	assert.Equal(t, 0, r.NumRequeues("a"))
	assert.Equal(t, 5*time.Millisecond, r.When("a"), "Forget starts the backoff over")

	for range 200 {
		r.When("b")
	}
	assert.Equal(t, 1000*time.Second, r.When("b"), "no overflow after many failures")
}

// TestBucketRateLimiter checks the token bucket on the fake clock against
// client-go's measured figures: 10 per second, bursts of 100, reservations
// never returned.
func TestBucketRateLimiter(t *testing.T) {
	clk := clock.NewFake(epoch)
	r := workqueue.NewBucketRateLimiter[string](clk, 10, 100)
	var got []time.Duration
	for i := range 110 {
		got = append(got, r.When(fmt.Sprint(i)))
	}
	for i := range 100 {
		require.Zero(t, got[i], "failure %d is within the burst", i+1)
	}
	assert.Equal(t, 100*time.Millisecond, got[100], "101st")
	assert.Equal(t, 200*time.Millisecond, got[101], "102nd")
	assert.Equal(t, time.Second, got[109], "110th")

	clk.Step(time.Second)
	assert.Equal(t, 100*time.Millisecond, r.When("x"), "a second later the 10 tokens earned are all spoken for")
	clk.Step(time.Hour)
	for i := range 100 {
		require.Zero(t, r.When("y"), "after an idle hour the burst is back (%d)", i)
	}
	assert.Equal(t, 100*time.Millisecond, r.When("y"))
	assert.Equal(t, 0, r.NumRequeues("y"), "the bucket counts no item")
	r.Forget("y")
	assert.Panics(t, func() { workqueue.NewBucketRateLimiter[string](clk, 0, 1) })
	assert.Panics(t, func() { workqueue.NewBucketRateLimiter[string](clk, 1, 0) })
}

func TestDefaultControllerRateLimiter(t *testing.T) {
	t.Run("one key backs off exponentially", func(t *testing.T) {
		r := workqueue.DefaultControllerRateLimiter[string](clock.NewFake(epoch))
		var got []time.Duration
		for range 20 {
			got = append(got, r.When("a"))
		}
		assert.Equal(t, exponentialSequence(20), got)
		assert.Equal(t, 20, r.NumRequeues("a"))
		r.Forget("a")
		assert.Equal(t, 0, r.NumRequeues("a"))
		assert.Equal(t, 5*time.Millisecond, r.When("a"))
	})
	t.Run("many keys hit the overall bucket", func(t *testing.T) {
		r := workqueue.DefaultControllerRateLimiter[string](clock.NewFake(epoch))
		var got []time.Duration
		for i := range 110 {
			got = append(got, r.When(fmt.Sprint(i)))
		}
		assert.Equal(t, 5*time.Millisecond, got[0], "a first failure already waits the base backoff")
		assert.Equal(t, 5*time.Millisecond, got[99])
		assert.Equal(t, 100*time.Millisecond, got[100])
		assert.Equal(t, time.Second, got[109])
	})
}

func TestMaxOf(t *testing.T) {
	fast := workqueue.NewItemExponentialFailureRateLimiter[string](time.Millisecond, time.Second)
	slow := workqueue.NewItemExponentialFailureRateLimiter[string](10*time.Millisecond, 20*time.Millisecond)
	r := workqueue.MaxOf[string](fast, slow)
	assert.Equal(t, []time.Duration{10, 20, 20, 20, 20, 32, 64}, func() []time.Duration {
		var got []time.Duration
		for range 7 {
			got = append(got, r.When("a")/time.Millisecond)
		}
		return got
	}())
	assert.Equal(t, 7, r.NumRequeues("a"))
	assert.Equal(t, 7, fast.NumRequeues("a"), "every limiter records the failure")
	r.Forget("a")
	assert.Equal(t, 0, fast.NumRequeues("a"))
	assert.Equal(t, 0, slow.NumRequeues("a"))
	assert.Zero(t, workqueue.MaxOf[string]().When("a"), "no limiters: no wait")
}

// TestQueueRateLimiting checks the queue's side: AddRateLimited waits what the
// limiter says on the queue's clock, and Forget and NumRequeues pass through.
func TestQueueRateLimiting(t *testing.T) {
	q, clk := newQueue(false) // the default limiter
	q.Add("a")
	require.Equal(t, "a", mustGet(t, q))
	q.AddRateLimited("a")
	q.Done("a")
	assert.Equal(t, 1, q.NumRequeues("a"))
	next, ok := q.NextDelayed()
	require.True(t, ok)
	assert.Equal(t, epoch.Add(5*time.Millisecond), next)
	requireNothingReady(t, q, false)

	clk.Step(5 * time.Millisecond)
	require.Equal(t, "a", mustGet(t, q))
	q.AddRateLimited("a")
	q.Done("a")
	assert.Equal(t, 2, q.NumRequeues("a"))
	next, _ = q.NextDelayed()
	assert.Equal(t, 10*time.Millisecond, next.Sub(clk.Now()))

	clk.Step(10 * time.Millisecond)
	require.Equal(t, "a", mustGet(t, q))
	q.Forget("a")
	q.Done("a")
	assert.Equal(t, 0, q.NumRequeues("a"))
	requireNothingReady(t, q, false)

	custom := workqueue.New(workqueue.Config[string]{
		Clock:       clk,
		RateLimiter: workqueue.NewItemExponentialFailureRateLimiter[string](time.Hour, time.Hour),
	})
	custom.AddRateLimited("b")
	next, _ = custom.NextDelayed()
	assert.Equal(t, time.Hour, next.Sub(clk.Now()), "Config.RateLimiter is used")
}
