package apiserver

// HorizontalPodAutoscalers: defaults and validation of autoscaling/v2, the
// stored version (autoscaling/v1 objects are converted to it first, so one
// set of rules serves both). Kubernetes: pkg/apis/autoscaling/v2/defaults.go
// and pkg/apis/autoscaling/validation (v1.32, HPAScaleToZero off: minReplicas
// is at least 1 unless it already was 0).

import (
	"fmt"
	"slices"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/api/quota"
)

// hpaMeta is how autoscalers' metadata is checked (the replication
// controller's name rule, as Kubernetes reuses it).
var hpaMeta = metaRules{namespaced: true, name: nameIsDNSSubdomain}

// The bounds of an autoscaler's behavior. Kubernetes: MaxPeriodSeconds and
// MaxStabilizationWindowSeconds.
const (
	hpaMaxPeriodSeconds              = 1800
	hpaMaxStabilizationWindowSeconds = 3600
)

var (
	hpaSelectPolicies = []string{"Disabled", "Max", "Min"}
	hpaPolicyTypes    = []string{"Percent", "Pods"}
	hpaMetricTypes    = []string{"ContainerResource", "External", "Object", "Pods", "Resource"}
)

// defaultHorizontalPodAutoscaler sets minReplicas to 1, the 80% CPU target
// when no metric is named, and each direction's default rules when a
// behavior is given. Kubernetes: SetDefaults_HorizontalPodAutoscaler.
func defaultHorizontalPodAutoscaler(h *api.HorizontalPodAutoscaler) {
	if h.Spec.MinReplicas == nil {
		one := int32(1)
		h.Spec.MinReplicas = &one
	}
	if len(h.Spec.Metrics) == 0 {
		cpu := int32(api.HPADefaultCPUUtilization)
		h.Spec.Metrics = []api.MetricSpec{{Type: "Resource", Resource: &api.ResourceMetricSource{Name: "cpu",
			Target: api.MetricTarget{Type: "Utilization", AverageUtilization: &cpu}}}}
	}
	if b := h.Spec.Behavior; b != nil {
		maxPolicy := "Max"
		zero := int32(0)
		b.ScaleUp = defaultScalingRules(b.ScaleUp, api.HPAScalingRules{StabilizationWindowSeconds: &zero, SelectPolicy: &maxPolicy,
			Policies: []api.HPAScalingPolicy{{Type: "Pods", Value: 4, PeriodSeconds: 15}, {Type: "Percent", Value: 100, PeriodSeconds: 15}}})
		b.ScaleDown = defaultScalingRules(b.ScaleDown, api.HPAScalingRules{SelectPolicy: &maxPolicy,
			Policies: []api.HPAScalingPolicy{{Type: "Percent", Value: 100, PeriodSeconds: 15}}})
	}
}

// defaultScalingRules returns def with what r sets. Kubernetes:
// copyHPAScalingRules.
func defaultScalingRules(r *api.HPAScalingRules, def api.HPAScalingRules) *api.HPAScalingRules {
	if r != nil {
		if r.SelectPolicy != nil {
			def.SelectPolicy = r.SelectPolicy
		}
		if r.StabilizationWindowSeconds != nil {
			def.StabilizationWindowSeconds = r.StabilizationWindowSeconds
		}
		if r.Policies != nil {
			def.Policies = r.Policies
		}
	}
	return &def
}

// validateHorizontalPodAutoscaler checks an autoscaler on create.
// Kubernetes: ValidateHorizontalPodAutoscaler.
func validateHorizontalPodAutoscaler(h *api.HorizontalPodAutoscaler) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &h.Metadata, hpaMeta, metadataPath)
	return validateHPASpec(errs, &h.Spec, pathAt("spec"), 1)
}

// validateHorizontalPodAutoscalerUpdate checks an update: the spec may
// change; minReplicas may stay 0 if it was.
func validateHorizontalPodAutoscalerUpdate(h, old *api.HorizontalPodAutoscaler) apierrors.FieldErrors {
	errs := validateObjectMetaUpdate(nil, &h.Metadata, &old.Metadata, metadataPath)
	lower := int32(1)
	if m := old.Spec.MinReplicas; m != nil && *m == 0 {
		lower = 0
	}
	errs = validateHPASpec(errs, &h.Spec, pathAt("spec"), lower)
	errs = validateNonNegative(errs, int64(h.Status.CurrentReplicas), pathAt("status").child("currentReplicas"))
	return validateNonNegative(errs, int64(h.Status.DesiredReplicas), pathAt("status").child("desiredReplicas"))
}

func validateHPASpec(errs apierrors.FieldErrors, s *api.HorizontalPodAutoscalerSpec, p fieldPath, minLower int32) apierrors.FieldErrors {
	if s.MinReplicas != nil && *s.MinReplicas < minLower {
		errs = append(errs, Invalid(p.child("minReplicas").path(), *s.MinReplicas, fmt.Sprintf("must be greater than or equal to %d", minLower)))
	}
	if s.MaxReplicas < 1 {
		errs = append(errs, Invalid(p.child("maxReplicas").path(), s.MaxReplicas, "must be greater than 0"))
	}
	if s.MinReplicas != nil && s.MaxReplicas < *s.MinReplicas {
		errs = append(errs, Invalid(p.child("maxReplicas").path(), s.MaxReplicas, "must be greater than or equal to `minReplicas`"))
	}
	errs = validateCrossVersionRef(errs, s.ScaleTargetRef, p.child("scaleTargetRef"))
	objectOrExternal := false
	for i, m := range s.Metrics {
		errs = validateMetricSpec(errs, m, p.child("metrics").index(i))
		objectOrExternal = objectOrExternal || m.Type == "Object" || m.Type == "External"
	}
	if s.MinReplicas != nil && *s.MinReplicas == 0 && !objectOrExternal {
		errs = append(errs, Forbidden(p.child("metrics").path(), "must specify at least one Object or External metric to support scaling to zero replicas"))
	}
	if b := s.Behavior; b != nil {
		errs = validateScalingRules(errs, b.ScaleUp, p.child("behavior").child("scaleUp"))
		errs = validateScalingRules(errs, b.ScaleDown, p.child("behavior").child("scaleDown"))
	}
	return errs
}

// validateCrossVersionRef: a kind and a name, each a path segment.
// Kubernetes: ValidateCrossVersionObjectReference.
func validateCrossVersionRef(errs apierrors.FieldErrors, ref api.CrossVersionObjectReference, p fieldPath) apierrors.FieldErrors {
	for _, f := range []struct{ name, value string }{{"kind", ref.Kind}, {"name", ref.Name}} {
		if f.value == "" {
			errs = append(errs, Required(p.child(f.name).path(), ""))
			continue
		}
		errs = invalidEach(errs, p.child(f.name), f.value, nameIsPathSegment(f.value, false))
	}
	return errs
}

func validateScalingRules(errs apierrors.FieldErrors, r *api.HPAScalingRules, p fieldPath) apierrors.FieldErrors {
	if r == nil {
		return errs
	}
	if w := r.StabilizationWindowSeconds; w != nil && *w < 0 {
		errs = append(errs, Invalid(p.child("stabilizationWindowSeconds").path(), *w, "must be greater than or equal to zero"))
	}
	if w := r.StabilizationWindowSeconds; w != nil && *w > hpaMaxStabilizationWindowSeconds {
		errs = append(errs, Invalid(p.child("stabilizationWindowSeconds").path(), *w, fmt.Sprintf("must be less than or equal to %v", hpaMaxStabilizationWindowSeconds)))
	}
	if sp := r.SelectPolicy; sp != nil && !slices.Contains(hpaSelectPolicies, *sp) {
		errs = append(errs, NotSupported(p.child("selectPolicy").path(), *sp, hpaSelectPolicies...))
	}
	if len(r.Policies) == 0 {
		errs = append(errs, Required(p.child("policies").path(), "must specify at least one Policy"))
	}
	for i, pol := range r.Policies {
		pp := p.child("policies").index(i)
		if !slices.Contains(hpaPolicyTypes, pol.Type) {
			errs = append(errs, NotSupported(pp.child("type").path(), pol.Type, hpaPolicyTypes...))
		}
		if pol.Value <= 0 {
			errs = append(errs, Invalid(pp.child("value").path(), pol.Value, "must be greater than zero"))
		}
		if pol.PeriodSeconds <= 0 {
			errs = append(errs, Invalid(pp.child("periodSeconds").path(), pol.PeriodSeconds, "must be greater than zero"))
		}
		if pol.PeriodSeconds > hpaMaxPeriodSeconds {
			errs = append(errs, Invalid(pp.child("periodSeconds").path(), pol.PeriodSeconds, fmt.Sprintf("must be less than or equal to %v", hpaMaxPeriodSeconds)))
		}
	}
	return errs
}

// validateMetricSpec: a known type, its source set and no other, and the
// source's own rules (of the first source set, as Kubernetes checks).
// Kubernetes: validateMetricSpec.
func validateMetricSpec(errs apierrors.FieldErrors, m api.MetricSpec, p fieldPath) apierrors.FieldErrors {
	if m.Type == "" {
		errs = append(errs, Required(p.child("type").path(), "must specify a metric source type"))
	}
	known := slices.Contains(hpaMetricTypes, m.Type)
	if !known {
		errs = append(errs, NotSupported(p.child("type").path(), m.Type, hpaMetricTypes...))
	}
	sources := []struct {
		name, typ string
		set       bool
		check     func(apierrors.FieldErrors, fieldPath) apierrors.FieldErrors
	}{
		{"object", "Object", m.Object != nil, func(e apierrors.FieldErrors, p fieldPath) apierrors.FieldErrors {
			e = validateCrossVersionRef(e, m.Object.DescribedObject, p.child("describedObject"))
			e = validateMetricIdentifier(e, m.Object.Metric, p.child("metric"))
			e = validateMetricTarget(e, m.Object.Target, p.child("target"))
			if m.Object.Target.Value == nil && m.Object.Target.AverageValue == nil {
				e = append(e, Required(p.child("target").child("averageValue").path(), "must set either a target value or averageValue"))
			}
			return e
		}},
		{"external", "External", m.External != nil, func(e apierrors.FieldErrors, p fieldPath) apierrors.FieldErrors {
			e = validateMetricIdentifier(e, m.External.Metric, p.child("metric"))
			t := m.External.Target
			e = validateMetricTarget(e, t, p.child("target"))
			if t.Value == nil && t.AverageValue == nil {
				e = append(e, Required(p.child("target").child("averageValue").path(), "must set either a target value for metric or a per-pod target"))
			}
			if t.Value != nil && t.AverageValue != nil {
				e = append(e, Forbidden(p.child("target").child("value").path(), "may not set both a target value for metric and a per-pod target"))
			}
			return e
		}},
		{"pods", "Pods", m.Pods != nil, func(e apierrors.FieldErrors, p fieldPath) apierrors.FieldErrors {
			e = validateMetricIdentifier(e, m.Pods.Metric, p.child("metric"))
			e = validateMetricTarget(e, m.Pods.Target, p.child("target"))
			if m.Pods.Target.AverageValue == nil {
				e = append(e, Required(p.child("target").child("averageValue").path(), "must specify a positive target averageValue"))
			}
			return e
		}},
		{"resource", "Resource", m.Resource != nil, func(e apierrors.FieldErrors, p fieldPath) apierrors.FieldErrors {
			if m.Resource.Name == "" {
				e = append(e, Required(p.child("name").path(), "must specify a resource name"))
			}
			return validateResourceTarget(e, m.Resource.Target, p.child("target"))
		}},
		{"containerResource", "ContainerResource", m.ContainerResource != nil, func(e apierrors.FieldErrors, p fieldPath) apierrors.FieldErrors {
			r := m.ContainerResource
			if r.Name == "" {
				e = append(e, Required(p.child("name").path(), "must specify a resource name"))
			} else {
				e = validateContainerResourceName(e, r.Name, p.child("name"))
			}
			if r.Container == "" {
				e = append(e, Required(p.child("container").path(), "must specify a container"))
			} else {
				e = validateDNS1123LabelField(e, r.Container, p.child("container"))
			}
			return validateResourceTarget(e, r.Target, p.child("target"))
		}},
	}
	present := 0
	for _, s := range sources {
		if s.set {
			if present++; present == 1 {
				errs = s.check(errs, p.child(s.name))
			}
		}
	}
	expected := ""
	for _, s := range sources {
		if s.typ == m.Type {
			expected = s.name
			if !s.set {
				errs = append(errs, Required(p.child(s.name).path(), "must populate information for the given metric source"))
			}
		}
	}
	if !known {
		// Kubernetes' switch on the type reports an unknown one a second time.
		errs = append(errs, NotSupported(p.child("type").path(), m.Type, hpaMetricTypes...))
	}
	if present != 1 {
		for _, s := range sources {
			if s.set && s.name != expected {
				errs = append(errs, Forbidden(p.child(s.name).path(), "must populate the given metric source only"))
			}
		}
	}
	return errs
}

// validateResourceTarget: a (container) resource metric's target, a raw
// value or a utilization and not both.
func validateResourceTarget(errs apierrors.FieldErrors, t api.MetricTarget, p fieldPath) apierrors.FieldErrors {
	errs = validateMetricTarget(errs, t, p)
	if t.AverageUtilization == nil && t.AverageValue == nil {
		errs = append(errs, Required(p.child("averageUtilization").path(), "must set either a target raw value or a target utilization"))
	}
	if t.AverageUtilization != nil && t.AverageValue != nil {
		errs = append(errs, Forbidden(p.child("averageValue").path(), "may not set both a target raw value and a target utilization"))
	}
	return errs
}

// validateMetricTarget: Kubernetes' validateMetricTarget.
func validateMetricTarget(errs apierrors.FieldErrors, t api.MetricTarget, p fieldPath) apierrors.FieldErrors {
	if t.Type == "" {
		errs = append(errs, Required(p.child("type").path(), "must specify a metric target type"))
	}
	if t.Type != "Utilization" && t.Type != "Value" && t.Type != "AverageValue" {
		errs = append(errs, Invalid(p.child("type").path(), t.Type, "must be either Utilization, Value, or AverageValue"))
	}
	for _, q := range []struct {
		name  string
		value *api.Quantity
	}{{"value", t.Value}, {"averageValue", t.AverageValue}} {
		if q.value == nil {
			continue
		}
		if r, ok := quota.Parse(string(*q.value)); !ok || r.Sign() != 1 {
			errs = append(errs, Invalid(p.child(q.name).path(), string(*q.value), "must be positive"))
		}
	}
	if u := t.AverageUtilization; u != nil && *u < 1 {
		errs = append(errs, Invalid(p.child("averageUtilization").path(), *u, "must be greater than 0"))
	}
	return errs
}

// validateMetricIdentifier: a metric name that is a path segment.
func validateMetricIdentifier(errs apierrors.FieldErrors, id api.MetricIdentifier, p fieldPath) apierrors.FieldErrors {
	if id.Name == "" {
		return append(errs, Required(p.child("name").path(), "must specify a metric name"))
	}
	return invalidEach(errs, p.child("name"), id.Name, nameIsPathSegment(id.Name, false))
}
