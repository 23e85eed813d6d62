package httpapi

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"
)

// latencyBuckets are the upper bounds, in seconds, of the request latency
// histogram (watches are counted but not timed: they last as long as the
// client wants).
var latencyBuckets = []float64{0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5}

// metrics counts API requests for /metrics: by verb, resource and code,
// with a latency histogram per verb and resource. Kubernetes:
// apiserver_request_total and apiserver_request_duration_seconds.
type metrics struct {
	// mu guards requests, latency and watches.
	mu       sync.Mutex
	requests map[requestKey]int64
	latency  map[latencyKey]*histogram
	watches  map[string]int64 // open watches by resource
}

type requestKey struct {
	verb, resource string
	code           int
}

type latencyKey struct{ verb, resource string }

// histogram is a cumulative Prometheus histogram: counts[i] is the number
// of observations at or below latencyBuckets[i].
type histogram struct {
	counts []int64
	count  int64
	sum    float64
}

func newMetrics() *metrics {
	return &metrics{requests: make(map[requestKey]int64), latency: make(map[latencyKey]*histogram), watches: make(map[string]int64)}
}

// watching counts a watch on resource as open (delta 1) or ended (-1).
// Kubernetes: apiserver_longrunning_requests.
func (m *metrics) watching(resource string, delta int64) {
	m.mu.Lock()
	m.watches[resource] += delta
	m.mu.Unlock()
}

// observe records one request.
func (m *metrics) observe(info requestInfo, code int, d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests[requestKey{info.verb, info.resource, code}]++
	if info.verb == "watch" {
		return
	}
	k := latencyKey{info.verb, info.resource}
	hg := m.latency[k]
	if hg == nil {
		hg = &histogram{counts: make([]int64, len(latencyBuckets))}
		m.latency[k] = hg
	}
	secs := d.Seconds()
	for i, b := range latencyBuckets {
		if secs <= b {
			hg.counts[i]++
		}
	}
	hg.count++
	hg.sum += secs
}

// serveMetrics answers /metrics in the Prometheus text format: the store,
// the objects per resource, the API requests, then Config.Metrics.
func (h *Handler) serveMetrics(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriter(w)
	h.writeStoreMetrics(bw)
	h.metrics.write(bw)
	if h.extra != nil {
		h.extra(bw)
	}
	_ = bw.Flush()
}

func (h *Handler) writeStoreMetrics(w io.Writer) {
	st := h.srv.Store().Stats()
	gauge(w, "miniplane_store_revision", "The store's current revision.", st.Rev)
	gauge(w, "miniplane_store_compacted_revision", "The oldest revision still readable (0 before any compaction).", st.CompactRev)
	gauge(w, "miniplane_store_keys", "Objects in the store.", int64(st.Keys))
	gauge(w, "miniplane_store_history_events", "Events in the store's watch history window.", int64(st.History))
	gauge(w, "miniplane_store_watchers", "Open store watches.", int64(st.Watchers))
	fmt.Fprintln(w, "# HELP apiserver_storage_objects Objects stored, per resource.")
	fmt.Fprintln(w, "# TYPE apiserver_storage_objects gauge")
	for _, r := range h.srv.Resources() {
		fmt.Fprintf(w, "apiserver_storage_objects{resource=%q} %d\n", r.GroupResource().String(), h.srv.Count(r.Name()))
	}
}

func gauge(w io.Writer, name, help string, v int64) {
	fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s gauge\n%s %d\n", name, help, name, name, v)
}

// write prints the request metrics, sorted so that the output is stable.
func (m *metrics) write(w io.Writer) {
	m.mu.Lock()
	defer m.mu.Unlock()
	reqs := make([]requestKey, 0, len(m.requests))
	for k := range m.requests {
		reqs = append(reqs, k)
	}
	slices.SortFunc(reqs, func(a, b requestKey) int {
		if c := cmp.Compare(a.verb, b.verb); c != 0 {
			return c
		}
		if c := cmp.Compare(a.resource, b.resource); c != 0 {
			return c
		}
		return a.code - b.code
	})
	fmt.Fprintln(w, "# HELP apiserver_request_total API requests, by verb, resource and HTTP code.")
	fmt.Fprintln(w, "# TYPE apiserver_request_total counter")
	for _, k := range reqs {
		fmt.Fprintf(w, "apiserver_request_total{verb=%q,resource=%q,code=\"%d\"} %d\n", k.verb, k.resource, k.code, m.requests[k])
	}
	fmt.Fprintln(w, "# HELP apiserver_longrunning_requests Open watches, by resource.")
	fmt.Fprintln(w, "# TYPE apiserver_longrunning_requests gauge")
	for _, r := range slices.Sorted(maps.Keys(m.watches)) {
		fmt.Fprintf(w, "apiserver_longrunning_requests{verb=\"watch\",resource=%q} %d\n", r, m.watches[r])
	}
	lat := make([]latencyKey, 0, len(m.latency))
	for k := range m.latency {
		lat = append(lat, k)
	}
	slices.SortFunc(lat, func(a, b latencyKey) int {
		if c := cmp.Compare(a.verb, b.verb); c != 0 {
			return c
		}
		return cmp.Compare(a.resource, b.resource)
	})
	fmt.Fprintln(w, "# HELP apiserver_request_duration_seconds API request latency, by verb and resource (watches excluded).")
	fmt.Fprintln(w, "# TYPE apiserver_request_duration_seconds histogram")
	for _, k := range lat {
		hg := m.latency[k]
		labels := fmt.Sprintf("verb=%q,resource=%q", k.verb, k.resource)
		for i, b := range latencyBuckets {
			fmt.Fprintf(w, "apiserver_request_duration_seconds_bucket{%s,le=%q} %d\n", labels, strconv.FormatFloat(b, 'g', -1, 64), hg.counts[i])
		}
		fmt.Fprintf(w, "apiserver_request_duration_seconds_bucket{%s,le=\"+Inf\"} %d\n", labels, hg.count)
		fmt.Fprintf(w, "apiserver_request_duration_seconds_sum{%s} %g\n", labels, hg.sum)
		fmt.Fprintf(w, "apiserver_request_duration_seconds_count{%s} %d\n", labels, hg.count)
	}
}
