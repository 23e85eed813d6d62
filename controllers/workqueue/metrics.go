package workqueue

import "time"

// NumBuckets is the number of finite buckets in a Histogram.
const NumBuckets = 10

// BucketBounds returns the upper bounds of a Histogram's buckets: client-go's
// workqueue buckets, 10 ns to 10 s by powers of ten (1e-8·10^k seconds,
// k = 0..9; Prometheus' ExponentialBuckets(10e-9, 10, 10)).
func BucketBounds() [NumBuckets]time.Duration {
	var b [NumBuckets]time.Duration
	d := 10 * time.Nanosecond
	for i := range b {
		b[i] = d
		d *= 10
	}
	return b
}

// Histogram is a fixed-bucket histogram of durations, shaped as Prometheus
// exposes one.
type Histogram struct {
	// Count is the number of observations.
	Count uint64
	// Sum is the total of the observations.
	Sum time.Duration
	// Buckets[i] counts the observations at or below BucketBounds()[i]; the
	// counts are cumulative, like Prometheus' "le" buckets, and observations
	// above the last bound are counted only in Count (the +Inf bucket).
	Buckets [NumBuckets]uint64
}

// histogram is what a queue records as it goes: like Histogram, but each
// observation counts in its own bucket only (one increment, not up to ten),
// and snapshot makes the counts cumulative when the metrics are read.
type histogram struct {
	count   uint64
	sum     time.Duration
	buckets [NumBuckets]uint64 // buckets[i]: observations in (bound i-1, bound i]
}

// observe records one duration: a few comparisons, as most durations fall
// in the first buckets.
func (h *histogram) observe(d time.Duration) {
	h.count++
	h.sum += d
	bound := 10 * time.Nanosecond
	for i := range h.buckets {
		if d <= bound {
			h.buckets[i]++
			return
		}
		bound *= 10
	}
	// Above the last bound: counted only in count (the +Inf bucket).
}

// snapshot returns h in Prometheus' cumulative form.
func (h *histogram) snapshot() Histogram {
	out := Histogram{Count: h.count, Sum: h.sum}
	var total uint64
	for i, n := range h.buckets {
		total += n
		out.Buckets[i] = total
	}
	return out
}

// MetricsSnapshot is a copy of a queue's metrics at one instant, with
// client-go's semantics. Each field names the Prometheus metric that
// k8s.io/component-base exports for it (label name = Name); durations there
// are in seconds.
type MetricsSnapshot struct {
	// Name is Config.Name.
	Name string
	// Depth is the number of items waiting to be processed: queued ones
	// plus in-flight ones that were added again and will be queued on Done.
	// Delayed items are not counted. (workqueue_depth)
	Depth int
	// InFlight is the number of items workers hold, between Get and Done.
	InFlight int
	// Adds counts the adds that made an item waiting; duplicates that
	// collapsed into a waiting item are not counted. (workqueue_adds_total)
	Adds uint64
	// Retries counts the AddAfter calls the queue accepted, including those
	// from AddRateLimited and those with no delay. (workqueue_retries_total)
	Retries uint64
	// QueueDuration is the time from the add that made an item waiting to
	// the Get that handed it out. (workqueue_queue_duration_seconds)
	QueueDuration Histogram
	// WorkDuration is the time from Get to Done. (workqueue_work_duration_seconds)
	WorkDuration Histogram
	// UnfinishedWork is the total time the in-flight items have been in
	// flight so far: large values mean stuck workers.
	// (workqueue_unfinished_work_seconds)
	UnfinishedWork time.Duration
	// LongestRunningProcessor is how long the oldest in-flight item has been
	// in flight. (workqueue_longest_running_processor_seconds)
	LongestRunningProcessor time.Duration
}

// metrics is what a queue with Config.Metrics records as it goes; the
// unfinished-work figures are computed from the in-flight items when a
// snapshot is taken, so no ticker is needed.
type metrics struct {
	depth         int
	adds, retries uint64
	queueDuration histogram
	workDuration  histogram
}

// Metrics returns a copy of the queue's metrics, read from the clock now. It
// is all zero but Name when Config.Metrics was false. It walks the items in
// flight, so it costs time in proportion to the most items ever in flight at
// once. The unfinished-work
// sums are in integer nanoseconds, so they do not depend on map order.
func (q *Queue[T]) Metrics() MetricsSnapshot {
	q.mu.Lock()
	defer q.mu.Unlock()
	s := MetricsSnapshot{Name: q.name}
	if !q.metricsOn {
		return s
	}
	s.Depth = q.m.depth
	s.InFlight = q.processing
	s.Adds = q.m.adds
	s.Retries = q.m.retries
	s.QueueDuration = q.m.queueDuration.snapshot()
	s.WorkDuration = q.m.workDuration.snapshot()
	if q.processing > 0 {
		now := q.now()
		for _, f := range q.flights {
			if !f.inUse {
				continue
			}
			age := now - f.started
			s.UnfinishedWork += age
			s.LongestRunningProcessor = max(s.LongestRunningProcessor, age)
		}
	}
	return s
}
