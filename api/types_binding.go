package api

// Binding is the body of a POST to a pod's binding subresource (".../pods/web/binding"):
// it binds the pod to the node Target names, which is how a scheduler places a pod.
// Kubernetes: corev1.Binding.
type Binding struct {
	TypeMeta `json:",inline"`
	// Metadata names the pod being bound; its name and namespace must match the URL's.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Target is the node to bind to; only its name is read.
	Target ObjectReference `json:"target" protobuf:"bytes,2,opt,name=target"`
}
