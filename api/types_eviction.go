package api

// Eviction asks the apiserver to evict a pod: the body of a POST to
// /api/v1/namespaces/<ns>/pods/<name>/eviction, which `kubectl drain` sends for every pod on
// the node it drains. The PodDisruptionBudget that selects the pod is checked first: an
// eviction that would break it is refused with 429 TooManyRequests, one it allows is recorded
// in the budget's status and is then the pod's delete with DeleteOptions. Kubernetes:
// policyv1.Eviction (apiVersion policy/v1).
type Eviction struct {
	TypeMeta `json:",inline"`
	// Metadata names the pod to evict: its namespace and name.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// DeleteOptions are the options of the pod's delete: its grace period, preconditions,
	// dry run.
	DeleteOptions *DeleteOptions `json:"deleteOptions,omitempty" protobuf:"bytes,2,opt,name=deleteOptions"`
}

// GetObjectMeta returns the eviction's metadata.
func (e *Eviction) GetObjectMeta() *ObjectMeta { return &e.Metadata }
