package apiserver

// Roles, ClusterRoles and their bindings: defaulting and validation.
// Kubernetes: pkg/apis/rbac/validation (ValidateRole, ValidateClusterRole,
// ValidatePolicyRule, ValidateRoleBinding, ValidateClusterRoleBinding and
// their updates) and pkg/apis/rbac/v1's defaults (SetDefaults_Subject, the
// bindings' roleRef group).

import (
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// rbacMeta and clusterRBACMeta are how RBAC objects' metadata is checked:
// any name that is one segment of a URL path ("system:node" is one).
var (
	rbacMeta        = metaRules{namespaced: true, name: nameIsPathSegment}
	clusterRBACMeta = metaRules{name: nameIsPathSegment}
)

// nameIsPathSegment returns why name cannot be one segment of a URL path,
// or nil: the name rule of RBAC objects. Kubernetes:
// path.IsValidPathSegmentName (ValidateRBACName), and with prefix
// IsValidPathSegmentPrefix.
func nameIsPathSegment(name string, prefix bool) []string {
	var msgs []string
	if !prefix && (name == "." || name == "..") {
		return []string{"may not be '" + name + "'"}
	}
	for _, bad := range [...]string{"/", "%"} {
		if strings.Contains(name, bad) {
			msgs = append(msgs, "may not contain '"+bad+"'")
		}
	}
	return msgs
}

// defaultRole does nothing: Kubernetes defaults no role field.
func defaultRole(*api.Role) {}

// defaultClusterRole does nothing: Kubernetes defaults no role field.
func defaultClusterRole(*api.ClusterRole) {}

// defaultRoleBinding fills the roleRef's and the subjects' API groups.
func defaultRoleBinding(b *api.RoleBinding) { defaultBinding(&b.RoleRef, b.Subjects) }

// defaultClusterRoleBinding fills the roleRef's and the subjects' API groups.
func defaultClusterRoleBinding(b *api.ClusterRoleBinding) { defaultBinding(&b.RoleRef, b.Subjects) }

// defaultBinding gives a roleRef without a group the RBAC group, and a user
// or group subject without one the RBAC group too (a service account's
// stays ""). Kubernetes: SetDefaults_RoleBinding, SetDefaults_Subject.
func defaultBinding(ref *api.RoleRef, subjects []api.Subject) {
	if ref.APIGroup == "" {
		ref.APIGroup = api.RBACGroupName
	}
	for i := range subjects {
		s := &subjects[i]
		if s.APIGroup == "" && (s.Kind == api.SubjectKindUser || s.Kind == api.SubjectKindGroup) {
			s.APIGroup = api.RBACGroupName
		}
	}
}

// validateRole checks a role on create.
func validateRole(r *api.Role) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &r.Metadata, rbacMeta, metadataPath)
	return validatePolicyRules(errs, r.Rules, true)
}

// validateRoleUpdate checks a role on update.
func validateRoleUpdate(r, old *api.Role) apierrors.FieldErrors {
	return validateObjectMetaUpdate(validateRole(r), &r.Metadata, &old.Metadata, metadataPath)
}

// validateClusterRole checks a cluster role on create: its rules, and an
// aggregation rule's selectors.
func validateClusterRole(r *api.ClusterRole) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &r.Metadata, clusterRBACMeta, metadataPath)
	errs = validatePolicyRules(errs, r.Rules, false)
	if r.AggregationRule != nil {
		sp := pathAt("aggregationRule").child("clusterRoleSelectors")
		if len(r.AggregationRule.ClusterRoleSelectors) == 0 {
			errs = append(errs, Required(sp.path(), "at least one clusterRoleSelector required if aggregationRule is non-nil"))
		}
		for i := range r.AggregationRule.ClusterRoleSelectors {
			errs = validateLabelSelector(errs, &r.AggregationRule.ClusterRoleSelectors[i], sp.index(i))
		}
	}
	return errs
}

// validateClusterRoleUpdate checks a cluster role on update.
func validateClusterRoleUpdate(r, old *api.ClusterRole) apierrors.FieldErrors {
	return validateObjectMetaUpdate(validateClusterRole(r), &r.Metadata, &old.Metadata, metadataPath)
}

// validatePolicyRules checks each rule: verbs are required; a rule covers
// either non-resource paths (a cluster role's only) or resources of API
// groups, never both; resource names narrow one resource only.
// Kubernetes: ValidatePolicyRule.
func validatePolicyRules(errs apierrors.FieldErrors, rules []api.PolicyRule, namespaced bool) apierrors.FieldErrors {
	for i, rule := range rules {
		p := pathAt("rules").index(i)
		if len(rule.Verbs) == 0 {
			errs = append(errs, Required(p.child("verbs").path(), "verbs must contain at least one value"))
		}
		if len(rule.NonResourceURLs) > 0 {
			if namespaced {
				errs = append(errs, Invalid(p.child("nonResourceURLs").path(), rule.NonResourceURLs, "namespaced rules cannot apply to non-resource URLs"))
			}
			if len(rule.APIGroups) > 0 || len(rule.Resources) > 0 || len(rule.ResourceNames) > 0 {
				errs = append(errs, Invalid(p.child("nonResourceURLs").path(), rule.NonResourceURLs, "rules cannot apply to both regular resources and non-resource URLs"))
			}
			continue
		}
		if len(rule.APIGroups) == 0 {
			errs = append(errs, Required(p.child("apiGroups").path(), "resource rules must supply at least one api group"))
		}
		if len(rule.Resources) == 0 {
			errs = append(errs, Required(p.child("resources").path(), "resource rules must supply at least one resource"))
		}
		if len(rule.ResourceNames) > 0 && len(rule.Resources) > 1 {
			errs = append(errs, Required(p.child("resourceNames").path(), "resource names cannot apply to multiple resources"))
		}
	}
	return errs
}

// validateRoleBinding checks a role binding on create: it may grant a Role
// or a ClusterRole.
func validateRoleBinding(b *api.RoleBinding) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &b.Metadata, rbacMeta, metadataPath)
	return validateBinding(errs, b.RoleRef, b.Subjects, true)
}

// validateRoleBindingUpdate checks a role binding on update: its roleRef
// may not change.
func validateRoleBindingUpdate(b, old *api.RoleBinding) apierrors.FieldErrors {
	errs := validateObjectMetaUpdate(validateRoleBinding(b), &b.Metadata, &old.Metadata, metadataPath)
	return validateRoleRefUpdate(errs, b.RoleRef, old.RoleRef)
}

// validateClusterRoleBinding checks a cluster role binding on create: it
// may grant a ClusterRole only, and its service accounts name their
// namespace.
func validateClusterRoleBinding(b *api.ClusterRoleBinding) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &b.Metadata, clusterRBACMeta, metadataPath)
	return validateBinding(errs, b.RoleRef, b.Subjects, false)
}

// validateClusterRoleBindingUpdate checks a cluster role binding on update:
// its roleRef may not change.
func validateClusterRoleBindingUpdate(b, old *api.ClusterRoleBinding) apierrors.FieldErrors {
	errs := validateObjectMetaUpdate(validateClusterRoleBinding(b), &b.Metadata, &old.Metadata, metadataPath)
	return validateRoleRefUpdate(errs, b.RoleRef, old.RoleRef)
}

func validateRoleRefUpdate(errs apierrors.FieldErrors, ref, old api.RoleRef) apierrors.FieldErrors {
	if ref != old {
		errs = append(errs, Invalid("roleRef", ref, "cannot change roleRef"))
	}
	return errs
}

// validateBinding checks a binding's roleRef and subjects; namespaced is
// true for a RoleBinding.
func validateBinding(errs apierrors.FieldErrors, ref api.RoleRef, subjects []api.Subject, namespaced bool) apierrors.FieldErrors {
	if ref.APIGroup != api.RBACGroupName {
		errs = append(errs, NotSupported("roleRef.apiGroup", ref.APIGroup, api.RBACGroupName))
	}
	kinds := []string{"ClusterRole"}
	if namespaced {
		kinds = []string{"Role", "ClusterRole"}
	}
	if ref.Kind != "ClusterRole" && (!namespaced || ref.Kind != "Role") {
		errs = append(errs, NotSupported("roleRef.kind", ref.Kind, kinds...))
	}
	if ref.Name == "" {
		errs = append(errs, Required("roleRef.name", ""))
	} else {
		errs = invalidEach(errs, pathAt("roleRef").child("name"), ref.Name, nameIsPathSegment(ref.Name, false))
	}
	for i, s := range subjects {
		errs = validateSubject(errs, s, namespaced, pathAt("subjects").index(i))
	}
	return errs
}

// validateSubject checks one subject. Kubernetes: validateRoleBindingSubject.
func validateSubject(errs apierrors.FieldErrors, s api.Subject, namespaced bool, p fieldPath) apierrors.FieldErrors {
	if s.Name == "" {
		errs = append(errs, Required(p.child("name").path(), ""))
	}
	switch s.Kind {
	case api.SubjectKindServiceAccount:
		if s.Name != "" {
			errs = invalidEach(errs, p.child("name"), s.Name, nameIsDNSSubdomain(s.Name, false))
		}
		if s.APIGroup != "" {
			errs = append(errs, NotSupported(p.child("apiGroup").path(), s.APIGroup, ""))
		}
		if !namespaced && s.Namespace == "" {
			errs = append(errs, Required(p.child("namespace").path(), ""))
		}
	case api.SubjectKindUser, api.SubjectKindGroup:
		if s.Name == "" {
			errs = append(errs, Invalid(p.child("name").path(), s.Name, strings.ToLower(s.Kind)+" name cannot be empty"))
		}
		if s.APIGroup != api.RBACGroupName {
			errs = append(errs, NotSupported(p.child("apiGroup").path(), s.APIGroup, api.RBACGroupName))
		}
	default:
		errs = append(errs, NotSupported(p.child("kind").path(), s.Kind, api.SubjectKindServiceAccount, api.SubjectKindUser, api.SubjectKindGroup))
	}
	return errs
}
