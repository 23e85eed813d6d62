package httpapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/apiserver/patch"
	"github.com/miniplane/miniplane/apiserver/serviceaccount"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
)

// MaxBodyBytes is the largest request body accepted (3 MiB, as
// kube-apiserver's limit on a JSON object); larger ones get 413.
const MaxBodyBytes = 3 << 20

// Backend is what the HTTP front calls on the API server, and all it
// calls: *apiserver.Server implements it. Every request becomes one or two
// of these calls; the front adds only HTTP (routing, negotiation, bodies,
// tables, patches, watch streams).
type Backend interface {
	client.Client
	Resources() []apiserver.ResourceInfo
	Count(resource string) int
	BookmarkInterval() time.Duration
	GetScale(ctx context.Context, resource, namespace, name string) (*api.Scale, error)
	UpdateScale(ctx context.Context, resource, namespace string, scale *api.Scale, opts ...client.WriteOption) (*api.Scale, error)
	Bind(ctx context.Context, namespace, name, node string) (*api.Pod, error)
	Evict(ctx context.Context, eviction *api.Eviction) (*api.Pod, error)
	FinalizeNamespace(ctx context.Context, ns *api.Namespace, opts ...client.WriteOption) (*api.Namespace, error)
	UpdateApproval(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error)
	UpdateEphemeralContainers(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error)
	DeleteCollection(ctx context.Context, resource, namespace string, listOpts client.ListOptions, opts api.DeleteOptions) (*client.List, error)
	Store() apiserver.StoreReader
	// ResourceEpoch moves when the served resources change (a
	// CustomResourceDefinition established or removed).
	ResourceEpoch() uint64
	// UnknownFields names the fields of a custom resource its schema
	// prunes, for fieldValidation.
	UnknownFields(obj api.Object) []string
}

var _ Backend = (*apiserver.Server)(nil)

// Config configures a Handler. Server and Clock are required.
type Config struct {
	// Server is the API server the requests go to (an *apiserver.Server).
	Server Backend
	// Clock gives the ages in tables and the timing of watch timeouts and
	// bookmarks.
	Clock clock.Clock
	// Logger receives structured logs; nil means none.
	Logger *zap.Logger
	// Token, when not empty, is the bearer token every request but
	// /healthz, /livez, /readyz and /version must carry (Authorization:
	// Bearer <token>); others get 401. As kube-apiserver's
	// system:public-info-viewer role allows, those endpoints are public
	// but one check's path (/readyz/<check>), which says why it fails, is
	// not.
	Token string
	// Metrics, when set, writes extra Prometheus text (such as workqueue
	// figures) at the end of /metrics.
	Metrics func(w io.Writer)
	// Logs, when set, serves pods/{name}/log (kubectl logs); nil answers
	// 400 for a bound pod, as there is no kubelet to ask.
	Logs LogSource
	// Proxy, when set, answers what pods/{name}/proxy, services/{name}/proxy
	// and nodes/{name}/proxy send on (proxy.go); nil answers them 405.
	Proxy ProxyBackend
	// Exec, when set, serves pods/{name}/exec (kubectl exec) over a
	// websocket; nil answers 405, as there is no kubelet to run it.
	Exec Executor
	// HealthChecks are the caller's checks of /healthz, /livez and /readyz
	// alike (kube-apiserver's AddHealthChecks); ReadyChecks are its checks
	// of /readyz only (AddReadyzChecks), such as whether caches have synced
	// or a controller manager leads. They print after the handler's own
	// ping and etcd, and before /readyz's shutdown. Names must be unique.
	HealthChecks []HealthChecker
	ReadyChecks  []HealthChecker
	// Idle, when set, says why the named kube-controller-manager
	// controller does not act on this server's objects ("miniplane has
	// none"), or "" when it does. The creation of an object whose
	// controller is idle (ResourceInfo.ActedOnBy) carries a Warning that
	// says so, which kubectl prints. nil: every controller is taken to run.
	Idle func(controller string) string
	// Authorizer, when set, decides every request but the public paths
	// (kube-apiserver's --authorization-mode=RBAC) and answers the access
	// reviews; nil allows everything (AlwaysAllow).
	Authorizer Authorizer
	// ServiceAccountTokens, when set, serves the TokenRequest API
	// (serviceaccounts/{name}/token) and takes the tokens it issued as
	// their service accounts.
	ServiceAccountTokens *serviceaccount.Issuer
}

// Handler serves the Kubernetes API over HTTP. Create it with New; it is
// an http.Handler safe for concurrent use.
type Handler struct {
	srv     Backend
	clock   clock.Clock
	log     *zap.Logger
	token   string
	extra   func(io.Writer)
	logs    LogSource
	proxy   ProxyBackend
	exec    Executor
	idle    func(controller string) string
	authz   Authorizer
	tokens  TokenAuthenticator
	issuer  *serviceaccount.Issuer
	health  healthChecks
	metrics *metrics
	// encodings is shared by the watch streams (see encodings).
	encodings *encodings
	// fields computes the managedFields of a create from the typed object.
	fields patch.FieldTracker

	// reviews are the review APIs' group versions (auth.go): in byPath and
	// discovery, but not Server resources.
	reviews []*groupVersion
	// rt is the routes of the Server's resources as they were at its
	// ResourceEpoch; rtMu serializes their rebuilding when a
	// CustomResourceDefinition changes the set (see currentRoutes).
	rt   atomic.Pointer[routes]
	rtMu sync.Mutex

	// mu guards closed and the Add side of watches: a watch starts only
	// while the handler is open, so Shutdown's Wait sees every watch.
	mu      sync.Mutex
	closed  bool
	done    chan struct{} // closed by Shutdown
	watches sync.WaitGroup
}

// routes are what the served resources decide: paths, discovery, the kinds
// a body may name and the OpenAPI documents. One value is never changed;
// a change of the served set makes a new one.
type routes struct {
	epoch uint64
	// groups are the served group versions, core first; byPath finds a
	// group version by its path prefix ("api/v1", "apis/coordination.k8s.io/v1").
	groups []*groupVersion
	byPath map[string]*groupVersion
	// kinds are the kinds a request body may name: the served resources',
	// their subresources' and requestKinds.
	kinds map[typeMeta]bool
	// openapi returns the OpenAPI documents of groups (openapi.go), built
	// on the first call: most handlers in tests never serve them.
	openapi func() (*openAPISpecs, error)
}

// currentRoutes returns the routes of the resources served now: the ones
// last built, unless the Server's ResourceEpoch moved since. The built-in
// resources' requests pay one atomic load for it.
func (h *Handler) currentRoutes() *routes {
	epoch := h.srv.ResourceEpoch()
	if rt := h.rt.Load(); rt != nil && rt.epoch == epoch {
		return rt
	}
	h.rtMu.Lock()
	defer h.rtMu.Unlock()
	if rt := h.rt.Load(); rt != nil && rt.epoch == epoch {
		return rt
	}
	rt := h.buildRoutes(epoch)
	h.rt.Store(rt)
	return rt
}

// buildRoutes builds the routes of the Server's resources at epoch.
func (h *Handler) buildRoutes(epoch uint64) *routes {
	rt := &routes{epoch: epoch, byPath: make(map[string]*groupVersion), kinds: make(map[typeMeta]bool)}
	for _, r := range h.srv.Resources() {
		path := "api/" + r.Version
		if r.Group != "" {
			path = "apis/" + r.Group + "/" + r.Version
		}
		gv := rt.byPath[path]
		if gv == nil {
			gv = &groupVersion{group: r.Group, version: r.Version, path: path, byName: make(map[string]apiserver.ResourceInfo)}
			rt.byPath[path] = gv
			rt.groups = append(rt.groups, gv) // Resources is sorted by group: core comes first
		}
		gv.resources = append(gv.resources, r)
		gv.byName[r.Resource] = r
		rt.kinds[typeMeta{Kind: r.Kind, APIVersion: r.APIVersion()}] = true
		rt.kinds[typeMeta{Kind: "DeleteOptions", APIVersion: r.APIVersion()}] = true
		for _, sub := range subresourcesOf(r) {
			rt.kinds[typeMeta{Kind: sub.kind.Kind, APIVersion: sub.kind.apiVersion()}] = true
		}
	}
	for _, gv := range h.reviews {
		rt.byPath[gv.path] = gv
		for _, r := range gv.resources {
			rt.kinds[typeMeta{Kind: r.Kind, APIVersion: r.APIVersion()}] = true
		}
	}
	for _, tm := range requestKinds {
		rt.kinds[tm] = true
	}
	groups := rt.groups
	rt.openapi = sync.OnceValues(func() (*openAPISpecs, error) { return newOpenAPISpecs(groups) })
	return rt
}

// groupVersion is one served API group version and its resources.
type groupVersion struct {
	group, version string
	path           string // "api/v1" or "apis/<group>/<version>"
	resources      []apiserver.ResourceInfo
	byName         map[string]apiserver.ResourceInfo
	reviews        bool // the review APIs, answered by serveReview
}

func (gv *groupVersion) groupVersion() string {
	if gv.group == "" {
		return gv.version
	}
	return gv.group + "/" + gv.version
}

// New returns a Handler over cfg.Server. It starts nothing.
func New(cfg Config) (*Handler, error) {
	if cfg.Server == nil || cfg.Clock == nil {
		return nil, errors.New("httpapi: Config needs a Server and a Clock")
	}
	h := &Handler{
		srv: cfg.Server, clock: cfg.Clock, log: cfg.Logger, token: cfg.Token,
		extra: cfg.Metrics, logs: cfg.Logs, proxy: cfg.Proxy, exec: cfg.Exec, idle: cfg.Idle, authz: cfg.Authorizer, issuer: cfg.ServiceAccountTokens,
		metrics:   newMetrics(),
		encodings: newEncodings(encodingCacheSize),
		done:      make(chan struct{}),
	}
	if h.log == nil {
		h.log = zap.NewNop()
	}
	if h.issuer != nil {
		h.tokens = h.issuer
	}
	h.log = h.log.Named("httpapi")
	var err error
	if h.health, err = h.newHealthChecks(cfg.HealthChecks, cfg.ReadyChecks); err != nil {
		return nil, err
	}
	h.reviews = reviewGroups()
	h.currentRoutes()
	return h, nil
}

// Shutdown ends every open watch cleanly (its stream ends after the events
// already sent) and waits until their handlers have returned; watches
// asked for afterwards get 503. A watch whose client stopped reading is
// stuck in a write until its connection closes: Serve closes such
// connections after ShutdownGrace. It is safe to call more than once.
func (h *Handler) Shutdown() {
	h.endWatches()
	h.watches.Wait()
}

// endWatches tells every watch to end, without waiting.
func (h *Handler) endWatches() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.closed {
		h.closed = true
		close(h.done)
	}
}

// startWatch registers a watch; it fails once Shutdown has begun.
func (h *Handler) startWatch() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false
	}
	h.watches.Add(1)
	return true
}

// ServeHTTP implements http.Handler: it authenticates, limits the body,
// routes, records metrics, and turns a panic into a 500 Status (a last
// resort: no request is meant to reach it).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := h.clock.Now()
	rw := &recorder{ResponseWriter: w, errFormat: errorFormat(r)}
	info := requestInfo{verb: methodVerb(r.Method)}
	defer func() {
		if p := recover(); p != nil {
			h.log.Error("panic serving a request", zap.String("method", r.Method), zap.String("url", r.URL.String()),
				zap.Any("panic", p), zap.ByteString("stack", debug.Stack()))
			if !rw.wrote {
				writeError(rw, apierrors.NewInternalError(fmt.Errorf("the server panicked serving %s %s", r.Method, r.URL.Path)))
			}
		}
		h.metrics.observe(info, rw.code(), h.clock.Since(start))
	}()

	if !isHealthPath(r.URL.Path) {
		u, ok := h.authenticate(r)
		if !ok {
			info.resource = "unauthorized"
			writeError(rw, apierrors.NewUnauthorized("Unauthorized"))
			return
		}
		u, err := h.impersonate(r, u)
		if err == nil {
			err = h.authorize(r, u)
		}
		if err != nil {
			info.resource = "forbidden"
			writeError(rw, err)
			return
		}
		ctx := context.WithValue(r.Context(), userKey{}, u)
		r = r.WithContext(client.WithUser(ctx, client.User{Name: u.Name, UID: u.UID, Groups: u.Groups}))
	}
	if r.Body != nil {
		r.Body = http.MaxBytesReader(rw, r.Body, MaxBodyBytes)
	}
	if r.Method != http.MethodGet {
		// The Server's warnings (a policy bound with Warn) become
		// Warning headers, as kube-apiserver's are.
		r = r.WithContext(client.WithWarnings(r.Context(), func(text string) { addWarning(rw, text) }))
	}
	h.route(rw, r, &info)
}

// methodVerb names a request's method in metrics until routing knows the
// Kubernetes verb; other methods share one name, so that clients cannot
// grow the metrics without bound.
func methodVerb(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return strings.ToLower(method)
	}
	return "other"
}

// isHealthPath reports whether p is one of the public endpoints: health
// and the version (kube-apiserver's system:public-info-viewer).
func isHealthPath(p string) bool {
	switch p {
	case "/healthz", "/livez", "/readyz", "/version":
		return true
	}
	return false
}

// recorder remembers the status code written and the format errors are
// answered in, and passes Flush through for watch streams.
type recorder struct {
	http.ResponseWriter
	status int
	wrote  bool
	// errFormat is the format writeError answers in.
	errFormat format
}

func (r *recorder) WriteHeader(code int) {
	if !r.wrote {
		r.status, r.wrote = code, true
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if !r.wrote {
		r.status, r.wrote = http.StatusOK, true
	}
	return r.ResponseWriter.Write(b)
}

// Flush sends what has been written to the client at once.
func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the underlying writer.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

func (r *recorder) code() int {
	if !r.wrote {
		return http.StatusOK
	}
	return r.status
}

// ShutdownGrace is how long Serve lets requests in flight finish after its
// context ends before it closes their connections: long enough for any
// request, and it ends watches whose clients stopped reading.
const ShutdownGrace = 5 * time.Second

// Serve serves h on ln until ctx ends, then ends h's watches, lets the
// requests in flight finish (closing the connections of those still going
// after ShutdownGrace on h's clock), and returns nil. Any other failure to
// serve is returned. The caller chooses the address; bind 127.0.0.1 unless
// the API is meant to be reachable from other machines.
func Serve(ctx context.Context, ln net.Listener, h *Handler) error {
	return ServeThrough(ctx, ln, h, h)
}

// ServeThrough is Serve with front answering the requests: a handler in
// front of h, such as package faults' Injector, that passes them on to h.
// h's watches are still the ones Serve ends and waits for.
func ServeThrough(ctx context.Context, ln net.Listener, h *Handler, front http.Handler) error {
	srv := &http.Server{
		Handler:           front,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          zap.NewStdLog(h.log),
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		h.Shutdown()
		return fmt.Errorf("httpapi: serving: %w", err)
	case <-ctx.Done():
	}
	h.endWatches()
	graceCtx, cancel := context.WithCancel(context.Background())
	grace := h.clock.AfterFunc(ShutdownGrace, cancel)
	err := srv.Shutdown(graceCtx)
	grace.Stop()
	cancel()
	if errors.Is(err, context.Canceled) {
		err = srv.Close() // stuck requests: their writes fail and they return
	}
	h.watches.Wait()
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}

// requestInfo is what a request was, for metrics: the Kubernetes verb and
// the resource (with its subresource), or a name for the non-resource
// paths.
type requestInfo struct {
	verb     string
	resource string
}
