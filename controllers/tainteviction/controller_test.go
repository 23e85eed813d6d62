package tainteviction

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/client/record"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/informer"
	"github.com/miniplane/miniplane/internal/testenv"
)

type harness struct {
	t   *testing.T
	ctx context.Context
	clk *clock.Fake
	srv *apiserver.Server
	f   *informer.Factory
	c   *Controller
}

func newHarness(t *testing.T) *harness {
	clk := clock.NewFake(t0)
	srv, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(1, 2)), CheckMutations: true})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, srv.CheckMutations()) })
	log := zaptest.NewLogger(t)
	f := informer.NewFactory(srv, "", clk, log)
	c, err := New(Config{Client: srv, Factory: f, Clock: clk, Logger: log,
		Recorder: record.NewEventRecorder(srv, clk, "taint-eviction-controller", "test")})
	require.NoError(t, err)
	h := &harness{t: t, ctx: t.Context(), clk: clk, srv: srv, f: f, c: c}
	_, err = srv.Create(h.ctx, &api.Node{Metadata: api.ObjectMeta{Name: "n1"}})
	require.NoError(t, err)
	return h
}

// settle brings the caches up to date, then runs the syncs that are due.
func (h *harness) settle() {
	testenv.SettleController(h.t, h.ctx, h.f, h.c)
}

func (h *harness) advance(d time.Duration) {
	h.clk.Step(d)
	h.settle()
}

// runPod creates a pod with tolerations bound to n1.
func (h *harness) runPod(name string, tolerations ...api.Toleration) {
	_, err := h.srv.Create(h.ctx, &api.Pod{Metadata: api.ObjectMeta{Namespace: "default", Name: name},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}, Tolerations: tolerations}})
	require.NoError(h.t, err)
	_, err = h.srv.Bind(h.ctx, "default", name, "n1")
	require.NoError(h.t, err)
}

// taint replaces n1's taints.
func (h *harness) taint(taints ...api.Taint) {
	obj, err := h.srv.Get(h.ctx, client.Nodes, "", "n1", client.GetOptions{})
	require.NoError(h.t, err)
	n := obj.(*api.Node).DeepCopy()
	n.Spec.Taints = taints
	_, err = h.srv.Update(h.ctx, n)
	require.NoError(h.t, err)
}

// evicted reports whether the pod is being deleted with the taint
// manager's condition.
func (h *harness) evicted(name string) bool {
	obj, err := h.srv.Get(h.ctx, client.Pods, "default", name, client.GetOptions{})
	if err != nil {
		return true
	}
	p := obj.(*api.Pod)
	if p.Metadata.DeletionTimestamp == nil {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == "DisruptionTarget" {
			assert.Equal(h.t, "DeletionByTaintManager", c.Reason)
			return true
		}
	}
	h.t.Errorf("pod %s deleted without the DisruptionTarget condition", name)
	return true
}

func (h *harness) eventMessages() []string {
	list, err := h.srv.List(h.ctx, client.Events, "default", client.ListOptions{})
	require.NoError(h.t, err)
	var out []string
	for _, obj := range list.Items {
		if e := obj.(*api.Event); e.Reason == "TaintManagerEviction" {
			out = append(out, e.Message)
		}
	}
	return out
}

// TestEvictsAfterTolerationSeconds: a pod tolerating a NoExecute taint for
// 10 s stays 10 s, then is deleted with the DisruptionTarget condition and
// an event.
func TestEvictsAfterTolerationSeconds(t *testing.T) {
	h := newHarness(t)
	h.runPod("web", tolerate("k", seconds(10)))
	h.settle()
	h.taint(noExecute("k"))
	h.settle()
	h.advance(9 * time.Second)
	assert.False(t, h.evicted("web"), "tolerated for 10 s")
	h.advance(time.Second)
	assert.True(t, h.evicted("web"))
	assert.Equal(t, []string{"Marking for deletion Pod default/web"}, h.eventMessages())
}

// TestTaintRemovedCancelsEviction: the taint goes before the pod's time is
// up: the eviction is cancelled, with an event, and the pod stays.
func TestTaintRemovedCancelsEviction(t *testing.T) {
	h := newHarness(t)
	h.runPod("web", tolerate("k", seconds(10)))
	h.taint(noExecute("k"))
	h.settle()
	h.advance(5 * time.Second)
	h.taint()
	h.settle()
	h.advance(time.Minute)
	assert.False(t, h.evicted("web"))
	assert.Equal(t, []string{"Cancelling deletion of Pod default/web"}, h.eventMessages())
}

// TestNodeTaintedWithManyPods ports TestUpdateNodeWithMultiplePods: an
// untolerating pod goes at once, one tolerating forever stays, one
// tolerating for a while goes then.
func TestNodeTaintedWithManyPods(t *testing.T) {
	h := newHarness(t)
	h.runPod("intolerant")
	h.runPod("forever", tolerate("k", nil))
	h.runPod("awhile", tolerate("k", seconds(30)))
	h.settle()
	h.taint(noExecute("k"))
	h.settle()
	assert.True(t, h.evicted("intolerant"))
	assert.False(t, h.evicted("forever"))
	assert.False(t, h.evicted("awhile"))
	h.advance(30 * time.Second)
	assert.True(t, h.evicted("awhile"))
	assert.False(t, h.evicted("forever"))
}
