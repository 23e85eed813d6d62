package apiserver

// PodDisruptionBudgets: validation. Kubernetes: ValidatePodDisruptionBudget
// in pkg/apis/policy/validation (v1.32). No disruption controller fills
// their status here, and evictions do not consult them.

import (
	"strconv"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// pdbMeta is how a budget's metadata is checked.
var pdbMeta = metaRules{namespaced: true, name: nameIsDNSSubdomain}

// supportedUnhealthyPodEvictionPolicies are policy/v1's values.
var supportedUnhealthyPodEvictionPolicies = []string{"AlwaysAllow", "IfHealthyBudget"}

func defaultPodDisruptionBudget(*api.PodDisruptionBudget) {}

// validatePodDisruptionBudget checks a budget on create: not both
// minAvailable and maxUnavailable, each a non-negative number or a
// percentage up to 100%, a valid selector, a supported eviction policy.
func validatePodDisruptionBudget(pdb *api.PodDisruptionBudget) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &pdb.Metadata, pdbMeta, metadataPath)
	s, p := &pdb.Spec, pathAt("spec")
	if s.MinAvailable != nil && s.MaxUnavailable != nil {
		errs = append(errs, Invalid(p.path(), s, "minAvailable and maxUnavailable cannot be both set"))
	}
	if s.MinAvailable != nil {
		errs = validateIntOrPercent(errs, *s.MinAvailable, p.child("minAvailable"))
	}
	if s.MaxUnavailable != nil {
		errs = validateIntOrPercent(errs, *s.MaxUnavailable, p.child("maxUnavailable"))
	}
	errs = validateLabelSelector(errs, s.Selector, p.child("selector"))
	if u := s.UnhealthyPodEvictionPolicy; u != nil && *u != "AlwaysAllow" && *u != "IfHealthyBudget" {
		errs = append(errs, NotSupported(p.child("unhealthyPodEvictionPolicy").path(), *u, supportedUnhealthyPodEvictionPolicies...))
	}
	return errs
}

// validatePodDisruptionBudgetUpdate checks an update: policy/v1 lets the
// spec change.
func validatePodDisruptionBudgetUpdate(pdb, old *api.PodDisruptionBudget) apierrors.FieldErrors {
	errs := validatePodDisruptionBudget(pdb)
	return validateObjectMetaUpdate(errs, &pdb.Metadata, &old.Metadata, metadataPath)
}

// msgPercent is Kubernetes' message for a malformed percentage.
const msgPercent = "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"

// validateIntOrPercent checks a non-negative integer or a percentage of at
// most 100%. Kubernetes: ValidatePositiveIntOrPercent and IsNotMoreThan100Percent.
func validateIntOrPercent(errs apierrors.FieldErrors, v api.IntOrString, p fieldPath) apierrors.FieldErrors {
	if v.Type == api.Int {
		return validateNonNegative(errs, int64(v.IntVal), p)
	}
	digits, ok := strings.CutSuffix(v.StrVal, "%")
	n, err := strconv.Atoi(digits)
	if !ok || err != nil || digits == "" || strings.TrimLeft(digits, "0123456789") != "" {
		return append(errs, Invalid(p.path(), v, msgPercent))
	}
	if n > 100 {
		errs = append(errs, Invalid(p.path(), v, "must not be greater than 100%"))
	}
	return errs
}
