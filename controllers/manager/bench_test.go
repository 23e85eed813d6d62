package manager_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/manager"
	"github.com/miniplane/miniplane/controllers/workqueue"
	"github.com/miniplane/miniplane/informer"
)

// The figure is 1,000 replication controllers of 100 replicas on
// 1,000 nodes; CI runs a tenth of a percent of that as a smoke test:
//
//	go test -run='^$' -bench=ControlPlaneScale -benchtime=1x -rcs=1000 ./controllers/manager/
var benchRCs = flag.Int("rcs", 10, "replication controllers (and services, and nodes) in BenchmarkControlPlaneScale")

// benchHeapProfile, if set, names a file where BenchmarkControlPlaneScale
// writes a heap profile once every pod is Ready: the heap near its peak.
var benchHeapProfile = flag.String("heapprofile", "", "write a heap profile to this file when BenchmarkControlPlaneScale has every pod Ready")

// BenchmarkControlPlaneScale brings up -rcs replication controllers of 100
// replicas, each behind a Service, on as many simulated nodes, from an
// empty control plane: every pod created, bound, Running and Ready, every
// Endpoints complete. Then it scales every controller to 50 and waits for
// the control plane to settle again. It reports the wall time and the CPU
// time of each phase (the CPU time is the steadier figure on a shared
// machine), the peak heap in use, the writes per pod by resource, and how
// many times the fake clock was stepped.
func BenchmarkControlPlaneScale(b *testing.B) {
	const replicas = 100
	n := *benchRCs
	for b.Loop() {
		ctx := context.Background()
		clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		srv, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(1, 1)), HistoryLimit: 100_000})
		require.NoError(b, err)
		opts := manager.DefaultOptions()
		opts.Nodes = n
		factory := informer.NewFactory(srv, "", clk, nil)
		m, err := manager.New(manager.InitContext{Client: srv, Binder: srv, Factory: factory, Clock: clk, Options: opts, Instance: "bench"}, append(manager.DefaultDescriptors(), manager.NodeSimDescriptors()...))
		require.NoError(b, err)
		built, err := m.Build()
		require.NoError(b, err)
		var queues []*workqueue.Queue[string]
		for _, c := range built {
			if q, ok := c.(interface {
				Queue() *workqueue.Queue[string]
			}); ok {
				queues = append(queues, q.Queue())
			}
		}
		idle := func() bool {
			for _, q := range queues {
				if q.Len() > 0 {
					return false
				}
			}
			return true
		}
		runCtx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- m.Run(runCtx) }()
		go srv.Run(runCtx)

		peak := newPeakHeap()
		activity, err := srv.Store().Watch("", 0)
		require.NoError(b, err)
		writes := map[string]int{}           // by resource
		buf, _, err := activity.Poll(nil, 0) // nothing yet: the buffer's type
		require.NoError(b, err)
		// quiet returns once no write has landed for a millisecond of real
		// time and no controller has work ready: the controllers have done
		// what they can at this virtual time, so moving the clock on does
		// not outrun them (on a loaded machine a millisecond without writes
		// alone happens while work is still queued).
		quiet := func() {
			for {
				select {
				case <-activity.Ready():
					evs, _, err := activity.Poll(buf[:0], 0)
					require.NoError(b, err)
					buf = evs
					for _, ev := range evs {
						writes[resourceOf(ev.Key)]++
					}
				case <-time.After(time.Millisecond): // wallclock: pacing virtual time against real work
					if idle() {
						return
					}
				}
			}
		}
		steps := 0 // of the fake clock
		settle := func(want int32) time.Duration {
			start := time.Now() // wallclock: the figure is wall time
			for quiet(); !settled(b, srv, n, want); quiet() {
				peak.sample()
				clk.Step(500 * time.Millisecond)
				steps++
			}
			return time.Since(start) // wallclock: the figure is wall time
		}

		start, startCPU := time.Now(), cpuTime() // wallclock: the figure is wall time
		for i := range n {
			name := fmt.Sprintf("app-%04d", i)
			labels := map[string]string{"app": name}
			r := int32(replicas)
			_, err := srv.Create(ctx, &api.Service{
				Metadata: api.ObjectMeta{Namespace: "default", Name: name},
				Spec:     api.ServiceSpec{Selector: labels, Ports: []api.ServicePort{{Port: 80}}},
			})
			require.NoError(b, err)
			_, err = srv.Create(ctx, &api.ReplicationController{
				Metadata: api.ObjectMeta{Namespace: "default", Name: name},
				Spec: api.ReplicationControllerSpec{Replicas: &r, Selector: labels, Template: &api.PodTemplateSpec{
					Metadata: api.ObjectMeta{Labels: labels},
					Spec:     api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx:1.27"}}},
				}},
			})
			require.NoError(b, err)
		}
		up := time.Since(start) + settle(replicas) // wallclock
		upCPU := cpuTime() - startCPU
		if *benchHeapProfile != "" {
			writeHeapProfile(b, *benchHeapProfile)
		}
		for i := range n {
			_, err := srv.UpdateScale(ctx, "default", &api.Scale{Metadata: api.ObjectMeta{Name: fmt.Sprintf("app-%04d", i)}, Spec: api.ScaleSpec{Replicas: replicas / 2}})
			require.NoError(b, err)
		}
		downCPU := cpuTime()
		down := settle(replicas / 2)
		downCPU = cpuTime() - downCPU

		cancel()
		activity.Stop()
		require.NoError(b, <-done)
		b.ReportMetric(up.Seconds(), "s-up")
		b.ReportMetric(down.Seconds(), "s-scale-to-50")
		b.ReportMetric(upCPU.Seconds(), "cpu-s-up")
		b.ReportMetric(downCPU.Seconds(), "cpu-s-scale-to-50")
		b.ReportMetric(float64(peak.max)/(1<<20), "MiB-peak-heap")
		b.ReportMetric(float64(n*replicas), "pods")
		b.ReportMetric(float64(steps), "clock-steps")
		for _, res := range []string{"pods", "events", "endpoints", "replicationcontrollers"} {
			b.ReportMetric(float64(writes[res])/float64(n*replicas), res+"-writes/pod")
		}
	}
}

// resourceOf returns the resource of a store key, /registry/<resource>/...
func resourceOf(key string) string {
	rest := strings.TrimPrefix(key, "/registry/")
	res, _, _ := strings.Cut(rest, "/")
	return res
}

// settled reports whether every controller has want Ready pods in its
// status and every Service has want ready addresses, and no other pods exist.
func settled(b *testing.B, srv *apiserver.Server, n int, want int32) bool {
	ctx := context.Background()
	rcs, _, err := apiserver.For[*api.ReplicationController](srv).List(ctx, "default", apiserver.ListOptions{})
	require.NoError(b, err)
	for _, rc := range rcs {
		if rc.Status.ReadyReplicas != want || rc.Status.Replicas != want || rc.Status.ObservedGeneration != rc.Metadata.Generation {
			return false
		}
	}
	eps, _, err := apiserver.For[*api.Endpoints](srv).List(ctx, "default", apiserver.ListOptions{})
	require.NoError(b, err)
	if len(rcs) != n || len(eps) < n {
		return false
	}
	for _, ep := range eps {
		if ep.Metadata.Name == "kubernetes" {
			continue
		}
		got := 0
		for _, s := range ep.Subsets {
			got += len(s.Addresses) + len(s.NotReadyAddresses)
		}
		if got != int(want) {
			return false
		}
	}
	pods, err := srv.List(ctx, apiserver.Pods, "default", apiserver.ListOptions{ResourceVersion: "0"})
	require.NoError(b, err)
	return len(pods.Items) == n*int(want)
}

// writeHeapProfile writes the heap profile as of the last GC to path.
func writeHeapProfile(b *testing.B, path string) {
	f, err := os.Create(path)
	require.NoError(b, err)
	defer f.Close()
	runtime.GC() // the profile shows the heap as of the last GC
	require.NoError(b, pprof.WriteHeapProfile(f))
}

// cpuTime is the CPU time the process has used, user and system: on a
// shared machine it says more about the cost of the work than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// peakHeap samples the runtime's heap in use and keeps the highest seen.
type peakHeap struct {
	s   []metrics.Sample
	max uint64
}

func newPeakHeap() *peakHeap {
	return &peakHeap{s: []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}}
}

func (p *peakHeap) sample() {
	metrics.Read(p.s)
	p.max = max(p.max, p.s[0].Value.Uint64())
}
