package deployment

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
)

// TestResolveFenceposts is upstream's (deployment_util_test.go).
func TestResolveFenceposts(t *testing.T) {
	tests := []struct {
		name                       string
		maxSurge, maxUnavailable   *api.IntOrString
		desired                    int32
		wantSurge, wantUnavailable int32
		wantErr                    bool
	}{
		{"both 0% of 0", pct("0%"), pct("0%"), 0, 0, 1, false},
		{"39% of 10", pct("39%"), pct("39%"), 10, 4, 3, false},
		{"bad surge", pct("oops"), pct("39%"), 10, 0, 0, true},
		{"bad unavailable", pct("55%"), pct("urg"), 10, 0, 0, true},
		{"no surge", nil, pct("39%"), 10, 0, 3, false},
		{"no unavailable", pct("39%"), nil, 10, 4, 0, false},
		{"neither", nil, nil, 10, 0, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, u, err := ResolveFenceposts(tt.maxSurge, tt.maxUnavailable, tt.desired)
			if tt.wantErr {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantSurge, s, "surge")
			assert.Equal(t, tt.wantUnavailable, u, "unavailable")
		})
	}
}

// TestMaxUnavailable is upstream's.
func TestMaxUnavailable(t *testing.T) {
	deployment := func(replicas int32, maxUnavailable *api.IntOrString) *api.Deployment {
		d := newDeployment("foo", replicas, nil, intOrStr(1), maxUnavailable, nil)
		return d
	}
	tests := []struct {
		name string
		d    *api.Deployment
		want int32
	}{
		{"less than replicas", deployment(10, intOrStr(5)), 5},
		{"equal replicas", deployment(10, intOrStr(10)), 10},
		{"greater than replicas", deployment(5, intOrStr(10)), 5},
		{"replicas is 0", deployment(0, intOrStr(10)), 0},
		{"Recreate", &api.Deployment{Spec: api.DeploymentSpec{Strategy: api.DeploymentStrategy{Type: api.RecreateDeploymentStrategyType}}}, 0},
		{"less than replicas with percents", deployment(10, pct("50%")), 5},
		{"equal replicas with percents", deployment(10, pct("100%")), 10},
		{"greater than replicas with percents", deployment(5, pct("100%")), 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, MaxUnavailable(tt.d))
		})
	}
}

// TestMaxSurge: rounded up, 0 for Recreate.
func TestMaxSurge(t *testing.T) {
	tests := []struct {
		name string
		d    *api.Deployment
		want int32
	}{
		{"25% of 10 rounds up", newDeployment("foo", 10, nil, pct("25%"), pct("25%"), nil), 3},
		{"an integer", newDeployment("foo", 10, nil, intOrStr(4), nil, nil), 4},
		{"above replicas", newDeployment("foo", 1, nil, pct("200%"), nil, nil), 2},
		{"Recreate", &api.Deployment{Spec: api.DeploymentSpec{Strategy: api.DeploymentStrategy{Type: api.RecreateDeploymentStrategyType}}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, MaxSurge(tt.d))
		})
	}
}

// TestNewRSNewReplicas is upstream's.
func TestNewRSNewReplicas(t *testing.T) {
	tests := []struct {
		name                       string
		strategy                   string
		depReplicas, newRSReplicas int32
		maxSurge                   int
		want                       int32
	}{
		{"can not scale up - to newRSReplicas", api.RollingUpdateDeploymentStrategyType, 1, 5, 1, 5},
		{"scale up - to depReplicas", api.RollingUpdateDeploymentStrategyType, 6, 2, 10, 6},
		{"recreate - to depReplicas", api.RecreateDeploymentStrategyType, 3, 1, 1, 3},
	}
	rs5 := rs("rs5", 5, nil, noTimestamp)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDeployment("nginx", tt.depReplicas, nil, intOrStr(tt.maxSurge), intOrStr(1), nil)
			d.Spec.Strategy.Type = tt.strategy
			newRS := rs("new", tt.newRSReplicas, nil, noTimestamp)
			got, err := NewRSNewReplicas(d, []*api.ReplicaSet{rs5}, newRS)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// template returns a pod template with the given container name and
// pod-template-hash ("" for none).
func template(container, hash string) api.PodTemplateSpec {
	labels := map[string]string{"name": "nginx"}
	if hash != "" {
		labels[PodTemplateHashLabel] = hash
	}
	return api.PodTemplateSpec{
		Metadata: api.ObjectMeta{Labels: labels},
		Spec:     api.PodSpec{Containers: []api.Container{{Name: container, Image: "nginx"}}},
	}
}

// TestEqualIgnoreHash is upstream's.
func TestEqualIgnoreHash(t *testing.T) {
	tests := []struct {
		name string
		a, b api.PodTemplateSpec
		want bool
	}{
		{"same template, different hash", template("a", "1"), template("a", "2"), true},
		{"same template, one without hash", template("a", "1"), template("a", ""), true},
		{"both without hash", template("a", ""), template("a", ""), true},
		{"different templates, same hash", template("a", "1"), template("b", "1"), false},
		{"different templates, one without hash", template("a", ""), template("b", "1"), false},
		{"different labels", template("a", "1"), func() api.PodTemplateSpec {
			t := template("a", "1")
			t.Metadata.Labels["extra"] = "x"
			return t
		}(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := tt.a, tt.b
			assert.Equal(t, tt.want, EqualIgnoreHash(&a, &b))
			assert.Equal(t, tt.want, EqualIgnoreHash(&b, &a), "symmetric")
			assert.Equal(t, "a", a.Spec.Containers[0].Name[:1], "inputs unchanged")
		})
	}
}

// TestFindNewReplicaSet and TestFindOldReplicaSets are upstream's.
func TestFindNewAndOldReplicaSets(t *testing.T) {
	d := newDeployment("nginx", 1, nil, nil, nil, map[string]string{"name": "nginx"})
	d.Spec.Template = template("nginx", "")
	newRS := rs("new", 1, nil, oldTimestamp.Add(time.Minute))
	newRS.Spec.Template = template("nginx", "hash")
	newRSDup := rs("new-dup", 1, nil, oldTimestamp)
	newRSDup.Spec.Template = template("nginx", "different-hash")
	oldRS := rs("old", 1, nil, olderTimestamp)
	oldRS.Spec.Template = template("nginx-old-1", "old")
	oldIdle := rs("old-idle", 0, nil, olderTimestamp)
	oldIdle.Spec.Template = template("nginx-old-2", "idle")

	tests := []struct {
		name                string
		rss                 []*api.ReplicaSet
		wantNew             *api.ReplicaSet
		wantOld, wantAllOld []*api.ReplicaSet
	}{
		{"same template, other hash", []*api.ReplicaSet{newRS, oldRS}, newRS, []*api.ReplicaSet{oldRS}, []*api.ReplicaSet{oldRS}},
		{"the oldest of two with the template", []*api.ReplicaSet{newRS, oldRS, newRSDup}, newRSDup,
			[]*api.ReplicaSet{newRS, oldRS}, []*api.ReplicaSet{newRS, oldRS}},
		{"none", []*api.ReplicaSet{oldRS}, nil, []*api.ReplicaSet{oldRS}, []*api.ReplicaSet{oldRS}},
		{"an old set at 0 is old but has no pods", []*api.ReplicaSet{newRS, oldRS, oldIdle}, newRS,
			[]*api.ReplicaSet{oldRS}, []*api.ReplicaSet{oldRS, oldIdle}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.wantNew, FindNewReplicaSet(d, tt.rss))
			withPods, all := FindOldReplicaSets(d, tt.rss)
			assert.Equal(t, tt.wantOld, withPods)
			assert.Equal(t, tt.wantAllOld, all)
		})
	}
}

// TestDeploymentComplete is upstream's.
func TestDeploymentComplete(t *testing.T) {
	deployment := func(desired, current, updated, available, maxUnavailable, maxSurge int32) *api.Deployment {
		d := newDeployment("foo", desired, nil, intOrStr(int(maxSurge)), intOrStr(int(maxUnavailable)), nil)
		d.Status = api.DeploymentStatus{Replicas: current, UpdatedReplicas: updated, AvailableReplicas: available}
		return d
	}
	tests := []struct {
		name string
		d    *api.Deployment
		want bool
	}{
		{"not complete: min but not all pods become available", deployment(5, 5, 5, 4, 1, 0), false},
		{"not complete: min availability is not honored", deployment(5, 5, 5, 3, 1, 0), false},
		{"complete", deployment(5, 5, 5, 5, 0, 0), true},
		{"not complete: all pods are available but not updated", deployment(5, 5, 4, 5, 0, 0), false},
		{"not complete: still running old pods", deployment(1, 2, 1, 1, 0, 1), false},
		{"not complete: one replica deployment never comes up", deployment(1, 1, 1, 0, 1, 1), false},
		{"not complete: generation not observed", func() *api.Deployment {
			d := deployment(5, 5, 5, 5, 0, 0)
			d.Metadata.Generation = 2
			d.Status.ObservedGeneration = 1
			return d
		}(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, DeploymentComplete(tt.d, &tt.d.Status))
		})
	}
}

// TestDeploymentProgressing is upstream's.
func TestDeploymentProgressing(t *testing.T) {
	status := func(current, updated, ready, available int32) api.DeploymentStatus {
		return api.DeploymentStatus{Replicas: current, UpdatedReplicas: updated, ReadyReplicas: ready, AvailableReplicas: available}
	}
	deployment := func(current, updated, ready, available int32) *api.Deployment {
		return &api.Deployment{Status: status(current, updated, ready, available)}
	}
	tests := []struct {
		name      string
		d         *api.Deployment
		newStatus api.DeploymentStatus
		want      bool
	}{
		{"progressing: updated pods", deployment(10, 4, 4, 4), status(10, 6, 4, 4), true},
		{"not progressing", deployment(10, 4, 4, 4), status(10, 4, 4, 4), false},
		{"progressing: old pods removed", deployment(10, 4, 6, 6), status(8, 4, 6, 6), true},
		{"not progressing: less new pods", deployment(10, 7, 3, 3), status(10, 6, 3, 3), false},
		{"progressing: less overall but more new pods", deployment(10, 4, 7, 7), status(8, 8, 5, 5), true},
		{"progressing: more ready pods", deployment(10, 10, 9, 8), status(10, 10, 10, 8), true},
		{"progressing: more available pods", deployment(10, 10, 10, 9), status(10, 10, 10, 10), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, DeploymentProgressing(tt.d, &tt.newStatus))
		})
	}
}

// TestDeploymentTimedOut is upstream's, on an injected now.
func TestDeploymentTimedOut(t *testing.T) {
	at := func(min, sec int) time.Time { return time.Date(2016, 1, 1, 0, min, sec, 0, time.UTC) }
	ten, infinite := int32(10), int32(math.MaxInt32)
	deployment := func(reason string, pds *int32, from time.Time) *api.Deployment {
		return &api.Deployment{
			Spec: api.DeploymentSpec{ProgressDeadlineSeconds: pds},
			Status: api.DeploymentStatus{Conditions: []api.DeploymentCondition{{
				Type: api.DeploymentProgressing, Status: api.ConditionTrue, Reason: reason, LastUpdateTime: api.NewTime(from),
			}}},
		}
	}
	tests := []struct {
		name string
		d    *api.Deployment
		now  time.Time
		want bool
	}{
		{"nil progressDeadlineSeconds - no timeout", deployment("", nil, at(1, 9)), at(1, 20), false},
		{"infinite progressDeadlineSeconds - no timeout", deployment("", &infinite, at(1, 9)), at(1, 20), false},
		{"10s deadline, 11s since", deployment("", &ten, at(1, 9)), at(1, 20), true},
		{"10s deadline, 9s since", deployment("", &ten, at(1, 11)), at(1, 20), false},
		{"10s deadline, exactly 10s since", deployment("", &ten, at(1, 10)), at(1, 20), false},
		{"previous status was a complete deployment", deployment(NewRSAvailableReason, &ten, time.Time{}), at(1, 20), false},
		{"timed out already", deployment(TimedOutReason, &ten, at(1, 19)), at(1, 20), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, DeploymentTimedOut(tt.d, &tt.d.Status, tt.now))
		})
	}
}

// TestAnnotationUtils is upstream's: revisions 11 to 20 in turn, the
// history bounded to 5 characters.
func TestAnnotationUtils(t *testing.T) {
	d := newDeployment("nginx", 1, nil, nil, nil, nil)
	d.Metadata.Annotations[RevisionAnnotation] = "1"
	set := rs("nginx-abc", 1, nil, noTimestamp)
	for i := 10; i < 20; i++ {
		next := fmt.Sprintf("%d", i+1)
		setNewReplicaSetAnnotations(d, set, next, true, 5)
		if i >= 12 {
			assert.Equal(t, fmt.Sprintf("%d,%d", i-1, i), set.Metadata.Annotations[RevisionHistoryAnnotation], "history at %d", i)
		}
		assert.Equal(t, next, set.Metadata.Annotations[RevisionAnnotation])
	}

	t.Run("the deployment's annotations are copied but the skipped ones", func(t *testing.T) {
		d := newDeployment("nginx", 3, nil, intOrStr(1), nil, nil)
		d.Metadata.Annotations = map[string]string{
			"team": "web", RevisionAnnotation: "7", LastAppliedConfigAnnotation: "{}",
			DesiredReplicasAnnotation: "9", MaxReplicasAnnotation: "9", RevisionHistoryAnnotation: "1,2",
		}
		set := rs("nginx-abc", 0, nil, noTimestamp)
		assert.True(t, SetNewReplicaSetAnnotations(d, set, "3", false))
		assert.Equal(t, map[string]string{
			"team": "web", RevisionAnnotation: "3", DesiredReplicasAnnotation: "3", MaxReplicasAnnotation: "4",
		}, set.Metadata.Annotations)
		assert.False(t, SetNewReplicaSetAnnotations(d, set, "3", true), "nothing more to change")
		assert.False(t, SetNewReplicaSetAnnotations(d, set, "2", true), "a revision never falls")
		assert.Equal(t, "3", set.Metadata.Annotations[RevisionAnnotation])
	})
	t.Run("a rollback keeps the old revision in the history", func(t *testing.T) {
		set := rs("nginx-abc", 0, nil, noTimestamp)
		set.Metadata.Annotations = map[string]string{RevisionAnnotation: "1"}
		assert.True(t, SetNewReplicaSetAnnotations(newDeployment("nginx", 1, nil, nil, nil, nil), set, "4", true))
		assert.Equal(t, "4", set.Metadata.Annotations[RevisionAnnotation])
		assert.Equal(t, "1", set.Metadata.Annotations[RevisionHistoryAnnotation])
	})
	t.Run("revisions", func(t *testing.T) {
		a, b, c := rs("a", 0, nil, noTimestamp), rs("b", 0, nil, noTimestamp), rs("c", 0, nil, noTimestamp)
		a.Metadata.Annotations = map[string]string{RevisionAnnotation: "3"}
		b.Metadata.Annotations = map[string]string{RevisionAnnotation: "5"}
		c.Metadata.Annotations = map[string]string{RevisionAnnotation: "bad"}
		all := []*api.ReplicaSet{a, b, c}
		assert.Equal(t, int64(5), MaxRevision(all))
		assert.Equal(t, int64(3), LastRevision(all))
		assert.True(t, SetDeploymentRevision(d, "5"))
		assert.False(t, SetDeploymentRevision(d, "5"))
	})
}

// TestReplicaSetAnnotationsNeedUpdate and upstream's IsSaturated cases.
func TestReplicasAnnotations(t *testing.T) {
	set := rs("hello", 3, nil, noTimestamp)
	assert.True(t, ReplicasAnnotationsNeedUpdate(set, 10, 12), "no annotations")
	assert.True(t, SetReplicasAnnotations(set, 10, 12))
	assert.False(t, ReplicasAnnotationsNeedUpdate(set, 10, 12))
	assert.True(t, ReplicasAnnotationsNeedUpdate(set, 10, 13))
	assert.False(t, SetReplicasAnnotations(set, 10, 12))
	got, ok := DesiredReplicasOf(set)
	assert.True(t, ok)
	assert.Equal(t, int32(10), got)

	d := newDeployment("foo", 3, nil, nil, nil, nil)
	saturated := rs("foo-1", 3, nil, noTimestamp)
	SetReplicasAnnotations(saturated, 3, 3)
	saturated.Status.AvailableReplicas = 3
	assert.True(t, IsSaturated(d, saturated))
	notAvailable := saturated.DeepCopy()
	notAvailable.Status.AvailableReplicas = 2
	assert.False(t, IsSaturated(d, notAvailable))
	otherDesired := saturated.DeepCopy()
	SetReplicasAnnotations(otherDesired, 4, 4)
	assert.False(t, IsSaturated(d, otherDesired))
	assert.False(t, IsSaturated(d, nil))
}

// TestReplicaCounts is upstream's TestGetReplicaCountForReplicaSets and
// TestGetAvailableReplicaCountForReplicaSets.
func TestReplicaCounts(t *testing.T) {
	a := newRSWithStatus("a", 1, 1, nil)
	a.Status.AvailableReplicas, a.Status.ReadyReplicas = 1, 1
	b := newRSWithStatus("b", 2, 3, nil)
	b.Status.AvailableReplicas, b.Status.ReadyReplicas = 3, 2
	tests := []struct {
		name                           string
		sets                           []*api.ReplicaSet
		spec, actual, ready, available int32
	}{
		{"1:2 Replicas", []*api.ReplicaSet{a}, 1, 1, 1, 1},
		{"3:5 Replicas", []*api.ReplicaSet{a, b}, 3, 4, 3, 4},
		{"a nil set counts nothing", []*api.ReplicaSet{a, nil}, 1, 1, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.spec, ReplicaCount(tt.sets))
			assert.Equal(t, tt.actual, ActualReplicaCount(tt.sets))
			assert.Equal(t, tt.ready, ReadyReplicaCount(tt.sets))
			assert.Equal(t, tt.available, AvailableReplicaCount(tt.sets))
		})
	}
}

// TestComputeHash: the hash is a function of the template and the
// collision count alone (upstream's hash_test.go checks its own strings,
// which miniplane's hash does not reproduce).
func TestComputeHash(t *testing.T) {
	a, b := template("nginx", ""), template("nginx", "")
	other := template("apache", "")
	one := int32(1)
	h := ComputeHash(&a, nil)
	assert.Equal(t, h, ComputeHash(&b, nil), "equal templates, equal hashes")
	assert.NotEqual(t, h, ComputeHash(&other, nil))
	assert.NotEqual(t, h, ComputeHash(&a, &one), "the collision count changes it")
	assert.Regexp(t, "^["+safeEncodeAlphabet+"]+$", h)
}

// TestSetDeploymentCondition is upstream's Set/Remove condition tests.
func TestSetDeploymentCondition(t *testing.T) {
	t1, t2 := t0, t0.Add(time.Minute)
	st := api.DeploymentStatus{}
	SetCondition(&st, NewCondition(api.DeploymentProgressing, api.ConditionTrue, FoundNewRSReason, "found", t1))
	require.Len(t, st.Conditions, 1)
	SetCondition(&st, NewCondition(api.DeploymentProgressing, api.ConditionTrue, FoundNewRSReason, "again", t2))
	assert.Equal(t, "found", st.Conditions[0].Message, "same status and reason: unchanged")
	SetCondition(&st, NewCondition(api.DeploymentProgressing, api.ConditionTrue, ReplicaSetUpdatedReason, "moved", t2))
	assert.Equal(t, api.NewTime(t1), st.Conditions[0].LastTransitionTime, "same status: transition time kept")
	assert.Equal(t, api.NewTime(t2), st.Conditions[0].LastUpdateTime)
	SetCondition(&st, NewCondition(api.DeploymentAvailable, api.ConditionFalse, MinimumReplicasUnavailable, "no", t2))
	require.Len(t, st.Conditions, 2)
	RemoveCondition(&st, api.DeploymentProgressing)
	require.Len(t, st.Conditions, 1)
	assert.Equal(t, api.DeploymentAvailable, st.Conditions[0].Type)
	assert.Nil(t, GetCondition(st, api.DeploymentProgressing))
}
