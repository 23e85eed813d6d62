package nodelifecycle

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
)

var epoch = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// testPod is a pod bound to node-0 in phase, its Ready condition as ready.
func testPod(phase api.PodPhase, ready bool) *api.Pod {
	status := api.ConditionFalse
	if ready {
		status = api.ConditionTrue
	}
	return &api.Pod{
		Metadata: api.ObjectMeta{Namespace: "default", Name: "web", UID: "uid-web"},
		Spec:     api.PodSpec{NodeName: "node-0", Containers: []api.Container{{Name: "app"}, {Name: "sidecar"}}},
		Status: api.PodStatus{
			Phase: phase,
			Conditions: []api.PodCondition{
				{Type: api.PodReady, Status: status},
				{Type: api.ContainersReady, Status: status},
			},
			ContainerStatuses: []api.ContainerStatus{{Name: "app", Ready: ready}, {Name: "sidecar", Ready: ready}},
		},
	}
}

// The decisions of the node lifecycle controller about one pod on a node
// that is not ready: upstream's MarkPodsNotReady (processPod and
// monitorNodeHealth) at once, and the pre-taint eviction after the timeout.
func TestDecide(t *testing.T) {
	sec := time.Second
	down := podFacts{Now: epoch, DownSince: epoch, EvictionTimeout: 30 * sec}
	at := func(d time.Duration) podFacts { f := down; f.Now = epoch.Add(d); return f }
	terminating := func(p *api.Pod) *api.Pod {
		ts := api.NewTime(epoch.Add(30 * sec))
		p.Metadata.DeletionTimestamp = &ts
		return p
	}
	noCondition := testPod(api.PodRunning, true)
	noCondition.Status.Conditions = nil

	tests := []struct {
		name     string
		pod      *api.Pod
		facts    podFacts
		want     action
		wantWait time.Duration
	}{
		{"ready pod made not ready", testPod(api.PodRunning, true), at(sec), actNotReady, 29 * sec},
		{"running pod without a Ready condition made not ready", noCondition, at(0), actNotReady, 30 * sec},
		{"not ready pod waits for eviction", testPod(api.PodRunning, false), at(10 * sec), actNone, 20 * sec},
		{"pending pod waits for eviction", testPod(api.PodPending, false), at(10 * sec), actNone, 20 * sec},
		{"past the timeout: node lost", testPod(api.PodRunning, false), at(30 * sec), actLost, 0},
		{"past the timeout, still ready: node lost", testPod(api.PodRunning, true), at(time.Hour), actLost, 0},
		{"pending past the timeout: node lost", testPod(api.PodPending, false), at(30 * sec), actLost, 0},
		{"terminating pod left to its grace period", terminating(testPod(api.PodRunning, false)), at(10 * sec), actNone, 20 * sec},
		{"terminating pod past the timeout: not failed", terminating(testPod(api.PodRunning, false)), at(31 * sec), actNone, 0},
		{"succeeded: nothing to do", testPod(api.PodSucceeded, false), at(time.Hour), actNone, 0},
		{"failed: nothing to do", testPod(api.PodFailed, true), at(sec), actNone, 0},
		{"no timeout: lost at once", testPod(api.PodRunning, true), podFacts{Now: epoch, DownSince: epoch}, actLost, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, wait := decide(tt.pod, tt.facts)
			assert.Equal(t, tt.want, got, "action")
			assert.Equal(t, tt.wantWait, wait, "wait")
		})
	}
}

func TestStatusWritten(t *testing.T) {
	now := epoch.Add(time.Minute)
	cond := func(st api.PodStatus, typ api.PodConditionType) api.PodCondition {
		c, _ := podCondition(&api.Pod{Status: st}, typ)
		return c
	}
	tests := []struct {
		name  string
		pod   *api.Pod
		build func(*api.Pod, time.Time) *api.Pod
		check func(t *testing.T, st api.PodStatus)
	}{
		{"not ready: only Ready goes False", testPod(api.PodRunning, true), notReadyPod,
			func(t *testing.T, st api.PodStatus) {
				assert.Equal(t, api.PodRunning, st.Phase)
				ready := cond(st, api.PodReady)
				assert.Equal(t, api.PodCondition{Type: api.PodReady, Status: api.ConditionFalse, Reason: ReasonNodeNotReady,
					Message: "node node-0 is not ready", LastTransitionTime: api.NewTime(now)}, ready)
				assert.Equal(t, api.ConditionTrue, cond(st, api.ContainersReady).Status, "the containers' state is unknown")
				assert.True(t, st.ContainerStatuses[0].Ready)
			}},
		{"not ready, no Ready condition: added", func() *api.Pod { p := testPod(api.PodRunning, true); p.Status.Conditions = nil; return p }(), notReadyPod,
			func(t *testing.T, st api.PodStatus) {
				assert.Len(t, st.Conditions, 1)
				assert.Equal(t, api.ConditionFalse, cond(st, api.PodReady).Status)
			}},
		{"lost: Failed, reason NodeLost, nothing ready", testPod(api.PodRunning, true), lostPod,
			func(t *testing.T, st api.PodStatus) {
				assert.Equal(t, api.PodFailed, st.Phase)
				assert.Equal(t, ReasonNodeLost, st.Reason)
				assert.Equal(t, "Node node-0 which was running pod web is unresponsive", st.Message)
				for _, typ := range []api.PodConditionType{api.PodReady, api.ContainersReady} {
					assert.Equal(t, api.PodCondition{Type: typ, Status: api.ConditionFalse, Reason: reasonContainersNotReady,
						Message: "containers with unready status: [app sidecar]", LastTransitionTime: api.NewTime(now)}, cond(st, typ))
				}
				for _, cs := range st.ContainerStatuses {
					assert.False(t, cs.Ready, cs.Name)
				}
			}},
		{"lost when already not ready: the transition time is kept", testPod(api.PodRunning, false), lostPod,
			func(t *testing.T, st api.PodStatus) {
				assert.True(t, cond(st, api.PodReady).LastTransitionTime.IsZero())
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := tt.pod.DeepCopy()
			tt.check(t, tt.build(tt.pod, now).Status)
			assert.Equal(t, before, tt.pod, "the input pod is not changed")
		})
	}
}

// TestUpdatePodCondition ports upstream's pkg/api/v1/pod TestUpdatePodCondition:
// a condition whose status is unchanged keeps its transition time, and an
// update that changes nothing reports so.
func TestUpdatePodCondition(t *testing.T) {
	t0, t1 := api.NewTime(epoch), api.NewTime(epoch.Add(time.Hour))
	old := api.PodCondition{Type: api.PodReady, Status: api.ConditionTrue, Reason: "r", LastTransitionTime: t0}
	tests := []struct {
		name        string
		conds       []api.PodCondition
		cond        api.PodCondition
		wantChanged bool
		want        []api.PodCondition
	}{
		{"added when missing", nil, api.PodCondition{Type: api.PodReady, Status: api.ConditionFalse, LastTransitionTime: t1}, true,
			[]api.PodCondition{{Type: api.PodReady, Status: api.ConditionFalse, LastTransitionTime: t1}}},
		{"status changed: new transition time", []api.PodCondition{old}, api.PodCondition{Type: api.PodReady, Status: api.ConditionFalse, Reason: "r", LastTransitionTime: t1}, true,
			[]api.PodCondition{{Type: api.PodReady, Status: api.ConditionFalse, Reason: "r", LastTransitionTime: t1}}},
		{"reason changed: transition time kept", []api.PodCondition{old}, api.PodCondition{Type: api.PodReady, Status: api.ConditionTrue, Reason: "s", LastTransitionTime: t1}, true,
			[]api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue, Reason: "s", LastTransitionTime: t0}}},
		{"nothing changed", []api.PodCondition{old}, api.PodCondition{Type: api.PodReady, Status: api.ConditionTrue, Reason: "r", LastTransitionTime: t1}, false,
			[]api.PodCondition{old}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := api.PodStatus{Conditions: tt.conds}
			assert.Equal(t, tt.wantChanged, updatePodCondition(&st, tt.cond))
			assert.Equal(t, tt.want, st.Conditions)
		})
	}
}
