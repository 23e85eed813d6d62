package main

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/controllers/deployment"
)

// The rollout chapter's Deployment: 4 replicas, rolled 25% at a time.
const (
	shopName     = "shop"
	shopReplicas = 4
	shopImage    = "nginx:1.27"
	shopNext     = "nginx:1.28"
)

var shopLabels = map[string]string{"app": shopName}

// rollout is the chapter of a Deployment: created, rolled to a new image
// step by step, and rolled back as kubectl rollout undo does it.
func (s *story) rollout(ctx context.Context) error {
	replicas := int32(shopReplicas)
	surge, unavailable := api.FromString("25%"), api.FromString("25%")
	d := &api.Deployment{
		Metadata: api.ObjectMeta{Namespace: demoNS, Name: shopName},
		Spec: api.DeploymentSpec{
			Replicas: &replicas,
			Selector: &api.LabelSelector{MatchLabels: shopLabels},
			Template: api.PodTemplateSpec{
				Metadata: api.ObjectMeta{Labels: shopLabels},
				Spec: api.PodSpec{Containers: []api.Container{{Name: shopName, Image: shopImage,
					Ports: []api.ContainerPort{{Name: "http", ContainerPort: 80}}}}},
			},
			Strategy: api.DeploymentStrategy{Type: api.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &api.RollingUpdateDeployment{MaxSurge: &surge, MaxUnavailable: &unavailable}},
		},
	}
	s.plain("A Deployment does not make pods: it makes a ReplicaSet per version of its pod")
	s.plain("template, named after the template's hash, and the replica set controller makes")
	s.plain("the pods.")
	if err := s.act(youKubectl, func() (string, error) {
		if _, err := s.c.Create(ctx, d); err != nil {
			return "", fmt.Errorf("demo: creating the deployment: %w", err)
		}
		return fmt.Sprintf("created deployment %s: %d replicas of %s, rolling update maxSurge 25%%, maxUnavailable 25%%",
			shopName, shopReplicas, shopImage), nil
	}); err != nil {
		return err
	}
	if err := s.waitFor(ctx, "deployment shop to roll out", s.rolledOut(ctx)); err != nil {
		return err
	}
	s.pause(ctx, 500*time.Millisecond)

	s.plain("Now a new version. 25%% of %d replicas: the surge rounds up to 1 (at most %d pods),", shopReplicas, shopReplicas+1)
	s.plain("unavailability rounds down to 1 (at least %d available). The controller grows the", shopReplicas-1)
	s.plain("new set while the pods asked for are under the most, and shrinks the old one while")
	s.plain("more than the least are available; each scale shows the figures it decided with.")
	if err := s.updateShop(ctx, func(d *api.Deployment) (string, error) {
		d.Spec.Template.Spec.Containers[0].Image = shopNext
		return fmt.Sprintf("set image deployment/%s %s=%s", shopName, shopName, shopNext), nil
	}); err != nil {
		return err
	}
	if err := s.waitFor(ctx, "deployment shop to roll out "+shopNext, s.rolledOut(ctx)); err != nil {
		return err
	}
	s.pause(ctx, 500*time.Millisecond)

	s.plain("Roll back. kubectl rollout undo is kubectl's own work, not a controller's: it")
	s.plain("finds the replica set of the previous revision, copies its pod template back into")
	s.plain("the deployment (less the pod-template-hash label), and writes the deployment. The")
	s.plain("controller then finds an old set with that template: it makes it the new one, with")
	s.plain("the next revision, and rolls to it as to any new version.")
	var from *api.ReplicaSet
	if err := s.updateShop(ctx, func(d *api.Deployment) (string, error) {
		rs, err := s.previousRevision(ctx, d)
		if err != nil {
			return "", err
		}
		from = rs
		t := *rs.Spec.Template.DeepCopy()
		delete(t.Metadata.Labels, deployment.PodTemplateHashLabel)
		if deployment.EqualIgnoreHash(&d.Spec.Template, &t) {
			return "", nil // kubectl: "skipped rollback (current template already matches revision N)"
		}
		d.Spec.Template = t
		return fmt.Sprintf("rollout undo deployment/%s: copied the pod template of replica set %s (revision %s, %s) back",
			shopName, rs.Metadata.Name, rs.Metadata.Annotations[deployment.RevisionAnnotation], images(t.Spec)), nil
	}); err != nil {
		return err
	}
	if err := s.waitFor(ctx, "deployment shop to roll back", s.rolledOut(ctx)); err != nil {
		return err
	}
	got, err := client.For[*api.Deployment](s.c).Get(ctx, demoNS, shopName)
	if err != nil {
		return err
	}
	s.stats.shopRevision = got.Metadata.Annotations[deployment.RevisionAnnotation]
	s.stats.shopRollback = from.Metadata.Name
	// The narrator tells the writes in order, a little behind them: the
	// count of combined events is read once it has told every write made
	// so far.
	if err := s.catchUp(ctx); err != nil {
		return err
	}
	if n := s.n.combinedEvents(deployment.ReasonScalingReplicaSet); n > 0 {
		s.plain("From the tenth different ScalingReplicaSet message about one deployment in ten")
		s.plain("minutes, the event recorder bumps one event, \"(combined from similar events)\",")
		s.plain("instead of writing more, as client-go's does: the last %d scales above were told", n)
		s.plain("from its bumps, each carrying that scale's figures.")
	}
	return nil
}

// updateShop changes the deployment as kubectl would, re-reading it on a
// conflict, and tells what it did: the line change returns ("" for
// nothing to write, which fails the story).
func (s *story) updateShop(ctx context.Context, change func(*api.Deployment) (string, error)) error {
	return s.act(youKubectl, func() (string, error) {
		for range 5 { // a conflict means the controller wrote it meanwhile
			cur, err := client.For[*api.Deployment](s.c).Get(ctx, demoNS, shopName)
			if err != nil {
				return "", fmt.Errorf("demo: reading the deployment: %w", err)
			}
			d := cur.DeepCopy()
			line, err := change(d)
			if err != nil {
				return "", err
			}
			if line == "" {
				return "", fmt.Errorf("demo: nothing to change in deployment %s", shopName)
			}
			if _, err = s.c.Update(ctx, d); err == nil {
				return line, nil
			}
			if !apierrors.IsConflict(err) {
				return "", fmt.Errorf("demo: updating the deployment: %w", err)
			}
		}
		return "", fmt.Errorf("demo: updating deployment %s kept conflicting", shopName)
	})
}

// previousRevision returns d's replica set of the revision before the
// highest, as kubectl rollout undo picks it (without --to-revision).
func (s *story) previousRevision(ctx context.Context, d *api.Deployment) (*api.ReplicaSet, error) {
	rss, _, err := client.For[*api.ReplicaSet](s.c).List(ctx, demoNS, client.ListOptions{LabelSelector: "app=" + shopName})
	if err != nil {
		return nil, err
	}
	rss = slices.DeleteFunc(rss, func(rs *api.ReplicaSet) bool {
		ref := api.GetControllerOf(&rs.Metadata)
		return ref == nil || ref.UID != d.Metadata.UID
	})
	slices.SortFunc(rss, func(a, b *api.ReplicaSet) int {
		ra, _ := deployment.Revision(&a.Metadata)
		rb, _ := deployment.Revision(&b.Metadata)
		return int(rb - ra)
	})
	if len(rss) < 2 {
		return nil, fmt.Errorf("demo: no rollout history found for deployment %s", shopName)
	}
	return rss[1], nil
}

// rolledOut is the condition kubectl rollout status waits for — the
// controller has seen the latest spec, every replica is updated and
// available, and Progressing says NewReplicaSetAvailable — and also that
// the old pods are gone, so that the story goes on after them.
func (s *story) rolledOut(ctx context.Context) func() (bool, error) {
	return func() (bool, error) {
		d, err := client.For[*api.Deployment](s.c).Get(ctx, demoNS, shopName)
		if err != nil {
			return false, err
		}
		st := d.Status
		c := deployment.GetCondition(st, api.DeploymentProgressing)
		if st.ObservedGeneration < d.Metadata.Generation || c == nil || c.Reason != deployment.NewRSAvailableReason ||
			st.UpdatedReplicas != shopReplicas || st.Replicas != shopReplicas || st.AvailableReplicas != shopReplicas {
			return false, nil
		}
		pods, _, err := client.For[*api.Pod](s.c).List(ctx, demoNS, client.ListOptions{LabelSelector: "app=" + shopName})
		return len(pods) == shopReplicas, err
	}
}
