package apiserver

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/api/quota"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/store"
)

// limitRangerAnnotation records on a pod the defaults the LimitRanger
// step gave it. Kubernetes: limitranger's limitRangerAnnotation.
const limitRangerAnnotation = "kubernetes.io/limit-ranger"

// admitLimitRanges is kube-apiserver's LimitRanger admission plugin
// (plugin/pkg/admission/limitranger) for a pod or a claim being created:
// each LimitRange of its namespace first gives the pod's containers the
// Container limit's default requests and limits they lack (noted in the
// kubernetes.io/limit-ranger annotation), then every Container, Pod and
// PersistentVolumeClaim bound is checked; a breach is refused with 403
// Forbidden, every breach of a range in one message:
//
//	pods "x" is forbidden: maximum cpu usage per Container is 2, but limit is 3
//
// Pod updates are left alone, as in Kubernetes. Where Kubernetes compares
// quantities as whole milli-units, these are compared exactly.
func (s *Server) admitLimitRanges(k *kind, obj api.Object) error {
	pod, isPod := obj.(*api.Pod)
	pvc, isPVC := obj.(*api.PersistentVolumeClaim)
	if !isPod && !isPVC {
		return nil
	}
	m := obj.GetObjectMeta()
	res, err := s.store.List(s.kinds[client.LimitRanges].prefix(m.Namespace), store.ListOptions{})
	if err != nil || len(res.Records) == 0 {
		return nil
	}
	for _, r := range res.Records {
		lr := r.Value.(*api.LimitRange)
		var breaches []string
		if isPod {
			defaultPodResources(pod, lr)
			breaches = podLimitBreaches(pod, lr)
		} else {
			breaches = claimLimitBreaches(pvc, lr)
		}
		if len(breaches) > 0 {
			msg := breaches[0]
			if len(breaches) > 1 {
				msg = "[" + strings.Join(breaches, ", ") + "]"
			}
			return apierrors.NewForbidden(k.gr, admissionName(m), msg)
		}
	}
	return nil
}

// defaultPodResources gives each container the range's Container default
// requests and limits it lacks. Kubernetes: PodMutateLimitFunc.
func defaultPodResources(pod *api.Pod, lr *api.LimitRange) {
	requests, limits := api.ResourceList{}, api.ResourceList{}
	for _, l := range lr.Spec.Limits {
		if l.Type == api.LimitTypeContainer {
			for k, v := range l.DefaultRequest {
				requests[k] = v
			}
			for k, v := range l.Default {
				limits[k] = v
			}
		}
	}
	var notes []string
	merge := func(c *api.Container, what string) {
		var setReq, setLim []string
		c.Resources.Limits, setLim = fillMissing(c.Resources.Limits, limits)
		c.Resources.Requests, setReq = fillMissing(c.Resources.Requests, requests)
		if len(setReq) > 0 {
			notes = append(notes, fmt.Sprintf("%s request for %s %s", strings.Join(setReq, ", "), what, c.Name))
		}
		if len(setLim) > 0 {
			notes = append(notes, fmt.Sprintf("%s limit for %s %s", strings.Join(setLim, ", "), what, c.Name))
		}
	}
	for i := range pod.Spec.Containers {
		merge(&pod.Spec.Containers[i], "container")
	}
	for i := range pod.Spec.InitContainers {
		merge(&pod.Spec.InitContainers[i], "init container")
	}
	if len(notes) > 0 {
		if pod.Metadata.Annotations == nil {
			pod.Metadata.Annotations = map[string]string{}
		}
		pod.Metadata.Annotations[limitRangerAnnotation] = "LimitRanger plugin set: " + strings.Join(notes, "; ")
	}
}

// fillMissing returns list with the entries of defaults it lacks (a new
// map: list may be shared) and their names, sorted.
func fillMissing(list, defaults api.ResourceList) (api.ResourceList, []string) {
	var set []string
	for _, k := range sortedKeys(defaults) {
		if _, ok := list[k]; !ok {
			set = append(set, k)
		}
	}
	if len(set) == 0 {
		return list, nil
	}
	out := make(api.ResourceList, len(list)+len(set))
	for k, v := range list {
		out[k] = v
	}
	for _, k := range set {
		out[k] = defaults[k]
	}
	return out, set
}

// podLimitBreaches checks each container against the range's Container
// limit and the pod's totals against its Pod limit. Kubernetes:
// PodValidateLimitFunc.
func podLimitBreaches(pod *api.Pod, lr *api.LimitRange) []string {
	var out []string
	for _, l := range lr.Spec.Limits {
		switch l.Type {
		case api.LimitTypeContainer:
			for _, cs := range [][]api.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
				for _, c := range cs {
					out = append(out, limitBreaches(&l, c.Resources.Requests, c.Resources.Limits)...)
				}
			}
		case api.LimitTypePod:
			requests, limits := podTotals(pod)
			out = append(out, limitBreaches(&l, requests, limits)...)
		}
	}
	return out
}

// claimLimitBreaches checks a claim's storage request against the range's
// PersistentVolumeClaim limit. Kubernetes:
// PersistentVolumeClaimValidateLimitFunc.
func claimLimitBreaches(pvc *api.PersistentVolumeClaim, lr *api.LimitRange) []string {
	var out []string
	for _, l := range lr.Spec.Limits {
		if l.Type != api.LimitTypePersistentVolumeClaim {
			continue
		}
		requests := pvc.Spec.Resources.Requests
		for _, k := range sortedKeys(l.Min) {
			out = appendBreach(out, minBreach(string(l.Type), k, l.Min[k], requests, nil))
		}
		for _, k := range sortedKeys(l.Max) {
			if req, ok := requests[k]; ok && ratOf(req).Cmp(ratOf(l.Max[k])) > 0 {
				out = append(out, fmt.Sprintf("maximum %s usage per %s is %s, but request is %s", k, l.Type, l.Max[k], req))
			}
		}
	}
	return out
}

// limitBreaches checks one set of requests and limits against one limit's
// min, max and ratio, resource by resource in name order.
func limitBreaches(l *api.LimitRangeItem, requests, limits api.ResourceList) []string {
	var out []string
	t := string(l.Type)
	for _, k := range sortedKeys(l.Min) {
		out = appendBreach(out, minBreach(t, k, l.Min[k], requests, limits))
	}
	for _, k := range sortedKeys(l.Max) {
		out = appendBreach(out, maxBreach(t, k, l.Max[k], requests, limits))
	}
	for _, k := range sortedKeys(l.MaxLimitRequestRatio) {
		out = appendBreach(out, ratioBreach(t, k, l.MaxLimitRequestRatio[k], requests, limits))
	}
	return out
}

func appendBreach(out []string, breach string) []string {
	if breach == "" {
		return out
	}
	return append(out, breach)
}

// ratOf is a stored (so valid) quantity's value.
func ratOf(s string) *big.Rat {
	r, _ := quota.Parse(s)
	if r == nil {
		return new(big.Rat)
	}
	return r
}

// minBreach: Kubernetes' minConstraint.
func minBreach(t, k, enforced string, requests, limits api.ResourceList) string {
	req, hasReq := requests[k]
	lim, hasLim := limits[k]
	switch {
	case !hasReq:
		return fmt.Sprintf("minimum %s usage per %s is %s.  No request is specified", k, t, enforced)
	case ratOf(req).Cmp(ratOf(enforced)) < 0:
		return fmt.Sprintf("minimum %s usage per %s is %s, but request is %s", k, t, enforced, req)
	case hasLim && ratOf(lim).Cmp(ratOf(enforced)) < 0:
		return fmt.Sprintf("minimum %s usage per %s is %s, but limit is %s", k, t, enforced, lim)
	}
	return ""
}

// maxBreach: Kubernetes' maxConstraint.
func maxBreach(t, k, enforced string, requests, limits api.ResourceList) string {
	req, hasReq := requests[k]
	lim, hasLim := limits[k]
	switch {
	case !hasLim:
		return fmt.Sprintf("maximum %s usage per %s is %s.  No limit is specified", k, t, enforced)
	case ratOf(lim).Cmp(ratOf(enforced)) > 0:
		return fmt.Sprintf("maximum %s usage per %s is %s, but limit is %s", k, t, enforced, lim)
	case hasReq && ratOf(req).Cmp(ratOf(enforced)) > 0:
		return fmt.Sprintf("maximum %s usage per %s is %s, but request is %s", k, t, enforced, req)
	}
	return ""
}

// ratioBreach: Kubernetes' limitRequestRatioConstraint.
func ratioBreach(t, k, enforced string, requests, limits api.ResourceList) string {
	req, hasReq := requests[k]
	lim, hasLim := limits[k]
	if !hasReq || ratOf(req).Sign() == 0 {
		return fmt.Sprintf("%s max limit to request ratio per %s is %s, but no request is specified or request is 0", k, t, enforced)
	}
	if !hasLim || ratOf(lim).Sign() == 0 {
		return fmt.Sprintf("%s max limit to request ratio per %s is %s, but no limit is specified or limit is 0", k, t, enforced)
	}
	ratio := new(big.Rat).Quo(ratOf(lim), ratOf(req))
	if ratio.Cmp(ratOf(enforced)) > 0 {
		f, _ := ratio.Float64()
		return fmt.Sprintf("%s max limit to request ratio per %s is %s, but provided ratio is %f", k, t, enforced, f)
	}
	return ""
}

// podTotals is a pod's requests and limits as a Pod limit sees them: the
// containers' summed, the largest init container's if larger, plus the
// overhead. Kubernetes: limitranger's podRequests and podLimits.
func podTotals(pod *api.Pod) (requests, limits api.ResourceList) {
	requests, limits = api.ResourceList{}, api.ResourceList{}
	for _, c := range pod.Spec.Containers {
		requests = quota.Add(requests, c.Resources.Requests)
		limits = quota.Add(limits, c.Resources.Limits)
	}
	for _, c := range pod.Spec.InitContainers {
		requests = quota.Max(requests, c.Resources.Requests)
		limits = quota.Max(limits, c.Resources.Limits)
	}
	return quota.Add(requests, pod.Spec.Overhead), quota.Add(limits, pod.Spec.Overhead)
}
