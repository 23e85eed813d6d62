package apiserver

// Label selectors of the newer kinds (metav1.LabelSelector): validation.
// Kubernetes: ValidateLabelSelector in apimachinery's meta/v1/validation.

import (
	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// validateLabelSelector checks ls at p: its matchLabels as labels, and each
// requirement's operator, values and key. A nil ls is valid.
func validateLabelSelector(errs apierrors.FieldErrors, ls *api.LabelSelector, p fieldPath) apierrors.FieldErrors {
	if ls == nil {
		return errs
	}
	errs = validateLabels(errs, ls.MatchLabels, p.child("matchLabels"))
	for i, r := range ls.MatchExpressions {
		rp := p.child("matchExpressions").index(i)
		switch r.Operator {
		case api.LabelSelectorOpIn, api.LabelSelectorOpNotIn:
			if len(r.Values) == 0 {
				errs = append(errs, Required(rp.child("values").path(), "must be specified when `operator` is 'In' or 'NotIn'"))
			}
		case api.LabelSelectorOpExists, api.LabelSelectorOpDoesNotExist:
			if len(r.Values) > 0 {
				errs = append(errs, Forbidden(rp.child("values").path(), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
			}
		default:
			errs = append(errs, Invalid(rp.child("operator").path(), r.Operator, "not a valid selector operator"))
		}
		errs = validateQualifiedNameField(errs, r.Key, rp.child("key"))
		for j, v := range r.Values {
			errs = invalidEach(errs, rp.child("values").index(j), v, labelValueMsgs(v))
		}
	}
	return errs
}

// validateSelectedTemplate checks the selector and pod template of a
// replicated kind (ReplicaSet, StatefulSet) at p ("spec"): the selector is
// required, valid and not empty, the template's labels match it, the
// template is a valid pod template, and its pods restart Always. what names
// the kind in the empty-selector message, as Kubernetes words it.
// Kubernetes: ValidateReplicaSetSpec and ValidateStatefulSetSpec's shared
// part, ValidatePodTemplateSpecForReplicaSet.
func validateSelectedTemplate(errs apierrors.FieldErrors, sel *api.LabelSelector, t *api.PodTemplateSpec, what string, p fieldPath) apierrors.FieldErrors {
	sp := p.child("selector")
	if sel == nil {
		errs = append(errs, Required(sp.path(), ""))
	} else {
		errs = validateLabelSelector(errs, sel, sp)
		if len(sel.MatchLabels)+len(sel.MatchExpressions) == 0 {
			errs = append(errs, Invalid(sp.path(), sel, "empty selector is invalid for "+what))
		}
	}
	tp := p.child("template")
	tmeta := tp.child("metadata")
	if selector, err := api.LabelSelectorAsSelector(sel); err != nil {
		errs = append(errs, Invalid(sp.path(), sel, "invalid label selector"))
	} else if sel != nil && !selector.Empty() && !selector.Matches(t.Metadata.Labels) {
		errs = append(errs, Invalid(tmeta.child("labels").path(), t.Metadata.Labels, "`selector` does not match template `labels`"))
	}
	errs = validateLabels(errs, t.Metadata.Labels, tmeta.child("labels"))
	errs = validateAnnotations(errs, t.Metadata.Annotations, tmeta.child("annotations"))
	tspec := tp.child("spec")
	errs = validatePodSpec(errs, &t.Spec, tspec)
	errs = forbidTemplateEphemeralContainers(errs, &t.Spec, tspec)
	if t.Spec.RestartPolicy != api.RestartPolicyAlways {
		errs = append(errs, NotSupported(tspec.child("restartPolicy").path(), t.Spec.RestartPolicy, string(api.RestartPolicyAlways)))
	}
	return errs
}
