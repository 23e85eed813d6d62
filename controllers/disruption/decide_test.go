package disruption

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func intOr(i int32) *api.IntOrString { return &api.IntOrString{Type: api.Int, IntVal: i} }
func pct(s string) *api.IntOrString  { return &api.IntOrString{Type: api.String, StrVal: s} }
func budget(mut func(*api.PodDisruptionBudgetSpec)) *api.PodDisruptionBudget {
	pdb := &api.PodDisruptionBudget{Metadata: api.ObjectMeta{Namespace: "default", Name: "pdb", Generation: 1}}
	pdb.Spec.Selector = &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	mut(&pdb.Spec)
	return pdb
}

// pod is a selected pod, Ready when ready, controlled by owner ("" for
// none: a naked pod).
func pod(name string, ready bool, owner api.UID) *api.Pod {
	p := &api.Pod{Metadata: api.ObjectMeta{Namespace: "default", Name: name, Labels: map[string]string{"app": "web"}}}
	p.Status.Phase = api.PodRunning
	st := api.ConditionFalse
	if ready {
		st = api.ConditionTrue
	}
	p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: st}}
	if owner != "" {
		p.Metadata.OwnerReferences = []api.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: string(owner), UID: owner, Controller: ptr(true)}}
	}
	return p
}

func ptr[T any](v T) *T { return &v }

func pods(n int, ready bool, owner api.UID) []*api.Pod {
	out := make([]*api.Pod, n)
	for i := range out {
		out[i] = pod(fmt.Sprintf("p%d", i), ready, owner)
	}
	return out
}

// scales is a FindOwner over a table of controllers' replicas.
func scales(m map[api.UID]int32) FindOwner {
	return func(ref *api.OwnerReference, _ string) (*OwnerScale, error) {
		if n, ok := m[ref.UID]; ok {
			return &OwnerScale{ref.UID, n}, nil
		}
		return nil, nil
	}
}

// TestExpectedPods ports the counting scenarios of upstream's
// disruption_test.go: which count a budget expects and how many of them
// must be healthy, for integers and percentages of both fields.
func TestExpectedPods(t *testing.T) {
	for _, tt := range []struct {
		name          string
		spec          func(*api.PodDisruptionBudgetSpec)
		pods          []*api.Pod
		owners        map[api.UID]int32
		wantExpected  int32
		wantDesired   int32
		wantUnmanaged []string
		wantErr       string
	}{
		{"integer minAvailable counts the pods as they are (TestUnavailable)",
			func(s *api.PodDisruptionBudgetSpec) { s.MinAvailable = intOr(3) }, pods(4, true, ""), nil, 4, 3, nil, ""},
		{"integer minAvailable ignores the controllers' scale",
			func(s *api.PodDisruptionBudgetSpec) { s.MinAvailable = intOr(2) }, pods(1, true, "rs"), map[api.UID]int32{"rs": 10}, 1, 2, nil, ""},
		{"integer maxUnavailable over a controller (TestIntegerMaxUnavailableWithScaling)",
			func(s *api.PodDisruptionBudgetSpec) { s.MaxUnavailable = intOr(2) }, pods(1, true, "rs"), map[api.UID]int32{"rs": 7}, 7, 5, nil, ""},
		{"integer maxUnavailable after the scale down to 5",
			func(s *api.PodDisruptionBudgetSpec) { s.MaxUnavailable = intOr(2) }, pods(1, true, "rs"), map[api.UID]int32{"rs": 5}, 5, 3, nil, ""},
		{"percentage maxUnavailable rounds the unavailable up (TestPercentageMaxUnavailableWithScaling)",
			func(s *api.PodDisruptionBudgetSpec) { s.MaxUnavailable = pct("30%") }, pods(1, true, "rs"), map[api.UID]int32{"rs": 7}, 7, 4, nil, ""},
		{"percentage maxUnavailable after the scale down to 3",
			func(s *api.PodDisruptionBudgetSpec) { s.MaxUnavailable = pct("30%") }, pods(1, true, "rs"), map[api.UID]int32{"rs": 3}, 3, 2, nil, ""},
		{"maxUnavailable larger than the scale wants none healthy",
			func(s *api.PodDisruptionBudgetSpec) { s.MaxUnavailable = intOr(9) }, pods(2, true, "rs"), map[api.UID]int32{"rs": 3}, 3, 0, nil, ""},
		{"percentage minAvailable rounds up (TestReplicaSet)",
			func(s *api.PodDisruptionBudgetSpec) { s.MinAvailable = pct("20%") }, pods(1, true, "rs"), map[api.UID]int32{"rs": 10}, 10, 2, nil, ""},
		{"34% of 3 is 2 (TestReplicationController)",
			func(s *api.PodDisruptionBudgetSpec) { s.MinAvailable = pct("34%") }, pods(3, true, "rc"), map[api.UID]int32{"rc": 3}, 3, 2, nil, ""},
		{"two controllers each counted once (TestTwoControllers)",
			func(s *api.PodDisruptionBudgetSpec) { s.MinAvailable = pct("28%") },
			append(pods(2, true, "rc"), pod("q0", true, "rs"), pod("q1", true, "rs")), map[api.UID]int32{"rc": 11, "rs": 11}, 22, 7, nil, ""},
		{"a naked pod is unmanaged and not counted (TestNakedPod)",
			func(s *api.PodDisruptionBudgetSpec) { s.MinAvailable = pct("28%") }, pods(1, true, ""), nil, 0, 0, []string{"p0"}, ""},
		{"naked pods beside a controller's (TestStatusForUnmanagedPod)",
			func(s *api.PodDisruptionBudgetSpec) { s.MaxUnavailable = intOr(1) },
			append(pods(2, true, "rs"), pod("naked", true, "")), map[api.UID]int32{"rs": 2}, 2, 1, []string{"naked"}, ""},
		{"a controller no finder knows is an error",
			func(s *api.PodDisruptionBudgetSpec) { s.MaxUnavailable = intOr(1) }, pods(1, true, "gone"), nil, 0, 0, nil, `found no controllers for pod "p0"`},
		{"neither field set expects nothing",
			func(*api.PodDisruptionBudgetSpec) {}, pods(2, true, ""), nil, 0, 0, nil, ""},
		{"a malformed percentage is an error",
			func(s *api.PodDisruptionBudgetSpec) { s.MinAvailable = pct("half") }, pods(1, true, "rs"), map[api.UID]int32{"rs": 1}, 0, 0, nil,
			"invalid value for IntOrString: invalid type: string is not a percentage"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			expected, desired, unmanaged, err := ExpectedPods(budget(tt.spec), tt.pods, scales(tt.owners))
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantExpected, expected, "expectedPods")
			assert.Equal(t, tt.wantDesired, desired, "desiredHealthy")
			assert.Equal(t, tt.wantUnmanaged, unmanaged, "unmanaged")
		})
	}
}

// TestExpectedPodsPassesTheFindersError: a finder's failure (a kind with
// no scale subresource) is the sync's.
func TestExpectedPodsPassesTheFindersError(t *testing.T) {
	boom := errors.New("jobs.batch does not implement the scale subresource")
	_, _, _, err := ExpectedPods(budget(func(s *api.PodDisruptionBudgetSpec) { s.MaxUnavailable = intOr(1) }), pods(1, true, "x"),
		func(*api.OwnerReference, string) (*OwnerScale, error) { return nil, boom })
	assert.ErrorIs(t, err, boom)
}

// TestDisruptedPods ports TestUpdateDisruptedPods: an entry goes when its
// pod is being deleted, is gone, or outlived DeletionTimeout; the rest
// stay, with a recheck at the earliest deadline.
func TestDisruptedPods(t *testing.T) {
	now := t0.Add(time.Hour)
	pdb := budget(func(s *api.PodDisruptionBudgetSpec) { s.MinAvailable = intOr(1) })
	pdb.Status.DisruptedPods = map[string]api.Time{
		"p1":       api.NewTime(now),                       // its deletion started: goes
		"p2":       api.NewTime(now.Add(-3 * time.Minute)), // expired: goes, NotDeleted
		"p3":       api.NewTime(now.Add(-time.Minute)),     // untouched: stays
		"notthere": api.NewTime(now),                       // the pod is gone: goes
	}
	ps := []*api.Pod{pod("p1", true, ""), pod("p2", true, ""), pod("p3", true, "")}
	ps[0].Metadata.DeletionTimestamp = ptr(api.NewTime(now))

	kept, recheck, expired := DisruptedPods(pdb, ps, now)
	assert.Equal(t, map[string]api.Time{"p3": api.NewTime(now.Add(-time.Minute))}, kept)
	assert.Equal(t, now.Add(time.Minute), recheck, "p3's entry expires a minute from now")
	require.Len(t, expired, 1)
	assert.Equal(t, "p2", expired[0].Metadata.Name)
	assert.Equal(t, int32(1), CountHealthy(ps, kept, now), "p1 is being deleted and p3 about to be: only p2 counts")
}

// TestCountHealthy: Ready pods count; pods not ready, being deleted or in
// a live disruptedPods entry do not.
func TestCountHealthy(t *testing.T) {
	deleting := pod("deleting", true, "")
	deleting.Metadata.DeletionTimestamp = ptr(api.NewTime(t0))
	for _, tt := range []struct {
		name      string
		pods      []*api.Pod
		disrupted map[string]api.Time
		want      int32
	}{
		{"ready pods", pods(3, true, ""), nil, 3},
		{"not ready pods", pods(3, false, ""), nil, 0},
		{"a pod being deleted", []*api.Pod{deleting, pod("a", true, "")}, nil, 1},
		{"a live disruption", pods(2, true, ""), map[string]api.Time{"p0": api.NewTime(t0)}, 1},
		{"an expired disruption counts again", pods(2, true, ""), map[string]api.Time{"p0": api.NewTime(t0.Add(-DeletionTimeout))}, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, CountHealthy(tt.pods, tt.disrupted, t0))
		})
	}
}

// TestStatus: disruptionsAllowed and the DisruptionAllowed condition, and
// that an unchanged status is not rewritten.
func TestStatus(t *testing.T) {
	for _, tt := range []struct {
		name        string
		counts      Counts
		wantAllowed int32
		wantStatus  api.ConditionStatus
		wantReason  string
	}{
		{"one more healthy than desired", Counts{CurrentHealthy: 4, DesiredHealthy: 3, Expected: 4}, 1, api.ConditionTrue, api.SufficientPodsReason},
		{"as many healthy as desired", Counts{CurrentHealthy: 3, DesiredHealthy: 3, Expected: 4}, 0, api.ConditionFalse, api.InsufficientPodsReason},
		{"fewer healthy than desired is not negative", Counts{CurrentHealthy: 1, DesiredHealthy: 5, Expected: 7}, 0, api.ConditionFalse, api.InsufficientPodsReason},
		{"no expected pods allows nothing (TestNakedPod)", Counts{CurrentHealthy: 1, DesiredHealthy: 0, Expected: 0}, 0, api.ConditionFalse, api.InsufficientPodsReason},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pdb := budget(func(s *api.PodDisruptionBudgetSpec) { s.MinAvailable = intOr(3) })
			pdb.Metadata.Generation = 2
			st, changed := Status(pdb, tt.counts, t0)
			require.True(t, changed)
			assert.Equal(t, tt.wantAllowed, st.DisruptionsAllowed)
			assert.Equal(t, tt.counts.CurrentHealthy, st.CurrentHealthy)
			assert.Equal(t, tt.counts.DesiredHealthy, st.DesiredHealthy)
			assert.Equal(t, tt.counts.Expected, st.ExpectedPods)
			assert.Equal(t, int64(2), st.ObservedGeneration)
			assert.Equal(t, []api.Condition{{Type: api.DisruptionAllowedCondition, Status: tt.wantStatus, Reason: tt.wantReason,
				ObservedGeneration: 2, LastTransitionTime: api.NewTime(t0)}}, st.Conditions)

			pdb.Status = st
			again, changed := Status(pdb, tt.counts, t0.Add(time.Minute))
			assert.False(t, changed, "the same counts write nothing")
			assert.Equal(t, st, again)
		})
	}
}

// TestStatusMovesTheConditionOnlyOnChange: the condition's transition
// time moves when its status does, not at every write.
func TestStatusMovesTheConditionOnlyOnChange(t *testing.T) {
	pdb := budget(func(s *api.PodDisruptionBudgetSpec) { s.MinAvailable = intOr(1) })
	st, _ := Status(pdb, Counts{CurrentHealthy: 3, DesiredHealthy: 1, Expected: 3}, t0)
	pdb.Status = st
	st, changed := Status(pdb, Counts{CurrentHealthy: 2, DesiredHealthy: 1, Expected: 3}, t0.Add(time.Minute))
	require.True(t, changed)
	assert.Equal(t, api.NewTime(t0), st.Conditions[0].LastTransitionTime, "still True: no transition")
	pdb.Status = st
	st, _ = Status(pdb, Counts{CurrentHealthy: 1, DesiredHealthy: 1, Expected: 3}, t0.Add(2*time.Minute))
	assert.Equal(t, api.NewTime(t0.Add(2*time.Minute)), st.Conditions[0].LastTransitionTime)
	assert.Equal(t, api.ConditionFalse, st.Conditions[0].Status)
}

// TestFailSafe: a failed sync allows no disruption and says why.
func TestFailSafe(t *testing.T) {
	pdb := budget(func(s *api.PodDisruptionBudgetSpec) { s.MaxUnavailable = intOr(1) })
	pdb.Status = api.PodDisruptionBudgetStatus{DisruptionsAllowed: 2, CurrentHealthy: 3, DesiredHealthy: 1, ExpectedPods: 3, ObservedGeneration: 1}
	st := FailSafe(pdb, errors.New(`found no controllers for pod "p0"`), t0)
	assert.Equal(t, int32(0), st.DisruptionsAllowed)
	assert.Equal(t, int32(3), st.CurrentHealthy, "the rest of the status stays")
	assert.Equal(t, []api.Condition{{Type: api.DisruptionAllowedCondition, Status: api.ConditionFalse, Reason: api.SyncFailedReason,
		Message: `found no controllers for pod "p0"`, ObservedGeneration: 1, LastTransitionTime: api.NewTime(t0)}}, st.Conditions)
	assert.Equal(t, int32(2), pdb.Status.DisruptionsAllowed, "the budget it was given is not changed")
}

// TestSelects ports TestNoSelector and TestInvalidSelectors: the
// controller counts every pod for an empty selector and none for a missing
// or invalid one; the eviction subresource lets no empty selector guard a
// pod.
func TestSelects(t *testing.T) {
	labels := map[string]string{"app": "web"}
	for _, tt := range []struct {
		name                   string
		sel                    *api.LabelSelector
		wantCounted, wantGuard bool
	}{
		{"matching labels", &api.LabelSelector{MatchLabels: labels}, true, true},
		{"other labels", &api.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, false, false},
		{"no selector", nil, false, false},
		{"an empty selector", &api.LabelSelector{}, true, false},
		{"an invalid operator", &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "app", Operator: "Bogus"}}}, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pdb := &api.PodDisruptionBudget{Spec: api.PodDisruptionBudgetSpec{Selector: tt.sel}}
			assert.Equal(t, tt.wantCounted, Selects(pdb, labels), "counted by the controller")
			assert.Equal(t, tt.wantGuard, api.BudgetSelects(pdb, labels), "guarded against eviction")
		})
	}
}
