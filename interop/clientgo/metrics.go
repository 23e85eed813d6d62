package clientgo

import (
	"math"
	"sync"
	"sync/atomic"

	"k8s.io/client-go/util/workqueue"
)

// MemoryMetrics is a client-go workqueue.MetricsProvider that keeps each
// named queue's metrics in memory. Each observation does what a Prometheus
// metric does on the hot path — an atomic add per counter or gauge step, a
// bucket search and atomic adds per histogram observation — and nothing is
// exported, so the queue's cost with metrics on is measured without an HTTP
// endpoint or a registry. Its histograms have the buckets of
// k8s.io/component-base's workqueue metrics (and of miniplane's queue):
// 1e-8·10^k seconds, k = 0..9. The zero value is ready to use; it is safe
// for concurrent use.
type MemoryMetrics struct {
	mu     sync.Mutex
	queues map[string]*QueueMetrics // guarded by mu
}

var _ workqueue.MetricsProvider = (*MemoryMetrics)(nil)

// QueueMetrics are the metrics of one named queue, as client-go defines them.
type QueueMetrics struct {
	Depth                   Gauge     // workqueue_depth
	Adds                    Counter   // workqueue_adds_total
	Latency                 Histogram // workqueue_queue_duration_seconds
	WorkDuration            Histogram // workqueue_work_duration_seconds
	UnfinishedWorkSeconds   Gauge     // workqueue_unfinished_work_seconds
	LongestRunningProcessor Gauge     // workqueue_longest_running_processor_seconds
	Retries                 Counter   // workqueue_retries_total
}

// Queue returns the metrics of the queue called name, made on first use.
func (m *MemoryMetrics) Queue(name string) *QueueMetrics {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.queues == nil {
		m.queues = make(map[string]*QueueMetrics)
	}
	q, ok := m.queues[name]
	if !ok {
		q = &QueueMetrics{}
		m.queues[name] = q
	}
	return q
}

// NewDepthMetric implements workqueue.MetricsProvider.
func (m *MemoryMetrics) NewDepthMetric(name string) workqueue.GaugeMetric {
	return &m.Queue(name).Depth
}

// NewAddsMetric implements workqueue.MetricsProvider.
func (m *MemoryMetrics) NewAddsMetric(name string) workqueue.CounterMetric {
	return &m.Queue(name).Adds
}

// NewLatencyMetric implements workqueue.MetricsProvider.
func (m *MemoryMetrics) NewLatencyMetric(name string) workqueue.HistogramMetric {
	return &m.Queue(name).Latency
}

// NewWorkDurationMetric implements workqueue.MetricsProvider.
func (m *MemoryMetrics) NewWorkDurationMetric(name string) workqueue.HistogramMetric {
	return &m.Queue(name).WorkDuration
}

// NewUnfinishedWorkSecondsMetric implements workqueue.MetricsProvider.
func (m *MemoryMetrics) NewUnfinishedWorkSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return &m.Queue(name).UnfinishedWorkSeconds
}

// NewLongestRunningProcessorSecondsMetric implements workqueue.MetricsProvider.
func (m *MemoryMetrics) NewLongestRunningProcessorSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return &m.Queue(name).LongestRunningProcessor
}

// NewRetriesMetric implements workqueue.MetricsProvider.
func (m *MemoryMetrics) NewRetriesMetric(name string) workqueue.CounterMetric {
	return &m.Queue(name).Retries
}

// Counter is a counter that only goes up.
type Counter struct{ n atomic.Uint64 }

// Inc adds one.
func (c *Counter) Inc() { c.n.Add(1) }

// Value returns the count.
func (c *Counter) Value() uint64 { return c.n.Load() }

// Gauge is a value that goes up and down, by steps or by Set.
type Gauge struct{ bits atomic.Uint64 } // a float64

// Inc adds one.
func (g *Gauge) Inc() { g.add(1) }

// Dec subtracts one.
func (g *Gauge) Dec() { g.add(-1) }

// Set sets the value.
func (g *Gauge) Set(v float64) { g.bits.Store(math.Float64bits(v)) }

// Value returns the value.
func (g *Gauge) Value() float64 { return math.Float64frombits(g.bits.Load()) }

func (g *Gauge) add(d float64) { addFloat(&g.bits, d) }

// addFloat adds d to the float64 held in bits, as Prometheus does.
func addFloat(bits *atomic.Uint64, d float64) {
	for {
		old := bits.Load()
		if bits.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+d)) {
			return
		}
	}
}

// numBuckets is the number of finite buckets of a Histogram.
const numBuckets = 10

// Histogram counts observations (in seconds) into buckets bounded by
// 1e-8·10^k, k = 0..9, and one for larger values.
type Histogram struct {
	count   atomic.Uint64
	sumBits atomic.Uint64 // a float64
	buckets [numBuckets + 1]atomic.Uint64
}

// Observe records one observation.
func (h *Histogram) Observe(v float64) {
	i, bound := 0, 1e-8
	for i < numBuckets && v > bound {
		i, bound = i+1, bound*10
	}
	h.buckets[i].Add(1)
	addFloat(&h.sumBits, v)
	h.count.Add(1)
}

// Count returns the number of observations.
func (h *Histogram) Count() uint64 { return h.count.Load() }
