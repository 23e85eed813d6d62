package apiserver

// PriorityClasses: defaulting and validation. Kubernetes:
// pkg/apis/scheduling/v1/defaults.go and pkg/apis/scheduling/validation
// (v1.32); the one-default rule is the Priority admission plugin's
// (admission_priority.go).

import (
	"fmt"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// Priority values and the reserved names. Kubernetes: pkg/apis/scheduling.
const (
	// highestUserDefinablePriority is the highest value a class not named
	// system-* may have; above it, values are the system's.
	highestUserDefinablePriority = int32(1_000_000_000)
	// systemCriticalPriority is system-cluster-critical's value.
	systemCriticalPriority = 2 * highestUserDefinablePriority
	// systemPriorityClassPrefix starts the names reserved for the system's classes.
	systemPriorityClassPrefix = "system-"
)

// priorityClassMeta is how a class's metadata is checked: cluster-scoped,
// a DNS subdomain name, the core group's finalizer rule.
var priorityClassMeta = metaRules{name: nameIsDNSSubdomain, kubeFinalizers: true}

// systemPriorityClasses are the classes kube-apiserver creates at start
// and the only ones whose names may start with "system-". Kubernetes:
// pkg/apis/scheduling/v1.SystemPriorityClasses.
func systemPriorityClasses() []*api.PriorityClass {
	return []*api.PriorityClass{
		{Metadata: api.ObjectMeta{Name: "system-node-critical"}, Value: systemCriticalPriority + 1000,
			Description: "Used for system critical pods that must not be moved from their current node."},
		{Metadata: api.ObjectMeta{Name: "system-cluster-critical"}, Value: systemCriticalPriority,
			Description: "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary."},
	}
}

// knownSystemPriorityClass says what is wrong with a class whose name has
// the system prefix, "" when it is one of systemPriorityClasses as it must
// be. Kubernetes: IsKnownSystemPriorityClass.
func knownSystemPriorityClass(pc *api.PriorityClass) string {
	for _, spc := range systemPriorityClasses() {
		if spc.Metadata.Name != pc.Metadata.Name {
			continue
		}
		if spc.Value != pc.Value {
			return fmt.Sprintf("value of %s PriorityClass must be %d", spc.Metadata.Name, spc.Value)
		}
		if spc.GlobalDefault != pc.GlobalDefault {
			return fmt.Sprintf("globalDefault of %s PriorityClass must be %t", spc.Metadata.Name, spc.GlobalDefault)
		}
		return ""
	}
	return pc.Metadata.Name + " is not a known system priority class"
}

// defaultPriorityClass fills the preemption policy: PreemptLowerPriority.
func defaultPriorityClass(pc *api.PriorityClass) {
	if pc.PreemptionPolicy == nil {
		pc.PreemptionPolicy = ptr(api.PreemptLowerPriority)
	}
}

// validatePriorityClass checks a class on create: a system- name only for
// the system's classes as they are, a value no higher than
// highestUserDefinablePriority otherwise, a known preemption policy.
func validatePriorityClass(pc *api.PriorityClass) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &pc.Metadata, priorityClassMeta, metadataPath)
	if strings.HasPrefix(pc.Metadata.Name, systemPriorityClassPrefix) {
		if msg := knownSystemPriorityClass(pc); msg != "" {
			errs = append(errs, Forbidden(NewPath("metadata", "name"),
				"priority class names with '"+systemPriorityClassPrefix+"' prefix are reserved for system use only. error: "+msg))
		}
	} else if pc.Value > highestUserDefinablePriority {
		errs = append(errs, Forbidden(NewPath("value"), fmt.Sprintf("maximum allowed value of a user defined priority is %d", highestUserDefinablePriority)))
	}
	if pc.PreemptionPolicy != nil {
		errs = validatePreemptionPolicy(errs, pc.PreemptionPolicy, NewPath("preemptionPolicy"))
	}
	return errs
}

// validatePreemptionPolicy checks a class's or a pod's preemption policy.
// Kubernetes: ValidatePreemptionPolicy.
func validatePreemptionPolicy(errs apierrors.FieldErrors, p *api.PreemptionPolicy, path Path) apierrors.FieldErrors {
	switch *p {
	case api.PreemptLowerPriority, api.PreemptNever:
		return errs
	case "":
		return append(errs, Required(path, ""))
	}
	return append(errs, NotSupported(path, p, string(api.PreemptLowerPriority), string(api.PreemptNever)))
}

// validatePriorityClassUpdate checks an update: value and preemption
// policy may not change. Unlike its create, kube-apiserver does not check
// the rest of the class again.
func validatePriorityClassUpdate(pc, old *api.PriorityClass) apierrors.FieldErrors {
	errs := validateObjectMetaUpdate(nil, &pc.Metadata, &old.Metadata, metadataPath)
	if pc.Value != old.Value {
		errs = append(errs, Forbidden(NewPath("value"), "may not be changed in an update."))
	}
	if !equalPtr(pc.PreemptionPolicy, old.PreemptionPolicy) {
		errs = append(errs, Invalid(NewPath("preemptionPolicy"), pc.PreemptionPolicy, msgImmutable))
	}
	return errs
}
