// Package planetest starts a whole miniplane control plane for a test:
// Start builds it from a plane.Config, runs it, waits until it is ready
// and stops it when the test ends, leaving no goroutine behind.
//
// Inside a testing/synctest bubble the plane's default clock (clock.Real)
// is the bubble's virtual clock and, without Config.Listen, nothing blocks
// on real I/O: reach the plane through p.Server() in process, or over
// HTTP in memory with client-go's rest.Config{Host: p.Host(), Transport:
// p.Transport()}. Start registers its cleanup with tb.Cleanup, which in
// synctest.Test runs inside the bubble, before the bubble's goroutines
// are checked. One caution there: a running plane always has a timer due
// (leases are renewed, kubelets heartbeat), so a test that blocks forever
// inside the bubble is not reported as a deadlock: virtual time runs on
// until the test's -timeout. Stop what waits on the test's context before
// waiting for it (cancel an informer factory's context before its
// Shutdown).
//
// The package imports plane, apiserver/faults (the trace's lines), clock
// and the standard library.
package planetest

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/miniplane/miniplane/plane"
)

// Start builds the plane cfg describes, runs it and returns once it is
// ready. When the test ends it stops the plane and waits for every
// goroutine the plane started; an error Run returns fails the test then.
// A plane that cannot be built, or whose Run ends before it is ready,
// fails the test at once. In a test (not a benchmark) the API server checks
// that nothing changed a stored object in place (plane.Config.CheckMutations),
// and a change fails the test when it ends, naming the object and fields.
//
// With faults on (cfg.Faults), Start keeps the injector's trace in memory
// (besides cfg.FaultTrace, if set); when the test fails, it writes the
// whole trace to a file that outlives the test and logs the file's path
// and the trace's last lines on the objects the failure names — the
// objects named in what Eventually and Judge said — so that a failed seed
// shows the faults that struck them without opting in.
func Start(tb testing.TB, cfg plane.Config) *plane.Plane {
	tb.Helper()
	if _, bench := tb.(*testing.B); !bench {
		cfg.CheckMutations = true
	}
	var trace *faultTrace
	if _, bench := tb.(*testing.B); !bench && cfg.Faults != 0 {
		trace = &faultTrace{}
		if cfg.FaultTrace != nil {
			cfg.FaultTrace = io.MultiWriter(cfg.FaultTrace, trace)
		} else {
			cfg.FaultTrace = trace
		}
	}
	p, err := plane.New(cfg)
	if err != nil {
		tb.Fatalf("planetest: %v", err)
	}
	if trace != nil {
		traces.Lock()
		traces.byTest[tb.Name()] = trace
		traces.Unlock()
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	stop := func() error {
		cancel()
		err := <-done
		if errors.Is(err, context.Canceled) {
			return nil
		}
		return err
	}
	select {
	case <-p.Ready():
	case err := <-done:
		cancel()
		tb.Fatalf("planetest: the plane stopped before it was ready: %v", err)
	}
	tb.Cleanup(func() {
		if err := stop(); err != nil {
			tb.Errorf("planetest: stopping the plane: %v", err)
		}
		if err := p.Server().CheckMutations(); err != nil {
			tb.Errorf("planetest: %v", err)
		}
		if trace == nil {
			return
		}
		traces.Lock()
		if traces.byTest[tb.Name()] == trace {
			delete(traces.byTest, tb.Name())
		}
		traces.Unlock()
		if tb.Failed() {
			tb.Logf("%s", trace.report(tb.Name(), SeedOf(tb)))
		}
	})
	return p
}
