package deployment

import (
	"context"
	"slices"

	"github.com/miniplane/miniplane/api"
)

// ReconcileNewReplicaSet plans the new set's resize in a rolling update:
// down to replicas if it is larger, else up as far as NewRSNewReplicas
// allows. The scale's Why is RollingFenceposts of allRSs. Kubernetes:
// reconcileNewReplicaSet.
func ReconcileNewReplicaSet(allRSs []*api.ReplicaSet, newRS *api.ReplicaSet, d *api.Deployment) ([]Scale, error) {
	want := desiredReplicas(d)
	why := RollingFenceposts(d, allRSs)
	switch cur := specReplicas(newRS); {
	case cur == want:
		return nil, nil
	case cur > want:
		return because(scaleTo(newRS, want), why), nil
	}
	n, err := NewRSNewReplicas(d, allRSs, newRS)
	if err != nil {
		return nil, err
	}
	return because(scaleTo(newRS, n), why), nil
}

// because returns plan with why as the reason of each of its scales.
func because(plan []Scale, why Fenceposts) []Scale {
	for i := range plan {
		plan[i].Why = &why
	}
	return plan
}

// ReconcileOldReplicaSets plans the old sets' scale-downs in a rolling
// update. At most allPods − minAvailable − the new set's unavailable pods
// may go (the new set's unavailable pods must not let old available ones
// go); unhealthy old replicas go first (CleanupUnhealthyReplicas), then
// available ones while more than minAvailable are available
// (ScaleDownOldReplicaSetsForRollingUpdate). oldRSs are the active old
// sets. Each scale's Why is RollingFenceposts of allRSs, as they were
// before any of the plan. Kubernetes: reconcileOldReplicaSets.
func ReconcileOldReplicaSets(allRSs, oldRSs []*api.ReplicaSet, newRS *api.ReplicaSet, d *api.Deployment) []Scale {
	if ReplicaCount(oldRSs) == 0 {
		return nil // nothing left to scale down
	}
	minAvailable := desiredReplicas(d) - MaxUnavailable(d)
	newUnavailable := specReplicas(newRS) - newRS.Status.AvailableReplicas
	maxScaledDown := ReplicaCount(allRSs) - minAvailable - newUnavailable
	if maxScaledDown <= 0 {
		return nil
	}
	// Unhealthy replicas first: they would otherwise block the rollout
	// (kubernetes#16737), and deleting them costs no availability.
	why := RollingFenceposts(d, allRSs)
	cleaned, plan, _, ok := CleanupUnhealthyReplicas(oldRSs, d, maxScaledDown)
	if !ok {
		return because(plan, why)
	}
	more, _ := ScaleDownOldReplicaSetsForRollingUpdate(append(cleaned, newRS), cleaned, d)
	return because(append(plan, more...), why)
}

// CleanupUnhealthyReplicas plans scaling the old sets, oldest first, down
// by their unavailable replicas, at most maxCleanup in all. It returns the
// old sets as they will be (sorted, resized copies in place of the
// planned ones), the plan, the replicas it removes, and false if a set
// reports more available replicas than it wants (upstream's "invalid
// request to scale down", which ends the scale-down for this sync).
// Kubernetes: cleanupUnhealthyReplicas.
func CleanupUnhealthyReplicas(oldRSs []*api.ReplicaSet, d *api.Deployment, maxCleanup int32) ([]*api.ReplicaSet, []Scale, int32, bool) {
	olds := slices.Clone(oldRSs)
	slices.SortStableFunc(olds, byCreation)
	var plan []Scale
	var total int32
	for i, rs := range olds {
		if total >= maxCleanup {
			break
		}
		size := specReplicas(rs)
		if size == 0 || size == rs.Status.AvailableReplicas {
			continue // nothing to scale down, or nothing unhealthy
		}
		down := min(maxCleanup-total, size-rs.Status.AvailableReplicas)
		if down < 0 {
			return olds, plan, total, false
		}
		plan = append(plan, Scale{RS: rs, To: size - down, Op: "down"})
		olds[i] = withReplicas(rs, size-down)
		total += down
	}
	return olds, plan, total, true
}

// ScaleDownOldReplicaSetsForRollingUpdate plans scaling old sets down,
// oldest first, by as many as are available above minAvailable. It
// returns the plan and the replicas it removes. Kubernetes:
// scaleDownOldReplicaSetsForRollingUpdate.
func ScaleDownOldReplicaSetsForRollingUpdate(allRSs, oldRSs []*api.ReplicaSet, d *api.Deployment) ([]Scale, int32) {
	minAvailable := desiredReplicas(d) - MaxUnavailable(d)
	available := AvailableReplicaCount(allRSs)
	if available <= minAvailable {
		return nil, 0
	}
	olds := slices.Clone(oldRSs)
	slices.SortStableFunc(olds, byCreation)
	var plan []Scale
	var total int32
	want := available - minAvailable
	for _, rs := range olds {
		if total >= want {
			break
		}
		size := specReplicas(rs)
		if size == 0 {
			continue
		}
		down := min(size, want-total)
		plan = append(plan, Scale{RS: rs, To: size - down, Op: "down"})
		total += down
	}
	return plan, total
}

// rolloutRolling runs one step of a rolling update: scale the new set up
// if it may grow, else the old sets down if they may shrink, else clean up
// old revisions once complete; then the rollout status. Kubernetes:
// rolloutRolling.
func (c *Controller) rolloutRolling(ctx context.Context, d *api.Deployment, rsList []*api.ReplicaSet) error {
	newRS, oldRSs, err := c.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, true)
	if err != nil {
		return err
	}
	allRSs := append(slices.Clone(oldRSs), newRS)

	plan, err := ReconcileNewReplicaSet(allRSs, newRS, d)
	if err != nil {
		return err
	}
	if len(plan) > 0 {
		written, _, err := c.scaleReplicaSet(ctx, d, plan[0])
		if err != nil {
			return err
		}
		return c.syncRolloutStatus(ctx, append(slices.Clone(oldRSs), written), written, d)
	}

	scaledDown, err := c.applyScales(ctx, d, ReconcileOldReplicaSets(allRSs, FilterActive(oldRSs), newRS, d))
	if err != nil {
		return err
	}
	if scaledDown {
		return c.syncRolloutStatus(ctx, allRSs, newRS, d)
	}
	if DeploymentComplete(d, &d.Status) {
		if err := c.cleanupDeployment(ctx, oldRSs, d); err != nil {
			return err
		}
	}
	return c.syncRolloutStatus(ctx, allRSs, newRS, d)
}
