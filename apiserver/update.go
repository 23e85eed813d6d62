package apiserver

import (
	"context"
	"errors"
	"maps"
	"reflect"
	"slices"
	"time"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/store"
)

// Update replaces an object's metadata and spec. A resourceVersion in obj
// makes the update conditional on it (a stale one gets Conflict); none makes
// it unconditional. Status is kept as stored; fields the server owns are
// kept; generation rises when the spec changes; an update that changes
// nothing writes nothing and returns the stored object. Removing the last
// finalizer of an object being deleted deletes it.
// Options qualify the write (client.DryRun, client.WithManagedFields,
// client.Handover).
func (s *Server) Update(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error) {
	return s.update(obj, false, writeOptionsOf(ctx, opts))
}

// UpdateStatus replaces an object's status and nothing else, with Update's
// concurrency rules. Kinds without a status subresource get MethodNotAllowed.
// Options qualify the write, as Update's do.
func (s *Server) UpdateStatus(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error) {
	return s.update(obj, true, writeOptionsOf(ctx, opts))
}

// UpdateApproval replaces a CertificateSigningRequest's status conditions
// and nothing else of its status: the approval subresource, through which
// an approver adds Approved or Denied. Its metadata is taken as a status
// update takes it. Kinds without it get MethodNotAllowed.
func (s *Server) UpdateApproval(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error) {
	o := writeOptionsOf(ctx, opts)
	o.approval = true
	return s.update(obj, true, o)
}

// UpdateEphemeralContainers replaces a pod's spec.ephemeralContainers and
// nothing else: the ephemeralcontainers subresource, through which kubectl
// debug adds a container to a running pod. Existing ephemeral containers
// may not be removed or changed. Other kinds get MethodNotAllowed.
func (s *Server) UpdateEphemeralContainers(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error) {
	o := writeOptionsOf(ctx, opts)
	o.ephemeralContainers = true
	return s.update(obj, false, o)
}

func (s *Server) update(obj api.Object, status bool, opts writeOptions) (api.Object, error) {
	k, err := s.kindOf(obj)
	if err != nil {
		return nil, err
	}
	if status && k.status == nil {
		return nil, apierrors.NewMethodNotSupported(k.gr, "update status")
	}
	if opts.approval && !k.approval {
		return nil, apierrors.NewMethodNotSupported(k.gr, "update approval")
	}
	if _, isPod := obj.(*api.Pod); opts.ephemeralContainers && !isPod {
		return nil, apierrors.NewMethodNotSupported(k.gr, "update ephemeralcontainers")
	}
	// A status update reads only the status of obj (withStatus copies it);
	// any other update stores obj itself, so it works on its own copy (or
	// on obj, handed over), or on obj converted to the stored kind.
	in := obj
	if (!status && !opts.Handover) || k.toStored != nil {
		in = k.in(obj)
	}
	m := in.GetObjectMeta()
	ns := m.Namespace
	if !k.namespaced {
		ns = ""
		if !status {
			m.Namespace = ""
		}
	}
	key := k.key(ns, m.Name)
	// wantRV is the client's precondition; the loop reuses in, so keep it.
	wantRV, wantUID := m.ResourceVersion, m.UID
	var charge *quotaCharge // what an update that grows usage adds to quotas
	defer func() { charge.done() }()
	for {
		cur, err := s.store.Get(key, 0)
		if err != nil {
			return nil, apierrors.NewNotFound(k.gr, m.Name)
		}
		old := cur.Value
		om := old.GetObjectMeta()
		if wantRV != "" && wantRV != om.ResourceVersion {
			return nil, apierrors.NewConflict(k.gr, m.Name, apierrors.ConflictModified)
		}
		if wantUID != "" && wantUID != om.UID {
			return nil, apierrors.NewConflict(k.gr, m.Name, "Precondition failed: UID in precondition: "+string(wantUID)+", UID in object meta: "+string(om.UID))
		}

		var next api.Object
		undo := func() {}
		if status {
			if opts.Handover && k.toStored == nil {
				next = k.status.take(old, in)
			} else {
				next = k.status.with(old, in)
			}
			if opts.ManagedFields != nil {
				next.GetObjectMeta().ManagedFields = opts.ManagedFields
			}
			if k.statusTakesAnnotations {
				// next's metadata is its own copy (with, take): replace the
				// map, never change the stored object's.
				next.GetObjectMeta().Annotations = maps.Clone(m.Annotations)
				if ds, ok := next.(*api.DaemonSet); ok {
					// The template generation is the spec's, which a
					// status update keeps.
					stampTemplateGeneration(ds, old.(*api.DaemonSet))
				}
			}
			if k.prepareStatus != nil {
				// The kind's status strategy changes next: on a copy of
				// its own, the rest being shared with the stored object.
				next = next.DeepCopyObject()
				if errs := k.prepareStatus(next, old, opts.approval, s.now()); len(errs) > 0 {
					return nil, apierrors.NewInvalid(k.gr.Group, k.kind, m.Name, errs)
				}
			}
			if k.custom != nil {
				// A custom resource's status is pruned, defaulted and
				// validated as a whole object, on a copy of its own: the
				// rest of next is shared with the stored object.
				next = next.DeepCopyObject()
				if k.storage != nil {
					// Served in another version: kube-apiserver defaults
					// the request by its version's schema, and takes only
					// its status (in is this call's own conversion).
					k.defaults(in)
					k.status.keep(next, in)
				}
				k.stored().defaults(next)
				if errs := k.custom.checkStatus(next, old); len(errs) > 0 {
					return nil, apierrors.NewInvalid(k.gr.Group, k.kind, m.Name, errs)
				}
			}
			if k.validateStatus != nil {
				if errs := k.validateStatus(next, old); len(errs) > 0 {
					return nil, apierrors.NewInvalid(k.gr.Group, k.kind, m.Name, errs)
				}
			}
		} else if opts.ephemeralContainers {
			pod, errs := prepareEphemeralContainersUpdate(in.(*api.Pod), old.(*api.Pod))
			if len(errs) > 0 {
				return nil, apierrors.NewInvalid(k.gr.Group, k.kind, m.Name, errs)
			}
			if opts.ManagedFields != nil {
				pod.Metadata.ManagedFields = opts.ManagedFields
			}
			next = pod
		} else {
			next, err = s.prepareUpdate(k, in, old, opts.finalize)
			if err != nil {
				return nil, err
			}
			if svc, ok := next.(*api.Service); ok && svc.Spec.ClusterIP == "" {
				// It newly needs an address (it was ExternalName).
				if undo, err = s.allocate(k, svc, opts.DryRun); err != nil {
					return nil, err
				}
			} else if ok {
				// It may newly need node ports (it was ClusterIP).
				if undo, err = s.allocateNodePorts(k, svc, nodePortsOf(old.(*api.Service)), opts.DryRun); err != nil {
					return nil, err
				}
			}
			charge.done()
			if charge, err = s.admitQuotaUpdate(k, next, old); err != nil {
				undo()
				return nil, err
			}
		}
		sub := ""
		if status {
			sub = "status"
		}
		if opts.approval {
			sub = "approval"
		}
		if opts.ephemeralContainers {
			sub = "ephemeralcontainers"
		}
		if err := s.admitPolicies(admissionRequest{k: k, operation: api.OperationUpdate, name: m.Name, ns: ns, subresource: sub,
			obj: next, old: old, dryRun: opts.DryRun, ctx: opts.ctx}); err != nil {
			undo()
			return nil, err
		}
		nm := next.GetObjectMeta()
		nm.ResourceVersion = om.ResourceVersion
		var unchanged bool
		if status && opts.ManagedFields == nil {
			unchanged = k.status.same(next, old) && // nothing else of old was replaced
				(!k.statusTakesAnnotations || maps.Equal(nm.Annotations, om.Annotations))
		} else {
			unchanged = k.equal(next, old)
		}
		if unchanged {
			undo()
			return k.out(old), nil // no change: no write, no event
		}
		if opts.DryRun {
			undo()
			return k.out(next), nil
		}
		if opts.fieldManager != "" {
			nm.ManagedFields = s.stamp(nm.ManagedFields, opts.fieldManager, sub, k.apiVersion)
		}

		if s.goneAfterUpdate(next) {
			if _, err := s.deleteKey(key, cur.ModRev); err == nil {
				s.dropGrace(key)
				s.release(old)
				if ce := s.log.Check(zap.DebugLevel, "deleted after its last finalizer"); ce != nil {
					ce.Write(zap.String("resource", k.gr.String()), zap.String("key", api.KeyOf(nm)))
				}
				return k.out(next), nil
			} else if !errors.Is(err, store.ErrConflict) {
				return nil, apierrors.NewInternalError(err)
			}
			continue // raced with another write: look again
		}

		// cur.Key, the string the store holds, rather than key, a copy
		// made for the lookup: every version of the object then shares
		// one key string in the store's tree and history.
		rec, err := s.store.Update(cur.Key, next, cur.ModRev)
		if err == nil {
			charge.commit()
			s.releaseReplaced(old, next)
			if crd, ok := rec.Value.(*api.CustomResourceDefinition); ok {
				s.crdWritten(crd)
			}
			return k.out(rec.Value), nil
		}
		undo()
		switch {
		case !errors.Is(err, store.ErrConflict):
			return nil, apierrors.NewInternalError(err)
		case wantRV != "":
			return nil, apierrors.NewConflict(k.gr, m.Name, apierrors.ConflictModified)
		}
		// An unconditional update lost a race: apply it to the new state.
	}
}

// prepareUpdate turns the client's object into the one to store over old:
// status and the server's metadata fields come from old, the per-kind
// defaults and update validation run, and generation follows the spec.
func (s *Server) prepareUpdate(k *kind, in, old api.Object, finalize bool) (api.Object, error) {
	m, om := in.GetObjectMeta(), old.GetObjectMeta()
	var sentFinalizers []string
	if ns, ok := in.(*api.Namespace); ok {
		sentFinalizers = ns.Spec.Finalizers
	}
	*in.GetTypeMeta() = *old.GetTypeMeta()
	if k.status != nil {
		k.status.keep(in, old)
	}
	if k.keepSpec {
		reflect.ValueOf(k.spec(in)).Elem().Set(reflect.ValueOf(k.spec(old)).Elem())
	}
	m.UID = om.UID
	m.CreationTimestamp = om.CreationTimestamp
	m.DeletionTimestamp = om.DeletionTimestamp
	m.DeletionGracePeriodSeconds = om.DeletionGracePeriodSeconds
	if svc, ok := in.(*api.Service); ok {
		dropTypeDependentFields(svc, old.(*api.Service))
		keepClusterIP(svc, old.(*api.Service))
		keepNodePorts(svc, old.(*api.Service))
		keepHealthCheckNodePort(svc, old.(*api.Service))
	}
	if p, ok := in.(*api.Pod); ok {
		keepPriority(p, old.(*api.Pod))
	}
	k.defaults(in)
	keepNamespaceFinalizers(in, old, finalize, sentFinalizers)
	errs := k.validateUpdate(in, old)
	if om.DeletionTimestamp != nil {
		for _, f := range m.Finalizers {
			if !slices.Contains(om.Finalizers, f) {
				errs = append(errs, Forbidden(NewPath("metadata", "finalizers"), "no new finalizers can be added if the object is being deleted, found new finalizers "+f))
				break
			}
		}
	}
	if len(errs) > 0 {
		sk := k.stored() // as on create: the stored kind names the object
		return nil, apierrors.NewInvalid(sk.gr.Group, sk.kind, m.Name, errs)
	}
	if pc, ok := in.(*api.PriorityClass); ok {
		if err := s.admitPriorityClass(pc, false); err != nil {
			return nil, err
		}
	}
	m.Generation = om.Generation
	if k.spec != nil && !reflect.DeepEqual(k.spec(in), k.spec(old)) ||
		k.generationFields != nil && !reflect.DeepEqual(k.generationFields(in), k.generationFields(old)) {
		m.Generation++
	}
	if ds, ok := in.(*api.DaemonSet); ok {
		stampTemplateGeneration(ds, old.(*api.DaemonSet))
	}
	return in, nil
}

// releaseReplaced gives back what an update took away from an object: the
// cluster IP of a service that became ExternalName, the node ports of one
// that became ClusterIP or dropped a port.
func (s *Server) releaseReplaced(old, next api.Object) {
	o, ok := old.(*api.Service)
	if !ok {
		return
	}
	n := next.(*api.Service)
	if n.Spec.ClusterIP != o.Spec.ClusterIP && o.Spec.ClusterIP != "" && o.Spec.ClusterIP != api.ClusterIPNone {
		s.ips.release(o.Spec.ClusterIP)
	}
	kept := nodePortsOf(n)
	for p := range nodePortsOf(o) {
		if !kept[p] {
			s.nodePorts.release(p)
		}
	}
}

// dropTypeDependentFields clears, on an update that makes a service
// ExternalName, what only an addressed service has, where the update left
// it as it was (the server's doing, or the client's copy of it): the
// cluster IPs (released once the update is stored), their families and
// policy, and the internal traffic policy. A value the update changed
// stays, for validation to refuse. keepNodePorts does the same for node
// ports. Kubernetes: the service strategy's dropTypeDependentFields.
func dropTypeDependentFields(svc, old *api.Service) {
	if old.Spec.Type == api.ServiceTypeExternalName || svc.Spec.Type != api.ServiceTypeExternalName {
		return
	}
	if svc.Spec.ClusterIP == old.Spec.ClusterIP && slices.Equal(svc.Spec.ClusterIPs, old.Spec.ClusterIPs) {
		svc.Spec.ClusterIP, svc.Spec.ClusterIPs = "", nil
	}
	if slices.Equal(svc.Spec.IPFamilies, old.Spec.IPFamilies) {
		svc.Spec.IPFamilies = nil
	}
	if equalPtr(svc.Spec.IPFamilyPolicy, old.Spec.IPFamilyPolicy) {
		svc.Spec.IPFamilyPolicy = nil
	}
	if equalPtr(svc.Spec.InternalTrafficPolicy, old.Spec.InternalTrafficPolicy) {
		svc.Spec.InternalTrafficPolicy = nil
	}
}

// keepClusterIP carries a service's allocated cluster IP into an update that
// leaves it empty, as Kubernetes does, so that clients that never saw the IP
// can still update the service.
func keepClusterIP(svc, old *api.Service) {
	if svc.Spec.Type == api.ServiceTypeExternalName {
		return // an ExternalName service has no cluster IP
	}
	if svc.Spec.ClusterIP == "" {
		svc.Spec.ClusterIP = old.Spec.ClusterIP
	}
	if len(svc.Spec.ClusterIPs) == 0 {
		svc.Spec.ClusterIPs = old.Spec.ClusterIPs
	}
}

// graceOver reports whether an object marked for deletion has no grace
// period left to wait for: none was given, it was zero, or it has ended.
func graceOver(m *api.ObjectMeta, now time.Time) bool {
	return m.DeletionGracePeriodSeconds == nil || *m.DeletionGracePeriodSeconds == 0 || !now.Before(m.DeletionTimestamp.Time)
}
