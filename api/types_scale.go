package api

// Scale is the scale subresource of a replicated kind (".../replicationcontrollers/web/
// scale"): just the replica count, so that `kubectl scale` and autoscalers can change it
// without knowing the kind. Its metadata is the parent object's. Kubernetes:
// autoscalingv1.Scale (apiVersion autoscaling/v1).
type Scale struct {
	TypeMeta `json:",inline"`
	// Metadata is the parent object's metadata.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the desired scale.
	Spec ScaleSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is the observed scale.
	Status ScaleStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// GetObjectMeta returns the scale's metadata.
func (s *Scale) GetObjectMeta() *ObjectMeta { return &s.Metadata }

// ScaleSpec is the desired scale. Kubernetes: autoscalingv1.ScaleSpec.
type ScaleSpec struct {
	// Replicas is the desired number of replicas.
	Replicas int32 `json:"replicas,omitempty" protobuf:"varint,1,opt,name=replicas"`
}

// ScaleStatus is the observed scale. Kubernetes: autoscalingv1.ScaleStatus.
type ScaleStatus struct {
	// Replicas is the observed number of replicas.
	Replicas int32 `json:"replicas" protobuf:"varint,1,opt,name=replicas"`
	// Selector is the parent's label selector in string form, e.g. "app=web".
	Selector string `json:"selector,omitempty" protobuf:"bytes,2,opt,name=selector"`
}
