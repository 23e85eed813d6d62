package httpapi

import (
	"os"
	"testing"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
)

// TestMain keeps only the logging one of apimachinery's global error
// handlers (utilruntime.ErrorHandlers), dropping its rate limiter, so that
// client-go can run inside a testing/synctest bubble.
//
// The rate limiter (backoffError, a rudimentaryErrorBackoff) remembers the
// time of the last error, starting from the wall-clock time of package
// initialization, and sleeps minPeriod - (now - last) on every
// HandleError. A bubble's clock starts at midnight, January 1st 2000, so
// inside one "now - last" is about minus 26 years, and the first error a
// reflector reports ("Failed to watch") puts its goroutine to sleep for 26
// years of virtual time: the informer never retries before the test's
// deadline. (The same arithmetic makes any backward clock step stall
// HandleError for the size of the step, outside tests too.)
func TestMain(m *testing.M) {
	if len(utilruntime.ErrorHandlers) == 2 {
		utilruntime.ErrorHandlers = utilruntime.ErrorHandlers[:1] // logError
	}
	os.Exit(m.Run())
}
