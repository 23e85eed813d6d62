package apiserver

// Jobs: defaulting and validation. Kubernetes: SetDefaults_Job in
// pkg/apis/batch/v1, the job strategy's PrepareForCreate (the generated
// selector) in pkg/registry/batch/job, and ValidateJob{,Update} in
// pkg/apis/batch/validation (v1.32).

import (
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// batchMeta is how the batch kinds' metadata is checked.
var batchMeta = metaRules{namespaced: true, name: nameIsDNSSubdomain}

// defaultJob fills a job's spec as SetDefaults_Job does (parallelism and
// completions 1 when both are unset, backoffLimit 6, NonIndexed, not
// suspended, the pod replacement policy, manualSelector false), copies the
// template's labels to a job that has none, and, unless the selector is
// manual, generates the selector on the job's uid and labels the template
// with it and the job's name (the job strategy's generateSelector).
func defaultJob(j *api.Job) {
	s := &j.Spec
	if s.Completions == nil && s.Parallelism == nil {
		s.Completions, s.Parallelism = ptr(int32(1)), ptr(int32(1))
	}
	if s.Parallelism == nil {
		s.Parallelism = ptr(int32(1))
	}
	if s.BackoffLimit == nil {
		if s.BackoffLimitPerIndex != nil {
			s.BackoffLimit = ptr(int32(math.MaxInt32))
		} else {
			s.BackoffLimit = ptr(int32(6))
		}
	}
	if s.Template.Metadata.Labels != nil && len(j.Metadata.Labels) == 0 {
		j.Metadata.Labels = maps.Clone(s.Template.Metadata.Labels)
	}
	if s.CompletionMode == nil {
		s.CompletionMode = ptr(api.NonIndexedCompletion)
	}
	if s.Suspend == nil {
		s.Suspend = ptr(false)
	}
	if pfp := s.PodFailurePolicy; pfp != nil {
		for _, rule := range pfp.Rules {
			for i := range rule.OnPodConditions {
				if rule.OnPodConditions[i].Status == "" {
					rule.OnPodConditions[i].Status = api.ConditionTrue
				}
			}
		}
	}
	if s.PodReplacementPolicy == nil {
		if s.PodFailurePolicy != nil {
			s.PodReplacementPolicy = ptr(api.FailedPodReplacement)
		} else {
			s.PodReplacementPolicy = ptr(api.TerminatingOrFailedPodReplacement)
		}
	}
	if s.ManualSelector == nil {
		s.ManualSelector = ptr(false)
	}
	if !*s.ManualSelector && j.Metadata.UID != "" {
		generateJobSelector(j)
	}
	defaultPodSpec(&s.Template.Spec)
}

// generateJobSelector labels the template with the job's name and uid, under
// both the prefixed and the legacy keys, and selects the uid, keeping what
// the user set (validation refuses a conflict). The maps are copied first:
// a written object's maps may be shared with others.
func generateJobSelector(j *api.Job) {
	labels := maps.Clone(j.Spec.Template.Metadata.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	for _, k := range []string{api.LegacyJobNameLabel, api.JobNameLabel} {
		if _, ok := labels[k]; !ok {
			labels[k] = j.Metadata.Name
		}
	}
	for _, k := range []string{api.LegacyControllerUIDLabel, api.ControllerUIDLabel} {
		if _, ok := labels[k]; !ok {
			labels[k] = string(j.Metadata.UID)
		}
	}
	j.Spec.Template.Metadata.Labels = labels
	var sel api.LabelSelector
	if j.Spec.Selector != nil {
		sel = *j.Spec.Selector
	}
	if _, ok := sel.MatchLabels[api.ControllerUIDLabel]; !ok {
		sel.MatchLabels = maps.Clone(sel.MatchLabels)
		if sel.MatchLabels == nil {
			sel.MatchLabels = map[string]string{}
		}
		sel.MatchLabels[api.ControllerUIDLabel] = string(j.Metadata.UID)
	}
	j.Spec.Selector = &sel
}

// validateJob checks a job on create. Kubernetes: ValidateJob and
// ValidateJobSpec.
func validateJob(j *api.Job) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &j.Metadata, batchMeta, metadataPath)
	return validateJobSpec(errs, &j.Spec, pathAt("spec"))
}

func validateJobSpec(errs apierrors.FieldErrors, s *api.JobSpec, p fieldPath) apierrors.FieldErrors {
	for _, f := range []struct {
		name string
		v    *int32
	}{
		{"parallelism", s.Parallelism}, {"completions", s.Completions}, {"backoffLimit", s.BackoffLimit},
		{"ttlSecondsAfterFinished", s.TTLSecondsAfterFinished}, {"backoffLimitPerIndex", s.BackoffLimitPerIndex},
		{"maxFailedIndexes", s.MaxFailedIndexes},
	} {
		if f.v != nil {
			errs = validateNonNegative(errs, int64(*f.v), p.child(f.name))
		}
	}
	if s.ActiveDeadlineSeconds != nil {
		errs = validateNonNegative(errs, *s.ActiveDeadlineSeconds, p.child("activeDeadlineSeconds"))
	}
	if s.MaxFailedIndexes != nil && s.BackoffLimitPerIndex == nil {
		errs = append(errs, Required(p.child("backoffLimitPerIndex").path(), "when maxFailedIndexes is specified"))
	}
	mode := deref(s.CompletionMode)
	if s.CompletionMode != nil && mode != api.NonIndexedCompletion && mode != api.IndexedCompletion {
		errs = append(errs, NotSupported(p.child("completionMode").path(), mode, api.NonIndexedCompletion, api.IndexedCompletion))
	}
	if mode == api.IndexedCompletion {
		if s.Completions == nil {
			errs = append(errs, Required(p.child("completions").path(), "when completion mode is Indexed"))
		}
		if s.Parallelism != nil && *s.Parallelism > 100000 {
			errs = append(errs, Invalid(p.child("parallelism").path(), *s.Parallelism, "must be less than or equal to 100000 when completion mode is Indexed"))
		}
		if s.Completions != nil && s.MaxFailedIndexes != nil && *s.MaxFailedIndexes > *s.Completions {
			errs = append(errs, Invalid(p.child("maxFailedIndexes").path(), *s.MaxFailedIndexes, "must be less than or equal to completions"))
		}
	} else {
		if s.BackoffLimitPerIndex != nil {
			errs = append(errs, Invalid(p.child("backoffLimitPerIndex").path(), *s.BackoffLimitPerIndex, "requires indexed completion mode"))
		}
		if s.MaxFailedIndexes != nil {
			errs = append(errs, Invalid(p.child("maxFailedIndexes").path(), *s.MaxFailedIndexes, "requires indexed completion mode"))
		}
		if s.SuccessPolicy != nil {
			errs = append(errs, Invalid(p.child("successPolicy").path(), *s.SuccessPolicy, "requires indexed completion mode"))
		}
	}
	if s.PodFailurePolicy != nil {
		errs = validatePodFailurePolicy(errs, s, p.child("podFailurePolicy"))
	}
	if rp := s.PodReplacementPolicy; rp != nil {
		pp := p.child("podReplacementPolicy")
		switch {
		case s.PodFailurePolicy != nil && *rp != api.FailedPodReplacement:
			errs = append(errs, NotSupported(pp.path(), *rp, api.FailedPodReplacement))
		case *rp != api.FailedPodReplacement && *rp != api.TerminatingOrFailedPodReplacement:
			errs = append(errs, NotSupported(pp.path(), *rp, api.FailedPodReplacement, api.TerminatingOrFailedPodReplacement))
		}
	}

	sp := p.child("selector")
	if s.Selector == nil {
		errs = append(errs, Required(sp.path(), ""))
	} else {
		errs = validateLabelSelector(errs, s.Selector, sp)
	}
	tp := p.child("template")
	if selector, err := api.LabelSelectorAsSelector(s.Selector); err == nil && !selector.Matches(s.Template.Metadata.Labels) {
		errs = append(errs, Invalid(tp.child("metadata").child("labels").path(), s.Template.Metadata.Labels, "`selector` does not match template `labels`"))
	}
	errs = validateLabels(errs, s.Template.Metadata.Labels, tp.child("metadata").child("labels"))
	errs = validateAnnotations(errs, s.Template.Metadata.Annotations, tp.child("metadata").child("annotations"))
	tspec := tp.child("spec")
	errs = validatePodSpec(errs, &s.Template.Spec, tspec)
	errs = forbidTemplateEphemeralContainers(errs, &s.Template.Spec, tspec)
	rpp := tspec.child("restartPolicy").path()
	switch policy := s.Template.Spec.RestartPolicy; {
	case policy == api.RestartPolicyAlways || policy == "":
		errs = append(errs, Required(rpp, fmt.Sprintf("valid values: %q, %q", api.RestartPolicyOnFailure, api.RestartPolicyNever)))
	case policy != api.RestartPolicyOnFailure && policy != api.RestartPolicyNever:
		errs = append(errs, NotSupported(rpp, policy, string(api.RestartPolicyOnFailure), string(api.RestartPolicyNever)))
	case s.PodFailurePolicy != nil && policy != api.RestartPolicyNever:
		errs = append(errs, Invalid(rpp, policy, fmt.Sprintf("only %q is supported when podFailurePolicy is specified", api.RestartPolicyNever)))
	}
	return errs
}

// validatePodFailurePolicy checks the rules at p. Kubernetes:
// validatePodFailurePolicy and its rules' checks.
func validatePodFailurePolicy(errs apierrors.FieldErrors, s *api.JobSpec, p fieldPath) apierrors.FieldErrors {
	rulesPath := p.child("rules")
	if n := len(s.PodFailurePolicy.Rules); n > 20 {
		errs = append(errs, apierrors.FieldError{Type: api.CauseTypeFieldValueTooMany, Field: string(rulesPath.path()),
			Detail: "must have at most 20 items"})
	}
	var names []string
	for _, c := range s.Template.Spec.InitContainers {
		names = append(names, c.Name)
	}
	for _, c := range s.Template.Spec.Containers {
		names = append(names, c.Name)
	}
	actions := []string{api.PodFailurePolicyActionCount, api.PodFailurePolicyActionFailIndex, api.PodFailurePolicyActionFailJob, api.PodFailurePolicyActionIgnore}
	for i, rule := range s.PodFailurePolicy.Rules {
		rp := rulesPath.index(i)
		ap := rp.child("action")
		switch {
		case rule.Action == "":
			errs = append(errs, Required(ap.path(), `valid values: ["Count" "FailIndex" "FailJob" "Ignore"]`))
		case rule.Action == api.PodFailurePolicyActionFailIndex && s.BackoffLimitPerIndex == nil:
			errs = append(errs, Invalid(ap.path(), rule.Action, "requires the backoffLimitPerIndex to be set"))
		case !slices.Contains(actions, rule.Action):
			errs = append(errs, NotSupported(ap.path(), rule.Action, actions...))
		}
		switch {
		case rule.OnExitCodes != nil && len(rule.OnPodConditions) > 0:
			errs = append(errs, Invalid(rp.path(), nil, "specifying both OnExitCodes and OnPodConditions is not supported"))
		case rule.OnExitCodes == nil && len(rule.OnPodConditions) == 0:
			errs = append(errs, Invalid(rp.path(), nil, "specifying one of OnExitCodes and OnPodConditions is required"))
		}
		if ec := rule.OnExitCodes; ec != nil {
			errs = validateOnExitCodes(errs, ec, names, rp.child("onExitCodes"))
		}
		for j, pattern := range rule.OnPodConditions {
			sp := rp.child("onPodConditions").index(j).child("status")
			switch pattern.Status {
			case api.ConditionTrue, api.ConditionFalse, api.ConditionUnknown:
			case "":
				errs = append(errs, Required(sp.path(), `valid values: ["False" "True" "Unknown"]`))
			default:
				errs = append(errs, NotSupported(sp.path(), pattern.Status, "False", "True", "Unknown"))
			}
		}
	}
	return errs
}

func validateOnExitCodes(errs apierrors.FieldErrors, ec *api.PodFailurePolicyOnExitCodesRequirement, names []string, p fieldPath) apierrors.FieldErrors {
	op := p.child("operator")
	switch ec.Operator {
	case api.PodFailurePolicyOnExitCodesOpIn, api.PodFailurePolicyOnExitCodesOpNotIn:
	case "":
		errs = append(errs, Required(op.path(), `valid values: ["In" "NotIn"]`))
	default:
		errs = append(errs, NotSupported(op.path(), ec.Operator, api.PodFailurePolicyOnExitCodesOpIn, api.PodFailurePolicyOnExitCodesOpNotIn))
	}
	if ec.ContainerName != nil && !slices.Contains(names, *ec.ContainerName) {
		errs = append(errs, Invalid(p.child("containerName").path(), *ec.ContainerName, "must be one of the container or initContainer names in the pod template"))
	}
	vp := p.child("values")
	if len(ec.Values) == 0 {
		return append(errs, Invalid(vp.path(), ec.Values, "at least one value is required"))
	}
	for i, v := range ec.Values {
		if ec.Operator == api.PodFailurePolicyOnExitCodesOpIn && v == 0 {
			errs = append(errs, Invalid(vp.index(i).path(), v, "must not be 0 for the In operator"))
		}
		if i > 0 && ec.Values[i-1] == v {
			errs = append(errs, Duplicate(vp.index(i).path(), v))
		}
	}
	if !slices.IsSorted(ec.Values) {
		errs = append(errs, Invalid(vp.path(), ec.Values, "must be ordered"))
	}
	return errs
}

// validateJobUpdate checks a job's update: the create rules, and what may
// not change — the selector, the completion mode, the pod failure policy,
// the template unless the job is suspended, and completions unless an
// Indexed job scales completions and parallelism together. Kubernetes:
// ValidateJobUpdate and ValidateJobSpecUpdate.
func validateJobUpdate(j, old *api.Job) apierrors.FieldErrors {
	errs := validateJob(j)
	errs = validateObjectMetaUpdate(errs, &j.Metadata, &old.Metadata, metadataPath)
	p := pathAt("spec")
	s, os := &j.Spec, &old.Spec
	if !reflect.DeepEqual(s.Completions, os.Completions) {
		cp := p.child("completions").path()
		switch {
		case deref(s.CompletionMode) != api.IndexedCompletion:
			errs = append(errs, Invalid(cp, s.Completions, msgImmutable))
		case s.Completions == nil:
			errs = append(errs, Invalid(cp, nil, "must be greater than or equal to 0"))
		case deref(s.Parallelism) != *s.Completions:
			errs = append(errs, Invalid(cp, *s.Completions, fmt.Sprintf("can only be modified in tandem with %s", p.child("parallelism").path())))
		}
	}
	for _, f := range []struct {
		name     string
		now, was any
	}{
		{"selector", s.Selector, os.Selector}, {"completionMode", s.CompletionMode, os.CompletionMode},
		{"podFailurePolicy", s.PodFailurePolicy, os.PodFailurePolicy}, {"backoffLimitPerIndex", s.BackoffLimitPerIndex, os.BackoffLimitPerIndex},
		{"managedBy", s.ManagedBy, os.ManagedBy}, {"successPolicy", s.SuccessPolicy, os.SuccessPolicy},
	} {
		if !reflect.DeepEqual(f.now, f.was) {
			errs = append(errs, Invalid(p.child(f.name).path(), f.now, msgImmutable))
		}
	}
	if !deref(os.Suspend) && !reflect.DeepEqual(s.Template, os.Template) {
		errs = append(errs, Invalid(p.child("template").path(), s.Template, msgImmutable))
	}
	return errs
}
