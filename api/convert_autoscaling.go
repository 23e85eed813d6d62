package api

import (
	"encoding/json"
	"maps"
)

// The conversions between the two versions of a HorizontalPodAutoscaler, as
// kube-apiserver makes them (Convert_autoscaling_HorizontalPodAutoscaler_To_v1_…
// and back, in Kubernetes' pkg/apis/autoscaling/v1/conversion.go). autoscaling/v2
// is the stored version. v1 holds one metric, the average CPU utilization
// target (targetCPUUtilizationPercentage ↔ a Resource cpu metric of type
// Utilization); every other metric, the behavior, the current metrics and
// the conditions travel through v1 in four annotations, so that a v2 object
// read and written back through v1 loses nothing. A v1 object without a CPU
// target or other metrics gets v2's implicit default, 80% CPU.

// The annotations that carry through autoscaling/v1 what it cannot hold.
// Kubernetes: pkg/apis/autoscaling/annotations.go.
const (
	// HPAMetricSpecsAnnotation holds the metrics other than the CPU target.
	HPAMetricSpecsAnnotation = "autoscaling.alpha.kubernetes.io/metrics"
	// HPAMetricStatusesAnnotation holds status.currentMetrics.
	HPAMetricStatusesAnnotation = "autoscaling.alpha.kubernetes.io/current-metrics"
	// HPAConditionsAnnotation holds status.conditions.
	HPAConditionsAnnotation = "autoscaling.alpha.kubernetes.io/conditions"
	// HPABehaviorAnnotation holds spec.behavior.
	HPABehaviorAnnotation = "autoscaling.alpha.kubernetes.io/behavior"
)

// HPADefaultCPUUtilization is the CPU target of an autoscaler that names
// no metric. Kubernetes: autoscaling.DefaultCPUUtilization.
const HPADefaultCPUUtilization = 80

// hpaV1Metric is autoscaling/v1's MetricSpec and MetricStatus in one, as
// the annotations hold them (the v2beta1 shape); only their JSON matters.
type hpaV1Metric struct {
	Type              string               `json:"type"`
	Object            *hpaV1ObjectMetric   `json:"object,omitempty"`
	Pods              *hpaV1PodsMetric     `json:"pods,omitempty"`
	Resource          *hpaV1ResourceMetric `json:"resource,omitempty"`
	ContainerResource *hpaV1ResourceMetric `json:"containerResource,omitempty"`
	External          *hpaV1ExternalMetric `json:"external,omitempty"`
}

type hpaV1ObjectMetric struct {
	Target       CrossVersionObjectReference `json:"target"`
	MetricName   string                      `json:"metricName"`
	TargetValue  *Quantity                   `json:"targetValue,omitempty"`
	CurrentValue *Quantity                   `json:"currentValue,omitempty"`
	Selector     *LabelSelector              `json:"selector,omitempty"`
	AverageValue *Quantity                   `json:"averageValue,omitempty"`
}

type hpaV1PodsMetric struct {
	MetricName          string         `json:"metricName"`
	TargetAverageValue  *Quantity      `json:"targetAverageValue,omitempty"`
	CurrentAverageValue *Quantity      `json:"currentAverageValue,omitempty"`
	Selector            *LabelSelector `json:"selector,omitempty"`
}

type hpaV1ResourceMetric struct {
	Name                      string    `json:"name"`
	TargetAverageUtilization  *int32    `json:"targetAverageUtilization,omitempty"`
	TargetAverageValue        *Quantity `json:"targetAverageValue,omitempty"`
	CurrentAverageUtilization *int32    `json:"currentAverageUtilization,omitempty"`
	CurrentAverageValue       *Quantity `json:"currentAverageValue,omitempty"`
	Container                 string    `json:"container,omitempty"`
}

type hpaV1ExternalMetric struct {
	MetricName          string         `json:"metricName"`
	MetricSelector      *LabelSelector `json:"metricSelector,omitempty"`
	TargetValue         *Quantity      `json:"targetValue,omitempty"`
	TargetAverageValue  *Quantity      `json:"targetAverageValue,omitempty"`
	CurrentValue        *Quantity      `json:"currentValue,omitempty"`
	CurrentAverageValue *Quantity      `json:"currentAverageValue,omitempty"`
}

// isCPUUtilization reports whether m is the metric v1's
// targetCPUUtilizationPercentage holds.
func isCPUUtilization(m MetricSpec) bool {
	return m.Type == "Resource" && m.Resource != nil && m.Resource.Name == "cpu" && m.Resource.Target.AverageUtilization != nil
}

// orZero returns q, or the quantity 0 that v1's non-pointer quantities
// hold when unset.
func orZero(q *Quantity) *Quantity {
	if q != nil {
		return copyOf(q)
	}
	zero := Quantity("0")
	return &zero
}

func copyOf[T any](p *T) *T {
	if p == nil {
		return nil
	}
	c := *p
	return &c
}

// HPAToV1 returns the autoscaling/v2 autoscaler h as autoscaling/v1 shows
// it, with an empty TypeMeta. The result shares nothing mutable with h.
func HPAToV1(h *HorizontalPodAutoscaler) *HorizontalPodAutoscalerV1 {
	c := h.DeepCopy()
	out := &HorizontalPodAutoscalerV1{Metadata: c.Metadata}
	out.Metadata.Annotations = dropHPAAnnotations(out.Metadata.Annotations)
	out.Spec = HorizontalPodAutoscalerSpecV1{ScaleTargetRef: c.Spec.ScaleTargetRef, MinReplicas: c.Spec.MinReplicas, MaxReplicas: c.Spec.MaxReplicas}
	var others []hpaV1Metric
	for _, m := range c.Spec.Metrics {
		if isCPUUtilization(m) {
			if out.Spec.TargetCPUUtilizationPercentage == nil {
				out.Spec.TargetCPUUtilizationPercentage = copyOf(m.Resource.Target.AverageUtilization)
			}
			continue
		}
		others = append(others, metricSpecToV1(m))
	}
	out.Status = HorizontalPodAutoscalerStatusV1{
		ObservedGeneration: c.Status.ObservedGeneration, LastScaleTime: c.Status.LastScaleTime,
		CurrentReplicas: c.Status.CurrentReplicas, DesiredReplicas: c.Status.DesiredReplicas,
	}
	current := make([]hpaV1Metric, 0, len(c.Status.CurrentMetrics))
	for _, m := range c.Status.CurrentMetrics {
		if m.Type == "Resource" && m.Resource != nil && m.Resource.Name == "cpu" && m.Resource.Current.AverageUtilization != nil {
			out.Status.CurrentCPUUtilizationPercentage = copyOf(m.Resource.Current.AverageUtilization)
		}
		current = append(current, metricStatusToV1(m))
	}
	set := func(key string, v any) {
		b, _ := json.Marshal(v) // these types always marshal
		if out.Metadata.Annotations == nil {
			out.Metadata.Annotations = map[string]string{}
		}
		out.Metadata.Annotations[key] = string(b)
	}
	if len(others) > 0 {
		set(HPAMetricSpecsAnnotation, others)
	}
	if len(c.Status.CurrentMetrics) > 0 {
		set(HPAMetricStatusesAnnotation, current)
	}
	if c.Spec.Behavior != nil {
		set(HPABehaviorAnnotation, behaviorToInternal(c.Spec.Behavior))
	}
	if len(c.Status.Conditions) > 0 {
		set(HPAConditionsAnnotation, c.Status.Conditions)
	}
	return out
}

// HPAFromV1 returns the autoscaling/v1 autoscaler h as autoscaling/v2
// stores it, with an empty TypeMeta: the annotations' metrics, behavior,
// current metrics and conditions are read back (an annotation that does
// not parse is ignored, as kube-apiserver ignores it) and dropped. The
// result shares nothing mutable with h.
func HPAFromV1(h *HorizontalPodAutoscalerV1) *HorizontalPodAutoscaler {
	c := h.DeepCopy()
	out := &HorizontalPodAutoscaler{Metadata: c.Metadata}
	ann := c.Metadata.Annotations
	out.Spec = HorizontalPodAutoscalerSpec{ScaleTargetRef: c.Spec.ScaleTargetRef, MinReplicas: c.Spec.MinReplicas, MaxReplicas: c.Spec.MaxReplicas}
	var cpu []MetricSpec
	if p := c.Spec.TargetCPUUtilizationPercentage; p != nil {
		cpu = []MetricSpec{cpuUtilization(*p)}
	}
	out.Spec.Metrics = cpu
	var others []hpaV1Metric
	if enc, ok := ann[HPAMetricSpecsAnnotation]; ok && json.Unmarshal([]byte(enc), &others) == nil {
		out.Spec.Metrics = make([]MetricSpec, 0, len(others)+len(cpu))
		for _, m := range others {
			out.Spec.Metrics = append(out.Spec.Metrics, metricSpecFromV1(m))
		}
		out.Spec.Metrics = append(out.Spec.Metrics, cpu...)
	}
	var behavior HorizontalPodAutoscalerBehavior
	if enc, ok := ann[HPABehaviorAnnotation]; ok && json.Unmarshal([]byte(enc), &behavior) == nil &&
		(behavior.ScaleUp != nil || behavior.ScaleDown != nil) {
		out.Spec.Behavior = &behavior
	}
	if len(out.Spec.Metrics) == 0 {
		out.Spec.Metrics = []MetricSpec{cpuUtilization(HPADefaultCPUUtilization)}
	}
	out.Status = HorizontalPodAutoscalerStatus{
		ObservedGeneration: c.Status.ObservedGeneration, LastScaleTime: c.Status.LastScaleTime,
		CurrentReplicas: c.Status.CurrentReplicas, DesiredReplicas: c.Status.DesiredReplicas,
	}
	if p := c.Status.CurrentCPUUtilizationPercentage; p != nil {
		out.Status.CurrentMetrics = []MetricStatus{{Type: "Resource", Resource: &ResourceMetricStatus{Name: "cpu", Current: MetricValueStatus{AverageUtilization: p}}}}
	}
	var current []hpaV1Metric
	if enc, ok := ann[HPAMetricStatusesAnnotation]; ok && json.Unmarshal([]byte(enc), &current) == nil {
		out.Status.CurrentMetrics = make([]MetricStatus, 0, len(current))
		for _, m := range current {
			out.Status.CurrentMetrics = append(out.Status.CurrentMetrics, metricStatusFromV1(m))
		}
	}
	var conditions []HorizontalPodAutoscalerCondition
	if enc, ok := ann[HPAConditionsAnnotation]; ok && json.Unmarshal([]byte(enc), &conditions) == nil {
		out.Status.Conditions = conditions
	}
	out.Metadata.Annotations = dropHPAAnnotations(ann)
	return out
}

// dropHPAAnnotations returns annotations without the four round-trip
// ones, copied when it had any. Kubernetes:
// DropRoundTripHorizontalPodAutoscalerAnnotations.
func dropHPAAnnotations(annotations map[string]string) map[string]string {
	keys := []string{HPAMetricSpecsAnnotation, HPAMetricStatusesAnnotation, HPAConditionsAnnotation, HPABehaviorAnnotation}
	for _, k := range keys {
		if _, ok := annotations[k]; ok {
			out := maps.Clone(annotations)
			for _, k := range keys {
				delete(out, k)
			}
			if len(out) == 0 {
				return nil // as JSON shows it: no annotations
			}
			return out
		}
	}
	return annotations
}

func cpuUtilization(percent int32) MetricSpec {
	return MetricSpec{Type: "Resource", Resource: &ResourceMetricSource{Name: "cpu",
		Target: MetricTarget{Type: "Utilization", AverageUtilization: &percent}}}
}

// metricTargetType is the target type v1's fields imply: a
// utilization when one is set, else an average value.
func metricTargetType(utilization *int32) string {
	if utilization != nil {
		return "Utilization"
	}
	return "AverageValue"
}

func metricSpecToV1(m MetricSpec) hpaV1Metric {
	out := hpaV1Metric{Type: m.Type}
	switch {
	case m.Object != nil:
		o := m.Object
		out.Object = &hpaV1ObjectMetric{Target: o.DescribedObject, MetricName: o.Metric.Name, TargetValue: orZero(o.Target.Value),
			Selector: o.Metric.Selector, AverageValue: o.Target.AverageValue}
	case m.Pods != nil:
		out.Pods = &hpaV1PodsMetric{MetricName: m.Pods.Metric.Name, TargetAverageValue: orZero(m.Pods.Target.AverageValue), Selector: m.Pods.Metric.Selector}
	case m.Resource != nil:
		out.Resource = &hpaV1ResourceMetric{Name: m.Resource.Name, TargetAverageUtilization: m.Resource.Target.AverageUtilization,
			TargetAverageValue: m.Resource.Target.AverageValue}
	case m.ContainerResource != nil:
		r := m.ContainerResource
		out.ContainerResource = &hpaV1ResourceMetric{Name: r.Name, TargetAverageUtilization: r.Target.AverageUtilization,
			TargetAverageValue: r.Target.AverageValue, Container: r.Container}
	case m.External != nil:
		e := m.External
		out.External = &hpaV1ExternalMetric{MetricName: e.Metric.Name, MetricSelector: e.Metric.Selector, TargetValue: e.Target.Value,
			TargetAverageValue: e.Target.AverageValue}
	}
	return out
}

func metricSpecFromV1(m hpaV1Metric) MetricSpec {
	out := MetricSpec{Type: m.Type}
	switch {
	case m.Object != nil:
		o, t := m.Object, "Value"
		if o.AverageValue != nil {
			t = "AverageValue"
		}
		out.Object = &ObjectMetricSource{DescribedObject: o.Target, Metric: MetricIdentifier{Name: o.MetricName, Selector: o.Selector},
			Target: MetricTarget{Type: t, Value: orZero(o.TargetValue), AverageValue: o.AverageValue}}
	case m.Pods != nil:
		out.Pods = &PodsMetricSource{Metric: MetricIdentifier{Name: m.Pods.MetricName, Selector: m.Pods.Selector},
			Target: MetricTarget{Type: "AverageValue", AverageValue: orZero(m.Pods.TargetAverageValue)}}
	case m.Resource != nil:
		r := m.Resource
		out.Resource = &ResourceMetricSource{Name: r.Name, Target: MetricTarget{Type: metricTargetType(r.TargetAverageUtilization),
			AverageValue: r.TargetAverageValue, AverageUtilization: r.TargetAverageUtilization}}
	case m.ContainerResource != nil:
		r := m.ContainerResource
		out.ContainerResource = &ContainerResourceMetricSource{Name: r.Name, Container: r.Container, Target: MetricTarget{
			Type: metricTargetType(r.TargetAverageUtilization), AverageValue: r.TargetAverageValue, AverageUtilization: r.TargetAverageUtilization}}
	case m.External != nil:
		e, t := m.External, "Value"
		if e.TargetValue == nil {
			t = "AverageValue"
		}
		out.External = &ExternalMetricSource{Metric: MetricIdentifier{Name: e.MetricName, Selector: e.MetricSelector},
			Target: MetricTarget{Type: t, Value: e.TargetValue, AverageValue: e.TargetAverageValue}}
	}
	return out
}

func metricStatusToV1(m MetricStatus) hpaV1Metric {
	out := hpaV1Metric{Type: m.Type}
	switch {
	case m.Object != nil:
		o := m.Object
		out.Object = &hpaV1ObjectMetric{Target: o.DescribedObject, MetricName: o.Metric.Name, CurrentValue: orZero(o.Current.Value),
			Selector: o.Metric.Selector, AverageValue: o.Current.AverageValue}
	case m.Pods != nil:
		out.Pods = &hpaV1PodsMetric{MetricName: m.Pods.Metric.Name, CurrentAverageValue: orZero(m.Pods.Current.AverageValue), Selector: m.Pods.Metric.Selector}
	case m.Resource != nil:
		out.Resource = &hpaV1ResourceMetric{Name: m.Resource.Name, CurrentAverageUtilization: m.Resource.Current.AverageUtilization,
			CurrentAverageValue: orZero(m.Resource.Current.AverageValue)}
	case m.ContainerResource != nil:
		r := m.ContainerResource
		out.ContainerResource = &hpaV1ResourceMetric{Name: r.Name, CurrentAverageUtilization: r.Current.AverageUtilization,
			CurrentAverageValue: orZero(r.Current.AverageValue), Container: r.Container}
	case m.External != nil:
		e := m.External
		out.External = &hpaV1ExternalMetric{MetricName: e.Metric.Name, MetricSelector: e.Metric.Selector, CurrentValue: orZero(e.Current.Value),
			CurrentAverageValue: e.Current.AverageValue}
	}
	return out
}

func metricStatusFromV1(m hpaV1Metric) MetricStatus {
	out := MetricStatus{Type: m.Type}
	switch {
	case m.Object != nil:
		o := m.Object
		out.Object = &ObjectMetricStatus{DescribedObject: o.Target, Metric: MetricIdentifier{Name: o.MetricName, Selector: o.Selector},
			Current: MetricValueStatus{Value: orZero(o.CurrentValue), AverageValue: o.AverageValue}}
	case m.Pods != nil:
		out.Pods = &PodsMetricStatus{Metric: MetricIdentifier{Name: m.Pods.MetricName, Selector: m.Pods.Selector},
			Current: MetricValueStatus{AverageValue: orZero(m.Pods.CurrentAverageValue)}}
	case m.Resource != nil:
		r := m.Resource
		out.Resource = &ResourceMetricStatus{Name: r.Name, Current: MetricValueStatus{AverageValue: orZero(r.CurrentAverageValue), AverageUtilization: r.CurrentAverageUtilization}}
	case m.ContainerResource != nil:
		r := m.ContainerResource
		out.ContainerResource = &ContainerResourceMetricStatus{Name: r.Name, Container: r.Container,
			Current: MetricValueStatus{AverageValue: orZero(r.CurrentAverageValue), AverageUtilization: r.CurrentAverageUtilization}}
	case m.External != nil:
		e := m.External
		out.External = &ExternalMetricStatus{Metric: MetricIdentifier{Name: e.MetricName, Selector: e.MetricSelector},
			Current: MetricValueStatus{Value: orZero(e.CurrentValue), AverageValue: e.CurrentAverageValue}}
	}
	return out
}

// hpaInternalBehavior is the behavior as the annotation holds it:
// kube-apiserver marshals its internal type, which has no JSON tags, so the
// keys are the Go field names and unset pointers are null.
type hpaInternalBehavior struct {
	ScaleUp, ScaleDown *hpaInternalRules
}

type hpaInternalRules struct {
	StabilizationWindowSeconds *int32
	SelectPolicy               *string
	Policies                   []hpaInternalPolicy
}

type hpaInternalPolicy struct {
	Type          string
	Value         int32
	PeriodSeconds int32
}

func behaviorToInternal(b *HorizontalPodAutoscalerBehavior) hpaInternalBehavior {
	rules := func(r *HPAScalingRules) *hpaInternalRules {
		if r == nil {
			return nil
		}
		out := &hpaInternalRules{StabilizationWindowSeconds: r.StabilizationWindowSeconds, SelectPolicy: r.SelectPolicy}
		for _, p := range r.Policies {
			out.Policies = append(out.Policies, hpaInternalPolicy(p))
		}
		return out
	}
	return hpaInternalBehavior{ScaleUp: rules(b.ScaleUp), ScaleDown: rules(b.ScaleDown)}
}
