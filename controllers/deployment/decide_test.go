package deployment

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
)

// TestReconcileNewReplicaSet is rolling_test.go's
// TestDeploymentController_reconcileNewReplicaSet.
func TestReconcileNewReplicaSet(t *testing.T) {
	tests := []struct {
		name                     string
		deploymentReplicas       int32
		maxSurge                 *api.IntOrString
		oldReplicas, newReplicas int32
		scaleExpected            bool
		expectedNewReplicas      int32
	}{
		{"should not scale up", 10, intOrStr(0), 10, 0, false, 0},
		{"scale up by the surge", 10, intOrStr(2), 10, 0, true, 2},
		{"scale up into room", 10, intOrStr(2), 5, 0, true, 7},
		{"no room", 10, intOrStr(2), 10, 2, false, 0},
		{"should scale down", 2, intOrStr(0), 2, 4, true, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			newRS := rs("foo-v2", tt.newReplicas, nil, noTimestamp)
			oldRS := rs("foo-v1", tt.oldReplicas, nil, noTimestamp)
			d := newDeployment("foo", tt.deploymentReplicas, nil, tt.maxSurge, intOrStr(0), map[string]string{"foo": "bar"})
			plan, err := ReconcileNewReplicaSet([]*api.ReplicaSet{newRS, oldRS}, newRS, d)
			require.NoError(t, err)
			if !tt.scaleExpected {
				assert.Empty(t, plan)
				return
			}
			require.Len(t, plan, 1)
			assert.Equal(t, newRS, plan[0].RS)
			assert.Equal(t, tt.expectedNewReplicas, plan[0].To)
		})
	}
}

// TestReconcileOldReplicaSets is rolling_test.go's
// TestDeploymentController_reconcileOldReplicaSets.
func TestReconcileOldReplicaSets(t *testing.T) {
	tests := []struct {
		name                     string
		deploymentReplicas       int32
		maxUnavailable           *api.IntOrString
		oldReplicas, newReplicas int32
		readyOld, readyNew       int32
		scaleExpected            bool
		expectedOldReplicas      int32
	}{
		{"maxUnavailable 0 resolves to 1", 10, intOrStr(0), 10, 0, 10, 0, true, 9},
		{"scale down by maxUnavailable", 10, intOrStr(2), 10, 0, 10, 0, true, 8},
		{"unhealthy old replicas cleaned up", 10, intOrStr(2), 10, 0, 8, 0, true, 8},
		{"one unhealthy cleaned up, one ready scaled down", 10, intOrStr(2), 10, 0, 9, 0, true, 8},
		{"the new set's unavailable pods hold the old ones", 10, intOrStr(2), 8, 2, 8, 0, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			newSel, oldSel := map[string]string{"foo": "new"}, map[string]string{"foo": "old"}
			newRS := rs("foo-new", tt.newReplicas, newSel, noTimestamp)
			newRS.Status.AvailableReplicas = tt.readyNew
			oldRS := rs("foo-old", tt.oldReplicas, oldSel, noTimestamp)
			oldRS.Status.AvailableReplicas = tt.readyOld
			d := newDeployment("foo", tt.deploymentReplicas, nil, intOrStr(0), tt.maxUnavailable, newSel)
			plan := ReconcileOldReplicaSets([]*api.ReplicaSet{oldRS, newRS}, []*api.ReplicaSet{oldRS}, newRS, d)
			if !tt.scaleExpected {
				assert.Empty(t, plan)
				return
			}
			require.NotEmpty(t, plan)
			assert.Equal(t, map[string]int32{"foo-old": tt.expectedOldReplicas}, sizes(plan))
			assert.Equal(t, int32(tt.oldReplicas), *oldRS.Spec.Replicas, "the cached set is not changed")
		})
	}
}

// TestCleanupUnhealthyReplicas is rolling_test.go's
// TestDeploymentController_cleanupUnhealthyReplicas.
func TestCleanupUnhealthyReplicas(t *testing.T) {
	tests := []struct {
		name                   string
		oldReplicas, readyPods int32
		maxCleanup, want       int32
	}{
		{"capped by maxCleanup", 10, 8, 1, 1},
		{"all unhealthy", 10, 8, 3, 2},
		{"no budget", 10, 8, 0, 0},
		{"none unhealthy", 10, 10, 3, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			oldRS := rs("foo-v2", tt.oldReplicas, nil, noTimestamp)
			oldRS.Status.AvailableReplicas = tt.readyPods
			d := newDeployment("foo", 10, nil, intOrStr(2), intOrStr(2), nil)
			after, plan, total, ok := CleanupUnhealthyReplicas([]*api.ReplicaSet{oldRS}, d, tt.maxCleanup)
			require.True(t, ok)
			assert.Equal(t, tt.want, total)
			assert.Equal(t, tt.oldReplicas-tt.want, *after[0].Spec.Replicas)
			assert.Len(t, plan, map[bool]int{true: 1, false: 0}[tt.want > 0])
		})
	}
}

// TestScaleDownOldReplicaSetsForRollingUpdate is rolling_test.go's.
func TestScaleDownOldReplicaSetsForRollingUpdate(t *testing.T) {
	tests := []struct {
		name                string
		deploymentReplicas  int32
		maxUnavailable      *api.IntOrString
		readyPods           int32
		oldReplicas         int32
		scaleExpected       bool
		expectedOldReplicas int32
	}{
		{"maxUnavailable 0 resolves to 1", 10, intOrStr(0), 10, 10, true, 9},
		{"by maxUnavailable", 10, intOrStr(2), 10, 10, true, 8},
		{"no more available than the minimum", 10, intOrStr(2), 8, 10, false, 0},
		{"one above the minimum", 10, intOrStr(2), 9, 10, true, 9},
		{"nothing to scale down", 10, intOrStr(2), 0, 0, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			oldRS := rs("foo-v2", tt.oldReplicas, nil, noTimestamp)
			oldRS.Status.AvailableReplicas = tt.readyPods
			d := newDeployment("foo", tt.deploymentReplicas, nil, intOrStr(0), tt.maxUnavailable, map[string]string{"foo": "bar"})
			plan, _ := ScaleDownOldReplicaSetsForRollingUpdate([]*api.ReplicaSet{oldRS}, []*api.ReplicaSet{oldRS}, d)
			if !tt.scaleExpected {
				assert.Empty(t, plan)
				return
			}
			assert.Equal(t, map[string]int32{"foo-v2": tt.expectedOldReplicas}, sizes(plan))
		})
	}
}

// TestScale is sync_test.go's TestScale: the sets' annotations record the
// deployment as it was (oldDeployment), and ProportionalScale sizes them
// for the deployment as it is.
func TestScale(t *testing.T) {
	tests := []struct {
		name          string
		deployment    *api.Deployment
		oldDeployment *api.Deployment
		newRS         *api.ReplicaSet
		oldRSs        []*api.ReplicaSet
		want          map[string]int32
		// desiredReplicasAnnotations overrides the recorded desired
		// replicas of some sets (a failed earlier update).
		desiredReplicasAnnotations map[string]int32
	}{
		{name: "normal scaling event: 10 -> 12",
			deployment: newDeployment("foo", 12, nil, nil, nil, nil), oldDeployment: newDeployment("foo", 10, nil, nil, nil, nil),
			newRS: rs("foo-v1", 10, nil, newTimestamp), want: map[string]int32{"foo-v1": 12}},
		{name: "normal scaling event: 10 -> 5",
			deployment: newDeployment("foo", 5, nil, nil, nil, nil), oldDeployment: newDeployment("foo", 10, nil, nil, nil, nil),
			newRS: rs("foo-v1", 10, nil, newTimestamp), want: map[string]int32{"foo-v1": 5}},
		{name: "proportional scaling: 5 -> 10",
			deployment: newDeployment("foo", 10, nil, nil, nil, nil), oldDeployment: newDeployment("foo", 5, nil, nil, nil, nil),
			newRS: rs("foo-v2", 2, nil, newTimestamp), oldRSs: []*api.ReplicaSet{rs("foo-v1", 3, nil, oldTimestamp)},
			want: map[string]int32{"foo-v2": 4, "foo-v1": 6}},
		{name: "proportional scaling: 5 -> 3",
			deployment: newDeployment("foo", 3, nil, nil, nil, nil), oldDeployment: newDeployment("foo", 5, nil, nil, nil, nil),
			newRS: rs("foo-v2", 2, nil, newTimestamp), oldRSs: []*api.ReplicaSet{rs("foo-v1", 3, nil, oldTimestamp)},
			want: map[string]int32{"foo-v2": 1, "foo-v1": 2}},
		{name: "proportional scaling: 9 -> 4",
			deployment: newDeployment("foo", 4, nil, nil, nil, nil), oldDeployment: newDeployment("foo", 9, nil, nil, nil, nil),
			newRS: rs("foo-v2", 8, nil, newTimestamp), oldRSs: []*api.ReplicaSet{rs("foo-v1", 1, nil, oldTimestamp)},
			want: map[string]int32{"foo-v2": 4, "foo-v1": 0}},
		{name: "proportional scaling: 7 -> 10",
			deployment: newDeployment("foo", 10, nil, nil, nil, nil), oldDeployment: newDeployment("foo", 7, nil, nil, nil, nil),
			newRS:  rs("foo-v3", 2, nil, newTimestamp),
			oldRSs: []*api.ReplicaSet{rs("foo-v2", 3, nil, oldTimestamp), rs("foo-v1", 2, nil, olderTimestamp)},
			want:   map[string]int32{"foo-v3": 3, "foo-v2": 4, "foo-v1": 3}},
		{name: "proportional scaling: 13 -> 8",
			deployment: newDeployment("foo", 8, nil, nil, nil, nil), oldDeployment: newDeployment("foo", 13, nil, nil, nil, nil),
			newRS:  rs("foo-v3", 2, nil, newTimestamp),
			oldRSs: []*api.ReplicaSet{rs("foo-v2", 8, nil, oldTimestamp), rs("foo-v1", 3, nil, olderTimestamp)},
			want:   map[string]int32{"foo-v3": 1, "foo-v2": 5, "foo-v1": 2}},
		{name: "leftover distribution: 3 -> 4 scales up the new set",
			deployment: newDeployment("foo", 4, nil, nil, nil, nil), oldDeployment: newDeployment("foo", 3, nil, nil, nil, nil),
			newRS:  rs("foo-v3", 1, nil, newTimestamp),
			oldRSs: []*api.ReplicaSet{rs("foo-v2", 1, nil, oldTimestamp), rs("foo-v1", 1, nil, olderTimestamp)},
			want:   map[string]int32{"foo-v3": 2, "foo-v2": 1, "foo-v1": 1}},
		{name: "leftover distribution: 3 -> 2 scales down the oldest set",
			deployment: newDeployment("foo", 2, nil, nil, nil, nil), oldDeployment: newDeployment("foo", 3, nil, nil, nil, nil),
			newRS:  rs("foo-v3", 1, nil, newTimestamp),
			oldRSs: []*api.ReplicaSet{rs("foo-v2", 1, nil, oldTimestamp), rs("foo-v1", 1, nil, olderTimestamp)},
			want:   map[string]int32{"foo-v3": 1, "foo-v2": 1, "foo-v1": 0}},
		{name: "proportional scaling (no new rs): 4 -> 5",
			deployment: newDeployment("foo", 5, nil, nil, nil, nil), oldDeployment: newDeployment("foo", 4, nil, nil, nil, nil),
			oldRSs: []*api.ReplicaSet{rs("foo-v2", 2, nil, oldTimestamp), rs("foo-v1", 2, nil, olderTimestamp)},
			want:   map[string]int32{"foo-v2": 3, "foo-v1": 2}},
		{name: "proportional scaling: 6 -> 0",
			deployment: newDeployment("foo", 0, nil, nil, nil, nil), oldDeployment: newDeployment("foo", 6, nil, nil, nil, nil),
			newRS:  rs("foo-v3", 3, nil, newTimestamp),
			oldRSs: []*api.ReplicaSet{rs("foo-v2", 2, nil, oldTimestamp), rs("foo-v1", 1, nil, olderTimestamp)},
			want:   map[string]int32{"foo-v3": 0, "foo-v2": 0, "foo-v1": 0}},
		{name: "proportional scaling: 0 -> 6 scales the newest only",
			deployment: newDeployment("foo", 6, nil, nil, nil, nil), oldDeployment: newDeployment("foo", 0, nil, nil, nil, nil),
			newRS:  rs("foo-v3", 0, nil, newTimestamp),
			oldRSs: []*api.ReplicaSet{rs("foo-v2", 0, nil, oldTimestamp), rs("foo-v1", 0, nil, olderTimestamp)},
			want:   map[string]int32{"foo-v3": 6}},
		{name: "failed rs update",
			deployment: newDeployment("foo", 5, nil, nil, nil, nil), oldDeployment: newDeployment("foo", 5, nil, nil, nil, nil),
			newRS:                      rs("foo-v3", 2, nil, newTimestamp),
			oldRSs:                     []*api.ReplicaSet{rs("foo-v2", 1, nil, oldTimestamp), rs("foo-v1", 1, nil, olderTimestamp)},
			want:                       map[string]int32{"foo-v3": 2, "foo-v2": 2, "foo-v1": 1},
			desiredReplicasAnnotations: map[string]int32{"foo-v2": 3}},
		{name: "deployment with surge pods",
			deployment: newDeployment("foo", 20, nil, intOrStr(2), nil, nil), oldDeployment: newDeployment("foo", 10, nil, intOrStr(2), nil, nil),
			newRS: rs("foo-v2", 6, nil, newTimestamp), oldRSs: []*api.ReplicaSet{rs("foo-v1", 6, nil, oldTimestamp)},
			want: map[string]int32{"foo-v2": 11, "foo-v1": 11}},
		{name: "change both surge and size",
			deployment: newDeployment("foo", 50, nil, intOrStr(6), nil, nil), oldDeployment: newDeployment("foo", 10, nil, intOrStr(3), nil, nil),
			newRS: rs("foo-v2", 5, nil, newTimestamp), oldRSs: []*api.ReplicaSet{rs("foo-v1", 8, nil, oldTimestamp)},
			want: map[string]int32{"foo-v2": 22, "foo-v1": 34}},
		{name: "change both size and template",
			deployment: newDeployment("foo", 12, nil, nil, nil, nil), oldDeployment: newDeployment("foo", 10, nil, nil, nil, nil),
			oldRSs: []*api.ReplicaSet{rs("foo-v2", 7, nil, newTimestamp), rs("foo-v1", 3, nil, oldTimestamp)},
			want:   map[string]int32{"foo-v2": 8, "foo-v1": 4}},
		{name: "saturated but broken new replica set does not affect old pods",
			deployment: newDeployment("foo", 2, nil, intOrStr(1), intOrStr(1), nil), oldDeployment: newDeployment("foo", 2, nil, intOrStr(1), intOrStr(1), nil),
			newRS:  rs("foo-v2", 2, nil, newTimestamp),
			oldRSs: []*api.ReplicaSet{rs("foo-v1", 1, nil, oldTimestamp)},
			want:   map[string]int32{"foo-v2": 2, "foo-v1": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			annotate := func(set *api.ReplicaSet) {
				desired := *tt.oldDeployment.Spec.Replicas
				if v, ok := tt.desiredReplicasAnnotations[set.Metadata.Name]; ok {
					desired = v
				}
				SetReplicasAnnotations(set, desired, desired+MaxSurge(tt.oldDeployment))
			}
			if tt.newRS != nil {
				annotate(tt.newRS)
			}
			for _, o := range tt.oldRSs {
				annotate(o)
			}
			got := map[string]int32{}
			for _, s := range ProportionalScale(tt.deployment, tt.newRS, tt.oldRSs) {
				got[s.RS.Metadata.Name] = s.To
			}
			// Sets the plan leaves out keep their size.
			for _, set := range append([]*api.ReplicaSet{tt.newRS}, tt.oldRSs...) {
				if set == nil {
					continue
				}
				if _, ok := got[set.Metadata.Name]; !ok {
					if _, want := tt.want[set.Metadata.Name]; want {
						got[set.Metadata.Name] = *set.Spec.Replicas
					}
				}
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestGetProportion: upstream's getReplicaSetFraction through
// GetProportion, its caps and its fallbacks.
func TestGetProportion(t *testing.T) {
	withMax := func(size, maxReplicas int32) *api.ReplicaSet {
		set := rs("foo", size, nil, noTimestamp)
		if maxReplicas >= 0 {
			set.Metadata.Annotations = map[string]string{MaxReplicasAnnotation: itoa(maxReplicas)}
		}
		return set
	}
	d := func(replicas, statusReplicas int32) *api.Deployment {
		out := newDeployment("foo", replicas, nil, nil, nil, nil)
		out.Status.Replicas = statusReplicas
		return out
	}
	tests := []struct {
		name         string
		set          *api.ReplicaSet
		d            *api.Deployment
		toAdd, added int32
		want         int32
	}{
		{"half of the deployment doubles", withMax(5, 10), d(20, 10), 10, 0, 5},
		{"capped by what is left to add", withMax(5, 10), d(20, 10), 10, 8, 2},
		{"scaling down", withMax(5, 10), d(4, 10), -6, 0, -3},
		{"capped by what is left to remove", withMax(5, 10), d(4, 10), -6, -5, -1},
		{"to zero takes the whole set", withMax(5, 10), d(0, 10), -10, 0, -5},
		{"no annotation: the deployment's status.replicas", withMax(5, -1), d(20, 10), 10, 0, 5},
		{"no annotation, no pods: nothing", withMax(5, -1), d(20, 0), 10, 0, 0},
		{"an empty set gets nothing", withMax(0, 10), d(20, 10), 10, 0, 0},
		{"nothing to add", withMax(5, 10), d(10, 10), 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, GetProportion(tt.set, tt.d, tt.toAdd, tt.added))
		})
	}
}

func itoa(i int32) string { return api.FromInt(int(i)).String() }

// TestIsScalingEvent: a set's desired-replicas annotation that is not the
// deployment's replicas.
func TestIsScalingEvent(t *testing.T) {
	d := newDeployment("foo", 5, nil, nil, nil, nil)
	set := rs("foo-1", 3, nil, noTimestamp)
	assert.False(t, IsScalingEvent(d, []*api.ReplicaSet{set, nil}), "no annotation")
	SetReplicasAnnotations(set, 5, 5)
	assert.False(t, IsScalingEvent(d, []*api.ReplicaSet{set}))
	SetReplicasAnnotations(set, 3, 3)
	assert.True(t, IsScalingEvent(d, []*api.ReplicaSet{set}))
	idle := rs("foo-0", 0, nil, noTimestamp)
	SetReplicasAnnotations(idle, 3, 3)
	assert.False(t, IsScalingEvent(d, []*api.ReplicaSet{idle}), "inactive sets do not count")
}

// TestRevisionHistoryToDelete is sync_test.go's
// TestDeploymentController_cleanupDeployment.
func TestRevisionHistoryToDelete(t *testing.T) {
	sel := map[string]string{"foo": "bar"}
	deleting := newRSWithStatus("foo-deleting", 0, 0, sel)
	deleting.Metadata.DeletionTimestamp = &api.Time{Time: t0}
	unobserved := newRSWithStatus("foo-unobserved", 0, 0, sel)
	unobserved.Metadata.Generation = 2
	tests := []struct {
		name   string
		oldRSs []*api.ReplicaSet
		limit  int32
		want   []string
	}{
		{"keep one of three", []*api.ReplicaSet{newRSWithStatus("foo-1", 0, 0, sel), newRSWithStatus("foo-2", 0, 0, sel), newRSWithStatus("foo-3", 0, 0, sel)}, 1, []string{"foo-1", "foo-2"}},
		{"only sets at 0 with no pods", []*api.ReplicaSet{newRSWithStatus("foo-1", 0, 0, sel), newRSWithStatus("foo-2", 0, 1, sel), newRSWithStatus("foo-3", 1, 0, sel), newRSWithStatus("foo-4", 1, 1, sel)}, 0, []string{"foo-1"}},
		{"keep none", []*api.ReplicaSet{newRSWithStatus("foo-1", 0, 0, sel), newRSWithStatus("foo-2", 0, 0, sel)}, 0, []string{"foo-1", "foo-2"}},
		{"sets with pods stay", []*api.ReplicaSet{newRSWithStatus("foo-1", 1, 1, sel), newRSWithStatus("foo-2", 1, 1, sel)}, 0, nil},
		{"already being deleted", []*api.ReplicaSet{deleting}, 0, nil},
		{"size not yet observed", []*api.ReplicaSet{unobserved}, 0, nil},
		{"unlimited", []*api.ReplicaSet{newRSWithStatus("foo-1", 0, 0, sel), newRSWithStatus("foo-2", 0, 0, sel)}, math.MaxInt32, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDeployment("foo", 1, &tt.limit, nil, nil, sel)
			var got []string
			for _, set := range RevisionHistoryToDelete(tt.oldRSs, d) {
				got = append(got, set.Metadata.Name)
			}
			assert.Equal(t, tt.want, got)
		})
	}
	t.Run("oldest revision first", func(t *testing.T) { // TestDeploymentController_cleanupDeploymentOrder
		a, b, c := newRSWithStatus("a", 0, 0, sel), newRSWithStatus("b", 0, 0, sel), newRSWithStatus("c", 0, 0, sel)
		a.Metadata.Annotations = map[string]string{RevisionAnnotation: "3"}
		b.Metadata.Annotations = map[string]string{RevisionAnnotation: "1"}
		c.Metadata.Annotations = map[string]string{RevisionAnnotation: "2"}
		got := RevisionHistoryToDelete([]*api.ReplicaSet{a, b, c}, newDeployment("foo", 1, i32(1), nil, nil, sel))
		require.Len(t, got, 2)
		assert.Equal(t, "b", got[0].Metadata.Name)
		assert.Equal(t, "c", got[1].Metadata.Name)
	})
}

// TestOldPodsRunning is recreate_test.go's.
func TestOldPodsRunning(t *testing.T) {
	pod := func(phase api.PodPhase) *api.Pod { return &api.Pod{Status: api.PodStatus{Phase: phase}} }
	withUID := func(uid string) *api.ReplicaSet { return rs(uid, 0, nil, noTimestamp) }
	tests := []struct {
		name   string
		newRS  *api.ReplicaSet
		oldRSs []*api.ReplicaSet
		podMap map[api.UID][]*api.Pod
		want   bool
	}{
		{name: "no old RSs"},
		{name: "old RSs with running pods", oldRSs: []*api.ReplicaSet{withUID("some-uid"), withUID("other-uid")},
			podMap: map[api.UID][]*api.Pod{"some-uid": {pod(api.PodRunning)}, "other-uid": {pod(api.PodRunning)}}, want: true},
		{name: "old RSs without pods but with non-zero status replicas", oldRSs: []*api.ReplicaSet{newRSWithStatus("rs-1", 0, 1, nil)}, want: true},
		{name: "old RSs without pods or non-zero status replicas", oldRSs: []*api.ReplicaSet{newRSWithStatus("rs-1", 0, 0, nil)}},
		{name: "pods in terminal state", oldRSs: []*api.ReplicaSet{newRSWithStatus("rs-1", 0, 0, nil)},
			podMap: map[api.UID][]*api.Pod{"uid-1": {pod(api.PodFailed), pod(api.PodSucceeded)}}},
		{name: "pod in unknown phase", oldRSs: []*api.ReplicaSet{newRSWithStatus("rs-1", 0, 0, nil)},
			podMap: map[api.UID][]*api.Pod{"uid-1": {pod(api.PodUnknown)}}, want: true},
		{name: "pending pod", oldRSs: []*api.ReplicaSet{newRSWithStatus("rs-1", 0, 0, nil)},
			podMap: map[api.UID][]*api.Pod{"uid-1": {pod(api.PodPending)}}, want: true},
		{name: "terminal and pending pods", oldRSs: []*api.ReplicaSet{newRSWithStatus("rs-1", 0, 0, nil)},
			podMap: map[api.UID][]*api.Pod{"uid-1": {pod(api.PodFailed), pod(api.PodSucceeded), pod(api.PodPending)}}, want: true},
		{name: "the new set's pods do not count", newRS: withUID("new"),
			podMap: map[api.UID][]*api.Pod{"new": {pod(api.PodRunning)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, OldPodsRunning(tt.newRS, tt.oldRSs, tt.podMap))
		})
	}
}

// TestScaleDownOldReplicaSets is recreate_test.go's: every active old set
// goes to 0.
func TestScaleDownForRecreate(t *testing.T) {
	plan := ScaleDownForRecreate(FilterActive([]*api.ReplicaSet{rs("a", 3, nil, noTimestamp), rs("b", 0, nil, noTimestamp)}))
	require.Len(t, plan, 1)
	assert.Equal(t, Scale{RS: plan[0].RS, To: 0, Op: "down"}, plan[0])
	assert.Equal(t, "a", plan[0].RS.Metadata.Name)
}

// progressDeployment is progress_test.go's currentDeployment.
func progressDeployment(pds *int32, replicas, statusReplicas, updated, available int32, conds []api.DeploymentCondition) *api.Deployment {
	d := newDeployment("progress-test", replicas, nil, nil, nil, nil)
	d.Spec.ProgressDeadlineSeconds = pds
	d.Status = api.DeploymentStatus{Replicas: statusReplicas, UpdatedReplicas: updated, ReadyReplicas: available, AvailableReplicas: available, Conditions: conds}
	return d
}

func progressStatus(replicas, updated, available int32) api.DeploymentStatus {
	return api.DeploymentStatus{Replicas: replicas, UpdatedReplicas: updated, AvailableReplicas: available}
}

// TestRequeueStuckDeployment is progress_test.go's.
func TestRequeueStuckDeployment(t *testing.T) {
	pds, infinite := int32(60), int32(math.MaxInt32)
	last := time.Date(2017, 2, 15, 18, 49, 0, 0, time.UTC)
	failed := []api.DeploymentCondition{{Type: api.DeploymentProgressing, Reason: TimedOutReason}}
	stuck := []api.DeploymentCondition{{Type: api.DeploymentProgressing, LastUpdateTime: api.NewTime(last)}}
	tests := []struct {
		name   string
		d      *api.Deployment
		status api.DeploymentStatus
		now    time.Time
		want   time.Duration
	}{
		{"nil progressDeadlineSeconds specified", progressDeployment(nil, 4, 3, 3, 2, nil), progressStatus(3, 3, 2), last, -1},
		{"infinite progressDeadlineSeconds specified", progressDeployment(&infinite, 4, 3, 3, 2, nil), progressStatus(3, 3, 2), last, -1},
		{"no progressing condition found", progressDeployment(&pds, 4, 3, 3, 2, nil), progressStatus(3, 3, 2), last, -1},
		{"complete deployment does not need to be requeued", progressDeployment(&pds, 3, 3, 3, 3, stuck), progressStatus(3, 3, 3), last, -1},
		{"already failed deployment does not need to be requeued", progressDeployment(&pds, 3, 3, 3, 0, failed), progressStatus(3, 3, 0), last, -1},
		{"stuck deployment - 30s", progressDeployment(&pds, 3, 3, 3, 1, stuck), progressStatus(3, 3, 1), last.Add(30 * time.Second), 30 * time.Second},
		{"stuck deployment - 1s", progressDeployment(&pds, 3, 3, 3, 1, stuck), progressStatus(3, 3, 1), last.Add(59 * time.Second), time.Second},
		{"failed deployment - less than a second => now", progressDeployment(&pds, 3, 3, 3, 1, stuck), progressStatus(3, 3, 1), last.Add(59*time.Second + 1), 0},
		{"failed deployment - now", progressDeployment(&pds, 3, 3, 3, 1, stuck), progressStatus(3, 3, 1), last.Add(60 * time.Second), 0},
		{"failed deployment - 1s after deadline", progressDeployment(&pds, 3, 3, 3, 1, stuck), progressStatus(3, 3, 1), last.Add(61 * time.Second), 0},
		{"failed deployment - 60s after deadline", progressDeployment(&pds, 3, 3, 3, 1, stuck), progressStatus(3, 3, 1), last.Add(120 * time.Second), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, RequeueAfter(tt.d, tt.status, tt.now))
		})
	}
}

// TestRolloutStatus is progress_test.go's TestSyncRolloutStatus.
func TestRolloutStatus(t *testing.T) {
	pds := int32(60)
	now := time.Date(2017, 2, 15, 18, 49, 0, 0, time.UTC)
	earlier := now.Add(-30 * time.Second)
	timedOutAgo := now.Add(-2 * time.Minute)
	cond := func(reason string, status api.ConditionStatus, at time.Time) api.DeploymentCondition {
		return api.DeploymentCondition{Type: api.DeploymentProgressing, Status: status, Reason: reason,
			LastUpdateTime: api.NewTime(at), LastTransitionTime: api.NewTime(at)}
	}
	available := func(set *api.ReplicaSet, replicas, avail int32) *api.ReplicaSet {
		set.Status.Replicas, set.Status.AvailableReplicas, set.Status.ReadyReplicas = replicas, avail, avail
		return set
	}
	tests := []struct {
		name       string
		d          *api.Deployment
		allRSs     []*api.ReplicaSet
		newRS      *api.ReplicaSet
		wantReason string
		wantStatus api.ConditionStatus
		wantMsg    string
		// wantTransition is the Progressing condition's transition time.
		wantTransition time.Time
	}{
		{name: "General: remove Progressing condition and do not estimate progress if deployment has no Progress Deadline",
			d:     progressDeployment(nil, 3, 2, 2, 1, []api.DeploymentCondition{cond(ReplicaSetUpdatedReason, api.ConditionTrue, earlier)}),
			newRS: available(rs("bar", 3, nil, noTimestamp), 2, 1)},
		{name: "General: do not estimate progress of deployment with only one active ReplicaSet",
			d:          progressDeployment(&pds, 3, 3, 3, 3, []api.DeploymentCondition{cond(NewRSAvailableReason, api.ConditionTrue, earlier)}),
			newRS:      available(rs("bar", 3, nil, noTimestamp), 3, 3),
			wantReason: NewRSAvailableReason, wantStatus: api.ConditionTrue, wantMsg: "", wantTransition: earlier},
		{name: "DeploymentProgressing: dont update lastTransitionTime if deployment already has Progressing=True",
			d:          progressDeployment(&pds, 3, 2, 2, 1, []api.DeploymentCondition{cond(ReplicaSetUpdatedReason, api.ConditionTrue, earlier)}),
			newRS:      available(rs("bar", 3, nil, noTimestamp), 3, 2),
			wantReason: ReplicaSetUpdatedReason, wantStatus: api.ConditionTrue, wantMsg: `ReplicaSet "bar" is progressing.`, wantTransition: earlier},
		{name: "DeploymentProgressing: update everything if deployment has Progressing=False",
			d:          progressDeployment(&pds, 3, 2, 2, 1, []api.DeploymentCondition{cond(TimedOutReason, api.ConditionFalse, earlier)}),
			newRS:      available(rs("bar", 3, nil, noTimestamp), 3, 2),
			wantReason: ReplicaSetUpdatedReason, wantStatus: api.ConditionTrue, wantMsg: `ReplicaSet "bar" is progressing.`, wantTransition: now},
		{name: "DeploymentProgressing: create Progressing condition if it does not exist",
			d:          progressDeployment(&pds, 3, 2, 2, 1, nil),
			newRS:      available(rs("bar", 3, nil, noTimestamp), 3, 2),
			wantReason: ReplicaSetUpdatedReason, wantStatus: api.ConditionTrue, wantMsg: `ReplicaSet "bar" is progressing.`, wantTransition: now},
		{name: "DeploymentComplete: dont update lastTransitionTime if deployment already has Progressing=True",
			d:          progressDeployment(&pds, 3, 2, 2, 2, []api.DeploymentCondition{cond(ReplicaSetUpdatedReason, api.ConditionTrue, earlier)}),
			newRS:      available(rs("bar", 3, nil, noTimestamp), 3, 3),
			wantReason: NewRSAvailableReason, wantStatus: api.ConditionTrue, wantMsg: `ReplicaSet "bar" has successfully progressed.`, wantTransition: earlier},
		{name: "DeploymentComplete: update status if all replicas are available and deployment has no new RS",
			d:          progressDeployment(&pds, 0, 0, 0, 0, []api.DeploymentCondition{cond(ReplicaSetUpdatedReason, api.ConditionTrue, earlier)}),
			wantReason: NewRSAvailableReason, wantStatus: api.ConditionTrue, wantMsg: `Deployment "progress-test" has successfully progressed.`, wantTransition: earlier},
		{name: "DeploymentTimedOut: update status if rollout exceeds Progress Deadline",
			d:          progressDeployment(&pds, 3, 2, 2, 2, []api.DeploymentCondition{cond(ReplicaSetUpdatedReason, api.ConditionTrue, timedOutAgo)}),
			newRS:      available(rs("bar", 3, nil, noTimestamp), 2, 2),
			wantReason: TimedOutReason, wantStatus: api.ConditionFalse, wantMsg: `ReplicaSet "bar" has timed out progressing.`, wantTransition: now},
		{name: "DeploymentTimedOut: do not update status if deployment has existing timedOut condition",
			d:          progressDeployment(&pds, 3, 2, 2, 2, []api.DeploymentCondition{cond(TimedOutReason, api.ConditionFalse, earlier)}),
			newRS:      available(rs("bar", 3, nil, noTimestamp), 2, 2),
			wantReason: TimedOutReason, wantStatus: api.ConditionFalse, wantMsg: "", wantTransition: earlier},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			all := tt.allRSs
			if tt.newRS != nil {
				all = append(all, tt.newRS)
			}
			status := RolloutStatus(all, tt.newRS, tt.d, now)
			got := GetCondition(status, api.DeploymentProgressing)
			if tt.wantReason == "" {
				assert.Nil(t, got)
				return
			}
			require.NotNil(t, got)
			assert.Equal(t, tt.wantReason, got.Reason)
			assert.Equal(t, tt.wantStatus, got.Status)
			assert.Equal(t, tt.wantMsg, got.Message)
			assert.Equal(t, api.NewTime(tt.wantTransition), got.LastTransitionTime)
		})
	}
}

// TestCalculateStatus is sync_test.go's TestSyncDeploymentStatus (its
// status half): counts from the sets, Available from replicas −
// maxUnavailable.
func TestCalculateStatus(t *testing.T) {
	set := func(name string, spec, replicas, ready, avail int32) *api.ReplicaSet {
		out := rs(name, spec, nil, noTimestamp)
		out.Status = api.ReplicaSetStatus{Replicas: replicas, ReadyReplicas: ready, AvailableReplicas: avail}
		return out
	}
	tests := []struct {
		name    string
		d       *api.Deployment
		newRS   *api.ReplicaSet
		old     []*api.ReplicaSet
		want    api.DeploymentStatus
		wantAvl api.ConditionStatus
	}{
		{"mid-rollout", newDeployment("foo", 3, nil, intOrStr(1), intOrStr(1), nil), set("new", 2, 2, 1, 1),
			[]*api.ReplicaSet{set("old", 2, 2, 2, 2)},
			api.DeploymentStatus{Replicas: 4, UpdatedReplicas: 2, ReadyReplicas: 3, AvailableReplicas: 3, UnavailableReplicas: 1}, api.ConditionTrue},
		{"below the minimum", newDeployment("foo", 3, nil, intOrStr(1), intOrStr(1), nil), set("new", 3, 3, 1, 1), nil,
			api.DeploymentStatus{Replicas: 3, UpdatedReplicas: 3, ReadyReplicas: 1, AvailableReplicas: 1, UnavailableReplicas: 2}, api.ConditionFalse},
		{"more available than wanted: no negative unavailable", newDeployment("foo", 1, nil, intOrStr(1), intOrStr(1), nil), set("new", 1, 3, 3, 3), nil,
			api.DeploymentStatus{Replicas: 3, UpdatedReplicas: 3, ReadyReplicas: 3, AvailableReplicas: 3}, api.ConditionTrue},
		{"no new set", newDeployment("foo", 2, nil, intOrStr(1), intOrStr(0), nil), nil, []*api.ReplicaSet{set("old", 2, 2, 2, 2)},
			api.DeploymentStatus{Replicas: 2, ReadyReplicas: 2, AvailableReplicas: 2}, api.ConditionTrue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.d.Metadata.Generation = 4
			got := CalculateStatus(append(tt.old, tt.newRS), tt.newRS, tt.d, t0)
			avail := GetCondition(got, api.DeploymentAvailable)
			require.NotNil(t, avail)
			assert.Equal(t, tt.wantAvl, avail.Status)
			got.Conditions = nil
			tt.want.ObservedGeneration = 4
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestPausedCondition is checkPausedConditions' decision.
func TestPausedCondition(t *testing.T) {
	pds := int32(60)
	d := progressDeployment(&pds, 1, 1, 1, 1, nil)
	d.Spec.Paused = true
	c, ok := PausedCondition(d, t0)
	require.True(t, ok)
	assert.Equal(t, PausedDeployReason, c.Reason)
	assert.Equal(t, api.ConditionUnknown, c.Status)
	d.Status.Conditions = []api.DeploymentCondition{c}
	_, ok = PausedCondition(d, t0)
	assert.False(t, ok, "already paused")
	d.Spec.Paused = false
	c, ok = PausedCondition(d, t0)
	require.True(t, ok)
	assert.Equal(t, ResumedDeployReason, c.Reason)
	d.Status.Conditions = []api.DeploymentCondition{{Type: api.DeploymentProgressing, Reason: TimedOutReason}}
	d.Spec.Paused = true
	_, ok = PausedCondition(d, t0)
	assert.False(t, ok, "a timeout is not overwritten")
}
