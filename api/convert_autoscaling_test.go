package api

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func i32(v int32) *int32 { return &v }

func TestHPAConversionRoundTrips(t *testing.T) {
	q := func(s string) *Quantity { v := Quantity(s); return &v }
	maxPolicy := "Max"
	tests := []struct {
		name string
		hpa  HorizontalPodAutoscaler
		// wantCPU is v1's targetCPUUtilizationPercentage.
		wantCPU *int32
		// wantAnnotations are the round-trip annotations v1 carries.
		wantAnnotations []string
	}{
		{name: "cpu only", hpa: HorizontalPodAutoscaler{Spec: HorizontalPodAutoscalerSpec{
			ScaleTargetRef: CrossVersionObjectReference{Kind: "Deployment", Name: "web", APIVersion: "apps/v1"}, MinReplicas: i32(1), MaxReplicas: 5,
			Metrics: []MetricSpec{{Type: "Resource", Resource: &ResourceMetricSource{Name: "cpu", Target: MetricTarget{Type: "Utilization", AverageUtilization: i32(50)}}}},
		}}, wantCPU: i32(50)},
		{name: "memory and pods metrics ride in an annotation", hpa: HorizontalPodAutoscaler{Spec: HorizontalPodAutoscalerSpec{
			ScaleTargetRef: CrossVersionObjectReference{Kind: "Deployment", Name: "web"}, MinReplicas: i32(2), MaxReplicas: 5,
			Metrics: []MetricSpec{
				{Type: "Resource", Resource: &ResourceMetricSource{Name: "memory", Target: MetricTarget{Type: "AverageValue", AverageValue: q("100Mi")}}},
				{Type: "Pods", Pods: &PodsMetricSource{Metric: MetricIdentifier{Name: "qps"}, Target: MetricTarget{Type: "AverageValue", AverageValue: q("10")}}},
				{Type: "Resource", Resource: &ResourceMetricSource{Name: "cpu", Target: MetricTarget{Type: "Utilization", AverageUtilization: i32(70)}}},
			},
		}}, wantCPU: i32(70), wantAnnotations: []string{HPAMetricSpecsAnnotation}},
		{name: "behavior, current metrics and conditions", hpa: HorizontalPodAutoscaler{
			Metadata: ObjectMeta{Annotations: map[string]string{"keep": "me"}},
			Spec: HorizontalPodAutoscalerSpec{
				ScaleTargetRef: CrossVersionObjectReference{Kind: "Deployment", Name: "web"}, MinReplicas: i32(1), MaxReplicas: 3,
				Metrics: []MetricSpec{{Type: "External", External: &ExternalMetricSource{Metric: MetricIdentifier{Name: "queue"}, Target: MetricTarget{Type: "Value", Value: q("30")}}},
					{Type: "Resource", Resource: &ResourceMetricSource{Name: "cpu", Target: MetricTarget{Type: "Utilization", AverageUtilization: i32(80)}}}},
				Behavior: &HorizontalPodAutoscalerBehavior{ScaleDown: &HPAScalingRules{SelectPolicy: &maxPolicy, Policies: []HPAScalingPolicy{{Type: "Percent", Value: 100, PeriodSeconds: 15}}}},
			},
			Status: HorizontalPodAutoscalerStatus{CurrentReplicas: 2, DesiredReplicas: 2,
				CurrentMetrics: []MetricStatus{{Type: "Resource", Resource: &ResourceMetricStatus{Name: "cpu", Current: MetricValueStatus{AverageValue: q("100m"), AverageUtilization: i32(40)}}}},
				Conditions:     []HorizontalPodAutoscalerCondition{{Type: "AbleToScale", Status: ConditionTrue, Reason: "SucceededGetScale"}}},
		}, wantCPU: i32(80), wantAnnotations: []string{HPAMetricSpecsAnnotation, HPAMetricStatusesAnnotation, HPABehaviorAnnotation, HPAConditionsAnnotation}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v1 := HPAToV1(&tt.hpa)
			assert.Equal(t, tt.wantCPU, v1.Spec.TargetCPUUtilizationPercentage)
			for _, a := range tt.wantAnnotations {
				assert.Contains(t, v1.Metadata.Annotations, a)
			}
			back := HPAFromV1(v1)
			// v1 puts the CPU target last, as kube-apiserver does.
			require.Len(t, back.Spec.Metrics, len(tt.hpa.Spec.Metrics))
			assert.ElementsMatch(t, tt.hpa.Spec.Metrics, back.Spec.Metrics)
			back.Spec.Metrics = tt.hpa.Spec.Metrics
			assert.Equal(t, tt.hpa, *back)
		})
	}
}

func TestHPAFromV1DefaultsTheCPUTarget(t *testing.T) {
	h := HPAFromV1(&HorizontalPodAutoscalerV1{Spec: HorizontalPodAutoscalerSpecV1{MaxReplicas: 3}})
	require.Len(t, h.Spec.Metrics, 1)
	assert.Equal(t, "cpu", h.Spec.Metrics[0].Resource.Name)
	assert.Equal(t, i32(HPADefaultCPUUtilization), h.Spec.Metrics[0].Resource.Target.AverageUtilization)
}

func TestHPABehaviorAnnotationIsTheInternalShape(t *testing.T) {
	maxPolicy := "Max"
	v1 := HPAToV1(&HorizontalPodAutoscaler{Spec: HorizontalPodAutoscalerSpec{Behavior: &HorizontalPodAutoscalerBehavior{
		ScaleUp: &HPAScalingRules{SelectPolicy: &maxPolicy, Policies: []HPAScalingPolicy{{Type: "Pods", Value: 4, PeriodSeconds: 15}}}}}})
	assert.JSONEq(t, `{"ScaleUp":{"StabilizationWindowSeconds":null,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":4,"PeriodSeconds":15}]},"ScaleDown":null}`,
		v1.Metadata.Annotations[HPABehaviorAnnotation])
}

// FuzzHPAFromV1 feeds the round-trip annotations, which any v1 client
// writes, to the conversion: whatever they hold, it neither panics nor
// keeps them.
func FuzzHPAFromV1(f *testing.F) {
	f.Add(`[{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"10"}}]`, `{"ScaleUp":null}`, `[{"type":""}]`, `[{"type":"AbleToScale","status":"True"}]`)
	f.Add(`[{"type":"Object"}]`, `nope`, `[{"type":"External","external":{}}]`, `null`)
	f.Fuzz(func(t *testing.T, metrics, behavior, current, conditions string) {
		h := &HorizontalPodAutoscalerV1{Metadata: ObjectMeta{Annotations: map[string]string{
			HPAMetricSpecsAnnotation: metrics, HPABehaviorAnnotation: behavior, HPAMetricStatusesAnnotation: current, HPAConditionsAnnotation: conditions}}}
		out := HPAFromV1(h)
		assert.Empty(t, out.Metadata.Annotations)
		assert.NotEmpty(t, out.Spec.Metrics)
		HPAToV1(out) // and back
	})
}
