package replication

import (
	"reflect"
	"slices"
	"time"

	"github.com/miniplane/miniplane/api"
)

// Reasons of the ReplicaFailure condition and of the events about pods.
const (
	// ReasonFailedCreate: creating a pod failed.
	ReasonFailedCreate = "FailedCreate"
	// ReasonFailedDelete: deleting a pod failed.
	ReasonFailedDelete = "FailedDelete"
	// ReasonSuccessfulCreate: a pod was created.
	ReasonSuccessfulCreate = "SuccessfulCreate"
	// ReasonSuccessfulDelete: a pod was deleted.
	ReasonSuccessfulDelete = "SuccessfulDelete"
)

// CalculateStatus returns the status the view's object should have, given
// its status now (cur), its active owned pods (claimed before this sync
// created or deleted any), the error of this sync's create or delete step
// (nil if none or if it did not run), and the time now:
//
//   - replicas counts the pods; fullyLabeledReplicas those whose labels
//     include all of the template's; readyReplicas the ready ones;
//     availableReplicas those ready for longer than minReadySeconds;
//   - a manage error sets the ReplicaFailure condition, FailedCreate when
//     pods were missing and FailedDelete when there were too many, unless
//     the condition is already there (its first message is kept); a sync
//     whose manage step succeeded removes it.
//
// observedGeneration is left as it was: it is set when the status is
// written. Kubernetes: calculateStatus in pkg/controller/replicaset.
func calculateStatus(v *rsView, cur api.ReplicaSetStatus, pods []*api.Pod, manageErr error, now time.Time) api.ReplicaSetStatus {
	status := cur
	var buf [4]api.LabelPair // the template's labels, read once
	full := newLabelMatcher(buf[:0], v.templateLabels())
	var fully, ready, available int32
	for _, p := range pods {
		if full.matches(p.Metadata.Labels) {
			fully++
		}
		// One walk of the conditions for both counts: every sync counts
		// every pod of its controller.
		if c := readyCondition(p); c != nil && c.Status == api.ConditionTrue {
			ready++
			if availableAt(c, v.minReadySeconds, now) {
				available++
			}
		}
	}
	status.Replicas = int32(len(pods))
	status.FullyLabeledReplicas = fully
	status.ReadyReplicas = ready
	status.AvailableReplicas = available

	failure := GetCondition(status, api.ReplicaSetReplicaFailure)
	switch {
	case manageErr != nil && failure == nil:
		reason := ""
		if diff := len(pods) - int(v.replicas); diff < 0 {
			reason = ReasonFailedCreate
		} else if diff > 0 {
			reason = ReasonFailedDelete
		}
		SetCondition(&status, api.ReplicaSetCondition{
			Type: api.ReplicaSetReplicaFailure, Status: api.ConditionTrue,
			LastTransitionTime: api.NewTime(now), Reason: reason, Message: manageErr.Error(),
		})
	case manageErr == nil && failure != nil:
		RemoveCondition(&status, api.ReplicaSetReplicaFailure)
	}
	return status
}

// IsPodAvailable reports whether pod has been ready for longer than
// minReadySeconds at now; with minReadySeconds 0, ready is available.
// Kubernetes: podutil.IsPodAvailable.
func IsPodAvailable(pod *api.Pod, minReadySeconds int32, now time.Time) bool {
	c := readyCondition(pod)
	return c != nil && c.Status == api.ConditionTrue && availableAt(c, minReadySeconds, now)
}

// availableAt reports whether a pod whose Ready condition is ready, true,
// makes it available at now.
func availableAt(ready *api.PodCondition, minReadySeconds int32, now time.Time) bool {
	if minReadySeconds == 0 {
		return true
	}
	t := ready.LastTransitionTime.Time
	return !t.IsZero() && t.Add(time.Duration(minReadySeconds)*time.Second).Before(now)
}

// readyCondition returns the pod's first Ready condition, the one
// api.IsPodReady reads, or nil. It walks the conditions in place rather
// than copying each one.
func readyCondition(pod *api.Pod) *api.PodCondition {
	cs := pod.Status.Conditions
	for i := range cs {
		if cs[i].Type == api.PodReady {
			return &cs[i]
		}
	}
	return nil
}

// statusNeedsUpdate reports whether writing status over cur, the status of
// an object at generation, would change anything: a field differs, or the
// generation is not yet observed. Kubernetes skips the write under the same
// test (updateReplicaSetStatus).
func statusNeedsUpdate(cur api.ReplicaSetStatus, generation int64, status api.ReplicaSetStatus) bool {
	return cur.Replicas != status.Replicas ||
		cur.FullyLabeledReplicas != status.FullyLabeledReplicas ||
		cur.ReadyReplicas != status.ReadyReplicas ||
		cur.AvailableReplicas != status.AvailableReplicas ||
		cur.ObservedGeneration != generation ||
		!reflect.DeepEqual(cur.Conditions, status.Conditions)
}

// GetCondition returns the condition of type t, or nil.
func GetCondition(status api.ReplicaSetStatus, t string) *api.ReplicaSetCondition {
	for i := range status.Conditions {
		if status.Conditions[i].Type == t {
			return &status.Conditions[i]
		}
	}
	return nil
}

// SetCondition puts c in status, replacing a condition of its type; it
// changes nothing when one with the same status and reason is there, so
// the first transition time and message are kept. The conditions are
// copied before any change: status may share them with a cached object.
func SetCondition(status *api.ReplicaSetStatus, c api.ReplicaSetCondition) {
	cur := GetCondition(*status, c.Type)
	if cur != nil && cur.Status == c.Status && cur.Reason == c.Reason {
		return
	}
	RemoveCondition(status, c.Type)
	status.Conditions = append(slices.Clip(status.Conditions), c)
}

// RemoveCondition removes the condition of type t, if any, without
// changing the list status had (it may be a cached object's).
func RemoveCondition(status *api.ReplicaSetStatus, t string) {
	if GetCondition(*status, t) == nil {
		return
	}
	kept := make([]api.ReplicaSetCondition, 0, len(status.Conditions)-1)
	for _, c := range status.Conditions {
		if c.Type != t {
			kept = append(kept, c)
		}
	}
	status.Conditions = kept
	if len(kept) == 0 {
		status.Conditions = nil
	}
}
