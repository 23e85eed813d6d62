package apiserver

// PodTemplates: defaulting and validation. Kubernetes:
// pkg/apis/core/validation (ValidatePodTemplate, ValidatePodTemplateUpdate,
// ValidatePodTemplateSpec) and the pod spec defaults of pkg/apis/core/v1.

import (
	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// podTemplateMeta is how a template's metadata is checked: namespaced, a
// name that is a DNS subdomain, the core group's finalizer rule.
var podTemplateMeta = metaRules{namespaced: true, name: nameIsDNSSubdomain, kubeFinalizers: true}

// defaultPodTemplate fills the template's pod spec as a pod's is filled.
func defaultPodTemplate(pt *api.PodTemplate) {
	defaultPodSpec(&pt.Template.Spec)
}

// validatePodTemplate checks a template on create: its metadata, and its
// pod's labels, annotations and spec. Kubernetes reports the template's
// labels at template.labels, not template.metadata.labels
// (ValidatePodTemplateSpec checks them under the path it is given).
func validatePodTemplate(pt *api.PodTemplate) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &pt.Metadata, podTemplateMeta, metadataPath)
	return validateTemplateSpec(errs, &pt.Template, pathAt("template"))
}

// validateTemplateSpec is Kubernetes' ValidatePodTemplateSpec at p.
func validateTemplateSpec(errs apierrors.FieldErrors, t *api.PodTemplateSpec, p fieldPath) apierrors.FieldErrors {
	errs = validateLabels(errs, t.Metadata.Labels, p.child("labels"))
	errs = validateAnnotations(errs, t.Metadata.Annotations, p.child("annotations"))
	errs = validatePodSpec(errs, &t.Spec, p.child("spec"))
	return forbidTemplateEphemeralContainers(errs, &t.Spec, p.child("spec"))
}

// validatePodTemplateUpdate checks an update: the template may change
// whole, as long as it stays valid.
func validatePodTemplateUpdate(pt, old *api.PodTemplate) apierrors.FieldErrors {
	errs := validateObjectMetaUpdate(nil, &pt.Metadata, &old.Metadata, metadataPath)
	return validateTemplateSpec(errs, &pt.Template, pathAt("template"))
}
