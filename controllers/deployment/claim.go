package deployment

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
)

// Claim is what ClaimObject decides for one object.
type Claim int

// The outcomes of ClaimObject.
const (
	// Ignore: another controller's object, or an orphan not to adopt (now).
	Ignore Claim = iota
	// Keep: the controller controls the object and its selector matches it.
	Keep
	// Release: the controller controls the object but no longer selects it.
	Release
	// Adopt: an orphan the controller selects.
	Adopt
)

// ClaimReplicaSet decides what deployment d does with rs, given whether d's
// selector matches rs's labels: ClaimObject of their metadata.
func ClaimReplicaSet(d *api.Deployment, rs *api.ReplicaSet, matches bool) Claim {
	return ClaimObject(&d.Metadata, &rs.Metadata, matches)
}

// ClaimObject decides what a controller (owner) does with an object (obj),
// given whether the controller's selector matches obj's labels. A
// controller being deleted neither adopts nor releases; an object being
// deleted is not adopted. Kubernetes: BaseControllerRefManager.ClaimObject.
func ClaimObject(owner, obj *api.ObjectMeta, matches bool) Claim {
	dying := owner.DeletionTimestamp != nil
	if ref := api.GetControllerOf(obj); ref != nil {
		switch {
		case ref.UID != owner.UID:
			return Ignore
		case matches:
			return Keep
		case dying:
			return Ignore
		}
		return Release
	}
	if dying || !matches || obj.DeletionTimestamp != nil {
		return Ignore
	}
	return Adopt
}

// claimReplicaSets returns the sets of d's namespace that d controls after
// adopting the orphans its selector matches and releasing the sets it no
// longer matches, reading only the sets claimableReplicaSets returns (the
// others are another controller's, which ClaimReplicaSet ignores).
// Adoption waits for an uncached read confirming that d still exists, with
// its UID, and is not being deleted. Errors are joined;
// a set that vanished is not one. Kubernetes: getReplicaSetsForDeployment
// and ReplicaSetControllerRefManager.ClaimReplicaSets.
func (c *Controller) claimReplicaSets(ctx context.Context, d *api.Deployment) ([]*api.ReplicaSet, error) {
	sel, err := api.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return nil, fmt.Errorf("deployment %s has invalid label selector: %w", api.KeyOf(&d.Metadata), err)
	}
	var (
		owned   []*api.ReplicaSet
		errs    []error
		checked bool
		adoptOK error
	)
	for _, rs := range c.claimableReplicaSets(d, true) {
		switch ClaimReplicaSet(d, rs, sel.Matches(rs.Metadata.Labels)) {
		case Keep:
			owned = append(owned, rs)
		case Release:
			if err := c.release(ctx, d, rs); err != nil {
				errs = append(errs, err)
			}
		case Adopt:
			if !checked {
				checked, adoptOK = true, c.recheck(ctx, d)
			}
			if adoptOK != nil {
				errs = append(errs, fmt.Errorf("can't adopt ReplicaSet %s: %w", api.KeyOf(&rs.Metadata), adoptOK))
				continue
			}
			adopted, err := c.adopt(ctx, d, rs)
			switch {
			case err == nil:
				owned = append(owned, adopted)
			case !apierrors.IsNotFound(err):
				errs = append(errs, err)
			}
		}
	}
	return owned, errors.Join(errs...)
}

// recheck reads d from the server, not the cache, and refuses adoption if
// it is gone, replaced or being deleted.
func (c *Controller) recheck(ctx context.Context, d *api.Deployment) error {
	return RecheckOwner(ctx, c.client, client.Deployments, controllerKind, &d.Metadata)
}

// Getter reads one object from the server.
type Getter interface {
	Get(ctx context.Context, resource, namespace, name string, opts client.GetOptions) (api.Object, error)
}

// RecheckOwner reads the controller owner (of kind, served as resource)
// from the server, not the cache, and refuses adoption if it is gone,
// replaced or being deleted. Kubernetes: RecheckDeletionTimestamp.
func RecheckOwner(ctx context.Context, g Getter, resource, kind string, owner *api.ObjectMeta) error {
	obj, err := g.Get(ctx, resource, owner.Namespace, owner.Name, client.GetOptions{})
	if err != nil {
		return err
	}
	fresh := obj.GetObjectMeta()
	if fresh.UID != owner.UID {
		return fmt.Errorf("original %s %s is gone: got uid %s, wanted %s", kind, api.KeyOf(owner), fresh.UID, owner.UID)
	}
	if fresh.DeletionTimestamp != nil {
		return fmt.Errorf("%s has just been deleted at %s", api.KeyOf(owner), fresh.DeletionTimestamp.Time)
	}
	return nil
}

// controllerRef is the owner reference that makes d a set's controller.
func controllerRef(d *api.Deployment) api.OwnerReference {
	return NewControllerRef(controllerAPIVersion, controllerKind, &d.Metadata)
}

// NewControllerRef is the owner reference that makes the object owner
// (of apiVersion and kind) another's controller, blocking its deletion.
// Kubernetes: metav1.NewControllerRef.
func NewControllerRef(apiVersion, kind string, owner *api.ObjectMeta) api.OwnerReference {
	yes, block := true, true
	return api.OwnerReference{
		APIVersion: apiVersion, Kind: kind, Name: owner.Name, UID: owner.UID,
		Controller: &yes, BlockOwnerDeletion: &block,
	}
}

// adopt makes d the controller of rs, with an update conditional on the
// cached resourceVersion (Kubernetes patches, with the UID as a
// precondition).
func (c *Controller) adopt(ctx context.Context, d *api.Deployment, rs *api.ReplicaSet) (*api.ReplicaSet, error) {
	next := rs.DeepCopy()
	ref := controllerRef(d)
	replaced := false
	for i := range next.Metadata.OwnerReferences {
		if next.Metadata.OwnerReferences[i].UID == d.Metadata.UID {
			next.Metadata.OwnerReferences[i], replaced = ref, true
		}
	}
	if !replaced {
		next.Metadata.OwnerReferences = append(next.Metadata.OwnerReferences, ref)
	}
	written, err := c.client.Update(ctx, next)
	if err != nil {
		return nil, fmt.Errorf("adopting ReplicaSet %s: %w", api.KeyOf(&rs.Metadata), err)
	}
	c.log.Info("adopted replica set", zap.String("deployment", api.KeyOf(&d.Metadata)), zap.String("replicaSet", rs.Metadata.Name))
	return written.(*api.ReplicaSet), nil
}

// release removes d's references from rs. A set that vanished or can no
// longer be updated needs no release.
func (c *Controller) release(ctx context.Context, d *api.Deployment, rs *api.ReplicaSet) error {
	next := rs.DeepCopy()
	next.Metadata.OwnerReferences = slices.DeleteFunc(next.Metadata.OwnerReferences, func(r api.OwnerReference) bool {
		return r.UID == d.Metadata.UID
	})
	if len(next.Metadata.OwnerReferences) == 0 {
		next.Metadata.OwnerReferences = nil
	}
	_, err := c.client.Update(ctx, next)
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsInvalid(err) {
		return fmt.Errorf("releasing ReplicaSet %s: %w", api.KeyOf(&rs.Metadata), err)
	}
	if err == nil {
		c.log.Info("released replica set", zap.String("deployment", api.KeyOf(&d.Metadata)), zap.String("replicaSet", rs.Metadata.Name))
	}
	return nil
}

// OwnerWriter is what ClaimAll reads and writes through.
type OwnerWriter interface {
	Getter
	Update(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error)
}

// ClaimAll returns the objs that the controller owner (served as resource,
// made controller by ref) controls after adopting the orphans sel matches
// and releasing the ones it no longer matches (ClaimObject decides), each
// with an update conditional on the cached resourceVersion. Adoption waits
// for an uncached read confirming that owner still exists, with its UID,
// and is not being deleted. Errors are joined; an object that vanished is
// not one. Kubernetes: the ControllerRefManager's ClaimPods and
// ClaimControllerRevisions.
func ClaimAll[T api.Object](ctx context.Context, w OwnerWriter, resource string, ref api.OwnerReference, owner *api.ObjectMeta, sel api.Selector, objs []T, log *zap.Logger) ([]T, error) {
	var (
		owned   []T
		errs    []error
		checked bool
		adoptOK error
	)
	for _, o := range objs {
		m := o.GetObjectMeta()
		switch ClaimObject(owner, m, sel.Matches(m.Labels)) {
		case Keep:
			owned = append(owned, o)
		case Release:
			if err := setOwner(ctx, w, ref, o, false, log); err != nil && !apierrors.IsNotFound(err) && !apierrors.IsInvalid(err) {
				errs = append(errs, err)
			}
		case Adopt:
			if !checked {
				checked, adoptOK = true, RecheckOwner(ctx, w, resource, ref.Kind, owner)
			}
			if adoptOK != nil {
				errs = append(errs, fmt.Errorf("can't adopt %s: %w", api.KeyOf(m), adoptOK))
				continue
			}
			err := setOwner(ctx, w, ref, o, true, log)
			switch {
			case err == nil:
				owned = append(owned, o)
			case !apierrors.IsNotFound(err):
				errs = append(errs, err)
			}
		}
	}
	return owned, errors.Join(errs...)
}

// setOwner adopts o (makes ref its controller) or releases it (removes the
// references to ref's object). Kubernetes patches, with the UID as a
// precondition.
func setOwner(ctx context.Context, w OwnerWriter, ref api.OwnerReference, o api.Object, adopt bool, log *zap.Logger) error {
	next := o.DeepCopyObject()
	m := next.GetObjectMeta()
	m.OwnerReferences = slices.DeleteFunc(slices.Clone(m.OwnerReferences), func(r api.OwnerReference) bool {
		return r.UID == ref.UID
	})
	if adopt {
		m.OwnerReferences = append(m.OwnerReferences, ref)
	}
	if len(m.OwnerReferences) == 0 {
		m.OwnerReferences = nil
	}
	if _, err := w.Update(ctx, next); err != nil {
		return err
	}
	verb := "released"
	if adopt {
		verb = "adopted"
	}
	log.Info(verb, zap.String(ref.Kind, ref.Name), zap.String("object", api.KeyOf(m)))
	return nil
}

// ControllerKeys are the keys ("namespace/name") of the controllers of
// kind and apiVersion to sync for a change of the objects metas: the one
// each names as its controller, or, for an orphan not being deleted, each
// controller of its namespace (listed by list) whose selector (read by
// selector) selects it, as one may adopt it. Kubernetes: the addPod,
// updatePod, addHistory and updateHistory handlers of the daemon set and
// stateful set controllers.
func ControllerKeys[T api.Object](apiVersion, kind string, list func(namespace string) []T, selector func(T) *api.LabelSelector, metas ...*api.ObjectMeta) []string {
	var keys []string
	for _, m := range metas {
		if ref := api.GetControllerOf(m); ref != nil {
			if ref.Kind == kind && ref.APIVersion == apiVersion {
				keys = append(keys, m.Namespace+"/"+ref.Name)
			}
			continue
		}
		if m.DeletionTimestamp != nil {
			continue
		}
		for _, owner := range list(m.Namespace) {
			if sel, err := api.LabelSelectorAsSelector(selector(owner)); err == nil && !sel.Empty() && sel.Matches(m.Labels) {
				keys = append(keys, api.KeyOf(owner.GetObjectMeta()))
			}
		}
	}
	return keys
}
