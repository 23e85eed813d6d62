package manager

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/workqueue"
	"github.com/miniplane/miniplane/election"
	"github.com/miniplane/miniplane/informer"
)

// InstanceConfig configures one controller-manager instance.
type InstanceConfig struct {
	// Client is the instance's connection to the API server. The elector
	// reads and writes the lease through it as is; the controllers, their
	// informers and their event recorders get it wrapped in the elector's
	// guard. Required.
	Client client.Client
	// Clock is the instance's clock (it may be offset from others').
	// Required.
	Clock clock.Clock
	// Logger receives the instance's logs; nil: none.
	Logger *zap.Logger
	// Identity is the instance's holder identity and event source host,
	// unique among instances (kube-controller-manager: hostname_uuid).
	// Required.
	Identity string
	// Options are the manager's settings, Options.LeaderElection included.
	Options Options
	// Descriptors are the controllers to run; nil: DefaultDescriptors().
	// Do not include nodesim: it runs once, outside election.
	Descriptors []Descriptor
	// Rand, if set, jitters the waits between attempts to acquire.
	Rand *rand.Rand
	// ReleaseOnCancel makes Run release the lease when its context ends
	// (a clean shutdown), so another instance takes over at its next
	// attempt. Without it, cancelling Run is a crash: the controllers stop
	// and the guard closes, but others must wait the lease out.
	ReleaseOnCancel bool
}

// Instance is one kube-controller-manager process: it campaigns for the
// lease and, for each term it wins, builds a fresh set of controllers over
// a fresh informer factory (caches and expectations rebuilt, as a restarted
// process would have them), runs them until the term ends, and stops them.
// Several instances may share one process and one API server; each has its
// own informers and caches. Create it with NewInstance.
type Instance struct {
	cfg     InstanceConfig
	log     *zap.Logger
	elector *election.Elector // nil when leader election is off

	// mu guards the fields below.
	mu      sync.Mutex
	current *Manager // the running term's manager; nil between terms
	terms   int      // terms this instance has started
	lastErr error    // a term's failure to start, which ends Run
	ran     bool
	fail    context.CancelCauseFunc // ends Run; set by Run
}

// NewInstance checks cfg and returns an instance. It starts nothing.
func NewInstance(cfg InstanceConfig) (*Instance, error) {
	if cfg.Client == nil || cfg.Clock == nil {
		return nil, errors.New("manager: InstanceConfig needs a Client and a Clock")
	}
	if cfg.Identity == "" {
		return nil, errors.New("manager: InstanceConfig.Identity is required")
	}
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	if cfg.Descriptors == nil {
		cfg.Descriptors = DefaultDescriptors()
	}
	names := make([]string, 0, len(cfg.Descriptors))
	for _, d := range cfg.Descriptors {
		names = append(names, d.Name)
	}
	if err := cfg.Options.Validate(names); err != nil {
		return nil, err
	}
	in := &Instance{cfg: cfg, log: cfg.Logger.With(zap.String("instance", cfg.Identity))}
	le := cfg.Options.LeaderElection
	if !le.LeaderElect {
		return in, nil
	}
	el, err := election.New(election.Config{
		Client: cfg.Client, Clock: cfg.Clock, Logger: in.log, Identity: cfg.Identity,
		Namespace: le.ResourceNamespace, Name: le.ResourceName,
		LeaseDuration: le.LeaseDuration, RenewDeadline: le.RenewDeadline, RetryPeriod: le.RetryPeriod,
		Rand: cfg.Rand, ReleaseOnCancel: cfg.ReleaseOnCancel,
		Callbacks: election.Callbacks{
			OnStartedLeading: func(ctx context.Context) {
				in.runTerm(ctx, in.elector.Guard().Client(in.cfg.Client))
			},
		},
	})
	if err != nil {
		return nil, err
	}
	in.elector = el
	return in, nil
}

// Elector returns the instance's elector, nil when leader election is off.
func (in *Instance) Elector() *election.Elector { return in.elector }

// Identity returns the instance's identity.
func (in *Instance) Identity() string { return in.cfg.Identity }

// Run campaigns and runs the controllers while leading, until ctx is done;
// with leader election off it runs them at once. It returns after every
// controller, informer and the elector have stopped. Its error is from
// building a term's controllers, which ends Run.
func (in *Instance) Run(ctx context.Context) error {
	ctx, fail := context.WithCancelCause(ctx)
	defer fail(nil)
	in.mu.Lock()
	if in.ran {
		in.mu.Unlock()
		return errors.New("manager: Instance.Run called twice")
	}
	in.ran, in.fail = true, fail
	in.mu.Unlock()

	if in.elector == nil {
		in.runTerm(ctx, in.cfg.Client)
	} else {
		in.elector.Run(ctx)
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.lastErr
}

// runTerm builds and runs one term's controllers until ctx ends.
func (in *Instance) runTerm(ctx context.Context, cl client.Client) {
	factory := informer.NewFactory(cl, "", in.cfg.Clock, in.log.Named("informers"))
	m, err := New(InitContext{
		Client: cl, Factory: factory, Clock: in.cfg.Clock, Logger: in.log,
		Options: in.cfg.Options, Instance: in.cfg.Identity,
	}, in.cfg.Descriptors)
	if err == nil {
		in.mu.Lock()
		in.current = m
		in.terms++
		in.mu.Unlock()
		err = m.Run(ctx)
	}
	in.mu.Lock()
	in.current = nil
	failed := err != nil && ctx.Err() == nil
	if failed {
		in.lastErr = fmt.Errorf("manager: instance %s: %w", in.cfg.Identity, err)
	}
	fail := in.fail
	in.mu.Unlock()
	if failed {
		// kube-controller-manager exits when a controller fails to start.
		in.log.Error("controllers failed to start", zap.Error(err))
		fail(err)
	}
}

// Controllers returns the running term's controllers by name; nil between
// terms.
func (in *Instance) Controllers() map[string]Controller {
	in.mu.Lock()
	m := in.current
	in.mu.Unlock()
	if m == nil {
		return nil
	}
	return m.Controllers()
}

// QueueMetrics returns the running term's workqueue metrics; nil between
// terms.
func (in *Instance) QueueMetrics() []workqueue.MetricsSnapshot {
	in.mu.Lock()
	m := in.current
	in.mu.Unlock()
	if m == nil {
		return nil
	}
	return m.QueueMetrics()
}

// InstanceHealth is what an instance reports about itself: its election
// state and, while it leads, its controllers.
type InstanceHealth struct {
	Identity string
	// LeaderElection is whether the instance is elected at all.
	LeaderElection bool
	// Leading is whether it holds the lease with its guard open (always
	// true with election off).
	Leading bool
	// Holder is the lease holder it last observed; Term its current or
	// last term (0: never led).
	Holder string
	Term   int64
	// LastRenew is the local time of its last successful acquire or renew.
	LastRenew time.Time
	// Terms counts the controller sets it has started.
	Terms int
	// Controllers is the running term's controllers; nil between terms.
	Controllers []Health
}

// Health reports the instance's election state and controllers.
func (in *Instance) Health() InstanceHealth {
	in.mu.Lock()
	m, terms := in.current, in.terms
	in.mu.Unlock()
	h := InstanceHealth{Identity: in.cfg.Identity, Terms: terms, Leading: true}
	if in.elector != nil {
		st := in.elector.Status()
		h.LeaderElection, h.Leading, h.Holder, h.Term, h.LastRenew = true, st.Leading, st.Holder, st.Term, st.LastRenew
	}
	if m != nil {
		h.Controllers = m.Health()
	}
	return h
}
