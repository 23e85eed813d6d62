package faults

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver/httpapi"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
)

// The ranges the faults' parameters are drawn from.
const (
	// DefaultRate is the chance of each enabled fault striking a request it
	// applies to when Config.Rate is 0.
	DefaultRate = 0.05
	// MinLatency and MaxLatency bound the delay of a Latency fault.
	MinLatency = 10 * time.Millisecond
	MaxLatency = 500 * time.Millisecond
	// MinLag and MaxLag bound the delay of every event of a lagging watch.
	MinLag = 100 * time.Millisecond
	MaxLag = 2 * time.Second
	// MaxEventsBeforeClose bounds the events a WatchClose lets through
	// (at least one).
	MaxEventsBeforeClose = 10
	// MaxRetryAfterSeconds bounds the Retry-After of a Throttle (at least
	// one second).
	MaxRetryAfterSeconds = 2
	// MaxStaleRevisions bounds how far behind the store's revision a stale
	// read is served; the store's history window bounds it too.
	MaxStaleRevisions = 50
)

// Config configures an Injector. Handler, Clock and Rand are required.
type Config struct {
	// Handler is the API the Injector stands in front of: it routes
	// requests as the Handler does, answers its refusals in the Handler's
	// formats and serves stale reads through it from the Handler's Server.
	Handler *httpapi.Handler
	// Clock times latency and lag, and stamps the trace.
	Clock clock.Clock
	// Rand is the seed: New takes the key of every later draw from it
	// once, and never touches it again.
	Rand *rand.Rand
	// Faults are the kinds that may strike; the zero value is none, and
	// the Injector is then transparent.
	Faults Set
	// Rate is the chance, in [0, 1], of each enabled fault striking a
	// request it applies to; 0 means DefaultRate.
	Rate float64
	// Trace, when set, receives one JSON line per request and one per
	// fault (see Event).
	Trace io.Writer
	// Logger receives a debug line per fault; nil means none.
	Logger *zap.Logger
}

// Injector is an http.Handler in front of an httpapi.Handler that injects
// faults drawn from a seed. Create it with New; it is safe for concurrent
// use.
//
// Draws: every request on a resource belongs to a stream, named by its
// client (ClientOf its User-Agent, which does not depend on the binary's
// name or platform), verb, resource and subresource, namespace, name,
// and label and field selectors. The n-th request of a stream draws from
// its own PCG generator, seeded with the key New took from Config.Rand
// mixed with a hash of the stream's name and with n, and always draws the
// same values in the same order: one chance per Kind, then every
// parameter. So which faults strike a request depends only on the seed and
// on the requests that came before it in its stream, not on how requests
// of different streams interleave, nor on which faults are enabled: a
// controller's workers updating different objects, or informers watching
// different resources, do not shift each other's draws.
type Injector struct {
	next   *httpapi.Handler
	srv    httpapi.Backend
	clock  clock.Clock
	faults Set
	rate   float64
	key    [2]uint64
	log    *zap.Logger
	trace  *tracer

	// mu guards streams: the requests seen so far per stream.
	mu      sync.Mutex
	streams map[string]uint64
}

var _ http.Handler = (*Injector)(nil)

// New returns an Injector in front of cfg.Handler. It starts nothing.
func New(cfg Config) (*Injector, error) {
	switch {
	case cfg.Handler == nil || cfg.Clock == nil || cfg.Rand == nil:
		return nil, errors.New("faults: Config needs a Handler, a Clock and a Rand")
	case cfg.Rate < 0 || cfg.Rate > 1:
		return nil, fmt.Errorf("faults: Rate %v is not in [0, 1]", cfg.Rate)
	case cfg.Faults&^All != 0:
		return nil, fmt.Errorf("faults: Faults %#x names kinds that do not exist", uint16(cfg.Faults))
	}
	rate := cfg.Rate
	if rate == 0 {
		rate = DefaultRate
	}
	log := cfg.Logger
	if log == nil {
		log = zap.NewNop()
	}
	return &Injector{
		next: cfg.Handler, srv: cfg.Handler.Server(), clock: cfg.Clock, faults: cfg.Faults, rate: rate,
		key:     [2]uint64{cfg.Rand.Uint64(), cfg.Rand.Uint64()},
		log:     log.Named("faults"),
		trace:   newTracer(cfg.Trace),
		streams: make(map[string]uint64),
	}, nil
}

// ServeHTTP records r in the trace, draws its faults and serves it through
// the Handler with those that strike. A request that is not on a resource
// (discovery, health, /metrics) passes through untouched.
func (in *Injector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	route, ok := in.next.RouteOf(r)
	if !ok {
		in.trace.request(Event{Time: in.now(), Client: ClientOf(r.UserAgent()), Verb: strings.ToLower(r.Method), Key: r.URL.Path, Revision: in.srv.Store().Rev()})
		in.next.ServeHTTP(w, r)
		return
	}
	q := r.URL.Query()
	ev := Event{Time: in.now(), Client: ClientOf(r.UserAgent()), Verb: route.Verb, Resource: resourceOf(route), Key: keyOf(route),
		Selector: selectorOf(q), Revision: in.srv.Store().Rev()}
	in.trace.request(ev)
	p := in.plan(in.draw(streamOf(ev.Client, route, q)), route, q)

	if p.latency > 0 {
		in.strike(ev, Latency, 0, p.latency.String())
		t := in.clock.NewTimer(p.latency)
		select {
		case <-t.C():
		case <-r.Context().Done():
			t.Stop()
			return // the client went away
		}
	}
	if p.refuse != nil {
		in.strike(ev, p.refuseKind, 0, p.refuse.Error())
		httpapi.WriteStatus(w, r, p.refuse)
		return
	}
	switch {
	case p.stale:
		in.serveStale(w, r, route, ev, p)
	case route.Verb == "watch" && (p.gone || p.closeAfter > 0 || p.lag > 0):
		in.serveWatch(w, r, ev, p)
	default:
		in.next.ServeHTTP(w, r)
	}
}

// plan is what the draws decided for one request.
type plan struct {
	latency    time.Duration          // wait this long first; 0 for no Latency
	refuse     *apierrors.StatusError // answer this instead; nil to serve
	refuseKind Kind                   // the fault refuse comes from
	stale      bool                   // serve the read at an older revision
	staleFloor int64                  // the oldest revision the read allows
	staleFrac  float64                // where in the allowed range, in [0, 1)
	gone       bool                   // answer the watch with 410 Expired
	goneFrom   int64                  // the resourceVersion the watch resumes from
	closeAfter int                    // end the watch after this many events; 0 never
	lag        time.Duration          // delay each event of the watch by this
}

// draws are the values one request draws, always all of them, in this
// order.
type draws struct {
	chance     [numKinds]float64
	latency    time.Duration
	lag        time.Duration
	closeAfter int
	retryAfter int32
	staleFrac  float64
}

// draw takes the draws of the next request of stream.
func (in *Injector) draw(stream string) draws {
	in.mu.Lock()
	n := in.streams[stream]
	in.streams[stream] = n + 1
	in.mu.Unlock()
	rng := rand.New(rand.NewPCG(in.key[0]^fnv64a(stream), in.key[1]^mix64(n)))
	var d draws
	for k := range d.chance {
		d.chance[k] = rng.Float64()
	}
	d.latency = MinLatency + time.Duration(rng.Int64N(int64(MaxLatency-MinLatency)))
	d.lag = MinLag + time.Duration(rng.Int64N(int64(MaxLag-MinLag)))
	d.closeAfter = 1 + rng.IntN(MaxEventsBeforeClose)
	d.retryAfter = 1 + rng.Int32N(MaxRetryAfterSeconds)
	d.staleFrac = rng.Float64()
	return d
}

// plan decides which faults strike a request from its draws: each enabled
// kind that applies to the request strikes when its chance is under the
// rate. Of the refusals, Throttle comes first, then Error, then Conflict.
func (in *Injector) plan(d draws, route httpapi.Route, q url.Values) plan {
	strikes := func(k Kind) bool { return in.faults.Has(k) && d.chance[k] < in.rate }
	var p plan
	if strikes(Latency) {
		p.latency = d.latency
	}
	gr := route.Resource.GroupResource()
	switch {
	case strikes(Throttle):
		p.refuse, p.refuseKind = apierrors.NewTooManyRequests("Too many requests, please try again later.", d.retryAfter), Throttle
		return p
	case strikes(Error):
		p.refuse, p.refuseKind = apierrors.NewInternalError(errors.New("etcdserver: request timed out")), Error
		return p
	case route.Verb == "update" && strikes(Conflict):
		p.refuse, p.refuseKind = apierrors.NewConflict(gr, route.Name, apierrors.ConflictModified), Conflict
		return p
	}
	if route.Verb == "watch" {
		if from, ok := resumesFrom(q); ok && strikes(Gone) {
			p.gone, p.goneFrom = true, from
			return p
		}
		if strikes(WatchClose) {
			p.closeAfter = d.closeAfter
		}
		if strikes(Lag) {
			p.lag = d.lag
		}
		return p
	}
	if floor, ok := staleFloor(route, q); ok && strikes(Stale) {
		p.stale, p.staleFloor, p.staleFrac = true, floor, d.staleFrac
	}
	return p
}

// resumesFrom reports whether a watch resumes from a resourceVersion (not
// unset, not "0") and which.
func resumesFrom(q url.Values) (int64, bool) {
	rv := q.Get("resourceVersion")
	if rv == "" || rv == "0" {
		return 0, false
	}
	n, err := strconv.ParseInt(rv, 10, 64)
	return n, err == nil && n > 0
}

// staleFloor reports whether a read may be served from an older revision
// than the latest, and the oldest revision it allows. It follows
// Kubernetes' resourceVersion semantics for reads: unset is a quorum read
// of the latest state and never stale; "0" allows any state; "N" on a GET,
// or on a LIST with resourceVersionMatch=NotOlderThan (or no match and no
// limit), allows any state not older than N; a LIST at an exact revision
// or continuing a paged list is already pinned. Subresources are read at
// the latest state.
func staleFloor(route httpapi.Route, q url.Values) (int64, bool) {
	rv := q.Get("resourceVersion")
	if rv == "" || route.Subresource != "" {
		return 0, false // a quorum read: never stale, by construction
	}
	var floor int64
	if rv != "0" {
		n, err := strconv.ParseInt(rv, 10, 64)
		if err != nil || n <= 0 {
			return 0, false // the Handler refuses it
		}
		floor = n
	}
	switch route.Verb {
	case "get":
		return floor, route.Plain
	case "list":
		if q.Get("continue") != "" {
			return 0, false
		}
		switch q.Get("resourceVersionMatch") {
		case client.MatchNotOlderThan:
			return floor, true
		case "":
			limit := q.Get("limit")
			return floor, rv == "0" || limit == "" || limit == "0"
		}
	}
	return 0, false
}

// streamOf names the stream a request belongs to (see Injector).
func streamOf(cl string, route httpapi.Route, q url.Values) string {
	return strings.Join([]string{cl, route.Verb, resourceOf(route), route.Namespace, route.Name,
		q.Get("labelSelector"), q.Get("fieldSelector")}, "\x00")
}

// selectorOf is a request's label and field selectors as the trace shows
// them: "run-for=job-0", "fields: metadata.name=x", both joined by "; ".
func selectorOf(q url.Values) string {
	var parts []string
	if l := q.Get("labelSelector"); l != "" {
		parts = append(parts, l)
	}
	if f := q.Get("fieldSelector"); f != "" {
		parts = append(parts, "fields: "+f)
	}
	return strings.Join(parts, "; ")
}

// resourceOf names a route's resource as the trace does: "pods",
// "pods/status", "leases.coordination.k8s.io".
func resourceOf(route httpapi.Route) string {
	s := route.Resource.GroupResource().String()
	if route.Subresource != "" {
		s += "/" + route.Subresource
	}
	return s
}

// keyOf names a route's object as the trace does: "namespace/name",
// "name" when cluster-scoped, "namespace/" for a collection in a
// namespace, "" across namespaces.
func keyOf(route httpapi.Route) string {
	if route.Namespace == "" {
		return route.Name
	}
	return route.Namespace + "/" + route.Name
}

// strike records a fault: in the trace, in the counts, in the log.
func (in *Injector) strike(ev Event, k Kind, rev int64, detail string) {
	ev.Time = in.now()
	ev.Fault, ev.Detail = k.String(), detail
	if rev != 0 {
		ev.Revision = rev
	} else {
		ev.Revision = in.srv.Store().Rev()
	}
	in.trace.fault(ev, k)
	in.log.Debug("injected a fault", zap.String("fault", ev.Fault), zap.String("client", ev.Client),
		zap.String("verb", ev.Verb), zap.String("resource", ev.Resource), zap.String("key", ev.Key), zap.String("detail", detail))
}

func (in *Injector) now() time.Time { return in.clock.Now() }

// fnv64a is the FNV-1a hash of s.
func fnv64a(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// mix64 spreads the bits of n (splitmix64's finalizer), so that
// consecutive counts seed unrelated generators.
func mix64(n uint64) uint64 {
	n += 0x9e3779b97f4a7c15
	n = (n ^ n>>30) * 0xbf58476d1ce4e5b9
	n = (n ^ n>>27) * 0x94d049bb133111eb
	return n ^ n>>31
}
