package api

// RuntimeClass names a container runtime configuration (a CRI handler) that
// pods choose with spec.runtimeClassName. It is cluster-scoped and has no
// spec: its fields are top-level, and Handler cannot change once created. The
// RuntimeClass admission step copies its Overhead and Scheduling into the pods
// that name it. Kubernetes: nodev1.RuntimeClass.
type RuntimeClass struct {
	TypeMeta `json:",inline"`
	// Metadata is the class's identity.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Handler names the CRI configuration that runs the class's pods: a DNS
	// label, immutable.
	Handler string `json:"handler" protobuf:"bytes,2,opt,name=handler"`
	// Overhead is what running a pod of this class costs beyond its
	// containers; admission sets it as the pod's spec.overhead.
	Overhead *Overhead `json:"overhead,omitempty" protobuf:"bytes,3,opt,name=overhead"`
	// Scheduling keeps the class's pods on the nodes that support it;
	// admission merges it into the pod's nodeSelector and tolerations.
	Scheduling *Scheduling `json:"scheduling,omitempty" protobuf:"bytes,4,opt,name=scheduling"`
}

// GetObjectMeta returns the class's metadata.
func (rc *RuntimeClass) GetObjectMeta() *ObjectMeta { return &rc.Metadata }

// Overhead is the resources a RuntimeClass's pods use beyond their
// containers. Kubernetes: nodev1.Overhead.
type Overhead struct {
	// PodFixed is the fixed overhead of every pod of the class. Its upstream
	// Go tag says "opt"; the label follows generated.proto (a map, repeated).
	PodFixed ResourceList `json:"podFixed,omitempty" protobuf:"bytes,1,rep,name=podFixed" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
}

// Scheduling is where a RuntimeClass's pods may run. Kubernetes:
// nodev1.Scheduling.
type Scheduling struct {
	// NodeSelector is added to the pods' nodeSelector; a key the pod sets to
	// another value refuses the pod. Its upstream Go tag says "opt"; the
	// label follows generated.proto (a map, repeated).
	NodeSelector map[string]string `json:"nodeSelector,omitempty" protobuf:"bytes,1,rep,name=nodeSelector" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	// Tolerations are added to the pods' tolerations, less those they have.
	Tolerations []Toleration `json:"tolerations,omitempty" protobuf:"bytes,2,rep,name=tolerations"`
}

// RuntimeClassList is a list of runtime classes. Kubernetes:
// nodev1.RuntimeClassList.
type RuntimeClassList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the runtime classes.
	Items []RuntimeClass `json:"items" protobuf:"bytes,2,rep,name=items"`
}
