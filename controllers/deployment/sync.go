package deployment

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
)

// Scale is one resize a decision plans: RS, as read, to To replicas. Op
// is "up" or "down", the word of the ScalingReplicaSet event. Applying it
// also brings RS's desired- and max-replicas annotations up to date, and
// writes even when To is RS's size if they need it.
type Scale struct {
	RS *api.ReplicaSet
	To int32
	Op string
	// Why, for a step of a rolling update, is the figures it was decided
	// with; its ScalingReplicaSet event carries them. Nil otherwise.
	Why *Fenceposts
}

// scaleTo plans resizing rs to n, nothing when it has that size already.
// Kubernetes: scaleReplicaSetAndRecordEvent.
func scaleTo(rs *api.ReplicaSet, n int32) []Scale {
	switch cur := specReplicas(rs); {
	case cur < n:
		return []Scale{{RS: rs, To: n, Op: "up"}}
	case cur > n:
		return []Scale{{RS: rs, To: n, Op: "down"}}
	}
	return nil
}

// IsScalingEvent reports whether d's replicas differ from the
// desired-replicas annotation of one of its active sets (allRSs may hold a
// nil new set): the user scaled the deployment, and the sets are resized
// proportionally rather than rolled. Kubernetes: isScalingEvent.
func IsScalingEvent(d *api.Deployment, allRSs []*api.ReplicaSet) bool {
	for _, rs := range FilterActive(allRSs) {
		if desired, ok := DesiredReplicasOf(rs); ok && desired != desiredReplicas(d) {
			return true
		}
	}
	return false
}

// ProportionalScale plans the resizes that bring d's sets to its replicas
// after a scaling event, or while it is paused. The only active set (or,
// with none, the newest) gets all the replicas; with a saturated new set
// the old ones go to 0; otherwise, in a rolling update, replicas +
// maxSurge − the sets' sizes are spread over the active sets in proportion
// to their share of the max-replicas they were sized for, larger sets
// first (newer first when scaling up, older first down), the rounding
// leftover to the first. Kubernetes: scale.
func ProportionalScale(d *api.Deployment, newRS *api.ReplicaSet, oldRSs []*api.ReplicaSet) []Scale {
	if rs := FindActiveOrLatest(newRS, oldRSs); rs != nil {
		return scaleTo(rs, desiredReplicas(d))
	}
	if IsSaturated(d, newRS) {
		var out []Scale
		for _, old := range FilterActive(oldRSs) {
			out = append(out, scaleTo(old, 0)...)
		}
		return out
	}
	if !IsRollingUpdate(d) {
		return nil
	}
	all := FilterActive(append(slices.Clone(oldRSs), newRS))
	var allowed int32
	if desiredReplicas(d) > 0 {
		allowed = desiredReplicas(d) + MaxSurge(d)
	}
	toAdd := allowed - ReplicaCount(all)
	op := ""
	switch {
	case toAdd > 0:
		slices.SortStableFunc(all, bySizeNewer)
		op = "up"
	case toAdd < 0:
		slices.SortStableFunc(all, bySizeOlder)
		op = "down"
	}
	sizes := make([]int32, len(all))
	var added int32
	for i, rs := range all {
		sizes[i] = specReplicas(rs)
		if toAdd != 0 {
			p := GetProportion(rs, d, toAdd, added)
			sizes[i] += p
			added += p
		}
	}
	out := make([]Scale, len(all))
	for i, rs := range all {
		if i == 0 && toAdd != 0 {
			sizes[0] = max(sizes[0]+toAdd-added, 0)
		}
		out[i] = Scale{RS: rs, To: sizes[i], Op: op}
	}
	return out
}

// GetProportion returns how many replicas rs gains (or, negative, loses)
// of toAdd, of which added are handed out already: its fraction, capped so
// the total never passes toAdd. Kubernetes: GetProportion.
func GetProportion(rs *api.ReplicaSet, d *api.Deployment, toAdd, added int32) int32 {
	if rs == nil || specReplicas(rs) == 0 || toAdd == 0 || toAdd == added {
		return 0
	}
	fraction := replicaSetFraction(rs, d)
	allowed := toAdd - added
	if toAdd > 0 {
		return min(fraction, allowed)
	}
	return max(fraction, allowed)
}

// replicaSetFraction returns rs's share of the change in d's size: its
// size scaled by the new max-replicas over the one its annotation records
// (d's status.replicas when the annotation is missing or 0), less its size.
// Scaling to 0 takes the whole set. Kubernetes: getReplicaSetFraction.
func replicaSetFraction(rs *api.ReplicaSet, d *api.Deployment) int32 {
	if desiredReplicas(d) == 0 {
		return -specReplicas(rs)
	}
	maxNow := desiredReplicas(d) + MaxSurge(d)
	maxBefore, ok := intAnnotation(rs, MaxReplicasAnnotation)
	if !ok || maxBefore == 0 {
		maxBefore = d.Status.Replicas
		if maxBefore == 0 {
			return 0 // nothing to divide by; back when there are pods
		}
	}
	size := float64(specReplicas(rs)*maxNow) / float64(maxBefore)
	return int32(math.Round(size)) - specReplicas(rs)
}

// RevisionHistoryToDelete returns the old sets to delete beyond d's
// revisionHistoryLimit: the oldest revisions first, only sets that are
// scaled to 0 with no pods, whose size the replica set controller has
// observed, and that are not being deleted. Kubernetes: cleanupDeployment.
func RevisionHistoryToDelete(oldRSs []*api.ReplicaSet, d *api.Deployment) []*api.ReplicaSet {
	if !HasRevisionHistoryLimit(d) {
		return nil
	}
	var alive []*api.ReplicaSet
	for _, rs := range oldRSs {
		if rs != nil && rs.Metadata.DeletionTimestamp == nil {
			alive = append(alive, rs)
		}
	}
	diff := len(alive) - int(*d.Spec.RevisionHistoryLimit)
	if diff <= 0 {
		return nil
	}
	slices.SortStableFunc(alive, byRevision)
	var out []*api.ReplicaSet
	for _, rs := range alive[:diff] {
		if rs.Status.Replicas != 0 || specReplicas(rs) != 0 || rs.Metadata.Generation > rs.Status.ObservedGeneration {
			continue
		}
		out = append(out, rs)
	}
	return out
}

// NewReplicaSet returns the replica set d's template asks for, to be
// created: named <deployment>-<hash>, the hash (ComputeHash of the
// template and d's collision count) in its labels, selector and template
// labels, d as its controller, sized by NewRSNewReplicas against oldRSs,
// with revision newRevision and d's annotations. Kubernetes: the creating
// half of getNewReplicaSet.
func NewReplicaSet(d *api.Deployment, oldRSs []*api.ReplicaSet, newRevision string) (*api.ReplicaSet, error) {
	template := *d.Spec.Template.DeepCopy()
	hash := ComputeHash(&d.Spec.Template, d.Status.CollisionCount)
	template.Metadata.Labels = withLabel(d.Spec.Template.Metadata.Labels, PodTemplateHashLabel, hash)
	selector := d.Spec.Selector.DeepCopy()
	if selector == nil {
		selector = &api.LabelSelector{}
	}
	selector.MatchLabels = withLabel(selector.MatchLabels, PodTemplateHashLabel, hash)
	var zero int32
	rs := &api.ReplicaSet{
		TypeMeta: api.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"},
		Metadata: api.ObjectMeta{
			Name:            d.Metadata.Name + "-" + hash, // deterministic: a create is idempotent
			Namespace:       d.Metadata.Namespace,
			OwnerReferences: []api.OwnerReference{controllerRef(d)},
			Labels:          withLabel(d.Spec.Template.Metadata.Labels, PodTemplateHashLabel, hash),
		},
		Spec: api.ReplicaSetSpec{
			Replicas: &zero, MinReadySeconds: d.Spec.MinReadySeconds, Selector: selector, Template: template,
		},
	}
	n, err := NewRSNewReplicas(d, append(slices.Clone(oldRSs), rs), rs)
	if err != nil {
		return nil, err
	}
	rs.Spec.Replicas = &n
	SetNewReplicaSetAnnotations(d, rs, newRevision, false)
	return rs, nil
}

// withLabel returns a copy of labels with key set to value.
func withLabel(labels map[string]string, key, value string) map[string]string {
	out := make(map[string]string, len(labels)+1)
	for k, v := range labels {
		out[k] = v
	}
	out[key] = value
	return out
}

// ---- act ----

// syncStatusOnly writes the status alone: a deployment being deleted.
// Kubernetes: syncStatusOnly.
func (c *Controller) syncStatusOnly(ctx context.Context, d *api.Deployment, rsList []*api.ReplicaSet) error {
	newRS, oldRSs, err := c.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, false)
	if err != nil {
		return err
	}
	return c.syncDeploymentStatus(ctx, append(oldRSs, newRS), newRS, d)
}

// syncScale resizes the sets of a paused deployment or after a scaling
// event, cleans up old revisions, and writes the status. Kubernetes: sync.
func (c *Controller) syncScale(ctx context.Context, d *api.Deployment, rsList []*api.ReplicaSet) error {
	newRS, oldRSs, err := c.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, false)
	if err != nil {
		return err
	}
	if _, err := c.applyScales(ctx, d, ProportionalScale(d, newRS, oldRSs)); err != nil {
		return err // requeued: the next sync starts from what was written
	}
	// Old revisions go only while paused (upstream's condition): after a
	// scaling event the rollout's own sync cleans up once complete.
	if d.Spec.Paused {
		if err := c.cleanupDeployment(ctx, oldRSs, d); err != nil {
			return err
		}
	}
	return c.syncDeploymentStatus(ctx, append(oldRSs, newRS), newRS, d)
}

// cleanupDeployment deletes the old sets beyond the revision history
// limit. Kubernetes: cleanupDeployment.
func (c *Controller) cleanupDeployment(ctx context.Context, oldRSs []*api.ReplicaSet, d *api.Deployment) error {
	for _, rs := range RevisionHistoryToDelete(oldRSs, d) {
		c.log.Info("deleting old replica set", zap.String("deployment", api.KeyOf(&d.Metadata)), zap.String("replicaSet", rs.Metadata.Name))
		if _, err := c.client.Delete(ctx, client.ReplicaSets, rs.Metadata.Namespace, rs.Metadata.Name, api.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return nil
}

// syncDeploymentStatus writes CalculateStatus when it differs from d's.
// Kubernetes: syncDeploymentStatus.
func (c *Controller) syncDeploymentStatus(ctx context.Context, allRSs []*api.ReplicaSet, newRS *api.ReplicaSet, d *api.Deployment) error {
	status := CalculateStatus(allRSs, newRS, d, c.clock.Now())
	if reflect.DeepEqual(d.Status, status) {
		return nil
	}
	d.Status = status
	return c.writeStatus(ctx, d)
}

// checkPausedConditions writes the Progressing condition of pausing or
// resuming when PausedCondition asks for one. Kubernetes:
// checkPausedConditions.
func (c *Controller) checkPausedConditions(ctx context.Context, d *api.Deployment) error {
	cond, ok := PausedCondition(d, c.clock.Now())
	if !ok {
		return nil
	}
	SetCondition(&d.Status, cond)
	return c.writeStatus(ctx, d)
}

// syncRolloutStatus writes RolloutStatus when it differs from d's, and
// otherwise queues d for its progress check. Kubernetes: syncRolloutStatus.
func (c *Controller) syncRolloutStatus(ctx context.Context, allRSs []*api.ReplicaSet, newRS *api.ReplicaSet, d *api.Deployment) error {
	now := c.clock.Now()
	status := RolloutStatus(allRSs, newRS, d, now)
	if reflect.DeepEqual(d.Status, status) {
		c.requeue(d, RequeueAfter(d, status, now))
		return nil
	}
	d.Status = status
	return c.writeStatus(ctx, d)
}

// getAllReplicaSetsAndSyncRevision returns d's new set (nil if there is
// none and createIfNotExisted is false) and its old ones, with the new
// set's and d's revision brought up to date. A set it writes replaces the
// cached one in rsList. Kubernetes: getAllReplicaSetsAndSyncRevision.
func (c *Controller) getAllReplicaSetsAndSyncRevision(ctx context.Context, d *api.Deployment, rsList []*api.ReplicaSet, createIfNotExisted bool) (*api.ReplicaSet, []*api.ReplicaSet, error) {
	_, oldRSs := FindOldReplicaSets(d, rsList)
	newRS, err := c.getNewReplicaSet(ctx, d, rsList, oldRSs, createIfNotExisted)
	if err != nil {
		return nil, nil, err
	}
	return newRS, oldRSs, nil
}

// getNewReplicaSet returns d's new set. An existing one gets its
// annotations and minReadySeconds brought up to date, and d its revision
// and, the first time, a FoundNewReplicaSet condition. A missing one is
// created when createIfNotExisted: a name taken by a set with another
// template is a hash collision, which bumps status.collisionCount and
// fails the sync so that the next one hashes anew. Kubernetes:
// getNewReplicaSet.
func (c *Controller) getNewReplicaSet(ctx context.Context, d *api.Deployment, rsList, oldRSs []*api.ReplicaSet, createIfNotExisted bool) (*api.ReplicaSet, error) {
	existing := FindNewReplicaSet(d, rsList)
	newRevision := strconv.FormatInt(MaxRevision(oldRSs)+1, 10)
	now := c.clock.Now()
	if existing != nil {
		rsCopy := existing.DeepCopy()
		annotationsUpdated := SetNewReplicaSetAnnotations(d, rsCopy, newRevision, true)
		if annotationsUpdated || rsCopy.Spec.MinReadySeconds != d.Spec.MinReadySeconds {
			rsCopy.Spec.MinReadySeconds = d.Spec.MinReadySeconds
			written, err := c.client.Update(ctx, rsCopy)
			if err != nil {
				return nil, err
			}
			out := written.(*api.ReplicaSet)
			replaceIn(rsList, out)
			return out, nil
		}
		// The set's revision, not newRevision: the set's is the one
		// written, and only rises.
		if SetDeploymentRevision(d, rsCopy.Metadata.Annotations[RevisionAnnotation]) {
			if err := c.writeMeta(ctx, d); err != nil {
				return nil, err
			}
		}
		if HasProgressDeadline(d) && GetCondition(d.Status, api.DeploymentProgressing) == nil {
			SetCondition(&d.Status, NewCondition(api.DeploymentProgressing, api.ConditionTrue, FoundNewRSReason,
				fmt.Sprintf("Found new replica set %q", rsCopy.Metadata.Name), now))
			if err := c.writeStatus(ctx, d); err != nil {
				return nil, err
			}
		}
		return existing, nil
	}
	if !createIfNotExisted {
		return nil, nil
	}

	want, err := NewReplicaSet(d, oldRSs, newRevision)
	if err != nil {
		return nil, err
	}
	size := *want.Spec.Replicas
	created, err := c.client.Create(ctx, want)
	alreadyExists := false
	switch {
	case apierrors.IsAlreadyExists(err):
		// A slow cache, or a collision: the set of that name is ours only
		// if we control it and its template is d's.
		alreadyExists = true
		rs, getErr := c.rss.Namespace(d.Metadata.Namespace).Get(want.Metadata.Name)
		if getErr != nil {
			return nil, getErr
		}
		if ref := api.GetControllerOf(&rs.Metadata); ref != nil && ref.UID == d.Metadata.UID && EqualIgnoreHash(&d.Spec.Template, &rs.Spec.Template) {
			created, err = rs, nil
			break
		}
		var count int32
		if d.Status.CollisionCount != nil {
			count = *d.Status.CollisionCount
		}
		count++
		d.Status.CollisionCount = &count
		if werr := c.writeStatus(ctx, d); werr == nil {
			c.log.Info("hash collision; bumping collisionCount", zap.String("deployment", api.KeyOf(&d.Metadata)), zap.Int32("collisionCount", count))
		}
		return nil, err
	case apierrors.HasStatusCause(err, api.NamespaceTerminatingCause):
		return nil, err // the namespace is going, and d with it
	case err != nil:
		msg := fmt.Sprintf("Failed to create new replica set %q: %v", want.Metadata.Name, err)
		if HasProgressDeadline(d) {
			SetCondition(&d.Status, NewCondition(api.DeploymentProgressing, api.ConditionFalse, FailedRSCreateReason, msg, now))
			_ = c.writeStatus(ctx, d) // the create's failure is the one to report
		}
		c.event(ctx, d, nil, api.EventTypeWarning, FailedRSCreateReason, msg)
		return nil, err
	}
	rs := created.(*api.ReplicaSet)
	if !alreadyExists && size > 0 {
		var why map[string]string
		if IsRollingUpdate(d) { // sized by NewRSNewReplicas, within the surge
			why = RollingFenceposts(d, oldRSs).Annotations()
		}
		c.event(ctx, d, why, api.EventTypeNormal, ReasonScalingReplicaSet, fmt.Sprintf("Scaled up replica set %s from 0 to %d", rs.Metadata.Name, size))
	}
	if SetDeploymentRevision(d, newRevision) {
		if err := c.writeMeta(ctx, d); err != nil {
			return nil, err
		}
	}
	if !alreadyExists && HasProgressDeadline(d) {
		SetCondition(&d.Status, NewCondition(api.DeploymentProgressing, api.ConditionTrue, NewReplicaSetReason,
			fmt.Sprintf("Created new replica set %q", rs.Metadata.Name), now))
		if err := c.writeStatus(ctx, d); err != nil {
			return nil, err
		}
	}
	return rs, nil
}

// replaceIn puts rs in place of the set with its UID in rss.
func replaceIn(rss []*api.ReplicaSet, rs *api.ReplicaSet) {
	for i := range rss {
		if rss[i].Metadata.UID == rs.Metadata.UID {
			rss[i] = rs
		}
	}
}
