package inproc

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// starts is how many plane start-ups TestStartupFigures times.
const starts = 200

// TestStartupFigures times 200 start-ups of the plane (StartPlane: the
// whole plane through planetest.Start, ready) and 200 of the plane plus a stock
// clientset's first answer through it (a list of namespaces, in
// protobuf), each in a synctest bubble of its own as the examples run
// them, and prints p50 and p99 in wall time. It checks only that every
// start worked; the figures are for the README.
func TestStartupFigures(t *testing.T) {
	if testing.Short() {
		t.Skip("a measurement")
	}
	for _, firstAnswer := range []bool{false, true} {
		var took []time.Duration
		for i := range starts {
			start := time.Now() // wallclock: the figure is wall time
			synctest.Test(t, func(t *testing.T) {
				rt, host, _ := StartPlane(t, int64(i), 0) // no faults: a 500 would fail the first list
				if !firstAnswer {
					return
				}
				cs, err := kubernetes.NewForConfig(&rest.Config{Host: host, Transport: rt})
				require.NoError(t, err)
				_, err = cs.CoreV1().Namespaces().List(t.Context(), metav1.ListOptions{})
				require.NoError(t, err)
			})
			took = append(took, time.Since(start)) // wallclock
		}
		slices.Sort(took)
		what := "plane start-up (StartPlane in a bubble)"
		if firstAnswer {
			what = "plane start-up + clientset + first list"
		}
		t.Logf("%s over %d starts: p50 %v, p99 %v, max %v", what, starts, took[starts/2], took[starts*99/100], took[starts-1])
	}
}
