package sim

import (
	"context"
	"io"
	"math/rand/v2"
	"time"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/manager"
	"github.com/miniplane/miniplane/election"
)

// Defaults of Config.
const (
	DefaultInstances      = 3
	DefaultNodes          = 3
	DefaultWriteFaultRate = 0.05
	DefaultFaultEvery     = 20 * time.Second
	// DefaultConvergeWithin bounds the virtual time from the end of the
	// faults to quiescence. The slowest path there is takes the
	// replication controller's five-minute expectations timeout, then
	// the deployment controller's progress check: a sync that finds a
	// rollout under way queues the deployment again a second past its
	// progress deadline (600s by default) from the Progressing
	// condition's last update, as upstream's requeueStuckDeployment does,
	// and that delayed key stays queued even when the rollout completes
	// first.
	DefaultConvergeWithin = 20 * time.Minute
)

// Epoch is the virtual time every run starts at.
var Epoch = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

// Config configures a simulation. The zero value (plus a Seed) is a
// fault-free control plane of one controller-manager instance and three
// nodes.
type Config struct {
	// Seed draws every choice of the run: the order of steps, the faults,
	// the scenario's numbers, the server's uids and generated names.
	Seed uint64
	// Faults are the faults injected while RunFor runs.
	Faults FaultSet
	// Instances is how many controller-manager instances run (default 3);
	// they elect a leader, and only the leader's controllers run.
	Instances int
	// Elect makes an instance's leader elector; nil means the election
	// package's, with client-go's timings (15s lease, 10s renew deadline,
	// 2s retry period). A test may put its own here.
	Elect NewLeadership
	// Nodes is how many simulated nodes there are (default 3).
	Nodes int
	// WriteFaultRate is the chance that a write fails when Conflict or
	// ServerError is on (default 0.05).
	WriteFaultRate float64
	// FaultEvery is the mean virtual time between two discrete faults
	// (default 20s).
	FaultEvery time.Duration
	// ConvergeWithin bounds how long after the last fault the system must
	// be quiet (default 20m).
	ConvergeWithin time.Duration
	// Controllers are registered as the controller manager's own are
	// (manager.DefaultDescriptors: the replication, replica set, deployment,
	// endpoints, garbage collector and service account controllers, with their event recorders), and each
	// instance builds them after those each time it starts leading. Init
	// gets the instance's name, informer factory and clock, and a Client
	// whose writes go through the fault injection, the leader's guard and
	// the trace; the simulator steps the controller (ProcessOne) instead
	// of running it, so the worker count Init returns is not used.
	Controllers []manager.Descriptor
	// Invariants are checked, besides the built-in ones, whenever the
	// system is quiet and no fault is in force.
	Invariants []Invariant
	// Trace, if set, receives the trace as JSON lines.
	Trace io.Writer
	// TraceDetail is how much of the trace Trace receives (default
	// TraceFolded). The fingerprint covers every line whatever it is.
	TraceDetail TraceDetail
	// Logger receives the components' logs; nil means none.
	Logger *zap.Logger
	// Replay, if set, gives the command that replays a run of seed: a
	// Violation carries it. `miniplane sim` sets its own command line; a
	// test sets the `go test -run` line of its seed, as
	// planetest.ReplayCommand(t, seed) gives it.
	Replay func(seed uint64) string

	// SkipMutationCheck turns off the check, after every step, that no
	// object the store holds was changed in place (apiserver's
	// Config.CheckMutations; a change is the violation
	// "objects-immutable"), for a sweep that would rather be fast.
	SkipMutationCheck bool

	// ReplicationWithoutExpectations plants a known bug for testing the
	// simulator itself: the replication controllers are built with
	// replication.Config.WithoutExpectations (through
	// manager.Options.ReplicationWithoutExpectations), so each sync forgets its
	// expectations and acts on caches that have not seen its own writes yet.
	ReplicationWithoutExpectations bool
}

func (c Config) withDefaults() Config {
	if c.Instances <= 0 {
		c.Instances = DefaultInstances
	}
	if c.Nodes <= 0 {
		c.Nodes = DefaultNodes
	}
	if c.WriteFaultRate <= 0 {
		c.WriteFaultRate = DefaultWriteFaultRate
	}
	if c.FaultEvery <= 0 {
		c.FaultEvery = DefaultFaultEvery
	}
	if c.ConvergeWithin <= 0 {
		c.ConvergeWithin = DefaultConvergeWithin
	}
	if c.Logger == nil {
		c.Logger = zap.NewNop()
	}
	return c
}

// Invariant is a condition on the whole system, checked when it is quiet.
// Check returns nil when the condition holds, or an error saying what is
// wrong.
type Invariant struct {
	Name  string
	Check func(ctx context.Context, s *Sim) error
}

// Leadership is what the simulator needs of one instance's leader elector;
// an election.Elector with its guard provides it.
type Leadership interface {
	// Step makes one acquire-or-renew attempt and returns when the next
	// is due, on the instance's clock.
	Step(ctx context.Context) time.Time
	// IsLeader reports whether the instance holds the lease and may write.
	IsLeader() bool
	// Term identifies the current leadership; it rises with each change of
	// holder.
	Term() int64
	// Guard wraps a client so its writes are refused once leadership is
	// lost, even before the next Step.
	Guard(c client.Client) client.Client
}

// NewLeadership makes the elector of one incarnation of an instance:
// identity is unique to the incarnation ("m0-2": instance m0, second
// start), c reads and writes the lease, clk is the instance's clock, and
// r, drawn from the seed, may jitter its retries.
type NewLeadership func(identity string, c client.Client, clk clock.Clock, r *rand.Rand) (Leadership, error)

// elected is the election package's elector as a Leadership.
type elected struct{ e *election.Elector }

func (l elected) Step(ctx context.Context) time.Time  { return l.e.Step(ctx) }
func (l elected) IsLeader() bool                      { return l.e.IsLeader() }
func (l elected) Term() int64                         { return l.e.Term() }
func (l elected) Guard(c client.Client) client.Client { return l.e.Guard().Client(c) }

// newElected is the default NewLeadership.
func newElected(log *zap.Logger) NewLeadership {
	return func(identity string, c client.Client, clk clock.Clock, r *rand.Rand) (Leadership, error) {
		e, err := election.New(election.Config{Client: c, Clock: clk, Logger: log, Identity: identity, Rand: r})
		if err != nil {
			return nil, err
		}
		return elected{e}, nil
	}
}
