package disruption

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/controllers/deployment"
)

// DeletionTimeout is how long a pod the eviction subresource put in a
// budget's disruptedPods may take to show its deletion: past it, the entry
// is dropped and the pod counts as healthy again. Kubernetes:
// DeletionTimeout.
const DeletionTimeout = 2 * time.Minute

// OwnerScale is a pod's controller and its desired replicas: what a
// percentage budget counts as expected pods. Kubernetes: controllerAndScale.
type OwnerScale struct {
	UID   api.UID
	Scale int32
}

// FindOwner returns the scale of the controller ref names in namespace:
// nil when none of the finders knows it (an error says why it cannot be
// known). Kubernetes: the podControllerFinder chain.
type FindOwner func(ref *api.OwnerReference, namespace string) (*OwnerScale, error)

// ExpectedPods returns how many pods pdb counts and how many of them must
// be healthy. An integer minAvailable counts the selected pods as they are;
// maxUnavailable and a percentage minAvailable count the replicas their
// controllers want (each controller once), found through find. Pods with no
// controller are returned as unmanaged and left out of that count; a pod
// whose controller find does not know is an error. Kubernetes:
// getExpectedPodCount and getExpectedScale.
func ExpectedPods(pdb *api.PodDisruptionBudget, pods []*api.Pod, find FindOwner) (expected, desiredHealthy int32, unmanaged []string, err error) {
	s := &pdb.Spec
	switch {
	case s.MaxUnavailable != nil:
		expected, unmanaged, err = expectedScale(pods, find)
		if err != nil {
			return 0, 0, nil, err
		}
		maxUnavailable, err := deployment.ScaledValue(s.MaxUnavailable, int(expected), true)
		if err != nil {
			return 0, 0, nil, err
		}
		return expected, max(expected-int32(maxUnavailable), 0), unmanaged, nil
	case s.MinAvailable != nil && s.MinAvailable.Type == api.Int:
		return int32(len(pods)), s.MinAvailable.IntVal, nil, nil
	case s.MinAvailable != nil:
		expected, unmanaged, err = expectedScale(pods, find)
		if err != nil {
			return 0, 0, nil, err
		}
		minAvailable, err := deployment.ScaledValue(s.MinAvailable, int(expected), true)
		if err != nil {
			return 0, 0, nil, err
		}
		return expected, int32(minAvailable), unmanaged, nil
	}
	return 0, 0, nil, nil
}

// expectedScale sums the desired replicas of the pods' controllers, each
// counted once. Kubernetes: getExpectedScale.
func expectedScale(pods []*api.Pod, find FindOwner) (int32, []string, error) {
	scales := map[api.UID]int32{}
	var unmanaged []string
	for _, p := range pods {
		ref := api.GetControllerOf(&p.Metadata)
		if ref == nil {
			unmanaged = append(unmanaged, p.Metadata.Name)
			continue
		}
		if _, seen := scales[ref.UID]; seen {
			continue
		}
		o, err := find(ref, p.Metadata.Namespace)
		if err != nil {
			return 0, nil, err
		}
		if o == nil {
			return 0, nil, fmt.Errorf("found no controllers for pod %q", p.Metadata.Name)
		}
		scales[o.UID] = o.Scale
	}
	var sum int32
	for _, uid := range slices.Sorted(maps.Keys(scales)) {
		sum += scales[uid]
	}
	return sum, unmanaged, nil
}

// DisruptedPods returns the entries of pdb's disruptedPods still to keep at
// now: those of selected pods not yet marked for deletion whose
// DeletionTimeout has not passed. recheck is when the earliest kept entry
// expires (zero when none is kept), and expired the pods whose entry ran
// out without their deletion. Kubernetes: buildDisruptedPodMap.
func DisruptedPods(pdb *api.PodDisruptionBudget, pods []*api.Pod, now time.Time) (kept map[string]api.Time, recheck time.Time, expired []*api.Pod) {
	kept = map[string]api.Time{}
	for _, p := range pods {
		if p.Metadata.DeletionTimestamp != nil {
			continue // its deletion was seen: the entry has done its work
		}
		at, ok := pdb.Status.DisruptedPods[p.Metadata.Name]
		if !ok {
			continue
		}
		due := at.Add(DeletionTimeout)
		if due.Before(now) {
			expired = append(expired, p)
			continue
		}
		if recheck.IsZero() || due.Before(recheck) {
			recheck = due
		}
		kept[p.Metadata.Name] = at
	}
	return kept, recheck, expired
}

// CountHealthy counts the selected pods that are Ready, not being deleted
// and not in disrupted (an eviction that is about to delete them).
// Kubernetes: countHealthyPods.
func CountHealthy(pods []*api.Pod, disrupted map[string]api.Time, now time.Time) int32 {
	var n int32
	for _, p := range pods {
		if p.Metadata.DeletionTimestamp != nil {
			continue
		}
		if at, ok := disrupted[p.Metadata.Name]; ok && at.Add(DeletionTimeout).After(now) {
			continue
		}
		if api.IsPodReady(p) {
			n++
		}
	}
	return n
}

// Counts are what a sync observed of a budget's pods.
type Counts struct {
	CurrentHealthy, DesiredHealthy, Expected int32
	Disrupted                                map[string]api.Time
}

// Status returns pdb's status for c, and whether it differs from the one it
// has. disruptionsAllowed is currentHealthy - desiredHealthy, but never
// below zero and zero while no pod is expected, so that a budget whose
// first pods appear before its status is computed protects them.
// Kubernetes: updatePdbStatus.
func Status(pdb *api.PodDisruptionBudget, c Counts, now time.Time) (api.PodDisruptionBudgetStatus, bool) {
	allowed := c.CurrentHealthy - c.DesiredHealthy
	if c.Expected <= 0 || allowed <= 0 {
		allowed = 0
	}
	st := &pdb.Status
	if st.CurrentHealthy == c.CurrentHealthy && st.DesiredHealthy == c.DesiredHealthy &&
		st.ExpectedPods == c.Expected && st.DisruptionsAllowed == allowed &&
		disruptedEqual(st.DisruptedPods, c.Disrupted) && st.ObservedGeneration == pdb.Metadata.Generation &&
		api.DisruptionConditionUpToDate(pdb) {
		return *st, false
	}
	next := &api.PodDisruptionBudget{Metadata: pdb.Metadata, Status: api.PodDisruptionBudgetStatus{
		CurrentHealthy: c.CurrentHealthy, DesiredHealthy: c.DesiredHealthy, ExpectedPods: c.Expected,
		DisruptionsAllowed: allowed, DisruptedPods: c.Disrupted, ObservedGeneration: pdb.Metadata.Generation,
		Conditions: slices.Clone(st.Conditions),
	}}
	api.UpdateDisruptionAllowedCondition(next, now)
	return next.Status, true
}

// disruptedEqual compares two disruptedPods maps, nil and empty alike.
// Kubernetes: apiequality.Semantic.DeepEqual of the maps.
func disruptedEqual(a, b map[string]api.Time) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || !w.Equal(v.Time) {
			return false
		}
	}
	return true
}

// FailSafe returns pdb's status after a sync that could not compute it:
// no disruption allowed, and DisruptionAllowed False with reason
// SyncFailed and the error as its message, so that evictions stop until a
// sync succeeds. Kubernetes: failSafe.
func FailSafe(pdb *api.PodDisruptionBudget, err error, now time.Time) api.PodDisruptionBudgetStatus {
	st := *pdb.Status.DeepCopy()
	st.DisruptionsAllowed = 0
	if st.Conditions == nil {
		st.Conditions = []api.Condition{}
	}
	api.SetStatusCondition(&st.Conditions, api.Condition{
		Type: api.DisruptionAllowedCondition, Status: api.ConditionFalse, Reason: api.SyncFailedReason,
		Message: err.Error(), ObservedGeneration: st.ObservedGeneration,
	}, now)
	return st
}
