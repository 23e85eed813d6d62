package apiserver

import (
	"fmt"

	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver/rbac"
)

// rbacKinds are rbac.authorization.k8s.io/v1's Roles, RoleBindings,
// ClusterRoles and ClusterRoleBindings: what the RBAC authorizer reads
// (apiserver/rbac) and the clusterrole-aggregation controller writes.
func rbacKinds() []*kind {
	const group, apiVersion = api.RBACGroupName, api.RBACGroupName + "/v1"
	return []*kind{
		typed(&kind{
			gr: apierrors.GroupResource{Group: group, Resource: "roles"}, kind: "Role", apiVersion: apiVersion, namespaced: true,
			newObj: func() api.Object { return &api.Role{} }, columns: roleColumns,
		}, defaultRole, validateRole, validateRoleUpdate),
		typed(&kind{
			gr: apierrors.GroupResource{Group: group, Resource: "rolebindings"}, kind: "RoleBinding", apiVersion: apiVersion, namespaced: true,
			newObj: func() api.Object { return &api.RoleBinding{} },
			columns: bindingColumns("RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.", func(o api.Object) (api.RoleRef, []api.Subject) {
				b := o.(*api.RoleBinding)
				return b.RoleRef, b.Subjects
			}),
		}, defaultRoleBinding, validateRoleBinding, validateRoleBindingUpdate),
		typed(&kind{
			gr: apierrors.GroupResource{Group: group, Resource: "clusterroles"}, kind: "ClusterRole", apiVersion: apiVersion,
			newObj: func() api.Object { return &api.ClusterRole{} }, columns: roleColumns,
		}, defaultClusterRole, validateClusterRole, validateClusterRoleUpdate),
		typed(&kind{
			gr: apierrors.GroupResource{Group: group, Resource: "clusterrolebindings"}, kind: "ClusterRoleBinding", apiVersion: apiVersion,
			newObj: func() api.Object { return &api.ClusterRoleBinding{} },
			columns: bindingColumns("RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.", func(o api.Object) (api.RoleRef, []api.Subject) {
				b := o.(*api.ClusterRoleBinding)
				return b.RoleRef, b.Subjects
			}),
		}, defaultClusterRoleBinding, validateClusterRoleBinding, validateClusterRoleBindingUpdate),
	}
}

// roleColumns are kubectl's columns for roles and cluster roles, as
// Kubernetes' printRole and printClusterRole print them.
var roleColumns = []Column{nameColumn,
	{Name: "Created At", Type: "date", Description: "CreationTimestamp is a timestamp representing the server time when this object was created.",
		Cell: createdAt}}

// createdAt is a "Created At" cell: the creation time in RFC 3339, UTC.
func createdAt(o api.Object) any {
	return o.GetObjectMeta().CreationTimestamp.UTC().Format("2006-01-02T15:04:05Z")
}

// bindingColumns are kubectl's columns for role bindings and cluster role
// bindings, as Kubernetes' printRoleBinding prints them: the role, then
// with -o wide the subjects by kind. of reads a binding's role and
// subjects.
func bindingColumns(roleDoc string, of func(api.Object) (api.RoleRef, []api.Subject)) []Column {
	subjects := func(kind string) func(api.Object) any {
		return func(o api.Object) any {
			_, subjects := of(o)
			return strings.Join(subjectNames(subjects, kind), ", ")
		}
	}
	return []Column{nameColumn,
		{Name: "Role", Type: "string", Description: roleDoc,
			Cell: func(o api.Object) any { ref, _ := of(o); return ref.Kind + "/" + ref.Name }},
		ageColumn,
		{Name: "Users", Type: "string", Priority: 1, Description: "Users in the roleBinding", Cell: subjects(api.SubjectKindUser)},
		{Name: "Groups", Type: "string", Priority: 1, Description: "Groups in the roleBinding", Cell: subjects(api.SubjectKindGroup)},
		{Name: "ServiceAccounts", Type: "string", Priority: 1, Description: "ServiceAccounts in the roleBinding", Cell: subjects(api.SubjectKindServiceAccount)},
	}
}

// subjectNames are the names of the subjects of one kind, a service
// account as namespace/name when it has a namespace. Kubernetes:
// rbac.SubjectsStrings.
func subjectNames(subjects []api.Subject, kind string) []string {
	var names []string
	for _, s := range subjects {
		if s.Kind != kind {
			continue
		}
		if kind == api.SubjectKindServiceAccount && s.Namespace != "" {
			names = append(names, s.Namespace+"/"+s.Name)
			continue
		}
		names = append(names, s.Name)
	}
	return names
}

// createBootstrapPolicy creates the default cluster roles and bindings.
func (s *Server) createBootstrapPolicy() error {
	for _, r := range rbac.BootstrapClusterRoles() {
		if err := s.ensure(r); err != nil {
			return fmt.Errorf("apiserver: creating cluster role %s: %w", r.Metadata.Name, err)
		}
	}
	for _, b := range rbac.BootstrapClusterRoleBindings() {
		if err := s.ensure(b); err != nil {
			return fmt.Errorf("apiserver: creating cluster role binding %s: %w", b.Metadata.Name, err)
		}
	}
	return nil
}
