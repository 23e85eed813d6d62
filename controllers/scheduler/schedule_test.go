package scheduler

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/controllers/loop/looptest"
	"github.com/miniplane/miniplane/controllers/nodesim"
	"github.com/miniplane/miniplane/controllers/scheduler/fit"
)

type conflictBindOnce struct {
	Binder
	failed bool
}

func (b *conflictBindOnce) Bind(ctx context.Context, namespace, name, node string) (*api.Pod, error) {
	if !b.failed {
		b.failed = true
		return nil, apierrors.NewConflict(apierrors.GroupResource{Resource: "pods/binding"}, name, "injected")
	}
	return b.Binder.Bind(ctx, namespace, name, node)
}

func TestTenPodsSpreadFourThreeThree(t *testing.T) {
	e := newEnv(t, nodesim.Config{})
	for i := range 10 {
		e.CreatePod("web-" + string(rune('a'+i)))
	}
	e.settle()
	count := map[string]int{}
	pods, _, err := client.For[*api.Pod](e.srv).List(e.ctx, "default", client.ListOptions{})
	require.NoError(t, err)
	for _, p := range pods {
		count[p.Spec.NodeName]++
	}
	assert.Equal(t, map[string]int{"node-0": 4, "node-1": 3, "node-2": 3}, count)
}

func TestCapacityRespected(t *testing.T) {
	e := newEnv(t, nodesim.Config{Nodes: 1, PodsPerNode: 2})
	e.runReady("a", "b")
	e.CreatePod("c")
	e.settle()
	c := e.Pod("c")
	require.Empty(t, c.Spec.NodeName, "no room")
	cond, ok := conditionOf(c, api.PodScheduled)
	require.True(t, ok)
	assert.Equal(t, api.ConditionFalse, cond.Status)
	assert.Equal(t, reasonUnschedulable, cond.Reason)
	assert.Equal(t, "0/1 nodes are available: 1 Too many pods. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.", cond.Message)
	events, _, err := client.For[*api.Event](e.srv).List(e.ctx, "default", client.ListOptions{})
	require.NoError(t, err)
	reasons := map[string]bool{}
	for _, ev := range events {
		reasons[ev.Reason] = true
	}
	assert.True(t, reasons["FailedScheduling"], "FailedScheduling event")

	e.deletePod("a")
	e.settle()
	assert.Empty(t, e.Pod("c").Spec.NodeName, "a terminating pod still holds its slot")
	e.advance(time.Second)
	require.True(t, e.PodGone("a"))
	assert.Equal(t, "node-0", e.Pod("c").Spec.NodeName, "scheduled once a pod is gone")
}

func TestNodeSelectorRespected(t *testing.T) {
	e := newEnv(t, nodesim.Config{})
	e.CreatePod("pinned", func(p *api.Pod) { p.Spec.NodeSelector = map[string]string{"kubernetes.io/hostname": "node-2"} })
	e.CreatePod("nowhere", func(p *api.Pod) { p.Spec.NodeSelector = map[string]string{"disk": "ssd"} })
	e.settle()
	assert.Equal(t, "node-2", e.Pod("pinned").Spec.NodeName)
	assert.Empty(t, e.Pod("nowhere").Spec.NodeName)
	cond, ok := conditionOf(e.Pod("nowhere"), api.PodScheduled)
	require.True(t, ok)
	assert.Equal(t, "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.", cond.Message)
}

// TestCordonedNodeTakesNoPods cordons nodes as kubectl cordon and drain do
// (spec.unschedulable): the scheduler places pods elsewhere, says why when
// there is nowhere, and uses the node again once it is uncordoned.
func TestCordonedNodeTakesNoPods(t *testing.T) {
	e := newEnv(t, nodesim.Config{Nodes: 2})
	cordon := func(name string, on bool) {
		n := e.Node(name).DeepCopy()
		n.Spec.Unschedulable = on
		_, err := client.For[*api.Node](e.srv).Update(e.ctx, n)
		require.NoError(t, err)
		e.settle()
	}
	cordon("node-0", true)
	e.CreatePod("a")
	e.CreatePod("b")
	e.settle()
	assert.Equal(t, "node-1", e.Pod("a").Spec.NodeName)
	assert.Equal(t, "node-1", e.Pod("b").Spec.NodeName)

	cordon("node-1", true)
	e.CreatePod("c")
	e.settle()
	assert.Empty(t, e.Pod("c").Spec.NodeName)
	cond, ok := conditionOf(e.Pod("c"), api.PodScheduled)
	require.True(t, ok)
	assert.Equal(t, "0/2 nodes are available: 2 node(s) were unschedulable. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.", cond.Message)

	cordon("node-0", false)
	assert.Equal(t, "node-0", e.Pod("c").Spec.NodeName, "retried once a node is uncordoned")
}

// TestRefusedBindingIsRetried: a binding refused with a Conflict is tried
// again after the queue's backoff, as kube-scheduler puts a pod whose
// binding failed back in its queue unless its cache shows it bound
// (handleSchedulingFailure). A Conflict does not prove someone else bound
// it, and no delivery would come to say so.
func TestRefusedBindingIsRetried(t *testing.T) {
	e := newEnv(t, nodesim.Config{})
	b := &conflictBindOnce{Binder: e.c.binder}
	e.c.binder = b
	e.CreatePod("web")
	e.settle()
	require.True(t, b.failed, "the first binding was refused")
	assert.Empty(t, e.Pod("web").Spec.NodeName)

	e.advance(10 * time.Millisecond) // the rate-limited retry
	assert.NotEmpty(t, e.Pod("web").Spec.NodeName, "bound on the retry")
	e.advance(time.Second)
	assert.Equal(t, api.PodRunning, e.Pod("web").Status.Phase)
}

func requesting(cpu string) func(*api.Pod) {
	return func(p *api.Pod) {
		p.Spec.Containers[0].Resources.Requests = api.ResourceList{api.ResourceCPU: cpu}
	}
}

// TestTooBigStaysPendingUntilABigNodeComes: a pod asking for more cpu than
// any node has stays Pending, says why in its condition and an event,
// and is scheduled once a node big enough registers.
func TestTooBigStaysPendingUntilABigNodeComes(t *testing.T) {
	e := newEnv(t, nodesim.Config{})
	e.CreatePod("huge", requesting("1000"))
	e.settle()
	p := e.Pod("huge")
	require.Empty(t, p.Spec.NodeName)
	cond, ok := conditionOf(p, api.PodScheduled)
	require.True(t, ok)
	assert.Equal(t, api.ConditionFalse, cond.Status)
	assert.Equal(t, reasonUnschedulable, cond.Reason)
	const why = "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."
	assert.Equal(t, why, cond.Message)
	assert.Equal(t, []string{why}, e.EventMessages("huge", "FailedScheduling"))

	big := e.Node("node-0").DeepCopy()
	big.Metadata = api.ObjectMeta{Name: "big"}
	big.Status.Capacity = api.ResourceList{api.ResourceCPU: "1200", api.ResourceMemory: "64Gi", api.ResourcePods: "110"}
	big.Status.Allocatable = big.Status.Capacity
	_, err := e.srv.Create(e.ctx, big)
	require.NoError(t, err)
	e.settle()
	assert.Equal(t, "big", e.Pod("huge").Spec.NodeName, "retried when a node came")
	e.advance(time.Second)
	assert.True(t, api.IsPodReady(e.Pod("huge")))
}

// TestRequestsAddUp: a node's pods' requests count against it until they
// finish or go, and the scheduler spreads by pod count among the nodes
// that fit.
func TestRequestsAddUp(t *testing.T) {
	e := newEnv(t, nodesim.Config{Nodes: 2})
	for _, name := range []string{"a", "b", "c", "d"} {
		e.CreatePod(name, requesting("1500m"))
	}
	e.settle()
	for _, name := range []string{"a", "b", "c", "d"} {
		require.NotEmpty(t, e.Pod(name).Spec.NodeName, name)
	}
	e.CreatePod("e", requesting("1500m")) // 3 cpu taken on each 4-cpu node
	e.CreatePod("small", requesting("1"))
	e.settle()
	assert.Empty(t, e.Pod("e").Spec.NodeName)
	cond, _ := conditionOf(e.Pod("e"), api.PodScheduled)
	assert.Equal(t, "0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.", cond.Message)
	assert.NotEmpty(t, e.Pod("small").Spec.NodeName, "what is left still fits a small pod")

	node := e.Pod("a").Spec.NodeName
	e.deletePod("a")
	e.advance(time.Second)
	require.True(t, e.PodGone("a"))
	e.settle()
	assert.Equal(t, node, e.Pod("e").Spec.NodeName, "a's room, once it is gone")
}

// TestTaintedNodeSkippedUnlessTolerated: a NoSchedule taint keeps pods
// off a node, but not a pod that tolerates it; the message names the
// taint.
func TestTaintedNodeSkippedUnlessTolerated(t *testing.T) {
	e := newEnv(t, nodesim.Config{Nodes: 2})
	for _, name := range []string{"node-0", "node-1"} {
		n := e.Node(name).DeepCopy()
		n.Spec.Taints = []api.Taint{{Key: "dedicated", Value: "gpu", Effect: api.TaintEffectNoSchedule}}
		if name == "node-1" {
			n.Spec.Taints[0].Value = "db"
		}
		_, err := client.For[*api.Node](e.srv).Update(e.ctx, n)
		require.NoError(t, err)
	}
	e.settle()
	e.CreatePod("plain")
	e.CreatePod("gpu", func(p *api.Pod) {
		p.Spec.Tolerations = []api.Toleration{{Key: "dedicated", Operator: api.TolerationOpEqual, Value: "gpu", Effect: api.TaintEffectNoSchedule}}
	})
	e.settle()
	assert.Equal(t, "node-0", e.Pod("gpu").Spec.NodeName)
	assert.Empty(t, e.Pod("plain").Spec.NodeName)
	cond, _ := conditionOf(e.Pod("plain"), api.PodScheduled)
	assert.Equal(t, "0/2 nodes are available: 1 node(s) had untolerated taint {dedicated: db}, 1 node(s) had untolerated taint {dedicated: gpu}. "+
		"preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.", cond.Message)

	n := e.Node("node-1").DeepCopy() // kubectl taint nodes node-1 dedicated-
	n.Spec.Taints = nil
	_, err := client.For[*api.Node](e.srv).Update(e.ctx, n)
	require.NoError(t, err)
	e.settle()
	assert.Equal(t, "node-1", e.Pod("plain").Spec.NodeName, "retried when the taint went")
}

// TestNodeAffinityRequired: required node affinity's expressions and
// fields choose the node.
func TestNodeAffinityRequired(t *testing.T) {
	e := newEnv(t, nodesim.Config{})
	term := func(r api.NodeSelectorRequirement, field bool) func(*api.Pod) {
		return func(p *api.Pod) {
			t := api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{r}}
			if field {
				t = api.NodeSelectorTerm{MatchFields: []api.NodeSelectorRequirement{r}}
			}
			p.Spec.Affinity = &api.Affinity{NodeAffinity: &api.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{t}}}}
		}
	}
	e.CreatePod("by-label", term(api.NodeSelectorRequirement{Key: "kubernetes.io/hostname", Operator: "In", Values: []string{"node-1"}}, false))
	e.CreatePod("by-name", term(api.NodeSelectorRequirement{Key: "metadata.name", Operator: "In", Values: []string{"node-2"}}, true))
	e.CreatePod("nowhere", term(api.NodeSelectorRequirement{Key: "disk", Operator: "Exists"}, false))
	e.settle()
	assert.Equal(t, "node-1", e.Pod("by-label").Spec.NodeName)
	assert.Equal(t, "node-2", e.Pod("by-name").Spec.NodeName)
	assert.Empty(t, e.Pod("nowhere").Spec.NodeName)
}

// TestDownNodeIsTaintedForTheScheduler: a node that is down carries the
// node lifecycle's unreachable taint, which the message names.
func TestDownNodeIsTaintedForTheScheduler(t *testing.T) {
	e := newEnv(t, nodesim.Config{Nodes: 1})
	require.NoError(t, e.nodes.NodeDown(e.ctx, "node-0"))
	e.settle()
	e.CreatePod("a")
	e.settle()
	cond, _ := conditionOf(e.Pod("a"), api.PodScheduled)
	assert.Equal(t, "0/1 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }. "+
		"preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.", cond.Message)
}

// TestNodeNameBypassesTheScheduler: a pod created with spec.nodeName runs
// there, whatever it requests, as with kube-scheduler (the kubelet's
// admission would refuse it; nodesim's does not).
func TestNodeNameBypassesTheScheduler(t *testing.T) {
	e := newEnv(t, nodesim.Config{})
	e.CreatePod("pinned", requesting("1000"), func(p *api.Pod) { p.Spec.NodeName = "node-2" })
	e.settle()
	e.advance(time.Second)
	assert.Equal(t, "node-2", e.Pod("pinned").Spec.NodeName)
	assert.Empty(t, e.EventMessages("pinned", "FailedScheduling"))
}

// TestUnschedulableRetriedPeriodically: without any event, a pod that did
// not fit is tried again after unschedulableFlush, as kube-scheduler
// flushes its unschedulable queue.
func TestUnschedulableRetriedPeriodically(t *testing.T) {
	syncs := &looptest.SyncCounter{}
	e := newEnv(t, nodesim.Config{Nodes: 1}, Config{Observer: syncs})
	e.CreatePod("huge", requesting("5"))
	e.settle()
	require.Empty(t, e.Pod("huge").Spec.NodeName)
	before := syncs.Of("default/huge")
	e.advance(unschedulableFlush - time.Second)
	assert.Equal(t, before, syncs.Of("default/huge"), "not yet")
	e.advance(time.Second)
	assert.Equal(t, before+1, syncs.Of("default/huge"), "tried again")
	assert.Len(t, e.EventMessages("huge", "FailedScheduling"), 1, "the same verdict is not told twice")
}

// TestLeastLoadedAgreesWithSchedule moves node pod counts at random, takes
// nodes down and brings them up, and checks after every change that the
// scheduler's fast path names the node fit.Schedule would, or defers to it,
// and that the heap is in order. Twelve nodes, so that names order
// node-10 before node-2: the heap breaks ties by rank, which must be the
// names' order, not the numbers'.
func TestLeastLoadedAgreesWithSchedule(t *testing.T) {
	e := newEnv(t, nodesim.Config{Nodes: 12, PodsPerNode: 4})
	c := e.c
	r := rand.New(rand.NewPCG(3, 3))
	pod := &api.Pod{}
	var names []string
	for i := range 12 {
		names = append(names, e.nodes.NodeName(i))
	}
	fastAnswers := 0
	for i := range 3000 {
		name := names[r.IntN(len(names))]
		c.mu.Lock()
		switch op := r.IntN(10); {
		case op < 4:
			c.addPodsOnLocked(c.recLocked(name), 1, nil)
		case op < 9:
			if c.podsOnLocked(name) > 0 {
				c.addPodsOnLocked(c.recLocked(name), -1, nil)
			}
		default:
			toggleReady(c, name)
		}
		fast, ok := c.leastLoadedLocked()
		want, wantOK, _ := fit.Schedule(fit.NewPod(&pod.Spec), c.fitNodesLocked())
		requireHeapOrdered(t, c.load, i)
		c.mu.Unlock()
		if ok {
			fastAnswers++
			require.True(t, wantOK, "step %d: the fast path found a node fit.Schedule did not", i)
			require.Equal(t, want, fast, "step %d", i)
		}
	}
	require.Greater(t, fastAnswers, 1000, "the fast path answered most of the time")
}

// requireHeapOrdered checks the heap property of h by names, not ranks:
// no entry orders before its parent, and each knows its place.
func requireHeapOrdered(t *testing.T, h loadHeap, step int) {
	t.Helper()
	for i, e := range h {
		require.Equal(t, i, e.index, "step %d: entry %s's index", step, e.name)
		if i == 0 {
			continue
		}
		p := h[(i-1)/2]
		require.False(t, e.pods < p.pods || (e.pods == p.pods && e.name < p.name),
			"step %d: %s (%d pods) orders before its parent %s (%d pods)", step, e.name, e.pods, p.name, p.pods)
	}
}

// BenchmarkSchedulerCount is the scheduler's bookkeeping of one pod bound
// to the least loaded of 1,000 nodes and one gone from another: two count
// changes, each an O(log nodes) repair of the heap whose comparisons are
// almost all ties of counts.
func BenchmarkSchedulerCount(b *testing.B) {
	e := newEnv(b, nodesim.Config{Nodes: 1000})
	c := e.c
	names := make([]string, 1000)
	for i := range names {
		names[i] = e.nodes.NodeName(i)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, n := range names {
		for range 50 {
			c.addPodsOnLocked(c.recLocked(n), 1, nil)
		}
	}
	i := 0
	for b.Loop() {
		name, ok := c.leastLoadedLocked()
		require.True(b, ok)
		c.addPodsOnLocked(c.recLocked(name), 1, nil)
		c.addPodsOnLocked(c.recLocked(names[i%len(names)]), -1, nil)
		i++
	}
}

// toggleReady flips the Ready condition of node name in the scheduler's
// node list, as a delivery of the node taken down or brought up would.
// Its caller holds mu.
func toggleReady(c *Controller, name string) {
	nodes, _ := c.nodesLocked()
	for i, n := range nodes {
		if n.Metadata.Name != name {
			continue
		}
		n = n.DeepCopy()
		for j := range n.Status.Conditions {
			if cond := &n.Status.Conditions[j]; cond.Type == api.NodeReady {
				cond.Status = map[bool]api.ConditionStatus{true: api.ConditionUnknown, false: api.ConditionTrue}[cond.Status == api.ConditionTrue]
			}
		}
		nodes[i] = n
	}
	c.invalidateLoadLocked()
}

// TestHostPortTakenElsewhere: a pod asking for a host port another pod
// holds on a node goes to another node, and when every node has it taken
// it stays Pending with the NodePorts plugin's reason, resolvable (by
// preemption), until the holder goes. Kubernetes: nodeports' TestNodePorts.
func TestHostPortTakenElsewhere(t *testing.T) {
	e := newEnv(t, nodesim.Config{Nodes: 2})
	hostPort := func(port int32, proto api.Protocol) func(*api.Pod) {
		return func(p *api.Pod) {
			p.Spec.Containers[0].Ports = []api.ContainerPort{{ContainerPort: 80, HostPort: port, Protocol: proto}}
		}
	}
	e.CreatePod("a", hostPort(8080, ""))
	e.CreatePod("b", hostPort(8080, api.ProtocolTCP))
	e.CreatePod("udp", hostPort(8080, "UDP"))
	e.settle()
	a, b := e.Pod("a").Spec.NodeName, e.Pod("b").Spec.NodeName
	require.NotEmpty(t, a)
	require.NotEmpty(t, b)
	assert.NotEqual(t, a, b, "8080/TCP is taken on a's node")
	assert.NotEmpty(t, e.Pod("udp").Spec.NodeName, "another protocol is another port")

	e.CreatePod("c", hostPort(8080, ""))
	e.settle()
	assert.Empty(t, e.Pod("c").Spec.NodeName)
	cond, _ := conditionOf(e.Pod("c"), api.PodScheduled)
	assert.Equal(t, "0/2 nodes are available: 2 node(s) didn't have free ports for the requested pod ports. "+
		"preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.", cond.Message)

	e.deletePod("a")
	e.advance(time.Second)
	require.True(t, e.PodGone("a"))
	e.settle()
	assert.Equal(t, a, e.Pod("c").Spec.NodeName, "a's port, once it is gone")
}
