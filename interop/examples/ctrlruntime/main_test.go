package ctrlruntime

import (
	"io"
	"os"
	"testing"

	"github.com/go-logr/logr"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
)

// TestMain keeps only the logging one of apimachinery's global error
// handlers, dropping its rate limiter, which cannot run in a
// testing/synctest bubble: it remembers the wall-clock time the package
// was initialized at and sleeps "1ms - (now - then)" on every HandleError,
// and a bubble's clock starts in 2000, so the first error (a watch closed
// by a fault) would put the reflector to sleep for 26 virtual years.
// (interop/httpapi's TestMain says the same at length.)
func TestMain(m *testing.M) {
	if len(utilruntime.ErrorHandlers) == 2 {
		utilruntime.ErrorHandlers = utilruntime.ErrorHandlers[:1]
	}
	// Faults make client-go log every retry through klog, to stderr;
	// a failed seed prints its own story.
	klog.SetOutput(io.Discard)
	ctrl.SetLogger(logr.Discard())
	klog.LogToStderr(false)
	os.Exit(m.Run())
}
