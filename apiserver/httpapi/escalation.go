package httpapi

import (
	"net/http"
	"reflect"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver/rbac"
)

// rbacGroup is the group of roles and bindings.
const rbacGroup = "rbac.authorization.k8s.io"

// fullAuthority is cluster-admin's rules: what an aggregating cluster
// role's writer must hold. Kubernetes: clusterrole/policybased.fullAuthority.
var fullAuthority = []api.PolicyRule{
	{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}},
	{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}},
}

// checkEscalation refuses, as kube-apiserver's RBAC storage does, a role
// or cluster role that grants what the requester does not hold unless
// they may "escalate" it, and a binding to a role they could not grant
// unless they may "bind" it; members of system:masters pass. old is the
// stored object on update (nil on create): an update changing only
// ownerReferences and finalizers passes, as the garbage collector's must.
// Only under RBAC authorization (h.authz set). Kubernetes: the
// policybased Create and Update of roles, cluster roles, role bindings
// and cluster role bindings.
func (h *Handler) checkEscalation(r *http.Request, obj, old api.Object) error {
	if h.authz == nil {
		return nil
	}
	u := userOf(r)
	if rbac.EscalationAllowed(u) || onlyGCFields(obj, old) {
		return nil
	}
	ctx := r.Context()
	var (
		resource, namespace, name string
		rules                     []api.PolicyRule
		ref                       *api.RoleRef
		aggregates                bool
	)
	switch o := obj.(type) {
	case *api.Role:
		resource, namespace, name, rules = "roles", o.Metadata.Namespace, o.Metadata.Name, o.Rules
	case *api.ClusterRole:
		resource, name, rules = "clusterroles", o.Metadata.Name, o.Rules
		aggregates = o.AggregationRule != nil
		if c, ok := old.(*api.ClusterRole); ok && c.AggregationRule != nil {
			aggregates = true
		}
	case *api.RoleBinding:
		resource, namespace, name, ref = "rolebindings", o.Metadata.Namespace, o.Metadata.Name, &o.RoleRef
	case *api.ClusterRoleBinding:
		resource, name, ref = "clusterrolebindings", o.Metadata.Name, &o.RoleRef
	default:
		return nil
	}
	gr := apierrors.GroupResource{Group: rbacGroup, Resource: resource}
	owner, _ := h.authz.Rules(ctx, u, namespace)
	if ref == nil {
		if ok, _ := h.authz.Authorize(ctx, rbac.Attributes{User: u, Verb: "escalate", ResourceRequest: true, APIGroup: rbacGroup,
			APIVersion: "*", Resource: resource, Namespace: namespace, Name: name}); ok {
			return nil
		}
		if err := rbac.ConfirmNoEscalation(u, owner, rules); err != nil {
			return apierrors.NewForbidden(gr, name, err.Error())
		}
		if aggregates && rbac.ConfirmNoEscalation(u, owner, fullAuthority) != nil {
			return apierrors.NewForbidden(gr, name, "must have cluster-admin privileges to use the aggregationRule")
		}
		return nil
	}
	refResource := "clusterroles"
	if ref.Kind == "Role" {
		refResource = "roles"
	}
	if ok, _ := h.authz.Authorize(ctx, rbac.Attributes{User: u, Verb: "bind", ResourceRequest: true, APIGroup: ref.APIGroup,
		APIVersion: "*", Resource: refResource, Namespace: namespace, Name: ref.Name}); ok {
		return nil
	}
	granted, err := h.authz.RoleRefRules(ctx, *ref, namespace)
	if err != nil {
		return err
	}
	if err := rbac.ConfirmNoEscalation(u, owner, granted); err != nil {
		return apierrors.NewForbidden(gr, name, err.Error())
	}
	return nil
}

// onlyGCFields reports whether obj differs from old in its
// ownerReferences and finalizers only. Kubernetes: IsOnlyMutatingGCFields.
func onlyGCFields(obj, old api.Object) bool {
	if old == nil || reflect.ValueOf(old).IsNil() {
		return false
	}
	c := obj.DeepCopyObject()
	m, om := c.GetObjectMeta(), old.GetObjectMeta()
	m.OwnerReferences, m.Finalizers = om.OwnerReferences, om.Finalizers
	*c.GetTypeMeta() = *old.GetTypeMeta()
	return reflect.DeepEqual(c, old)
}
