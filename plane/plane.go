package plane

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/apiserver/faults"
	"github.com/miniplane/miniplane/apiserver/httpapi"
	"github.com/miniplane/miniplane/apiserver/httpapi/inmem"
	"github.com/miniplane/miniplane/apiserver/rbac"
	"github.com/miniplane/miniplane/apiserver/serviceaccount"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/client/record"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/manager"
	"github.com/miniplane/miniplane/controllers/nodelifecycle"
	"github.com/miniplane/miniplane/controllers/nodesim"
	"github.com/miniplane/miniplane/controllers/scheduler"
	"github.com/miniplane/miniplane/etcdstore"
	"github.com/miniplane/miniplane/informer"
)

// NodeSimWorkers is how many pods the simulated kubelets handle at once:
// real kubelets work in parallel, one per node; five workers stand in.
const NodeSimWorkers = 5

// Plane is a whole control plane in one process. Create it with New.
type Plane struct {
	cfg   Config
	clock clock.Clock
	log   *zap.Logger
	srv   *apiserver.Server
	http  *httpapi.Handler
	// api answers the API's HTTP requests: http itself, or the fault
	// injector in front of it; handler adds the mounted handlers.
	api       http.Handler
	handler   http.Handler
	transport *inmem.Transport
	direct    *inmem.Transport // the API without the fault injector
	faults    *faults.Injector
	nodes     *nodesim.Controller
	sched     *scheduler.Controller // nil with --scheduler=none
	life      *nodelifecycle.Controller
	nodeF     *informer.Factory
	etcd      *etcdstore.Client // nil: the store is in memory
	insts     []*instance       // empty when every controller is off
	// checks are the plane's readiness checks, in the order /readyz
	// prints them after the API server's.
	checks []httpapi.HealthChecker

	ready      chan struct{} // closed once every check in checks passes
	registered chan struct{} // closed once the simulated nodes are registered

	// mu guards the fields below.
	mu          sync.Mutex
	ln          net.Listener
	mounts      []mount
	ran         bool
	writes      []Write // each instance's first write after another's
	registerErr error   // why registering the nodes failed, if it did
}

// instance is one controller-manager instance and the means to kill it.
type instance struct {
	*manager.Instance
	kill context.CancelFunc // set by Run before the instance starts
	done chan struct{}      // closed when its Run returned
}

// New checks cfg and builds the plane. It starts nothing and binds
// nothing: Listen binds, Run starts.
func New(cfg Config) (*Plane, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	opts := *cfg.Options
	if len(opts.RootCA) == 0 {
		opts.RootCA = cfg.CAPEM // the CA clients trust is the one pods get
	}
	p := &Plane{cfg: cfg, clock: cfg.Clock, log: cfg.Logger, ready: make(chan struct{}), registered: make(chan struct{})}
	if len(cfg.EtcdServers) > 0 {
		if p.etcd, err = etcdstore.DialTLS(cfg.EtcdServers, cfg.EtcdTLS); err != nil {
			return nil, fmt.Errorf("plane: %w", err)
		}
	}
	p.srv, err = apiserver.New(apiserver.Config{
		Etcd: p.etcd, CompactEvery: cfg.CompactEvery,
		Clock: cfg.Clock, Rand: rand.New(rand.NewPCG(cfg.Seed, 0x6d696e69)), SystemNamespaces: true, DefaultStorageClass: true,
		// Pods run as a service account that must exist, as on a cluster;
		// the controller manager's serviceaccount controller makes
		// "default" in every namespace, and a pod create waits for it as
		// long as kube-apiserver's lookup retries.
		ServiceAccounts: true, ResourceQuotas: true, PriorityClasses: true, DefaultServiceAccountWait: 2 * time.Second, BootstrapPolicy: true, FlowControl: true,
		LocalAPIServices:     true,
		Names:                apiserver.NewSeededNames(cfg.Seed), // the same pod names for one seed, whatever the goroutines' timing
		Logger:               cfg.Logger.Named("apiserver"),
		CheckMutations:       cfg.CheckMutations,
		ServiceNodePortRange: cfg.ServiceNodePortRange,
	})
	if err != nil {
		if p.etcd != nil {
			_ = p.etcd.Close()
		}
		return nil, err
	}
	if err := installCRDs(p.srv, cfg.CRDs); err != nil {
		return nil, fmt.Errorf("plane: CRDs: %w", err)
	}

	p.nodeF = informer.NewFactory(p.srv, "", cfg.Clock, cfg.Logger.Named("nodesim-informers"))
	key := cfg.ServiceAccountKey
	if key == nil {
		key = serviceaccount.KeyFromSeed(rand.New(rand.NewPCG(cfg.Seed, 0x73616b)))
	}
	issuer, err := serviceaccount.New(serviceaccount.Config{Key: key, Clock: cfg.Clock, Client: p.srv})
	if err != nil {
		return nil, err
	}
	nc := cfg.NodeSim
	nc.Client, nc.Factory, nc.Clock = p.srv, p.nodeF, cfg.Clock
	nc.Tokens = newKubeletTokens(p.srv, issuer, cfg.Clock).token
	nc.Logger = cfg.Logger.Named("nodesim")
	// Each component speaks for itself: each kubelet's events come from
	// kubelet on its node, the scheduler's from default-scheduler.
	nc.Recorders = func(component, host string) *record.EventRecorder {
		return record.NewEventRecorder(p.srv, cfg.Clock, component, host)
	}
	nc.Nodes = opts.Nodes
	nc.NodeCPU, nc.NodeMemory = opts.NodeCPU, opts.NodeMemory
	nc.NodeLeases = true // the API server has their namespace (SystemNamespaces)
	if p.nodes, err = nodesim.New(nc); err != nil {
		return nil, err
	}
	// The scheduler runs beside the kubelets, on their informers, as
	// kube-scheduler runs beside a cluster's kubelets; --scheduler=none
	// leaves the pods to another (a real kube-scheduler).
	if opts.Scheduler != scheduler.None {
		p.sched, err = scheduler.New(scheduler.Config{
			Client: p.srv, Factory: p.nodeF, Clock: cfg.Clock, Logger: cfg.Logger,
			Recorder:    record.NewEventRecorder(p.srv, cfg.Clock, scheduler.Component, scheduler.Component),
			PodsPerNode: nc.PodsPerNode,
		})
		if err != nil {
			return nil, err
		}
	}
	// The node lifecycle controller acts on the pods of a node that stops
	// reporting, on the same informers, speaking as node-controller.
	lc := cfg.NodeLifecycle
	lc.Client, lc.Factory, lc.Clock, lc.Logger = p.srv, p.nodeF, cfg.Clock, cfg.Logger
	lc.Recorder = record.NewEventRecorder(p.srv, cfg.Clock, nodelifecycle.Component, "")
	if p.life, err = nodelifecycle.New(lc); err != nil {
		return nil, err
	}

	instances := cfg.Instances
	if len(EnabledControllers(opts)) == 0 {
		instances = 0 // no controller to run, no leader to elect
	}
	for i := range instances {
		identity := fmt.Sprintf("cm-%d", i+1)
		if cfg.Identity != "" {
			identity = cfg.Identity + "_" + identity
		}
		in, err := manager.NewInstance(manager.InstanceConfig{
			Client: &recordingClient{Client: p.srv, p: p, identity: identity},
			Clock:  cfg.Clock, Logger: cfg.Logger.Named(identity), Identity: identity,
			Options: opts, Rand: rand.New(rand.NewPCG(cfg.Seed, uint64(i+1))),
			ReleaseOnCancel: cfg.ReleaseOnCancel,
		})
		if err != nil {
			return nil, err
		}
		p.insts = append(p.insts, &instance{Instance: in, done: make(chan struct{})})
	}

	p.checks = p.readyChecks()
	p.http, err = httpapi.New(httpapi.Config{
		Server: p.srv, Clock: cfg.Clock, Logger: cfg.Logger.Named("http"), Token: cfg.Token,
		ReadyChecks: p.checks, Metrics: p.WriteMetrics, Logs: nodeLogs{p.nodes}, Proxy: nodeProxy{p.nodes, p.clock},
		Exec:       nodeExec{p.nodes},
		Idle:       idleControllers(opts, len(p.insts)),
		Authorizer: authorizer(cfg.RBAC, p.srv), ServiceAccountTokens: issuer,
	})
	if err != nil {
		return nil, err
	}
	p.api = p.http
	if cfg.Faults != 0 {
		p.faults, err = faults.New(faults.Config{
			Handler: p.http, Clock: cfg.Clock, Rand: rand.New(rand.NewPCG(cfg.Seed, 0x6661756c)),
			Faults: cfg.Faults, Rate: cfg.FaultRate, Trace: cfg.FaultTrace, Logger: cfg.Logger,
		})
		if err != nil {
			return nil, err
		}
		p.api = p.faults
	}
	p.handler = http.HandlerFunc(p.serveHTTP)
	p.transport = inmem.NewTransport(p.handler)
	p.direct = inmem.NewTransport(p.http)
	return p, nil
}

// Server is the API server: an client.Client for in-process callers.
// Its requests are never faulted.
func (p *Plane) Server() *apiserver.Server { return p.srv }

// Handler serves the plane's HTTP requests: the Kubernetes API (behind
// the fault injector when Config.Faults is set) and the handlers mounted
// with Handle. The listener and Transport serve through it; a caller may
// serve it on a listener of its own as well.
func (p *Plane) Handler() http.Handler { return p.handler }

// Transport serves HTTP requests in memory through Handler, each on a
// goroutine of its own, streaming watches (apiserver/httpapi/inmem). It
// ignores the request's host: pair it with Host.
func (p *Plane) Transport() http.RoundTripper { return p.transport }

// DirectTransport serves the Kubernetes API in memory as Transport does,
// but never through the fault injector: a test's own clients set up and
// judge through it in their own types (client-go's corev1, say) while the
// controller under test meets the faults through Transport. Its requests
// are not in the fault trace. Pair it with Host.
func (p *Plane) DirectTransport() http.RoundTripper { return p.direct }

// Host is the base URL for clients of Transport, as client-go's
// rest.Config{Host: p.Host(), Transport: p.Transport()}.
func (p *Plane) Host() string { return inmem.Host }

// Clock is the plane's clock.
func (p *Plane) Clock() clock.Clock { return p.clock }

// Options are the controller manager's settings the plane runs with.
func (p *Plane) Options() manager.Options { return *p.cfg.Options }

// Nodes is the simulated kubelets: a test or the demo crashes pods and
// takes nodes down through it.
func (p *Plane) Nodes() *nodesim.Controller { return p.nodes }

// NodeInformers is the simulated nodes' informer factory: a test reads
// from its caches what the kubelets and the scheduler have seen.
func (p *Plane) NodeInformers() *informer.Factory { return p.nodeF }

// Instances are the controller-manager instances, cm-1, cm-2, ...; none
// when every controller is off.
func (p *Plane) Instances() []*manager.Instance {
	out := make([]*manager.Instance, len(p.insts))
	for i, in := range p.insts {
		out[i] = in.Instance
	}
	return out
}

// Handle mounts h at pattern beside the API, for the listener and the
// in-memory transport alike: a pattern ending in "/" (such as "/ui/")
// takes every path under it, any other only itself. Mounted handlers are
// matched before the API, behind neither the fault injector nor the
// token. Call it before Run; a pattern the API serves, or one mounted
// already, is refused.
func (p *Plane) Handle(pattern string, h http.Handler) error {
	if !strings.HasPrefix(pattern, "/") || h == nil {
		return fmt.Errorf("plane: Handle needs a path starting with / and a handler, got %q", pattern)
	}
	for _, reserved := range []string{"/api", "/apis", "/openapi", "/version", "/healthz", "/livez", "/readyz", "/metrics"} {
		if pattern == reserved || strings.HasPrefix(pattern, reserved+"/") || pattern == "/" {
			return fmt.Errorf("plane: Handle %q: the API serves that path", pattern)
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ran {
		return errors.New("plane: Handle after Run")
	}
	for _, m := range p.mounts {
		if m.pattern == pattern {
			return fmt.Errorf("plane: Handle %q: mounted already", pattern)
		}
	}
	p.mounts = append(p.mounts, mount{pattern, h})
	return nil
}

// mount is one handler mounted with Handle.
type mount struct {
	pattern string
	h       http.Handler
}

func (m mount) matches(path string) bool {
	if strings.HasSuffix(m.pattern, "/") {
		return strings.HasPrefix(path, m.pattern)
	}
	return path == m.pattern
}

// serveHTTP sends a request to the handler mounted at its path, or to the
// API.
func (p *Plane) serveHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	mounts := p.mounts
	p.mu.Unlock()
	for _, m := range mounts {
		if m.matches(r.URL.Path) {
			m.h.ServeHTTP(w, r)
			return
		}
	}
	p.api.ServeHTTP(w, r)
}

// Listen binds Config.Listen, so that a caller can print URL (or write
// Kubeconfig) before Run serves; Run binds it itself otherwise.
func (p *Plane) Listen() error {
	if p.cfg.Listen == "" {
		return errors.New("plane: Listen with no Config.Listen address")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		return nil
	}
	ln, err := net.Listen("tcp", p.cfg.Listen)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", p.cfg.Listen, err)
	}
	if p.cfg.TLS != nil {
		ln = tls.NewListener(ln, p.cfg.TLS)
	}
	p.ln = ln
	return nil
}

// URL is the listener's base URL ("http://127.0.0.1:PORT", https with
// TLS) once Listen or Run has bound it; "" before, or with no listener.
func (p *Plane) URL() string {
	p.mu.Lock()
	ln := p.ln
	p.mu.Unlock()
	if ln == nil {
		return ""
	}
	if p.cfg.TLS != nil {
		return "https://" + ln.Addr().String()
	}
	return "http://" + ln.Addr().String()
}

// Kubeconfig is a kubeconfig for the plane: for the listener when it is
// bound (kubectl can use it), else for Host (only a client given
// Transport can).
func (p *Plane) Kubeconfig() []byte {
	if u := p.URL(); u != "" {
		return NewKubeconfig(u, p.cfg.CAPEM, p.cfg.Token)
	}
	return NewKubeconfig(p.Host(), nil, p.cfg.Token)
}

// apiServerAddress is where the kubernetes Endpoints say the API server
// is: the listener's address, with a loopback IP when it listens on all of
// them (kube-apiserver advertises a host address instead); with no
// listener, apiserver.PlaceholderAPIServerAddress.
func (p *Plane) apiServerAddress() netip.AddrPort {
	ln := p.listener()
	if ln == nil {
		return apiserver.PlaceholderAPIServerAddress
	}
	ap, err := netip.ParseAddrPort(ln.Addr().String())
	if err != nil {
		return apiserver.PlaceholderAPIServerAddress
	}
	if ap.Addr().IsUnspecified() {
		ap = netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), ap.Port())
	}
	return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
}

// Run starts the plane and serves until ctx ends: the API server's
// sweeper, the listener (binding it if Listen has not), the simulated
// nodes and every controller-manager instance. It returns once all have
// stopped and every in-memory watch has ended. Its error says which part
// failed, when one did; it may be called once.
func (p *Plane) Run(ctx context.Context) error {
	p.mu.Lock()
	if p.ran {
		p.mu.Unlock()
		return errors.New("plane: Run called twice")
	}
	p.ran = true
	p.mu.Unlock()
	if p.cfg.Listen != "" {
		if err := p.Listen(); err != nil {
			return err
		}
	}
	p.srv.PublishKubernetesService(p.apiServerAddress())
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	wg.Go(func() { p.srv.Run(ctx) })
	if p.etcd == nil && p.cfg.CompactEvery > 0 {
		wg.Go(func() { compactEvery(ctx, p.srv, p.clock, p.cfg.CompactEvery) })
	}
	var serveErr error
	if ln := p.listener(); ln != nil {
		wg.Go(func() {
			if err := httpapi.ServeThrough(ctx, ln, p.http, p.handler); err != nil {
				serveErr = err
				cancel(err)
			}
		})
	} else {
		wg.Go(func() {
			<-ctx.Done()
			p.http.Shutdown() // the in-memory watches end
		})
	}
	p.nodeF.Start(ctx)
	wg.Go(func() {
		defer p.nodeF.Shutdown()
		p.registerNodes(ctx)
		p.nodes.Run(client.WithFieldManager(ctx, "kubelet"), NodeSimWorkers) // its writes' field manager, as the page shows them
	})
	if p.sched != nil {
		wg.Go(func() { p.sched.Run(client.WithFieldManager(ctx, "kube-scheduler"), 1) })
	}
	wg.Go(func() { p.life.Run(client.WithFieldManager(ctx, manager.NodeLifecycle), 1) })
	var errMu sync.Mutex
	var instErr []error
	for _, in := range p.insts {
		ictx, kill := context.WithCancel(ctx)
		p.mu.Lock()
		in.kill = kill
		p.mu.Unlock()
		wg.Go(func() {
			defer close(in.done)
			defer kill()
			if err := in.Run(ictx); err != nil {
				errMu.Lock()
				instErr = append(instErr, err)
				errMu.Unlock()
				cancel(err) // as kube-controller-manager exits when its controllers cannot start
			}
		})
	}
	wg.Go(func() { p.awaitReady(ctx) })
	wg.Wait()
	return errors.Join(append(instErr, serveErr, p.closeStore())...)
}

// closeStore stops the API server's store following etcd and closes the
// client, once Run is done; nothing for a store in memory.
func (p *Plane) closeStore() error {
	if p.etcd == nil {
		return nil
	}
	return errors.Join(p.srv.Close(), p.etcd.Close())
}

func (p *Plane) listener() net.Listener {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ln
}

// registerNodes creates the simulated nodes, as kubelets register their
// Node objects when they start, and closes p.registered once they exist.
// A failure is logged and kept for the register-nodes check: the kubelets
// run on with the nodes that exist.
func (p *Plane) registerNodes(ctx context.Context) {
	if p.cfg.Options.Nodes == 0 {
		close(p.registered)
		return
	}
	err := p.nodes.EnsureNodes(ctx)
	if err == nil {
		close(p.registered)
		return
	}
	if ctx.Err() == nil {
		p.log.Error("registering nodes", zap.Error(err))
	}
	p.mu.Lock()
	p.registerErr = err
	p.mu.Unlock()
}

// awaitReady closes p.ready once every readiness check passes. It checks
// at once, then after 1ms, doubling the wait to at most 5ms: a plane in
// memory is ready within milliseconds.
func (p *Plane) awaitReady(ctx context.Context) {
	wait := time.Millisecond
	for {
		if p.IsReady() {
			close(p.ready)
			return
		}
		t := p.clock.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C():
		}
		wait = min(2*wait, 5*time.Millisecond)
	}
}

// Ready is closed once the control plane is ready to serve a user: every
// check of ReadyChecks passes.
func (p *Plane) Ready() <-chan struct{} { return p.ready }

// Leader returns the identity of the instance that leads now, or "".
func (p *Plane) Leader() string {
	for _, in := range p.insts {
		if in.Health().Leading {
			return in.Identity()
		}
	}
	return ""
}

// KillLeader ends the instance that holds the controller manager's Lease
// as a crash would: no release, its lease left to expire, its guard
// closing at its renew deadline. It returns the instance's identity once
// it has stopped; the instance does not restart.
//
// The victim is the Lease's holder, the fact the other instances wait
// on, not the instance whose guard is open at this moment (Leader): on
// the real clock a starved leader renews late, its guard closes for that
// while, and for that while no instance is Leading though one holds the
// lease. With election off, the first instance leads.
func (p *Plane) KillLeader(ctx context.Context) (string, error) {
	holder := ""
	if le := p.cfg.Options.LeaderElection; le.LeaderElect {
		lease, err := client.For[*api.Lease](p.srv).Get(ctx, le.ResourceNamespace, le.ResourceName)
		if err != nil {
			return "", fmt.Errorf("plane: reading the leader's lease: %w", err)
		}
		if lease.Spec.HolderIdentity != nil {
			holder = *lease.Spec.HolderIdentity
		}
	} else if len(p.insts) > 0 {
		holder = p.insts[0].Identity()
	}
	for _, in := range p.insts {
		if holder == "" || in.Identity() != holder {
			continue
		}
		p.mu.Lock()
		kill := in.kill
		p.mu.Unlock()
		if kill == nil {
			return "", errors.New("plane: KillLeader before Run")
		}
		kill()
		<-in.done
		return holder, nil
	}
	return "", fmt.Errorf("plane: no leader to kill (the lease's holder is %q)", holder)
}

// authorizer is the HTTP front's authorizer: RBAC over the server's roles
// and bindings, or none (AlwaysAllow).
func authorizer(on bool, srv *apiserver.Server) httpapi.Authorizer {
	if !on {
		return nil
	}
	return rbac.New(rbac.FromClient(srv))
}

// compactEvery compacts the in-memory store every period at the revision
// it had one period before, as kube-apiserver's compactor does etcd's
// (storage/etcd3/compact.go): what was written in the last period stays
// readable at its revisions.
func compactEvery(ctx context.Context, srv *apiserver.Server, clk clock.Clock, period time.Duration) {
	var seen int64 // the revision one period ago
	for {
		t := clk.NewTimer(period)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C():
		}
		if seen > 0 {
			// A revision the history window already dropped is compacted
			// already: nothing to do.
			_ = srv.Compact(seen)
		}
		seen = srv.Store().Rev()
	}
}
