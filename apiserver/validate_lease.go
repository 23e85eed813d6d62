package apiserver

// Leases (coordination.k8s.io): validation. Kubernetes:
// pkg/apis/coordination/validation.

import (
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// leaseMeta is how leases' metadata is checked. Leases are not in the core
// group, so the core rule on finalizer names does not apply.
var leaseMeta = metaRules{namespaced: true, name: nameIsDNSSubdomain}

// leaseStrategyOldestEmulationVersion is the one coordinated leader election
// strategy Kubernetes defines; others must carry a domain prefix.
const leaseStrategyOldestEmulationVersion = "OldestEmulationVersion"

// defaultLease does nothing: Kubernetes defaults no lease field. It exists so
// that every kind has the same three hooks.
func defaultLease(*api.Lease) {}

// validateLease checks a lease on create.
func validateLease(l *api.Lease) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &l.Metadata, leaseMeta, metadataPath)
	return validateLeaseSpec(errs, &l.Spec, pathAt("spec"))
}

// validateLeaseUpdate checks an update: a lease keeps its identity; its
// holder, times and transitions change freely (that is what a lease is for).
func validateLeaseUpdate(l, old *api.Lease) apierrors.FieldErrors {
	errs := validateLease(l)
	return validateObjectMetaUpdate(errs, &l.Metadata, &old.Metadata, metadataPath)
}

// validateLeaseSpec: Kubernetes' ValidateLeaseSpec. holderIdentity is free
// text; renewTime and acquireTime need no check.
func validateLeaseSpec(errs apierrors.FieldErrors, s *api.LeaseSpec, p fieldPath) apierrors.FieldErrors {
	if s.LeaseDurationSeconds != nil && *s.LeaseDurationSeconds <= 0 {
		errs = append(errs, Invalid(p.child("leaseDurationSeconds").path(), *s.LeaseDurationSeconds, "must be greater than 0"))
	}
	if s.LeaseTransitions != nil && *s.LeaseTransitions < 0 {
		errs = append(errs, Invalid(p.child("leaseTransitions").path(), *s.LeaseTransitions, msgNonNegative))
	}
	if s.Strategy != nil {
		if strategy := *s.Strategy; !strings.Contains(strategy, "/") {
			if strategy != leaseStrategyOldestEmulationVersion {
				errs = append(errs, NotSupported(p.child("strategy").path(), strategy, leaseStrategyOldestEmulationVersion))
			}
		} else {
			errs = validateQualifiedNameField(errs, strategy, p.child("strategy"))
		}
	}
	if s.PreferredHolder != nil && *s.PreferredHolder != "" && (s.Strategy == nil || *s.Strategy == "") {
		errs = append(errs, Forbidden(p.child("preferredHolder").path(), "may only be specified if `strategy` is defined"))
	}
	return errs
}
