package api

// PodTemplate is a pod template stored on its own, for others to copy pods
// from; no controller here reads it. Kubernetes: corev1.PodTemplate.
type PodTemplate struct {
	TypeMeta `json:",inline"`
	// Metadata is the template's identity.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Template is the pods' metadata and spec.
	Template PodTemplateSpec `json:"template,omitempty" protobuf:"bytes,2,opt,name=template"`
}

// GetObjectMeta returns the template's metadata.
func (pt *PodTemplate) GetObjectMeta() *ObjectMeta { return &pt.Metadata }

// PodTemplateList is a list of pod templates. Kubernetes: corev1.PodTemplateList.
type PodTemplateList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the pod templates.
	Items []PodTemplate `json:"items" protobuf:"bytes,2,rep,name=items"`
}
