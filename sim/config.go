package sim

import (
	"context"
	"io"
	"time"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/informer"
	"github.com/miniplane/miniplane/internal/clock"
)

// Defaults of Config.
const (
	DefaultNodes          = 3
	DefaultWriteFaultRate = 0.05
	DefaultFaultEvery     = 20 * time.Second
	// DefaultConvergeWithin bounds the virtual time from the end of the
	// faults to quiescence. It is longer than the replication
	// controller's five-minute expectations timeout, the slowest
	// self-healing path there is.
	DefaultConvergeWithin = 10 * time.Minute
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
	// Instances is how many controller-manager instances run (default 1).
	// More than one needs Elect: without leader election they would all
	// act at once.
	Instances int
	// Elect makes an instance's leader elector; nil means a single
	// instance that always leads, with a new term each time it starts.
	// This is the seam to the election package.
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
	// be quiet (default 10m).
	ConvergeWithin time.Duration
	// Controllers are built, besides the replication, endpoints and
	// garbage collector controllers, by each instance each time it starts
	// leading.
	Controllers []ControllerFunc
	// Invariants are checked, besides the built-in ones, whenever the
	// system is quiet and no fault is in force.
	Invariants []Invariant
	// Trace, if set, receives the trace as JSON lines.
	Trace io.Writer
	// Logger receives the components' logs; nil means none.
	Logger *zap.Logger

	// ReplicationWithoutExpectations plants a known bug for testing the
	// simulator itself: the replication controller forgets its
	// expectations before every sync, so it acts on caches that have not
	// seen its own writes yet.
	ReplicationWithoutExpectations bool
}

func (c Config) withDefaults() Config {
	if c.Instances <= 0 {
		c.Instances = 1
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

// Controller is what the simulator steps: every controller package's
// *Controller satisfies it, and so must a controller author's.
type Controller interface {
	// ProcessOne does one unit of work, if there is one ready, and
	// reports whether it did.
	ProcessOne(ctx context.Context) bool
	// HasSynced reports whether the controller's handlers have been
	// handed their informers' initial lists; the simulator steps it only
	// then, as Run would.
	HasSynced() bool
}

// ControllerContext is what a ControllerFunc builds a controller with: the
// instance's informer factory and clock, and a Client whose writes go
// through the fault injection, the leader's guard and the trace.
type ControllerContext struct {
	Instance string
	Client   apiserver.Client
	Factory  *informer.Factory
	Clock    clock.Clock
	Logger   *zap.Logger
}

// ControllerFunc builds one controller for an instance's term.
type ControllerFunc struct {
	Name string
	New  func(cc ControllerContext) (Controller, error)
}

// Invariant is a condition on the whole system, checked when it is quiet.
// Check returns nil when the condition holds, or an error saying what is
// wrong.
type Invariant struct {
	Name  string
	Check func(ctx context.Context, s *Sim) error
}

// Leadership is what the simulator needs of one instance's leader elector.
// election.Elector fits it with its guard's Client.
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
	Guard(c apiserver.Client) apiserver.Client
}

// NewLeadership makes the elector of instance name, writing its lease
// through c and reading time from clk.
type NewLeadership func(name string, c apiserver.Client, clk clock.Clock) (Leadership, error)

// solo is the leadership of a lone instance: it always leads, and each start
// is a new term.
type solo struct{ term int64 }

func (l *solo) Step(context.Context) time.Time            { return time.Time{} }
func (l *solo) IsLeader() bool                            { return true }
func (l *solo) Term() int64                               { return l.term }
func (l *solo) Guard(c apiserver.Client) apiserver.Client { return c }
