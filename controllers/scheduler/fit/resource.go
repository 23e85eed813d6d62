package fit

import (
	"maps"
	"slices"

	"github.com/miniplane/miniplane/api"
)

// ResourceEphemeralStorage is the resource name of local ephemeral storage.
const ResourceEphemeralStorage = "ephemeral-storage"

// Resource is an amount of each schedulable resource: what a pod requests,
// what a node's pods request, or what a node has. Kubernetes: the
// scheduler framework's Resource.
type Resource struct {
	MilliCPU         int64
	Memory           int64 // bytes
	EphemeralStorage int64 // bytes
	// Scalar holds extended resources ("example.com/gpu") and hugepages,
	// in their integer units; nil when none.
	Scalar map[string]int64
}

// IsZero reports whether r asks for nothing: a pod without requests,
// which NodeResourcesFit checks against the pod count only.
func (r *Resource) IsZero() bool {
	return r == nil || r.MilliCPU == 0 && r.Memory == 0 && r.EphemeralStorage == 0 && len(r.Scalar) == 0
}

// Add adds o to r (o nil adds nothing).
func (r *Resource) Add(o *Resource) { r.addScaled(o, 1) }

// Sub takes o from r (o nil takes nothing).
func (r *Resource) Sub(o *Resource) { r.addScaled(o, -1) }

func (r *Resource) addScaled(o *Resource, sign int64) {
	if o == nil {
		return
	}
	r.MilliCPU += sign * o.MilliCPU
	r.Memory += sign * o.Memory
	r.EphemeralStorage += sign * o.EphemeralStorage
	for name, v := range o.Scalar {
		if r.Scalar == nil {
			r.Scalar = make(map[string]int64, len(o.Scalar))
		}
		r.Scalar[name] += sign * v
	}
}

// setMax raises each of r's amounts to o's where o's is larger.
func (r *Resource) setMax(o *Resource) {
	r.MilliCPU = max(r.MilliCPU, o.MilliCPU)
	r.Memory = max(r.Memory, o.Memory)
	r.EphemeralStorage = max(r.EphemeralStorage, o.EphemeralStorage)
	for name, v := range o.Scalar {
		if v > r.Scalar[name] {
			if r.Scalar == nil {
				r.Scalar = make(map[string]int64, len(o.Scalar))
			}
			r.Scalar[name] = v
		}
	}
}

// ResourceOf reads a resource list: cpu in millicores, memory and
// ephemeral storage in bytes, other resources but pods in their units.
// Quantities that do not parse count as zero (the API server refuses
// them).
func ResourceOf(l api.ResourceList) Resource {
	var r Resource
	for name, q := range l {
		switch name {
		case api.ResourceCPU:
			r.MilliCPU, _ = parseQuantity(q, 1000)
		case api.ResourceMemory:
			r.Memory, _ = parseQuantity(q, 1)
		case ResourceEphemeralStorage:
			r.EphemeralStorage, _ = parseQuantity(q, 1)
		case api.ResourcePods:
		default:
			if isScalar(name) {
				if r.Scalar == nil {
					r.Scalar = make(map[string]int64)
				}
				r.Scalar[name], _ = parseQuantity(q, 1)
			}
		}
	}
	return r
}

// isScalar reports whether name is a resource NodeResourcesFit checks
// beyond cpu, memory and ephemeral storage: an extended resource (a
// domain-prefixed name outside kubernetes.io) or hugepages.
func isScalar(name string) bool {
	if len(name) > 10 && name[:10] == "hugepages-" {
		return true
	}
	for i := 0; i < len(name); i++ {
		if name[i] == '/' {
			domain := name[:i]
			return domain != "kubernetes.io" && !hasSuffix(domain, ".kubernetes.io") && domain != "requests"
		}
	}
	return false
}

func hasSuffix(s, suffix string) bool {
	return len(s) >= len(suffix) && s[len(s)-len(suffix):] == suffix
}

// PodRequests is what a pod asks its node for, as kube-scheduler computes
// it (resourcehelper.PodRequests): per resource, the larger of its
// containers' requests summed and its largest init container's request
// (init containers run one at a time, before the others), plus the pod's
// overhead. A pod without requests gets nil, without allocating.
func PodRequests(spec *api.PodSpec) *Resource {
	if len(spec.Overhead) == 0 && len(spec.InitContainers) == 0 && !anyRequests(spec.Containers) {
		return nil // the usual case: a pod that requests nothing
	}
	var sum Resource
	for i := range spec.Containers {
		c := ResourceOf(spec.Containers[i].Resources.Requests)
		sum.Add(&c)
	}
	for i := range spec.InitContainers {
		c := ResourceOf(spec.InitContainers[i].Resources.Requests)
		sum.setMax(&c)
	}
	o := ResourceOf(spec.Overhead)
	sum.Add(&o)
	if sum.IsZero() {
		return nil
	}
	return &sum
}

func anyRequests(containers []api.Container) bool {
	for i := range containers {
		if len(containers[i].Resources.Requests) > 0 {
			return true
		}
	}
	return false
}

// scalarNames returns the names of r's extended resources, sorted.
func scalarNames(r *Resource) []string { return slices.Sorted(maps.Keys(r.Scalar)) }
