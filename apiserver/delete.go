package apiserver

import (
	"context"
	"errors"
	"slices"
	"time"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/store"
)

// Delete deletes an object, or marks it for deletion and returns it:
//   - a pod bound to a node gets a grace period (opts.GracePeriodSeconds, else
//     its spec's, else 30 s): it is marked with a deletionTimestamp that far
//     ahead and removed when the period ends (Sweep) or when its kubelet
//     deletes it again with grace 0; a later delete may shorten the period;
//   - an object with finalizers is only marked, and is removed by the update
//     that removes its last finalizer;
//   - the propagation policy (opts, else the one an earlier delete recorded
//     in the object's finalizers, else the kind's default: Orphan for
//     replication controllers as in Kubernetes' v1 API, Background for the
//     rest) is recorded for the garbage collector: Orphan adds the "orphan"
//     finalizer, Foreground "foregroundDeletion".
//
// Preconditions on uid and resourceVersion that do not hold get Conflict.
func (s *Server) Delete(ctx context.Context, resource, namespace, name string, opts api.DeleteOptions) (api.Object, error) {
	k, err := s.kindFor(resource)
	if err != nil {
		return nil, err
	}
	if !k.namespaced {
		namespace = ""
	}
	policy, err := propagation(k, opts)
	if err != nil {
		return nil, err
	}
	if k.gr.Resource == client.Namespaces {
		if err := checkNamespaceDeletable(k, name); err != nil {
			return nil, err
		}
	}
	key := k.key(namespace, name)
	for {
		cur, err := s.store.Get(key, 0)
		if err != nil {
			return nil, apierrors.NewNotFound(k.gr, name)
		}
		old := cur.Value
		if err := checkPreconditions(k, name, old.GetObjectMeta(), opts.Preconditions); err != nil {
			return nil, err
		}
		if err := s.admitPolicies(admissionRequest{k: k, operation: api.OperationDelete, name: name, ns: namespace,
			old: old, dryRun: slices.Contains(opts.DryRun, api.DryRunAll), ctx: ctx}); err != nil {
			return nil, err
		}
		if slices.Contains(opts.DryRun, api.DryRunAll) {
			return k.out(old), nil
		}
		next, remove := s.planDelete(k, old, policyOf(k, policy, old.GetObjectMeta().Finalizers), opts.GracePeriodSeconds)
		if remove {
			_, err = s.deleteKey(key, cur.ModRev)
			if err == nil {
				s.dropGrace(key)
				if s.kubernetesServiceKey(key) || s.mandatoryFlowControlKey(key) {
					s.noteKubernetesServiceGone(key) // Sweep puts it back
				}
				s.release(old)
				if ce := s.log.Check(zap.DebugLevel, "deleted"); ce != nil {
					ce.Write(zap.String("resource", k.gr.String()), zap.String("key", api.KeyOf(old.GetObjectMeta())))
				}
				return k.out(old), nil
			}
		} else {
			if next == nil {
				return k.out(old), nil // already marked as asked: nothing to write
			}
			var rec store.Record[api.Object]
			rec, err = s.store.Update(cur.Key, next, cur.ModRev) // the stored key string, as update does
			if err == nil {
				s.noteGrace(cur.Key, next)
				if ce := s.log.Check(zap.DebugLevel, "marked for deletion"); ce != nil {
					ce.Write(zap.String("resource", k.gr.String()), zap.String("key", api.KeyOf(next.GetObjectMeta())))
				}
				return k.out(rec.Value), nil
			}
		}
		if !errors.Is(err, store.ErrConflict) {
			return nil, apierrors.NewInternalError(err)
		}
		// Another write came first; decide again on the new state.
	}
}

// planDelete decides what a delete does to old: remove it now, or store next
// (old marked for deletion); next is nil when old is already marked as
// asked.
func (s *Server) planDelete(k *kind, old api.Object, policy api.DeletionPropagation, requested *int64) (next api.Object, remove bool) {
	om := old.GetObjectMeta()
	finalizers := gcFinalizers(om.Finalizers, policy)

	var grace int64
	if k.graceSeconds != nil {
		grace = k.graceSeconds(old)
		if requested != nil && grace > 0 {
			grace = max(*requested, 0)
		}
	}
	if ns, ok := old.(*api.Namespace); ok && len(ns.Spec.Finalizers) > 0 {
		// A namespace first empties out (Sweep deletes its content), then goes.
		if om.DeletionTimestamp != nil && slices.Equal(finalizers, om.Finalizers) {
			return nil, false
		}
		next = k.shallowCopy(old)
		nm := next.GetObjectMeta()
		next.(*api.Namespace).Status.Phase = api.NamespaceTerminating
		if om.DeletionTimestamp == nil {
			ts := s.now()
			nm.DeletionTimestamp, nm.DeletionGracePeriodSeconds = &ts, ptr(int64(0))
		}
		nm.Finalizers = finalizers
		return next, false
	}

	if om.DeletionTimestamp != nil {
		// Already being deleted: the policy may change the finalizers, and
		// a shorter grace period may bring the deadline forward.
		started := om.DeletionTimestamp.Add(-time.Duration(deref(om.DeletionGracePeriodSeconds)) * time.Second)
		shorter := om.DeletionGracePeriodSeconds != nil && grace < *om.DeletionGracePeriodSeconds
		if shorter && grace == 0 && len(finalizers) == 0 {
			return nil, true
		}
		if !shorter && slices.Equal(finalizers, om.Finalizers) {
			return nil, false
		}
		next = k.shallowCopy(old)
		nm := next.GetObjectMeta()
		nm.Finalizers = finalizers
		if shorter {
			nm.DeletionTimestamp, nm.DeletionGracePeriodSeconds = s.shared.deletionMark(api.NewTime(started.Add(time.Duration(grace)*time.Second)), grace)
		}
		return next, false
	}

	if grace == 0 && len(finalizers) == 0 {
		return nil, true
	}
	next = k.shallowCopy(old)
	nm := next.GetObjectMeta()
	nm.DeletionTimestamp, nm.DeletionGracePeriodSeconds = s.shared.deletionMark(api.NewTime(s.clock.Now().Add(time.Duration(grace)*time.Second)), grace)
	nm.Finalizers = finalizers
	nm.Generation++
	return next, false
}

// gcFinalizers returns finalizers with the garbage collector's two set as
// policy asks: "orphan" for Orphan, "foregroundDeletion" for Foreground,
// neither for Background. It returns a new slice when it changes anything.
func gcFinalizers(finalizers []string, policy api.DeletionPropagation) []string {
	wantOrphan, wantForeground := policy == api.DeletePropagationOrphan, policy == api.DeletePropagationForeground
	hasOrphan, hasForeground := slices.Contains(finalizers, api.FinalizerOrphanDependents), slices.Contains(finalizers, api.FinalizerDeleteDependents)
	if hasOrphan == wantOrphan && hasForeground == wantForeground {
		return finalizers // the common case: a pod with neither, deleted in the background
	}
	out := make([]string, 0, len(finalizers)+1)
	for _, f := range finalizers {
		if (f == api.FinalizerOrphanDependents && !wantOrphan) || (f == api.FinalizerDeleteDependents && !wantForeground) {
			continue
		}
		out = append(out, f)
	}
	if wantOrphan && !hasOrphan {
		out = append(out, api.FinalizerOrphanDependents)
	}
	if wantForeground && !hasForeground {
		out = append(out, api.FinalizerDeleteDependents)
	}
	return out
}

// policyOf is the policy a delete applies to an object with the given
// finalizers: the one its options name (policy), else the one an earlier
// delete recorded in its finalizers — a kubelet's delete with grace 0 of a
// pod deleted in the foreground keeps it in the foreground — else the
// kind's default. Kubernetes: shouldOrphanDependents and
// shouldDeleteDependents in the generic registry's store.
func policyOf(k *kind, policy api.DeletionPropagation, finalizers []string) api.DeletionPropagation {
	switch {
	case policy != "":
		return policy
	case slices.Contains(finalizers, api.FinalizerOrphanDependents):
		return api.DeletePropagationOrphan
	case slices.Contains(finalizers, api.FinalizerDeleteDependents):
		return api.DeletePropagationForeground
	case k.defaultPropagation != "":
		return k.defaultPropagation
	}
	return api.DeletePropagationBackground
}

// propagation resolves a delete's explicit policy: opts.PropagationPolicy,
// or the deprecated opts.OrphanDependents; "" when opts name none.
func propagation(k *kind, opts api.DeleteOptions) (api.DeletionPropagation, error) {
	if opts.PropagationPolicy != nil && opts.OrphanDependents != nil {
		return "", apierrors.NewInvalid("meta.k8s.io", "DeleteOptions", "", apierrors.FieldErrors{
			Invalid(NewPath("propagationPolicy"), string(*opts.PropagationPolicy), "orphanDependents and deletionPropagation cannot be both set"),
		})
	}
	switch {
	case opts.PropagationPolicy != nil:
		p := *opts.PropagationPolicy
		switch p {
		case api.DeletePropagationOrphan, api.DeletePropagationBackground, api.DeletePropagationForeground:
			return p, nil
		}
		return "", apierrors.NewInvalid("meta.k8s.io", "DeleteOptions", "", apierrors.FieldErrors{
			NotSupported(NewPath("propagationPolicy"), string(p), string(api.DeletePropagationForeground), string(api.DeletePropagationBackground), string(api.DeletePropagationOrphan)),
		})
	case opts.OrphanDependents != nil && *opts.OrphanDependents:
		return api.DeletePropagationOrphan, nil
	case opts.OrphanDependents != nil:
		return api.DeletePropagationBackground, nil
	}
	return "", nil
}

// checkPreconditions enforces a delete's uid and resourceVersion
// preconditions.
func checkPreconditions(k *kind, name string, m *api.ObjectMeta, p *api.Preconditions) error {
	if p == nil {
		return nil
	}
	if p.UID != nil && *p.UID != m.UID {
		return apierrors.NewConflict(k.gr, name, "Precondition failed: UID in precondition: "+string(*p.UID)+", UID in object meta: "+string(m.UID))
	}
	if p.ResourceVersion != nil && *p.ResourceVersion != m.ResourceVersion {
		return apierrors.NewConflict(k.gr, name, "Precondition failed: ResourceVersion in precondition: "+*p.ResourceVersion+", ResourceVersion in object meta: "+m.ResourceVersion)
	}
	return nil
}

// undeletableNamespaces are the namespaces Kubernetes refuses to delete.
var undeletableNamespaces = []string{"default", "kube-system", "kube-public"}

func checkNamespaceDeletable(k *kind, name string) error {
	if slices.Contains(undeletableNamespaces, name) {
		return apierrors.NewForbidden(k.gr, name, "this namespace may not be deleted")
	}
	return nil
}

// release gives back what a deleted object held outside the store.
func (s *Server) release(obj api.Object) {
	if crd, ok := obj.(*api.CustomResourceDefinition); ok {
		s.crdRemoved(crd)
		return
	}
	svc, ok := obj.(*api.Service)
	if !ok {
		return
	}
	if svc.Spec.ClusterIP != "" && svc.Spec.ClusterIP != api.ClusterIPNone {
		s.ips.release(svc.Spec.ClusterIP)
	}
	for p := range nodePortsOf(svc) {
		s.nodePorts.release(p)
	}
}

func ptr[T any](v T) *T { return &v }

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
