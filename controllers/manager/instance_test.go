package manager_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/manager"
	"github.com/miniplane/miniplane/controllers/workqueue"
	"github.com/miniplane/miniplane/election"
	"github.com/miniplane/miniplane/election/electiontest"
	"github.com/miniplane/miniplane/informer"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// fastElection is the fast setting whose failover README reports: lease
// 2s, renew deadline 1s (a 1s margin for the guard), retry 0.5s.
var fastElection = manager.LeaderElectionOptions{
	LeaderElect: true, LeaseDuration: 2 * time.Second, RenewDeadline: time.Second, RetryPeriod: 500 * time.Millisecond,
	ResourceName: election.DefaultName, ResourceNamespace: election.DefaultNamespace,
}

// cluster is an API server, optionally the simulated kubelets (once,
// unelected), and several elected controller-manager instances, each with
// its own recording client, all live on one fake clock.
type cluster struct {
	clk       *clock.Fake
	srv       *apiserver.Server
	ctx       context.Context // ends everything at cleanup
	log       *zap.Logger
	instances []*instance
}

type instance struct {
	*manager.Instance
	client *electiontest.Client
	cancel context.CancelFunc
	done   chan error
}

func newCluster(t testing.TB, n int, le manager.LeaderElectionOptions, withNodes bool) *cluster {
	t.Helper()
	clk := clock.NewFake(epoch)
	log := zaptest.NewLogger(t, zaptest.Level(zap.WarnLevel))
	srv, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(3, 3)), Logger: log})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	c := &cluster{clk: clk, srv: srv}
	var stops []chan struct{}
	goRun := func(f func()) {
		done := make(chan struct{})
		stops = append(stops, done)
		go func() { defer close(done); f() }()
	}
	goRun(func() { srv.Run(ctx) })
	if withNodes {
		opts := manager.DefaultOptions()
		opts.LeaderElection.LeaderElect = false
		nodes, err := manager.New(manager.InitContext{
			Client: srv, Binder: srv, Factory: informer.NewFactory(srv, "", clk, log), Clock: clk, Logger: log,
			Options: opts, Instance: "kubelets",
		}, manager.NodeSimDescriptors())
		require.NoError(t, err)
		goRun(func() { assert.NoError(t, nodes.Run(ctx)) })
	}
	c.ctx, c.log = ctx, log
	for range n {
		c.addInstance(t, le)
	}
	t.Cleanup(func() {
		cancel()
		for _, in := range c.instances {
			assert.NoError(t, <-in.done)
		}
		for _, s := range stops {
			<-s
		}
	})
	return c
}

// addInstance starts one more elected instance, named cm-<index>.
func (c *cluster) addInstance(t testing.TB, le manager.LeaderElectionOptions) *instance {
	t.Helper()
	opts := manager.DefaultOptions()
	opts.LeaderElection = le
	cl := electiontest.NewClient(c.srv, c.clk)
	in, err := manager.NewInstance(manager.InstanceConfig{
		Client: cl, Clock: c.clk, Logger: c.log, Identity: fmt.Sprintf("cm-%d", len(c.instances)), Options: opts,
	})
	require.NoError(t, err)
	ictx, icancel := context.WithCancel(c.ctx)
	inst := &instance{Instance: in, client: cl, cancel: icancel, done: make(chan error, 1)}
	go func() { inst.done <- in.Run(ictx) }()
	c.instances = append(c.instances, inst)
	return inst
}

// quiet waits until the live goroutines have done what they can at this
// virtual time: every leading instance runs its term's controllers, their
// caches synced and no work ready in their queues, and the store's
// revision and the clock's pending timers stay the same over several
// polls. (Stability alone misread a leader still starting its controllers
// as quiet on a loaded machine under -race, and moved the clock on before
// its first write.)
func (c *cluster) quiet(t testing.TB) {
	t.Helper()
	type state struct {
		rev     int64
		waiters int
	}
	var last state
	stable := 0
	require.Eventually(t, func() bool {
		now := state{c.srv.Store().Rev(), c.clk.Waiters()}
		if now == last {
			stable++
		} else {
			last, stable = now, 0
		}
		return stable >= 10 && !c.busy()
	}, 20*time.Second, time.Millisecond)
}

// busy reports whether a leading instance is still starting its term's
// controllers, or has one not synced or with work ready in its queue.
func (c *cluster) busy() bool {
	for _, in := range c.instances {
		h := in.Health()
		if !h.Leading {
			continue
		}
		if h.Controllers == nil {
			return true
		}
		for _, ch := range h.Controllers {
			if ch.Enabled && !ch.Synced {
				return true
			}
		}
		for _, ctl := range in.Controllers() {
			if q, ok := ctl.(interface {
				Queue() *workqueue.Queue[string]
			}); ok && q.Queue().Len() > 0 {
				return true
			}
		}
	}
	return false
}

// until moves virtual time from one timer deadline to the next, letting
// the goroutines settle in between, until cond holds.
func (c *cluster) until(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for {
		c.quiet(t)
		if cond() {
			return
		}
		require.Less(t, c.clk.Since(epoch), 10*time.Minute, "virtual time ran out waiting for %s", what)
		require.True(t, c.clk.StepToNext(), "nothing is scheduled and %s does not hold", what)
	}
}

// advanceTo moves virtual time to at, stopping at every timer deadline on
// the way to let the goroutines settle.
func (c *cluster) advanceTo(t testing.TB, at time.Time) {
	t.Helper()
	for {
		c.quiet(t)
		next, ok := c.clk.NextDeadline()
		if !ok || next.After(at) {
			break
		}
		c.clk.StepToNext()
	}
	require.False(t, c.clk.Now().After(at), "already past %s", at)
	c.clk.SetTime(at)
}

// leader returns the instance that leads, or nil; never more than one.
func (c *cluster) leader(t testing.TB) *instance {
	var out *instance
	for _, in := range c.instances {
		if in.Elector().IsLeader() {
			require.Nil(t, out, "two instances lead at once")
			out = in
		}
	}
	return out
}

// controllerWrites returns an instance's writes other than to the lease.
func controllerWrites(in *instance) []electiontest.Write {
	var out []electiontest.Write
	for _, w := range in.client.Writes() {
		if w.Resource != client.Leases {
			out = append(out, w)
		}
	}
	return out
}

func (c *cluster) createRC(t testing.TB, name string, replicas int32) {
	t.Helper()
	labels := map[string]string{"app": name}
	_, err := c.srv.Create(context.Background(), &api.ReplicationController{
		Metadata: api.ObjectMeta{Namespace: "default", Name: name},
		Spec: api.ReplicationControllerSpec{Replicas: &replicas, Selector: labels, Template: &api.PodTemplateSpec{
			Metadata: api.ObjectMeta{Labels: labels},
			Spec:     api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx:1.27"}}},
		}},
	})
	require.NoError(t, err)
}

func (c *cluster) scale(t testing.TB, name string, replicas int32) {
	t.Helper()
	_, err := c.srv.UpdateScale(context.Background(), client.ReplicationControllers, "default", &api.Scale{Metadata: api.ObjectMeta{Name: name}, Spec: api.ScaleSpec{Replicas: replicas}})
	require.NoError(t, err)
}

func (c *cluster) readyPods(t testing.TB) int {
	pods, _, err := client.For[*api.Pod](c.srv).List(context.Background(), "default", client.ListOptions{})
	require.NoError(t, err)
	n := 0
	for _, p := range pods {
		if api.IsPodReady(p) && p.Metadata.DeletionTimestamp == nil {
			n++
		}
	}
	return n
}

// TestInstancesFailOver runs three elected instances in one process with
// the kubelets once beside them: one leads and reconciles; it crashes
// (cancelled without release); another takes over no sooner than a lease
// duration later, with a fresh controller set that reconciles; the crashed
// instance wrote nothing after its crash, and no two instances' writes
// interleave.
func TestInstancesFailOver(t *testing.T) {
	c := newCluster(t, 3, manager.DefaultOptions().LeaderElection, true)
	c.createRC(t, "web", 2)
	c.until(t, "a leader with 2 ready pods, seen by every follower", func() bool {
		l := c.leader(t)
		if l == nil || c.readyPods(t) != 2 {
			return false
		}
		for _, in := range c.instances {
			if in.Health().Holder != l.Identity() {
				return false // a follower's first attempt may not have run yet
			}
		}
		return true
	})
	old := c.leader(t)
	assert.Equal(t, int64(1), old.Elector().Term())
	h := old.Health()
	assert.True(t, h.LeaderElection)
	assert.True(t, h.Leading)
	assert.Equal(t, old.Identity(), h.Holder)
	assert.Equal(t, 1, h.Terms)
	require.NotEmpty(t, h.Controllers)
	for _, ch := range h.Controllers {
		assert.True(t, ch.Running && ch.Synced, "%+v", ch)
	}
	for _, in := range c.instances {
		if in != old {
			assert.False(t, in.Health().Leading)
			assert.Equal(t, old.Identity(), in.Health().Holder)
			assert.Nil(t, in.Health().Controllers, "a follower runs no controllers")
		}
	}

	lastRenew := old.Health().LastRenew
	old.cancel() // a crash: no release
	require.NoError(t, <-old.done)
	old.done <- nil // for the cleanup
	crashedAt := c.clk.Now()
	c.scale(t, "web", 4)

	c.until(t, "a new leader with 4 ready pods", func() bool { return c.leader(t) != nil && c.readyPods(t) == 4 })
	cur := c.leader(t)
	require.NotEqual(t, old.Identity(), cur.Identity())
	assert.Equal(t, int64(2), cur.Elector().Term())
	assert.False(t, old.Health().Leading)
	assert.Nil(t, old.Health().Controllers)

	writes := controllerWrites(cur)
	require.NotEmpty(t, writes, "the new leader's controllers reconciled")
	assert.False(t, writes[0].At.Before(lastRenew.Add(election.DefaultLeaseDuration)),
		"new leader wrote at %s, less than a lease duration after the last renewal at %s", writes[0].At, lastRenew)
	oldWrites := controllerWrites(old)
	require.NotEmpty(t, oldWrites)
	for _, w := range oldWrites {
		assert.False(t, w.At.After(crashedAt), "crashed instance wrote %v at %s", w.Op, w.At)
		assert.True(t, w.At.Before(writes[0].At))
	}
	for _, in := range c.instances {
		if in != old && in != cur {
			assert.Empty(t, controllerWrites(in), "%s never led and never wrote", in.Identity())
		}
	}
}

// TestCleanShutdownHandsOver: an instance that releases on cancel hands the
// lease over within one retry period.
func TestCleanShutdownHandsOver(t *testing.T) {
	clk := clock.NewFake(epoch)
	srv, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(1, 1))})
	require.NoError(t, err)
	c := &cluster{clk: clk, srv: srv}
	var ins []*manager.Instance
	var cancels []context.CancelFunc
	var dones []chan error
	for i := range 2 {
		in, err := manager.NewInstance(manager.InstanceConfig{
			Client: srv, Clock: clk, Identity: fmt.Sprintf("cm-%d", i), Options: manager.DefaultOptions(), ReleaseOnCancel: true,
		})
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- in.Run(ctx) }()
		ins, cancels, dones = append(ins, in), append(cancels, cancel), append(dones, done)
	}
	c.until(t, "one leads", func() bool { return ins[0].Elector().IsLeader() || ins[1].Elector().IsLeader() })
	first := 0
	if ins[1].Elector().IsLeader() {
		first = 1
	}
	other := 1 - first
	defer func() {
		cancels[other]()
		assert.NoError(t, <-dones[other])
	}()
	cancels[first]()
	require.NoError(t, <-dones[first])
	released := clk.Now()
	c.until(t, "the other leads", func() bool { return ins[other].Elector().IsLeader() })
	assert.LessOrEqual(t, clk.Since(released), election.DefaultRetryPeriod)
	assert.Equal(t, int64(2), ins[other].Elector().Term())
}

// measureFailover starts a leader and, half a retry period later, a
// second instance, so that their attempts alternate; it crashes the leader
// right after a renewal, scales a controller at that moment, and returns
// the virtual time until the new leader's first controller write. With this
// phase the answer is LeaseDuration plus half a retry period, rounded up
// to the second instance's next attempt.
func measureFailover(t testing.TB, le manager.LeaderElectionOptions) time.Duration {
	c := newCluster(t, 1, le, false)
	c.createRC(t, "web", 1)
	c.until(t, "a leader that created the pod", func() bool {
		l := c.leader(t)
		return l != nil && len(controllerWrites(l)) > 0
	})
	old := c.leader(t)
	c.advanceTo(t, epoch.Add(le.RetryPeriod/2))
	c.addInstance(t, le)
	c.until(t, "a renewal", func() bool { return old.Health().LastRenew.Equal(c.clk.Now()) && old.Health().Term == 1 })
	old.cancel()
	require.NoError(t, <-old.done)
	old.done <- nil
	crashedAt := c.clk.Now()
	c.scale(t, "web", 2)
	var cur *instance
	c.until(t, "the new leader's first write", func() bool {
		cur = c.leader(t)
		return cur != nil && cur != old && len(controllerWrites(cur)) > 0
	})
	return controllerWrites(cur)[0].At.Sub(crashedAt)
}

// TestFailoverTime checks the failover from a crash right after a renewal
// to the new leader's first write, with the candidate polling half a retry
// period out of phase with the leader (see measureFailover).
func TestFailoverTime(t *testing.T) {
	for _, tt := range []struct {
		name string
		le   manager.LeaderElectionOptions
		want time.Duration
	}{
		// observed 1s after the renewal, free 16s after it, next attempt at 17s
		{"defaults", manager.DefaultOptions().LeaderElection, 17 * time.Second},
		// observed 0.25s after, free at 2.25s, an attempt falls exactly then
		{"fast", fastElection, 2250 * time.Millisecond},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, measureFailover(t, tt.le))
		})
	}
}

// BenchmarkFailover reports the failover time in virtual seconds (see
// measureFailover) at default and fast election settings:
//
//	go test -run='^$' -bench=Failover -benchtime=1x ./controllers/manager/
func BenchmarkFailover(b *testing.B) {
	for _, bb := range []struct {
		name string
		le   manager.LeaderElectionOptions
	}{
		{"defaults", manager.DefaultOptions().LeaderElection},
		{"fast", fastElection},
	} {
		b.Run(bb.name, func(b *testing.B) {
			var d time.Duration
			for b.Loop() {
				d = measureFailover(b, bb.le)
			}
			b.ReportMetric(d.Seconds(), "s-virtual-failover")
		})
	}
}

// TestPausedLeaderStopsWritingBeforeTakeover hangs the leader's elector in
// a lease request (as if its goroutine were never scheduled again) while
// its controllers run on. Its guard closes by time at the renew deadline;
// work that appears after that is refused to it and done by the instance
// that takes over a lease duration after the last renewal. No write of the
// paused leader lands after its guard closed.
func TestPausedLeaderStopsWritingBeforeTakeover(t *testing.T) {
	c := newCluster(t, 2, manager.DefaultOptions().LeaderElection, false)
	c.createRC(t, "web", 1)
	c.until(t, "a leader that created the pod", func() bool {
		l := c.leader(t)
		return l != nil && len(controllerWrites(l)) > 0
	})
	paused := c.leader(t)
	hang := make(chan struct{})
	t.Cleanup(func() { close(hang) }) // runs before the cluster's cleanup
	paused.client.SetFault(func(op electiontest.Op) error {
		if op.Resource == client.Leases {
			<-hang
			return apierrors.NewInternalError(fmt.Errorf("hung"))
		}
		return nil
	})
	lastRenew := paused.Health().LastRenew
	guardClosed := lastRenew.Add(election.DefaultRenewDeadline)

	c.until(t, "the paused leader's guard closed", func() bool { return !c.clk.Now().Before(guardClosed) })
	h := paused.Health()
	assert.False(t, h.Leading, "the guard closed by time alone")
	assert.NotNil(t, h.Controllers, "its controllers still run: its elector never got to stop them")
	require.Nil(t, c.leader(t), "nobody leads yet")

	c.scale(t, "web", 3) // work the paused leader's controllers see and may not do
	var cur *instance
	c.until(t, "the new leader scaled up", func() bool {
		for _, w := range controllerWrites(paused) {
			require.True(t, w.At.Before(guardClosed), "paused leader wrote %v at %s, after its guard closed at %s", w.Op, w.At, guardClosed)
		}
		cur = c.leader(t)
		return cur != nil && len(controllerWrites(cur)) >= 2
	})
	require.NotEqual(t, paused.Identity(), cur.Identity())
	first := controllerWrites(cur)[0].At
	assert.False(t, first.Before(lastRenew.Add(election.DefaultLeaseDuration)))
	pods, _, err := client.For[*api.Pod](c.srv).List(context.Background(), "default", client.ListOptions{})
	require.NoError(t, err)
	assert.Len(t, pods, 3, "exactly the new leader's pods were added: none twice")
}

// TestInstanceEndsWhenControllersFailToStart: as kube-controller-manager
// exits when a controller cannot start, an instance's Run returns the error,
// with election on or off.
func TestInstanceEndsWhenControllersFailToStart(t *testing.T) {
	for _, elect := range []bool{true, false} {
		t.Run(fmt.Sprintf("leader-elect=%v", elect), func(t *testing.T) {
			clk := clock.NewFake(epoch)
			srv, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(1, 1))})
			require.NoError(t, err)
			opts := manager.DefaultOptions()
			opts.LeaderElection.LeaderElect = elect
			in, err := manager.NewInstance(manager.InstanceConfig{
				Client: srv, Clock: clk, Identity: "cm-0", Options: opts,
				// The scheduler needs a Binder, which an instance does not give.
				Descriptors: manager.NodeSimDescriptors(),
			})
			require.NoError(t, err)
			err = in.Run(context.Background())
			require.Error(t, err)
			assert.Contains(t, err.Error(), "the scheduler needs InitContext.Binder")
			assert.Equal(t, elect, in.Elector() != nil)
		})
	}
}

func TestNewInstanceValidates(t *testing.T) {
	clk := clock.NewFake(epoch)
	srv, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(1, 1))})
	require.NoError(t, err)
	bad := manager.DefaultOptions()
	bad.LeaderElection.RenewDeadline = 20 * time.Second
	tests := []struct {
		name    string
		cfg     manager.InstanceConfig
		wantErr string
	}{
		{"no client", manager.InstanceConfig{Clock: clk, Identity: "a", Options: manager.DefaultOptions()}, "needs a Client and a Clock"},
		{"no identity", manager.InstanceConfig{Client: srv, Clock: clk, Options: manager.DefaultOptions()}, "Identity is required"},
		{"bad election timings", manager.InstanceConfig{Client: srv, Clock: clk, Identity: "a", Options: bad},
			"--leader-elect-lease-duration (15s) must be greater than --leader-elect-renew-deadline (20s)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := manager.NewInstance(tt.cfg)
			assert.ErrorContains(t, err, tt.wantErr)
		})
	}
}
