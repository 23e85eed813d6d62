package deployment

import (
	"slices"
	"time"

	"github.com/miniplane/miniplane/api"
)

// The reasons of a deployment's conditions. Kubernetes: the reason
// constants of pkg/controller/deployment/util.
const (
	// Progressing, True: a new replica set was created for the rollout.
	NewReplicaSetReason = "NewReplicaSetCreated"
	// Progressing, True: the controller found the rollout's new set (first
	// sync of a deployment that had no Progressing condition yet).
	FoundNewRSReason = "FoundNewReplicaSet"
	// Progressing, True: the rollout moved (pods updated, ready or
	// available, old pods gone).
	ReplicaSetUpdatedReason = "ReplicaSetUpdated"
	// Progressing, True: the rollout is complete.
	NewRSAvailableReason = "NewReplicaSetAvailable"
	// Progressing, False: no progress within progressDeadlineSeconds.
	TimedOutReason = "ProgressDeadlineExceeded"
	// Progressing, Unknown: the deployment was paused, or resumed.
	PausedDeployReason  = "DeploymentPaused"
	ResumedDeployReason = "DeploymentResumed"
	// Progressing, False: the new replica set could not be created.
	FailedRSCreateReason = "ReplicaSetCreateError"
	// Available, True or False: at least replicas − maxUnavailable pods
	// are available, or not.
	MinimumReplicasAvailable   = "MinimumReplicasAvailable"
	MinimumReplicasUnavailable = "MinimumReplicasUnavailable"
)

// NewCondition returns a condition updated and transitioned at now.
// Kubernetes: NewDeploymentCondition (which reads the wall clock).
func NewCondition(condType string, status api.ConditionStatus, reason, message string, now time.Time) api.DeploymentCondition {
	t := api.NewTime(now)
	return api.DeploymentCondition{
		Type: condType, Status: status, LastUpdateTime: t, LastTransitionTime: t,
		Reason: reason, Message: message,
	}
}

// GetCondition returns the condition of type condType, or nil. The
// pointer is into status.Conditions. Kubernetes: GetDeploymentCondition.
func GetCondition(status api.DeploymentStatus, condType string) *api.DeploymentCondition {
	for i := range status.Conditions {
		if status.Conditions[i].Type == condType {
			return &status.Conditions[i]
		}
	}
	return nil
}

// SetCondition puts cond in status, in place of the condition of its
// type: unchanged when status and reason are the same, keeping the old
// transition time when only the reason changes. status.Conditions must be
// the caller's own. Kubernetes: SetDeploymentCondition.
func SetCondition(status *api.DeploymentStatus, cond api.DeploymentCondition) {
	cur := GetCondition(*status, cond.Type)
	if cur != nil && cur.Status == cond.Status && cur.Reason == cond.Reason {
		return
	}
	if cur != nil && cur.Status == cond.Status {
		cond.LastTransitionTime = cur.LastTransitionTime
	}
	status.Conditions = append(filterOutCondition(status.Conditions, cond.Type), cond)
}

// RemoveCondition removes the condition of type condType. Kubernetes:
// RemoveDeploymentCondition.
func RemoveCondition(status *api.DeploymentStatus, condType string) {
	status.Conditions = filterOutCondition(status.Conditions, condType)
}

// filterOutCondition returns a new slice of the conditions not of
// condType.
func filterOutCondition(conds []api.DeploymentCondition, condType string) []api.DeploymentCondition {
	var out []api.DeploymentCondition
	for _, c := range conds {
		if c.Type != condType {
			out = append(out, c)
		}
	}
	return out
}

// replicaSetToDeploymentCondition converts a replica set's condition.
// Kubernetes: ReplicaSetToDeploymentCondition.
func replicaSetToDeploymentCondition(c api.ReplicaSetCondition) api.DeploymentCondition {
	return api.DeploymentCondition{
		Type: c.Type, Status: c.Status, LastTransitionTime: c.LastTransitionTime,
		LastUpdateTime: c.LastTransitionTime, Reason: c.Reason, Message: c.Message,
	}
}

// DeploymentComplete reports whether d, with newStatus, has every replica
// updated and available, none old, and its generation observed.
// Kubernetes: DeploymentComplete.
func DeploymentComplete(d *api.Deployment, newStatus *api.DeploymentStatus) bool {
	want := desiredReplicas(d)
	return newStatus.UpdatedReplicas == want && newStatus.Replicas == want &&
		newStatus.AvailableReplicas == want && newStatus.ObservedGeneration >= d.Metadata.Generation
}

// DeploymentProgressing reports whether newStatus shows progress over d's
// status: more pods updated, ready or available, or fewer old pods.
// Kubernetes: DeploymentProgressing.
func DeploymentProgressing(d *api.Deployment, newStatus *api.DeploymentStatus) bool {
	old := d.Status
	oldOld := old.Replicas - old.UpdatedReplicas
	newOld := newStatus.Replicas - newStatus.UpdatedReplicas
	return newStatus.UpdatedReplicas > old.UpdatedReplicas || newOld < oldOld ||
		newStatus.ReadyReplicas > old.ReadyReplicas || newStatus.AvailableReplicas > old.AvailableReplicas
}

// DeploymentTimedOut reports whether d's rollout has made no progress for
// progressDeadlineSeconds as of now: the Progressing condition of
// newStatus was last updated longer ago than that (strictly). A complete
// rollout never times out; one that timed out stays so. Kubernetes:
// DeploymentTimedOut (which reads the wall clock).
func DeploymentTimedOut(d *api.Deployment, newStatus *api.DeploymentStatus, now time.Time) bool {
	if !HasProgressDeadline(d) {
		return false
	}
	cond := GetCondition(*newStatus, api.DeploymentProgressing)
	switch {
	case cond == nil, cond.Reason == NewRSAvailableReason:
		return false
	case cond.Reason == TimedOutReason:
		return true
	}
	deadline := time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second
	return cond.LastUpdateTime.Add(deadline).Before(now)
}

// CalculateStatus returns d's status as its replica sets report it:
// replicas, updated (the new set's), ready, available and unavailable
// pods, the observed generation, the collision count, and d's conditions
// with Available set from replicas − maxUnavailable. Kubernetes:
// calculateStatus.
func CalculateStatus(allRSs []*api.ReplicaSet, newRS *api.ReplicaSet, d *api.Deployment, now time.Time) api.DeploymentStatus {
	available := AvailableReplicaCount(allRSs)
	unavailable := max(ReplicaCount(allRSs)-available, 0) // more available than wanted while scaling down
	status := api.DeploymentStatus{
		ObservedGeneration:  d.Metadata.Generation,
		Replicas:            ActualReplicaCount(allRSs),
		UpdatedReplicas:     ActualReplicaCount([]*api.ReplicaSet{newRS}),
		ReadyReplicas:       ReadyReplicaCount(allRSs),
		AvailableReplicas:   available,
		UnavailableReplicas: unavailable,
		CollisionCount:      d.Status.CollisionCount,
		Conditions:          slices.Clone(d.Status.Conditions),
	}
	if available >= desiredReplicas(d)-MaxUnavailable(d) {
		SetCondition(&status, NewCondition(api.DeploymentAvailable, api.ConditionTrue, MinimumReplicasAvailable, "Deployment has minimum availability.", now))
	} else {
		SetCondition(&status, NewCondition(api.DeploymentAvailable, api.ConditionFalse, MinimumReplicasUnavailable, "Deployment does not have minimum availability.", now))
	}
	return status
}
