package quota

import (
	"math/big"
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

// QOSClass is pod's quality-of-service class, which kube-apiserver sets in
// its status when it is created: BestEffort when no container asks for or
// caps cpu or memory; Guaranteed when every container caps both and the
// pod's requests of each equal its limits; else Burstable. Kubernetes:
// qos.ComputePodQOS.
func QOSClass(pod *api.Pod) api.PodQOSClass {
	if isBestEffort(pod) {
		return api.PodQOSBestEffort
	}
	requests, limits := map[string]*big.Rat{}, map[string]*big.Rat{}
	guaranteed := true
	for _, cs := range [][]api.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		for _, c := range cs {
			for _, name := range []string{api.ResourceCPU, api.ResourceMemory} {
				if v, ok := c.Resources.Requests[name]; ok && value(v).Sign() > 0 {
					requests[name] = sum(requests[name], value(v))
				}
				v, ok := c.Resources.Limits[name]
				if !ok || value(v).Sign() <= 0 {
					guaranteed = false
					continue
				}
				limits[name] = sum(limits[name], value(v))
			}
		}
	}
	for name, r := range requests {
		if l, ok := limits[name]; !ok || l.Cmp(r) != 0 {
			guaranteed = false
		}
	}
	if guaranteed && len(requests) == len(limits) {
		return api.PodQOSGuaranteed
	}
	return api.PodQOSBurstable
}

func sum(a, b *big.Rat) *big.Rat {
	if a == nil {
		return new(big.Rat).Set(b)
	}
	return new(big.Rat).Add(a, b)
}
