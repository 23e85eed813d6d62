package api

// The rbac.authorization.k8s.io/v1 kinds. Who may do what is decided from
// them: a ClusterRoleBinding grants a ClusterRole's rules everywhere, a
// RoleBinding grants a Role's (or a ClusterRole's) rules in its own
// namespace, and anything not granted is denied. Kubernetes: k8s.io/api
// rbac/v1.

// RBAC subject kinds and the wildcard, as Kubernetes names them.
const (
	// RBACGroupName is the group of the RBAC kinds, and of User and Group
	// subjects.
	RBACGroupName = "rbac.authorization.k8s.io"
	// SubjectKindUser names a user.
	SubjectKindUser = "User"
	// SubjectKindGroup names a group of users.
	SubjectKindGroup = "Group"
	// SubjectKindServiceAccount names a service account in a namespace.
	SubjectKindServiceAccount = "ServiceAccount"
	// RBACAll is the wildcard of verbs, groups, resources and paths.
	RBACAll = "*"
	// AutoUpdateAnnotation, "false" on a default role or binding, stops the
	// API server from putting its default rules back at start.
	AutoUpdateAnnotation = "rbac.authorization.kubernetes.io/autoupdate"
)

// PolicyRule is an action allowed on resources or non-resource paths: its
// verbs on the listed resources of the listed API groups (optionally only
// the named objects), or its verbs on the listed URL paths. Kubernetes:
// rbacv1.PolicyRule.
type PolicyRule struct {
	// Verbs are the verbs allowed ("get", "list", ..., "*" for all).
	Verbs []string `json:"verbs" protobuf:"bytes,1,rep,name=verbs"`
	// APIGroups are the API groups of Resources ("" is the core group, "*" all).
	APIGroups []string `json:"apiGroups,omitempty" protobuf:"bytes,2,rep,name=apiGroups"`
	// Resources are the resources the rule covers ("pods", "pods/log", "*", "*/scale").
	Resources []string `json:"resources,omitempty" protobuf:"bytes,3,rep,name=resources"`
	// ResourceNames, when set, limits the rule to objects of these names.
	ResourceNames []string `json:"resourceNames,omitempty" protobuf:"bytes,4,rep,name=resourceNames"`
	// NonResourceURLs are paths ("/healthz", "/api/*") the rule covers; a
	// ClusterRole's only, and only through a ClusterRoleBinding.
	NonResourceURLs []string `json:"nonResourceURLs,omitempty" protobuf:"bytes,5,rep,name=nonResourceURLs"`
}

// Subject is who a binding grants to: a User, a Group, or a ServiceAccount
// in a namespace. Kubernetes: rbacv1.Subject.
type Subject struct {
	// Kind is "User", "Group" or "ServiceAccount".
	Kind string `json:"kind" protobuf:"bytes,1,opt,name=kind"`
	// APIGroup is "rbac.authorization.k8s.io" for users and groups, "" for
	// service accounts.
	APIGroup string `json:"apiGroup,omitempty" protobuf:"bytes,2,opt,name=apiGroup"`
	// Name is the user's, group's or service account's name.
	Name string `json:"name" protobuf:"bytes,3,opt,name=name"`
	// Namespace is a service account's namespace.
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,4,opt,name=namespace"`
}

// RoleRef names the role a binding grants. Kubernetes: rbacv1.RoleRef.
type RoleRef struct {
	// APIGroup is "rbac.authorization.k8s.io".
	APIGroup string `json:"apiGroup" protobuf:"bytes,1,opt,name=apiGroup"`
	// Kind is "Role" or "ClusterRole".
	Kind string `json:"kind" protobuf:"bytes,2,opt,name=kind"`
	// Name is the role's name.
	Name string `json:"name" protobuf:"bytes,3,opt,name=name"`
}

// Role is a set of rules in one namespace, granted by RoleBindings there.
// Kubernetes: rbacv1.Role.
type Role struct {
	TypeMeta `json:",inline"`
	// Metadata is the role's identity.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Rules are what the role allows.
	Rules []PolicyRule `json:"rules" protobuf:"bytes,2,rep,name=rules"`
}

// GetObjectMeta returns the role's metadata.
func (r *Role) GetObjectMeta() *ObjectMeta { return &r.Metadata }

// RoleList is a list of roles. Kubernetes: rbacv1.RoleList.
type RoleList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the roles.
	Items []Role `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// RoleBinding grants a Role of its namespace, or a ClusterRole, to its
// subjects within its namespace. Kubernetes: rbacv1.RoleBinding.
type RoleBinding struct {
	TypeMeta `json:",inline"`
	// Metadata is the binding's identity.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Subjects are who the role is granted to.
	Subjects []Subject `json:"subjects,omitempty" protobuf:"bytes,2,rep,name=subjects"`
	// RoleRef is the role granted; it cannot change once set.
	RoleRef RoleRef `json:"roleRef" protobuf:"bytes,3,opt,name=roleRef"`
}

// GetObjectMeta returns the binding's metadata.
func (b *RoleBinding) GetObjectMeta() *ObjectMeta { return &b.Metadata }

// RoleBindingList is a list of role bindings. Kubernetes:
// rbacv1.RoleBindingList.
type RoleBindingList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the role bindings.
	Items []RoleBinding `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ClusterRole is a set of rules for the whole cluster, granted everywhere
// by ClusterRoleBindings or in one namespace by RoleBindings. Kubernetes:
// rbacv1.ClusterRole.
type ClusterRole struct {
	TypeMeta `json:",inline"`
	// Metadata is the role's identity.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Rules are what the role allows; with an AggregationRule, the
	// clusterrole-aggregation controller writes them.
	Rules []PolicyRule `json:"rules" protobuf:"bytes,2,rep,name=rules"`
	// AggregationRule, when set, makes Rules the union of the rules of the
	// cluster roles its selectors match.
	AggregationRule *AggregationRule `json:"aggregationRule,omitempty" protobuf:"bytes,3,opt,name=aggregationRule"`
}

// GetObjectMeta returns the role's metadata.
func (r *ClusterRole) GetObjectMeta() *ObjectMeta { return &r.Metadata }

// AggregationRule selects the cluster roles whose rules a ClusterRole
// aggregates. Kubernetes: rbacv1.AggregationRule.
type AggregationRule struct {
	// ClusterRoleSelectors select cluster roles by label; a role matching
	// any of them is aggregated.
	ClusterRoleSelectors []LabelSelector `json:"clusterRoleSelectors,omitempty" protobuf:"bytes,1,rep,name=clusterRoleSelectors"`
}

// ClusterRoleList is a list of cluster roles. Kubernetes:
// rbacv1.ClusterRoleList.
type ClusterRoleList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the cluster roles.
	Items []ClusterRole `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ClusterRoleBinding grants a ClusterRole to its subjects in every
// namespace and for non-resource paths. Kubernetes:
// rbacv1.ClusterRoleBinding.
type ClusterRoleBinding struct {
	TypeMeta `json:",inline"`
	// Metadata is the binding's identity.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Subjects are who the role is granted to.
	Subjects []Subject `json:"subjects,omitempty" protobuf:"bytes,2,rep,name=subjects"`
	// RoleRef is the ClusterRole granted; it cannot change once set.
	RoleRef RoleRef `json:"roleRef" protobuf:"bytes,3,opt,name=roleRef"`
}

// GetObjectMeta returns the binding's metadata.
func (b *ClusterRoleBinding) GetObjectMeta() *ObjectMeta { return &b.Metadata }

// ClusterRoleBindingList is a list of cluster role bindings. Kubernetes:
// rbacv1.ClusterRoleBindingList.
type ClusterRoleBindingList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the cluster role bindings.
	Items []ClusterRoleBinding `json:"items" protobuf:"bytes,2,rep,name=items"`
}
