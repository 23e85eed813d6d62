package daemon

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/controllers/deployment"
	"github.com/miniplane/miniplane/controllers/history"
	"github.com/miniplane/miniplane/informer"
)

// claim returns the objects of ds's namespace that ds controls, adopting
// and releasing as deployment.ClaimAll does.
func claim[T api.Object](ctx context.Context, c *Controller, ds *api.DaemonSet, objs []T) ([]T, error) {
	sel, err := api.LabelSelectorAsSelector(ds.Spec.Selector)
	if err != nil {
		return nil, fmt.Errorf("daemon set %s has invalid label selector: %w", api.KeyOf(&ds.Metadata), err)
	}
	return deployment.ClaimAll(ctx, c.client, client.DaemonSets, controllerRef(ds), &ds.Metadata, sel, objs, c.log)
}

// claimPods returns the pods ds controls, adopting and releasing as claim
// does. It reads, through the controller index, ds's pods and its
// namespace's orphans, in key order: the namespace's other pods are other
// controllers', which claim leaves alone. Kubernetes: getDaemonPods.
func (c *Controller) claimPods(ctx context.Context, ds *api.DaemonSet) ([]*api.Pod, error) {
	pods := informer.Controlled[*api.Pod](c.podIndex, ds.Metadata.Namespace, ds.Metadata.UID, true)
	slices.SortFunc(pods, func(a, b *api.Pod) int { return strings.Compare(a.Metadata.Name, b.Metadata.Name) })
	return claim(ctx, c, ds, pods)
}

// revisionHistory claims ds's revisions and makes the current one exist, numbered
// above the old ones, with its duplicates folded into it. Kubernetes:
// controlledHistories, constructHistory, snapshot and dedupCurHistories.
func (c *Controller) revisionHistory(ctx context.Context, ds *api.DaemonSet) (history.History, error) {
	revisions, err := claim(ctx, c, ds, c.revisions.Namespace(ds.Metadata.Namespace).List(api.Selector{}))
	if err != nil {
		return history.History{}, err
	}
	h, err := DecideHistory(ds, revisions)
	if err != nil {
		return h, err
	}
	for _, r := range h.Label {
		if _, err := c.client.Update(ctx, r); err != nil {
			return h, err
		}
	}
	if h.Create != nil {
		cur, err := c.snapshot(ctx, ds, h.Create)
		if err != nil {
			return h, err
		}
		h.Current = cur
	}
	if h.Renumber != nil {
		if _, err := c.client.Update(ctx, h.Renumber); err != nil {
			return h, err
		}
	}
	if len(h.Duplicates) > 0 {
		if err := c.foldDuplicates(ctx, ds, h); err != nil {
			return h, err
		}
	}
	return h, nil
}

// snapshot creates revision cr. A revision of the same name that records
// another template is a hash collision: the daemon set's collisionCount is
// raised, which renames the next attempt, and the sync fails to retry.
// Kubernetes: snapshot.
func (c *Controller) snapshot(ctx context.Context, ds *api.DaemonSet, cr *api.ControllerRevision) (*api.ControllerRevision, error) {
	created, err := c.client.Create(ctx, cr)
	if err == nil {
		return created.(*api.ControllerRevision), nil
	}
	if !apierrors.IsAlreadyExists(err) {
		return nil, err
	}
	obj, getErr := c.client.Get(ctx, client.ControllerRevisions, cr.Metadata.Namespace, cr.Metadata.Name, client.GetOptions{})
	if getErr != nil {
		return nil, getErr
	}
	existing := obj.(*api.ControllerRevision)
	if Match(ds, existing) {
		return existing, nil
	}
	obj, getErr = c.client.Get(ctx, client.DaemonSets, ds.Metadata.Namespace, ds.Metadata.Name, client.GetOptions{})
	if getErr != nil {
		return nil, getErr
	}
	fresh := obj.(*api.DaemonSet).DeepCopy()
	if !equalCount(fresh.Status.CollisionCount, ds.Status.CollisionCount) {
		return nil, fmt.Errorf("found a stale collision count of DaemonSet %q while processing; will retry until it is updated", ds.Metadata.Name)
	}
	n := int32(0)
	if fresh.Status.CollisionCount != nil {
		n = *fresh.Status.CollisionCount
	}
	n++
	fresh.Status.CollisionCount = &n
	if _, err := c.client.UpdateStatus(ctx, fresh); err != nil {
		return nil, err
	}
	c.log.Info("hash collision: collisionCount raised", zap.String("daemonSet", api.KeyOf(&ds.Metadata)), zap.Int32("collisionCount", n))
	return nil, err
}

func equalCount(a, b *int32) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && *a == *b)
}

// foldDuplicates relabels the pods of h's duplicate revisions with the
// current revision's hash, then deletes the duplicates. Kubernetes:
// dedupCurHistories.
func (c *Controller) foldDuplicates(ctx context.Context, ds *api.DaemonSet, h history.History) error {
	keepHash := h.Current.Metadata.Labels[api.DaemonSetUniqueLabelKey]
	pods, err := c.claimPods(ctx, ds)
	if err != nil {
		return err
	}
	for _, dup := range h.Duplicates {
		dupHash := dup.Metadata.Labels[api.DaemonSetUniqueLabelKey]
		for _, p := range pods {
			if p.Metadata.Labels[api.DaemonSetUniqueLabelKey] != dupHash {
				continue
			}
			next := p.DeepCopy()
			next.Metadata.Labels[api.DaemonSetUniqueLabelKey] = keepHash
			if _, err := c.client.Update(ctx, next); err != nil {
				return err
			}
		}
		if _, err := c.client.Delete(ctx, client.ControllerRevisions, dup.Metadata.Namespace, dup.Metadata.Name, api.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return nil
}

// cleanupHistory deletes the old revisions beyond the history limit that
// no pod runs. Kubernetes: cleanupHistory.
func (c *Controller) cleanupHistory(ctx context.Context, ds *api.DaemonSet, old []*api.ControllerRevision, pods []*api.Pod) error {
	live := map[string]bool{}
	for _, ps := range podsByNode(pods, true) {
		for _, p := range ps {
			if h := p.Metadata.Labels[api.DaemonSetUniqueLabelKey]; h != "" {
				live[h] = true
			}
		}
	}
	var errs []error
	for _, r := range RevisionsToDelete(ds, old, live) {
		if _, err := c.client.Delete(ctx, client.ControllerRevisions, r.Metadata.Namespace, r.Metadata.Name, api.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
