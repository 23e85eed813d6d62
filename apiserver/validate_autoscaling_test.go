package apiserver

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
)

func validHPA() *api.HorizontalPodAutoscaler {
	return &api.HorizontalPodAutoscaler{
		Metadata: api.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: api.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: api.CrossVersionObjectReference{Kind: "ReplicationController", Name: "myrc"},
			MinReplicas:    ptrTo(int32(1)), MaxReplicas: 5,
			Metrics: []api.MetricSpec{{Type: "Resource", Resource: &api.ResourceMetricSource{Name: "cpu",
				Target: api.MetricTarget{Type: "Utilization", AverageUtilization: ptrTo(int32(70))}}}},
		},
	}
}

func TestDefaultHorizontalPodAutoscaler(t *testing.T) {
	h := &api.HorizontalPodAutoscaler{Spec: api.HorizontalPodAutoscalerSpec{MaxReplicas: 3,
		Behavior: &api.HorizontalPodAutoscalerBehavior{ScaleDown: &api.HPAScalingRules{StabilizationWindowSeconds: ptrTo(int32(60))}}}}
	defaultHorizontalPodAutoscaler(h)
	assert.Equal(t, ptrTo(int32(1)), h.Spec.MinReplicas)
	assert.Equal(t, ptrTo(int32(80)), h.Spec.Metrics[0].Resource.Target.AverageUtilization)
	assert.Equal(t, ptrTo(int32(0)), h.Spec.Behavior.ScaleUp.StabilizationWindowSeconds)
	assert.Len(t, h.Spec.Behavior.ScaleUp.Policies, 2)
	assert.Equal(t, ptrTo(int32(60)), h.Spec.Behavior.ScaleDown.StabilizationWindowSeconds, "a given field is kept")
	assert.Equal(t, []api.HPAScalingPolicy{{Type: "Percent", Value: 100, PeriodSeconds: 15}}, h.Spec.Behavior.ScaleDown.Policies)
}

// TestValidateHorizontalPodAutoscaler ports the scenarios of Kubernetes'
// TestValidateHorizontalPodAutoscaler (pkg/apis/autoscaling/validation).
func TestValidateHorizontalPodAutoscaler(t *testing.T) {
	q := func(s string) *api.Quantity { v := api.Quantity(s); return &v }
	metric := func(m api.MetricSpec) func(*api.HorizontalPodAutoscaler) {
		return func(h *api.HorizontalPodAutoscaler) { h.Spec.Metrics = []api.MetricSpec{m} }
	}
	for _, tc := range []struct {
		name   string
		change func(*api.HorizontalPodAutoscaler)
		want   string
		causes []cause
	}{
		{name: "valid", change: func(*api.HorizontalPodAutoscaler) {}},
		{name: "average value target", change: metric(api.MetricSpec{Type: "Resource", Resource: &api.ResourceMetricSource{Name: "cpu", Target: api.MetricTarget{Type: "AverageValue", AverageValue: q("100m")}}})},
		{name: "pods metric", change: metric(api.MetricSpec{Type: "Pods", Pods: &api.PodsMetricSource{Metric: api.MetricIdentifier{Name: "somemetric"}, Target: api.MetricTarget{Type: "AverageValue", AverageValue: q("100m")}}})},
		{name: "min over max", change: func(h *api.HorizontalPodAutoscaler) { h.Spec.MinReplicas = ptrTo(int32(7)) },
			want: "spec.maxReplicas: Invalid value: 5: must be greater than or equal to `minReplicas`", causes: []cause{{invalid, "spec.maxReplicas"}}},
		{name: "min zero", change: func(h *api.HorizontalPodAutoscaler) { h.Spec.MinReplicas = ptrTo(int32(0)) },
			want:   "[spec.minReplicas: Invalid value: 0: must be greater than or equal to 1, spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas]",
			causes: []cause{{invalid, "spec.minReplicas"}, {forbidden, "spec.metrics"}}},
		{name: "max zero", change: func(h *api.HorizontalPodAutoscaler) { h.Spec.MaxReplicas = 0 },
			want:   "[spec.maxReplicas: Invalid value: 0: must be greater than 0, spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`]",
			causes: []cause{{invalid, "spec.maxReplicas"}, {invalid, "spec.maxReplicas"}}},
		{name: "no target kind", change: func(h *api.HorizontalPodAutoscaler) { h.Spec.ScaleTargetRef.Kind = "" },
			want: "spec.scaleTargetRef.kind: Required value", causes: []cause{{required, "spec.scaleTargetRef.kind"}}},
		{name: "target name with a slash", change: func(h *api.HorizontalPodAutoscaler) { h.Spec.ScaleTargetRef.Name = "my/rc" },
			want: `spec.scaleTargetRef.name: Invalid value: "my/rc": may not contain '/'`, causes: []cause{{invalid, "spec.scaleTargetRef.name"}}},
		{name: "utilization and value", change: metric(api.MetricSpec{Type: "Resource", Resource: &api.ResourceMetricSource{Name: "cpu",
			Target: api.MetricTarget{Type: "Utilization", AverageUtilization: ptrTo(int32(70)), AverageValue: q("100m")}}}),
			want: "spec.metrics[0].resource.target.averageValue: Forbidden: may not set both a target raw value and a target utilization", causes: []cause{{forbidden, "spec.metrics[0].resource.target.averageValue"}}},
		{name: "no resource target", change: metric(api.MetricSpec{Type: "Resource", Resource: &api.ResourceMetricSource{Name: "cpu", Target: api.MetricTarget{Type: "Utilization"}}}),
			want: "spec.metrics[0].resource.target.averageUtilization: Required value: must set either a target raw value or a target utilization", causes: []cause{{required, "spec.metrics[0].resource.target.averageUtilization"}}},
		{name: "no resource name", change: metric(api.MetricSpec{Type: "Resource", Resource: &api.ResourceMetricSource{Target: api.MetricTarget{Type: "Utilization", AverageUtilization: ptrTo(int32(70))}}}),
			want: "spec.metrics[0].resource.name: Required value: must specify a resource name", causes: []cause{{required, "spec.metrics[0].resource.name"}}},
		{name: "negative utilization", change: metric(api.MetricSpec{Type: "Resource", Resource: &api.ResourceMetricSource{Name: "cpu", Target: api.MetricTarget{Type: "Utilization", AverageUtilization: ptrTo(int32(-10))}}}),
			want: "spec.metrics[0].resource.target.averageUtilization: Invalid value: -10: must be greater than 0", causes: []cause{{invalid, "spec.metrics[0].resource.target.averageUtilization"}}},
		{name: "pods without average value", change: metric(api.MetricSpec{Type: "Pods", Pods: &api.PodsMetricSource{Metric: api.MetricIdentifier{Name: "somemetric"}, Target: api.MetricTarget{Type: "Value", Value: q("1")}}}),
			want: "spec.metrics[0].pods.target.averageValue: Required value: must specify a positive target averageValue", causes: []cause{{required, "spec.metrics[0].pods.target.averageValue"}}},
		{name: "non-positive value", change: metric(api.MetricSpec{Type: "External", External: &api.ExternalMetricSource{Metric: api.MetricIdentifier{Name: "queue"}, Target: api.MetricTarget{Type: "Value", Value: q("-1")}}}),
			want: `spec.metrics[0].external.target.value: Invalid value: "-1": must be positive`, causes: []cause{{invalid, "spec.metrics[0].external.target.value"}}},
		{name: "source of another type", change: metric(api.MetricSpec{Type: "Resource", Pods: &api.PodsMetricSource{Metric: api.MetricIdentifier{Name: "m"}, Target: api.MetricTarget{Type: "AverageValue", AverageValue: q("1")}}}),
			want: "spec.metrics[0].resource: Required value: must populate information for the given metric source", causes: []cause{{required, "spec.metrics[0].resource"}}},
		{name: "two sources", change: metric(api.MetricSpec{Type: "Pods",
			Pods:     &api.PodsMetricSource{Metric: api.MetricIdentifier{Name: "m"}, Target: api.MetricTarget{Type: "AverageValue", AverageValue: q("1")}},
			Resource: &api.ResourceMetricSource{Name: "cpu", Target: api.MetricTarget{Type: "Utilization", AverageUtilization: ptrTo(int32(70))}}}),
			want: "spec.metrics[0].resource: Forbidden: must populate the given metric source only", causes: []cause{{forbidden, "spec.metrics[0].resource"}}},
		{name: "bad target type", change: metric(api.MetricSpec{Type: "Resource", Resource: &api.ResourceMetricSource{Name: "cpu", Target: api.MetricTarget{Type: "Percent", AverageUtilization: ptrTo(int32(70))}}}),
			want: `spec.metrics[0].resource.target.type: Invalid value: "Percent": must be either Utilization, Value, or AverageValue`, causes: []cause{{invalid, "spec.metrics[0].resource.target.type"}}},
		{name: "container resource without container", change: metric(api.MetricSpec{Type: "ContainerResource", ContainerResource: &api.ContainerResourceMetricSource{Name: "cpu",
			Target: api.MetricTarget{Type: "Utilization", AverageUtilization: ptrTo(int32(70))}}}),
			want: "spec.metrics[0].containerResource.container: Required value: must specify a container", causes: []cause{{required, "spec.metrics[0].containerResource.container"}}},
		{name: "behavior without policies", change: func(h *api.HorizontalPodAutoscaler) {
			h.Spec.Behavior = &api.HorizontalPodAutoscalerBehavior{ScaleUp: &api.HPAScalingRules{Policies: []api.HPAScalingPolicy{}}}
		}, want: "spec.behavior.scaleUp.policies: Required value: must specify at least one Policy", causes: []cause{{required, "spec.behavior.scaleUp.policies"}}},
		{name: "behavior policy out of bounds", change: func(h *api.HorizontalPodAutoscaler) {
			h.Spec.Behavior = &api.HorizontalPodAutoscalerBehavior{ScaleDown: &api.HPAScalingRules{StabilizationWindowSeconds: ptrTo(int32(3601)),
				Policies: []api.HPAScalingPolicy{{Type: "Percent", Value: 0, PeriodSeconds: 1801}}}}
		}, want: "[spec.behavior.scaleDown.stabilizationWindowSeconds: Invalid value: 3601: must be less than or equal to 3600, spec.behavior.scaleDown.policies[0].value: Invalid value: 0: must be greater than zero, spec.behavior.scaleDown.policies[0].periodSeconds: Invalid value: 1801: must be less than or equal to 1800]",
			causes: []cause{{invalid, "spec.behavior.scaleDown.stabilizationWindowSeconds"}, {invalid, "spec.behavior.scaleDown.policies[0].value"}, {invalid, "spec.behavior.scaleDown.policies[0].periodSeconds"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := validHPA()
			tc.change(h)
			assertErrors(t, validateHorizontalPodAutoscaler(h), tc.want, tc.causes)
		})
	}
}

func TestValidateHorizontalPodAutoscalerUpdateKeepsAZeroMinimum(t *testing.T) {
	old := validHPA()
	old.Spec.MinReplicas = ptrTo(int32(0))
	h := old.DeepCopy()
	h.Spec.Metrics = []api.MetricSpec{{Type: "External", External: &api.ExternalMetricSource{Metric: api.MetricIdentifier{Name: "queue"},
		Target: api.MetricTarget{Type: "Value", Value: ptrTo(api.Quantity("3"))}}}}
	assert.Nil(t, validateHorizontalPodAutoscalerUpdate(h, old), "minReplicas may stay 0 with an External metric")
}
