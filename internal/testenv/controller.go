package testenv

import (
	"context"
	"testing"

	"github.com/miniplane/miniplane/informer"
)

// SyncInformers brings informers up to date with the server in the calling
// goroutine: each reflector's pending list or watch events, each cache's
// queued deltas, each handler's queued notifications, round after round
// until none is left. It reports whether it did anything. A test's
// controller then sees what running informers would have handed it, with
// no goroutine and no waiting.
func SyncInformers(ctx context.Context, informers ...*informer.Informer) bool {
	did := false
	for progress := true; progress; {
		progress = false
		for _, inf := range informers {
			for inf.Reflector().Step(ctx) || inf.ProcessOne() {
				progress = true
			}
			for _, r := range inf.Registrations() {
				for r.DispatchOne() {
					progress = true
				}
			}
		}
		did = did || progress
	}
	return did
}

// Processor is a controller a test steps: loop.Loop and every controller
// that embeds it.
type Processor interface {
	ProcessOne(ctx context.Context) bool
}

// SettleController runs f's informers and c's syncs, one sync at a time,
// until neither has anything left to do at the clock's present time, as
// Settle does (maxRounds 0: 10,000). Moving a fake clock on, then settling
// again, is what a running controller manager does between two moments,
// deterministically.
func SettleController(tb testing.TB, ctx context.Context, f *informer.Factory, c Processor) {
	tb.Helper()
	Settle(tb, 0, func() bool { return SyncInformers(ctx, f.Informers()...) }, func() bool { return c.ProcessOne(ctx) })
}

// Step is one round of a test that runs several controllers side by side:
// it brings f's informers up to date (SyncInformers), then runs one sync of
// each controller in turn, and reports whether any of it had something to
// do. Between two syncs of one controller, each of the others sees its
// writes, as controllers running together would. Settle(tb, n, func() bool
// { return Step(ctx, f, cs...) }) runs rounds until none does anything.
func Step(ctx context.Context, f *informer.Factory, controllers ...Processor) bool {
	progressed := SyncInformers(ctx, f.Informers()...)
	for _, c := range controllers {
		if c.ProcessOne(ctx) {
			progressed = true
		}
	}
	return progressed
}
