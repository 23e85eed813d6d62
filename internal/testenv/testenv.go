// Package testenv is the scaffolding the tests of informers and controllers
// share: an API server in process on a fake clock, a logger, and the loop
// that steps reflectors, informers, handlers and controllers until none has
// work. It mirrors nothing in Kubernetes (controller-runtime's envtest is
// the nearest: a real API server for a controller's tests).
//
// Only _test.go files import it (internal/archtest checks), and it imports
// what those tests may: api, client, apiserver, informer, clock and zaptest.
// Nothing in it is safe for concurrent use but what apiserver and the
// clock promise.
package testenv

import (
	"math/rand/v2"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/clock"
)

// Epoch is where every test's fake clock starts.
func Epoch() time.Time { return time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC) }

// NewServer returns an API server built from cfg, with the fields a test
// leaves zero filled in: a fake clock at Epoch and a Rand of a fixed seed,
// so that names and uids are the same on every run. In a test (not a
// benchmark) the server checks that nothing changes a stored object in
// place (apiserver.Config.CheckMutations), and fails the test at its end,
// naming the object and the fields, if something did.
func NewServer(tb testing.TB, cfg apiserver.Config) (*apiserver.Server, *clock.Fake) {
	tb.Helper()
	clk, ok := cfg.Clock.(*clock.Fake)
	if cfg.Clock == nil {
		clk, ok = clock.NewFake(Epoch()), true
		cfg.Clock = clk
	}
	if !ok {
		tb.Fatalf("testenv: the server's clock is a %T, not a *clock.Fake", cfg.Clock)
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.New(rand.NewPCG(1, 2))
	}
	if _, bench := tb.(*testing.B); !bench {
		cfg.CheckMutations = true
	}
	srv, err := apiserver.New(cfg)
	if err != nil {
		tb.Fatalf("testenv: %v", err)
	}
	tb.Cleanup(func() {
		if err := srv.CheckMutations(); err != nil {
			tb.Errorf("testenv: %v", err)
		}
	})
	return srv, clk
}

// Logger returns a logger that writes warnings and errors to the test's
// log.
func Logger(tb testing.TB) *zap.Logger {
	return zaptest.NewLogger(tb, zaptest.Level(zap.WarnLevel))
}

// Settle calls every step in turn, each until it reports no more work, and
// goes round again until a whole round did nothing; a step is a
// Reflector.Step, an Informer.ProcessOne, a Registration.DispatchOne or a
// controller's ProcessOne, closed over its context. It fails the test when
// the steps have not run out of work after maxRounds rounds (0: 10,000), a
// livelock. It returns the number of rounds that did something.
func Settle(tb testing.TB, maxRounds int, steps ...func() bool) int {
	tb.Helper()
	if maxRounds <= 0 {
		maxRounds = 10_000
	}
	for round := range maxRounds {
		progress := false
		for _, step := range steps {
			for step() {
				progress = true
			}
		}
		if !progress {
			return round
		}
	}
	tb.Fatalf("testenv: the steps still had work after %d rounds", maxRounds)
	return maxRounds
}
