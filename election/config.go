package election

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
)

// client-go's defaults, which kube-controller-manager and kube-scheduler use.
const (
	DefaultLeaseDuration = 15 * time.Second
	DefaultRenewDeadline = 10 * time.Second
	DefaultRetryPeriod   = 2 * time.Second

	// DefaultNamespace and DefaultName locate kube-controller-manager's lease.
	DefaultNamespace = "kube-system"
	DefaultName      = "kube-controller-manager"

	// JitterFactor bounds the validation RenewDeadline > JitterFactor ×
	// RetryPeriod, as client-go's, and the jitter added to waits while
	// acquiring when Config.Rand is set (up to JitterFactor × RetryPeriod).
	JitterFactor = 1.2
)

// Config configures one candidate. Zero durations take client-go's defaults.
type Config struct {
	// Client reads and writes the Lease. Lease writes are never guarded:
	// give the elector the plain client, and the controllers Guard().Client.
	Client client.Client
	// Clock is this instance's clock. Instances' clocks may be offset from
	// each other by any amount; they are assumed to run at the same rate.
	Clock clock.Clock
	// Logger receives the elector's logs (named "election"); nil: none.
	Logger *zap.Logger
	// Identity is this candidate's holder identity, unique per instance
	// (and per incarnation: a restarted process should pick a new one).
	// Required.
	Identity string
	// Namespace and Name locate the Lease; defaults "kube-system" and
	// "kube-controller-manager".
	Namespace, Name string
	// LeaseDuration is how long others wait, on their own clocks, after
	// observing a renewal before they may take the lease (default 15s). It
	// is written to the lease in whole seconds, rounded up.
	LeaseDuration time.Duration
	// RenewDeadline is how long a leader's guard stays open after each
	// successful acquire or renew, and how long a leader keeps retrying a
	// failed renew before it steps down (default 10s). It must be less than
	// LeaseDuration.
	RenewDeadline time.Duration
	// RetryPeriod is the wait between attempts (default 2s). RenewDeadline
	// must exceed JitterFactor × RetryPeriod.
	RetryPeriod time.Duration
	// ReleaseOnCancel makes Run give the lease up when its context ends, so
	// that another candidate takes over at its next attempt instead of
	// waiting out LeaseDuration.
	ReleaseOnCancel bool
	// Callbacks are what Run calls; all are optional.
	Callbacks Callbacks
	// Rand, when set, jitters the waits between attempts to acquire by up
	// to JitterFactor × RetryPeriod, as client-go does, so that candidates
	// started together do not poll in lock-step. Nil: no jitter. It is used
	// only under the elector's lock.
	Rand *rand.Rand
}

// Callbacks are the elector's hooks, client-go's LeaderCallbacks.
type Callbacks struct {
	// OnStartedLeading is called by Run, in its own goroutine, at the start
	// of each term. Its ctx is cancelled when the term ends (leadership lost
	// or Run's ctx done); it must return soon after, and Run waits for it
	// before it tries to lead again or returns.
	OnStartedLeading func(ctx context.Context)
	// OnStoppedLeading is called by Run once, when its loop ends, if the
	// elector ever led.
	OnStoppedLeading func()
	// OnNewLeader is called, synchronously from Step, when the holder Step
	// observes changes to a non-empty identity (this one included); a
	// holder seen again after the lease was free is reported again.
	OnNewLeader func(identity string)
}

// ErrInvalidConfig is wrapped by every error New returns.
var ErrInvalidConfig = errors.New("election: invalid config")

// withDefaults returns c with its zero fields defaulted.
func (c Config) withDefaults() Config {
	if c.Logger == nil {
		c.Logger = zap.NewNop()
	}
	if c.Namespace == "" {
		c.Namespace = DefaultNamespace
	}
	if c.Name == "" {
		c.Name = DefaultName
	}
	if c.LeaseDuration == 0 {
		c.LeaseDuration = DefaultLeaseDuration
	}
	if c.RenewDeadline == 0 {
		c.RenewDeadline = DefaultRenewDeadline
	}
	if c.RetryPeriod == 0 {
		c.RetryPeriod = DefaultRetryPeriod
	}
	return c
}

// validate checks a defaulted config with client-go's rules.
func (c Config) validate() error {
	invalid := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalidConfig, fmt.Sprintf(format, args...))
	}
	switch {
	case c.Client == nil:
		return invalid("Client is required")
	case c.Clock == nil:
		return invalid("Clock is required")
	case c.Identity == "":
		return invalid("Identity is required")
	case c.LeaseDuration < 0:
		return invalid("LeaseDuration must be greater than zero, got %s", c.LeaseDuration)
	case c.RenewDeadline < 0:
		return invalid("RenewDeadline must be greater than zero, got %s", c.RenewDeadline)
	case c.RetryPeriod < 0:
		return invalid("RetryPeriod must be greater than zero, got %s", c.RetryPeriod)
	case c.LeaseDuration <= c.RenewDeadline:
		return invalid("LeaseDuration (%s) must be greater than RenewDeadline (%s)", c.LeaseDuration, c.RenewDeadline)
	case float64(c.RenewDeadline) <= JitterFactor*float64(c.RetryPeriod):
		return invalid("RenewDeadline (%s) must be greater than %v × RetryPeriod (%s)", c.RenewDeadline, JitterFactor, c.RetryPeriod)
	}
	return nil
}

// leaseSeconds is LeaseDuration in whole seconds, rounded up so that the
// recorded duration is never shorter than the configured one.
func (c Config) leaseSeconds() int32 {
	s := (c.LeaseDuration + time.Second - 1) / time.Second
	return int32(min(s, 1<<31-1))
}
