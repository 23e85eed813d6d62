package replication

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
)

func testRC(replicas int32, minReady int32) *api.ReplicationController {
	return &api.ReplicationController{
		Metadata: api.ObjectMeta{Namespace: "default", Name: "web", UID: "rc-uid", Generation: 1},
		Spec: api.ReplicationControllerSpec{
			Replicas: &replicas, MinReadySeconds: minReady,
			Selector: map[string]string{"app": "web"},
			Template: &api.PodTemplateSpec{Metadata: api.ObjectMeta{Labels: map[string]string{"app": "web", "tier": "front"}}},
		},
	}
}

// testRS is testRC's ReplicaSet: the same selector, as matchLabels.
func testRS(replicas int32, minReady int32) *api.ReplicaSet {
	rc := testRC(replicas, minReady)
	return &api.ReplicaSet{
		Metadata: rc.Metadata,
		Spec: api.ReplicaSetSpec{
			Replicas: rc.Spec.Replicas, MinReadySeconds: minReady,
			Selector: &api.LabelSelector{MatchLabels: rc.Spec.Selector},
			Template: *rc.Spec.Template,
		},
	}
}

// calculateStatusOf is calculateStatus for obj, a ReplicationController or
// a ReplicaSet, from its own status.
func calculateStatusOf(obj api.Object, pods []*api.Pod, manageErr error, now time.Time) api.ReplicaSetStatus {
	k := rcKind()
	if _, ok := obj.(*api.ReplicaSet); ok {
		k = rsKind()
	}
	v := k.view(obj)
	return calculateStatus(&v, k.status(obj), pods, manageErr, now)
}

func labels(l map[string]string) podOpt { return func(p *api.Pod) { p.Metadata.Labels = l } }

func TestCalculateStatus(t *testing.T) {
	now := t0
	full := map[string]string{"app": "web", "tier": "front"}
	partial := map[string]string{"app": "web"}
	tests := []struct {
		name     string
		replicas int32
		minReady int32
		pods     []*api.Pod
		want     api.ReplicaSetStatus
	}{
		{
			name: "no pods", replicas: 1,
			want: api.ReplicaSetStatus{},
		},
		{
			name: "fully and partly labelled", replicas: 2,
			pods: []*api.Pod{newTestPod("a", labels(full)), newTestPod("b", labels(partial))},
			want: api.ReplicaSetStatus{Replicas: 2, FullyLabeledReplicas: 1},
		},
		{
			name: "pending pod is neither ready nor available", replicas: 1,
			pods: []*api.Pod{newTestPod("a", labels(full), phase(api.PodPending))},
			want: api.ReplicaSetStatus{Replicas: 1, FullyLabeledReplicas: 1},
		},
		{
			name: "ready without minReadySeconds is available", replicas: 1,
			pods: []*api.Pod{newTestPod("a", labels(full), readySince(now))},
			want: api.ReplicaSetStatus{Replicas: 1, FullyLabeledReplicas: 1, ReadyReplicas: 1, AvailableReplicas: 1},
		},
		{
			name: "not ready, ready recently, ready long ago with minReadySeconds 3600", replicas: 3, minReady: 3600,
			pods: []*api.Pod{
				newTestPod("a", labels(full), notReady()),
				newTestPod("b", labels(full), readySince(now.Add(-time.Minute))),
				newTestPod("c", labels(full), readySince(now.Add(-2*time.Hour))),
			},
			want: api.ReplicaSetStatus{Replicas: 3, FullyLabeledReplicas: 3, ReadyReplicas: 2, AvailableReplicas: 1},
		},
		{
			name: "ready exactly minReadySeconds ago is not yet available", replicas: 1, minReady: 60,
			pods: []*api.Pod{newTestPod("a", labels(full), readySince(now.Add(-time.Minute)))},
			want: api.ReplicaSetStatus{Replicas: 1, FullyLabeledReplicas: 1, ReadyReplicas: 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := calculateStatusOf(testRC(tt.replicas, tt.minReady), tt.pods, nil, now)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestCalculateStatusConditions(t *testing.T) {
	now := t0
	earlier := api.NewTime(now.Add(-time.Hour))
	existing := api.ReplicaSetCondition{
		Type: api.ReplicaSetReplicaFailure, Status: api.ConditionTrue,
		LastTransitionTime: earlier, Reason: ReasonFailedCreate, Message: "first error",
	}
	errQuota := errors.New("quota exceeded")
	tests := []struct {
		name      string
		replicas  int32
		pods      int
		existing  []api.ReplicaSetCondition
		manageErr error
		want      []api.ReplicaSetCondition
	}{
		{
			name: "create error sets FailedCreate", replicas: 2, pods: 0, manageErr: errQuota,
			want: []api.ReplicaSetCondition{{
				Type: api.ReplicaSetReplicaFailure, Status: api.ConditionTrue,
				LastTransitionTime: api.NewTime(now), Reason: ReasonFailedCreate, Message: "quota exceeded",
			}},
		},
		{
			name: "delete error sets FailedDelete", replicas: 0, pods: 2, manageErr: errQuota,
			want: []api.ReplicaSetCondition{{
				Type: api.ReplicaSetReplicaFailure, Status: api.ConditionTrue,
				LastTransitionTime: api.NewTime(now), Reason: ReasonFailedDelete, Message: "quota exceeded",
			}},
		},
		{
			name: "success removes the condition", replicas: 1, pods: 1,
			existing: []api.ReplicaSetCondition{existing},
			want:     nil,
		},
		{
			name: "an existing condition is kept on a new error", replicas: 0, pods: 2,
			existing: []api.ReplicaSetCondition{existing}, manageErr: errQuota,
			want: []api.ReplicaSetCondition{existing},
		},
		{
			name: "success without a condition stays without", replicas: 1, pods: 1,
			want: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc := testRS(tt.replicas, 0)
			rc.Status.Conditions = tt.existing
			var pods []*api.Pod
			for i := range tt.pods {
				pods = append(pods, newTestPod(string(rune('a'+i))))
			}
			got := calculateStatusOf(rc, pods, tt.manageErr, now)
			assert.Equal(t, tt.want, got.Conditions)
			if len(tt.existing) > 0 {
				assert.Equal(t, existing, rc.Status.Conditions[0], "the cached controller is not changed")
			}
		})
	}
}

func TestConditionHelpers(t *testing.T) {
	cond := func(typ string, reason string) api.ReplicaSetCondition {
		return api.ReplicaSetCondition{Type: typ, Status: api.ConditionTrue, Reason: reason}
	}
	const other string = "Other"
	fail := api.ReplicaSetReplicaFailure
	tests := []struct {
		name  string
		start []api.ReplicaSetCondition
		apply func(*api.ReplicaSetStatus)
		want  []api.ReplicaSetCondition
	}{
		{
			name:  "set the first",
			apply: func(s *api.ReplicaSetStatus) { SetCondition(s, cond(fail, "A")) },
			want:  []api.ReplicaSetCondition{cond(fail, "A")},
		},
		{
			name:  "set appends another type",
			start: []api.ReplicaSetCondition{cond(other, "X")},
			apply: func(s *api.ReplicaSetStatus) { SetCondition(s, cond(fail, "A")) },
			want:  []api.ReplicaSetCondition{cond(other, "X"), cond(fail, "A")},
		},
		{
			name:  "set overwrites the same type with another reason",
			start: []api.ReplicaSetCondition{cond(fail, "A")},
			apply: func(s *api.ReplicaSetStatus) { SetCondition(s, cond(fail, "B")) },
			want:  []api.ReplicaSetCondition{cond(fail, "B")},
		},
		{
			name:  "set with the same status and reason changes nothing",
			start: []api.ReplicaSetCondition{{Type: fail, Status: api.ConditionTrue, Reason: "A", Message: "old"}},
			apply: func(s *api.ReplicaSetStatus) {
				SetCondition(s, api.ReplicaSetCondition{Type: fail, Status: api.ConditionTrue, Reason: "A", Message: "new"})
			},
			want: []api.ReplicaSetCondition{{Type: fail, Status: api.ConditionTrue, Reason: "A", Message: "old"}},
		},
		{
			name:  "remove",
			start: []api.ReplicaSetCondition{cond(other, "X"), cond(fail, "A")},
			apply: func(s *api.ReplicaSetStatus) { RemoveCondition(s, fail) },
			want:  []api.ReplicaSetCondition{cond(other, "X")},
		},
		{
			name:  "remove the last leaves nil",
			start: []api.ReplicaSetCondition{cond(fail, "A")},
			apply: func(s *api.ReplicaSetStatus) { RemoveCondition(s, fail) },
			want:  nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := api.ReplicaSetStatus{Conditions: tt.start}
			tt.apply(&s)
			assert.Equal(t, tt.want, s.Conditions)
		})
	}
}

func TestStatusNeedsUpdate(t *testing.T) {
	cur := api.ReplicaSetStatus{Replicas: 2, ReadyReplicas: 1, ObservedGeneration: 1}
	same := cur
	tests := []struct {
		name       string
		generation int64
		status     api.ReplicaSetStatus
		want       bool
	}{
		{"identical and observed", 1, same, false},
		{"new generation", 2, same, true},
		{"replicas differ", 1, api.ReplicaSetStatus{Replicas: 3, ReadyReplicas: 1, ObservedGeneration: 1}, true},
		{"ready differs", 1, api.ReplicaSetStatus{Replicas: 2, ObservedGeneration: 1}, true},
		{"condition differs", 1, api.ReplicaSetStatus{Replicas: 2, ReadyReplicas: 1, ObservedGeneration: 1,
			Conditions: []api.ReplicaSetCondition{{Type: api.ReplicaSetReplicaFailure}}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, statusNeedsUpdate(cur, tt.generation, tt.status))
		})
	}
}

// TestCalculateStatusCountsAsThePlainWay checks calculateStatus's ready
// and available counts, which walk each pod's conditions once, against
// the plain way (api.IsPodReady, then the Ready condition read again for
// availability), on random pods from a seeded source: conditions in any
// order, duplicated, missing, true or not, ready long ago or just now.
func TestCalculateStatusCountsAsThePlainWay(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	plainAvailable := func(p *api.Pod, minReady int32, now time.Time) bool {
		for _, c := range p.Status.Conditions {
			if c.Type != api.PodReady {
				continue
			}
			if c.Status != api.ConditionTrue {
				return false
			}
			t := c.LastTransitionTime.Time
			return minReady == 0 || (!t.IsZero() && t.Add(time.Duration(minReady)*time.Second).Before(now))
		}
		return false
	}
	statuses := []api.ConditionStatus{api.ConditionTrue, api.ConditionFalse, api.ConditionUnknown}
	types := []api.PodConditionType{api.PodReady, api.PodScheduled, api.ContainersReady, api.PodReady}
	for i := range 500 {
		rc := testRC(3, []int32{0, 0, 10, 3600}[r.IntN(4)])
		var pods []*api.Pod
		var ready, available int32
		for j := range r.IntN(8) {
			p := newTestPod(fmt.Sprintf("p%d", j))
			for range r.IntN(4) {
				c := api.PodCondition{Type: types[r.IntN(len(types))], Status: statuses[r.IntN(len(statuses))]}
				if r.IntN(4) != 0 {
					c.LastTransitionTime = api.NewTime(t0.Add(-time.Duration(r.IntN(7200)) * time.Second))
				}
				p.Status.Conditions = append(p.Status.Conditions, c)
			}
			if api.IsPodReady(p) {
				ready++
				if plainAvailable(p, rc.Spec.MinReadySeconds, t0) {
					available++
				}
			}
			assert.Equal(t, plainAvailable(p, rc.Spec.MinReadySeconds, t0), IsPodAvailable(p, rc.Spec.MinReadySeconds, t0), "case %d, pod %d", i, j)
			pods = append(pods, p)
		}
		got := calculateStatusOf(rc, pods, nil, t0)
		require.Equal(t, ready, got.ReadyReplicas, "case %d", i)
		require.Equal(t, available, got.AvailableReplicas, "case %d", i)
	}
}
