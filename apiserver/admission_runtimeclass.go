package apiserver

import (
	"fmt"
	"maps"
	"reflect"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
)

// runtimeClassResource is the resource of RuntimeClasses.
var runtimeClassResource = apierrors.GroupResource{Group: "node.k8s.io", Resource: "runtimeclasses"}

// admitRuntimeClass is kube-apiserver's RuntimeClass admission plugin
// (plugin/pkg/admission/runtimeclass, Admit then Validate) for a pod being
// created that names a RuntimeClass: the class must exist, its overhead
// becomes the pod's spec.overhead (a pod that sets another is refused),
// its scheduling's node selector is merged into the pod's (a key the pod
// sets to another value is refused) and its tolerations are merged into
// the pod's. A pod naming no class may not set spec.overhead. Refusals are
// 403 Forbidden:
//
//	pods "x" is forbidden: pod rejected: RuntimeClass "gvisor" not found
//
// kube-apiserver always runs it; so does the Server.
func (s *Server) admitRuntimeClass(pod *api.Pod) error {
	var rc *api.RuntimeClass
	if name := pod.Spec.RuntimeClassName; name != nil {
		rec, err := s.store.Get(s.kinds[runtimeClassResource.String()].key("", *name), 0)
		if err != nil {
			return runtimeClassForbidden(pod, "pod rejected: RuntimeClass %q not found", *name)
		}
		rc = rec.Value.(*api.RuntimeClass)
	}
	if err := setRuntimeClassOverhead(pod, rc); err != nil {
		return err
	}
	if err := setRuntimeClassScheduling(pod, rc); err != nil {
		return err
	}
	// Validate: the overhead is the class's, or there is none.
	if rc != nil && rc.Overhead != nil {
		if !sameResourceList(rc.Overhead.PodFixed, pod.Spec.Overhead) {
			return runtimeClassForbidden(pod, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead")
		}
	} else if pod.Spec.Overhead != nil {
		return runtimeClassForbidden(pod, "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead")
	}
	return nil
}

// setRuntimeClassOverhead is the plugin's setOverhead.
func setRuntimeClassOverhead(pod *api.Pod, rc *api.RuntimeClass) error {
	if rc == nil || rc.Overhead == nil {
		return nil
	}
	if len(pod.Spec.Overhead) > 0 && !sameResourceList(rc.Overhead.PodFixed, pod.Spec.Overhead) {
		return runtimeClassForbidden(pod, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead")
	}
	pod.Spec.Overhead = maps.Clone(rc.Overhead.PodFixed)
	return nil
}

// setRuntimeClassScheduling is the plugin's setScheduling. The pod's node
// selector may be shared with the template it was made from (a handed-over
// pod): it is replaced, never changed.
func setRuntimeClassScheduling(pod *api.Pod, rc *api.RuntimeClass) error {
	if rc == nil || rc.Scheduling == nil {
		return nil
	}
	selector := pod.Spec.NodeSelector
	if selector == nil {
		selector = maps.Clone(rc.Scheduling.NodeSelector)
	} else {
		selector = maps.Clone(selector)
		for _, key := range sortedKeys(rc.Scheduling.NodeSelector) {
			want := rc.Scheduling.NodeSelector[key]
			if got, ok := selector[key]; ok && got != want {
				return runtimeClassForbidden(pod, "conflict: runtimeClass.scheduling.nodeSelector[%s] = %s; pod.spec.nodeSelector[%s] = %s", key, want, key, got)
			}
			selector[key] = want
		}
	}
	pod.Spec.NodeSelector = selector
	pod.Spec.Tolerations = mergeTolerations(pod.Spec.Tolerations, rc.Scheduling.Tolerations)
	return nil
}

// sameResourceList reports whether two resource lists hold the same
// quantities, as apiequality.Semantic compares them ("1" equals "1000m").
func sameResourceList(a, b api.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for name, av := range a {
		bv, ok := b[name]
		if !ok {
			return false
		}
		qa, erra := parseQuantity(av)
		qb, errb := parseQuantity(bv)
		if erra != "" || errb != "" {
			if av != bv {
				return false
			}
		} else if qa.cmp(qb) != 0 {
			return false
		}
	}
	return true
}

// mergeTolerations returns first and second in one new list without the
// tolerations another one in it tolerates a superset of, keeping the first
// of equal ones. Kubernetes: pkg/util/tolerations.MergeTolerations.
func mergeTolerations(first, second []api.Toleration) []api.Toleration {
	all := make([]api.Toleration, 0, len(first)+len(second))
	all = append(append(all, first...), second...)
	var merged []api.Toleration
next:
	for i, t := range all {
		for _, t2 := range merged {
			if tolerationSuperset(t2, t) {
				continue next
			}
		}
		for _, t2 := range all[i+1:] {
			if !reflect.DeepEqual(t, t2) && tolerationSuperset(t2, t) {
				continue next
			}
		}
		merged = append(merged, t)
	}
	return merged
}

// tolerationSuperset reports whether ss tolerates every taint t does.
// Kubernetes: pkg/util/tolerations.isSuperset.
func tolerationSuperset(ss, t api.Toleration) bool {
	if reflect.DeepEqual(t, ss) {
		return true
	}
	if t.Key != ss.Key && (ss.Key != "" || ss.Operator != api.TolerationOpExists) {
		return false
	}
	if t.Effect != ss.Effect && ss.Effect != "" {
		return false
	}
	if ss.Effect == api.TaintEffectNoExecute && ss.TolerationSeconds != nil {
		if t.TolerationSeconds == nil || *t.TolerationSeconds > *ss.TolerationSeconds {
			return false
		}
	}
	switch ss.Operator {
	case api.TolerationOpEqual, "":
		return t.Operator == api.TolerationOpEqual && t.Value == ss.Value
	case api.TolerationOpExists:
		return true
	}
	return false
}

func runtimeClassForbidden(pod *api.Pod, format string, args ...any) error {
	return apierrors.NewForbidden(apierrors.GroupResource{Resource: client.Pods}, admissionName(&pod.Metadata), fmt.Sprintf(format, args...))
}
