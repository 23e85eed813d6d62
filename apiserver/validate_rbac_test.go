package apiserver

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
)

// The scenarios of Kubernetes' pkg/apis/rbac/validation/validation_test.go
// that apply.

func TestValidateRole(t *testing.T) {
	for _, tc := range []struct {
		name   string
		rules  []api.PolicyRule
		meta   api.ObjectMeta
		want   string
		causes []cause
	}{
		{name: "valid", rules: []api.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods", "pods/log"}}}},
		{name: "resource names on one resource", rules: []api.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"app"}}}},
		{name: "colon in the name", meta: api.ObjectMeta{Name: "system:reader", Namespace: "default"}},
		{name: "no verbs", rules: []api.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}}},
			want: "rules[0].verbs: Required value: verbs must contain at least one value", causes: []cause{{required, "rules[0].verbs"}}},
		{name: "no groups nor resources", rules: []api.PolicyRule{{Verbs: []string{"get"}}},
			want:   "[rules[0].apiGroups: Required value: resource rules must supply at least one api group, rules[0].resources: Required value: resource rules must supply at least one resource]",
			causes: []cause{{required, "rules[0].apiGroups"}, {required, "rules[0].resources"}}},
		{name: "resource names on two resources", rules: []api.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods", "secrets"}, ResourceNames: []string{"x"}}},
			want: "rules[0].resourceNames: Required value: resource names cannot apply to multiple resources", causes: []cause{{required, "rules[0].resourceNames"}}},
		{name: "non-resource URLs in a namespace", rules: []api.PolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/api"}}},
			want: `rules[0].nonResourceURLs: Invalid value: []string{"/api"}: namespaced rules cannot apply to non-resource URLs`, causes: []cause{{invalid, "rules[0].nonResourceURLs"}}},
		{name: "slash in the name", meta: api.ObjectMeta{Name: "a/b", Namespace: "default"},
			want: `metadata.name: Invalid value: "a/b": may not contain '/'`, causes: []cause{{invalid, "metadata.name"}}},
		{name: "dot dot", meta: api.ObjectMeta{Name: "..", Namespace: "default"},
			want: `metadata.name: Invalid value: "..": may not be '..'`, causes: []cause{{invalid, "metadata.name"}}},
		{name: "no namespace", meta: api.ObjectMeta{Name: "reader"},
			want: "metadata.namespace: Required value", causes: []cause{{required, "metadata.namespace"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &api.Role{Metadata: tc.meta, Rules: tc.rules}
			if r.Metadata.Name == "" && r.Metadata.Namespace == "" {
				r.Metadata = api.ObjectMeta{Name: "reader", Namespace: "default"}
			}
			assertErrors(t, validateRole(r), tc.want, tc.causes)
		})
	}
}

func TestValidateClusterRole(t *testing.T) {
	for _, tc := range []struct {
		name   string
		role   api.ClusterRole
		want   string
		causes []cause
	}{
		{name: "non-resource URLs", role: api.ClusterRole{Rules: []api.PolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz", "/api/*"}}}}},
		{name: "aggregation", role: api.ClusterRole{AggregationRule: &api.AggregationRule{ClusterRoleSelectors: []api.LabelSelector{
			{MatchLabels: map[string]string{"rbac.authorization.k8s.io/aggregate-to-view": "true"}}}}}},
		{name: "both resources and URLs", role: api.ClusterRole{Rules: []api.PolicyRule{{Verbs: []string{"get"}, Resources: []string{"pods"}, NonResourceURLs: []string{"/api"}}}},
			want: `rules[0].nonResourceURLs: Invalid value: []string{"/api"}: rules cannot apply to both regular resources and non-resource URLs`, causes: []cause{{invalid, "rules[0].nonResourceURLs"}}},
		{name: "aggregation without selectors", role: api.ClusterRole{AggregationRule: &api.AggregationRule{}},
			want:   "aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil",
			causes: []cause{{required, "aggregationRule.clusterRoleSelectors"}}},
		{name: "bad selector", role: api.ClusterRole{AggregationRule: &api.AggregationRule{ClusterRoleSelectors: []api.LabelSelector{
			{MatchExpressions: []api.LabelSelectorRequirement{{Key: "k", Operator: "In"}}}}}},
			want:   "aggregationRule.clusterRoleSelectors[0].matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
			causes: []cause{{required, "aggregationRule.clusterRoleSelectors[0].matchExpressions[0].values"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.role
			r.Metadata = api.ObjectMeta{Name: "system:thing"}
			assertErrors(t, validateClusterRole(&r), tc.want, tc.causes)
		})
	}
}

func TestValidateRoleBinding(t *testing.T) {
	ref := api.RoleRef{Kind: "Role", Name: "reader"}
	for _, tc := range []struct {
		name     string
		ref      api.RoleRef
		subjects []api.Subject
		cluster  bool
		want     string
		causes   []cause
	}{
		{name: "valid", ref: ref, subjects: []api.Subject{{Kind: "User", Name: "jane"}, {Kind: "Group", Name: "devs"}, {Kind: "ServiceAccount", Name: "default"}}},
		{name: "a cluster role", ref: api.RoleRef{Kind: "ClusterRole", Name: "view"}},
		{name: "cluster binding of a role", cluster: true, ref: ref,
			want: `roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"`, causes: []cause{{notSupported, "roleRef.kind"}}},
		{name: "unknown kind", ref: api.RoleRef{Kind: "Pod", Name: "x"},
			want: `roleRef.kind: Unsupported value: "Pod": supported values: "Role", "ClusterRole"`, causes: []cause{{notSupported, "roleRef.kind"}}},
		{name: "other group", ref: api.RoleRef{APIGroup: "example.com", Kind: "Role", Name: "x"},
			want: `roleRef.apiGroup: Unsupported value: "example.com": supported values: "rbac.authorization.k8s.io"`, causes: []cause{{notSupported, "roleRef.apiGroup"}}},
		{name: "no role name", ref: api.RoleRef{Kind: "Role"},
			want: "roleRef.name: Required value", causes: []cause{{required, "roleRef.name"}}},
		{name: "service account without namespace in a cluster binding", cluster: true, ref: api.RoleRef{Kind: "ClusterRole", Name: "view"},
			subjects: []api.Subject{{Kind: "ServiceAccount", Name: "default"}},
			want:     "subjects[0].namespace: Required value", causes: []cause{{required, "subjects[0].namespace"}}},
		{name: "service account with a group", ref: ref, subjects: []api.Subject{{Kind: "ServiceAccount", APIGroup: "rbac.authorization.k8s.io", Name: "default"}},
			want: `subjects[0].apiGroup: Unsupported value: "rbac.authorization.k8s.io": supported values: ""`, causes: []cause{{notSupported, "subjects[0].apiGroup"}}},
		{name: "bad service account name", ref: ref, subjects: []api.Subject{{Kind: "ServiceAccount", Name: "Bad_Name"}},
			want:   `subjects[0].name: Invalid value: "Bad_Name": ` + msgDNS1123Subdomain,
			causes: []cause{{invalid, "subjects[0].name"}}},
		{name: "empty user", ref: ref, subjects: []api.Subject{{Kind: "User"}},
			want:   `[subjects[0].name: Required value, subjects[0].name: Invalid value: "": user name cannot be empty]`,
			causes: []cause{{required, "subjects[0].name"}, {invalid, "subjects[0].name"}}},
		{name: "unknown subject kind", ref: ref, subjects: []api.Subject{{Kind: "Robot", Name: "r2"}},
			want:   `subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"`,
			causes: []cause{{notSupported, "subjects[0].kind"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.cluster {
				b := &api.ClusterRoleBinding{Metadata: api.ObjectMeta{Name: "b"}, RoleRef: tc.ref, Subjects: tc.subjects}
				defaultClusterRoleBinding(b)
				assertErrors(t, validateClusterRoleBinding(b), tc.want, tc.causes)
				return
			}
			b := &api.RoleBinding{Metadata: api.ObjectMeta{Name: "b", Namespace: "default"}, RoleRef: tc.ref, Subjects: tc.subjects}
			defaultRoleBinding(b)
			assertErrors(t, validateRoleBinding(b), tc.want, tc.causes)
		})
	}
}

func TestDefaultRoleBinding(t *testing.T) {
	b := &api.RoleBinding{RoleRef: api.RoleRef{Kind: "Role", Name: "r"},
		Subjects: []api.Subject{{Kind: "User", Name: "u"}, {Kind: "Group", Name: "g"}, {Kind: "ServiceAccount", Name: "s"}}}
	defaultRoleBinding(b)
	assert.Equal(t, "rbac.authorization.k8s.io", b.RoleRef.APIGroup)
	assert.Equal(t, []string{"rbac.authorization.k8s.io", "rbac.authorization.k8s.io", ""},
		[]string{b.Subjects[0].APIGroup, b.Subjects[1].APIGroup, b.Subjects[2].APIGroup})
}

func TestValidateRoleBindingUpdate(t *testing.T) {
	old := &api.RoleBinding{Metadata: api.ObjectMeta{Name: "b", Namespace: "default"}, RoleRef: api.RoleRef{APIGroup: api.RBACGroupName, Kind: "Role", Name: "r"}}
	b := old.DeepCopy()
	b.Subjects = []api.Subject{{Kind: "User", APIGroup: api.RBACGroupName, Name: "u"}}
	assert.Nil(t, validateRoleBindingUpdate(b, old), "subjects may change")
	b.RoleRef.Name = "other"
	assertErrors(t, validateRoleBindingUpdate(b, old),
		`roleRef: Invalid value: api.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"Role", Name:"other"}: cannot change roleRef`,
		[]cause{{invalid, "roleRef"}})
}
