package api

// Namespace scopes the names of namespaced objects; deleting it deletes everything in it.
// Namespaces are cluster-scoped. Kubernetes: corev1.Namespace.
type Namespace struct {
	TypeMeta `json:",inline"`
	// Metadata is the namespace's identity.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the desired state.
	Spec NamespaceSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is the observed state.
	Status NamespaceStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// GetObjectMeta returns the namespace's metadata.
func (n *Namespace) GetObjectMeta() *ObjectMeta { return &n.Metadata }

// NamespaceList is a list of namespaces. Kubernetes: corev1.NamespaceList.
type NamespaceList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the namespaces.
	Items []Namespace `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// NamespaceSpec is the desired state of a namespace. Kubernetes: corev1.NamespaceSpec.
type NamespaceSpec struct {
	// Finalizers must all be removed, after the namespace's contents are deleted, before
	// the namespace itself goes away. Unlike metadata.finalizers, they are only changed
	// through the finalize subresource.
	Finalizers []string `json:"finalizers,omitempty" protobuf:"bytes,1,rep,name=finalizers"`
}

// FinalizerKubernetes is the namespace finalizer the apiserver adds to every namespace; the
// namespace controller removes it once the namespace is empty.
const FinalizerKubernetes = "kubernetes"

// NamespaceStatus is the observed state of a namespace. Kubernetes: corev1.NamespaceStatus.
type NamespaceStatus struct {
	// Phase is Active or Terminating.
	Phase NamespacePhase `json:"phase,omitempty" protobuf:"bytes,1,opt,name=phase"`
	// Conditions are the latest observations of the namespace's state: the
	// namespace controller's NamespaceDeletion* conditions while it empties
	// a terminating namespace, or any a client writes through the status
	// subresource.
	Conditions []NamespaceCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,2,rep,name=conditions"`
}

// NamespaceCondition is one observation of a namespace's state.
// Kubernetes: corev1.NamespaceCondition.
type NamespaceCondition struct {
	// Type names the fact: NamespaceDeletionDiscoveryFailure and the like.
	Type string `json:"type" protobuf:"bytes,1,opt,name=type"`
	// Status is True, False or Unknown.
	Status ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status"`
	// LastTransitionTime is when Status last changed.
	LastTransitionTime Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,4,opt,name=lastTransitionTime"`
	// Reason is a CamelCase reason for the last transition.
	Reason string `json:"reason,omitempty" protobuf:"bytes,5,opt,name=reason"`
	// Message is a human-readable account of the last transition.
	Message string `json:"message,omitempty" protobuf:"bytes,6,opt,name=message"`
}

// NamespacePhase is a namespace's lifecycle phase. Kubernetes: corev1.NamespacePhase.
type NamespacePhase string

// Namespace phases.
const (
	// NamespaceActive: objects can be created in the namespace.
	NamespaceActive NamespacePhase = "Active"
	// NamespaceTerminating: the namespace is being deleted; no new objects are accepted.
	NamespaceTerminating NamespacePhase = "Terminating"
)

// NamespaceNodeLease is the namespace of the node Leases, one per node,
// named after it, which kubelets renew as their heartbeat. Kubernetes:
// corev1.NamespaceNodeLease.
const NamespaceNodeLease = "kube-node-lease"
