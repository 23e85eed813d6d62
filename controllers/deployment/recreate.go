package deployment

import (
	"context"
	"slices"

	"github.com/miniplane/miniplane/api"
)

// OldPodsRunning reports whether any old pod may still run: an old set
// reports pods, or a pod of podMap (pods by their set's UID) not of newRS
// is in a phase other than Succeeded or Failed (Unknown counts: it may
// run). Kubernetes: oldPodsRunning.
func OldPodsRunning(newRS *api.ReplicaSet, oldRSs []*api.ReplicaSet, podMap map[api.UID][]*api.Pod) bool {
	if ActualReplicaCount(oldRSs) > 0 {
		return true
	}
	for uid, pods := range podMap {
		if newRS != nil && newRS.Metadata.UID == uid {
			continue
		}
		for _, p := range pods {
			if p.Status.Phase != api.PodSucceeded && p.Status.Phase != api.PodFailed {
				return true
			}
		}
	}
	return false
}

// ScaleDownForRecreate plans every active old set's scale to 0.
// Kubernetes: scaleDownOldReplicaSetsForRecreate.
func ScaleDownForRecreate(activeOldRSs []*api.ReplicaSet) []Scale {
	var plan []Scale
	for _, rs := range activeOldRSs {
		plan = append(plan, scaleTo(rs, 0)...)
	}
	return plan
}

// rolloutRecreate runs one step of a Recreate rollout: scale the old sets
// to 0; once no old pod runs, create the new set (not before: nothing
// scales up before everything old is down) and scale it to replicas; clean
// up old revisions once complete; then the rollout status. Kubernetes:
// rolloutRecreate.
func (c *Controller) rolloutRecreate(ctx context.Context, d *api.Deployment, rsList []*api.ReplicaSet, podMap map[api.UID][]*api.Pod) error {
	newRS, oldRSs, err := c.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, false)
	if err != nil {
		return err
	}
	allRSs := append(slices.Clone(oldRSs), newRS)
	scaledDown, err := c.applyScales(ctx, d, ScaleDownForRecreate(FilterActive(oldRSs)))
	if err != nil {
		return err
	}
	if scaledDown {
		return c.syncRolloutStatus(ctx, allRSs, newRS, d)
	}
	// Wait for the last old pod: its deletion queues d again.
	if OldPodsRunning(newRS, oldRSs, podMap) {
		return c.syncRolloutStatus(ctx, allRSs, newRS, d)
	}
	if newRS == nil {
		newRS, oldRSs, err = c.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, true)
		if err != nil {
			return err
		}
		allRSs = append(slices.Clone(oldRSs), newRS)
	}
	if _, err := c.applyScales(ctx, d, scaleTo(newRS, desiredReplicas(d))); err != nil {
		return err
	}
	if DeploymentComplete(d, &d.Status) {
		if err := c.cleanupDeployment(ctx, oldRSs, d); err != nil {
			return err
		}
	}
	return c.syncRolloutStatus(ctx, allRSs, newRS, d)
}
