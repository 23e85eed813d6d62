package apiserver

import (
	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// podAdmissionKinds returns the kinds kube-apiserver's own admission steps
// read when a pod is created: PriorityClasses (the Priority step) and
// LimitRanges (the LimitRanger step). No
// controller acts on them; the API server does, at each pod create. And
// PodTemplates, which nothing here reads: a template stored for others.
func podAdmissionKinds() []*kind {
	podTemplate := func(o api.Object) *api.PodTemplateSpec { return &o.(*api.PodTemplate).Template }
	return []*kind{
		typed(&kind{
			gr: apierrors.GroupResource{Resource: "limitranges"}, kind: "LimitRange", apiVersion: "v1", namespaced: true, shortNames: []string{"limits"},
			newObj: func() api.Object { return &api.LimitRange{} },
			columns: []Column{nameColumn,
				{Name: "Created At", Type: "date", Description: "Creation timestamp of the limit range.",
					Cell: func(o api.Object) any {
						return o.GetObjectMeta().CreationTimestamp.UTC().Format("2006-01-02T15:04:05Z")
					}}},
		}, defaultLimitRange, validateLimitRange, validateLimitRangeUpdate),
		typed(&kind{
			gr: apierrors.GroupResource{Resource: "podtemplates"}, kind: "PodTemplate", apiVersion: "v1", namespaced: true,
			newObj: func() api.Object { return &api.PodTemplate{} },
			// kubectl prints no AGE for pod templates, and their containers and
			// images without -o wide.
			columns: []Column{nameColumn, unwide(containersColumn(podTemplate)), unwide(imagesColumn(podTemplate)),
				{Name: "Pod Labels", Type: "string", Description: "The labels for the pod template.",
					Cell: func(o api.Object) any { return formatLabels(podTemplate(o).Metadata.Labels) }}},
		}, defaultPodTemplate, validatePodTemplate, validatePodTemplateUpdate),
		typed(&kind{
			gr: priorityClassResource, kind: "PriorityClass",
			apiVersion: "scheduling.k8s.io/v1", shortNames: []string{"pc"}, singular: "priorityclass",
			newObj:  func() api.Object { return &api.PriorityClass{} },
			columns: priorityClassColumns,
		}, defaultPriorityClass, validatePriorityClass, validatePriorityClassUpdate),
	}
}

// unwide is c shown without -o wide.
func unwide(c Column) Column {
	c.Priority = 0
	return c
}

// The columns of kubectl's tables for these kinds, as Kubernetes'
// pkg/printers/internalversion prints them.
var priorityClassColumns = []Column{nameColumn,
	{Name: "Value", Type: "integer", Description: "value represents the integer value of this priority class. This is the actual priority that pods receive when they have the name of this class in their pod spec.",
		Cell: func(o api.Object) any { return int64(o.(*api.PriorityClass).Value) }},
	{Name: "Global-Default", Type: "boolean", Description: "globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that do not have any priority class. Only one PriorityClass can be marked as `globalDefault`. However, if more than one PriorityClasses exists with their `globalDefault` field set to true, the smallest value of such global default PriorityClasses will be used as the default priority.",
		Cell: func(o api.Object) any { return o.(*api.PriorityClass).GlobalDefault }},
	ageColumn,
	{Name: "PreemptionPolicy", Type: "string", Priority: 1, Description: "preemptionPolicy is the Policy for preempting pods with lower priority. One of Never, PreemptLowerPriority. Defaults to PreemptLowerPriority if unset.",
		Cell: func(o api.Object) any {
			if p := o.(*api.PriorityClass).PreemptionPolicy; p != nil {
				return string(*p)
			}
			return ""
		}},
}
