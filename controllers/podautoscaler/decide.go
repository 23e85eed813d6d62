package podautoscaler

import (
	"fmt"
	"time"

	"github.com/miniplane/miniplane/api"
)

// noMetricsAPI is the error the resource metrics client gets when
// metrics.k8s.io is not served: kube-apiserver's NotFound for the
// PodMetrics list. Kubernetes: restMetricsClient.GetResourceMetric.
const noMetricsAPI = "unable to fetch metrics from resource metrics API: the server could not find the requested resource (get pods.metrics.k8s.io)"

// Event is one event the controller records on the autoscaler.
type Event struct {
	Type, Reason, Message string
}

// Decision is what one sync does: the target's new replica count (when
// Rescale), the autoscaler's new status, and the events to record.
type Decision struct {
	Rescale bool
	Desired int32
	Status  api.HorizontalPodAutoscalerStatus
	Events  []Event
}

// decide is the reconcile of an autoscaler whose target's scale reads
// current replicas, with no metric readable. Kubernetes:
// reconcileAutoscaler, with computeReplicasForMetrics failing on every
// metric. now stamps condition transitions and the scale time.
func decide(hpa *api.HorizontalPodAutoscaler, current int32, now time.Time) Decision {
	d := Decision{Status: *hpa.Status.DeepCopy()}
	st := &d.Status
	setCondition(st, "AbleToScale", api.ConditionTrue, "SucceededGetScale", "the HPA controller was able to get the target's current scale", now)
	minReplicas := int32(1)
	if hpa.Spec.MinReplicas != nil {
		minReplicas = *hpa.Spec.MinReplicas
	}
	desired, reason := int32(0), ""
	switch {
	case current == 0 && minReplicas != 0:
		setCondition(st, "ScalingActive", api.ConditionFalse, "ScalingDisabled", "scaling is disabled since the replica count of the target is zero", now)
		return d.finish(current, current, nil, false, now)
	case current > hpa.Spec.MaxReplicas:
		desired, reason = hpa.Spec.MaxReplicas, "Current number of replicas above Spec.MaxReplicas"
	case current < minReplicas:
		desired, reason = minReplicas, "Current number of replicas below Spec.MinReplicas"
	default:
		// Every metric fails: the first failure's condition, an event per
		// failure, and one summing them. Kubernetes: computeReplicasForMetrics.
		var first api.HorizontalPodAutoscalerCondition
		var firstErr string
		for i, m := range hpa.Spec.Metrics {
			reason, err := metricError(m)
			d.Events = append(d.Events, Event{"Warning", reason, err.inner})
			if i == 0 {
				first = api.HorizontalPodAutoscalerCondition{Type: "ScalingActive", Status: api.ConditionFalse, Reason: reason,
					Message: "the HPA was unable to compute the replica count: " + err.inner}
				firstErr = err.outer
			}
		}
		if len(hpa.Spec.Metrics) > 0 {
			setCondition(st, first.Type, first.Status, first.Reason, first.Message, now)
			d.Events = append(d.Events, Event{"Warning", "FailedComputeMetricsReplicas",
				fmt.Sprintf("invalid metrics (%d invalid out of %d), first error is: %s", len(hpa.Spec.Metrics), len(hpa.Spec.Metrics), firstErr)})
		}
		// setCurrentReplicasAndMetricsInStatus: desired stays as it was.
		return d.finish(current, hpa.Status.DesiredReplicas, make([]api.MetricStatus, len(hpa.Spec.Metrics)), false, now)
	}
	d.Rescale, d.Desired = true, desired
	setCondition(st, "AbleToScale", api.ConditionTrue, "SucceededRescale", fmt.Sprintf("the HPA controller was able to update the target scale to %d", desired), now)
	d.Events = append(d.Events, Event{"Normal", "SuccessfulRescale", fmt.Sprintf("New size: %d; reason: %s", desired, reason)})
	return d.finish(current, desired, nil, true, now)
}

// finish sets the status as setStatus does: replicas, metrics, and the
// scale time when the target was rescaled.
func (d Decision) finish(current, desired int32, metrics []api.MetricStatus, rescaled bool, now time.Time) Decision {
	d.Status.CurrentReplicas, d.Status.DesiredReplicas, d.Status.CurrentMetrics = current, desired, metrics
	if rescaled {
		t := api.NewTime(now)
		d.Status.LastScaleTime = &t
	}
	return d
}

// metricErr is one metric's failure: inner is the event and condition
// text, outer what computeReplicasForMetric wraps it in.
type metricErr struct{ inner, outer string }

// metricError is why metric m cannot be read here, in the real
// controller's words.
func metricError(m api.MetricSpec) (string, metricErr) {
	switch {
	case m.Type == "Resource" && m.Resource != nil:
		inner := resourceError(m.Resource.Name, m.Resource.Target)
		return "FailedGetResourceMetric", metricErr{inner, fmt.Sprintf("failed to get %s resource metric value: %s", m.Resource.Name, inner)}
	case m.Type == "ContainerResource" && m.ContainerResource != nil:
		inner := resourceError(m.ContainerResource.Name, m.ContainerResource.Target)
		return "FailedGetContainerResourceMetric", metricErr{inner, fmt.Sprintf("failed to get %s container metric value: %s", m.ContainerResource.Container, inner)}
	case m.Type == "Pods" && m.Pods != nil:
		inner := "unable to get metric " + m.Pods.Metric.Name + ": no custom metrics API (custom.metrics.k8s.io) registered"
		return "FailedGetPodsMetric", metricErr{inner, "failed to get pods metric value: " + inner}
	case m.Type == "Object" && m.Object != nil:
		inner := "unable to get metric " + m.Object.Metric.Name + ": no custom metrics API (custom.metrics.k8s.io) registered"
		return "FailedGetObjectMetric", metricErr{inner, "failed to get object metric value: " + inner}
	case m.Type == "External" && m.External != nil:
		inner := "unable to get external metric " + m.External.Metric.Name + ": no external metrics API (external.metrics.k8s.io) registered"
		return "FailedGetExternalMetric", metricErr{inner, "failed to get external metric value: " + inner}
	}
	inner := fmt.Sprintf("unknown metric source type %q", m.Type)
	return "InvalidMetricSourceType", metricErr{inner, inner}
}

// resourceError is computeStatusForResourceMetricGeneric's error when
// the resource metrics API is missing.
func resourceError(name string, t api.MetricTarget) string {
	if t.AverageValue != nil {
		return fmt.Sprintf("failed to get %s usage: unable to get metrics for resource %s: %s", name, name, noMetricsAPI)
	}
	if t.AverageUtilization == nil {
		return "invalid resource metric source: neither an average utilization target nor an average value (usage) target was set"
	}
	return fmt.Sprintf("failed to get %s utilization: unable to get metrics for resource %s: %s", name, name, noMetricsAPI)
}

// setCondition sets a condition, moving its transition time only when
// its status changes. Kubernetes: setConditionInList.
func setCondition(st *api.HorizontalPodAutoscalerStatus, typ string, status api.ConditionStatus, reason, message string, now time.Time) {
	for i := range st.Conditions {
		if c := &st.Conditions[i]; c.Type == typ {
			if c.Status != status {
				c.LastTransitionTime = api.NewTime(now)
			}
			c.Status, c.Reason, c.Message = status, reason, message
			return
		}
	}
	st.Conditions = append(st.Conditions, api.HorizontalPodAutoscalerCondition{Type: typ, Status: status, Reason: reason, Message: message,
		LastTransitionTime: api.NewTime(now)})
}
