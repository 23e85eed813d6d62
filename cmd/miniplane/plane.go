package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/apiserver/httpapi"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/manager"
	"github.com/miniplane/miniplane/controllers/nodesim"
	"github.com/miniplane/miniplane/controllers/workqueue"
	"github.com/miniplane/miniplane/informer"
)

// planeConfig says what control plane to start.
type planeConfig struct {
	// Addr is where the HTTP API listens; "127.0.0.1:0" picks a free port.
	Addr  string
	Token string
	// TLS, when set, makes the HTTP API serve HTTPS with it (tls.go).
	TLS *tls.Config
	// Instances is how many controller-manager instances run; with
	// leader election off there must be one.
	Instances int
	// Options are the controller manager's (Options.Nodes is the number of
	// simulated nodes).
	Options manager.Options
	// Nodes tunes the simulated kubelets; Client, Factory, Clock, Logger
	// and Nodes are filled in.
	NodeSim nodesim.Config
	// Seed seeds the API server's names and uids and the electors' jitter.
	Seed   uint64
	Clock  clock.Clock
	Logger *zap.Logger
	// ReleaseOnCancel makes a stopping instance release its lease, as a
	// clean shutdown does; without it, stopping is a crash.
	ReleaseOnCancel bool
}

// plane is a whole control plane in one process: the API server and its
// HTTP front, the simulated nodes, and several controller-manager
// instances competing for the lease, each with its own caches, as separate
// processes would have.
type plane struct {
	cfg   planeConfig
	clock clock.Clock
	log   *zap.Logger
	srv   *apiserver.Server
	http  *httpapi.Handler
	ln    net.Listener
	nodes *nodesim.Controller
	nodeF *informer.Factory
	insts []*planeInstance

	ready chan struct{} // closed once a leader runs and the nodes are registered

	// mu guards writes.
	mu     sync.Mutex
	writes []controllerWrite // each instance's first write after each kill
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
	p := &plane{cfg: cfg, clock: cfg.Clock, log: cfg.Logger, ready: make(chan struct{})}
	var err error
	p.srv, err = apiserver.New(apiserver.Config{
		Clock: cfg.Clock, Rand: rand.New(rand.NewPCG(cfg.Seed, 0x6d696e69)),
		Names:  apiserver.NewSeededNames(cfg.Seed), // the same pod names for one seed, whatever the goroutines' timing
		Logger: cfg.Logger.Named("apiserver"),
	})
	if err != nil {
		return nil, err
	}
	p.http, err = httpapi.New(httpapi.Config{
		Server: p.srv, Clock: cfg.Clock, Logger: cfg.Logger.Named("http"), Token: cfg.Token,
		Ready: p.isReady, Metrics: p.writeMetrics, Logs: nodeLogs{p},
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
	if p.nodes, err = nodesim.New(nc); err != nil {
		return nil, err
	}

	for i := range cfg.Instances {
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
	return p, nil
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
	var serveErr error
	wg.Go(func() {
		if err := httpapi.Serve(ctx, p.ln, p.http); err != nil {
			serveErr = err
			cancel(err)
		}
	})
	p.nodeF.Start(ctx)
	wg.Go(func() {
		defer p.nodeF.Shutdown()
		if err := p.nodes.EnsureNodes(ctx); err != nil && ctx.Err() == nil {
			p.log.Error("registering nodes", zap.Error(err))
		}
		p.nodes.Run(ctx, manager.NodeSimWorkers)
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

// awaitReady closes p.ready once some instance leads with synced
// controllers and the nodes are registered.
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

func (p *plane) isReady() bool {
	select {
	case <-p.ready:
		return true
	default:
		return false
	}
}

func (p *plane) isReadyNow() bool {
	if !p.nodes.HasSynced() {
		return false
	}
	nodes, _, err := apiserver.For[*api.Node](p.srv).List(context.Background(), "", apiserver.ListOptions{})
	if err != nil || len(nodes) < p.cfg.Options.Nodes {
		return false
	}
	for _, in := range p.insts {
		h := in.Health()
		if !h.Leading || h.Controllers == nil {
			continue
		}
		synced := true
		for _, c := range h.Controllers {
			synced = synced && (!c.Enabled || c.Synced)
		}
		if synced {
			return true
		}
	}
	return false
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
	fmt.Fprintf(w, "# HELP leader_election_master_status 1 if the instance leads the lease, else 0.\n# TYPE leader_election_master_status gauge\n")
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
