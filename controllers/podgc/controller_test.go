package podgc

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/informer"
	"github.com/miniplane/miniplane/internal/testenv"
)

// statuses records the pod statuses written through it.
type statuses struct {
	Client
	written map[string]api.PodStatus
}

func (s *statuses) UpdateStatus(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error) {
	if p, ok := obj.(*api.Pod); ok {
		s.written[p.Metadata.Name] = p.Status
	}
	return s.Client.UpdateStatus(ctx, obj, opts...)
}

type harness struct {
	t   *testing.T
	w   *statuses
	ctx context.Context
	clk *clock.Fake
	srv *apiserver.Server
	f   *informer.Factory
	c   *Controller
}

func newHarness(t *testing.T, threshold int) *harness {
	clk := clock.NewFake(t0)
	srv, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(1, 2))})
	require.NoError(t, err)
	log := zaptest.NewLogger(t)
	f := informer.NewFactory(srv, "", clk, log)
	w := &statuses{Client: srv, written: map[string]api.PodStatus{}}
	c, err := New(Config{Client: w, Factory: f, Clock: clk, Logger: log, TerminatedPodThreshold: threshold})
	require.NoError(t, err)
	return &harness{t: t, w: w, ctx: t.Context(), clk: clk, srv: srv, f: f, c: c}
}

// settle brings the caches up to date, then runs the syncs that are due.
func (h *harness) settle() {
	testenv.SettleController(h.t, h.ctx, h.f, h.c)
}

func (h *harness) advance(d time.Duration) {
	h.clk.Step(d)
	h.settle()
}

func (h *harness) create(obj api.Object) {
	h.t.Helper()
	_, err := h.srv.Create(h.ctx, obj)
	require.NoError(h.t, err)
}

func (h *harness) bind(name, node string, phase api.PodPhase) {
	h.t.Helper()
	h.create(&api.Pod{Metadata: api.ObjectMeta{Namespace: "default", Name: name},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}})
	p, err := h.srv.Bind(h.ctx, "default", name, node)
	require.NoError(h.t, err)
	p = p.DeepCopy()
	p.Status.Phase = phase
	_, err = h.srv.UpdateStatus(h.ctx, p)
	require.NoError(h.t, err)
}

func (h *harness) pod(name string) (*api.Pod, bool) {
	obj, err := h.srv.Get(h.ctx, client.Pods, "default", name, client.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, false
	}
	require.NoError(h.t, err)
	return obj.(*api.Pod), true
}

// TestOrphansGoAfterTheQuarantine: the pods of a deleted node are marked
// Failed with DisruptionTarget and deleted at the first sweep after the
// node has been missing 40 seconds; other pods stay.
func TestOrphansGoAfterTheQuarantine(t *testing.T) {
	h := newHarness(t, DefaultTerminatedPodThreshold)
	h.create(&api.Node{Metadata: api.ObjectMeta{Name: "n1"}})
	h.create(&api.Node{Metadata: api.ObjectMeta{Name: "n2"}})
	h.bind("web-1", "n1", api.PodRunning)
	h.bind("web-2", "n2", api.PodRunning)
	h.settle()
	require.True(t, h.c.HasSynced())

	_, err := h.srv.Delete(h.ctx, client.Nodes, "", "n1", api.DeleteOptions{})
	require.NoError(t, err)
	h.advance(checkPeriod) // the sweep that sees n1 missing
	_, ok := h.pod("web-1")
	require.True(t, ok, "quarantined for 40s")

	h.advance(checkPeriod)
	_, ok = h.pod("web-1")
	require.True(t, ok, "20s later: still quarantined")

	h.advance(checkPeriod)
	_, ok = h.pod("web-1")
	assert.False(t, ok, "60s after the node went, its pod is force-deleted")
	st := h.w.written["web-1"]
	assert.Equal(t, api.PodFailed, st.Phase, "marked Failed first: no kubelet will")
	require.Len(t, st.Conditions, 2, "PodScheduled, from the binding, and the condition that says why")
	assert.Equal(t, api.PodCondition{Type: "DisruptionTarget", Status: api.ConditionTrue, Reason: "DeletionByPodGC",
		Message: "PodGC: node no longer exists", LastTransitionTime: api.NewTime(h.clk.Now())}, st.Conditions[1])
	assert.NotContains(t, h.w.written, "web-2")
	_, ok = h.pod("web-2")
	assert.True(t, ok, "a pod on a node that exists stays")
}

// TestTerminatedAboveTheThreshold: a sweep deletes the oldest terminated
// pods above the threshold.
func TestTerminatedAboveTheThreshold(t *testing.T) {
	h := newHarness(t, 1)
	h.create(&api.Node{Metadata: api.ObjectMeta{Name: "n1"}})
	h.bind("a", "n1", api.PodSucceeded)
	h.clk.Step(time.Second)
	h.bind("b", "n1", api.PodFailed)
	h.bind("c", "n1", api.PodRunning)
	h.settle()
	_, ok := h.pod("a")
	assert.False(t, ok, "the oldest terminated pod above the threshold of 1")
	_, ok = h.pod("b")
	assert.True(t, ok)
	_, ok = h.pod("c")
	assert.True(t, ok, "running: not counted")
}
