package nodesim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
)

func requesting(cpu string) func(*api.Pod) {
	return func(p *api.Pod) {
		p.Spec.Containers[0].Resources.Requests = api.ResourceList{api.ResourceCPU: cpu}
	}
}

// schedulingEvents returns the messages of the scheduler's events of
// reason about the pod named name.
func (e *env) eventMessages(name, reason string) []string {
	e.t.Helper()
	events, _, err := client.For[*api.Event](e.srv).List(e.ctx, "default", client.ListOptions{})
	require.NoError(e.t, err)
	var out []string
	for _, ev := range events {
		if ev.InvolvedObject.Name == name && ev.Reason == reason {
			out = append(out, ev.Message)
		}
	}
	return out
}

// TestTooBigStaysPendingUntilABigNodeComes: a pod asking for more cpu than
// any node has stays Pending, says why in its condition and an event,
// and is scheduled once a node big enough registers.
func TestTooBigStaysPendingUntilABigNodeComes(t *testing.T) {
	e := newEnv(t, Config{})
	e.createPod("huge", requesting("1000"))
	e.settle()
	p := e.pod("huge")
	require.Empty(t, p.Spec.NodeName)
	cond, ok := conditionOf(p, api.PodScheduled)
	require.True(t, ok)
	assert.Equal(t, api.ConditionFalse, cond.Status)
	assert.Equal(t, reasonUnschedulable, cond.Reason)
	const why = "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."
	assert.Equal(t, why, cond.Message)
	assert.Equal(t, []string{why}, e.eventMessages("huge", "FailedScheduling"))

	big := newNode("big", 7, 110, "1200", "64Gi", e.clk.Now())
	_, err := e.srv.Create(e.ctx, big)
	require.NoError(t, err)
	e.settle()
	assert.Equal(t, "big", e.pod("huge").Spec.NodeName, "retried when a node came")
	e.advance(time.Second)
	assert.True(t, api.IsPodReady(e.pod("huge")))
}

// TestRequestsAddUp: a node's pods' requests count against it until they
// finish or go, and the scheduler spreads by pod count among the nodes
// that fit.
func TestRequestsAddUp(t *testing.T) {
	e := newEnv(t, Config{Nodes: 2})
	for _, name := range []string{"a", "b", "c", "d"} {
		e.createPod(name, requesting("1500m"))
	}
	e.settle()
	for _, name := range []string{"a", "b", "c", "d"} {
		require.NotEmpty(t, e.pod(name).Spec.NodeName, name)
	}
	e.createPod("e", requesting("1500m")) // 3 cpu taken on each 4-cpu node
	e.createPod("small", requesting("1"))
	e.settle()
	assert.Empty(t, e.pod("e").Spec.NodeName)
	cond, _ := conditionOf(e.pod("e"), api.PodScheduled)
	assert.Equal(t, "0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.", cond.Message)
	assert.NotEmpty(t, e.pod("small").Spec.NodeName, "what is left still fits a small pod")

	node := e.pod("a").Spec.NodeName
	e.deletePod("a")
	e.advance(time.Second)
	require.True(t, e.podGone("a"))
	e.settle()
	assert.Equal(t, node, e.pod("e").Spec.NodeName, "a's room, once it is gone")
}

// TestTaintedNodeSkippedUnlessTolerated: a NoSchedule taint keeps pods
// off a node, but not a pod that tolerates it; the message names the
// taint.
func TestTaintedNodeSkippedUnlessTolerated(t *testing.T) {
	e := newEnv(t, Config{Nodes: 2})
	for _, name := range []string{"node-0", "node-1"} {
		n := e.node(name).DeepCopy()
		n.Spec.Taints = []api.Taint{{Key: "dedicated", Value: "gpu", Effect: api.TaintEffectNoSchedule}}
		if name == "node-1" {
			n.Spec.Taints[0].Value = "db"
		}
		_, err := client.For[*api.Node](e.srv).Update(e.ctx, n)
		require.NoError(t, err)
	}
	e.settle()
	e.createPod("plain")
	e.createPod("gpu", func(p *api.Pod) {
		p.Spec.Tolerations = []api.Toleration{{Key: "dedicated", Operator: api.TolerationOpEqual, Value: "gpu", Effect: api.TaintEffectNoSchedule}}
	})
	e.settle()
	assert.Equal(t, "node-0", e.pod("gpu").Spec.NodeName)
	assert.Empty(t, e.pod("plain").Spec.NodeName)
	cond, _ := conditionOf(e.pod("plain"), api.PodScheduled)
	assert.Equal(t, "0/2 nodes are available: 1 node(s) had untolerated taint {dedicated: db}, 1 node(s) had untolerated taint {dedicated: gpu}. "+
		"preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.", cond.Message)

	n := e.node("node-1").DeepCopy() // kubectl taint nodes node-1 dedicated-
	n.Spec.Taints = nil
	_, err := client.For[*api.Node](e.srv).Update(e.ctx, n)
	require.NoError(t, err)
	e.settle()
	assert.Equal(t, "node-1", e.pod("plain").Spec.NodeName, "retried when the taint went")
}

// TestNodeAffinityRequired: required node affinity's expressions and
// fields choose the node.
func TestNodeAffinityRequired(t *testing.T) {
	e := newEnv(t, Config{})
	term := func(r api.NodeSelectorRequirement, field bool) func(*api.Pod) {
		return func(p *api.Pod) {
			t := api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{r}}
			if field {
				t = api.NodeSelectorTerm{MatchFields: []api.NodeSelectorRequirement{r}}
			}
			p.Spec.Affinity = &api.Affinity{NodeAffinity: &api.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{t}}}}
		}
	}
	e.createPod("by-label", term(api.NodeSelectorRequirement{Key: "kubernetes.io/hostname", Operator: "In", Values: []string{"node-1"}}, false))
	e.createPod("by-name", term(api.NodeSelectorRequirement{Key: "metadata.name", Operator: "In", Values: []string{"node-2"}}, true))
	e.createPod("nowhere", term(api.NodeSelectorRequirement{Key: "disk", Operator: "Exists"}, false))
	e.settle()
	assert.Equal(t, "node-1", e.pod("by-label").Spec.NodeName)
	assert.Equal(t, "node-2", e.pod("by-name").Spec.NodeName)
	assert.Empty(t, e.pod("nowhere").Spec.NodeName)
}

// TestDownNodeIsTaintedForTheScheduler: a node that is down carries the
// node lifecycle's unreachable taint, which the message names.
func TestDownNodeIsTaintedForTheScheduler(t *testing.T) {
	e := newEnv(t, Config{Nodes: 1})
	require.NoError(t, e.c.NodeDown(e.ctx, "node-0"))
	e.settle()
	e.createPod("a")
	e.settle()
	cond, _ := conditionOf(e.pod("a"), api.PodScheduled)
	assert.Equal(t, "0/1 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }. "+
		"preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.", cond.Message)
}

// TestNodeNameBypassesTheScheduler: a pod created with spec.nodeName runs
// there, whatever it requests, as with kube-scheduler (the kubelet's
// admission would refuse it; nodesim's does not).
func TestNodeNameBypassesTheScheduler(t *testing.T) {
	e := newEnv(t, Config{})
	e.createPod("pinned", requesting("1000"), func(p *api.Pod) { p.Spec.NodeName = "node-2" })
	e.settle()
	e.advance(time.Second)
	assert.Equal(t, "node-2", e.pod("pinned").Spec.NodeName)
	assert.Empty(t, e.eventMessages("pinned", "FailedScheduling"))
}

// TestUnschedulableRetriedPeriodically: without any event, a pod that did
// not fit is tried again after unschedulableFlush, as kube-scheduler
// flushes its unschedulable queue.
func TestUnschedulableRetriedPeriodically(t *testing.T) {
	syncs := &syncCounter{byKey: map[string]int{}}
	e := newEnv(t, Config{Nodes: 1, Observer: syncs})
	e.createPod("huge", requesting("5"))
	e.settle()
	require.Empty(t, e.pod("huge").Spec.NodeName)
	before := syncs.of("default/huge")
	e.advance(unschedulableFlush - time.Second)
	assert.Equal(t, before, syncs.of("default/huge"), "not yet")
	e.advance(time.Second)
	assert.Equal(t, before+1, syncs.of("default/huge"), "tried again")
	assert.Len(t, e.eventMessages("huge", "FailedScheduling"), 1, "the same verdict is not told twice")
}
