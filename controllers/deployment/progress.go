package deployment

import (
	"fmt"
	"time"

	"github.com/miniplane/miniplane/api"
)

// RolloutStatus returns the status a rollout's sync writes: CalculateStatus,
// then the Progressing condition judged against d's status — complete
// (NewReplicaSetAvailable), moving (ReplicaSetUpdated, its transition time
// kept while it stays True), or stuck past the deadline
// (ProgressDeadlineExceeded) — and a ReplicaFailure condition copied from
// the sets (the new set's first). Without a progress deadline there is no
// Progressing condition, and a rollout already complete is not judged
// again. Kubernetes: syncRolloutStatus's decision.
func RolloutStatus(allRSs []*api.ReplicaSet, newRS *api.ReplicaSet, d *api.Deployment, now time.Time) api.DeploymentStatus {
	status := CalculateStatus(allRSs, newRS, d, now)
	if !HasProgressDeadline(d) {
		RemoveCondition(&status, api.DeploymentProgressing)
	}
	cur := GetCondition(d.Status, api.DeploymentProgressing)
	complete := status.Replicas == status.UpdatedReplicas && cur != nil && cur.Reason == NewRSAvailableReason
	if HasProgressDeadline(d) && !complete {
		subject := fmt.Sprintf("Deployment %q", d.Metadata.Name)
		if newRS != nil {
			subject = fmt.Sprintf("ReplicaSet %q", newRS.Metadata.Name)
		}
		switch {
		case DeploymentComplete(d, &status):
			SetCondition(&status, NewCondition(api.DeploymentProgressing, api.ConditionTrue, NewRSAvailableReason,
				subject+" has successfully progressed.", now))
		case DeploymentProgressing(d, &status):
			// Progress refreshes lastUpdateTime even when the reason is
			// the same, which SetCondition would not: replace the
			// condition, keeping its transition time while it is True.
			cond := NewCondition(api.DeploymentProgressing, api.ConditionTrue, ReplicaSetUpdatedReason, subject+" is progressing.", now)
			if cur != nil {
				if cur.Status == api.ConditionTrue {
					cond.LastTransitionTime = cur.LastTransitionTime
				}
				RemoveCondition(&status, api.DeploymentProgressing)
			}
			SetCondition(&status, cond)
		case DeploymentTimedOut(d, &status, now):
			SetCondition(&status, NewCondition(api.DeploymentProgressing, api.ConditionFalse, TimedOutReason,
				subject+" has timed out progressing.", now))
		}
	}
	if failures := replicaFailures(allRSs, newRS); len(failures) > 0 {
		SetCondition(&status, failures[0])
	} else {
		RemoveCondition(&status, api.DeploymentReplicaFailure)
	}
	return status
}

// replicaFailures returns the sets' ReplicaFailure conditions as the
// deployment's, the new set's alone if it has any. Kubernetes:
// getReplicaFailures.
func replicaFailures(allRSs []*api.ReplicaSet, newRS *api.ReplicaSet) []api.DeploymentCondition {
	var out []api.DeploymentCondition
	collect := func(rs *api.ReplicaSet) {
		for _, c := range rs.Status.Conditions {
			if c.Type == api.DeploymentReplicaFailure {
				out = append(out, replicaSetToDeploymentCondition(c))
			}
		}
	}
	if newRS != nil {
		collect(newRS)
	}
	if len(out) > 0 {
		return out
	}
	for _, rs := range allRSs {
		if rs != nil {
			collect(rs)
		}
	}
	return out
}

// RequeueAfter says when d, whose rollout is neither complete nor timed
// out, must be synced again to check its progress deadline: the
// Progressing condition's lastUpdateTime + progressDeadlineSeconds − now,
// 0 when that is under a second (sync now, rate limited), or −1 when no
// check is due (no deadline or condition, complete, timed out already).
// The caller adds a second past a positive delay so that the sync falls
// after the deadline. Kubernetes: requeueStuckDeployment.
func RequeueAfter(d *api.Deployment, newStatus api.DeploymentStatus, now time.Time) time.Duration {
	cur := GetCondition(d.Status, api.DeploymentProgressing)
	if !HasProgressDeadline(d) || cur == nil {
		return -1
	}
	if DeploymentComplete(d, &newStatus) || cur.Reason == TimedOutReason {
		return -1
	}
	after := cur.LastUpdateTime.Add(time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second).Sub(now)
	if after < time.Second {
		return 0
	}
	return after
}

// PausedCondition returns the Progressing condition d needs for being
// paused (DeploymentPaused) or resumed (DeploymentResumed), both Unknown so
// that time spent paused never counts against the deadline, and whether
// one is needed. A timed-out condition is left as it is. Kubernetes:
// checkPausedConditions's decision.
func PausedCondition(d *api.Deployment, now time.Time) (api.DeploymentCondition, bool) {
	if !HasProgressDeadline(d) {
		return api.DeploymentCondition{}, false
	}
	cond := GetCondition(d.Status, api.DeploymentProgressing)
	if cond != nil && cond.Reason == TimedOutReason {
		return api.DeploymentCondition{}, false
	}
	pausedCond := cond != nil && cond.Reason == PausedDeployReason
	switch {
	case d.Spec.Paused && !pausedCond:
		return NewCondition(api.DeploymentProgressing, api.ConditionUnknown, PausedDeployReason, "Deployment is paused", now), true
	case !d.Spec.Paused && pausedCond:
		return NewCondition(api.DeploymentProgressing, api.ConditionUnknown, ResumedDeployReason, "Deployment is resumed", now), true
	}
	return api.DeploymentCondition{}, false
}
