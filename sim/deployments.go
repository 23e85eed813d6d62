package sim

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
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
//
// deployment-complete, checked when quiet: a deployment that is not paused
// nor being deleted, and none of whose pods the scheduler has found no
// room for, has finished its rollout and says so — its new set at
// spec.replicas, every other set at 0, and a status of the current
// generation with replicas, updatedReplicas and availableReplicas all at
// spec.replicas. Nothing in a quiet system is left to move it further.

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
			if err := s.checkDeploymentComplete(ctx, d, sets, nil); err != nil {
				return failedOn(objects, "deployment-complete", "%s: %v", key, err)
			}
			continue
		}
		newRev, _ := deployment.Revision(&newRS.Metadata)
		if max := deployment.MaxRevision(sets); newRev != max {
			return failedOn(objects, "deployment-rollout", "%s: its new replica set %s has revision %d, not the highest, %d", key, newRS.Metadata.Name, newRev, max)
		}
		if got := d.Metadata.Annotations[deployment.RevisionAnnotation]; got != itoa(int32(newRev)) {
			return failedOn(objects, "deployment-rollout", "%s: revision %q, its new replica set's %d", key, got, newRev)
		}
		if deployment.DeploymentComplete(d, &d.Status) {
			for _, rs := range sets {
				if rs.Metadata.UID != newRS.Metadata.UID && rs.Spec.Replicas != nil && *rs.Spec.Replicas != 0 {
					return failedOn(objects, "deployment-rollout", "%s: complete, but old replica set %s wants %d replicas", key, rs.Metadata.Name, *rs.Spec.Replicas)
				}
			}
		}
		if err := s.checkDeploymentComplete(ctx, d, sets, newRS); err != nil {
			return failedOn(objects, "deployment-complete", "%s: %v", key, err)
		}
	}
	return nil
}

// checkDeploymentComplete checks deployment-complete for d, whose sets
// and new set are given.
func (s *Sim) checkDeploymentComplete(ctx context.Context, d *api.Deployment, sets []*api.ReplicaSet, newRS *api.ReplicaSet) error {
	if d.Spec.Paused {
		return nil
	}
	unschedulable, err := s.hasUnschedulablePod(ctx, d.Metadata.Namespace, sets)
	if err != nil || unschedulable {
		return err
	}
	want := int32(1)
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}
	if newRS == nil {
		return fmt.Errorf("no replica set has its template")
	}
	for _, rs := range sets {
		got := int32(1)
		if rs.Spec.Replicas != nil {
			got = *rs.Spec.Replicas
		}
		switch {
		case rs.Metadata.UID == newRS.Metadata.UID && got != want:
			return fmt.Errorf("its new replica set %s wants %d replicas, not %d", rs.Metadata.Name, got, want)
		case rs.Metadata.UID != newRS.Metadata.UID && got != 0:
			return fmt.Errorf("old replica set %s still wants %d replicas", rs.Metadata.Name, got)
		}
	}
	st := d.Status
	if st.ObservedGeneration < d.Metadata.Generation {
		return fmt.Errorf("status of generation %d, not %d", st.ObservedGeneration, d.Metadata.Generation)
	}
	if st.Replicas != want || st.UpdatedReplicas != want || st.AvailableReplicas != want {
		return fmt.Errorf("status says %d replicas, %d updated, %d available; spec.replicas is %d",
			st.Replicas, st.UpdatedReplicas, st.AvailableReplicas, want)
	}
	return nil
}

// hasUnschedulablePod reports whether a pod that one of sets controls is
// marked unschedulable (PodScheduled False): then the rollout may wait for
// room that never comes, and deployment-complete does not judge it.
func (s *Sim) hasUnschedulablePod(ctx context.Context, namespace string, sets []*api.ReplicaSet) (bool, error) {
	uids := make(map[api.UID]bool, len(sets))
	for _, rs := range sets {
		uids[rs.Metadata.UID] = true
	}
	l, err := s.srv.List(ctx, client.Pods, namespace, client.ListOptions{})
	if err != nil {
		return false, err
	}
	for _, o := range l.Items {
		p := o.(*api.Pod)
		ref := api.GetControllerOf(&p.Metadata)
		if ref == nil || !uids[ref.UID] || p.Spec.NodeName != "" {
			continue
		}
		for _, c := range p.Status.Conditions {
			if c.Type == api.PodScheduled && c.Status == api.ConditionFalse {
				return true, nil
			}
		}
	}
	return false, nil
}

// deploymentScenario creates deployment web of 5 nginx:1 pods, sets image
// nginx:2 at 20s, scales it to 9 at 21s, mid-rollout, sets nginx:3 at 40s
// and rolls back to nginx:1 at 60s: at the end its first set is its new
// set again, at revision 4, with 9 pods.
func deploymentScenario(s *Sim, d time.Duration) {
	s.userAction(0, d, "create deployment web of 5 nginx:1", func(ctx context.Context) error {
		return s.createAll(ctx, NewDeployment("default", "web", 5, "nginx:1"))
	})
	image := func(img string) func(*api.Deployment) {
		return func(d *api.Deployment) { d.Spec.Template.Spec.Containers[0].Image = img }
	}
	s.userAction(20*time.Second, d, "set web's image to nginx:2", func(ctx context.Context) error {
		return s.changeDeployment(ctx, "default", "web", image("nginx:2"))
	})
	s.userAction(21*time.Second, d, "scale web to 9", func(ctx context.Context) error {
		return s.changeDeployment(ctx, "default", "web", func(d *api.Deployment) { d.Spec.Replicas = new(int32(9)) })
	})
	s.userAction(40*time.Second, d, "set web's image to nginx:3", func(ctx context.Context) error {
		return s.changeDeployment(ctx, "default", "web", image("nginx:3"))
	})
	s.userAction(time.Minute, d, "roll web back to nginx:1", func(ctx context.Context) error {
		return s.changeDeployment(ctx, "default", "web", image("nginx:1"))
	})
}

// changeDeployment changes a deployment as its user would: read, change,
// write, again on a conflict.
func (s *Sim) changeDeployment(ctx context.Context, namespace, name string, change func(*api.Deployment)) error {
	for {
		obj, err := s.user.Get(ctx, client.Deployments, namespace, name, client.GetOptions{})
		if err != nil {
			return err
		}
		d := obj.(*api.Deployment).DeepCopy()
		change(d)
		_, err = s.user.Update(ctx, d)
		if !apierrors.IsConflict(err) {
			return err
		}
	}
}

// NewDeployment returns a RollingUpdate deployment (the defaults: 25%
// surge and unavailable) of replicas pods labelled app=<name>, one
// container running image.
func NewDeployment(namespace, name string, replicas int32, image string) *api.Deployment {
	labels := map[string]string{"app": name}
	return &api.Deployment{
		TypeMeta: api.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		Metadata: api.ObjectMeta{Namespace: namespace, Name: name},
		Spec: api.DeploymentSpec{
			Replicas: &replicas,
			Selector: &api.LabelSelector{MatchLabels: labels},
			Template: api.PodTemplateSpec{
				Metadata: api.ObjectMeta{Labels: labels},
				Spec:     api.PodSpec{Containers: []api.Container{{Name: name, Image: image}}},
			},
		},
	}
}
