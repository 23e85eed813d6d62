package loop

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/informer"
)

// SweepKey is the one key a periodic controller's queue holds.
const SweepKey = "sweep"

// PeriodicConfig configures a periodic controller. Name, Informers, Clock,
// Period and Sweep are required.
type PeriodicConfig struct {
	// Name names the controller, its queue and its logger.
	Name string
	// Informers are the caches Sweep reads. The controller registers a
	// handler on each that queues nothing, so that HasSynced says when
	// each holds its initial list and Run waits for it.
	Informers []*informer.Informer
	// Clock is the queue's: it says when Period has passed.
	Clock clock.Clock
	// Period is the time from the end of one sweep to the next.
	Period time.Duration
	// Sweep does one round of the controller's work over its caches. An
	// error is logged and the sweep retried with backoff; the next
	// periodic sweep is queued either way.
	Sweep func(ctx context.Context) error
	// Logger is named Name; nil logs nothing.
	Logger *zap.Logger
	// Observer, if set, is told of every sweep.
	Observer Observer
}

// NewPeriodic returns a controller that sweeps once as soon as it runs (the
// key is queued now) and again Period after each sweep: a controller whose
// work is a scan of its caches rather than a reaction to one object's
// change. Kubernetes: wait.UntilWithContext(ctx, sweep, period) in the
// controller's Run, as podgc's gcc.gc and the CSR cleaner's worker do; here
// the wait is the queue's AddAfter, so the simulator steps it on its clock
// like any other key. It starts nothing.
func NewPeriodic(cfg PeriodicConfig) (*Controller, error) {
	switch {
	case cfg.Name == "":
		return nil, errors.New("loop.NewPeriodic: PeriodicConfig.Name is required")
	case len(cfg.Informers) == 0:
		return nil, fmt.Errorf("loop.NewPeriodic %s: PeriodicConfig.Informers is empty", cfg.Name)
	case cfg.Clock == nil:
		return nil, fmt.Errorf("loop.NewPeriodic %s: PeriodicConfig.Clock is required", cfg.Name)
	case cfg.Period <= 0:
		return nil, fmt.Errorf("loop.NewPeriodic %s: PeriodicConfig.Period must be positive", cfg.Name)
	case cfg.Sweep == nil:
		return nil, fmt.Errorf("loop.NewPeriodic %s: PeriodicConfig.Sweep is required", cfg.Name)
	}
	log := Logger(cfg.Logger)
	c := &Controller{queue: NewQueue(cfg.Name, cfg.Clock, nil)}
	for _, inf := range cfg.Informers {
		c.regs = append(c.regs, inf.AddEventHandler(informer.HandlerFuncs{}, 0))
	}
	sync := func(ctx context.Context, key string) error {
		if key != SweepKey {
			return nil
		}
		defer c.queue.AddAfter(SweepKey, cfg.Period)
		return cfg.Sweep(ctx)
	}
	l, err := New(Config{
		Name: cfg.Name, Queue: c.queue, Sync: sync, Informers: cfg.Informers, Registrations: c.regs,
		Logger: log.Named(cfg.Name), Observer: cfg.Observer, Clock: cfg.Clock,
	})
	if err != nil {
		return nil, err
	}
	c.Loop = l
	c.queue.Add(SweepKey)
	return c, nil
}
