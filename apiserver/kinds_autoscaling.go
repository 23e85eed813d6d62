package apiserver

import (
	"fmt"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// hpaGR is the autoscaling group's horizontalpodautoscalers resource.
var hpaGR = apierrors.GroupResource{Group: "autoscaling", Resource: "horizontalpodautoscalers"}

// autoscalingKinds returns HorizontalPodAutoscalers, stored in
// autoscaling/v2 and served in autoscaling/v1 too, as kube-apiserver
// serves them: one store, one resourceVersion sequence, converted at the
// edge by api.HPAToV1 and api.HPAFromV1 (the metrics v1 cannot hold ride
// in annotations). Both versions are defaulted and validated in the
// stored form, as Kubernetes validates its internal one. The
// horizontal-pod-autoscaler controller (controllers/podautoscaler) acts
// on them.
func autoscalingKinds() []*kind {
	v2 := typed(&kind{
		gr: hpaGR, kind: "HorizontalPodAutoscaler", apiVersion: "autoscaling/v2", namespaced: true,
		shortNames: []string{"hpa"}, categories: []string{"all"},
		newObj: func() api.Object { return &api.HorizontalPodAutoscaler{} }, resetStatusOnCreate: true,
		status:  statusOf(func(o *api.HorizontalPodAutoscaler) *api.HorizontalPodAutoscalerStatus { return &o.Status }),
		columns: hpaColumns,
	}, defaultHorizontalPodAutoscaler, validateHorizontalPodAutoscaler, validateHorizontalPodAutoscalerUpdate)
	v1 := servedAs(v2, hpaGR, "HorizontalPodAutoscaler", "autoscaling/v1",
		func() api.Object { return &api.HorizontalPodAutoscalerV1{} },
		func(o api.Object) api.Object { return api.HPAFromV1(o.(*api.HorizontalPodAutoscalerV1)) },
		func(o api.Object) api.Object { return api.HPAToV1(o.(*api.HorizontalPodAutoscaler)) })
	return []*kind{v2, v1}
}

// hpaOf returns an autoscaler of either version in the stored form.
func hpaOf(o api.Object) *api.HorizontalPodAutoscaler {
	if v1, ok := o.(*api.HorizontalPodAutoscalerV1); ok {
		return api.HPAFromV1(v1)
	}
	return o.(*api.HorizontalPodAutoscaler)
}

// hpaColumns are kubectl's columns of an autoscaler. Kubernetes:
// printHorizontalPodAutoscaler.
var hpaColumns = []Column{nameColumn,
	{Name: "Reference", Type: "string", Description: "scaleTargetRef points to the target resource to scale, and is used to the pods for which metrics should be collected, as well as to actually change the replica count.",
		Cell: func(o api.Object) any {
			ref := hpaOf(o).Spec.ScaleTargetRef
			return ref.Kind + "/" + ref.Name
		}},
	{Name: "Targets", Type: "string", Description: "metrics contains the specifications for which to use to calculate the desired replica count (the maximum replica count across all metrics will be used).",
		Cell: func(o api.Object) any {
			h := hpaOf(o)
			return formatHPAMetrics(h.Spec.Metrics, h.Status.CurrentMetrics)
		}},
	{Name: "MinPods", Type: "string", Description: "minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.  It defaults to 1 pod.",
		Cell: func(o api.Object) any {
			if m := hpaOf(o).Spec.MinReplicas; m != nil {
				return fmt.Sprint(*m)
			}
			return "<unset>"
		}},
	{Name: "MaxPods", Type: "string", Description: "maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up. It cannot be less that minReplicas.",
		Cell: func(o api.Object) any { return int64(hpaOf(o).Spec.MaxReplicas) }},
	{Name: "Replicas", Type: "string", Description: "currentReplicas is current number of replicas of pods managed by this autoscaler, as last seen by the autoscaler.",
		Cell: func(o api.Object) any { return int64(hpaOf(o).Status.CurrentReplicas) }},
	ageColumn,
}

// formatHPAMetrics is the TARGETS cell: each metric's current value over
// its target, the first two and a count of the rest. Kubernetes:
// formatHPAMetrics.
func formatHPAMetrics(specs []api.MetricSpec, statuses []api.MetricStatus) string {
	if len(specs) == 0 {
		return "<none>"
	}
	q := func(v *api.Quantity) string {
		if v == nil {
			return "<nil>"
		}
		return string(*v)
	}
	percent := func(u *int32, unset string) string {
		if u == nil {
			return unset
		}
		return fmt.Sprintf("%d%%", *u)
	}
	list := make([]string, 0, len(specs))
	for i, spec := range specs {
		var st *api.MetricStatus
		if i < len(statuses) {
			st = &statuses[i]
		}
		current := "<unknown>"
		switch {
		case spec.Type == "External" && spec.External != nil:
			t, cur := spec.External.Target, (*api.MetricValueStatus)(nil)
			if st != nil && st.External != nil {
				cur = &st.External.Current
			}
			list = append(list, valueOverTarget(cur, t, q))
		case spec.Type == "Object" && spec.Object != nil:
			t, cur := spec.Object.Target, (*api.MetricValueStatus)(nil)
			if st != nil && st.Object != nil {
				cur = &st.Object.Current
			}
			list = append(list, valueOverTarget(cur, t, q))
		case spec.Type == "Pods" && spec.Pods != nil:
			if st != nil && st.Pods != nil {
				current = q(st.Pods.Current.AverageValue)
			}
			list = append(list, current+"/"+q(spec.Pods.Target.AverageValue))
		case spec.Type == "Resource" && spec.Resource != nil:
			var cur *api.MetricValueStatus
			if st != nil && st.Resource != nil {
				cur = &st.Resource.Current
			}
			list = append(list, spec.Resource.Name+": "+resourceOverTarget(cur, spec.Resource.Target, q, percent))
		case spec.Type == "ContainerResource" && spec.ContainerResource != nil:
			var cur *api.MetricValueStatus
			if st != nil && st.ContainerResource != nil {
				cur = &st.ContainerResource.Current
			}
			list = append(list, spec.ContainerResource.Name+": "+resourceOverTarget(cur, spec.ContainerResource.Target, q, percent))
		default:
			list = append(list, "<unknown type>")
		}
	}
	if len(list) > 2 {
		return fmt.Sprintf("%s + %d more...", strings.Join(list[:2], ", "), len(list)-2)
	}
	return strings.Join(list, ", ")
}

// valueOverTarget is an Object or External metric's cell: the average
// value when the target is one ("(avg)"), else the value.
func valueOverTarget(cur *api.MetricValueStatus, t api.MetricTarget, q func(*api.Quantity) string) string {
	current := "<unknown>"
	if t.AverageValue != nil {
		if cur != nil && cur.AverageValue != nil {
			current = q(cur.AverageValue)
		}
		return current + "/" + q(t.AverageValue) + " (avg)"
	}
	if cur != nil {
		current = q(cur.Value)
	}
	return current + "/" + q(t.Value)
}

// resourceOverTarget is a (container) resource metric's cell, without its
// name: the average value, or the utilization in percent.
func resourceOverTarget(cur *api.MetricValueStatus, t api.MetricTarget, q func(*api.Quantity) string, percent func(*int32, string) string) string {
	if t.AverageValue != nil {
		current := "<unknown>"
		if cur != nil {
			current = q(cur.AverageValue)
		}
		return current + "/" + q(t.AverageValue)
	}
	current := "<unknown>"
	if cur != nil {
		current = percent(cur.AverageUtilization, current)
	}
	return current + "/" + percent(t.AverageUtilization, "<auto>")
}
