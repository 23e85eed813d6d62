package garbagecollector

import (
	"context"
	"errors"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// attemptToDelete looks at the node of uid and deletes it, or releases it
// from absent owners, or — for an owner deleting its dependents in the
// foreground — finishes that deletion when nothing blocks it any more.
// Kubernetes: attemptToDeleteItem.
func (c *Controller) attemptToDelete(ctx context.Context, uid api.UID) error {
	n, ok := c.graph.snapshot(uid)
	if !ok {
		return nil
	}
	if n.id.kind.resource == "" {
		return nil // a kind the server does not serve: nothing to read or do
	}
	if n.virtual {
		return c.verifyVirtual(ctx, n)
	}
	if n.beingDeleted && !n.deletingDependents {
		return nil // someone deleted it, without waiting for dependents
	}
	latest, err := c.get(ctx, n.id)
	if err != nil || latest == nil {
		return err // gone: the informer will tell the graph
	}
	if n.deletingDependents {
		return c.processDeletingDependents(ctx, n)
	}
	m := latest.GetObjectMeta()
	if len(m.OwnerReferences) == 0 {
		return nil
	}
	owners := make([]Owner, 0, len(m.OwnerReferences))
	for _, ref := range m.OwnerReferences {
		state, err := c.ownerState(ctx, latest, n.id, ref)
		if err != nil {
			return err
		}
		owners = append(owners, Owner{Ref: ref, State: state})
	}
	act := DecideDependent(owners, Dependent{
		Finalizers:                  m.Finalizers,
		HasDependents:               len(n.dependents) > 0,
		DependentDeletingDependents: n.dependentDeletingDependents,
	})
	switch act.Verb {
	case RemoveRefs:
		c.log.Info("removing dangling owner references", append(n.id.fields(), zap.Any("owners", act.RemoveUIDs))...)
		return c.update(ctx, n.id, func(obj api.Object) bool {
			om := obj.GetObjectMeta()
			var changed bool
			om.OwnerReferences, changed = withoutOwners(om.OwnerReferences, act.RemoveUIDs)
			return changed
		})
	case Delete:
		rv := m.ResourceVersion
		if act.Unblock {
			c.log.Info("a dependent waits too, maybe in a cycle: unblocking owner references", n.id.fields()...)
			updated, err := c.client.Update(ctx, withRefs(latest, unblocked))
			if err != nil {
				return err // a Conflict: decide again later
			}
			rv = updated.GetObjectMeta().ResourceVersion
		}
		c.log.Info("deleting dependent", append(n.id.fields(), zap.String("propagation", string(act.Policy)))...)
		policy := act.Policy
		_, err := c.client.Delete(ctx, n.id.kind.resource, n.id.namespace, n.id.name, api.DeleteOptions{
			Preconditions:     &api.Preconditions{UID: &n.id.uid, ResourceVersion: &rv},
			PropagationPolicy: &policy,
		})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err // a Conflict: it changed since we read it; decide again later
	}
	return nil
}

// ownerState reads the owner ref names live and classifies it.
func (c *Controller) ownerState(ctx context.Context, dependent api.Object, dep identity, ref api.OwnerReference) (OwnerState, error) {
	k, ok := c.graph.custom.lookup(ref.APIVersion, ref.Kind)
	if !ok {
		return OwnerUnknown, nil
	}
	id := identity{kind: &k, name: ref.Name, uid: ref.UID}
	if k.namespaced {
		if dep.namespace == "" {
			c.log.Warn("cluster-scoped object names a namespaced owner", append(dep.fields(), zap.String("owner", ref.Kind+" "+ref.Name))...)
			if c.recorder != nil {
				_ = c.recorder.Eventf(ctx, dependent, api.EventTypeWarning, "OwnerRefInvalidNamespace",
					"ownerRef %s %s (uid %s) is namespaced, but this object is cluster-scoped", ref.Kind, ref.Name, ref.UID)
			}
			return OwnerUnknown, nil
		}
		id.namespace = dep.namespace
	}
	owner, err := c.get(ctx, id)
	if err != nil {
		return 0, err
	}
	return StateOf(ref, owner), nil
}

// errNotShownYet is verifyVirtual's answer for an owner that exists but
// that its informer has not shown: the key is to be checked again, after a
// backoff, and is not a failure.
var errNotShownYet = errors.New("owner exists but its informer has not shown it")

// verifyVirtual asks the server about an owner the informers have not
// shown: if it is absent, its dependents are to look at their owners now.
// If it exists and its kind is watched, it is checked again later
// (errNotShownYet) until its informer shows it: the owner may go before the
// informer lists it, and then no notification would ever come (Kubernetes
// requeues such a node too, issue 56121). An existing owner of a kind not
// watched is left alone: nothing would ever show it.
func (c *Controller) verifyVirtual(ctx context.Context, n snapshot) error {
	obj, err := c.get(ctx, n.id)
	if err != nil {
		return err
	}
	if obj != nil {
		if c.watches(n.id.kind.resource) {
			return errNotShownYet
		}
		return nil
	}
	c.log.Debug("owner is absent", n.id.fields()...)
	for _, d := range n.dependents {
		c.queue.Add(deleteKey(d.uid))
	}
	return nil
}

// processDeletingDependents finishes a foreground deletion: with no blocking
// dependent left it removes the foregroundDeletion finalizer, so the server
// removes the owner; otherwise it makes sure each blocker is being deleted.
// A blocker in its grace period still exists, and still blocks.
func (c *Controller) processDeletingDependents(ctx context.Context, n snapshot) error {
	if len(n.blocking) == 0 {
		c.log.Info("no blocking dependents left; removing the foregroundDeletion finalizer", n.id.fields()...)
		return c.update(ctx, n.id, func(obj api.Object) bool {
			om := obj.GetObjectMeta()
			var changed bool
			om.Finalizers, changed = withoutFinalizer(om.Finalizers, api.FinalizerDeleteDependents)
			return changed
		})
	}
	for _, d := range n.blocking {
		if !d.deletingDependents {
			c.queue.Add(deleteKey(d.id.uid))
		}
	}
	return nil
}

// attemptToOrphan releases the dependents of an owner deleted with the
// Orphan policy — each loses its reference to the owner — and then removes
// the owner's orphan finalizer so the server removes it. Kubernetes:
// attemptToOrphanWorker and orphanDependents.
func (c *Controller) attemptToOrphan(ctx context.Context, uid api.UID) error {
	n, ok := c.graph.snapshot(uid)
	if !ok || n.virtual || n.id.kind.resource == "" {
		return nil
	}
	owner, err := c.get(ctx, n.id)
	if err != nil || owner == nil || !orphaning(owner.GetObjectMeta()) {
		return err
	}
	for _, d := range n.dependents {
		if d.kind.resource == "" {
			continue
		}
		err := c.update(ctx, d, func(obj api.Object) bool {
			om := obj.GetObjectMeta()
			var changed bool
			om.OwnerReferences, changed = withoutOwners(om.OwnerReferences, []api.UID{uid})
			return changed
		})
		if err != nil {
			return err
		}
	}
	c.log.Info("dependents orphaned; removing the orphan finalizer", append(n.id.fields(), zap.Int("dependents", len(n.dependents)))...)
	return c.update(ctx, n.id, func(obj api.Object) bool {
		om := obj.GetObjectMeta()
		var changed bool
		om.Finalizers, changed = withoutFinalizer(om.Finalizers, api.FinalizerOrphanDependents)
		return changed
	})
}

// withRefs returns a copy of obj with its owner references changed by f.
func withRefs(obj api.Object, f func([]api.OwnerReference) ([]api.OwnerReference, bool)) api.Object {
	out := obj.DeepCopyObject()
	m := out.GetObjectMeta()
	m.OwnerReferences, _ = f(m.OwnerReferences)
	return out
}
