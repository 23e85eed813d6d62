package quota

import (
	"slices"

	"github.com/miniplane/miniplane/api"
)

// requirements are a quota's scopes and scope selector as one list of
// expressions, a bare scope reading as "Exists". Kubernetes:
// quota.ConvertScopesToSelectorRequirements.
func requirements(q *api.ResourceQuota) []api.ScopedResourceSelectorRequirement {
	var out []api.ScopedResourceSelectorRequirement
	for _, s := range q.Spec.Scopes {
		out = append(out, api.ScopedResourceSelectorRequirement{ScopeName: s, Operator: "Exists"})
	}
	if sel := q.Spec.ScopeSelector; sel != nil {
		out = append(out, sel.MatchExpressions...)
	}
	return out
}

// Selects reports whether q counts obj: an unscoped quota counts every
// object; a scoped one only pods that every scope matches. Kubernetes: the
// evaluators' Matches and the pod evaluator's podMatchesScopeFunc.
func Selects(q *api.ResourceQuota, obj api.Object) bool {
	reqs := requirements(q)
	if len(reqs) == 0 {
		return true
	}
	pod, ok := obj.(*api.Pod)
	if !ok {
		return false
	}
	for _, r := range reqs {
		if !podMatches(r, pod) {
			return false
		}
	}
	return true
}

// podMatches: Kubernetes' podMatchesScopeFunc.
func podMatches(r api.ScopedResourceSelectorRequirement, pod *api.Pod) bool {
	switch r.ScopeName {
	case api.ScopeTerminating:
		return pod.Spec.ActiveDeadlineSeconds != nil && *pod.Spec.ActiveDeadlineSeconds >= 0
	case api.ScopeNotTerminating:
		return pod.Spec.ActiveDeadlineSeconds == nil || *pod.Spec.ActiveDeadlineSeconds < 0
	case api.ScopeBestEffort:
		return isBestEffort(pod)
	case api.ScopeNotBestEffort:
		return !isBestEffort(pod)
	case api.ScopePriorityClass:
		name := pod.Spec.PriorityClassName
		switch r.Operator {
		case "In":
			return slices.Contains(r.Values, name)
		case "NotIn":
			return !slices.Contains(r.Values, name)
		case "Exists":
			return name != ""
		case "DoesNotExist":
			return name == ""
		}
	case api.ScopeCrossNamespacePodAffinity:
		return false // miniplane's pods carry no pod affinity terms
	}
	return false
}

// isBestEffort: no container asks for or caps cpu or memory. Kubernetes:
// qos.GetPodQOS == BestEffort.
func isBestEffort(pod *api.Pod) bool {
	for _, cs := range [][]api.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		for _, c := range cs {
			for _, l := range []api.ResourceList{c.Resources.Requests, c.Resources.Limits} {
				for _, name := range []string{api.ResourceCPU, api.ResourceMemory} {
					if v, ok := l[name]; ok && value(v).Sign() != 0 {
						return false
					}
				}
			}
		}
	}
	return true
}
