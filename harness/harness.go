package harness

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/miniplane/miniplane/plane"
	"github.com/miniplane/miniplane/plane/planetest"
)

// ControllerUserAgent is the User-Agent of RESTConfig's clients: one the
// test controls, so the fault streams a seed draws (keyed by the client,
// see apiserver/faults.ClientOf) are the same whatever the test binary is
// named and whatever platform it runs on.
const ControllerUserAgent = "controller-under-test"

// Plane is a control plane started for one test, with client-go's ways
// in.
type Plane struct {
	*plane.Plane
}

// Start starts the plane cfg describes for tb (planetest.Start: ready when
// it returns, stopped when tb ends; on failure the fault trace's lines on
// the objects the failure names) after making apimachinery's error handlers
// safe in a bubble (FixErrorHandlers).
func Start(tb testing.TB, cfg plane.Config) *Plane {
	tb.Helper()
	FixErrorHandlers()
	return &Plane{planetest.Start(tb, cfg)}
}

// RESTConfig is the configuration of the controller under test: it reaches
// the plane in memory through the fault injector, as ControllerUserAgent.
// Each call returns a new Config the caller may change.
func (p *Plane) RESTConfig() *rest.Config {
	return &rest.Config{Host: p.Host(), Transport: p.Transport(), UserAgent: ControllerUserAgent}
}

// DirectConfig reaches the plane in memory past the fault injector: the
// test's own set-up and judging use it, so that what the test writes and
// reads never meets a fault and does not shift the controller's draws.
func (p *Plane) DirectConfig() *rest.Config {
	return &rest.Config{Host: p.Host(), Transport: p.DirectTransport(), UserAgent: "test"}
}

// Clientset is a clientset on DirectConfig: the test's own client, in
// client-go's types.
func (p *Plane) Clientset() kubernetes.Interface {
	cs, err := kubernetes.NewForConfig(p.DirectConfig())
	if err != nil {
		panic(fmt.Sprintf("harness: a clientset on an in-memory transport: %v", err)) // NewForConfig fails only on a bad Config
	}
	return cs
}

// fixOnce guards the one change FixErrorHandlers makes to apimachinery's
// globals.
var fixOnce sync.Once

// FixErrorHandlers removes apimachinery's error rate limiter from
// utilruntime.ErrorHandlers, keeping every other handler, once per process.
// The limiter remembers the wall-clock time the process started at and, on
// every utilruntime.HandleError, sleeps "1ms - (now - then)"; inside a
// testing/synctest bubble now is in 2000, so the first handled error (a
// watch a fault closed) would put the informer to sleep for decades. Start
// calls it; a test that starts planes otherwise calls it in TestMain.
func FixErrorHandlers() {
	fixOnce.Do(func() {
		kept := utilruntime.ErrorHandlers[:0:0]
		for _, h := range utilruntime.ErrorHandlers {
			if !isRateLimiter(h) {
				kept = append(kept, h)
			}
		}
		utilruntime.ErrorHandlers = kept
	})
}

// isRateLimiter reports whether h is the handler apimachinery's
// backoffError made.
func isRateLimiter(h utilruntime.ErrorHandler) bool {
	fn := runtime.FuncForPC(reflect.ValueOf(h).Pointer())
	return fn != nil && strings.Contains(fn.Name(), "k8s.io/apimachinery/pkg/util/runtime.backoffError")
}

// Test runs body in a testing/synctest bubble of its own with a plane cfg
// describes, started (Start) and stopped when body returns, and watches
// the bubble from outside it (see the package doc): a test blocked on a
// real socket ends within about StallTimeout, with the option to change.
func Test(t *testing.T, cfg plane.Config, body func(t *testing.T, p *Plane)) {
	t.Helper()
	w := newWatchdog(t.Name())
	defer w.stop()
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go w.beat(ctx)
		body(t, Start(t, cfg))
	})
}

// Sweep runs Test once per seed (planetest.Sweep: seeds 1 to n, or the
// -miniplane.seed flag's), with cfg.Seed set to the seed.
func Sweep(t *testing.T, n int, cfg plane.Config, body func(t *testing.T, p *Plane)) planetest.SweepResult {
	t.Helper()
	return planetest.Sweep(t, n, func(t *testing.T, seed int64) {
		c := cfg
		c.Seed = uint64(seed)
		Test(t, c, body)
	})
}

// Replay runs Test k times with one seed (planetest.Replay) and returns how
// many runs failed.
func Replay(t *testing.T, seed int64, k int, cfg plane.Config, body func(t *testing.T, p *Plane)) planetest.ReplayResult {
	t.Helper()
	return planetest.Replay(t, seed, k, func(t *testing.T, seed int64) {
		c := cfg
		c.Seed = uint64(seed)
		Test(t, c, body)
	})
}
