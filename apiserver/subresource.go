package apiserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/store"
)

var scaleGR = apierrors.GroupResource{Group: "autoscaling", Resource: "scale"}

// scaleHooks are what the scale subresource reads and writes of a kind
// with one (replication controllers, replica sets, stateful sets): the
// desired replicas, and the observed replicas and selector in string form.
type scaleHooks struct {
	replicas func(api.Object) *int32
	// set sets the desired replicas of an object the server owns.
	set    func(obj api.Object, replicas int32)
	status func(api.Object) (replicas int32, selector string)
}

// GetScale returns the scale subresource (autoscaling/v1 Scale) of an
// object of resource (client.ReplicationControllers, ReplicaSets,
// StatefulSets): desired replicas, observed replicas, and the selector as a
// string; NotFound for a resource without one. The resource comes first, as
// in client-go's scale client (Scales(ns).Get(ctx, resource, name)).
func (s *Server) GetScale(_ context.Context, resource, namespace, name string) (*api.Scale, error) {
	k, err := s.scaledKind(resource)
	if err != nil {
		return nil, err
	}
	rec, err := s.store.Get(k.key(namespace, name), 0)
	if err != nil {
		return nil, apierrors.NewNotFound(k.gr, name)
	}
	return scaleOf(k, rec.Value), nil
}

// scaledKind returns the kind of resource if it has a scale subresource.
func (s *Server) scaledKind(resource string) (*kind, error) {
	k, err := s.kindFor(resource)
	if err != nil {
		return nil, err
	}
	if k.scale == nil {
		return nil, apierrors.NewWithReason(api.StatusReasonNotFound,
			fmt.Sprintf("the server could not find the requested resource (%s/scale)", resource), nil)
	}
	return k, nil
}

func scaleOf(k *kind, obj api.Object) *api.Scale {
	m := obj.GetObjectMeta()
	replicas, selector := k.scale.status(obj)
	return &api.Scale{
		TypeMeta: api.TypeMeta{APIVersion: "autoscaling/v1", Kind: "Scale"},
		Metadata: api.ObjectMeta{
			Name: m.Name, Namespace: m.Namespace, UID: m.UID,
			ResourceVersion: m.ResourceVersion, CreationTimestamp: m.CreationTimestamp,
		},
		Spec:   api.ScaleSpec{Replicas: deref(k.scale.replicas(obj))},
		Status: api.ScaleStatus{Replicas: replicas, Selector: selector},
	}
}

// UpdateScale sets the spec.replicas of an object of resource
// (client.ReplicationControllers, ReplicaSets, StatefulSets) from a Scale,
// conditionally on the Scale's resourceVersion when it has one, and returns
// the new Scale. Nothing else of the object changes. Options qualify the
// write (client.DryRun, client.WithManagedFields).
func (s *Server) UpdateScale(ctx context.Context, resource, namespace string, scale *api.Scale, opts ...client.WriteOption) (*api.Scale, error) {
	o := client.NewWriteOptions(opts...)
	k, err := s.scaledKind(resource)
	if err != nil {
		return nil, err
	}
	name := scale.Metadata.Name
	if scale.Spec.Replicas < 0 {
		return nil, apierrors.NewInvalid(scaleGR.Group, "Scale", name, apierrors.FieldErrors{
			Invalid(NewPath("spec", "replicas"), scale.Spec.Replicas, "must be greater than or equal to 0"),
		})
	}
	key := k.key(namespace, name)
	for {
		rec, err := s.store.Get(key, 0)
		if err != nil {
			return nil, apierrors.NewNotFound(k.gr, name)
		}
		cur := rec.Value
		if rv := scale.Metadata.ResourceVersion; rv != "" && rv != cur.GetObjectMeta().ResourceVersion {
			return nil, apierrors.NewConflict(k.gr, name, apierrors.ConflictModified)
		}
		if deref(k.scale.replicas(cur)) == scale.Spec.Replicas {
			return scaleOf(k, cur), nil
		}
		// The spec is shared with cur: set works on a copy of the
		// top-level struct, whose Spec is a value; only the pointer
		// field replicas is replaced, never written through.
		next := k.shallowCopy(cur)
		k.scale.set(next, scale.Spec.Replicas)
		nm := next.GetObjectMeta()
		nm.Generation++
		if o.ManagedFields != nil {
			nm.ManagedFields = o.ManagedFields
		}
		if err := s.admitPolicies(admissionRequest{k: k, operation: api.OperationUpdate, name: name, ns: namespace, subresource: "scale",
			obj: scaleOf(k, next), old: scaleOf(k, cur), dryRun: o.DryRun, ctx: ctx}); err != nil {
			return nil, err
		}
		if o.DryRun {
			return scaleOf(k, next), nil
		}
		rec, err = s.store.Update(rec.Key, next, rec.ModRev) // the stored key string, as update does
		switch {
		case err == nil:
			return scaleOf(k, rec.Value), nil
		case !errors.Is(err, store.ErrConflict):
			return nil, apierrors.NewInternalError(err)
		case scale.Metadata.ResourceVersion != "":
			return nil, apierrors.NewConflict(k.gr, name, apierrors.ConflictModified)
		}
	}
}

// Bind assigns a pending pod to a node, as the scheduler does through the
// pods/binding subresource: it sets spec.nodeName (which an update may not
// change) and the PodScheduled condition. A pod already bound gets
// Conflict; one being deleted, Forbidden.
func (s *Server) Bind(_ context.Context, namespace, name, node string) (*api.Pod, error) {
	k := s.kinds[client.Pods]
	if node == "" {
		return nil, apierrors.NewInvalid("", "Binding", name, apierrors.FieldErrors{Required(NewPath("target", "name"), "")})
	}
	key := k.key(namespace, name)
	for {
		rec, err := s.store.Get(key, 0)
		if err != nil {
			return nil, apierrors.NewNotFound(k.gr, name)
		}
		pod := rec.Value.(*api.Pod)
		if pod.Spec.NodeName != "" {
			return nil, apierrors.NewConflict(k.gr, name, fmt.Sprintf("pod %s is already assigned to node %q", name, pod.Spec.NodeName))
		}
		if pod.Metadata.DeletionTimestamp != nil {
			return nil, apierrors.NewForbidden(k.gr, name, "pod is being deleted")
		}
		next := shallowCopy(pod).(*api.Pod)
		next.Spec.NodeName = node
		next.Status.Conditions = s.scheduledConditions(pod.Status.Conditions, s.now())
		rec, err = s.store.Update(rec.Key, next, rec.ModRev) // the stored key string, as update does
		if err == nil {
			return rec.Value.(*api.Pod), nil
		}
		if !errors.Is(err, store.ErrConflict) {
			return nil, apierrors.NewInternalError(err)
		}
	}
}

// scheduledConditions returns conds with PodScheduled set True since now.
// A pod with no conditions yet (every pod the scheduler binds) gets the
// list shared by every pod bound in the same second (sharedPieces).
func (s *Server) scheduledConditions(conds []api.PodCondition, now api.Time) []api.PodCondition {
	if len(conds) == 0 {
		return s.shared.scheduledConditions(now)
	}
	out := make([]api.PodCondition, 0, len(conds)+1) // one allocation
	for _, c := range conds {
		if c.Type != api.PodScheduled {
			out = append(out, c)
		}
	}
	return append(out, api.PodCondition{Type: api.PodScheduled, Status: api.ConditionTrue, LastTransitionTime: now})
}

// DeleteCollection deletes (or marks, as Delete does) every object the list
// options select, and returns them as they were left.
func (s *Server) DeleteCollection(ctx context.Context, resource, namespace string, listOpts client.ListOptions, opts api.DeleteOptions) (*client.List, error) {
	l, err := s.List(ctx, resource, namespace, listOpts)
	if err != nil {
		return nil, err
	}
	out := &client.List{Metadata: l.Metadata}
	for _, obj := range l.Items {
		m := obj.GetObjectMeta()
		got, err := s.Delete(ctx, resource, m.Namespace, m.Name, opts)
		if apierrors.IsNotFound(err) {
			continue // deleted by someone else meanwhile
		}
		if err != nil {
			return out, err
		}
		out.Items = append(out.Items, got)
	}
	return out, nil
}
