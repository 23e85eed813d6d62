package ui

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"
	"strconv"
	"sync"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/workqueue"
	"github.com/miniplane/miniplane/store"
)

//go:embed static
var static embed.FS

// Lister reads objects at a revision: apiserver.Server's List.
type Lister interface {
	List(ctx context.Context, resource, namespace string, opts client.ListOptions) (*client.List, error)
}

// History is the store's history window: every write, with the state
// before and after it. *store.Store[api.Object] (apiserver.Server.Store)
// is one.
type History interface {
	// Watch streams the writes under prefix from revision fromRev on.
	Watch(prefix string, fromRev int64) (*store.Watcher[api.Object], error)
	// Stats says the current and the oldest readable revision.
	Stats() store.Stats
}

// Instance is one controller-manager instance's workqueues, as the page
// shows them.
type Instance struct {
	// Identity names the instance ("cm-1").
	Identity string
	// Leading says it holds the lease; only a leader runs controllers.
	Leading bool
	// Queues are its running controllers' workqueues (QueueMetrics).
	Queues []workqueue.MetricsSnapshot
}

// Config is what a Handler reads.
type Config struct {
	// Lister reads the cluster at a revision. Required.
	Lister Lister
	// History is the store's history window. Required.
	History History
	// Clock stamps snapshots. Required.
	Clock clock.Clock
	// Instances, when set, returns the controller-manager instances and
	// their workqueues now (the plane's manager.Instance.QueueMetrics).
	Instances func() []Instance
	// Causes, when set, knows exactly which reconcile made a write; the
	// timeline asks it first and infers the rest (see Inferred).
	Causes Causes
	// CustomKinds, when set, returns the custom kinds served now; the
	// page shows each with its objects and their owner links.
	CustomKinds func() []CustomKind
	// Lease names the leader-election Lease to show;
	// kube-system/kube-controller-manager when empty.
	LeaseNamespace, LeaseName string
}

// Handler serves the page and its API under /ui/. Create it with New.
type Handler struct {
	cfg Config
	mux *http.ServeMux
	// stop is closed when Run's context ends: live streams end with it,
	// so that an HTTP server's graceful shutdown need not wait for them.
	stop chan struct{}
	// streams counts the live streams, for Run to wait on.
	streams sync.WaitGroup
}

// New returns the handler of /ui/ (the page) and /ui/api/ (its data):
//
//	GET /ui/api/snapshot?revision=N     the cluster at N (latest when absent)
//	GET /ui/api/timeline?...            writes in the history window (see TimelineQuery)
//	GET /ui/api/diff?from=A&to=B        what changed between two revisions
//	GET /ui/api/watch?after=N&...       timeline rows after N as server-sent events
//
// Every refusal is a Kubernetes Status body with its code.
func New(cfg Config) (*Handler, error) {
	if cfg.Lister == nil || cfg.History == nil || cfg.Clock == nil {
		return nil, errors.New("ui: Config needs a Lister, a History and a Clock")
	}
	if cfg.LeaseName == "" {
		cfg.LeaseNamespace, cfg.LeaseName = "kube-system", "kube-controller-manager"
	}
	h := &Handler{cfg: cfg, mux: http.NewServeMux(), stop: make(chan struct{})}
	files, err := fs.Sub(static, "static")
	if err != nil {
		return nil, err
	}
	h.mux.Handle("/ui/", http.StripPrefix("/ui/", http.FileServerFS(files)))
	h.mux.HandleFunc("GET /ui/api/snapshot", h.serveSnapshot)
	h.mux.HandleFunc("GET /ui/api/timeline", h.serveTimeline)
	h.mux.HandleFunc("GET /ui/api/diff", h.serveDiff)
	h.mux.HandleFunc("GET /ui/api/watch", h.serveWatch)
	// The trace view opens a trace file here too (it has no run of its own).
	trace, err := NewTraceHandler(nil)
	if err != nil {
		return nil, err
	}
	h.mux.Handle(TracePage, trace)
	h.mux.Handle(TraceAPI, trace)
	h.mux.HandleFunc("/ui/api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, apierrors.NewNotFound(apierrors.GroupResource{Resource: "ui"}, r.URL.Path))
	})
	return h, nil
}

// Run returns when ctx ends, after ending every live stream (the watch
// endpoint's); streams opened afterwards end at once. Serve the handler
// without Run and its streams end only with their requests.
func (h *Handler) Run(ctx context.Context) {
	<-ctx.Done()
	close(h.stop)
	h.streams.Wait()
}

// ServeHTTP serves /ui/ and /ui/api/; other paths are 404. The page only
// reads: any method but GET and HEAD is a 405 Status, but for a trace file
// posted to the trace view (TraceAPI), which it replays and stores nowhere.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead && !(r.Method == http.MethodPost && r.URL.Path == TraceAPI) {
		writeError(w, apierrors.NewMethodNotSupported(apierrors.GroupResource{Resource: "ui"}, r.Method))
		return
	}
	h.mux.ServeHTTP(w, r)
}

// writeJSON writes v with code 200.
func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if err := json.NewEncoder(w).Encode(v); err != nil {
		return // the client went away; nothing else to tell it
	}
}

// writeError writes err as a Kubernetes Status with its code.
func writeError(w http.ResponseWriter, err error) {
	var se *apierrors.StatusError
	if !errors.As(err, &se) {
		se = apierrors.NewInternalError(err)
	}
	st := se.Status
	if st.Kind == "" {
		st.Kind, st.APIVersion = "Status", "v1"
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(int(st.Code))
	_ = json.NewEncoder(w).Encode(st)
}

// revisionParam reads an optional revision parameter: 0 when absent.
func revisionParam(r *http.Request, name string) (int64, error) {
	s := r.URL.Query().Get(name)
	if s == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 1 {
		return 0, apierrors.NewBadRequest(name + " must be a revision, a positive integer; got " + strconv.Quote(s))
	}
	return n, nil
}

// window returns the oldest revision still readable and the current one.
func (h *Handler) window() (oldest, current int64) {
	st := h.cfg.History.Stats()
	return max(st.CompactRev, 1), st.Rev
}

// checkRevision refuses a revision outside the history window: 410 Gone
// for one compacted away, 400 for one not written yet.
func (h *Handler) checkRevision(rev int64) error {
	oldest, current := h.window()
	switch {
	case rev < oldest:
		return compacted(rev, oldest)
	case rev > current:
		return apierrors.NewBadRequest("revision " + strconv.FormatInt(rev, 10) + " has not been written yet; the current is " + strconv.FormatInt(current, 10))
	}
	return nil
}

// compacted is the 410 of a revision that has left the history window.
func compacted(rev, oldest int64) error {
	return apierrors.NewGone("revision " + strconv.FormatInt(rev, 10) + " has been compacted; the oldest kept is " + strconv.FormatInt(oldest, 10))
}
