package workqueue_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/controllers/workqueue"
)

// TestMetrics runs a scripted sequence on the fake clock and checks every
// figure exactly.
func TestMetrics(t *testing.T) {
	q, clk := newQueue(true)
	at := func(d time.Duration) { clk.SetTime(epoch.Add(d)) }

	q.Add("a") // 0s
	q.Add("b")
	q.Add("a") // duplicate: not an add
	m := q.Metrics()
	assert.Equal(t, 2, m.Depth)
	assert.Equal(t, uint64(2), m.Adds)

	at(1 * time.Second)
	require.Equal(t, "a", mustGet(t, q)) // waited 1 s
	at(3 * time.Second)
	q.Add("a") // in flight: counted, and in the depth
	m = q.Metrics()
	assert.Equal(t, 2, m.Depth, "b queued, a waiting behind its in-flight copy")
	assert.Equal(t, uint64(3), m.Adds)

	at(4 * time.Second)
	require.Equal(t, "b", mustGet(t, q)) // waited 4 s
	at(4500 * time.Millisecond)
	m = q.Metrics()
	assert.Equal(t, 1, m.Depth)
	assert.Equal(t, 4*time.Second, m.UnfinishedWork, "a 3.5 s + b 0.5 s")
	assert.Equal(t, 3500*time.Millisecond, m.LongestRunningProcessor)

	q.Done("a")                          // worked 3.5 s; queued again, added at 3 s
	require.Equal(t, "a", mustGet(t, q)) // waited 1.5 s
	at(24500 * time.Millisecond)
	q.Done("b") // worked 20.5 s: above the last bucket
	q.Done("a") // worked 20 s

	q.AddAfter("c", 0)           // a retry, added now
	q.AddAfter("c", time.Second) // a retry, pending
	q.AddRateLimited("d")        // a retry, pending

	m = q.Metrics()
	assert.Equal(t, workqueue.MetricsSnapshot{
		Name:    "test",
		Depth:   1,
		Adds:    4,
		Retries: 3,
		QueueDuration: workqueue.Histogram{
			Count: 3,
			Sum:   6500 * time.Millisecond, // 1 + 4 + 1.5
			//                 10ns 100ns 1µs 10µs 100µs 1ms 10ms 100ms 1s 10s
			Buckets: [10]uint64{0, 0, 0, 0, 0, 0, 0, 0, 1, 3},
		},
		WorkDuration: workqueue.Histogram{
			Count:   3,
			Sum:     44 * time.Second, // 3.5 + 20.5 + 20
			Buckets: [10]uint64{0, 0, 0, 0, 0, 0, 0, 0, 0, 1},
		},
	}, m)

	at(25500 * time.Millisecond)
	m = q.Metrics()
	assert.Equal(t, 2, m.Depth, "c (queued) and d (come due); delayed items are not in the depth until due")
	assert.Equal(t, uint64(5), m.Adds)
}

// TestHistogramBuckets checks the bucket bounds and that each bucket counts
// the observations at or below its bound.
func TestHistogramBuckets(t *testing.T) {
	bounds := workqueue.BucketBounds()
	assert.Equal(t, [workqueue.NumBuckets]time.Duration{
		10 * time.Nanosecond, 100 * time.Nanosecond, time.Microsecond, 10 * time.Microsecond,
		100 * time.Microsecond, time.Millisecond, 10 * time.Millisecond, 100 * time.Millisecond,
		time.Second, 10 * time.Second,
	}, bounds)

	tests := []struct {
		wait      time.Duration
		wantFirst int // first bucket counting it; NumBuckets: only +Inf
	}{
		{0, 0},
		{10 * time.Nanosecond, 0},
		{11 * time.Nanosecond, 1},
		{time.Millisecond, 5},
		{time.Millisecond + 1, 6},
		{10 * time.Second, 9},
		{10*time.Second + 1, workqueue.NumBuckets},
	}
	for _, tt := range tests {
		t.Run(tt.wait.String(), func(t *testing.T) {
			q, clk := newQueue(true)
			q.Add("a")
			clk.Step(tt.wait)
			mustGet(t, q)
			h := q.Metrics().QueueDuration
			assert.Equal(t, uint64(1), h.Count)
			assert.Equal(t, tt.wait, h.Sum)
			for i, n := range h.Buckets {
				want := uint64(0)
				if i >= tt.wantFirst {
					want = 1
				}
				assert.Equal(t, want, n, "bucket %d (le %v)", i, bounds[i])
			}
		})
	}
}

func TestMetricsOff(t *testing.T) {
	q, clk := newQueue(false)
	q.Add("a")
	mustGet(t, q)
	clk.Step(time.Second)
	q.AddAfter("b", time.Second)
	assert.Equal(t, workqueue.MetricsSnapshot{Name: "test"}, q.Metrics())
}

// TestHistogramIsCumulativeOverManyObservations: observations in different
// buckets add up, each bucket counting everything at or below its bound.
func TestHistogramIsCumulativeOverManyObservations(t *testing.T) {
	q, clk := newQueue(true)
	waits := []time.Duration{5 * time.Nanosecond, 50 * time.Nanosecond, time.Millisecond, 20 * time.Second}
	for i, w := range waits {
		item := fmt.Sprint(i)
		q.Add(item)
		clk.Step(w)
		got := mustGet(t, q)
		q.Done(got)
	}
	h := q.Metrics().QueueDuration
	assert.Equal(t, uint64(len(waits)), h.Count)
	assert.Equal(t, 5*time.Nanosecond+50*time.Nanosecond+time.Millisecond+20*time.Second, h.Sum)
	assert.Equal(t, [workqueue.NumBuckets]uint64{1, 2, 2, 2, 2, 3, 3, 3, 3, 3}, h.Buckets,
		"20 s is above the last bound: only in Count")
}
