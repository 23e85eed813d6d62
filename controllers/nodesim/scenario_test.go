package nodesim

import (
	"context"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/client/record"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/loop/looptest"
	"github.com/miniplane/miniplane/controllers/nodelifecycle"
	"github.com/miniplane/miniplane/controllers/scheduler"
	"github.com/miniplane/miniplane/informer"
	"github.com/miniplane/miniplane/internal/testenv"
)

// env is the controller over a real API server and real informers, on a
// fake clock, driven step by step from the test's goroutine, with the
// scheduler beside it (unless newEnvWith made it without) to bind its
// pods, and the node lifecycle controller to act on the pods of a node
// taken down.
type env struct {
	testenv.Pods
	t     testing.TB
	ctx   context.Context
	clk   *clock.Fake
	srv   *apiserver.Server
	f     *informer.Factory
	c     *Controller
	sched *scheduler.Controller
	life  *nodelifecycle.Controller
}

func newEnv(t testing.TB, cfg Config) *env { return newEnvWith(t, cfg, true) }

// newEnvWith is newEnv, with the scheduler or without it (another binds
// the pods).
func newEnvWith(t testing.TB, cfg Config, withScheduler bool) *env {
	t.Helper()
	srv, clk := testenv.NewServer(t, apiserver.Config{})
	log := testenv.Logger(t)
	f := informer.NewFactory(srv, "", clk, log)
	cfg.Client, cfg.Factory, cfg.Clock, cfg.Logger = srv, f, clk, log
	if cfg.Recorders != nil { // each component its own, as in the plane
		cfg.Recorders = func(component, host string) *record.EventRecorder {
			return record.NewEventRecorder(srv, clk, component, host)
		}
	} else {
		cfg.Recorder = record.NewEventRecorder(srv, clk, "nodesim", "test")
	}
	c, err := New(cfg)
	require.NoError(t, err)
	e := &env{t: t, ctx: context.Background(), clk: clk, srv: srv, f: f, c: c}
	e.Pods = testenv.Pods{TB: t, Ctx: e.ctx, Srv: srv}
	if withScheduler {
		e.sched, err = scheduler.New(scheduler.Config{
			Client: srv, Factory: f, Clock: clk, Logger: log, PodsPerNode: cfg.PodsPerNode,
			Recorder: record.NewEventRecorder(srv, clk, scheduler.Component, ""),
		})
		require.NoError(t, err)
	}
	e.life, err = nodelifecycle.New(nodelifecycle.Config{Client: srv, Factory: f, Clock: clk, Logger: log})
	require.NoError(t, err)
	require.NoError(t, c.EnsureNodes(e.ctx))
	e.settle()
	require.True(t, c.HasSynced())
	return e
}

// settle runs every step until none has anything to do.
func (e *env) settle() {
	e.t.Helper()
	testenv.Settle(e.t, 100_000, e.step)
	if _, ok := e.t.(*testing.T); ok { // not in benchmarks, whose cost it would add to
		e.checkState()
	}
}

// step is one round of testenv.Step: the informers, then one sync of the
// scheduler (if any) and of the kubelets.
func (e *env) step() bool {
	if e.sched == nil {
		return testenv.Step(e.ctx, e.f, e.c)
	}
	return testenv.Step(e.ctx, e.f, e.sched, e.life, e.c)
}

// checkState holds the state to its invariants: each entry is its key's,
// in state, and holds something.
func (e *env) checkState() {
	e.t.Helper()
	c := e.c
	c.mu.Lock()
	defer c.mu.Unlock()
	for key, st := range c.state {
		require.Equal(e.t, key, st.key, "an entry holds its own key")
		require.False(e.t, st.dropped, "an entry in state is not dropped")
		require.False(e.t, st.empty(), "an entry that holds nothing is dropped")
	}
}

// advance moves the clock by d and settles.
func (e *env) advance(d time.Duration) {
	e.clk.Step(d)
	e.settle()
}

func (e *env) deletePod(name string) {
	e.t.Helper()
	e.DeletePod(name)
	e.settle() // the kubelet sees it terminating now
}

// runReady creates pods and brings them to Ready.
func (e *env) runReady(names ...string) {
	e.t.Helper()
	for _, n := range names {
		e.CreatePod(n)
	}
	e.settle()
	e.advance(time.Second)
	e.advance(time.Second)
	for _, n := range names {
		require.True(e.t, api.IsPodReady(e.Pod(n)), "%s ready", n)
	}
}

func TestEnsureNodesCreatesNodes(t *testing.T) {
	e := newEnv(t, Config{Nodes: 4})
	nodes, _, err := client.For[*api.Node](e.srv).List(e.ctx, "", client.ListOptions{})
	require.NoError(t, err)
	require.Len(t, nodes, 4)
	for i, n := range nodes {
		assert.Equal(t, e.c.NodeName(i), n.Metadata.Name)
		assert.Equal(t, nodeCIDR(i), n.Spec.PodCIDR)
		assert.Equal(t, api.ResourceList{"cpu": "4", "memory": "16Gi", "pods": "110"}, n.Status.Capacity)
		assert.Equal(t, n.Status.Capacity, n.Status.Allocatable)
		assert.True(t, nodeReady(n))
		assert.Equal(t, api.NodeAddress{Type: api.NodeInternalIP, Address: fmt.Sprintf("10.0.0.%d", i+1)}, n.Status.Addresses[0])
		assert.Equal(t, KubeletVersion, n.Status.NodeInfo.KubeletVersion)
		assert.Equal(t, apiserver.GitVersion, KubeletVersion, "the kubelets match the API server's version")
	}
	require.NoError(t, e.c.EnsureNodes(e.ctx), "a second call finds them and succeeds")
}

// withReadinessProbe gives the pod's container a readiness probe, which it
// passes ReadyDelay after it starts.
func withReadinessProbe(p *api.Pod) {
	p.Spec.Containers[0].ReadinessProbe = &api.Probe{ProbeHandler: api.ProbeHandler{HTTPGet: &api.HTTPGetAction{Path: "/healthz", Port: api.FromInt(8080)}}}
	p.Spec.Containers[0].Ports = []api.ContainerPort{{ContainerPort: 8080}}
}

func TestPodLifecycleFollowsTheClock(t *testing.T) {
	e := newEnv(t, Config{})
	e.CreatePod("web-1", withReadinessProbe)
	e.settle()
	p := e.Pod("web-1")
	require.Equal(t, "node-0", p.Spec.NodeName, "bound")
	assert.Equal(t, api.PodPending, p.Status.Phase)

	e.advance(999 * time.Millisecond)
	assert.Equal(t, api.PodPending, e.Pod("web-1").Status.Phase, "not before StartDelay")
	e.advance(time.Millisecond)
	p = e.Pod("web-1")
	require.Equal(t, api.PodRunning, p.Status.Phase)
	assert.Equal(t, "10.244.0.2", p.Status.PodIP)
	assert.Equal(t, "10.0.0.1", p.Status.HostIP)
	assert.NotNil(t, p.Status.StartTime)
	assert.False(t, api.IsPodReady(p))

	e.advance(999 * time.Millisecond)
	assert.False(t, api.IsPodReady(e.Pod("web-1")), "not before ReadyDelay")
	e.advance(time.Millisecond)
	p = e.Pod("web-1")
	assert.True(t, api.IsPodReady(p))
	assert.True(t, p.Status.ContainerStatuses[0].Ready)
}

// TestPodWithoutReadinessProbeReadyWhenItRuns: as with a real kubelet, a
// container without a readiness probe is ready as soon as it runs, so the
// pod goes Running and Ready in one status write.
func TestPodWithoutReadinessProbeReadyWhenItRuns(t *testing.T) {
	e := newEnv(t, Config{})
	e.CreatePod("web-1")
	e.settle()
	w, err := e.srv.Store().Watch("/registry/pods/", 0) // from now on
	require.NoError(t, err)
	defer w.Stop()

	e.advance(999 * time.Millisecond)
	assert.Equal(t, api.PodPending, e.Pod("web-1").Status.Phase, "not before StartDelay")
	e.advance(time.Millisecond)
	p := e.Pod("web-1")
	require.Equal(t, api.PodRunning, p.Status.Phase)
	assert.Equal(t, "10.244.0.2", p.Status.PodIP)
	assert.True(t, api.IsPodReady(p))
	assert.True(t, p.Status.ContainerStatuses[0].Ready)
	ready, _ := conditionOf(p, api.PodReady)
	assert.Equal(t, epoch.Add(time.Second), ready.LastTransitionTime.Time)
	writes, _, err := w.Poll(nil, 0)
	require.NoError(t, err)
	assert.Len(t, writes, 1, "one status write: Running and Ready together")

	// Held not ready by SetPodReady before it starts, it starts not ready.
	e.CreatePod("web-2")
	e.settle()
	require.NoError(t, e.c.SetPodReady(e.ctx, "default", "web-2", false))
	e.advance(time.Second)
	p = e.Pod("web-2")
	require.Equal(t, api.PodRunning, p.Status.Phase)
	assert.False(t, api.IsPodReady(p))
}

func TestGracefulDeletionConfirmedByKubelet(t *testing.T) {
	e := newEnv(t, Config{})
	e.runReady("web")
	e.deletePod("web")
	e.settle()
	p := e.Pod("web")
	require.NotNil(t, p.Metadata.DeletionTimestamp, "terminating, grace 30s")
	e.advance(999 * time.Millisecond)
	assert.False(t, e.PodGone("web"), "not before TerminationDelay")
	e.advance(time.Millisecond)
	assert.True(t, e.PodGone("web"), "confirmed with grace 0 at TerminationDelay, no Sweep")
}

// TestOwnWritesNotSyncedAgain: the delivery of a status write of the
// kubelet's own is not synced when that sync would do nothing (foresee), and
// is when it has a delay to start: the pods' lives follow the same clock.
func TestOwnWritesNotSyncedAgain(t *testing.T) {
	for _, tt := range []struct {
		name  string
		probe bool
		syncs int
	}{
		// Bound (accepted), due (started, and ready); the deliveries of
		// accepted and started are spared, and the pod is not synced
		// before it is bound.
		{"without a readiness probe", false, 2},
		// ... due (started), started (the ready delay queued), due
		// (ready); accepted and ready are spared.
		{"with a readiness probe", true, 4},
	} {
		t.Run(tt.name, func(t *testing.T) {
			syncs := &looptest.SyncCounter{}
			e := newEnv(t, Config{Observer: syncs})
			if tt.probe {
				e.CreatePod("web", withReadinessProbe)
			} else {
				e.CreatePod("web")
			}
			e.settle()
			assert.Equal(t, api.PodPending, e.Pod("web").Status.Phase)
			e.advance(time.Second)
			assert.Equal(t, api.PodRunning, e.Pod("web").Status.Phase)
			assert.Equal(t, !tt.probe, api.IsPodReady(e.Pod("web")))
			if tt.probe {
				e.advance(999 * time.Millisecond)
				assert.False(t, api.IsPodReady(e.Pod("web")), "not before ReadyDelay")
				e.advance(time.Millisecond)
			}
			assert.True(t, api.IsPodReady(e.Pod("web")))
			assert.Equal(t, tt.syncs, syncs.Of("default/web"))

			// What happens to it next is seen as before: a crash, a
			// restart, a deletion.
			require.NoError(t, e.c.CrashPod(e.ctx, "default", "web"))
			e.settle()
			assert.False(t, api.IsPodReady(e.Pod("web")))
			e.advance(time.Second)
			assert.Equal(t, int32(1), e.Pod("web").Status.ContainerStatuses[0].RestartCount)
			e.advance(time.Second)
			assert.True(t, api.IsPodReady(e.Pod("web")))
			e.deletePod("web")
			e.advance(time.Second)
			assert.True(t, e.PodGone("web"))
		})
	}
}

// TestGonePodsForgotten: what nodesim keeps per pod (its state, the IPs,
// the logs) goes with the pods, whichever of
// the pod handler and the sync learns of it first.
func TestGonePodsForgotten(t *testing.T) {
	e := newEnv(t, Config{})
	e.runReady("web-1", "web-2", "web-3")
	require.NoError(t, e.c.CrashPod(e.ctx, "default", "web-2"))
	require.NoError(t, e.c.SetPodReady(e.ctx, "default", "web-3", false))
	e.settle()
	e.c.mu.Lock()
	assert.Len(t, e.c.state, 3)
	for key, st := range e.c.state {
		assert.Equal(t, key, st.key, "an entry holds its own key")
	}
	e.c.mu.Unlock()
	for _, name := range []string{"web-1", "web-2", "web-3"} {
		e.deletePod(name)
	}
	e.advance(time.Second)
	for _, name := range []string{"web-1", "web-2", "web-3"} {
		require.True(t, e.PodGone(name))
	}
	e.c.mu.Lock()
	defer e.c.mu.Unlock()
	assert.Empty(t, e.c.state, "no state, hence no logs")
	for node, ips := range e.c.ips {
		assert.Zero(t, ips.held, node)
		ips.each(func(a netip.Addr, key string) { t.Errorf("%s: %s still held by %s", node, a, key) })
	}
}

func TestTerminationDelayConfigured(t *testing.T) {
	e := newEnv(t, Config{TerminationDelay: 5 * time.Second})
	e.runReady("web")
	e.deletePod("web")
	e.advance(4 * time.Second)
	assert.False(t, e.PodGone("web"))
	e.advance(time.Second)
	assert.True(t, e.PodGone("web"))
}

func TestCrashPodRestarts(t *testing.T) {
	e := newEnv(t, Config{})
	e.CreatePod("web", withReadinessProbe)
	e.settle()
	e.advance(time.Second)
	e.advance(time.Second)
	require.True(t, api.IsPodReady(e.Pod("web")))
	before := e.Pod("web").Status.ContainerStatuses[0].ContainerID
	require.NoError(t, e.c.CrashPod(e.ctx, "default", "web"))
	e.settle()
	p := e.Pod("web")
	assert.False(t, api.IsPodReady(p))
	assert.Equal(t, api.PodRunning, p.Status.Phase)
	cs := p.Status.ContainerStatuses[0]
	assert.Equal(t, int32(1), cs.RestartCount)
	require.NotNil(t, cs.State.Terminated)
	assert.Equal(t, int32(1), cs.State.Terminated.ExitCode)

	e.advance(time.Second)
	p = e.Pod("web")
	require.NotNil(t, p.Status.ContainerStatuses[0].State.Running, "restarted after StartDelay")
	assert.NotEqual(t, before, p.Status.ContainerStatuses[0].ContainerID)
	assert.False(t, api.IsPodReady(p))
	e.advance(time.Second)
	assert.True(t, api.IsPodReady(e.Pod("web")), "ready again after ReadyDelay")
	assert.Equal(t, int32(1), e.Pod("web").Status.ContainerStatuses[0].RestartCount)

	// Without a readiness probe, it is ready again as soon as it runs.
	e.runReady("bare")
	require.NoError(t, e.c.CrashPod(e.ctx, "default", "bare"))
	e.settle()
	assert.False(t, api.IsPodReady(e.Pod("bare")))
	e.advance(time.Second)
	p = e.Pod("bare")
	require.NotNil(t, p.Status.ContainerStatuses[0].State.Running)
	assert.True(t, api.IsPodReady(p), "restarted and ready in one write")
}

func TestCrashPodNeverRestartFails(t *testing.T) {
	e := newEnv(t, Config{})
	e.CreatePod("job", func(p *api.Pod) { p.Spec.RestartPolicy = api.RestartPolicyNever })
	e.settle()
	e.advance(2 * time.Second)
	require.NoError(t, e.c.CrashPod(e.ctx, "default", "job"))
	e.settle()
	assert.Equal(t, api.PodFailed, e.Pod("job").Status.Phase)
	e.advance(time.Minute)
	assert.Equal(t, api.PodFailed, e.Pod("job").Status.Phase, "stays failed")
	assert.Error(t, e.c.CrashPod(e.ctx, "default", "job"), "a failed pod cannot crash")
}

// TestRunningIsWhatCrashPodAccepts: Running answers for the pods CrashPod
// would crash, and only them (the demo waits on it before crashing a pod).
func TestRunningIsWhatCrashPodAccepts(t *testing.T) {
	e := newEnv(t, Config{})
	e.CreatePod("web", func(p *api.Pod) { p.Spec.RestartPolicy = api.RestartPolicyNever })
	assert.False(t, e.c.Running("default", "web"), "not yet bound")
	assert.Error(t, e.c.CrashPod(e.ctx, "default", "web"))
	assert.False(t, e.c.Running("default", "nope"), "no such pod")
	e.settle()
	e.advance(2 * time.Second)
	require.True(t, e.c.Running("default", "web"))
	require.NoError(t, e.c.CrashPod(e.ctx, "default", "web"))
	e.settle()
	require.Equal(t, api.PodFailed, e.Pod("web").Status.Phase)
	assert.False(t, e.c.Running("default", "web"), "failed")
	assert.Error(t, e.c.CrashPod(e.ctx, "default", "web"))
}

func TestSetPodReadyFlips(t *testing.T) {
	e := newEnv(t, Config{})
	e.runReady("web")
	require.NoError(t, e.c.SetPodReady(e.ctx, "default", "web", false))
	e.settle()
	assert.False(t, api.IsPodReady(e.Pod("web")))
	e.advance(time.Minute)
	assert.False(t, api.IsPodReady(e.Pod("web")), "held not ready")
	require.NoError(t, e.c.SetPodReady(e.ctx, "default", "web", true))
	e.settle()
	assert.True(t, api.IsPodReady(e.Pod("web")))
	assert.Error(t, e.c.SetPodReady(e.ctx, "default", "nope", true))
}

func TestNodeDownPodsNotReadyThenFailed(t *testing.T) {
	e := newEnv(t, Config{Nodes: 2})
	e.runReady("a", "b", "c") // a, c on node-0; b on node-1
	require.Equal(t, "node-0", e.Pod("a").Spec.NodeName)
	require.Equal(t, "node-1", e.Pod("b").Spec.NodeName)

	require.NoError(t, e.c.NodeDown(e.ctx, "node-0"))
	e.settle()
	assert.False(t, nodeReady(e.Node("node-0")))
	for _, n := range []string{"a", "c"} {
		assert.False(t, api.IsPodReady(e.Pod(n)), "%s on the down node", n)
		assert.Equal(t, api.PodRunning, e.Pod(n).Status.Phase)
	}
	assert.True(t, api.IsPodReady(e.Pod("b")), "b on the healthy node")

	e.CreatePod("d")
	e.settle()
	assert.Equal(t, "node-1", e.Pod("d").Spec.NodeName, "a down node takes no pods")

	e.advance(29 * time.Second)
	assert.Equal(t, api.PodRunning, e.Pod("a").Status.Phase, "not before the eviction timeout")
	e.advance(time.Second)
	for _, n := range []string{"a", "c"} {
		p := e.Pod(n)
		assert.Equal(t, api.PodFailed, p.Status.Phase, n)
		assert.Equal(t, nodelifecycle.ReasonNodeLost, p.Status.Reason, n)
	}
	assert.Equal(t, api.PodRunning, e.Pod("b").Status.Phase)
}

func TestNodeUpBeforeTimeoutRecovers(t *testing.T) {
	e := newEnv(t, Config{Nodes: 1})
	e.runReady("a")
	require.NoError(t, e.c.NodeDown(e.ctx, "node-0"))
	e.advance(10 * time.Second)
	require.False(t, api.IsPodReady(e.Pod("a")))
	require.NoError(t, e.c.NodeUp(e.ctx, "node-0"))
	e.settle()
	e.advance(time.Second)
	assert.True(t, api.IsPodReady(e.Pod("a")))
	e.advance(time.Minute)
	assert.Equal(t, api.PodRunning, e.Pod("a").Status.Phase, "never evicted")
}

func TestPodIPsUniquePerNodeAndReused(t *testing.T) {
	e := newEnv(t, Config{Nodes: 2})
	e.runReady("a", "b", "c", "d") // a, c on node-0; b, d on node-1
	ips := map[string]string{}
	for _, n := range []string{"a", "b", "c", "d"} {
		ips[n] = e.Pod(n).Status.PodIP
	}
	assert.Equal(t, map[string]string{"a": "10.244.0.2", "b": "10.244.1.2", "c": "10.244.0.3", "d": "10.244.1.3"}, ips)

	e.deletePod("a")
	e.advance(time.Second)
	require.True(t, e.PodGone("a"))
	e.runReady("e") // node-0 now has the fewest pods
	p := e.Pod("e")
	assert.Equal(t, "node-0", p.Spec.NodeName)
	assert.Equal(t, "10.244.0.2", p.Status.PodIP, "a's address reused")
}

func TestRunBindsRunsAndStopsWithContext(t *testing.T) {
	srv, clk := testenv.NewServer(t, apiserver.Config{})
	log := testenv.Logger(t)
	f := informer.NewFactory(srv, "", clk, log)
	c, err := New(Config{Client: srv, Factory: f, Clock: clk, Logger: log})
	require.NoError(t, err)
	sched, err := scheduler.New(scheduler.Config{Client: srv, Factory: f, Clock: clk, Logger: log})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	require.NoError(t, c.EnsureNodes(ctx))
	f.Start(ctx)
	done := make(chan struct{})
	go func() { c.Run(ctx, 2); close(done) }()
	schedDone := make(chan struct{})
	go func() { sched.Run(ctx, 1); close(schedDone) }()

	_, err = client.For[*api.Pod](srv).Create(ctx, &api.Pod{
		Metadata: api.ObjectMeta{Namespace: "default", Name: "web"},
		Spec:     api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx"}}},
	})
	require.NoError(t, err)
	get := func() *api.Pod {
		p, err := client.For[*api.Pod](srv).Get(ctx, "default", "web")
		require.NoError(t, err)
		return p
	}
	require.Eventually(t, func() bool { return get().Spec.NodeName != "" }, 5*time.Second, time.Millisecond)
	require.Eventually(t, func() bool {
		clk.Step(100 * time.Millisecond) // the kubelet's timer is set once the bound pod is seen
		return api.IsPodReady(get())
	}, 5*time.Second, time.Millisecond)

	cancel()
	<-done
	<-schedDone
	f.Shutdown()
	assert.True(t, c.Queue().ShuttingDown())
	assert.True(t, sched.Queue().ShuttingDown())
}

func TestNewRejectsIncompleteConfig(t *testing.T) {
	_, err := New(Config{})
	assert.Error(t, err)
}

func TestSameStepsSameResult(t *testing.T) {
	run := func() []*api.Pod {
		e := newEnv(t, Config{Nodes: 2})
		e.runReady("a", "b", "c")
		require.NoError(t, e.c.CrashPod(e.ctx, "default", "b"))
		require.NoError(t, e.c.NodeDown(e.ctx, "node-0"))
		e.advance(31 * time.Second)
		pods, _, err := client.For[*api.Pod](e.srv).List(e.ctx, "default", client.ListOptions{})
		require.NoError(t, err)
		return pods
	}
	first, second := run(), run()
	require.Len(t, first, 3)
	assert.Equal(t, first, second)
}

// failStatusOnce fails the first status write of the pod named pod with a
// server error, before it is applied, as the simulator's ServerError fault
// does.
type failStatusOnce struct {
	Client
	pod    string
	failed bool
}

func (c *failStatusOnce) UpdateStatus(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error) {
	if p, ok := obj.(*api.Pod); ok && p.Metadata.Name == c.pod && !c.failed {
		c.failed = true
		return nil, apierrors.NewInternalError(fmt.Errorf("injected"))
	}
	return c.Client.UpdateStatus(ctx, obj, opts...)
}

// TestFailedWriteKeepsTheDelayedWake: a kubelet write that fails while the
// pod waits on time (accepted, its containers due to start in StartDelay)
// is retried with the queue's backoff, and the queue keeps one ready time
// per key, the earliest: the retry replaces the delayed add of the start.
// The retry's sync must ask for it again, or the pod stays Pending for good.
func TestFailedWriteKeepsTheDelayedWake(t *testing.T) {
	e := newEnv(t, Config{})
	fc := &failStatusOnce{Client: e.c.client, pod: "web"}
	e.c.client = fc
	e.CreatePod("web")
	e.settle()
	require.True(t, fc.failed, "the accept was refused")
	assert.Empty(t, e.Pod("web").Status.HostIP)

	e.advance(10 * time.Millisecond) // the rate-limited retry
	p := e.Pod("web")
	require.NotEmpty(t, p.Status.HostIP, "accepted on the retry")
	assert.Equal(t, api.PodPending, p.Status.Phase)

	e.advance(time.Second)
	p = e.Pod("web")
	assert.Equal(t, api.PodRunning, p.Status.Phase, "started StartDelay after it was first seen")
	assert.True(t, api.IsPodReady(p))
}

// TestWakeOutlivesAnEarlierRetry: the queue keeps one ready time per key,
// the earliest, so while a failed sync's retry is pending (5 ms) a later
// sync's delayed add of the start (StartDelay) is merged into it. When the
// retry comes, its sync must ask for the start again, though the kubelet
// asked for that very time before: a kubelet that remembered what it had
// asked, rather than what the queue holds, left the pod Pending for good
// (seen as TestControlLoop's third pod never starting on a loaded CI).
func TestWakeOutlivesAnEarlierRetry(t *testing.T) {
	e := newEnv(t, Config{})
	fc := &failStatusOnce{Client: e.c.client, pod: "web"}
	e.c.client = fc
	e.CreatePod("web")
	e.settle()
	require.True(t, fc.failed, "the accept was refused; its retry is pending")

	// Before the retry, a change to the pod queues it at once: this sync
	// accepts it and asks to come back at StartDelay.
	p := e.Pod("web").DeepCopy() // the server's copy is shared: never changed in place
	p.Metadata.Labels["touched"] = "yes"
	_, err := client.For[*api.Pod](e.srv).Update(e.ctx, p)
	require.NoError(t, err)
	e.settle()
	require.NotEmpty(t, e.Pod("web").Status.HostIP, "accepted by the sync the change queued")

	e.advance(10 * time.Millisecond) // the retry: nothing to do but wait
	assert.Equal(t, api.PodPending, e.Pod("web").Status.Phase)
	e.advance(time.Second)
	assert.Equal(t, api.PodRunning, e.Pod("web").Status.Phase, "started StartDelay after it was accepted")
}

// conflictBindOnce refuses the first binding with 409 Conflict before it is
// applied, as the simulator's Conflict fault does: the pod is not bound.

// TestDeletedPodEndsInATerminalPhase: a pod deleted gracefully is stopped
// and moved to a terminal phase before the kubelet confirms its deletion
// (KEP-3329): a finalizer keeps the object, which shows the phase its
// containers' exits give, Succeeded for a server stopped by SIGTERM,
// Failed for a command killed past it, and keeps others' conditions.
func TestDeletedPodEndsInATerminalPhase(t *testing.T) {
	tests := []struct {
		name      string
		command   []string
		wantPhase api.PodPhase
		wantCode  int32
	}{
		{"a server exits 0: Succeeded", nil, api.PodSucceeded, 0},
		{"a command is killed: Failed", []string{"sleep", "3600"}, api.PodFailed, 137},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, Config{Nodes: 1})
			e.CreatePod("web", func(p *api.Pod) {
				p.Metadata.Finalizers = []string{"example.com/keep"}
				p.Spec.Containers[0].Command = tt.command
			})
			e.settle()
			e.advance(2 * time.Second)
			require.Equal(t, api.PodRunning, e.Pod("web").Status.Phase)
			_, err := e.srv.Evict(e.ctx, &api.Eviction{Metadata: api.ObjectMeta{Namespace: "default", Name: "web"}})
			require.NoError(t, err)
			e.settle()
			require.Equal(t, api.PodRunning, e.Pod("web").Status.Phase, "stopping takes TerminationDelay")
			e.advance(time.Second)
			p := e.Pod("web")
			assert.Equal(t, tt.wantPhase, p.Status.Phase)
			assert.Equal(t, int64(0), *p.Metadata.DeletionGracePeriodSeconds, "deletion confirmed once terminal")
			require.NotNil(t, p.Status.ContainerStatuses[0].State.Terminated)
			assert.Equal(t, tt.wantCode, p.Status.ContainerStatuses[0].State.Terminated.ExitCode)
			c, ok := conditionOf(p, "DisruptionTarget")
			assert.True(t, ok && c.Reason == "EvictionByEvictionAPI", "the eviction's condition kept: %+v", c)
		})
	}
}
