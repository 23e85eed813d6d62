package sim

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/garbagecollector"
	"github.com/miniplane/miniplane/controllers/manager"
	"github.com/miniplane/miniplane/controllers/workqueue"
	"github.com/miniplane/miniplane/informer"
)

// gcResources are the resources an instance runs informers for from its
// start, whether it leads or not: those the garbage collector graphs, as
// the controller manager's collector does (garbagecollector's default).
// Its controllers' own informers are added when it leads (adoptInformers).
func gcResources() []string { return garbagecollector.DefaultResources() }

// electorStream is the first of the random streams the electors draw
// their jitter from, one per incarnation.
const electorStream = 1 << 32

// namedInformer is an informer with the name the trace gives it.
type namedInformer struct {
	name     string
	inf      *informer.Informer
	held     bool      // StaleCache: its reflector and FIFO are not stepped
	resyncAt time.Time // when Resync is next due on the sim's clock; zero: never
	// regs are the informer's registrations, in the order they were
	// added, kept here so collecting candidates allocates nothing.
	regs []*informer.Registration
	// idle is the state in which the reflector last had nothing to do;
	// while the state is the same, it still has nothing (see collect).
	idle idleState
	// monitor marks an informer of a controller's own that comes and goes
	// while it leads (monitoring): the garbage collector's of a custom
	// resource.
	monitor bool
	// fifoMaybe and regsMaybe are false only when the FIFO, and every
	// handler's queue, were found empty and no step has since added to
	// them: only the reflector and Resync fill the FIFO, only a pop fills
	// the handlers' queues (and a new handler arrives with its initial
	// adds).
	fifoMaybe, regsMaybe bool
}

// idleState is what a reflector's having work depends on: the store's
// revision (new events), the time (backoffs) and the simulator's epoch
// (watches closed, history compacted, informers held or released).
type idleState struct {
	rev   int64
	at    time.Time
	epoch int
}

// ctrlState is one controller built for one term.
type ctrlState struct {
	name    string
	c       manager.Controller
	queue   *workqueue.Queue[string] // nil when the controller does not show its queue
	started bool                     // synced, and its start-up work done
	// periodic: its delayed keys are a timer's (Descriptor.Periodic),
	// not work left to do.
	periodic bool
}

// instance is one controller manager: its own clock view, informers,
// caches, elector and — while it leads — controllers and queues.
type instance struct {
	id     int
	starts int // incarnations so far
	name   string
	skew   time.Duration
	clock  clock.Clock

	up        bool
	client    *faultClient
	factory   *informer.Factory
	informers []*namedInformer
	lead      Leadership
	electAt   time.Time // when its elector is next due, on the sim's clock
	paused    bool

	term     int64 // the term its controllers were built for; 0: none
	ctrls    []*ctrlState
	ctrlRegs []ctrlReg
}

type ctrlReg struct {
	ni  *namedInformer
	reg *informer.Registration
}

// informersOf names the informers of a factory made for the given
// resources, with the registrations they have already.
func informersOf(f *informer.Factory, prefix string, resources []string) []*namedInformer {
	out := make([]*namedInformer, 0, len(resources))
	for _, r := range resources {
		inf := f.ForResource(r)
		out = append(out, &namedInformer{name: prefix + "/" + r, inf: inf, regs: inf.Registrations(), idle: idleState{rev: -1},
			fifoMaybe: true, regsMaybe: true})
	}
	return out
}

// startInstance brings an instance up with empty caches: a new factory,
// informers and elector. Its controllers are built when it leads.
func (s *Sim) startInstance(in *instance) error {
	in.up, in.paused, in.term, in.ctrls, in.ctrlRegs = true, false, 0, nil, nil
	in.client = &faultClient{s: s, actor: in.name, owner: in}
	in.factory = informer.NewFactory(in.client, "", in.clock, s.cfg.Logger.Named(in.name))
	in.informers = informersOf(in.factory, in.name, gcResources())
	leaseClient := &recordingClient{Client: in.client, s: s, actor: in.name + "/elector"}
	in.starts++
	identity := fmt.Sprintf("%s-%d", in.name, in.starts)
	r := rand.New(rand.NewPCG(s.cfg.Seed, electorStream+uint64(in.id)<<16+uint64(in.starts)))
	l, err := s.cfg.Elect(identity, leaseClient, in.clock, r)
	if err != nil {
		return fmt.Errorf("sim: elector of %s: %w", in.name, err)
	}
	in.lead = l
	in.electAt = s.clock.Now()
	return nil
}

// freshInformers gives the instance new informers with empty caches for a
// term it starts leading, as kube-controller-manager has: it starts its
// informers only once elected, and exits when it loses the lease, so every
// term begins with a fresh list. Informers kept from before the term could
// be stale (held back by a fault) and let a new leader act on pods it has
// not seen, which Kubernetes does not do.
func (s *Sim) freshInformers(in *instance) {
	s.stopWatches(in)
	in.factory = informer.NewFactory(in.client, "", in.clock, s.cfg.Logger.Named(in.name))
	in.informers = informersOf(in.factory, in.name, gcResources())
}

// stopWatches ends the watches the instance's informers hold.
func (s *Sim) stopWatches(in *instance) {
	for _, w := range s.watches {
		if w.owner == in && !w.stopped {
			w.Stop()
		}
	}
}

// crashInstance loses everything an instance holds in memory.
func (s *Sim) crashInstance(in *instance) {
	s.teardown(in)
	s.stopWatches(in)
	in.up, in.factory, in.informers, in.lead, in.client = false, nil, nil, nil, nil
}

// stepElector runs one election round of in and builds or drops its
// controllers as its leadership changed.
func (s *Sim) stepElector(ctx context.Context, in *instance) string {
	next := in.lead.Step(ctx)
	if next.IsZero() {
		in.electAt = time.Time{}
	} else {
		in.electAt = next.Add(-in.skew)
	}
	leading := in.lead.IsLeader()
	switch {
	case leading && in.term != in.lead.Term():
		s.teardown(in)
		s.freshInformers(in)
		s.noteTerm(in, in.lead.Term())
		s.build(in, in.lead.Term())
		return fmt.Sprintf("leading term=%d", in.term)
	case !leading && in.term != 0:
		s.teardown(in)
		return "lost the lease"
	case leading:
		return fmt.Sprintf("renewed term=%d", in.term)
	}
	return "following"
}

// build constructs the instance's controllers for a term.
func (s *Sim) build(in *instance, term int64) {
	before := map[*informer.Registration]bool{}
	for _, ni := range in.informers {
		for _, r := range ni.inf.Registrations() {
			before[r] = true
		}
	}
	in.term = term
	cl := func(name string) client.Client {
		return &recordingClient{Client: in.lead.Guard(in.client), s: s, actor: in.name + "/" + name, inst: in, term: term}
	}
	log := s.cfg.Logger.Named(in.name)
	// The built-in controllers are kube-controller-manager's, built as an
	// Instance builds them for a term (event recorders included), except
	// that each writes through a client of its own that names it in the
	// trace, and the simulator steps them instead of running them.
	opts := manager.DefaultOptions()
	opts.ReplicationWithoutExpectations = s.cfg.ReplicationWithoutExpectations
	ic := manager.InitContext{
		ClientFor: cl, Factory: in.factory, Clock: in.clock, Logger: log, Options: opts, Instance: in.name,
	}
	add := func(descriptors []manager.Descriptor) error {
		m, err := manager.New(ic, descriptors)
		if err != nil {
			return err
		}
		built, err := m.Build()
		for _, d := range descriptors {
			c, ok := built[d.Name]
			if !ok {
				continue // switched off (DisabledByDefault), or its build failed
			}
			st := &ctrlState{name: d.Name, c: c, periodic: d.Periodic}
			if q, ok := c.(interface {
				Queue() *workqueue.Queue[string]
			}); ok {
				st.queue = q.Queue()
			}
			in.ctrls = append(in.ctrls, st)
		}
		return err
	}
	if err := add(manager.DefaultDescriptors()); err != nil {
		panic(fmt.Sprintf("sim: building the controllers: %v", err)) // the built-ins' configs are fixed and valid
	}
	if err := add(s.cfg.Controllers); err != nil {
		s.violate("controller-builds", fmt.Sprintf("%s: %v", in.name, err))
	}
	s.adoptInformers(in)
	for _, ni := range in.informers {
		for _, r := range ni.inf.Registrations() {
			if !before[r] {
				in.ctrlRegs = append(in.ctrlRegs, ctrlReg{ni, r})
				ni.regs = append(ni.regs, r)
				ni.regsMaybe = true
			}
		}
		s.noteResync(in, ni)
	}
}

// adoptInformers adds to the instance's informers those its controllers
// asked the factory for that it did not have, so they are stepped too.
func (s *Sim) adoptInformers(in *instance) {
	have := make(map[string]bool, len(in.informers))
	for _, ni := range in.informers {
		have[ni.name] = true
	}
	for _, r := range in.factory.Resources() {
		if name := in.name + "/" + r; !have[name] {
			ni := informersOf(in.factory, in.name, []string{r})[0]
			ni.regs = nil // the build adds its registrations
			in.informers = append(in.informers, ni)
		}
	}
}

// teardown drops the instance's controllers: their handlers and queues go,
// and the informers of their own (monitors).
func (s *Sim) teardown(in *instance) {
	for _, cr := range in.ctrlRegs {
		cr.ni.inf.RemoveEventHandler(cr.reg)
		cr.ni.regs = slices.DeleteFunc(cr.ni.regs, func(r *informer.Registration) bool { return r == cr.reg })
	}
	in.informers = slices.DeleteFunc(in.informers, func(ni *namedInformer) bool { return ni.monitor })
	for _, c := range in.ctrls {
		if c.queue != nil {
			c.queue.ShutDown()
		}
	}
	in.ctrls, in.ctrlRegs, in.term = nil, nil, 0
}

// noteResync asks an informer when its next handler resync is due.
func (s *Sim) noteResync(in *instance, ni *namedInformer) {
	next := ni.inf.Resync()
	ni.fifoMaybe = true // it may have queued resyncs
	if next.IsZero() {
		ni.resyncAt = time.Time{}
		return
	}
	skew := time.Duration(0)
	if in != nil {
		skew = in.skew
	}
	ni.resyncAt = next.Add(-skew)
}

// startController does what a controller's Run does once its caches have
// synced, before its workers start.
func (s *Sim) startController(c *ctrlState) {
	c.started = true
	if ep, ok := c.c.(interface{ EnqueueLeftovers() }); ok {
		ep.EnqueueLeftovers()
	}
}

// monitoring is a controller with informers of its own that come and go
// as it runs: the garbage collector, whose monitors follow the custom
// resources that definitions add. Run syncs them in a goroutine; the
// simulator takes a sync as a step (stepMonitors) and steps their
// informers as it steps the factory's.
type monitoring interface {
	MonitorsPending() bool
	SyncMonitors(ctx context.Context)
	Monitors() map[string]*informer.Informer
}

// syncMonitors takes c's monitor sync and brings the instance's informers
// in line with its monitors: a new one is stepped from now on with the
// handler it has, a stopped one no more. It says what changed, for the
// trace.
func (s *Sim) syncMonitors(ctx context.Context, in *instance, c *ctrlState, m monitoring) string {
	m.SyncMonitors(ctx)
	now := m.Monitors()
	var changes []string
	kept := in.informers[:0]
	for _, ni := range in.informers {
		if ni.monitor && now[strings.TrimPrefix(ni.name, in.name+"/"+c.name+"/")] != ni.inf {
			for _, r := range ni.regs {
				ni.inf.RemoveEventHandler(r)
			}
			in.ctrlRegs = slices.DeleteFunc(in.ctrlRegs, func(cr ctrlReg) bool { return cr.ni == ni })
			changes = append(changes, "-"+strings.TrimPrefix(ni.name, in.name+"/"))
			continue
		}
		kept = append(kept, ni)
	}
	in.informers = kept
	have := map[*informer.Informer]bool{}
	for _, ni := range in.informers {
		have[ni.inf] = true
	}
	for _, res := range slices.Sorted(maps.Keys(now)) {
		inf := now[res]
		if have[inf] {
			continue
		}
		ni := &namedInformer{name: in.name + "/" + c.name + "/" + res, inf: inf, regs: inf.Registrations(), idle: idleState{rev: -1},
			fifoMaybe: true, regsMaybe: true, monitor: true}
		in.informers = append(in.informers, ni)
		for _, r := range ni.regs {
			in.ctrlRegs = append(in.ctrlRegs, ctrlReg{ni, r})
		}
		changes = append(changes, "+"+strings.TrimPrefix(ni.name, in.name+"/"))
	}
	return strings.Join(changes, " ")
}
