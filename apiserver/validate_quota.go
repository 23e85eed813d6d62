package apiserver

// ResourceQuotas: defaulting and validation. Kubernetes:
// pkg/apis/core/validation (ValidateResourceQuota, ValidateResourceQuotaUpdate,
// ValidateResourceQuotaStatusUpdate) and pkg/apis/core/helper (the standard
// quota resources and scopes).

import (
	"slices"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// Messages of Kubernetes' quota checks.
const (
	msgQuotaResource       = "must be a standard resource for quota"
	msgUnsupportedScope    = "unsupported scope"
	msgScopeForResource    = "unsupported scope applied to resource"
	msgConflictingScopes   = "conflicting scopes"
	msgScopeMustExist      = "must be 'Exist' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity"
	msgScopeValuesRequired = "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"
	msgScopeValuesEmpty    = "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"
	msgScopeOperator       = "not a valid selector operator"
)

// standardQuotaResources are the domain-less names a quota may limit.
// Kubernetes: helper.standardQuotaResources.
var standardQuotaResources = map[string]bool{
	"cpu": true, "memory": true, "ephemeral-storage": true,
	"requests.cpu": true, "requests.memory": true, "requests.storage": true, "requests.ephemeral-storage": true,
	"limits.cpu": true, "limits.memory": true, "limits.ephemeral-storage": true,
	"pods": true, "resourcequotas": true, "services": true, "replicationcontrollers": true, "secrets": true,
	"persistentvolumeclaims": true, "configmaps": true, "services.nodeports": true, "services.loadbalancers": true,
}

// integerQuotaResources are counted in whole units. Kubernetes:
// helper.integerResources (extended resources are integers too).
var integerQuotaResources = map[string]bool{
	"pods": true, "resourcequotas": true, "services": true, "replicationcontrollers": true, "secrets": true,
	"configmaps": true, "persistentvolumeclaims": true, "services.nodeports": true, "services.loadbalancers": true,
}

// isStandardQuotaResource: Kubernetes' IsStandardQuotaResourceName.
func isStandardQuotaResource(name string) bool {
	return standardQuotaResources[name] || strings.HasPrefix(name, "requests.hugepages-") || strings.HasPrefix(name, "limits.hugepages-")
}

// quotaScopes are the scopes a quota may name, in Kubernetes v1.32 with its
// default feature gates (VolumeAttributesClass is off).
var quotaScopes = []string{api.ScopeTerminating, api.ScopeNotTerminating, api.ScopeBestEffort,
	api.ScopeNotBestEffort, api.ScopePriorityClass, api.ScopeCrossNamespacePodAffinity}

// scopeFitsResource reports whether a scope may apply to a standard quota
// resource: pod scopes to pods and their cpu and memory, BestEffort to the
// pod count only. Kubernetes: IsResourceQuotaScopeValidForResource.
func scopeFitsResource(scope, resource string) bool {
	podCompute := map[string]bool{"cpu": true, "memory": true, "limits.cpu": true, "limits.memory": true, "requests.cpu": true, "requests.memory": true}
	switch scope {
	case api.ScopeTerminating, api.ScopeNotTerminating, api.ScopeNotBestEffort, api.ScopePriorityClass, api.ScopeCrossNamespacePodAffinity:
		return resource == "pods" || podCompute[resource]
	case api.ScopeBestEffort:
		return resource == "pods"
	}
	return true
}

// defaultResourceQuota does nothing: Kubernetes defaults no quota field.
func defaultResourceQuota(*api.ResourceQuota) {}

// validateResourceQuota checks a quota on create. Kubernetes: ValidateResourceQuota.
func validateResourceQuota(q *api.ResourceQuota) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &q.Metadata, configMeta, metadataPath)
	errs = validateQuotaSpec(errs, &q.Spec, pathAt("spec"))
	return validateQuotaStatus(errs, &q.Status, pathAt("status"))
}

// validateResourceQuotaUpdate checks an update, of the spec or the status:
// the scopes never change. Kubernetes: ValidateResourceQuotaUpdate.
func validateResourceQuotaUpdate(q, old *api.ResourceQuota) apierrors.FieldErrors {
	errs := validateObjectMetaUpdate(nil, &q.Metadata, &old.Metadata, metadataPath)
	errs = validateQuotaSpec(errs, &q.Spec, pathAt("spec"))
	errs = validateQuotaStatus(errs, &q.Status, pathAt("status"))
	if !sameSet(q.Spec.Scopes, old.Spec.Scopes) {
		errs = append(errs, Invalid(pathAt("spec").child("scopes").path(), q.Spec.Scopes, msgImmutable))
	}
	return errs
}

// sameSet reports whether a and b hold the same strings, ignoring order and repeats.
func sameSet(a, b []string) bool {
	for _, s := range a {
		if !slices.Contains(b, s) {
			return false
		}
	}
	for _, s := range b {
		if !slices.Contains(a, s) {
			return false
		}
	}
	return true
}

// validateQuotaSpec: Kubernetes' ValidateResourceQuotaSpec.
func validateQuotaSpec(errs apierrors.FieldErrors, s *api.ResourceQuotaSpec, p fieldPath) apierrors.FieldErrors {
	errs = validateQuotaList(errs, s.Hard, p.child("hard"))
	errs = validateQuotaScopes(errs, s, p.child("scopes"))
	if s.ScopeSelector != nil {
		errs = validateScopeSelector(errs, s, p.child("scopeSelector").child("matchExpressions"))
	}
	return errs
}

// validateQuotaStatus: the status half of ValidateResourceQuota.
func validateQuotaStatus(errs apierrors.FieldErrors, s *api.ResourceQuotaStatus, p fieldPath) apierrors.FieldErrors {
	errs = validateQuotaList(errs, s.Hard, p.child("hard"))
	return validateQuotaList(errs, s.Used, p.child("used"))
}

// validateQuotaList checks each name and quantity of a quota's list, in name
// order. Kubernetes: ValidateResourceQuotaResourceName and
// ValidateResourceQuantityValue.
func validateQuotaList(errs apierrors.FieldErrors, list api.ResourceList, p fieldPath) apierrors.FieldErrors {
	for _, name := range sortedKeys(list) {
		at := p.key(name)
		errs = validateQuotaResourceName(errs, name, at)
		errs2, q, ok := validateQuantity(errs, list[name], at)
		errs = errs2
		if ok && (integerQuotaResources[name] || isExtendedResource(name)) && !q.isInteger() {
			errs = append(errs, Invalid(at.path(), list[name], "must be an integer"))
		}
	}
	return errs
}

// validateQuotaResourceName: Kubernetes' ValidateResourceQuotaResourceName.
func validateQuotaResourceName(errs apierrors.FieldErrors, name string, p fieldPath) apierrors.FieldErrors {
	if msgs := qualifiedNameMsgs(name); msgs != nil {
		return invalidEach(errs, p, name, msgs)
	}
	if strings.Contains(name, "/") {
		return errs
	}
	if !standardResourceNames[name] && !isHugePages(name) && !strings.HasPrefix(name, "requests.hugepages-") && !strings.HasPrefix(name, "limits.hugepages-") {
		return append(errs, Invalid(p.path(), name, "must be a standard resource type or fully qualified"))
	}
	if !isStandardQuotaResource(name) {
		errs = append(errs, Invalid(p.path(), name, msgQuotaResource))
	}
	return errs
}

// validateQuotaScopes: Kubernetes' validateResourceQuotaScopes.
func validateQuotaScopes(errs apierrors.FieldErrors, s *api.ResourceQuotaSpec, p fieldPath) apierrors.FieldErrors {
	if len(s.Scopes) == 0 {
		return errs
	}
	hard := sortedKeys(s.Hard)
	for _, scope := range s.Scopes {
		if !slices.Contains(quotaScopes, scope) {
			errs = append(errs, Invalid(p.path(), s.Scopes, msgUnsupportedScope))
		}
		for _, name := range hard {
			if isStandardQuotaResource(name) && !scopeFitsResource(scope, name) {
				errs = append(errs, Invalid(p.path(), s.Scopes, msgScopeForResource))
			}
		}
	}
	if conflictingScopes(s.Scopes) {
		errs = append(errs, Invalid(p.path(), s.Scopes, msgConflictingScopes))
	}
	return errs
}

// conflictingScopes counts each of the pairs that cannot both hold once.
func conflictingScopes(scopes []string) bool {
	return slices.Contains(scopes, api.ScopeBestEffort) && slices.Contains(scopes, api.ScopeNotBestEffort) ||
		slices.Contains(scopes, api.ScopeTerminating) && slices.Contains(scopes, api.ScopeNotTerminating)
}

// validateScopeSelector: Kubernetes' validateScopedResourceSelectorRequirement;
// p is spec.scopeSelector.matchExpressions.
func validateScopeSelector(errs apierrors.FieldErrors, s *api.ResourceQuotaSpec, p fieldPath) apierrors.FieldErrors {
	hard := sortedKeys(s.Hard)
	var scopes []string
	for _, req := range s.ScopeSelector.MatchExpressions {
		if !slices.Contains(quotaScopes, req.ScopeName) {
			errs = append(errs, Invalid(p.child("scopeName").path(), req.ScopeName, msgUnsupportedScope))
		}
		for _, name := range hard {
			if isStandardQuotaResource(name) && !scopeFitsResource(req.ScopeName, name) {
				errs = append(errs, Invalid(p.path(), s.ScopeSelector, msgScopeForResource))
			}
		}
		switch req.ScopeName {
		case api.ScopeBestEffort, api.ScopeNotBestEffort, api.ScopeTerminating, api.ScopeNotTerminating, api.ScopeCrossNamespacePodAffinity:
			if req.Operator != "Exists" {
				errs = append(errs, Invalid(p.child("operator").path(), req.Operator, msgScopeMustExist))
			}
		}
		switch req.Operator {
		case "In", "NotIn":
			if len(req.Values) == 0 {
				errs = append(errs, Required(p.child("values").path(), msgScopeValuesRequired))
			}
		case "Exists", "DoesNotExist":
			if len(req.Values) != 0 {
				errs = append(errs, Invalid(p.child("values").path(), req.Values, msgScopeValuesEmpty))
			}
		default:
			errs = append(errs, Invalid(p.child("operator").path(), req.Operator, msgScopeOperator))
		}
		scopes = append(scopes, req.ScopeName)
	}
	if conflictingScopes(scopes) {
		errs = append(errs, Invalid(p.path(), nil, msgConflictingScopes))
	}
	return errs
}

// resourceQuotaColumns are kubectl's columns for quotas: each enforced
// resource as used/hard, limits.* under LIMIT and the rest under REQUEST, in
// name order. Kubernetes: printResourceQuota.
var resourceQuotaColumns = []Column{nameColumn, ageColumn,
	{Name: "Request", Type: "string", Description: "Request represents a minimum amount of cpu/memory that a container may consume.",
		Cell: func(o api.Object) any { return quotaCell(o.(*api.ResourceQuota), false) }},
	{Name: "Limit", Type: "string", Description: "Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.",
		Cell: func(o api.Object) any { return quotaCell(o.(*api.ResourceQuota), true) }},
}

// quotaCell lists "name: used/hard" for the limits.* resources (limits) or
// the others.
func quotaCell(q *api.ResourceQuota, limits bool) string {
	var parts []string
	for _, name := range sortedKeys(q.Status.Hard) {
		if strings.HasPrefix(name, "limits.") != limits {
			continue
		}
		used := q.Status.Used[name]
		if used == "" {
			used = "0"
		}
		parts = append(parts, name+": "+used+"/"+q.Status.Hard[name])
	}
	return strings.Join(parts, ", ")
}
