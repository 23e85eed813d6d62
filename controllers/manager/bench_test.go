package manager_test

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/manager"
	"github.com/miniplane/miniplane/controllers/workqueue"
	"github.com/miniplane/miniplane/informer"
)

// The figure is 1,000 replication controllers of 100 replicas on
// 1,000 nodes; CI runs a tenth of a percent of that as a smoke test. The
// package comes before the flags go test does not know:
//
//	go test ./controllers/manager/ -run='^$' -bench=ControlPlaneScale -benchtime=1x -rcs=1000
var benchRCs = flag.Int("rcs", 10, "replication controllers (and services, and nodes) in BenchmarkControlPlaneScale")

// benchHeapProfile, if set, names a file where BenchmarkControlPlaneScale
// writes a heap profile once every pod is Ready: the heap near its peak.
var benchHeapProfile = flag.String("heapprofile", "", "write a heap profile to this file when BenchmarkControlPlaneScale has every pod Ready")

// benchPhaseProfile, if set, is where the scale benchmarks write the CPU
// profile of each phase they take for the cost table: PREFIX-up.pprof and
// PREFIX-down.pprof (BenchmarkControlPlaneScale), PREFIX-create.pprof and
// PREFIX-rollout.pprof (BenchmarkDeploymentRollout). go test -cpuprofile
// would take the profiler from the table, and mixes the phases.
var benchPhaseProfile = flag.String("phaseprofile", "", "write the CPU profile of each phase of the scale benchmarks to PREFIX-<phase>.pprof (up, down, create, rollout)")

// BenchmarkControlPlaneScale brings up -rcs replication controllers of 100
// replicas, each behind a Service, on as many simulated nodes, from an
// empty control plane: every pod created, bound, Running and Ready, every
// Endpoints complete. Then it scales every controller to 50 and waits for
// the control plane to settle again. It reports the wall time and the CPU
// time (user and system, from getrusage) of each phase (the CPU time is the
// steadier figure on a shared machine), the peak heap in use, the writes
// per pod by resource, and how many times the fake clock was stepped; and
// it logs the cost per pod by component, from a CPU profile of each phase
// and a count of each controller's writes (not with go test -cpuprofile,
// which takes the profiler first).
func BenchmarkControlPlaneScale(b *testing.B) {
	const replicas = 100
	n := *benchRCs
	for b.Loop() {
		ctx := context.Background()
		p := newBenchPlane(b, n)
		srv := p.srv

		up := p.startPhase("up")
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
		p.settle(func() bool { return settled(b, srv, n, replicas) })
		// The benchmark's own writes: a Service and an RC per app.
		upCost := up.end(n*replicas, 2*n)
		if *benchHeapProfile != "" {
			writeHeapProfile(b, *benchHeapProfile)
		}

		down := p.startPhase("down")
		for i := range n {
			_, err := srv.UpdateScale(ctx, client.ReplicationControllers, "default", &api.Scale{Metadata: api.ObjectMeta{Name: fmt.Sprintf("app-%04d", i)}, Spec: api.ScaleSpec{Replicas: replicas / 2}})
			require.NoError(b, err)
		}
		p.settle(func() bool { return settled(b, srv, n, replicas/2) })
		downCost := down.end(n*replicas/2, n) // a scale of each

		peakBytes := p.stop()
		b.ReportMetric(upCost.wall.Seconds(), "s-up")
		b.ReportMetric(downCost.wall.Seconds(), "s-scale-to-50")
		b.ReportMetric(upCost.cpu.Seconds(), "cpu-s-up")
		b.ReportMetric(downCost.cpu.Seconds(), "cpu-s-scale-to-50")
		b.ReportMetric(float64(peakBytes)/(1<<20), "MiB-peak-heap")
		// Allocation does not depend on the machine's load, as time does.
		b.ReportMetric(float64(upCost.alloc.bytes)/float64(n*replicas), "alloc-B/pod-up")
		b.ReportMetric(float64(upCost.alloc.objects)/float64(n*replicas), "allocs/pod-up")
		b.ReportMetric(float64(upCost.alloc.gcs), "gc-cycles-up")
		b.ReportMetric(float64(n*replicas), "pods")
		b.ReportMetric(float64(p.steps), "clock-steps")
		for _, res := range []string{"pods", "events", "endpoints", "replicationcontrollers"} {
			b.ReportMetric(float64(p.writes[res])/float64(n*replicas), res+"-writes/pod")
		}
		if upCost.shares != nil && downCost.shares != nil {
			// Printed, not logged: the testing package cuts a
			// benchmark's log to ten lines.
			fmt.Print(costTable(upCost, downCost))
		}
	}
}

// benchPlane is the control plane the scale benchmarks run: an API server
// on a fake clock with every controller of the manager and nodesim's nodes,
// each controller's writes counted at its client, and a watch on the whole
// store that counts every write by resource. Its peak heap is sampled from
// newBenchPlane to stop.
type benchPlane struct {
	b            *testing.B
	srv          *apiserver.Server
	clk          *clock.Fake
	m            *manager.Manager
	byController *writeCounts
	queues       []*workqueue.Queue[string]
	// The store's watch of every write, kept as its methods, since this
	// package may not import store (DESIGN.md, "Packages and imports"):
	// ready is its Ready, poll counts the pending writes by resource into
	// writes, stopWatch stops it.
	ready     func() <-chan struct{}
	poll      func() error
	stopWatch func()
	writes    map[string]int // every store write seen so far, by resource
	steps     int            // of the fake clock
	peak      *peakHeap
	cancel    context.CancelFunc
	done      chan error
}

// newBenchPlane builds and starts the control plane with nodes simulated
// nodes.
func newBenchPlane(b *testing.B, nodes int) *benchPlane {
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	srv, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(1, 1)), HistoryLimit: 100_000})
	require.NoError(b, err)
	opts := manager.DefaultOptions()
	opts.Nodes = nodes
	factory := informer.NewFactory(srv, "", clk, nil)
	p := &benchPlane{b: b, srv: srv, clk: clk, byController: &writeCounts{}, writes: map[string]int{}, done: make(chan error, 1)}
	descriptors := append(manager.DefaultDescriptors(), manager.NodeSimDescriptors()...)
	for i := range descriptors {
		descriptors[i].Init = p.byController.counting(descriptors[i].Name, descriptors[i].Init)
	}
	p.m, err = manager.New(manager.InitContext{Client: srv, Binder: srv, Factory: factory, Clock: clk, Options: opts, Instance: "bench"}, descriptors)
	require.NoError(b, err)
	built, err := p.m.Build()
	require.NoError(b, err)
	for _, c := range built {
		if q, ok := c.(interface {
			Queue() *workqueue.Queue[string]
		}); ok {
			p.queues = append(p.queues, q.Queue())
		}
	}
	var runCtx context.Context
	runCtx, p.cancel = context.WithCancel(context.Background())
	go func() { p.done <- p.m.Run(runCtx) }()
	go srv.Run(runCtx)

	p.peak = newPeakHeap()
	go p.peak.run()
	activity, err := srv.Store().Watch("", 0)
	require.NoError(b, err)
	buf, _, err := activity.Poll(nil, 0) // nothing yet: the buffer's type
	require.NoError(b, err)
	p.ready, p.stopWatch = activity.Ready, activity.Stop
	p.poll = func() error {
		evs, _, err := activity.Poll(buf[:0], 0)
		if err != nil {
			return err
		}
		buf = evs
		for _, ev := range evs {
			p.writes[resourceOf(ev.Key)]++
		}
		return nil
	}
	return p
}

// idle reports whether no controller has work ready or in hand (a sync
// still running when the clock moves sees time jump under it).
func (p *benchPlane) idle() bool {
	for _, q := range p.queues {
		if q.Len() > 0 || q.Metrics().InFlight > 0 {
			return false
		}
	}
	return true
}

// quiet returns once no write has landed for a millisecond of real
// time and no controller has work ready: the controllers have done
// what they can at this virtual time, so moving the clock on does
// not outrun them (on a loaded machine a millisecond without writes
// alone happens while work is still queued).
//
// It is the benchmark's own work, inside the figures: one timer for
// all its waits, not one per write seen, and no assertion per poll.
func (p *benchPlane) quiet() {
	lull := time.NewTimer(time.Millisecond) // wallclock: pacing virtual time against real work
	defer lull.Stop()
	for {
		select {
		case <-p.ready():
			if err := p.poll(); err != nil {
				p.b.Fatal(err)
			}
		case <-lull.C:
			if p.idle() {
				return
			}
		}
		lull.Reset(time.Millisecond)
	}
}

// settle steps the fake clock by half a second at each lull until done.
func (p *benchPlane) settle(done func() bool) {
	for p.quiet(); !done(); p.quiet() {
		p.clk.Step(500 * time.Millisecond)
		p.steps++
	}
}

// settleWithin is settle for a state that says what it still lacks (why
// returns "" once there), bounded: a phase not done after limit of virtual
// time fails the benchmark with that account, rather than stepping the
// clock until the test binary's timeout.
func (p *benchPlane) settleWithin(limit time.Duration, why func() string) {
	start := p.clk.Now()
	for p.quiet(); ; p.quiet() {
		w := why()
		if w == "" {
			return
		}
		if p.clk.Now().Sub(start) > limit {
			p.b.Fatalf("not settled after %v of virtual time: %s", limit, w)
		}
		p.clk.Step(500 * time.Millisecond)
		p.steps++
	}
}

// stop stops the control plane and returns the peak heap in use it saw,
// in bytes.
func (p *benchPlane) stop() uint64 {
	peakBytes := p.peak.end()
	p.cancel()
	p.stopWatch()
	require.NoError(p.b, <-p.done)
	return peakBytes
}

// phaseRun is a phase being measured: what the counters read at its start.
type phaseRun struct {
	p         *benchPlane
	name      string
	profile   cpuShares
	profiling bool
	wall      time.Time
	cpu       time.Duration
	alloc     allocs
	writes    writeSnapshot
	store     int
	syncs     map[string]int
}

// startPhase starts measuring a phase named name, and its CPU profile
// (none when go test -cpuprofile holds the profiler).
func (p *benchPlane) startPhase(name string) *phaseRun {
	r := &phaseRun{p: p, name: name, writes: p.byController.snapshot(), store: sum(p.writes), syncs: syncsOf(p.m)}
	r.profiling = r.profile.start() == nil
	r.wall, r.cpu, r.alloc = time.Now(), cpuTime(), readAllocs() // wallclock: the figure is wall time
	return r
}

// end ends the phase and returns its cost over pods (created, removed or
// replaced); own is how many of the store's writes in the phase were the
// benchmark's own, left out of the store's count. It writes the phase's
// CPU profile where -phaseprofile says.
func (r *phaseRun) end(pods, own int) phaseCost {
	p := r.p
	c := phaseCost{name: r.name, pods: pods, wall: time.Since(r.wall), cpu: cpuTime() - r.cpu, alloc: readAllocs().minus(r.alloc)} // wallclock
	if r.profiling {
		var err error
		c.shares, err = r.profile.stop()
		require.NoError(p.b, err)
		writePhaseProfile(p.b, r.name, &r.profile)
	}
	c.writes = p.byController.snapshot().minus(r.writes)
	c.storeWrites = sum(p.writes) - r.store - own
	c.syncs = minus(syncsOf(p.m), r.syncs)
	return c
}

// phaseCost is what one phase of the benchmark cost.
type phaseCost struct {
	name        string           // as in the profile's file name: up, down, create, rollout
	pods        int              // pods created, removed or replaced
	wall        time.Duration    // real time
	cpu         time.Duration    // user+system CPU time of the process
	alloc       allocs           // heap allocation
	shares      map[string]int64 // CPU nanoseconds sampled, by component; nil unprofiled
	writes      writeSnapshot    // writes by controller
	storeWrites int              // every write to the store, but the benchmark's own
	syncs       map[string]int   // keys handed to a worker, by queue
}

// syncsOf returns how many keys each controller's queue has handed out so
// far: its syncs (a key queued again while waiting counts once).
func syncsOf(m *manager.Manager) map[string]int {
	out := map[string]int{}
	for _, q := range m.QueueMetrics() {
		out[q.Name] = int(q.Adds)
	}
	return out
}

func minus(a, b map[string]int) map[string]int {
	out := map[string]int{}
	for k, v := range a {
		out[k] = v - b[k]
	}
	return out
}

// costTable is the cost per pod by component of each phase: CPU
// microseconds from the profile and writes, per pod the phase created,
// removed or replaced. The controllers' writes are counted at their
// clients; the API server's are the store's writes no controller made (a
// pod removed when its grace period ends). The sampled CPU total falls
// somewhat short of getrusage's.
func costTable(phases ...phaseCost) string {
	var sb strings.Builder
	row := func(label string, cells func(p phaseCost) (string, string)) {
		fmt.Fprintf(&sb, "  %-26s", label)
		for _, p := range phases {
			cpu, writes := cells(p)
			fmt.Fprintf(&sb, " %10s %10s  ", cpu, writes)
		}
		sb.WriteString("\n")
	}
	fmt.Fprintf(&sb, "%-28s", "cost per pod, by component")
	for _, p := range phases {
		fmt.Fprintf(&sb, " %10s %10s  ", p.name+" CPU-µs", "writes")
	}
	sb.WriteString("\n")
	perPod := func(ns int64, p phaseCost) string { return fmt.Sprintf("%.1f", float64(ns)/1e3/float64(p.pods)) }
	writesOf := func(p phaseCost, comp string) string {
		switch comp {
		case compStore:
			return fmt.Sprintf("%.2f", float64(p.storeWrites)/float64(p.pods))
		case compAPIServer:
			// The server's own writes (the sweeper's): the store's less the
			// clients'. The store's count is read from a watch that can be a
			// few events behind the clients' at a phase's end: not below 0.
			return fmt.Sprintf("%.2f", float64(max(p.storeWrites-p.writes.total(), 0))/float64(p.pods))
		}
		ctls, ok := controllersOf[comp]
		if !ok {
			return ""
		}
		n := 0
		for _, ctl := range ctls {
			n += sum(p.writes[ctl])
		}
		return fmt.Sprintf("%.2f", float64(n)/float64(p.pods))
	}
	for _, comp := range components {
		row(comp, func(p phaseCost) (string, string) { return perPod(p.shares[comp], p), writesOf(p, comp) })
	}
	row("sampled total", func(p phaseCost) (string, string) {
		var total int64
		for _, comp := range components {
			total += p.shares[comp]
		}
		return perPod(total, p), ""
	})
	row("getrusage user+sys", func(p phaseCost) (string, string) { return perPod(p.cpu.Nanoseconds(), p), "" })
	for _, p := range phases {
		fmt.Fprintf(&sb, "  %s syncs per pod by queue:", p.name)
		for _, q := range slices.Sorted(maps.Keys(p.syncs)) {
			fmt.Fprintf(&sb, " %s %.2f", q, float64(p.syncs[q])/float64(p.pods))
		}
		sb.WriteString("\n")
		fmt.Fprintf(&sb, "  %s writes per pod by controller and resource:", p.name)
		for _, ctl := range slices.Sorted(maps.Keys(p.writes)) {
			for _, res := range slices.Sorted(maps.Keys(p.writes[ctl])) {
				fmt.Fprintf(&sb, " %s/%s %.2f", ctl, res, float64(p.writes[ctl][res])/float64(p.pods))
			}
		}
		sb.WriteString("\n")
	}
	return sb.String()
}

// controllersOf names, in the manager's names, the controllers of each
// controller component: the replication package runs both the replication
// controller and the replica set controller.
var controllersOf = map[string][]string{
	compReplication: {manager.ReplicationController, manager.ReplicaSet},
	compDeployment:  {manager.Deployment},
	compEndpoints:   {manager.Endpoint},
	compGC:          {manager.GarbageCollector},
	compJob:         {manager.Job},
	compNodeSim:     {manager.NodeSim},
}

func sum(m map[string]int) int {
	total := 0
	for _, v := range m {
		total += v
	}
	return total
}

// writeCounts counts the writes each controller makes, by resource: the
// benchmark gives every controller a client of its own that counts.
type writeCounts struct {
	mu sync.Mutex
	n  writeSnapshot
}

// writeSnapshot is a copy of the counts: controller → resource → writes.
type writeSnapshot map[string]map[string]int

func (s writeSnapshot) total() int {
	t := 0
	for _, byRes := range s {
		t += sum(byRes)
	}
	return t
}

// minus returns s less an earlier snapshot.
func (s writeSnapshot) minus(earlier writeSnapshot) writeSnapshot {
	out := writeSnapshot{}
	for ctl, byRes := range s {
		out[ctl] = map[string]int{}
		for res, v := range byRes {
			out[ctl][res] = v - earlier[ctl][res]
		}
	}
	return out
}

func (w *writeCounts) add(controller, resource string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.n == nil {
		w.n = writeSnapshot{}
	}
	if w.n[controller] == nil {
		w.n[controller] = map[string]int{}
	}
	w.n[controller][resource]++
}

func (w *writeCounts) snapshot() writeSnapshot {
	w.mu.Lock()
	defer w.mu.Unlock()
	return writeSnapshot{}.plus(w.n)
}

// plus returns a copy of s with other added.
func (s writeSnapshot) plus(other writeSnapshot) writeSnapshot {
	out := writeSnapshot{}
	for _, m := range []writeSnapshot{s, other} {
		for ctl, byRes := range m {
			if out[ctl] == nil {
				out[ctl] = map[string]int{}
			}
			for res, v := range byRes {
				out[ctl][res] += v
			}
		}
	}
	return out
}

// counting wraps a controller's init so that its client (and binder)
// count its writes.
func (w *writeCounts) counting(name string, init manager.InitFunc) manager.InitFunc {
	return func(ic manager.InitContext) (manager.Controller, int, error) {
		c := &countingClient{Client: ic.Client, binder: ic.Binder, counts: w, name: name}
		ic.Client = c
		if ic.Binder != nil {
			ic.Binder = c
		}
		return init(ic)
	}
}

// countingClient is an client.Client that counts its successful writes.
type countingClient struct {
	client.Client
	binder interface {
		Bind(ctx context.Context, namespace, name, node string) (*api.Pod, error)
	}
	counts *writeCounts
	name   string
}

func (c *countingClient) count(resource string, err error) {
	if err == nil {
		c.counts.add(c.name, resource)
	}
}

func (c *countingClient) Create(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error) {
	out, err := c.Client.Create(ctx, obj, opts...)
	c.count(client.ResourceOf(obj), err)
	return out, err
}

func (c *countingClient) Update(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error) {
	resource, rv := client.ResourceOf(obj), obj.GetObjectMeta().ResourceVersion
	out, err := c.Client.Update(ctx, obj, opts...)
	c.countUpdate(resource, rv, out, err)
	return out, err
}

func (c *countingClient) UpdateStatus(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error) {
	resource, rv := client.ResourceOf(obj), obj.GetObjectMeta().ResourceVersion
	out, err := c.Client.UpdateStatus(ctx, obj, opts...)
	c.countUpdate(resource, rv, out, err)
	return out, err
}

// countUpdate counts an update of an object at resourceVersion rv unless
// the server found that it changed nothing and so wrote nothing (it returns
// the stored object as it was). rv is read before the call: an object
// handed over (client.Handover) may come back as the stored one.
func (c *countingClient) countUpdate(resource, rv string, out api.Object, err error) {
	if err == nil && out.GetObjectMeta().ResourceVersion == rv {
		return
	}
	c.count(resource, err)
}

func (c *countingClient) Delete(ctx context.Context, resource, namespace, name string, opts api.DeleteOptions) (api.Object, error) {
	out, err := c.Client.Delete(ctx, resource, namespace, name, opts)
	c.count(resource, err)
	return out, err
}

func (c *countingClient) Bind(ctx context.Context, namespace, name, node string) (*api.Pod, error) {
	out, err := c.binder.Bind(ctx, namespace, name, node)
	c.count(client.Pods, err)
	return out, err
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
	rcs, _, err := client.For[*api.ReplicationController](srv).List(ctx, "default", client.ListOptions{})
	require.NoError(b, err)
	for _, rc := range rcs {
		if rc.Status.ReadyReplicas != want || rc.Status.Replicas != want || rc.Status.ObservedGeneration != rc.Metadata.Generation {
			return false
		}
	}
	eps, _, err := client.For[*api.Endpoints](srv).List(ctx, "default", client.ListOptions{})
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
	pods, err := srv.List(ctx, client.Pods, "default", client.ListOptions{ResourceVersion: "0"})
	require.NoError(b, err)
	return len(pods.Items) == n*int(want)
}

// writePhaseProfile writes a phase's CPU profile where -phaseprofile says,
// if it says.
func writePhaseProfile(b *testing.B, phase string, c *cpuShares) {
	if *benchPhaseProfile == "" {
		return
	}
	require.NoError(b, os.WriteFile(*benchPhaseProfile+"-"+phase+".pprof", c.buf.Bytes(), 0o644))
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

// allocs are the heap's cumulative allocation counters and GC cycles.
type allocs struct{ bytes, objects, gcs uint64 }

func readAllocs() allocs {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}, {Name: "/gc/heap/allocs:objects"}, {Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	return allocs{s[0].Value.Uint64(), s[1].Value.Uint64(), s[2].Value.Uint64()}
}

func (a allocs) minus(b allocs) allocs {
	return allocs{a.bytes - b.bytes, a.objects - b.objects, a.gcs - b.gcs}
}

// peakHeap samples the runtime's heap in use and keeps the highest seen.
// The heap peaks just before each GC cycle, between any two moments the
// benchmark itself picks (it took its samples only at clock steps, four or
// five a run, and so reported the heap at a lull, not its peak): run samples
// it every 2 ms of real time until stopped, which at this benchmark's
// allocation rate (about 100 MB/s) misses a peak by a fraction of a MB.
type peakHeap struct {
	s    []metrics.Sample
	max  atomic.Uint64
	stop chan struct{}
	done chan struct{}
}

func newPeakHeap() *peakHeap {
	return &peakHeap{
		s:    []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}},
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
}

// run samples the heap every 2 ms until end is called.
func (p *peakHeap) run() {
	defer close(p.done)
	tick := time.NewTicker(2 * time.Millisecond) // wallclock: the heap is sampled in real time
	defer tick.Stop()
	for {
		p.sample()
		select {
		case <-p.stop:
			return
		case <-tick.C:
		}
	}
}

// end stops run and returns the highest heap in use it saw, in bytes.
func (p *peakHeap) end() uint64 {
	close(p.stop)
	<-p.done
	p.sample()
	return p.max.Load()
}

func (p *peakHeap) sample() {
	metrics.Read(p.s)
	if v := p.s[0].Value.Uint64(); v > p.max.Load() {
		p.max.Store(v) // only run and end sample, one at a time
	}
}

// TestPeakHeapSeesAPeakBetweenItsCallers checks that the scale benchmark's
// peak is the heap's, not the heap at the moments the benchmark looks: a
// block allocated and dropped while nobody calls sample is still counted.
func TestPeakHeapSeesAPeakBetweenItsCallers(t *testing.T) {
	const size = 256 << 20
	runtime.GC() // no garbage in the baseline that a GC could free meanwhile
	before := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(before)
	p := newPeakHeap()
	go p.run()
	block := make([]byte, size)
	for i := 0; i < len(block); i += 4096 {
		block[i] = 1 // touched, so that it is not optimized out
	}
	require.Eventually(t, func() bool { return p.max.Load() >= before[0].Value.Uint64()+size/2 }, 10*time.Second, time.Millisecond)
	runtime.KeepAlive(block)
	assert.GreaterOrEqual(t, p.end(), uint64(size))
}
