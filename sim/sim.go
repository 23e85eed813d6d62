package sim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/nodelifecycle"
	"github.com/miniplane/miniplane/controllers/nodesim"
	"github.com/miniplane/miniplane/controllers/scheduler"
	"github.com/miniplane/miniplane/informer"
)

// faultOdds is one in how many steps a due fault strikes before, while
// other steps are runnable.
const faultOdds = 8

// maxStepsAtOneInstant bounds the steps taken without virtual time moving:
// more means components keep each other busy forever (a livelock).
const maxStepsAtOneInstant = 500_000

// Sim is a simulated control plane driven from one goroutine: API server
// and store, nodesim, and controller-manager instances with their
// informers, queues and controllers. Every step is drawn from the seed, so
// a run is a function of Config. A Sim is not safe for concurrent use.
type Sim struct {
	cfg   Config
	clock *clock.Fake
	srv   *apiserver.Server
	trace *Trace

	sched     *rand.Rand // which runnable step goes next
	faultRand *rand.Rand // which faults strike, when and where
	userRand  *rand.Rand // the scenario's numbers

	steps     int
	inStep    bool // a step is being taken: its events are step steps+1
	instantAt time.Time
	instantN  int
	violation *Violation
	injecting bool
	nextFault time.Time
	unhealed  int // faults in force that a timed event will heal
	epoch     int // bumped by whatever may wake a reflector besides a write or time: see idleState
	timed     []timedEvent
	timedSeq  int
	instances []*instance
	nodes     *nodesim.Controller
	nodeInfs  []*namedInformer
	nodeCtrl  *ctrlState
	// clusterCtrls are the scheduler's and the node lifecycle
	// controller's, on nodesim's informers.
	clusterCtrls []*ctrlState
	watches      []*simWatch
	user         *recordingClient
	lastRev      int64
	// dirty says something the quiet-time invariants look at may have
	// changed since they last held: a write other than a lease renewal, a
	// grace period's end, a fault or a scripted action.
	dirty bool

	lastWriteRev int64
	lastTerm     int64
	lastTermBy   *instance
	termOwner    map[int64]*instance
	maxReplicas  map[api.UID]int32
	// rsReplicas is each replica set's spec.replicas as the deployment
	// controller last wrote it (deployment-surge).
	rsReplicas map[api.UID]int32

	cands []candidate
}

// timedEvent is something the simulator does at a virtual time: a
// scenario action or the healing of a fault (work: the system is not quiet
// while one is pending).
type timedEvent struct {
	at   time.Time
	seq  int
	work bool
	fn   func(ctx context.Context)
}

// New builds a simulation: the API server with its nodes, nodesim, and the
// controller-manager instances. It starts no goroutine; Step, RunFor and
// RunUntilQuiet drive it.
func New(ctx context.Context, cfg Config) (*Sim, error) {
	cfg = cfg.withDefaults()
	if cfg.Elect == nil {
		cfg.Elect = newElected(cfg.Logger.Named("election"))
	}
	s := &Sim{
		cfg:         cfg,
		clock:       clock.NewFake(Epoch),
		trace:       newTrace(cfg.Trace, cfg.TraceDetail),
		sched:       rand.New(rand.NewPCG(cfg.Seed, 1)),
		faultRand:   rand.New(rand.NewPCG(cfg.Seed, 2)),
		userRand:    rand.New(rand.NewPCG(cfg.Seed, 3)),
		termOwner:   map[int64]*instance{},
		maxReplicas: map[api.UID]int32{},
		rsReplicas:  map[api.UID]int32{},
	}
	s.instantAt = s.clock.Now()
	srv, err := apiserver.New(apiserver.Config{
		Clock: s.clock, Rand: rand.New(rand.NewPCG(cfg.Seed, 4)), Logger: cfg.Logger.Named("apiserver"),
		CheckMutations: !cfg.SkipMutationCheck,
	})
	if err != nil {
		return nil, err
	}
	s.srv = srv
	s.user = &recordingClient{Client: srv, s: s, actor: "user"}

	nodeClient := &faultClient{s: s, actor: "nodesim"}
	nodeWrites := &recordingClient{Client: nodeClient, s: s, actor: "nodesim"}
	nodeFactory := informer.NewFactory(nodeClient, "", s.clock, cfg.Logger.Named("nodesim"))
	s.nodes, err = nodesim.New(nodesim.Config{
		Client: nodeWrites, Factory: nodeFactory,
		Clock: s.clock, Logger: cfg.Logger, Nodes: cfg.Nodes,
	})
	if err != nil {
		return nil, err
	}
	// The scheduler shares the kubelets' informers, as the plane runs it,
	// and writes as itself.
	schedClient := &faultClient{s: s, actor: "scheduler"}
	schedWrites := &recordingClient{Client: schedClient, s: s, actor: "scheduler"}
	sched, err := scheduler.New(scheduler.Config{
		Client: schedWrites, Binder: binder{schedClient, schedWrites}, Factory: nodeFactory,
		Clock: s.clock, Logger: cfg.Logger,
	})
	if err != nil {
		return nil, err
	}
	// So does the node lifecycle controller.
	lifeClient := &faultClient{s: s, actor: "nodelifecycle"}
	life, err := nodelifecycle.New(nodelifecycle.Config{
		Client: &recordingClient{Client: lifeClient, s: s, actor: "nodelifecycle"}, Factory: nodeFactory,
		Clock: s.clock, Logger: cfg.Logger,
	})
	if err != nil {
		return nil, err
	}
	s.clusterCtrls = []*ctrlState{
		{name: "scheduler", c: sched, queue: sched.Queue()},
		{name: "nodelifecycle", c: life, queue: life.Queue()},
	}
	// The informers are listed once every handler is registered: their
	// registrations are the dispatch steps.
	s.nodeInfs = informersOf(nodeFactory, "nodesim", []string{client.Nodes, client.Pods, client.ConfigMaps, client.Secrets, client.Services, client.PersistentVolumeClaims, client.PodDisruptionBudgets})
	s.nodeCtrl = &ctrlState{name: "nodesim", c: s.nodes, queue: s.nodes.Queue()}
	if err := s.nodes.EnsureNodes(ctx); err != nil {
		return nil, err
	}

	for i := range cfg.Instances {
		in := &instance{id: i, name: "m" + strconv.Itoa(i)}
		if cfg.Faults.Has(Skew) {
			in.skew = between(s.faultRand, -3*time.Second, 3*time.Second)
		}
		in.clock = skewedClock{f: s.clock, skew: in.skew}
		if err := s.startInstance(in); err != nil {
			return nil, err
		}
		s.instances = append(s.instances, in)
	}
	return s, nil
}

// Server returns the API server.
func (s *Sim) Server() *apiserver.Server { return s.srv }

// Client returns the client of the simulation's user: its writes are
// traced but never fail by injection.
func (s *Sim) Client() client.Client { return s.user }

// NodeSim returns the simulated kubelets.
func (s *Sim) NodeSim() *nodesim.Controller { return s.nodes }

// Clock returns the virtual clock.
func (s *Sim) Clock() *clock.Fake { return s.clock }

// Elapsed returns the virtual time since the start of the run.
func (s *Sim) Elapsed() time.Duration { return s.clock.Now().Sub(Epoch) }

// Steps returns how many steps have run.
func (s *Sim) Steps() int { return s.steps }

// Trace returns the run's trace.
func (s *Sim) Trace() *Trace { return s.trace }

// Rand returns the source of the scenario's choices: use it, not another,
// for anything a test draws, so the run stays a function of the seed.
func (s *Sim) Rand() *rand.Rand { return s.userRand }

// Err returns the violation that stopped the run, if any.
func (s *Sim) Err() error {
	if s.violation == nil {
		return nil
	}
	return s.violation
}

func (s *Sim) record(ev Event) {
	ev.T = s.Elapsed()
	ev.Step = s.steps
	if s.inStep {
		ev.Step++
	}
	if ev.Rev == 0 {
		ev.Rev = s.srv.Store().Rev()
	}
	s.trace.add(ev)
}

// At schedules fn at virtual time Epoch+at (at once if that has passed);
// the system is not quiet while it is pending.
func (s *Sim) At(at time.Duration, fn func(ctx context.Context)) {
	s.schedule(Epoch.Add(at), true, fn)
}

func (s *Sim) schedule(at time.Time, work bool, fn func(ctx context.Context)) {
	s.timedSeq++
	ev := timedEvent{at: at, seq: s.timedSeq, work: work, fn: fn}
	i, _ := slices.BinarySearchFunc(s.timed, ev, func(a, b timedEvent) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return a.seq - b.seq
	})
	s.timed = slices.Insert(s.timed, i, ev)
}

// Step takes one step: a due timed event or fault, or one runnable step
// drawn from the seed. It reports whether it did anything; false means
// only time can bring more work. It returns the violation that stopped the
// run, if any.
func (s *Sim) Step(ctx context.Context) (bool, error) {
	if s.violation != nil {
		return false, s.violation
	}
	s.inStep = true
	did := s.step(ctx)
	s.inStep = false
	if did {
		s.steps++
		if now := s.clock.Now(); now.Equal(s.instantAt) {
			s.instantN++
			if s.instantN > maxStepsAtOneInstant {
				s.violate("progress", fmt.Sprintf("%d steps without virtual time moving: a livelock", s.instantN))
			}
		} else {
			s.instantAt, s.instantN = now, 0
		}
		rev := s.srv.Store().Rev()
		if rev < s.lastRev {
			s.violate("revisions-rise", fmt.Sprintf("store revision went from %d to %d", s.lastRev, rev))
		}
		if rev > s.lastRev {
			// After a step that wrote: a few stored objects, in turn, and
			// any the write replaced; all of them when the system is quiet
			// (Check). Checking every one every step would cost many times
			// the run.
			if err := s.srv.CheckSomeMutations(mutationChecksPerWrite); err != nil {
				s.violate("objects-immutable", err.Error())
			}
		}
		s.lastRev = max(s.lastRev, rev)
	}
	return did, s.Err()
}

// mutationChecksPerWrite is how many stored objects Step compares with
// their fingerprints after a step that wrote (apiserver's
// CheckSomeMutations).
const mutationChecksPerWrite = 4

func (s *Sim) step(ctx context.Context) bool {
	now := s.clock.Now()
	if len(s.timed) > 0 && !s.timed[0].at.After(now) {
		ev := s.timed[0]
		s.timed = slices.Delete(s.timed, 0, 1)
		ev.fn(ctx)
		s.epoch++
		s.dirty = true
		return true
	}
	s.cands = s.collect(s.cands[:0], now)
	if s.injecting && !s.nextFault.IsZero() && !now.Before(s.nextFault) {
		// A due fault waits for something to be going on and strikes
		// between two of its steps — mid-reconcile, between a write and
		// its delivery — at a point drawn from the seed; if nothing goes
		// on for FaultEvery, it strikes anyway.
		overdue := now.Sub(s.nextFault) >= s.cfg.FaultEvery
		if overdue || (len(s.cands) > 0 && s.faultRand.IntN(faultOdds) == 0) {
			s.injectRandomFault(ctx)
			s.scheduleNextFault()
			s.epoch++
			s.dirty = true
			return true
		}
	}
	for len(s.cands) > 0 {
		i := s.sched.IntN(len(s.cands))
		if s.run(ctx, s.cands[i]) {
			return true
		}
		s.cands[i] = s.cands[len(s.cands)-1]
		s.cands = s.cands[:len(s.cands)-1]
	}
	return false
}

// RunFor runs the system for d of virtual time, injecting the configured
// faults, and stops early at a violation.
func (s *Sim) RunFor(ctx context.Context, d time.Duration) error {
	end := s.clock.Now().Add(d)
	s.injecting = s.cfg.Faults&^(FaultSet(0).With(Skew)) != 0
	defer func() { s.injecting = false; s.nextFault = time.Time{} }()
	if s.injecting {
		s.scheduleNextFault()
	}
	for ctx.Err() == nil {
		did, err := s.Step(ctx)
		if err != nil {
			return err
		}
		if did {
			continue
		}
		if s.quietNow(false) {
			if err := s.checkQuiet(ctx); err != nil {
				return err
			}
		}
		next, ok := s.nextWake(true)
		if !ok || next.After(end) {
			s.clock.SetTime(end)
			return nil
		}
		s.clock.SetTime(next)
	}
	return ctx.Err()
}

// RunUntilQuiet runs the system, injecting no new fault, until nothing is
// left to do but periodic work (lease renewals, resyncs) and every fault
// has healed; then it checks the invariants that hold at quiescence. It
// fails if that takes more than within of virtual time.
func (s *Sim) RunUntilQuiet(ctx context.Context, within time.Duration) error {
	deadline := s.clock.Now().Add(within)
	for ctx.Err() == nil {
		did, err := s.Step(ctx)
		if err != nil {
			return err
		}
		if did {
			continue
		}
		if s.quietNow(true) {
			return s.checkQuiet(ctx)
		}
		next, ok := s.nextWake(true)
		if !ok || next.After(deadline) {
			s.violate("converges", fmt.Sprintf("not quiet %v after the last fault: %s", within, s.busyWith()))
			return s.violation
		}
		s.clock.SetTime(next)
	}
	return ctx.Err()
}

// quietNow reports whether the system has nothing left to do but periodic
// work, with every fault healed: the moment for the quiet-time invariants.
// With scripted, a pending scripted action (At) counts as something to do.
func (s *Sim) quietNow(scripted bool) bool {
	if s.unhealed > 0 {
		return false
	}
	for _, in := range s.instances {
		if !in.up || in.paused {
			return false
		}
	}
	_, busy := s.nextWork(scripted)
	return !busy && s.leader() != nil
}

// leader returns the instance whose controllers run, if any.
func (s *Sim) leader() *instance {
	for _, in := range s.instances {
		if in.up && in.term != 0 && in.lead.IsLeader() {
			return in
		}
	}
	return nil
}

// nextWake returns the earliest virtual time at which something will have
// work: with periodic, anything at all (lease renewals, resyncs and fault
// injection included); without, only real work — queued delays, backoffs,
// grace periods, pending timed events. Times not after now are skipped:
// their steps were tried already, except due clock timers, which fire when
// the clock is set.
func (s *Sim) nextWake(periodic bool) (time.Time, bool) {
	if !periodic {
		return s.nextWork(true)
	}
	return s.next(true, true)
}

// nextWork is nextWake(false), counting pending timed events (scripted
// actions, heals) as work only when timed is set.
func (s *Sim) nextWork(timed bool) (time.Time, bool) { return s.next(false, timed) }

func (s *Sim) next(periodic, timed bool) (time.Time, bool) {
	now := s.clock.Now()
	var best time.Time
	consider := func(t time.Time, ok bool) {
		if ok && t.After(now) && (best.IsZero() || t.Before(best)) {
			best = t
		}
	}
	for _, ev := range s.timed { // in time order: the first that counts is the earliest
		if (ev.work && timed) || periodic {
			consider(ev.at, true)
			break
		}
	}
	consider(s.srv.NextSweep())
	s.eachController(func(in *instance, c *ctrlState) {
		if c.queue == nil || c.periodic && !periodic {
			return
		}
		if at, ok := c.queue.NextDelayed(); ok {
			consider(at.Add(-skewOf(in)), true) // the queue reads the instance's clock
		}
	})
	s.eachInformer(func(in *instance, ni *namedInformer) {
		if at, ok := ni.inf.Reflector().NextWake(); ok {
			consider(at.Add(-skewOf(in)), true)
		}
		if periodic && !ni.resyncAt.IsZero() {
			consider(ni.resyncAt, true)
		}
	})
	if periodic {
		for _, in := range s.instances {
			if in.up && !in.paused {
				consider(in.electAt, !in.electAt.IsZero())
			}
		}
		if s.injecting && !s.nextFault.IsZero() {
			if now.Before(s.nextFault) {
				consider(s.nextFault, true)
			} else {
				consider(s.nextFault.Add(s.cfg.FaultEvery), true) // when it is overdue
			}
		}
		if t, ok := s.clock.NextDeadline(); ok {
			if !t.After(now) {
				return now, true // fire it
			}
			consider(t, true)
		}
	}
	return best, !best.IsZero()
}

func skewOf(in *instance) time.Duration {
	if in == nil {
		return 0
	}
	return in.skew
}

// eachInformer calls fn for every running informer: nodesim's (in nil),
// then each up instance's.
func (s *Sim) eachInformer(fn func(in *instance, ni *namedInformer)) {
	for _, ni := range s.nodeInfs {
		fn(nil, ni)
	}
	for _, in := range s.instances {
		if in.up {
			for _, ni := range in.informers {
				fn(in, ni)
			}
		}
	}
}

// eachController calls fn for nodesim, the scheduler and the node
// lifecycle controller (in nil), then for the controllers of every up
// instance.
func (s *Sim) eachController(fn func(in *instance, c *ctrlState)) {
	fn(nil, s.nodeCtrl)
	for _, c := range s.clusterCtrls {
		fn(nil, c)
	}
	for _, in := range s.instances {
		if in.up {
			for _, c := range in.ctrls {
				fn(in, c)
			}
		}
	}
}

// busyWith says what keeps the system from being quiet, for a report.
func (s *Sim) busyWith() string {
	now := s.clock.Now()
	var what []string
	if s.unhealed > 0 {
		what = append(what, fmt.Sprintf("%d faults unhealed", s.unhealed))
	}
	for _, ev := range s.timed {
		if ev.work {
			what = append(what, "a scripted event in "+ev.at.Sub(now).String())
			break
		}
	}
	if at, ok := s.srv.NextSweep(); ok {
		what = append(what, "grace periods until "+at.Sub(now).String())
	}
	s.eachController(func(in *instance, c *ctrlState) {
		if c.queue == nil || c.periodic {
			return
		}
		if at, ok := c.queue.NextDelayed(); ok {
			what = append(what, fmt.Sprintf("%s has a key due in %v", actorOf(in, c.name), at.Add(-skewOf(in)).Sub(now)))
		}
	})
	s.eachInformer(func(in *instance, ni *namedInformer) {
		if at, ok := ni.inf.Reflector().NextWake(); ok {
			what = append(what, fmt.Sprintf("%s backs off for %v", ni.name, at.Add(-skewOf(in)).Sub(now)))
		}
	})
	if s.leader() == nil {
		what = append(what, "no leader")
	}
	if len(what) == 0 {
		return "nothing pending"
	}
	return fmt.Sprint(what)
}
