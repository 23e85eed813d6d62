package daemon

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
)

var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func newDaemonSet() *api.DaemonSet {
	ds := &api.DaemonSet{Metadata: api.ObjectMeta{Namespace: "default", Name: "foo", UID: "ds-uid", Generation: 1}}
	ds.Spec.Selector = &api.LabelSelector{MatchLabels: map[string]string{"name": "simple-daemon", "type": "production"}}
	ds.Spec.Template.Metadata.Labels = map[string]string{"name": "simple-daemon", "type": "production"}
	ds.Spec.Template.Spec.Containers = []api.Container{{Name: "foo", Image: "foo/bar"}}
	ds.Spec.UpdateStrategy = api.DaemonSetUpdateStrategy{Type: api.RollingUpdateDaemonSetStrategyType,
		RollingUpdate: &api.RollingUpdateDaemonSet{MaxUnavailable: ptr(api.FromInt(1)), MaxSurge: ptr(api.FromInt(0))}}
	ds.Spec.RevisionHistoryLimit = ptr(int32(10))
	return ds
}

func ptr[T any](v T) *T { return &v }

func newNode(name string, labels map[string]string, taints ...api.Taint) *api.Node {
	return &api.Node{Metadata: api.ObjectMeta{Name: name, Labels: labels}, Spec: api.NodeSpec{Taints: taints}}
}

func nodes(n int, labels map[string]string) []*api.Node {
	var out []*api.Node
	for i := 0; i < n; i++ {
		out = append(out, newNode(fmt.Sprintf("node-%d", i), labels))
	}
	return out
}

// pod is a daemon pod bound to node, created age ago, of revision hash,
// ready or not.
func pod(name, node, hash string, ready bool, age time.Duration) *api.Pod {
	p := &api.Pod{Metadata: api.ObjectMeta{Namespace: "default", Name: name,
		Labels:            map[string]string{"name": "simple-daemon", "type": "production", api.DaemonSetUniqueLabelKey: hash},
		CreationTimestamp: api.Time{Time: now.Add(-age)}}}
	p.Spec.NodeName = node
	p.Status.Phase = api.PodRunning
	if ready {
		p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: api.Time{Time: now.Add(-age)}}}
	}
	return p
}

func byNode(pods ...*api.Pod) map[string][]*api.Pod {
	out := map[string][]*api.Pod{}
	for _, p := range pods {
		n, _ := TargetNode(p)
		out[n] = append(out[n], p)
	}
	return out
}

func names(pods []*api.Pod) []string {
	var out []string
	for _, p := range pods {
		out = append(out, p.Metadata.Name)
	}
	slices.Sort(out)
	return out
}

var (
	simpleNodeLabel = map[string]string{"color": "blue", "speed": "fast"}
	otherLabel      = map[string]string{"color": "green"}
	noSchedule      = api.Taint{Key: "dedicated", Value: "gpu", Effect: api.TaintEffectNoSchedule}
	noExecute       = api.Taint{Key: "dedicated", Value: "gpu", Effect: api.TaintEffectNoExecute}
	tolerateGPU     = api.Toleration{Key: "dedicated", Operator: api.TolerationOpEqual, Value: "gpu"}
)

// TestManage ports the applicable scenarios of upstream's
// daemon_controller_test.go (v1.32), each a decision of manage (the pods
// to create and delete) from plain values.
func TestManage(t *testing.T) {
	withSelector := func(ds *api.DaemonSet) *api.DaemonSet {
		ds.Spec.Template.Spec.NodeSelector = simpleNodeLabel
		return ds
	}
	failed := func(p *api.Pod) *api.Pod { p.Status.Phase = api.PodFailed; return p }
	succeeded := func(p *api.Pod) *api.Pod { p.Status.Phase = api.PodSucceeded; return p }
	deleting := func(p *api.Pod) *api.Pod { p.Metadata.DeletionTimestamp = &api.Time{Time: now}; return p }
	unscheduled := func(p *api.Pod, node string) *api.Pod {
		p.Spec.NodeName = ""
		p.Spec.Affinity = PinToNode(nil, node)
		return p
	}
	tests := []struct {
		name       string
		ds         *api.DaemonSet
		nodes      []*api.Node
		pods       []*api.Pod
		backedOff  map[string]bool
		wantCreate []string
		wantDelete []string
		wantEvents []string
	}{
		{name: "SimpleDaemonSetLaunchesPods: one pod per node", ds: newDaemonSet(), nodes: nodes(5, nil),
			wantCreate: []string{"node-0", "node-1", "node-2", "node-3", "node-4"}},
		{name: "NoNodesDoesNothing", ds: newDaemonSet()},
		{name: "NotReadyNodeDaemonDoesLaunchPod: readiness is not a predicate", ds: newDaemonSet(), nodes: []*api.Node{func() *api.Node {
			n := newNode("not-ready", nil)
			n.Status.Conditions = []api.NodeCondition{{Type: api.NodeReady, Status: api.ConditionFalse}}
			return n
		}()}, wantCreate: []string{"not-ready"}},
		{name: "InsufficientCapacityNodeDaemonLaunchPod: resources are the scheduler's", ds: func() *api.DaemonSet {
			ds := newDaemonSet()
			ds.Spec.Template.Spec.Containers[0].Resources.Requests = api.ResourceList{"cpu": "100"}
			return ds
		}(), nodes: nodes(1, nil), wantCreate: []string{"node-0"}},
		{name: "DealsWithExistingPods: create where none, keep the oldest where several", ds: newDaemonSet(), nodes: nodes(4, nil),
			pods: []*api.Pod{
				pod("a", "node-1", "h", true, 3*time.Minute),
				pod("b", "node-2", "h", true, 3*time.Minute), pod("c", "node-2", "h", true, 2*time.Minute),
				pod("d", "node-3", "h", true, 1*time.Minute), pod("e", "node-3", "h", true, 2*time.Minute), pod("f", "node-3", "h", true, 3*time.Minute),
			},
			wantCreate: []string{"node-0"}, wantDelete: []string{"c", "d", "e"}},
		{name: "SelectorDaemonLaunchesPods: only nodes with the labels", ds: withSelector(newDaemonSet()),
			nodes:      append(nodes(2, nil), newNode("blue-0", simpleNodeLabel), newNode("blue-1", simpleNodeLabel)),
			wantCreate: []string{"blue-0", "blue-1"}},
		{name: "SelectorDaemonDeletesUnselectedPods", ds: withSelector(newDaemonSet()),
			nodes:      []*api.Node{newNode("plain", nil), newNode("blue", simpleNodeLabel), newNode("green", otherLabel)},
			pods:       []*api.Pod{pod("on-plain", "plain", "h", true, time.Minute), pod("on-green", "green", "h", true, time.Minute)},
			wantCreate: []string{"blue"}, wantDelete: []string{"on-green", "on-plain"}},
		{name: "BadSelectorDaemonDoesNothing", ds: func() *api.DaemonSet {
			ds := newDaemonSet()
			ds.Spec.Template.Spec.NodeSelector = map[string]string{"color": "purple"}
			return ds
		}(), nodes: append(nodes(2, nil), newNode("blue", simpleNodeLabel))},
		{name: "NameDaemonSetLaunchesPods: nodeName picks one node", ds: func() *api.DaemonSet {
			ds := newDaemonSet()
			ds.Spec.Template.Spec.NodeName = "node-1"
			return ds
		}(), nodes: nodes(3, nil), wantCreate: []string{"node-1"}},
		{name: "BadNameDaemonSetDoesNothing", ds: func() *api.DaemonSet {
			ds := newDaemonSet()
			ds.Spec.Template.Spec.NodeName = "node-10"
			return ds
		}(), nodes: nodes(3, nil)},
		{name: "NameAndSelectorDaemonSetLaunchesPods", ds: func() *api.DaemonSet {
			ds := withSelector(newDaemonSet())
			ds.Spec.Template.Spec.NodeName = "blue-1"
			return ds
		}(), nodes: []*api.Node{newNode("blue-0", simpleNodeLabel), newNode("blue-1", simpleNodeLabel), newNode("node-0", nil)},
			wantCreate: []string{"blue-1"}},
		{name: "NodeAffinityDaemonLaunchesPods", ds: func() *api.DaemonSet {
			ds := newDaemonSet()
			ds.Spec.Template.Spec.Affinity = &api.Affinity{NodeAffinity: &api.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{
				NodeSelectorTerms: []api.NodeSelectorTerm{{MatchExpressions: []api.NodeSelectorRequirement{{Key: "color", Operator: "In", Values: []string{"blue"}}}}}}}}
			return ds
		}(), nodes: []*api.Node{newNode("blue", simpleNodeLabel), newNode("green", otherLabel)}, wantCreate: []string{"blue"}},
		{name: "DaemonKillFailedPods: a failed pod is deleted, a warning recorded", ds: newDaemonSet(), nodes: nodes(2, nil),
			pods:       []*api.Pod{failed(pod("bad", "node-0", "h", false, time.Minute)), pod("good", "node-1", "h", true, time.Minute)},
			wantDelete: []string{"bad"}, wantEvents: []string{"Warning FailedDaemonPod Found failed daemon pod default/bad on node node-0, will try to kill it"}},
		{name: "DaemonKillFailedPodsBackoff: not while the node's back-off lasts", ds: newDaemonSet(), nodes: nodes(1, nil),
			pods: []*api.Pod{failed(pod("bad", "node-0", "h", false, time.Minute))}, backedOff: map[string]bool{"node-0": true}},
		{name: "a succeeded pod is deleted", ds: newDaemonSet(), nodes: nodes(1, nil),
			pods:       []*api.Pod{succeeded(pod("done", "node-0", "h", false, time.Minute))},
			wantDelete: []string{"done"}, wantEvents: []string{"Normal SucceededDaemonPod Found succeeded daemon pod default/done on node node-0, will try to delete it"}},
		{name: "DaemonSetRespectsTermination: a pod being deleted is not deleted again nor replaced yet", ds: newDaemonSet(), nodes: nodes(1, nil),
			pods: []*api.Pod{deleting(pod("going", "node-0", "h", true, time.Minute))}},
		{name: "TaintedNodeDaemonDoesNotLaunchIntolerantPod", ds: newDaemonSet(), nodes: []*api.Node{newNode("tainted", nil, noSchedule)}},
		{name: "TaintedNodeDaemonLaunchesToleratePod", ds: func() *api.DaemonSet {
			ds := newDaemonSet()
			ds.Spec.Template.Spec.Tolerations = []api.Toleration{tolerateGPU}
			return ds
		}(), nodes: []*api.Node{newNode("tainted", nil, noSchedule)}, wantCreate: []string{"tainted"}},
		{name: "NoScheduleTaintedDoesntEvictRunningIntolerantPod", ds: newDaemonSet(), nodes: []*api.Node{newNode("tainted", nil, noSchedule)},
			pods: []*api.Pod{pod("stays", "tainted", "h", true, time.Minute)}},
		{name: "NoExecuteTaintedDoesEvictRunningIntolerantPod", ds: newDaemonSet(), nodes: []*api.Node{newNode("tainted", nil, noExecute)},
			pods: []*api.Pod{pod("goes", "tainted", "h", true, time.Minute)}, wantDelete: []string{"goes"}},
		{name: "NotReadyNodeDaemonLaunchesPod: the not-ready taint is tolerated", ds: newDaemonSet(),
			nodes: []*api.Node{newNode("not-ready", nil, api.Taint{Key: "node.kubernetes.io/not-ready", Effect: api.TaintEffectNoExecute})}, wantCreate: []string{"not-ready"}},
		{name: "UnreachableNodeDaemonLaunchesPod", ds: newDaemonSet(),
			nodes: []*api.Node{newNode("unreachable", nil, api.Taint{Key: "node.kubernetes.io/unreachable", Effect: api.TaintEffectNoExecute})}, wantCreate: []string{"unreachable"}},
		{name: "TaintPressureNodeDaemonLaunchesPod and a cordon", ds: newDaemonSet(),
			nodes: []*api.Node{newNode("pressed", nil,
				api.Taint{Key: "node.kubernetes.io/disk-pressure", Effect: api.TaintEffectNoSchedule},
				api.Taint{Key: "node.kubernetes.io/memory-pressure", Effect: api.TaintEffectNoSchedule},
				api.Taint{Key: "node.kubernetes.io/pid-pressure", Effect: api.TaintEffectNoSchedule},
				api.Taint{Key: "node.kubernetes.io/unschedulable", Effect: api.TaintEffectNoSchedule})},
			wantCreate: []string{"pressed"}},
		{name: "DeleteUnscheduledPodForNotExistingNode; a bound one is the pod GC's", ds: newDaemonSet(), nodes: nodes(1, nil),
			pods: []*api.Pod{pod("here", "node-0", "h", true, time.Minute), unscheduled(pod("nowhere", "", "h", false, time.Minute), "gone"),
				pod("bound-gone", "gone-too", "h", true, time.Minute)},
			wantDelete: []string{"nowhere"}},
		{name: "SurgeDealsWithExistingPods: two allowed while surging", ds: func() *api.DaemonSet {
			ds := newDaemonSet()
			ds.Spec.UpdateStrategy.RollingUpdate = &api.RollingUpdateDaemonSet{MaxUnavailable: ptr(api.FromInt(0)), MaxSurge: ptr(api.FromInt(1))}
			return ds
		}(), nodes: nodes(3, nil),
			pods: []*api.Pod{
				pod("new-1", "node-1", "new", true, time.Minute),
				pod("new-2a", "node-2", "new", true, 2*time.Minute), pod("new-2b", "node-2", "new", true, time.Minute), pod("old-2", "node-2", "old", true, 3*time.Minute),
			},
			wantCreate: []string{"node-0"}, wantDelete: []string{"new-2b", "old-2"}},
		{name: "SurgePreservesReadyOldPods while the new one is not ready", ds: func() *api.DaemonSet {
			ds := newDaemonSet()
			ds.Spec.UpdateStrategy.RollingUpdate = &api.RollingUpdateDaemonSet{MaxUnavailable: ptr(api.FromInt(0)), MaxSurge: ptr(api.FromInt(1))}
			return ds
		}(), nodes: nodes(1, nil),
			pods: []*api.Pod{pod("old", "node-0", "old", true, 2*time.Minute), pod("new", "node-0", "new", false, time.Minute)}},
		{name: "SurgeDeletesUnreadyOldPods", ds: func() *api.DaemonSet {
			ds := newDaemonSet()
			ds.Spec.UpdateStrategy.RollingUpdate = &api.RollingUpdateDaemonSet{MaxUnavailable: ptr(api.FromInt(0)), MaxSurge: ptr(api.FromInt(1))}
			return ds
		}(), nodes: nodes(1, nil),
			pods:       []*api.Pod{pod("old", "node-0", "old", false, 2*time.Minute), pod("new", "node-0", "new", false, time.Minute)},
			wantDelete: []string{"old"}},
		{name: "SurgePreservesOldReadyWithUnsatisfiedMinReady", ds: func() *api.DaemonSet {
			ds := newDaemonSet()
			ds.Spec.MinReadySeconds = 15
			ds.Spec.UpdateStrategy.RollingUpdate = &api.RollingUpdateDaemonSet{MaxUnavailable: ptr(api.FromInt(0)), MaxSurge: ptr(api.FromInt(1))}
			return ds
		}(), nodes: nodes(1, nil),
			pods: []*api.Pod{pod("old", "node-0", "old", true, time.Hour), pod("new", "node-0", "new", true, 10*time.Second)}},
		{name: "SurgeDeletesOldReadyWithSatisfiedMinReady", ds: func() *api.DaemonSet {
			ds := newDaemonSet()
			ds.Spec.MinReadySeconds = 15
			ds.Spec.UpdateStrategy.RollingUpdate = &api.RollingUpdateDaemonSet{MaxUnavailable: ptr(api.FromInt(0)), MaxSurge: ptr(api.FromInt(1))}
			return ds
		}(), nodes: nodes(1, nil),
			pods:       []*api.Pod{pod("old", "node-0", "old", true, time.Hour), pod("new", "node-0", "new", true, 20*time.Second)},
			wantDelete: []string{"old"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Manage(&State{DS: tt.ds, Nodes: tt.nodes, PodsByNode: byNode(tt.pods...), Hash: "new", Now: now, BackedOff: tt.backedOff})
			assert.Equal(t, tt.wantCreate, d.Create, "create")
			assert.Equal(t, tt.wantDelete, names(d.Delete), "delete")
			var events []string
			for _, e := range d.Events {
				typ := "Normal"
				if e.Warning {
					typ = "Warning"
				}
				events = append(events, typ+" "+e.Reason+" "+e.Message)
			}
			assert.Equal(t, tt.wantEvents, events, "events")
		})
	}
}

// TestRollingUpdate ports upstream's update_test.go (v1.32): each row is
// one step of a rolling update, the pods as they stand.
func TestRollingUpdate(t *testing.T) {
	strategy := func(unavailable, surge api.IntOrString) *api.DaemonSet {
		ds := newDaemonSet()
		ds.Spec.UpdateStrategy.RollingUpdate = &api.RollingUpdateDaemonSet{MaxUnavailable: &unavailable, MaxSurge: &surge}
		return ds
	}
	old5 := func(readyOld bool) []*api.Pod {
		var out []*api.Pod
		for i := 0; i < 5; i++ {
			out = append(out, pod(fmt.Sprintf("old-%d", i), fmt.Sprintf("node-%d", i), "old", readyOld, time.Hour))
		}
		return out
	}
	tests := []struct {
		name       string
		ds         *api.DaemonSet
		nodes      []*api.Node
		pods       []*api.Pod
		wantCreate []string
		wantDelete []string
	}{
		{name: "DaemonSetUpdatesPods: maxUnavailable 1 deletes one old pod", ds: strategy(api.FromInt(1), api.FromInt(0)), nodes: nodes(5, nil),
			pods: old5(true), wantDelete: []string{"old-0"}},
		{name: "maxUnavailable 2 deletes two", ds: strategy(api.FromInt(2), api.FromInt(0)), nodes: nodes(5, nil),
			pods: old5(true), wantDelete: []string{"old-0", "old-1"}},
		{name: "maxUnavailable 40% of 5 rounds up to 2", ds: strategy(api.FromString("40%"), api.FromInt(0)), nodes: nodes(5, nil),
			pods: old5(true), wantDelete: []string{"old-0", "old-1"}},
		{name: "an unavailable new pod uses up the budget", ds: strategy(api.FromInt(1), api.FromInt(0)), nodes: nodes(5, nil),
			pods: append(old5(true)[1:], pod("new-0", "node-0", "new", false, time.Second))},
		{name: "DaemonSetUpdatesAllOldPodsNotReady: unavailable old pods all go at once", ds: strategy(api.FromInt(1), api.FromInt(0)), nodes: nodes(5, nil),
			pods: old5(false), wantDelete: []string{"old-0", "old-1", "old-2", "old-3", "old-4"}},
		{name: "DaemonSetUpdatesNoTemplateChanged: nothing to do", ds: strategy(api.FromInt(1), api.FromInt(0)), nodes: nodes(2, nil),
			pods: []*api.Pod{pod("a", "node-0", "new", true, time.Hour), pod("b", "node-1", "new", true, time.Hour)}},
		{name: "DaemonSetUpdatesPodsWithMaxSurge: new pods beside old ones", ds: strategy(api.FromInt(0), api.FromInt(2)), nodes: nodes(5, nil),
			pods: old5(true), wantCreate: []string{"node-0", "node-1"}},
		{name: "with surge an available new pod retires the old", ds: strategy(api.FromInt(0), api.FromInt(1)), nodes: nodes(2, nil),
			pods:       []*api.Pod{pod("old-0", "node-0", "old", true, time.Hour), pod("new-0", "node-0", "new", true, time.Minute), pod("old-1", "node-1", "old", true, time.Hour)},
			wantCreate: []string{"node-1"}, wantDelete: []string{"old-0"}},
		{name: "with surge a not-yet-available new pod holds the budget", ds: strategy(api.FromInt(0), api.FromInt(1)), nodes: nodes(2, nil),
			pods: []*api.Pod{pod("old-0", "node-0", "old", true, time.Hour), pod("new-0", "node-0", "new", false, time.Minute), pod("old-1", "node-1", "old", true, time.Hour)}},
		{name: "DaemonSetUpdatesAllOldPodsNotReadyMaxSurge: unavailable old pods are replaced beyond the surge", ds: strategy(api.FromInt(0), api.FromInt(1)), nodes: nodes(5, nil),
			pods: old5(false), wantCreate: []string{"node-0", "node-1", "node-2", "node-3", "node-4"}},
		{name: "both 0: an impossible strategy accepts one unavailable", ds: strategy(api.FromInt(0), api.FromInt(0)), nodes: nodes(3, nil),
			pods: old5(true)[:3], wantDelete: []string{"old-0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := RollingUpdate(&State{DS: tt.ds, Nodes: tt.nodes, PodsByNode: byNode(tt.pods...), Hash: "new", Now: now})
			assert.Equal(t, tt.wantCreate, d.Create, "create")
			assert.Equal(t, tt.wantDelete, names(d.Delete), "delete")
		})
	}
}

// TestDecideRollsOnlyWhenManageIsDone: the rolling update waits for
// manage's writes, as upstream's waits for its expectations.
func TestDecideRollsOnlyWhenManageIsDone(t *testing.T) {
	ds := newDaemonSet()
	s := &State{DS: ds, Nodes: nodes(2, nil), PodsByNode: byNode(pod("old-0", "node-0", "old", true, time.Hour)), Hash: "new", Now: now}
	d := Decide(s)
	assert.Equal(t, []string{"node-1"}, d.Create)
	assert.Empty(t, d.Delete, "no rolling deletion in the same sync")

	s.PodsByNode = byNode(pod("old-0", "node-0", "old", true, time.Hour), pod("new-1", "node-1", "new", true, time.Hour))
	assert.Equal(t, []string{"old-0"}, names(Decide(s).Delete))

	ds.Spec.UpdateStrategy = api.DaemonSetUpdateStrategy{Type: api.OnDeleteDaemonSetStrategyType}
	assert.Empty(t, Decide(s).Delete, "OnDelete leaves old pods until someone deletes them")
}

// TestStatus ports TestNumberReadyStatus, TestObservedGeneration's counts
// and the misscheduled and updated counts of upstream's status tests.
func TestStatus(t *testing.T) {
	ds := newDaemonSet()
	ds.Spec.Template.Spec.NodeSelector = simpleNodeLabel
	ds.Spec.MinReadySeconds = 60
	ns := []*api.Node{newNode("a", simpleNodeLabel), newNode("b", simpleNodeLabel), newNode("c", simpleNodeLabel), newNode("d", nil)}
	s := &State{DS: ds, Nodes: ns, Hash: "new", Now: now, PodsByNode: byNode(
		pod("on-a", "a", "new", true, time.Hour),      // ready and available, updated
		pod("on-b", "b", "old", true, 10*time.Second), // ready, not yet available, old
		pod("on-d", "d", "new", true, time.Hour),      // misscheduled
	)}
	st := Status(s)
	assert.Equal(t, api.DaemonSetStatus{DesiredNumberScheduled: 3, CurrentNumberScheduled: 2, NumberMisscheduled: 1,
		NumberReady: 2, NumberAvailable: 1, NumberUnavailable: 2, UpdatedNumberScheduled: 1}, st)
}

// TestShouldRun ports upstream's TestNodeShouldRunDaemonPod table.
func TestShouldRun(t *testing.T) {
	withTolerations := func(ts ...api.Toleration) *api.DaemonSet {
		ds := newDaemonSet()
		ds.Spec.Template.Spec.Tolerations = ts
		return ds
	}
	tests := []struct {
		name           string
		ds             *api.DaemonSet
		node           *api.Node
		run, continues bool
	}{
		{"a plain node", newDaemonSet(), newNode("n", nil), true, true},
		{"a selector that matches", func() *api.DaemonSet {
			ds := newDaemonSet()
			ds.Spec.Template.Spec.NodeSelector = simpleNodeLabel
			return ds
		}(), newNode("n", simpleNodeLabel), true, true},
		{"a selector that does not", func() *api.DaemonSet {
			ds := newDaemonSet()
			ds.Spec.Template.Spec.NodeSelector = simpleNodeLabel
			return ds
		}(), newNode("n", otherLabel), false, false},
		{"another nodeName", func() *api.DaemonSet {
			ds := newDaemonSet()
			ds.Spec.Template.Spec.NodeName = "other"
			return ds
		}(), newNode("n", nil), false, false},
		{"an untolerated NoSchedule taint: stay, do not come", newDaemonSet(), newNode("n", nil, noSchedule), false, true},
		{"an untolerated NoExecute taint: go", newDaemonSet(), newNode("n", nil, noExecute), false, false},
		{"NoSchedule and NoExecute untolerated", newDaemonSet(), newNode("n", nil, noSchedule, noExecute), false, false},
		{"a tolerated taint", withTolerations(tolerateGPU), newNode("n", nil, noSchedule, noExecute), true, true},
		{"PreferNoSchedule is no obstacle", newDaemonSet(), newNode("n", nil, api.Taint{Key: "x", Effect: api.TaintEffectPreferNoSchedule}), true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run, cont := ShouldRun(tt.node, tt.ds)
			assert.Equal(t, tt.run, run, "shouldRun")
			assert.Equal(t, tt.continues, cont, "shouldContinueRunning")
		})
	}
}

// TestAddDaemonTolerations ports TestAddOrUpdateDaemonPodTolerations: the
// six tolerations are added once, and one the template has is replaced,
// not doubled.
func TestAddDaemonTolerations(t *testing.T) {
	spec := api.PodSpec{Tolerations: []api.Toleration{tolerateGPU,
		{Key: "node.kubernetes.io/not-ready", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))}}}
	AddDaemonTolerations(&spec)
	AddDaemonTolerations(&spec)
	assert.Equal(t, []api.Toleration{tolerateGPU,
		{Key: "node.kubernetes.io/not-ready", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute},
		{Key: "node.kubernetes.io/unreachable", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute},
		{Key: "node.kubernetes.io/disk-pressure", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
		{Key: "node.kubernetes.io/memory-pressure", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
		{Key: "node.kubernetes.io/pid-pressure", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
		{Key: "node.kubernetes.io/unschedulable", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule},
	}, spec.Tolerations)
}

// TestPinToNode ports TestReplaceDaemonSetPodNodeNameNodeAffinity: the
// required node affinity becomes one matchFields term on the node's name,
// preferences stay, and TargetNode reads the name back.
func TestPinToNode(t *testing.T) {
	pref := []api.PreferredSchedulingTerm{{Weight: 1, Preference: api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{{Key: "a", Operator: "Exists"}}}}}
	in := &api.Affinity{NodeAffinity: &api.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution:  &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{{MatchExpressions: []api.NodeSelectorRequirement{{Key: "color", Operator: "In", Values: []string{"blue"}}}}}},
		PreferredDuringSchedulingIgnoredDuringExecution: pref}}
	out := PinToNode(in, "node-1")
	assert.Equal(t, []api.NodeSelectorTerm{{MatchFields: []api.NodeSelectorRequirement{{Key: "metadata.name", Operator: "In", Values: []string{"node-1"}}}}},
		out.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms)
	assert.Equal(t, pref, out.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution)
	assert.Equal(t, "color", in.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchExpressions[0].Key, "the input is not changed")
	assert.NotNil(t, PinToNode(nil, "n").NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution)

	p := &api.Pod{Spec: api.PodSpec{Affinity: out}}
	n, ok := TargetNode(p)
	assert.True(t, ok)
	assert.Equal(t, "node-1", n)
	p.Spec.NodeName = "bound"
	n, _ = TargetNode(p)
	assert.Equal(t, "bound", n, "the binding wins")
	_, ok = TargetNode(&api.Pod{})
	assert.False(t, ok)
}

// TestIsPodUpdated ports TestIsPodUpdated: a pod is of the current
// template by its revision hash or, for pods made before hashes, by its
// template generation.
func TestIsPodUpdated(t *testing.T) {
	withGen := func(p *api.Pod, gen string) *api.Pod {
		p.Metadata.Labels[api.DaemonSetTemplateGenerationLabel] = gen
		return p
	}
	tests := []struct {
		name string
		pod  *api.Pod
		hash string
		gen  *int64
		want bool
	}{
		{"the hash", pod("p", "n", "new", true, 0), "new", nil, true},
		{"another hash", pod("p", "n", "old", true, 0), "new", nil, false},
		{"the generation, another hash", withGen(pod("p", "n", "old", true, 0), "3"), "new", ptr(int64(3)), true},
		{"another generation, the hash", withGen(pod("p", "n", "new", true, 0), "2"), "new", ptr(int64(3)), true},
		{"another generation and hash", withGen(pod("p", "n", "old", true, 0), "2"), "new", ptr(int64(3)), false},
		{"no hash to match", pod("p", "n", "", true, 0), "", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, IsPodUpdated(tt.pod, tt.hash, tt.gen))
		})
	}
}
