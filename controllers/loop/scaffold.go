package loop

import (
	"errors"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/workqueue"
	"github.com/miniplane/miniplane/informer"
)

// The helpers below are the preamble every controller's New shares: the
// fields each Config requires, its logger, its queue.

// CheckRequired returns the error a controller's New returns when one of
// the three fields every controller's Config requires is nil, in this order:
// "job: Config.Client is required" for prefix "job". It returns nil when all
// are set. client is the Config's Client, of the controller's own interface
// type.
func CheckRequired(prefix string, client any, factory *informer.Factory, clk clock.Clock) error {
	switch {
	case client == nil:
		return errors.New(prefix + ": Config.Client is required")
	case factory == nil:
		return errors.New(prefix + ": Config.Factory is required")
	case clk == nil:
		return errors.New(prefix + ": Config.Clock is required")
	}
	return nil
}

// Logger returns logger, or one that logs nothing when it is nil: a
// Config's Logger is optional.
func Logger(logger *zap.Logger) *zap.Logger {
	if logger == nil {
		return zap.NewNop()
	}
	return logger
}

// NewQueue returns a controller's queue of keys, named name (its metrics'
// name), on clk, with rl's backoff (nil: workqueue's default controller
// limiter).
func NewQueue(name string, clk clock.Clock, rl workqueue.RateLimiter[string]) *workqueue.Queue[string] {
	return workqueue.New(workqueue.Config[string]{Name: name, Clock: clk, RateLimiter: rl, Metrics: true})
}
