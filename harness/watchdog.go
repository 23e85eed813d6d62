package harness

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/miniplane/miniplane/clock"
)

// StallTimeout is how long, in real time, a bubble's virtual time may
// stand still with one of its goroutines waiting on real I/O (a socket)
// before the watchdog ends the test binary, naming the cause. A bubble's
// virtual time moves only when all its goroutines are durably blocked; one
// waiting on a socket never is, so a plane's timers (leases, heartbeats,
// the test's own waits) never fire again and the test would hang until
// -timeout.
const StallTimeout = time.Second

// beatInterval is how often, in virtual time, a watched bubble says it is
// alive; the watchdog looks at the beats every quarter of StallTimeout.
const beatInterval = time.Second

// watchdog watches one test's bubble from outside it, on the real clock.
type watchdog struct {
	test  string
	clk   clock.Clock // real time: the watchdog runs outside the bubble
	beats atomic.Int64
	done  chan struct{}
	wg    sync.WaitGroup
}

// newWatchdog starts watching for the test named test; stop ends it. It
// must be called outside the bubble, so that its goroutine runs in real
// time.
func newWatchdog(test string) *watchdog {
	w := &watchdog{test: test, clk: clock.Real{}, done: make(chan struct{})}
	w.wg.Go(w.run)
	return w
}

func (w *watchdog) stop() {
	close(w.done)
	w.wg.Wait()
}

// beat runs inside the bubble until ctx ends, counting virtual seconds.
func (w *watchdog) beat(ctx context.Context) {
	for {
		t := w.clk.NewTimer(beatInterval) // inside the bubble, clock.Real is virtual
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C():
			w.beats.Add(1)
		}
	}
}

// run looks at the beats every quarter of StallTimeout; when they have not
// moved for StallTimeout and a goroutine of a bubble waits on real I/O, it
// panics with what to change.
func (w *watchdog) run() {
	last, since := w.beats.Load(), w.clk.Now()
	for {
		t := w.clk.NewTimer(StallTimeout / 4)
		select {
		case <-w.done:
			t.Stop()
			return
		case <-t.C():
		}
		if b := w.beats.Load(); b != last {
			last, since = b, w.clk.Now()
			continue
		}
		if w.clk.Since(since) < StallTimeout {
			continue
		}
		if cause := stuckOn(allStacks()); cause != "" {
			panic(fmt.Sprintf("harness: %s is stuck: its virtual time has not moved for %v of real time, because %s",
				w.test, w.clk.Since(since).Round(time.Millisecond), cause))
		}
	}
}

// allStacks returns the stacks of every goroutine, as a panic prints them.
func allStacks() string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return string(buf[:n])
		}
		buf = make([]byte, 2*len(buf))
	}
}

// culprits name what makes a bubble wait on a socket, by a frame of the
// waiting goroutine's stack, and what to change; the first that matches
// names the cause.
var culprits = []struct{ frame, cause string }{
	{"sigs.k8s.io/controller-runtime/pkg/metrics/server.",
		"controller-runtime's metrics server waits on a real socket, which a testing/synctest bubble cannot wait on: " +
			`set Metrics: metricsserver.Options{BindAddress: "0"} in the manager's options (harness.ManagerOptions does)`},
	{"sigs.k8s.io/controller-runtime/pkg/webhook.",
		"controller-runtime's webhook server waits on a real socket, which a testing/synctest bubble cannot wait on: " +
			"register no webhooks with a manager inside a bubble"},
	{"sigs.k8s.io/controller-runtime/pkg/manager.(*Server).Start",
		"a server of the controller-runtime manager (the health probes, pprof, or one added with mgr.Add) waits on a real socket, " +
			`which a testing/synctest bubble cannot wait on: set HealthProbeBindAddress: "0" and PprofBindAddress: "" ` +
			"in the manager's options (harness.ManagerOptions does)"},
}

// stuckOn returns why a bubble cannot move, judged from the goroutine
// stacks: the cause of the first goroutine of a bubble waiting on real I/O
// (Go marks it "IO wait" and "synctest bubble N"), or "" when none is.
func stuckOn(stacks string) string {
	for g := range strings.SplitSeq(stacks, "\n\n") {
		header, _, _ := strings.Cut(g, "\n")
		if !strings.Contains(header, "synctest bubble") || !strings.Contains(header, "IO wait") {
			continue
		}
		for _, c := range culprits {
			if strings.Contains(g, c.frame) {
				return c.cause
			}
		}
		return "a goroutine waits on real I/O (a socket), which a testing/synctest bubble cannot wait on; its stack:\n" + g
	}
	return ""
}
