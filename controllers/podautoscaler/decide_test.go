package podautoscaler

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
)

func TestDecide(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cpu := int32(50)
	hpa := func(min, max int32) *api.HorizontalPodAutoscaler {
		return &api.HorizontalPodAutoscaler{Spec: api.HorizontalPodAutoscalerSpec{MinReplicas: &min, MaxReplicas: max,
			Metrics: []api.MetricSpec{{Type: "Resource", Resource: &api.ResourceMetricSource{Name: "cpu", Target: api.MetricTarget{Type: "Utilization", AverageUtilization: &cpu}}}}}}
	}
	cpuErr := "failed to get cpu utilization: unable to get metrics for resource cpu: " + noMetricsAPI
	tests := []struct {
		name        string
		hpa         *api.HorizontalPodAutoscaler
		current     int32
		wantRescale bool
		wantDesired int32
		wantActive  string // ScalingActive's reason, "" when unset
		wantEvents  []string
	}{
		{name: "below min scales up to it", hpa: hpa(2, 5), current: 1, wantRescale: true, wantDesired: 2,
			wantEvents: []string{"SuccessfulRescale New size: 2; reason: Current number of replicas below Spec.MinReplicas"}},
		{name: "above max scales down to it", hpa: hpa(1, 3), current: 7, wantRescale: true, wantDesired: 3,
			wantEvents: []string{"SuccessfulRescale New size: 3; reason: Current number of replicas above Spec.MaxReplicas"}},
		{name: "zero replicas disables scaling", hpa: hpa(1, 3), current: 0, wantDesired: 0, wantActive: "ScalingDisabled"},
		{name: "within bounds: no metrics", hpa: hpa(1, 3), current: 2, wantActive: "FailedGetResourceMetric",
			wantEvents: []string{"FailedGetResourceMetric " + cpuErr,
				"FailedComputeMetricsReplicas invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: " + cpuErr}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := decide(tt.hpa, tt.current, now)
			assert.Equal(t, tt.wantRescale, d.Rescale)
			if tt.wantRescale {
				assert.Equal(t, tt.wantDesired, d.Desired)
				assert.Equal(t, tt.wantDesired, d.Status.DesiredReplicas)
				require.NotNil(t, d.Status.LastScaleTime)
			}
			assert.Equal(t, tt.current, d.Status.CurrentReplicas)
			var events []string
			for _, e := range d.Events {
				events = append(events, e.Reason+" "+e.Message)
			}
			assert.Equal(t, tt.wantEvents, events)
			conds := map[string]api.HorizontalPodAutoscalerCondition{}
			for _, c := range d.Status.Conditions {
				conds[c.Type] = c
			}
			assert.Equal(t, api.ConditionTrue, conds["AbleToScale"].Status)
			assert.Equal(t, tt.wantActive, conds["ScalingActive"].Reason)
			if tt.wantActive != "" {
				assert.Equal(t, api.ConditionFalse, conds["ScalingActive"].Status)
			}
		})
	}
}

func TestDecideKeepsTransitionTimeWhileStatusHolds(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	min := int32(1)
	h := &api.HorizontalPodAutoscaler{Spec: api.HorizontalPodAutoscalerSpec{MinReplicas: &min, MaxReplicas: 3,
		Metrics: []api.MetricSpec{{Type: "External", External: &api.ExternalMetricSource{Metric: api.MetricIdentifier{Name: "q"}}}}}}
	h.Status = decide(h, 2, t0).Status
	later := decide(h, 2, t0.Add(time.Minute)).Status
	for _, c := range later.Conditions {
		assert.Equal(t, api.NewTime(t0), c.LastTransitionTime, c.Type)
	}
	assert.Equal(t, "FailedGetExternalMetric", later.Conditions[1].Reason)
}
