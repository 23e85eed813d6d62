package nodelifecycle

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/client/record"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/informer"
	"github.com/miniplane/miniplane/internal/testenv"
)

// env is the controller over a real API server and real informers, on a
// fake clock, driven from the test's goroutine. No kubelet runs: the test
// writes the nodes' and pods' status itself, as upstream's tests hand the
// controller a fake clientset's nodes and pods.
type env struct {
	testenv.Pods
	t   *testing.T
	ctx context.Context
	clk *clock.Fake
	srv *apiserver.Server
	f   *informer.Factory
	c   *Controller
}

func newEnv(t *testing.T) *env {
	t.Helper()
	srv, clk := testenv.NewServer(t, apiserver.Config{})
	f := informer.NewFactory(srv, "", clk, testenv.Logger(t))
	c, err := New(Config{Client: srv, Factory: f, Clock: clk, Logger: testenv.Logger(t),
		Recorder: record.NewEventRecorder(srv, clk, Component, "")})
	require.NoError(t, err)
	e := &env{t: t, ctx: context.Background(), clk: clk, srv: srv, f: f, c: c}
	e.Pods = testenv.Pods{TB: t, Ctx: e.ctx, Srv: srv}
	return e
}

func (e *env) settle() {
	e.t.Helper()
	testenv.SettleController(e.t, e.ctx, e.f, e.c)
}

func (e *env) advance(d time.Duration) {
	e.clk.Step(d)
	e.settle()
}

// node creates the node name with its Ready condition status (none if "").
func (e *env) node(name string, status api.ConditionStatus) {
	e.t.Helper()
	n := &api.Node{Metadata: api.ObjectMeta{Name: name}}
	if status != "" {
		n.Status.Conditions = []api.NodeCondition{{Type: api.NodeReady, Status: status, LastTransitionTime: api.NewTime(e.clk.Now())}}
	}
	_, err := client.For[*api.Node](e.srv).Create(e.ctx, n)
	require.NoError(e.t, err)
}

// setNodeReady writes the node's Ready condition, as a kubelet that posts
// its status (True) or a controller that gave up on it (Unknown) does.
func (e *env) setNodeReady(name string, status api.ConditionStatus) {
	e.t.Helper()
	n := e.Node(name).DeepCopy()
	n.Status.Conditions = []api.NodeCondition{{Type: api.NodeReady, Status: status, LastTransitionTime: api.NewTime(e.clk.Now())}}
	_, err := client.For[*api.Node](e.srv).UpdateStatus(e.ctx, n)
	require.NoError(e.t, err)
}

// runningPod creates the pod name bound to node, Running and ready, as a
// kubelet would have it.
func (e *env) runningPod(name, node string) {
	e.t.Helper()
	e.CreatePod(name, func(p *api.Pod) { p.Spec.NodeName = node })
	p := e.Pod(name).DeepCopy()
	now := api.NewTime(e.clk.Now())
	p.Status.Phase = api.PodRunning
	p.Status.Conditions = []api.PodCondition{
		{Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: now},
		{Type: api.ContainersReady, Status: api.ConditionTrue, LastTransitionTime: now},
	}
	p.Status.ContainerStatuses = []api.ContainerStatus{{Name: "app", Ready: true, State: api.ContainerState{Running: &api.ContainerStateRunning{StartedAt: now}}}}
	_, err := client.For[*api.Pod](e.srv).UpdateStatus(e.ctx, p)
	require.NoError(e.t, err)
}

// nodeEvents returns the reasons and messages of the events about the node
// name, in the server's order.
func (e *env) nodeEvents(name string) [][2]string {
	e.t.Helper()
	events, _, err := client.For[*api.Event](e.srv).List(e.ctx, "", client.ListOptions{})
	require.NoError(e.t, err)
	var out [][2]string
	for _, ev := range events {
		if ev.InvolvedObject.Kind == "Node" && ev.InvolvedObject.Name == name {
			assert.Equal(e.t, Component, ev.Source.Component, "%s from %s", ev.Reason, ev.Source.Component)
			out = append(out, [2]string{ev.Reason, ev.Message})
		}
	}
	return out
}

// Ported from upstream's TestProcessPodMarkPodNotReady: a pod is marked
// not ready when its node is known and not ready, and only then.
func TestProcessPodMarkPodNotReady(t *testing.T) {
	tests := []struct {
		name      string
		node      string // "" when the pod's node does not exist
		ready     api.ConditionStatus
		wantReady bool
	}{
		{"not marked when the node is not known", "", "", true},
		{"not marked when the node is ready", "node-0", api.ConditionTrue, true},
		{"not marked when the node has no Ready condition yet", "node-0", "", true},
		{"marked when the node is not ready", "node-0", api.ConditionFalse, false},
		{"marked when the node is unreachable", "node-0", api.ConditionUnknown, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			if tt.node != "" {
				e.node(tt.node, tt.ready)
			}
			e.runningPod("pod0", "node-0")
			e.settle()
			p := e.Pod("pod0")
			assert.Equal(t, tt.wantReady, api.IsPodReady(p))
			assert.Equal(t, api.PodRunning, p.Status.Phase)
			if !tt.wantReady {
				assert.Equal(t, []string{"Node is not ready"}, e.EventMessages("pod0", ReasonNodeNotReady))
			} else {
				assert.Empty(t, e.EventMessages("pod0", ReasonNodeNotReady))
			}
		})
	}
}

// Ported from upstream's TestMonitorNodeHealthMarkPodsNotReady and
// TestNodeEventGeneration: a node seen ready that goes Unknown has its
// status change recorded once and its pods marked not ready; a node first
// seen not ready has its registration recorded, nothing more.
func TestNodeGoingDownMarksItsPodsNotReady(t *testing.T) {
	e := newEnv(t)
	e.node("node-0", api.ConditionTrue)
	e.node("node-1", api.ConditionTrue)
	e.runningPod("a", "node-0")
	e.runningPod("b", "node-0")
	e.runningPod("c", "node-1")
	e.settle()
	for _, n := range []string{"a", "b", "c"} {
		require.True(t, api.IsPodReady(e.Pod(n)), "%s while its node is ready", n)
	}
	assert.Equal(t, [][2]string{{"RegisteredNode", "Node node-0 event: Registered Node node-0 in Controller"}}, e.nodeEvents("node-0"))

	e.setNodeReady("node-0", api.ConditionUnknown)
	e.settle()
	for _, n := range []string{"a", "b"} {
		p := e.Pod(n)
		assert.False(t, api.IsPodReady(p), n)
		c, _ := podCondition(p, api.PodReady)
		assert.Equal(t, ReasonNodeNotReady, c.Reason, n)
		assert.Equal(t, api.PodRunning, p.Status.Phase, n)
	}
	assert.True(t, api.IsPodReady(e.Pod("c")), "c on the ready node")
	assert.Equal(t, [][2]string{
		{"RegisteredNode", "Node node-0 event: Registered Node node-0 in Controller"},
		{ReasonNodeNotReady, "Node node-0 status is now: NodeNotReady"},
	}, e.nodeEvents("node-0"))

	e.setNodeReady("node-0", api.ConditionFalse) // still not ready: no second status change
	e.settle()
	assert.Len(t, e.nodeEvents("node-0"), 2)

	e2 := newEnv(t)
	e2.node("node-0", api.ConditionUnknown)
	e2.settle()
	assert.Equal(t, [][2]string{{"RegisteredNode", "Node node-0 event: Registered Node node-0 in Controller"}}, e2.nodeEvents("node-0"),
		"a node not ready when first seen: its registration only")
}

// The pre-taint eviction: the pods of a node still not ready
// EvictionTimeout after the controller saw it go are Failed (NodeLost),
// not before; a pod being deleted, or finished, is left alone; a node
// ready again before the timeout keeps its pods.
func TestPodsOfANodeDownPastTheTimeoutAreLost(t *testing.T) {
	e := newEnv(t)
	e.node("node-0", api.ConditionTrue)
	e.node("node-1", api.ConditionTrue)
	e.runningPod("a", "node-0")
	e.runningPod("deleting", "node-0")
	e.runningPod("done", "node-0")
	e.runningPod("c", "node-1")
	p := e.Pod("done").DeepCopy()
	p.Status.Phase = api.PodSucceeded
	_, err := client.For[*api.Pod](e.srv).UpdateStatus(e.ctx, p)
	require.NoError(t, err)
	_, err = client.For[*api.Pod](e.srv).Delete(e.ctx, "default", "deleting", api.DeleteOptions{GracePeriodSeconds: ptr(int64(3600))})
	require.NoError(t, err)
	e.settle()

	e.setNodeReady("node-0", api.ConditionUnknown)
	e.settle()
	e.advance(DefaultEvictionTimeout - time.Second)
	assert.Equal(t, api.PodRunning, e.Pod("a").Status.Phase, "not before the eviction timeout")
	e.advance(time.Second)
	a := e.Pod("a")
	assert.Equal(t, api.PodFailed, a.Status.Phase)
	assert.Equal(t, ReasonNodeLost, a.Status.Reason)
	assert.Equal(t, []string{"Node node-0 is unresponsive"}, e.EventMessages("a", ReasonNodeLost))
	assert.Equal(t, api.PodRunning, e.Pod("deleting").Status.Phase, "left to its grace period")
	assert.Equal(t, api.PodSucceeded, e.Pod("done").Status.Phase)
	assert.Equal(t, api.PodRunning, e.Pod("c").Status.Phase, "on the ready node")

	// A node back before the timeout keeps its pods.
	e.runningPod("d", "node-1")
	e.settle()
	e.setNodeReady("node-1", api.ConditionFalse)
	e.advance(10 * time.Second)
	require.False(t, api.IsPodReady(e.Pod("d")))
	e.setNodeReady("node-1", api.ConditionTrue)
	e.advance(time.Hour)
	assert.Equal(t, api.PodRunning, e.Pod("d").Status.Phase, "never evicted")
}

// A node not ready when first seen (say, before a restart) is timed from
// its Ready condition's lastTransitionTime, as its status says.
func TestANodeDownBeforeTheStartIsTimedFromItsCondition(t *testing.T) {
	e := newEnv(t)
	e.node("node-0", api.ConditionUnknown) // at epoch
	e.runningPod("a", "node-0")
	e.clk.Step(20 * time.Second) // the controller starts 20 s into the outage
	e.settle()
	assert.False(t, api.IsPodReady(e.Pod("a")))
	e.advance(9 * time.Second)
	assert.Equal(t, api.PodRunning, e.Pod("a").Status.Phase)
	e.advance(time.Second)
	assert.Equal(t, api.PodFailed, e.Pod("a").Status.Phase, "30 s after the condition's transition")
}

// A deleted node has its removal recorded (upstream's RemovingNode), once,
// and is forgotten.
func TestNodeDeletedIsRecordedAndForgotten(t *testing.T) {
	e := newEnv(t)
	e.node("node-0", api.ConditionTrue)
	e.settle()
	_, err := client.For[*api.Node](e.srv).Delete(e.ctx, "", "node-0", api.DeleteOptions{})
	require.NoError(t, err)
	e.settle()
	assert.Equal(t, [][2]string{
		{"RegisteredNode", "Node node-0 event: Registered Node node-0 in Controller"},
		{"RemovingNode", "Node node-0 event: Removing Node node-0 from Controller"},
	}, e.nodeEvents("node-0"))
	e.c.mu.Lock()
	defer e.c.mu.Unlock()
	assert.Empty(t, e.c.health)
}

func TestNewRejectsIncompleteConfig(t *testing.T) {
	_, err := New(Config{})
	assert.Error(t, err)
}

func ptr[T any](v T) *T { return &v }
