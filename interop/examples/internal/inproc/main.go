package inproc

import (
	"io"
	"os"
	"testing"

	"github.com/go-logr/logr"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
)

// Main is the examples' TestMain. It keeps only the logging one of
// apimachinery's global error handlers, dropping its rate limiter, which
// cannot run in a testing/synctest bubble: it remembers the wall-clock
// time the package was initialized at and sleeps "1ms - (now - then)" on
// every HandleError, and a bubble's clock starts in 2000, so the first
// error (a watch closed by a fault) would put the reflector to sleep for
// 26 virtual years. (interop/httpapi's TestMain says the same at length.)
// Faults make client-go log every retry through klog, and
// controller-runtime through its logger: both are silenced, as a failed
// seed prints its own story.
func Main(m *testing.M) {
	if len(utilruntime.ErrorHandlers) == 2 {
		utilruntime.ErrorHandlers = utilruntime.ErrorHandlers[:1]
	}
	klog.SetOutput(io.Discard)
	klog.LogToStderr(false)
	ctrl.SetLogger(logr.Discard())
	os.Exit(m.Run())
}
