package rbac_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver/rbac"
)

// staticSource is a Source over fixed objects.
type staticSource struct {
	roles        []*api.Role
	clusterRoles []*api.ClusterRole
	bindings     []*api.RoleBinding
	clusterBinds []*api.ClusterRoleBinding
}

func (s staticSource) ClusterRoleBindings(context.Context) ([]*api.ClusterRoleBinding, error) {
	return s.clusterBinds, nil
}

func (s staticSource) RoleBindings(_ context.Context, ns string) ([]*api.RoleBinding, error) {
	var out []*api.RoleBinding
	for _, b := range s.bindings {
		if b.Metadata.Namespace == ns {
			out = append(out, b)
		}
	}
	return out, nil
}

func (s staticSource) ClusterRole(_ context.Context, name string) (*api.ClusterRole, error) {
	for _, r := range s.clusterRoles {
		if r.Metadata.Name == name {
			return r, nil
		}
	}
	return nil, fmt.Errorf("clusterrole.rbac.authorization.k8s.io %q not found", name)
}

func (s staticSource) Role(_ context.Context, ns, name string) (*api.Role, error) {
	for _, r := range s.roles {
		if r.Metadata.Namespace == ns && r.Metadata.Name == name {
			return r, nil
		}
	}
	return nil, fmt.Errorf("role.rbac.authorization.k8s.io %q not found", name)
}

func newRule(verbs, groups, resources, urls string) api.PolicyRule {
	split := func(s string) []string {
		if s == "" {
			return nil
		}
		var out []string
		start := 0
		for i := 0; i <= len(s); i++ {
			if i == len(s) || s[i] == ',' {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
		return out
	}
	return api.PolicyRule{Verbs: split(verbs), APIGroups: split(groups), Resources: split(resources), NonResourceURLs: split(urls)}
}

func resourceRequest(user, verb, group, ns, resource, sub, name string, groups ...string) rbac.Attributes {
	return rbac.Attributes{User: rbac.User{Name: user, Groups: groups}, Verb: verb, ResourceRequest: true,
		APIGroup: group, Namespace: ns, Resource: resource, Subresource: sub, Name: name}
}

func pathRequest(user, verb, path string) rbac.Attributes {
	return rbac.Attributes{User: rbac.User{Name: user}, Verb: verb, Path: path}
}

// TestAuthorizer ports the scenarios of Kubernetes' rbac_test.go
// TestAuthorizer.
func TestAuthorizer(t *testing.T) {
	tests := []struct {
		name   string
		src    staticSource
		allow  []rbac.Attributes
		deny   []rbac.Attributes
		reason string // of the first allowed request
	}{
		{
			name: "cluster role through a role binding, namespaced only",
			src: staticSource{
				clusterRoles: []*api.ClusterRole{{Metadata: api.ObjectMeta{Name: "admin"}, Rules: []api.PolicyRule{newRule("*", "*", "*", "")}}},
				bindings: []*api.RoleBinding{{Metadata: api.ObjectMeta{Name: "admin", Namespace: "ns1"},
					Subjects: []api.Subject{{Kind: "User", Name: "admin"}, {Kind: "Group", Name: "admins"}},
					RoleRef:  api.RoleRef{Kind: "ClusterRole", Name: "admin"}}},
			},
			allow: []rbac.Attributes{
				resourceRequest("admin", "get", "", "ns1", "pods", "", ""),
				resourceRequest("admin", "watch", "", "ns1", "services", "", ""),
				resourceRequest("xyz", "get", "", "ns1", "pods", "", "", "admins"),
			},
			deny: []rbac.Attributes{
				resourceRequest("xyz", "get", "", "ns1", "pods", "", ""),
				resourceRequest("admin", "get", "", "ns2", "pods", "", ""),
				resourceRequest("admin", "get", "", "", "nodes", "", ""),
				pathRequest("admin", "get", "/api"),
			},
			reason: `RBAC: allowed by RoleBinding "admin/ns1" of ClusterRole "admin" to User "admin"`,
		},
		{
			name: "non-resource URLs through a cluster role binding",
			src: staticSource{
				clusterRoles: []*api.ClusterRole{{Metadata: api.ObjectMeta{Name: "nonresource"}, Rules: []api.PolicyRule{
					newRule("get", "", "", "/foo,/bar/*,/api/v1*"), newRule("post", "", "", "/foo/*")}}},
				clusterBinds: []*api.ClusterRoleBinding{{Metadata: api.ObjectMeta{Name: "nr"},
					Subjects: []api.Subject{{Kind: "User", Name: "foo"}}, RoleRef: api.RoleRef{Kind: "ClusterRole", Name: "nonresource"}}},
			},
			allow: []rbac.Attributes{
				pathRequest("foo", "get", "/foo"),
				pathRequest("foo", "get", "/bar/x"),
				pathRequest("foo", "get", "/api/v1/x"),
				pathRequest("foo", "post", "/foo/a"),
			},
			deny: []rbac.Attributes{
				pathRequest("foo", "get", "/foo/a"),
				pathRequest("foo", "get", "/bar"),
				pathRequest("foo", "post", "/foo"),
				pathRequest("bar", "get", "/foo"),
			},
			reason: `RBAC: allowed by ClusterRoleBinding "nr" of ClusterRole "nonresource" to User "foo"`,
		},
		{
			name: "subresources and wildcards",
			src: staticSource{
				roles: []*api.Role{{Metadata: api.ObjectMeta{Name: "r", Namespace: "ns1"}, Rules: []api.PolicyRule{
					{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"pods", "pods/log"}}, newRule("update", "*", "*/scale", "")}}},
				bindings: []*api.RoleBinding{{Metadata: api.ObjectMeta{Name: "rb", Namespace: "ns1"},
					Subjects: []api.Subject{{Kind: "ServiceAccount", Name: "robot"}}, RoleRef: api.RoleRef{Kind: "Role", Name: "r"}}},
			},
			allow: []rbac.Attributes{
				resourceRequest("system:serviceaccount:ns1:robot", "list", "", "ns1", "pods", "", ""),
				resourceRequest("system:serviceaccount:ns1:robot", "get", "", "ns1", "pods", "log", "web"),
				resourceRequest("system:serviceaccount:ns1:robot", "update", "apps", "ns1", "deployments", "scale", "web"),
			},
			deny: []rbac.Attributes{
				resourceRequest("system:serviceaccount:ns1:robot", "get", "", "ns1", "pods", "status", "web"),
				resourceRequest("system:serviceaccount:ns1:robot", "update", "apps", "ns1", "deployments", "", "web"),
				resourceRequest("system:serviceaccount:ns2:robot", "list", "", "ns1", "pods", "", ""),
				resourceRequest("system:serviceaccount:ns1:robot", "get", "apps", "ns1", "pods", "", ""),
			},
			reason: `RBAC: allowed by RoleBinding "rb/ns1" of Role "r" to ServiceAccount "robot/ns1"`,
		},
		{
			name: "resource names",
			src: staticSource{
				clusterRoles: []*api.ClusterRole{{Metadata: api.ObjectMeta{Name: "one"}, Rules: []api.PolicyRule{
					{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"app"}}}}},
				clusterBinds: []*api.ClusterRoleBinding{{Metadata: api.ObjectMeta{Name: "one"},
					Subjects: []api.Subject{{Kind: "ServiceAccount", Name: "sa", Namespace: "kube-system"}}, RoleRef: api.RoleRef{Kind: "ClusterRole", Name: "one"}}},
			},
			allow: []rbac.Attributes{resourceRequest("system:serviceaccount:kube-system:sa", "get", "", "default", "configmaps", "", "app")},
			deny: []rbac.Attributes{
				resourceRequest("system:serviceaccount:kube-system:sa", "get", "", "default", "configmaps", "", "other"),
				resourceRequest("system:serviceaccount:kube-system:sa", "list", "", "default", "configmaps", "", ""),
			},
			reason: `RBAC: allowed by ClusterRoleBinding "one" of ClusterRole "one" to ServiceAccount "sa/kube-system"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			z := rbac.New(tt.src)
			for i, a := range tt.allow {
				ok, reason := z.Authorize(context.Background(), a)
				assert.True(t, ok, "%+v", a)
				if i == 0 {
					assert.Equal(t, tt.reason, reason)
				}
			}
			for _, a := range tt.deny {
				ok, _ := z.Authorize(context.Background(), a)
				assert.False(t, ok, "%+v", a)
			}
		})
	}
}

func TestAuthorizerReasonsForMissingRoles(t *testing.T) {
	src := staticSource{bindings: []*api.RoleBinding{{Metadata: api.ObjectMeta{Name: "rb", Namespace: "ns1"},
		Subjects: []api.Subject{{Kind: "User", Name: "jane"}}, RoleRef: api.RoleRef{Kind: "Role", Name: "gone"}}}}
	ok, reason := rbac.New(src).Authorize(context.Background(), resourceRequest("jane", "get", "", "ns1", "pods", "", ""))
	assert.False(t, ok)
	assert.Equal(t, `RBAC: role.rbac.authorization.k8s.io "gone" not found`, reason)
	rules, incomplete := rbac.New(src).Rules(context.Background(), rbac.User{Name: "jane"}, "ns1")
	assert.Empty(t, rules)
	assert.True(t, incomplete)
}

func TestBootstrapPolicy(t *testing.T) {
	src := staticSource{clusterRoles: rbac.BootstrapClusterRoles(), clusterBinds: rbac.BootstrapClusterRoleBindings()}
	z := rbac.New(src)
	for _, tc := range []struct {
		a    rbac.Attributes
		want bool
	}{
		{resourceRequest("miniplane-admin", "delete", "apps", "x", "deployments", "", "web", "system:masters", "system:authenticated"), true},
		{rbac.Attributes{User: rbac.User{Name: "jane", Groups: []string{"system:authenticated"}}, Verb: "get", Path: "/apis/apps"}, true},
		{rbac.Attributes{User: rbac.User{Name: "system:anonymous", Groups: []string{"system:unauthenticated"}}, Verb: "get", Path: "/healthz"}, true},
		{rbac.Attributes{User: rbac.User{Name: "system:anonymous", Groups: []string{"system:unauthenticated"}}, Verb: "get", Path: "/api"}, false},
		{resourceRequest("jane", "create", "authorization.k8s.io", "", "selfsubjectaccessreviews", "", "", "system:authenticated"), true},
		{resourceRequest("jane", "list", "", "default", "pods", "", "", "system:authenticated"), false},
	} {
		ok, _ := z.Authorize(context.Background(), tc.a)
		assert.Equal(t, tc.want, ok, "%+v", tc.a)
	}
	ok, reason := z.Authorize(context.Background(), resourceRequest("miniplane-admin", "list", "", "default", "pods", "", "", "system:masters"))
	assert.True(t, ok)
	assert.Equal(t, `RBAC: allowed by ClusterRoleBinding "cluster-admin" of ClusterRole "cluster-admin" to Group "system:masters"`, reason)
}

func TestSplitServiceAccountUserName(t *testing.T) {
	for _, tc := range []struct {
		in       string
		ns, name string
		ok       bool
	}{
		{"system:serviceaccount:ns:sa", "ns", "sa", true},
		{"system:serviceaccount:ns", "", "", false},
		{"system:serviceaccount::sa", "", "", false},
		{"system:serviceaccount:ns:sa:x", "", "", false},
		{"jane", "", "", false},
	} {
		ns, name, ok := rbac.SplitServiceAccountUserName(tc.in)
		assert.Equal(t, []any{tc.ns, tc.name, tc.ok}, []any{ns, name, ok}, tc.in)
	}
}
