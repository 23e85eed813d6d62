package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/apiserver/faults"
	"github.com/miniplane/miniplane/apiserver/httpapi"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/manager"
	"github.com/miniplane/miniplane/controllers/nodesim"
	"github.com/miniplane/miniplane/controllers/workqueue"
	"github.com/miniplane/miniplane/informer"
	"github.com/miniplane/miniplane/ui"
)

// planeConfig says what control plane to start.
type planeConfig struct {
	// Addr is where the HTTP API listens; "127.0.0.1:0" picks a free port.
	Addr  string
	Token string
	// TLS, when set, makes the HTTP API serve HTTPS with it (tls.go).
	TLS *tls.Config
	// Instances is how many controller-manager instances run; with
	// leader election off there must be one. When Options.Controllers
	// switches every controller off, none runs, whatever Instances says.
	Instances int
	// Options are the controller manager's (Options.Nodes is the number of
	// simulated nodes the plane registers; 0 registers none, and nodesim
	// still schedules and runs pods on nodes created through the API).
	Options manager.Options
	// Nodes tunes the simulated kubelets; Client, Factory, Clock, Logger
	// and Nodes are filled in.
	NodeSim nodesim.Config
	// Seed seeds the API server's names and uids, the electors' jitter and
	// the injected faults.
	Seed uint64
	// Faults are the API-layer faults to inject in front of the HTTP API
	// (package apiserver/faults); none when empty. FaultRate is each one's
	// chance per request it applies to (0: faults.DefaultRate), and
	// FaultTrace, when set, receives the injector's trace.
	Faults     faults.Set
	FaultRate  float64
	FaultTrace io.Writer
	Clock      clock.Clock
	Logger     *zap.Logger
	// ReleaseOnCancel makes a stopping instance release its lease, as a
	// clean shutdown does; without it, stopping is a crash.
	ReleaseOnCancel bool
}

// plane is a whole control plane in one process: the API server and its
// HTTP front, the simulated nodes, and several controller-manager
// instances competing for the lease, each with its own caches, as separate
// processes would have.
//
// Its readiness is a list of named checks (readyChecks), served on
// /readyz beside the API server's own and closing Ready once all pass: the
// simulated nodes' informers have synced, the nodes are registered and,
// when any controller is on, an instance leads with synced controllers.
type plane struct {
	cfg   planeConfig
	clock clock.Clock
	log   *zap.Logger
	srv   *apiserver.Server
	http  *httpapi.Handler
	// front answers the HTTP requests: http itself, or the fault injector
	// in front of it.
	front  http.Handler
	faults *faults.Injector
	ui     *ui.Handler // the browser view at /ui/ (ui.go); nil when not mounted
	ln     net.Listener
	nodes  *nodesim.Controller
	nodeF  *informer.Factory
	insts  []*planeInstance // empty when every controller is off
	// checks are the plane's readiness checks, in the order /readyz
	// prints them after the API server's.
	checks []httpapi.HealthChecker

	ready      chan struct{} // closed once every check in checks passes
	registered chan struct{} // closed once the simulated nodes are registered

	// mu guards writes and registerErr.
	mu          sync.Mutex
	writes      []controllerWrite // each instance's first write after each kill
	registerErr error             // why registering the nodes failed, if it did
}

// planeInstance is one controller-manager instance and the means to kill it.
type planeInstance struct {
	*manager.Instance
	kill context.CancelFunc // set by Run
	done chan struct{}      // closed when its Run returned
}

// controllerWrite is a successful write by an instance's controllers.
type controllerWrite struct {
	identity string
	at       time.Time
}

func newPlane(cfg planeConfig) (*plane, error) {
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	if cfg.Instances < 1 {
		return nil, usageError{fmt.Sprintf("--instances must be at least 1, got %d", cfg.Instances)}
	}
	if !cfg.Options.LeaderElection.LeaderElect && cfg.Instances > 1 {
		return nil, usageError{"--leader-elect=false runs the controllers unguarded: use --instances=1"}
	}
	p := &plane{cfg: cfg, clock: cfg.Clock, log: cfg.Logger, ready: make(chan struct{}), registered: make(chan struct{})}
	var err error
	p.srv, err = apiserver.New(apiserver.Config{
		Clock: cfg.Clock, Rand: rand.New(rand.NewPCG(cfg.Seed, 0x6d696e69)), SystemNamespaces: true,
		Names:  apiserver.NewSeededNames(cfg.Seed), // the same pod names for one seed, whatever the goroutines' timing
		Logger: cfg.Logger.Named("apiserver"),
	})
	if err != nil {
		return nil, err
	}

	p.nodeF = informer.NewFactory(p.srv, "", cfg.Clock, cfg.Logger.Named("nodesim-informers"))
	nc := cfg.NodeSim
	nc.Client, nc.Binder, nc.Factory, nc.Clock = p.srv, p.srv, p.nodeF, cfg.Clock
	nc.Logger = cfg.Logger.Named("nodesim")
	nc.Recorder = apiserver.NewEventRecorder(p.srv, cfg.Clock, "kubelet", "nodesim")
	nc.Nodes = cfg.Options.Nodes
	nc.Scheduler = cfg.Options.Scheduler
	nc.NodeLeases = true // the API server has their namespace (SystemNamespaces)
	if p.nodes, err = nodesim.New(nc); err != nil {
		return nil, err
	}

	instances := cfg.Instances
	if len(enabledControllers(cfg.Options)) == 0 {
		instances = 0 // no controller to run, no leader to elect
	}
	for i := range instances {
		identity := fmt.Sprintf("cm-%d", i+1)
		in, err := manager.NewInstance(manager.InstanceConfig{
			Client: &recordingClient{Client: p.srv, p: p, identity: identity},
			Clock:  cfg.Clock, Logger: cfg.Logger.Named(identity), Identity: identity,
			Options: cfg.Options, Rand: rand.New(rand.NewPCG(cfg.Seed, uint64(i+1))),
			ReleaseOnCancel: cfg.ReleaseOnCancel,
		})
		if err != nil {
			return nil, err
		}
		p.insts = append(p.insts, &planeInstance{Instance: in, done: make(chan struct{})})
	}

	p.checks = p.readyChecks()
	p.http, err = httpapi.New(httpapi.Config{
		Server: p.srv, Clock: cfg.Clock, Logger: cfg.Logger.Named("http"), Token: cfg.Token,
		ReadyChecks: p.checks, Metrics: p.writeMetrics, Logs: nodeLogs{p},
	})
	if err != nil {
		return nil, err
	}
	p.front = p.http
	if cfg.Faults != 0 {
		p.faults, err = faults.New(faults.Config{
			Handler: p.http, Clock: cfg.Clock, Rand: rand.New(rand.NewPCG(cfg.Seed, 0x6661756c)),
			Faults: cfg.Faults, Rate: cfg.FaultRate, Trace: cfg.FaultTrace, Logger: cfg.Logger,
		})
		if err != nil {
			return nil, err
		}
		p.front = p.faults
	}
	if p.front, err = p.mountUI(p.front); err != nil {
		return nil, err
	}
	return p, nil
}

// enabledControllers names the controllers opts.Controllers switches on,
// in the order the manager starts them.
func enabledControllers(opts manager.Options) []string {
	var on []string
	for _, d := range manager.DefaultDescriptors() {
		if manager.Enabled(opts.Controllers, d.Name, d.DisabledByDefault) {
			on = append(on, d.Name)
		}
	}
	return on
}

// listen binds the HTTP address. It is separate from Run so that callers
// can print the address before serving.
func (p *plane) listen() error {
	ln, err := net.Listen("tcp", p.cfg.Addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", p.cfg.Addr, err)
	}
	if p.cfg.TLS != nil {
		ln = tls.NewListener(ln, p.cfg.TLS)
	}
	p.ln = ln
	return nil
}

// URL is the HTTP API's address, once listen has run.
func (p *plane) URL() string {
	if p.cfg.TLS != nil {
		return "https://" + p.ln.Addr().String()
	}
	return "http://" + p.ln.Addr().String()
}

func (p *plane) now() time.Time { return p.clock.Now() }

// Run serves until ctx ends: the API server's sweeper, the HTTP front, the
// simulated nodes and every instance. It returns once all have stopped.
func (p *plane) Run(ctx context.Context) error {
	if p.ln == nil {
		if err := p.listen(); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	wg.Go(func() { p.srv.Run(ctx) })
	if p.ui != nil {
		wg.Go(func() { p.ui.Run(ctx) })
	}
	var serveErr error
	wg.Go(func() {
		if err := httpapi.ServeThrough(ctx, p.ln, p.http, p.front); err != nil {
			serveErr = err
			cancel(err)
		}
	})
	p.nodeF.Start(ctx)
	wg.Go(func() {
		defer p.nodeF.Shutdown()
		p.registerNodes(ctx)
		p.nodes.Run(apiserver.WithFieldManager(ctx, "kubelet"), manager.NodeSimWorkers) // its writes' field manager
	})
	var errMu sync.Mutex
	var instErr []error
	for _, in := range p.insts {
		ictx, kill := context.WithCancel(ctx)
		in.kill = kill
		wg.Go(func() {
			defer close(in.done)
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
	return errors.Join(append(instErr, serveErr)...)
}

// registerNodes creates the simulated nodes, as kubelets register their
// Node objects when they start, and closes p.registered once they exist.
// A failure is logged and kept for the register-nodes check: the kubelets
// run on with the nodes that exist.
func (p *plane) registerNodes(ctx context.Context) {
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

// awaitReady closes p.ready once every readiness check passes.
func (p *plane) awaitReady(ctx context.Context) {
	for {
		if p.isReadyNow() {
			close(p.ready)
			return
		}
		t := p.clock.NewTimer(20 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C():
		}
	}
}

// Ready is closed once the control plane is ready to serve a user.
func (p *plane) Ready() <-chan struct{} { return p.ready }

func (p *plane) isReadyNow() bool {
	for _, c := range p.checks {
		if c.Check() != nil {
			return false
		}
	}
	return true
}

// readyChecks are the plane's checks of /readyz, each a fact about one
// part, so that /readyz?verbose says which part is not ready:
//
//	informer-sync                  the simulated kubelets' and scheduler's informers have synced
//	poststarthook/register-nodes   the simulated nodes are registered
//	controller-manager             an instance leads, its controllers synced (only when a controller is on)
//
// A plane whose controllers are all off is ready once the first two pass.
func (p *plane) readyChecks() []httpapi.HealthChecker {
	checks := []httpapi.HealthChecker{
		httpapi.NamedCheck("informer-sync", p.checkInformers),
		httpapi.NamedCheck("poststarthook/register-nodes", p.checkNodesRegistered),
	}
	if len(p.insts) > 0 {
		checks = append(checks, httpapi.NamedCheck("controller-manager", p.checkControllerManager))
	}
	return checks
}

// checkInformers passes once nodesim's informers have synced and handed
// their initial lists to its handlers.
func (p *plane) checkInformers() error {
	if p.nodes.HasSynced() {
		return nil
	}
	var unsynced []string
	for _, resource := range p.nodeF.Resources() {
		if !p.nodeF.ForResource(resource).HasSynced() {
			unsynced = append(unsynced, resource)
		}
	}
	if len(unsynced) == 0 {
		return errors.New("nodesim's handlers have not had their informers' initial lists")
	}
	return fmt.Errorf("nodesim's informers of %s have not synced", strings.Join(unsynced, ", "))
}

// checkNodesRegistered passes once the simulated nodes exist.
func (p *plane) checkNodesRegistered() error {
	select {
	case <-p.registered:
		return nil
	default:
	}
	p.mu.Lock()
	err := p.registerErr
	p.mu.Unlock()
	if err != nil {
		return fmt.Errorf("registering %d simulated nodes failed: %w", p.cfg.Options.Nodes, err)
	}
	return fmt.Errorf("registering %d simulated nodes", p.cfg.Options.Nodes)
}

// checkControllerManager passes while some instance leads (or runs
// unelected) with every enabled controller's caches synced.
func (p *plane) checkControllerManager() error {
	var why error
	for _, in := range p.insts {
		h := in.Health()
		if !h.Leading {
			continue
		}
		if h.Controllers == nil {
			why = fmt.Errorf("%s leads but has not built its controllers", h.Identity)
			continue
		}
		var unsynced []string
		for _, c := range h.Controllers {
			if c.Enabled && !c.Synced {
				unsynced = append(unsynced, c.Name)
			}
		}
		if len(unsynced) == 0 {
			return nil
		}
		why = fmt.Errorf("%s leads but its %s not synced", h.Identity, strings.Join(unsynced, ", "))
	}
	if why != nil {
		return why
	}
	le := p.cfg.Options.LeaderElection
	return fmt.Errorf("no instance holds the lease %s/%s", le.ResourceNamespace, le.ResourceName)
}

// leader returns the identity of the instance that leads now, or "".
func (p *plane) leader() string {
	for _, in := range p.insts {
		if in.Health().Leading {
			return in.Identity()
		}
	}
	return ""
}

// writeMetrics adds to /metrics what the controller managers know: each
// instance's election state and the workqueues of its running controllers,
// and the simulated kubelets' queue.
func (p *plane) writeMetrics(w io.Writer) {
	if p.faults != nil {
		p.faults.WriteMetrics(w)
	}
	if len(p.insts) > 0 {
		fmt.Fprintf(w, "# HELP leader_election_master_status 1 if the instance leads the lease, else 0.\n# TYPE leader_election_master_status gauge\n")
	}
	var queues []workqueue.Labeled
	for _, in := range p.insts {
		leading := 0
		if in.Health().Leading {
			leading = 1
		}
		fmt.Fprintf(w, "leader_election_master_status{name=%q,instance=%q} %d\n", p.cfg.Options.LeaderElection.ResourceName, in.Identity(), leading)
		for _, m := range in.QueueMetrics() {
			queues = append(queues, workqueue.Labeled{Labels: fmt.Sprintf("instance=%q", in.Identity()), Metrics: m})
		}
	}
	queues = append(queues, workqueue.Labeled{Labels: `instance="nodesim"`, Metrics: p.nodes.Queue().Metrics()})
	if err := workqueue.WritePrometheus(w, queues); err != nil {
		p.log.Debug("writing workqueue metrics", zap.Error(err))
	}
}

// leaseSettings are the instances' election settings.
func (p *plane) leaseSettings() manager.LeaderElectionOptions { return p.cfg.Options.LeaderElection }

// killLeader ends the leading instance as a crash would: no release, its
// lease left to expire.
func (p *plane) killLeader() error {
	for _, in := range p.insts {
		if in.Health().Leading {
			in.kill()
			<-in.done
			return nil
		}
	}
	return errors.New("demo: no leader to kill")
}

// firstWriteAfter returns the time of the first controller write after t
// by any instance.
func (p *plane) firstWriteAfter(t time.Time) (time.Time, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	i := slices.IndexFunc(p.writes, func(w controllerWrite) bool { return w.at.After(t) })
	if i < 0 {
		return time.Time{}, false
	}
	return p.writes[i].at, true
}

// recordWrite notes a controller write; only the first after the latest
// recorded one matters to the demo, and a bounded log keeps memory flat.
func (p *plane) recordWrite(identity string) {
	at := p.clock.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.writes); n > 0 && p.writes[n-1].identity == identity {
		return // the same instance keeps writing: the first write of its run is recorded
	}
	p.writes = append(p.writes, controllerWrite{identity: identity, at: at})
}

// recordingClient notes each successful write an instance's controllers
// make, so the demo can time a failover from the crash to the new leader's
// first write. Writes to leases are the election's, not the controllers'.
type recordingClient struct {
	apiserver.Client
	p        *plane
	identity string
}

func (c *recordingClient) note(obj api.Object, err error) (api.Object, error) {
	if err == nil {
		if _, lease := obj.(*api.Lease); !lease {
			c.p.recordWrite(c.identity)
		}
	}
	return obj, err
}

func (c *recordingClient) Create(ctx context.Context, obj api.Object) (api.Object, error) {
	return c.note(c.Client.Create(ctx, obj))
}

func (c *recordingClient) Update(ctx context.Context, obj api.Object) (api.Object, error) {
	return c.note(c.Client.Update(ctx, obj))
}

func (c *recordingClient) UpdateStatus(ctx context.Context, obj api.Object) (api.Object, error) {
	return c.note(c.Client.UpdateStatus(ctx, obj))
}

func (c *recordingClient) Delete(ctx context.Context, resource, namespace, name string, opts api.DeleteOptions) (api.Object, error) {
	obj, err := c.Client.Delete(ctx, resource, namespace, name, opts)
	if err == nil && resource != apiserver.Leases {
		c.p.recordWrite(c.identity)
	}
	return obj, err
}
