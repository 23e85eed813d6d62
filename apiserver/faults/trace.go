package faults

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// Event is one line of the trace: a request as it arrives (Fault empty),
// or a fault as it strikes.
type Event struct {
	// Time is the injected clock's time.
	Time time.Time `json:"time"`
	// Client is the request's client: ClientOf its User-Agent.
	Client string `json:"client"`
	// Verb is the Kubernetes verb (get, list, watch, create, update,
	// patch, delete, deletecollection), or the lower-case HTTP method of a
	// request that is not on a resource.
	Verb string `json:"verb"`
	// Resource is the resource with its subresource ("pods/status") and,
	// outside the core group, its group ("leases.coordination.k8s.io");
	// empty when the request is not on a resource.
	Resource string `json:"resource"`
	// Key is "namespace/name", "name" for a cluster-scoped object,
	// "namespace/" for a collection in a namespace, "" across namespaces;
	// the URL path when the request is not on a resource.
	Key string `json:"key"`
	// Selector is the request's label selector and field selector
	// ("fields: ..."), when it has them.
	Selector string `json:"selector,omitempty"`
	// Revision is the store's revision when the line was written, or the
	// revision a stale read was served at.
	Revision int64 `json:"revision"`
	// Fault is the kind of fault that struck (Kind.String), empty on a
	// request's own line.
	Fault string `json:"fault"`
	// Detail says how it struck: the delay, the Status, the revision.
	Detail string `json:"detail,omitempty"`
}

// tracer writes the trace and counts the faults.
type tracer struct {
	// mu guards w: each line is written whole, in one Write.
	mu sync.Mutex
	w  io.Writer // nil: no trace

	counts [numKinds]atomic.Int64
}

func newTracer(w io.Writer) *tracer { return &tracer{w: w} }

// request writes a request's line.
func (t *tracer) request(ev Event) { t.write(ev) }

// fault counts a fault and writes its line.
func (t *tracer) fault(ev Event, k Kind) {
	t.counts[k].Add(1)
	t.write(ev)
}

func (t *tracer) write(ev Event) {
	if t.w == nil {
		return
	}
	ev.Time = ev.Time.UTC()
	b, err := json.Marshal(ev)
	if err != nil {
		return // an Event always encodes
	}
	b = append(b, '\n')
	t.mu.Lock()
	defer t.mu.Unlock()
	_, _ = t.w.Write(b) // a failing trace writer must not fail the API
}

// Count returns how many faults of kind k have struck so far.
func (in *Injector) Count(k Kind) int64 {
	if k >= numKinds {
		return 0
	}
	return in.trace.counts[k].Load()
}

// WriteMetrics writes the fault counts in the Prometheus text format, one
// sample per kind (zeros included, in Kind order), for
// httpapi.Config.Metrics to append to /metrics:
//
//	miniplane_injected_faults_total{fault="stale"} 3
func (in *Injector) WriteMetrics(w io.Writer) {
	fmt.Fprintln(w, "# HELP miniplane_injected_faults_total Faults injected at the API layer, by kind.")
	fmt.Fprintln(w, "# TYPE miniplane_injected_faults_total counter")
	for _, k := range Kinds() {
		fmt.Fprintf(w, "miniplane_injected_faults_total{fault=%q} %d\n", k.String(), in.Count(k))
	}
}
