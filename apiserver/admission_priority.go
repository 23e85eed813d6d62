package apiserver

import (
	"fmt"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/store"
)

// priorityClassResource is the resource of PriorityClasses.
var priorityClassResource = apierrors.GroupResource{Group: "scheduling.k8s.io", Resource: "priorityclasses"}

// admitPriority is kube-apiserver's Priority admission plugin
// (plugin/pkg/admission/priority, admitPod) for a pod being created, when
// Config.PriorityClasses is on: the pod's spec.priority and
// spec.preemptionPolicy are resolved from the PriorityClass it names, or
// from the global default class when it names none (priority 0 and
// PreemptLowerPriority when there is no default). A class that does not
// exist, or a priority or policy the pod sets that differs from its
// class's, is refused with 403 Forbidden:
//
//	pods "x" is forbidden: no PriorityClass with name high was found
func (s *Server) admitPriority(pod *api.Pod) error {
	var priority int32
	var policy *api.PreemptionPolicy
	if pod.Spec.PriorityClassName == "" {
		if pc := s.defaultPriorityClass(); pc != nil {
			pod.Spec.PriorityClassName, priority, policy = pc.Metadata.Name, pc.Value, pc.PreemptionPolicy
		} else {
			policy = ptr(api.PreemptLowerPriority)
		}
	} else {
		rec, err := s.store.Get(s.kinds[priorityClassResource.String()].key("", pod.Spec.PriorityClassName), 0)
		if err != nil {
			return s.priorityForbidden(pod, "no PriorityClass with name %s was found", pod.Spec.PriorityClassName)
		}
		pc := rec.Value.(*api.PriorityClass)
		priority, policy = pc.Value, pc.PreemptionPolicy
	}
	if pod.Spec.Priority != nil && *pod.Spec.Priority != priority {
		return s.priorityForbidden(pod, "the integer value of priority (%d) must not be provided in pod spec; priority admission controller computed %d from the given PriorityClass name", *pod.Spec.Priority, priority)
	}
	pod.Spec.Priority = &priority
	if policy != nil {
		if pod.Spec.PreemptionPolicy != nil && *pod.Spec.PreemptionPolicy != *policy {
			return s.priorityForbidden(pod, "the string value of PreemptionPolicy (%s) must not be provided in pod spec; priority admission controller computed %s from the given PriorityClass name", *pod.Spec.PreemptionPolicy, *policy)
		}
		pod.Spec.PreemptionPolicy = ptr(*policy)
	}
	return nil
}

func (s *Server) priorityForbidden(pod *api.Pod, format string, args ...any) error {
	return apierrors.NewForbidden(apierrors.GroupResource{Resource: client.Pods}, admissionName(&pod.Metadata), fmt.Sprintf(format, args...))
}

// keepPriority carries a pod's resolved priority and preemption policy
// into an update that leaves them out, as the Priority plugin does on
// update: admission set them, and a client that never read them may still
// update the pod.
func keepPriority(pod, old *api.Pod) {
	if pod.Spec.Priority == nil && old.Spec.Priority != nil {
		pod.Spec.Priority = old.Spec.Priority
	}
	if pod.Spec.PreemptionPolicy == nil && old.Spec.PreemptionPolicy != nil {
		pod.Spec.PreemptionPolicy = old.Spec.PreemptionPolicy
	}
}

// defaultPriorityClass is the global default class: of several (two
// creates that raced), the one of lowest value, as kube-apiserver picks;
// nil when there is none.
func (s *Server) defaultPriorityClass() *api.PriorityClass {
	res, err := s.store.List(s.kinds[priorityClassResource.String()].prefix(""), store.ListOptions{})
	if err != nil {
		return nil
	}
	var def *api.PriorityClass
	for _, r := range res.Records {
		pc := r.Value.(*api.PriorityClass)
		if pc.GlobalDefault && (def == nil || pc.Value < def.Value) {
			def = pc
		}
	}
	return def
}

// admitPriorityClass is the Priority plugin's check of a class being
// created or updated (validatePriorityClass): only one class may be the
// global default.
//
//	priorityclasses.scheduling.k8s.io "b" is forbidden: PriorityClass a is already marked as default. Only one default can exist
func (s *Server) admitPriorityClass(pc *api.PriorityClass, create bool) error {
	if !pc.GlobalDefault {
		return nil
	}
	def := s.defaultPriorityClass()
	if def == nil || (!create && def.Metadata.Name == pc.Metadata.Name) {
		return nil
	}
	return apierrors.NewForbidden(s.kinds[priorityClassResource.String()].gr, admissionName(&pc.Metadata),
		fmt.Sprintf("PriorityClass %s is already marked as default. Only one default can exist", def.Metadata.Name))
}

// createSystemPriorityClasses creates the classes kube-apiserver's
// scheduling post-start hook makes (system-node-critical,
// system-cluster-critical).
func (s *Server) createSystemPriorityClasses() error {
	for _, pc := range systemPriorityClasses() {
		if err := s.ensure(pc); err != nil {
			return fmt.Errorf("apiserver: creating priority class %s: %w", pc.Metadata.Name, err)
		}
	}
	return nil
}
