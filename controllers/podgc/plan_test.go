package podgc

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

type podSpec struct {
	name        string
	phase       api.PodPhase
	reason      string
	node        string
	terminating bool
}

// pods makes the pods in order, each created an hour after the one before.
func pods(specs ...podSpec) []*api.Pod {
	var out []*api.Pod
	for i, s := range specs {
		p := &api.Pod{Metadata: api.ObjectMeta{Namespace: "default", Name: s.name, UID: api.UID("uid-" + s.name),
			CreationTimestamp: api.NewTime(t0.Add(time.Duration(i+1) * time.Hour))}}
		p.Spec.NodeName = s.node
		p.Status.Phase, p.Status.Reason = s.phase, s.reason
		if s.terminating {
			now := api.NewTime(t0)
			p.Metadata.DeletionTimestamp = &now
		}
		out = append(out, p)
	}
	return out
}

func node(name string, ready bool, taints ...string) *api.Node {
	n := &api.Node{Metadata: api.ObjectMeta{Name: name}}
	st := api.ConditionFalse
	if ready {
		st = api.ConditionTrue
	}
	n.Status.Conditions = []api.NodeCondition{{Type: api.NodeReady, Status: st}}
	for _, k := range taints {
		n.Spec.Taints = append(n.Spec.Taints, api.Taint{Key: k, Effect: api.TaintEffectNoExecute})
	}
	return n
}

func names(p sweepPlan) []string {
	var out []string
	for _, d := range p.delete {
		out = append(out, d.pod.Metadata.Name)
	}
	return out
}

// TestGCTerminated is Kubernetes' TestGCTerminated: the oldest terminated
// pods above the threshold go; 0 keeps them all. Evicted pods go first.
func TestGCTerminated(t *testing.T) {
	for _, tt := range []struct {
		name      string
		pods      []podSpec
		threshold int
		want      []string
	}{
		{"threshold 0 keeps every pod", []podSpec{{name: "a", phase: api.PodFailed}, {name: "b", phase: api.PodSucceeded}}, 0, nil},
		{"two of three above 1", []podSpec{{name: "a", phase: api.PodFailed}, {name: "b", phase: api.PodSucceeded}, {name: "c", phase: api.PodFailed}}, 1, []string{"a", "b"}},
		{"a running pod does not count", []podSpec{{name: "a", phase: api.PodRunning}, {name: "b", phase: api.PodSucceeded}, {name: "c", phase: api.PodFailed}}, 1, []string{"b"}},
		{"the oldest goes", []podSpec{{name: "a", phase: api.PodFailed}, {name: "b", phase: api.PodSucceeded}}, 1, []string{"a"}},
		{"below the threshold", []podSpec{{name: "a", phase: api.PodFailed}, {name: "b", phase: api.PodSucceeded}}, 5, nil},
		{"evicted first, though younger", []podSpec{{name: "a", phase: api.PodSucceeded}, {name: "b", phase: api.PodFailed, reason: "Evicted"}, {name: "c", phase: api.PodFailed}}, 2, []string{"b"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			specs := tt.pods
			for i := range specs {
				specs[i].node = "node"
			}
			p := plan(pods(specs...), []*api.Node{node("node", true)}, t0, map[string]time.Time{}, tt.threshold)
			assert.Equal(t, tt.want, names(p))
		})
	}
}

// TestGCOrphaned: pods bound to a node the cache lacks are candidates
// once it has been missing for the quarantine, whatever their phase
// (Kubernetes' TestGCOrphaned); the sweep confirms the node gone first.
func TestGCOrphaned(t *testing.T) {
	ps := pods(podSpec{name: "a", phase: api.PodFailed, node: "gone"}, podSpec{name: "b", phase: api.PodRunning, node: "gone"},
		podSpec{name: "c", phase: api.PodRunning, node: "here"})
	nodes := []*api.Node{node("here", true)}
	missing := map[string]time.Time{}

	p := plan(ps, nodes, t0, missing, 0)
	assert.Empty(t, p.confirm, "first seen missing: quarantined")
	assert.Equal(t, map[string]time.Time{"gone": t0}, missing)

	p = plan(ps, nodes, t0.Add(quarantine-time.Second), missing, 0)
	assert.Empty(t, p.confirm, "still in quarantine")

	p = plan(ps, nodes, t0.Add(quarantine), missing, 0)
	assert.Equal(t, []string{"gone"}, p.confirm)
	assert.Equal(t, []*api.Pod{ps[0], ps[1]}, p.orphansOn["gone"])

	// The node shows up again: its quarantine is forgotten.
	p = plan(ps, append(nodes, node("gone", true)), t0.Add(quarantine), missing, 0)
	assert.Empty(t, p.confirm)
	assert.Empty(t, missing)
}

// TestGCUnscheduledTerminating is Kubernetes' test of the same name: a
// terminating pod never scheduled goes, in any phase; a scheduled or
// live one stays.
func TestGCUnscheduledTerminating(t *testing.T) {
	for _, tt := range []struct {
		name string
		pods []podSpec
		want []string
	}{
		{"unscheduled terminating pods in any phase go", []podSpec{
			{name: "a", phase: api.PodFailed, terminating: true},
			{name: "b", phase: api.PodSucceeded, terminating: true},
			{name: "c", phase: api.PodRunning, terminating: true},
		}, []string{"a", "b", "c"}},
		{"scheduled or not terminating: kept", []podSpec{
			{name: "a", phase: api.PodFailed},
			{name: "b", phase: api.PodSucceeded, node: "node"},
			{name: "c", phase: api.PodRunning, node: "node", terminating: true},
		}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := plan(pods(tt.pods...), []*api.Node{node("node", true)}, t0, map[string]time.Time{}, 0)
			assert.Equal(t, tt.want, names(p))
		})
	}
}

// TestGCTerminating: a terminating pod goes when its node is not Ready
// and carries the out-of-service taint; either alone keeps it.
func TestGCTerminating(t *testing.T) {
	ps := pods(
		podSpec{name: "oos", phase: api.PodRunning, node: "down-oos", terminating: true},
		podSpec{name: "down", phase: api.PodRunning, node: "down", terminating: true},
		podSpec{name: "ready-oos", phase: api.PodRunning, node: "ready-oos", terminating: true},
		podSpec{name: "live", phase: api.PodRunning, node: "down-oos"},
	)
	nodes := []*api.Node{node("down-oos", false, TaintOutOfService), node("down", false), node("ready-oos", true, TaintOutOfService)}
	assert.Equal(t, []string{"oos"}, names(plan(ps, nodes, t0, map[string]time.Time{}, 0)))
}
