package sim

import (
	"context"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/controllers/deployment"
)

// The deployment controller's invariants.
//
// deployment-surge, checked at each of its writes: a write by the
// deployment controller that raises a ReplicaSet's spec.replicas (a create
// with replicas > 0 counts) leaves the spec.replicas of all the sets its
// deployment controls, as stored after the write, summing to at most the
// written set's max-replicas annotation — replicas + maxSurge of the
// deployment as the controller read it, which that very write set. The
// bound is the writer's, not the stored deployment's, so that a user's
// scale-down racing the write is not counted against it. It assumes what
// upstream assumes (it has no expectations): the writer's cache had seen
// its own earlier resizes of the sibling sets. A stale replica set cache
// (the StaleCache fault on replicasets) can break that, as it can
// upstream; no scenario creates deployments under that fault yet.
//
// deployment-rollout, checked when quiet: for each deployment that is not
// being deleted, the revisions of the sets it controls are unique; the set
// whose template is the deployment's (its new set) has the highest, and
// the deployment's revision annotation is it; and once the status says
// the rollout is complete (DeploymentComplete, generation observed), every
// other set is at 0 replicas.

// checkDeploymentWrite checks deployment-surge after a write of rs by
// actor.
func (s *Sim) checkDeploymentWrite(actor, kind string, rs *api.ReplicaSet) {
	if !strings.HasSuffix(actor, "/deployment") || (kind != "create" && kind != "update") {
		return
	}
	ref := api.GetControllerOf(&rs.Metadata)
	if ref == nil || ref.Kind != "Deployment" || rs.Spec.Replicas == nil {
		return
	}
	prev, seen := s.rsReplicas[rs.Metadata.UID]
	s.rsReplicas[rs.Metadata.UID] = *rs.Spec.Replicas
	if *rs.Spec.Replicas == 0 || (seen && *rs.Spec.Replicas <= prev) {
		return // not a scale-up
	}
	maxReplicas, ok := maxReplicasOf(rs)
	if !ok {
		return
	}
	var total int32
	for _, sib := range s.ownedSets(rs.Metadata.Namespace, ref.UID) {
		if sib.Spec.Replicas != nil {
			total += *sib.Spec.Replicas
		}
	}
	if total > maxReplicas {
		key := "ReplicaSet " + api.KeyOf(&rs.Metadata)
		s.violate("deployment-surge", "scaling "+key+" up made the deployment's sets want "+itoa(total)+
			" replicas, above replicas + maxSurge = "+itoa(maxReplicas), key)
	}
}

func maxReplicasOf(rs *api.ReplicaSet) (int32, bool) {
	v, ok := rs.Metadata.Annotations[deployment.MaxReplicasAnnotation]
	if !ok {
		return 0, false
	}
	n := int32(0)
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int32(c-'0')
	}
	return n, true
}

func itoa(n int32) string { return api.FromInt(int(n)).String() }

// ownedSets returns the stored replica sets of namespace whose controller
// has uid.
func (s *Sim) ownedSets(namespace string, uid api.UID) []*api.ReplicaSet {
	l, err := s.srv.List(context.Background(), client.ReplicaSets, namespace, client.ListOptions{})
	if err != nil {
		return nil
	}
	var out []*api.ReplicaSet
	for _, o := range l.Items {
		rs := o.(*api.ReplicaSet)
		if ref := api.GetControllerOf(&rs.Metadata); ref != nil && ref.UID == uid {
			out = append(out, rs)
		}
	}
	return out
}

// checkDeployments checks deployment-rollout.
func (s *Sim) checkDeployments(ctx context.Context) error {
	l, err := s.srv.List(ctx, client.Deployments, "", client.ListOptions{})
	if err != nil {
		return err
	}
	for _, o := range l.Items {
		d := o.(*api.Deployment)
		if d.Metadata.DeletionTimestamp != nil {
			continue
		}
		key := api.KeyOf(&d.Metadata)
		objects := []string{"Deployment " + key}
		sets := s.ownedSets(d.Metadata.Namespace, d.Metadata.UID)
		newRS := deployment.FindNewReplicaSet(d, sets)
		seen := map[int64]string{}
		for _, rs := range sets {
			rev, err := deployment.Revision(&rs.Metadata)
			if err != nil {
				return failedOn(objects, "deployment-rollout", "%s: replica set %s has a malformed revision", key, rs.Metadata.Name)
			}
			if other, dup := seen[rev]; dup {
				return failedOn(objects, "deployment-rollout", "%s: replica sets %s and %s both have revision %d", key, other, rs.Metadata.Name, rev)
			}
			seen[rev] = rs.Metadata.Name
		}
		if newRS == nil {
			continue
		}
		newRev, _ := deployment.Revision(&newRS.Metadata)
		if max := deployment.MaxRevision(sets); newRev != max {
			return failedOn(objects, "deployment-rollout", "%s: its new replica set %s has revision %d, not the highest, %d", key, newRS.Metadata.Name, newRev, max)
		}
		if got := d.Metadata.Annotations[deployment.RevisionAnnotation]; got != itoa(int32(newRev)) {
			return failedOn(objects, "deployment-rollout", "%s: revision %q, its new replica set's %d", key, got, newRev)
		}
		if !deployment.DeploymentComplete(d, &d.Status) {
			continue
		}
		for _, rs := range sets {
			if rs.Metadata.UID != newRS.Metadata.UID && rs.Spec.Replicas != nil && *rs.Spec.Replicas != 0 {
				return failedOn(objects, "deployment-rollout", "%s: complete, but old replica set %s wants %d replicas", key, rs.Metadata.Name, *rs.Spec.Replicas)
			}
		}
	}
	return nil
}
