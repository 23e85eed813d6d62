package scheduler

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client/record"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/nodesim"
	"github.com/miniplane/miniplane/controllers/scheduler/fit"
	"github.com/miniplane/miniplane/informer"
	"github.com/miniplane/miniplane/internal/testenv"
)

var epoch = testenv.Epoch()

// env is the scheduler over a real API server and real informers, with
// nodesim's kubelets beside it to run what it binds, on a fake clock,
// driven step by step from the test's goroutine.
type env struct {
	testenv.Pods
	t     testing.TB
	ctx   context.Context
	clk   *clock.Fake
	srv   *apiserver.Server
	f     *informer.Factory
	c     *Controller
	nodes *nodesim.Controller
}

// newEnv makes the env with nodesim configured by nc; cfg, if given, is
// the scheduler's Config, its Client, Factory, Clock, Logger and Recorder
// filled in.
func newEnv(t testing.TB, nc nodesim.Config, cfg ...Config) *env {
	t.Helper()
	srv, clk := testenv.NewServer(t, apiserver.Config{PriorityClasses: true})
	log := testenv.Logger(t)
	f := informer.NewFactory(srv, "", clk, log)
	nc.Client, nc.Factory, nc.Clock, nc.Logger = srv, f, clk, log
	nc.Recorders = func(component, host string) *record.EventRecorder {
		return record.NewEventRecorder(srv, clk, component, host)
	}
	nodes, err := nodesim.New(nc)
	require.NoError(t, err)
	var sc Config
	if len(cfg) > 0 {
		sc = cfg[0]
	}
	sc.Client, sc.Factory, sc.Clock, sc.Logger, sc.PodsPerNode = srv, f, clk, log, nc.PodsPerNode
	sc.Recorder = record.NewEventRecorder(srv, clk, Component, "")
	c, err := New(sc)
	require.NoError(t, err)
	e := &env{t: t, ctx: context.Background(), clk: clk, srv: srv, f: f, c: c, nodes: nodes}
	e.Pods = testenv.Pods{TB: t, Ctx: e.ctx, Srv: srv}
	require.NoError(t, nodes.EnsureNodes(e.ctx))
	e.settle()
	require.True(t, c.HasSynced())
	return e
}

// settle runs every step until none has anything to do.
func (e *env) settle() {
	e.t.Helper()
	testenv.Settle(e.t, 100_000, e.step)
	if _, ok := e.t.(*testing.T); ok { // not in benchmarks, whose cost it would add to
		e.checkCounts()
	}
}

// step is one round of testenv.Step: the informers, then one sync of the
// scheduler and of the kubelets.
func (e *env) step() bool { return testenv.Step(e.ctx, e.f, e.c, e.nodes) }

// checkCounts holds the scheduler's counts to a recount: each node's
// record counts the pods seen bound there that hold a slot plus the
// assumed ones not seen bound, and every heap entry says its node's count
// and is the one its record points at.
func (e *env) checkCounts() {
	e.t.Helper()
	c := e.c
	c.mu.Lock()
	defer c.mu.Unlock()
	want := map[string]int{}
	wantReq := map[string]fit.Resource{}
	count := func(node string, req *fit.Resource) {
		want[node]++
		r := wantReq[node]
		r.Add(req)
		wantReq[node] = r
	}
	for key, info := range c.pods {
		require.Equal(e.t, key, info.key, "an entry holds its own key")
		require.False(e.t, info.empty(), "an entry that holds nothing is dropped")
		if info.holds {
			count(info.bound, info.req)
		}
		if info.assumed != "" && info.bound == "" {
			count(info.assumed, info.req)
		}
	}
	got := map[string]int{}
	for name, rec := range c.nodeRecs {
		if rec.pods != 0 {
			got[name] = rec.pods
		}
		w := wantReq[name]
		require.Equal(e.t, [3]int64{w.MilliCPU, w.Memory, w.EphemeralStorage},
			[3]int64{rec.requested.MilliCPU, rec.requested.Memory, rec.requested.EphemeralStorage}, "what %s's pods request", name)
	}
	require.Equal(e.t, want, got, "the nodes' pod counts")
	if !c.loadOK {
		return
	}
	for _, entry := range c.load {
		rec := c.nodeRecs[entry.name]
		require.NotNil(e.t, rec, "heap entry of %s", entry.name)
		require.Equal(e.t, rec.pods, entry.pods, "heap entry of %s", entry.name)
		require.Same(e.t, entry, rec.load, "heap entry of %s is its record's", entry.name)
		require.Equal(e.t, c.loadGen, rec.loadGen, "heap entry of %s", entry.name)
		require.Same(e.t, entry, c.load[entry.index])
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
	e.settle()
}

// runReady creates pods and brings them to Ready.
func (e *env) runReady(names ...string) {
	e.t.Helper()
	for _, n := range names {
		e.CreatePod(n)
	}
	e.settle()
	e.advance(time.Second)
	for _, n := range names {
		require.True(e.t, api.IsPodReady(e.Pod(n)), "%s ready", n)
	}
}
