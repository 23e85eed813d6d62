package apiserver

// Replication controllers: defaulting and validation. Kubernetes:
// SetDefaults_ReplicationController in pkg/apis/core/v1 and
// ValidateReplicationController{,Update} in pkg/apis/core/validation.

import (
	"maps"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// rcMeta is how replication controllers' metadata is checked.
var rcMeta = metaRules{namespaced: true, name: nameIsDNSSubdomain, kubeFinalizers: true}

// defaultReplicationController fills in what a controller's creator may
// leave out: the selector and the controller's own labels default to the
// template's labels, replicas to 1, and the template's pod spec as a pod's.
func defaultReplicationController(rc *api.ReplicationController) {
	if t := rc.Spec.Template; t != nil && len(t.Metadata.Labels) > 0 {
		// Copies, so that the three maps never alias each other.
		if len(rc.Spec.Selector) == 0 {
			rc.Spec.Selector = maps.Clone(t.Metadata.Labels)
		}
		if len(rc.Metadata.Labels) == 0 {
			rc.Metadata.Labels = maps.Clone(t.Metadata.Labels)
		}
	}
	if rc.Spec.Replicas == nil {
		one := int32(1)
		rc.Spec.Replicas = &one
	}
	if rc.Spec.Template != nil {
		defaultPodSpec(&rc.Spec.Template.Spec)
	}
}

// validateReplicationController checks a replication controller on create.
func validateReplicationController(rc *api.ReplicationController) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &rc.Metadata, rcMeta, metadataPath)
	return validateReplicationControllerSpec(errs, &rc.Spec, pathAt("spec"))
}

// validateReplicationControllerUpdate checks an update: everything but the
// controller's identity may change, its selector included.
func validateReplicationControllerUpdate(rc, old *api.ReplicationController) apierrors.FieldErrors {
	errs := validateReplicationController(rc)
	return validateObjectMetaUpdate(errs, &rc.Metadata, &old.Metadata, metadataPath)
}

// validateReplicationControllerSpec: Kubernetes'
// ValidateReplicationControllerSpec and ValidatePodTemplateSpecForRC.
func validateReplicationControllerSpec(errs apierrors.FieldErrors, s *api.ReplicationControllerSpec, p fieldPath) apierrors.FieldErrors {
	errs = validateNonNegative(errs, int64(s.MinReadySeconds), p.child("minReadySeconds"))
	// An empty selector would select every pod in the namespace.
	if len(s.Selector) == 0 {
		errs = append(errs, Required(p.child("selector").path(), ""))
	} else {
		errs = validateLabels(errs, s.Selector, p.child("selector"))
	}
	if s.Replicas != nil {
		errs = validateNonNegative(errs, int64(*s.Replicas), p.child("replicas"))
	}
	t := s.Template
	if t == nil {
		return append(errs, Required(p.child("template").path(), ""))
	}
	tmeta := p.child("template").child("metadata")
	// The controller would never see the pods it creates as its own.
	if len(s.Selector) > 0 && !setMatches(s.Selector, t.Metadata.Labels) {
		errs = append(errs, Invalid(tmeta.child("labels").path(), t.Metadata.Labels, "`selector` does not match template `labels`"))
	}
	errs = validateLabels(errs, t.Metadata.Labels, tmeta.child("labels"))
	errs = validateAnnotations(errs, t.Metadata.Annotations, tmeta.child("annotations"))
	tspec := p.child("template").child("spec")
	errs = validatePodSpec(errs, &t.Spec, tspec)
	errs = forbidTemplateEphemeralContainers(errs, &t.Spec, tspec)
	// A controller keeps its pods running; a pod that completes would be
	// replaced forever.
	if t.Spec.RestartPolicy != api.RestartPolicyAlways {
		errs = append(errs, NotSupported(tspec.child("restartPolicy").path(), t.Spec.RestartPolicy, string(api.RestartPolicyAlways)))
	}
	return errs
}

// setMatches reports whether labels has every pair of selector: the
// equality-based match of api.SelectorFromSet, without building a selector.
func setMatches(selector, labels map[string]string) bool {
	for k, v := range selector {
		if lv, ok := labels[k]; !ok || lv != v {
			return false
		}
	}
	return true
}
