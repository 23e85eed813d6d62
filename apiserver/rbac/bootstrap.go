package rbac

import "github.com/miniplane/miniplane/api"

// The default cluster roles and bindings kube-apiserver creates at start
// (its rbac/bootstrap-roles post-start hook), those a learner's cluster
// and Kubernetes' tests rely on. Kubernetes:
// plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go; the rules are
// its, rule for rule, for the roles listed here. Left out: the roles of
// components miniplane runs in process or not at all (system:node,
// system:kube-scheduler, system:kube-controller-manager, the controllers'
// own roles, the CSR approvers), whose rules follow feature gates.

// Verb sets of the bootstrap policy.
var (
	verbsRead      = []string{"get", "list", "watch"}
	verbsWrite     = []string{"create", "update", "patch", "delete", "deletecollection"}
	bootstrapLabel = "kubernetes.io/bootstrapping"
)

// Aggregation labels: a cluster role carrying one is folded into admin,
// edit or view by the clusterrole-aggregation controller.
const (
	AggregateToAdmin = "rbac.authorization.k8s.io/aggregate-to-admin"
	AggregateToEdit  = "rbac.authorization.k8s.io/aggregate-to-edit"
	AggregateToView  = "rbac.authorization.k8s.io/aggregate-to-view"
)

func rule(verbs []string, groups []string, resources ...string) api.PolicyRule {
	return api.PolicyRule{Verbs: verbs, APIGroups: groups, Resources: resources}
}

func urls(verbs []string, paths ...string) api.PolicyRule {
	return api.PolicyRule{Verbs: verbs, NonResourceURLs: paths}
}

func group(g ...string) []string { return g }

func aggregating(label string) *api.AggregationRule {
	return &api.AggregationRule{ClusterRoleSelectors: []api.LabelSelector{{MatchLabels: map[string]string{label: "true"}}}}
}

// BootstrapClusterRoles returns fresh copies of the default cluster roles,
// each labelled kubernetes.io/bootstrapping=rbac-defaults and annotated
// rbac.authorization.kubernetes.io/autoupdate=true, as kube-apiserver makes
// them. admin, edit and view are aggregated: their rules are the
// system:aggregate-to-* roles' (and whatever else carries the labels),
// written by the clusterrole-aggregation controller.
func BootstrapClusterRoles() []*api.ClusterRole {
	get := []string{"get"}
	all := []string{api.RBACAll}
	roles := []*api.ClusterRole{
		{Metadata: api.ObjectMeta{Name: "cluster-admin"}, Rules: []api.PolicyRule{
			rule(all, group(api.RBACAll), api.RBACAll),
			urls(all, api.RBACAll),
		}},
		{Metadata: api.ObjectMeta{Name: "system:discovery"}, Rules: []api.PolicyRule{
			urls(get, "/livez", "/readyz", "/healthz", "/version", "/version/", "/openapi", "/openapi/*", "/api", "/api/*", "/apis", "/apis/*"),
		}},
		{Metadata: api.ObjectMeta{Name: "system:basic-user"}, Rules: []api.PolicyRule{
			rule([]string{"create"}, group("authorization.k8s.io"), "selfsubjectaccessreviews", "selfsubjectrulesreviews"),
			rule([]string{"create"}, group("authentication.k8s.io"), "selfsubjectreviews"),
		}},
		{Metadata: api.ObjectMeta{Name: "system:public-info-viewer"}, Rules: []api.PolicyRule{
			urls(get, "/livez", "/readyz", "/healthz", "/version", "/version/"),
		}},
		{Metadata: api.ObjectMeta{Name: "admin"}, AggregationRule: aggregating(AggregateToAdmin)},
		{Metadata: api.ObjectMeta{Name: "edit", Labels: map[string]string{AggregateToAdmin: "true"}}, AggregationRule: aggregating(AggregateToEdit)},
		{Metadata: api.ObjectMeta{Name: "view", Labels: map[string]string{AggregateToEdit: "true"}}, AggregationRule: aggregating(AggregateToView)},
		{Metadata: api.ObjectMeta{Name: "system:aggregate-to-admin", Labels: map[string]string{AggregateToAdmin: "true"}}, Rules: []api.PolicyRule{
			rule([]string{"create"}, group("authorization.k8s.io"), "localsubjectaccessreviews"),
			rule(append(verbsRead[:len(verbsRead):len(verbsRead)], verbsWrite...), group(api.RBACGroupName), "roles", "rolebindings"),
		}},
		{Metadata: api.ObjectMeta{Name: "system:aggregate-to-edit", Labels: map[string]string{AggregateToEdit: "true"}}, Rules: []api.PolicyRule{
			rule(verbsRead, group(""), "pods/attach", "pods/proxy", "pods/exec", "pods/portforward", "secrets", "services/proxy"),
			rule([]string{"impersonate"}, group(""), "serviceaccounts"),
			rule(verbsWrite, group(""), "pods", "pods/attach", "pods/proxy", "pods/exec", "pods/portforward"),
			rule([]string{"create"}, group(""), "pods/eviction"),
			rule(verbsWrite, group(""), "replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts",
				"services", "services/proxy", "persistentvolumeclaims", "configmaps", "secrets"),
			rule(verbsWrite, group("apps"), "statefulsets", "statefulsets/scale", "daemonsets",
				"deployments", "deployments/scale", "deployments/rollback", "replicasets", "replicasets/scale"),
			rule(verbsWrite, group("autoscaling"), "horizontalpodautoscalers"),
			rule(verbsWrite, group("batch"), "jobs", "cronjobs"),
			rule(verbsWrite, group("extensions"), "daemonsets", "deployments", "deployments/scale", "deployments/rollback",
				"ingresses", "replicasets", "replicasets/scale", "replicationcontrollers/scale", "networkpolicies"),
			rule(verbsWrite, group("policy"), "poddisruptionbudgets"),
			rule(verbsWrite, group("networking.k8s.io"), "networkpolicies", "ingresses"),
		}},
		{Metadata: api.ObjectMeta{Name: "system:aggregate-to-view", Labels: map[string]string{AggregateToView: "true"}}, Rules: []api.PolicyRule{
			rule(verbsRead, group(""), "pods", "replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts",
				"services", "services/status", "endpoints", "persistentvolumeclaims", "persistentvolumeclaims/status", "configmaps"),
			rule(verbsRead, group(""), "limitranges", "resourcequotas", "bindings", "events",
				"pods/status", "resourcequotas/status", "namespaces/status", "replicationcontrollers/status", "pods/log"),
			rule(verbsRead, group(""), "namespaces"),
			rule(verbsRead, group("discovery.k8s.io"), "endpointslices"),
			rule(verbsRead, group("apps"), "controllerrevisions", "statefulsets", "statefulsets/status", "statefulsets/scale",
				"daemonsets", "daemonsets/status", "deployments", "deployments/status", "deployments/scale",
				"replicasets", "replicasets/status", "replicasets/scale"),
			rule(verbsRead, group("autoscaling"), "horizontalpodautoscalers", "horizontalpodautoscalers/status"),
			rule(verbsRead, group("batch"), "jobs", "cronjobs", "cronjobs/status", "jobs/status"),
			rule(verbsRead, group("extensions"), "daemonsets", "daemonsets/status", "deployments", "deployments/scale", "deployments/status",
				"ingresses", "ingresses/status", "replicasets", "replicasets/scale", "replicasets/status", "replicationcontrollers/scale",
				"networkpolicies"),
			rule(verbsRead, group("policy"), "poddisruptionbudgets", "poddisruptionbudgets/status"),
			rule(verbsRead, group("networking.k8s.io"), "networkpolicies", "ingresses", "ingresses/status"),
		}},
	}
	for _, r := range roles {
		markBootstrap(&r.Metadata)
	}
	return roles
}

// BootstrapClusterRoleBindings returns fresh copies of the default cluster
// role bindings: cluster-admin to system:masters, discovery and basic-user
// to every authenticated user, public-info-viewer to everyone.
func BootstrapClusterRoleBindings() []*api.ClusterRoleBinding {
	bind := func(role string, groups ...string) *api.ClusterRoleBinding {
		b := &api.ClusterRoleBinding{Metadata: api.ObjectMeta{Name: role},
			RoleRef: api.RoleRef{APIGroup: api.RBACGroupName, Kind: "ClusterRole", Name: role}}
		for _, g := range groups {
			b.Subjects = append(b.Subjects, api.Subject{Kind: api.SubjectKindGroup, APIGroup: api.RBACGroupName, Name: g})
		}
		markBootstrap(&b.Metadata)
		return b
	}
	return []*api.ClusterRoleBinding{
		bind("cluster-admin", GroupMasters),
		bind("system:discovery", GroupAuthenticated),
		bind("system:basic-user", GroupAuthenticated),
		bind("system:public-info-viewer", GroupAuthenticated, GroupUnauthenticated),
	}
}

func markBootstrap(m *api.ObjectMeta) {
	if m.Labels == nil {
		m.Labels = map[string]string{}
	}
	m.Labels[bootstrapLabel] = "rbac-defaults"
	m.Annotations = map[string]string{api.AutoUpdateAnnotation: "true"}
}
