package api

// PriorityClass maps a name pods give in spec.priorityClassName to the
// priority the Priority admission step writes into their spec.priority. It is
// cluster-scoped and has no spec: its fields are top-level, and Value and
// PreemptionPolicy cannot change once created. Kubernetes:
// schedulingv1.PriorityClass.
type PriorityClass struct {
	TypeMeta `json:",inline"`
	// Metadata is the class's identity.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Value is the priority pods of this class receive; higher is more important.
	// Its upstream Go tag says "bytes"; the wire type follows generated.proto (int32).
	Value int32 `json:"value" protobuf:"varint,2,opt,name=value"`
	// GlobalDefault makes the class the one of pods that name none. Only one class may
	// be the default.
	// Its upstream Go tag says "bytes"; the wire type follows generated.proto (bool).
	GlobalDefault bool `json:"globalDefault,omitempty" protobuf:"varint,3,opt,name=globalDefault"`
	// Description says when the class should be used.
	Description string `json:"description,omitempty" protobuf:"bytes,4,opt,name=description"`
	// PreemptionPolicy is whether pods of the class may preempt pods of lower priority:
	// PreemptLowerPriority (the default) or Never.
	PreemptionPolicy *PreemptionPolicy `json:"preemptionPolicy,omitempty" protobuf:"bytes,5,opt,name=preemptionPolicy"`
}

// GetObjectMeta returns the class's metadata.
func (pc *PriorityClass) GetObjectMeta() *ObjectMeta { return &pc.Metadata }

// PriorityClassList is a list of priority classes. Kubernetes:
// schedulingv1.PriorityClassList.
type PriorityClassList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the priority classes.
	Items []PriorityClass `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// PreemptionPolicy is whether a pod may preempt pods of lower priority.
// Kubernetes: corev1.PreemptionPolicy.
type PreemptionPolicy string

// The preemption policies Kubernetes defines.
const (
	// PreemptLowerPriority lets the pod preempt pods of lower priority.
	PreemptLowerPriority PreemptionPolicy = "PreemptLowerPriority"
	// PreemptNever keeps the pod from preempting any pod.
	PreemptNever PreemptionPolicy = "Never"
)
