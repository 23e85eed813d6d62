package api

// LimitRange bounds, and defaults, the compute resources of each container,
// each pod and the storage of each claim created in its namespace: the
// LimitRanger admission step applies it at create. Kubernetes:
// corev1.LimitRange.
type LimitRange struct {
	TypeMeta `json:",inline"`
	// Metadata is the range's identity.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec holds the limits.
	Spec LimitRangeSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

// GetObjectMeta returns the range's metadata.
func (lr *LimitRange) GetObjectMeta() *ObjectMeta { return &lr.Metadata }

// LimitRangeList is a list of limit ranges. Kubernetes: corev1.LimitRangeList.
type LimitRangeList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the limit ranges.
	Items []LimitRange `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// LimitRangeSpec is a range's limits, at most one per type. Kubernetes:
// corev1.LimitRangeSpec.
type LimitRangeSpec struct {
	// Limits are the limits, each of one type of object.
	Limits []LimitRangeItem `json:"limits" protobuf:"bytes,1,rep,name=limits"`
}

// LimitRangeItem bounds one type of object. Kubernetes: corev1.LimitRangeItem.
type LimitRangeItem struct {
	// Type is what is bounded: Container, Pod or PersistentVolumeClaim.
	Type LimitType `json:"type" protobuf:"bytes,1,opt,name=type"`
	// Max is the most of each resource an object may have.
	Max ResourceList `json:"max,omitempty" protobuf:"bytes,2,rep,name=max" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	// Min is the least of each resource an object must have.
	Min ResourceList `json:"min,omitempty" protobuf:"bytes,3,rep,name=min" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	// Default is the limit given to a container that sets none.
	Default ResourceList `json:"default,omitempty" protobuf:"bytes,4,rep,name=default" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	// DefaultRequest is the request given to a container that sets none.
	DefaultRequest ResourceList `json:"defaultRequest,omitempty" protobuf:"bytes,5,rep,name=defaultRequest" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	// MaxLimitRequestRatio is the largest a limit may be, as a multiple of its request.
	MaxLimitRequestRatio ResourceList `json:"maxLimitRequestRatio,omitempty" protobuf:"bytes,6,rep,name=maxLimitRequestRatio" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
}

// LimitType is the type of object a limit bounds. Kubernetes: corev1.LimitType.
type LimitType string

// The limit types Kubernetes defines.
const (
	// LimitTypePod bounds the sum of a pod's containers.
	LimitTypePod LimitType = "Pod"
	// LimitTypeContainer bounds, and defaults, each container.
	LimitTypeContainer LimitType = "Container"
	// LimitTypePersistentVolumeClaim bounds each claim's storage request.
	LimitTypePersistentVolumeClaim LimitType = "PersistentVolumeClaim"
)
