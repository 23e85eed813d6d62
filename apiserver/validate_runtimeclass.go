package apiserver

// RuntimeClasses: validation. Kubernetes: pkg/apis/node/validation (v1.32).
// node/v1 has no defaults.

import (
	"fmt"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// runtimeClassMeta is how a class's metadata is checked: cluster-scoped, a
// DNS subdomain name.
var runtimeClassMeta = metaRules{name: nameIsDNSSubdomain, kubeFinalizers: true}

func defaultRuntimeClass(*api.RuntimeClass) {}

// validateRuntimeClass checks a class on create: a DNS-label handler, an
// overhead valid as a container's limits, a scheduling whose node selector
// is valid labels and whose tolerations are valid and not repeated.
// Kubernetes: ValidateRuntimeClass.
func validateRuntimeClass(rc *api.RuntimeClass) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &rc.Metadata, runtimeClassMeta, metadataPath)
	errs = invalidEach(errs, pathAt(NewPath("handler")), rc.Handler, nameIsDNSLabel(rc.Handler, false))
	if rc.Overhead != nil {
		errs = validateResources(errs, &api.ResourceRequirements{Limits: rc.Overhead.PodFixed}, pathAt(NewPath("overhead")))
	}
	if s := rc.Scheduling; s != nil {
		p := pathAt(NewPath("scheduling"))
		if s.NodeSelector != nil {
			errs = validateLabels(errs, s.NodeSelector, p.child("nodeSelector"))
		}
		// Upstream checks the tolerations one level too deep
		// (scheduling.tolerations.tolerations[0]); the paths are its.
		errs = validateTolerations(errs, s.Tolerations, p.child("tolerations").child("tolerations"))
		type tolerationKey struct {
			key, operator, value, effect string
		}
		seen := make(map[tolerationKey]bool, len(s.Tolerations))
		for i, t := range s.Tolerations {
			k := tolerationKey{t.Key, string(t.Operator), t.Value, string(t.Effect)}
			if seen[k] {
				errs = append(errs, Duplicate(p.child("tolerations").index(i).path(), tolerationValue(t)))
			}
			seen[k] = true
		}
	}
	return errs
}

// validateRuntimeClassUpdate checks an update: the handler may not change.
// Kubernetes: ValidateRuntimeClassUpdate.
func validateRuntimeClassUpdate(rc, old *api.RuntimeClass) apierrors.FieldErrors {
	errs := validateObjectMetaUpdate(nil, &rc.Metadata, &old.Metadata, metadataPath)
	if rc.Handler != old.Handler {
		errs = append(errs, Invalid(NewPath("handler"), rc.Handler, msgImmutable))
	}
	return errs
}

// tolerationValue is a toleration as kube-apiserver prints it in a
// Duplicate error, in its internal type's Go syntax; a set
// tolerationSeconds prints its value where upstream prints an address.
func tolerationValue(t api.Toleration) upstreamValue {
	secs := "(*int64)(nil)"
	if t.TolerationSeconds != nil {
		secs = fmt.Sprintf("(*int64)(%d)", *t.TolerationSeconds)
	}
	return upstreamValue(fmt.Sprintf("core.Toleration{Key:%q, Operator:%q, Value:%q, Effect:%q, TolerationSeconds:%s}",
		t.Key, t.Operator, t.Value, t.Effect, secs))
}
