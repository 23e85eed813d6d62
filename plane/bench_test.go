package plane_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/miniplane/miniplane/controllers/manager"
	"github.com/miniplane/miniplane/plane"
)

// BenchmarkStart measures how long a plane takes from New to Ready on the
// real clock, in memory: three nodes, one controller-manager instance,
// kube-controller-manager's controllers. Stopping it is not timed. Besides
// ns/op it reports the median and the 99th percentile of the starts, in
// milliseconds: run it with -benchtime=200x for 200 starts.
func BenchmarkStart(b *testing.B) {
	var starts []time.Duration
	for b.Loop() {
		began := time.Now()
		p, err := plane.New(plane.Config{Options: options(func(o *manager.Options) { o.Nodes = 3 })})
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- p.Run(ctx) }()
		select {
		case <-p.Ready():
		case err := <-done:
			b.Fatalf("the plane stopped before it was ready: %v", err)
		}
		starts = append(starts, time.Since(began))
		b.StopTimer()
		cancel()
		if err := <-done; err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	slices.Sort(starts)
	pct := func(q float64) float64 {
		return float64(starts[int(q*float64(len(starts)-1))]) / float64(time.Millisecond)
	}
	b.ReportMetric(pct(0.5), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}
