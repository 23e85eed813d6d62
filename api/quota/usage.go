package quota

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/miniplane/miniplane/api"
)

// The legacy names of object counts, and what they count. Kubernetes:
// pkg/quota/v1/evaluator/core's legacyObjectCountAliases.
var legacyCounts = map[string]string{
	"configmaps":             "configmaps",
	"resourcequotas":         "resourcequotas",
	"replicationcontrollers": "replicationcontrollers",
	"secrets":                "secrets",
	"services":               "services",
	"persistentvolumeclaims": "persistentvolumeclaims",
}

// storageClassSuffix is the domain of a per-storage-class quota name:
// "gold.storageclass.storage.k8s.io/requests.storage".
const storageClassSuffix = ".storageclass.storage.k8s.io/"

// CountName is the object-count name of a resource: "count/pods",
// "count/replicasets.apps". Kubernetes: quota.ObjectCountQuotaResourceNameFor.
func CountName(group, resource string) string {
	if group == "" {
		return "count/" + resource
	}
	return "count/" + resource + "." + group
}

// Usage is what obj, an object of group/resource, adds to its namespace's
// usage at now. Every object adds its count/<resource>; pods, services and
// claims add what their evaluators add. A pod that has finished, or whose
// grace period after deletion has passed, adds only its count/pods.
// Kubernetes: the Usage of the pod, service, PVC and object-count evaluators.
func Usage(group, resource string, obj api.Object, now time.Time) api.ResourceList {
	out := api.ResourceList{CountName(group, resource): "1"}
	if group != "" {
		return out
	}
	if legacy, ok := legacyCounts[resource]; ok {
		out[legacy] = "1"
	}
	switch o := obj.(type) {
	case *api.Pod:
		if podCounts(o, now) {
			out = Add(out, podUsage(o))
		}
	case *api.Service:
		ports := strconv.Itoa(len(o.Spec.Ports))
		switch o.Spec.Type {
		case api.ServiceTypeNodePort:
			out["services.nodeports"] = ports
		case api.ServiceTypeLoadBalancer:
			out["services.nodeports"] = ports
			out["services.loadbalancers"] = "1"
		}
	case *api.PersistentVolumeClaim:
		storage, hasStorage := o.Spec.Resources.Requests[api.ResourceStorage]
		if hasStorage {
			out["requests.storage"] = storage
		}
		if c := o.Spec.StorageClassName; c != nil && *c != "" {
			out[*c+storageClassSuffix+"persistentvolumeclaims"] = "1"
			if hasStorage {
				out[*c+storageClassSuffix+"requests.storage"] = storage
			}
		}
	}
	return out
}

// podCounts reports whether a pod's compute resources count: not once it
// has Succeeded or Failed, nor once its deletion grace period has passed.
// Kubernetes: QuotaV1Pod.
func podCounts(pod *api.Pod, now time.Time) bool {
	if pod.Status.Phase == api.PodSucceeded || pod.Status.Phase == api.PodFailed {
		return false
	}
	m := &pod.Metadata
	if m.DeletionTimestamp != nil && m.DeletionGracePeriodSeconds != nil {
		end := m.DeletionTimestamp.Time.Add(time.Duration(*m.DeletionGracePeriodSeconds) * time.Second)
		if now.After(end) {
			return false
		}
	}
	return true
}

// podUsage is a counting pod's usage: one of "pods", and its requests and
// limits, the app containers' summed and the largest init container's if
// larger, plus the pod overhead. Kubernetes: PodUsageFunc.
func podUsage(pod *api.Pod) api.ResourceList {
	requests, limits := api.ResourceList{}, api.ResourceList{}
	for _, c := range pod.Spec.Containers {
		requests = Add(requests, c.Resources.Requests)
		limits = Add(limits, c.Resources.Limits)
	}
	for _, c := range pod.Spec.InitContainers {
		requests = Max(requests, c.Resources.Requests)
		limits = Max(limits, c.Resources.Limits)
	}
	requests = Add(requests, pod.Spec.Overhead)
	limits = Add(limits, pod.Spec.Overhead)
	return computeUsage(requests, limits)
}

// computeUsage names requests and limits as a quota does: "requests.cpu"
// and "cpu" for a cpu request, "limits.cpu" for its limit, "requests.<name>"
// for an extended resource or huge pages. Kubernetes: podComputeUsageHelper.
func computeUsage(requests, limits api.ResourceList) api.ResourceList {
	out := api.ResourceList{"pods": "1"}
	for _, name := range []string{api.ResourceCPU, api.ResourceMemory, "ephemeral-storage"} {
		if v, ok := requests[name]; ok {
			out[name] = v
			out["requests."+name] = v
		}
		if v, ok := limits[name]; ok {
			out["limits."+name] = v
		}
	}
	for name, v := range requests {
		if strings.HasPrefix(name, "hugepages-") {
			out[name] = v
			out["requests."+name] = v
		}
		if isExtended(name) {
			out["requests."+name] = v
		}
	}
	return out
}

// isExtended: a resource under a domain other than kubernetes.io's.
func isExtended(name string) bool {
	return strings.Contains(name, "/") && !strings.Contains(name, "kubernetes.io/") && !strings.HasPrefix(name, "requests.")
}

// constrained are the names whose quota makes every container say its
// request or limit. Kubernetes: the pod evaluator's validationSet.
var constrained = []string{"limits.cpu", "limits.memory", "requests.cpu", "requests.memory"}

// MissingRequests returns what a pod must still spell out for a quota that
// limits hard's names: "limits.cpu for: app,sidecar; requests.memory for:
// app", or "" when nothing is missing. Kubernetes: the pod evaluator's
// Constraints.
func MissingRequests(hard []string, pod *api.Pod) string {
	var required []string
	for _, name := range constrained {
		if slices.Contains(hard, name) {
			required = append(required, name)
		}
	}
	if len(required) == 0 {
		return ""
	}
	missing := map[string][]string{}
	for _, cs := range [][]api.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		for _, c := range cs {
			has := computeUsage(c.Resources.Requests, c.Resources.Limits)
			for _, name := range required {
				if _, ok := has[name]; !ok && !slices.Contains(missing[name], c.Name) {
					missing[name] = append(missing[name], c.Name)
				}
			}
		}
	}
	var parts []string
	for _, name := range sortedNames(missing) {
		names := missing[name]
		slices.Sort(names)
		parts = append(parts, name+" for: "+strings.Join(names, ","))
	}
	return strings.Join(parts, "; ")
}

// sortedNames returns m's keys in order.
func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
