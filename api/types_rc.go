package api

// ReplicationController keeps a number of identical pods running: it creates pods from its
// template while fewer than spec.replicas match its selector, and deletes the surplus.
// Kubernetes: corev1.ReplicationController.
type ReplicationController struct {
	TypeMeta `json:",inline"`
	// Metadata is the controller's identity.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the desired state.
	Spec ReplicationControllerSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is the observed state, written by the replication controller.
	Status ReplicationControllerStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// GetObjectMeta returns the replication controller's metadata.
func (rc *ReplicationController) GetObjectMeta() *ObjectMeta { return &rc.Metadata }

// ReplicationControllerList is a list of replication controllers. Kubernetes:
// corev1.ReplicationControllerList.
type ReplicationControllerList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the replication controllers.
	Items []ReplicationController `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ReplicationControllerSpec is the desired state of a replication controller. Kubernetes:
// corev1.ReplicationControllerSpec.
type ReplicationControllerSpec struct {
	// Replicas is the desired number of pods; nil means 1 (the apiserver defaults it).
	Replicas *int32 `json:"replicas,omitempty" protobuf:"varint,1,opt,name=replicas"`
	// MinReadySeconds is how long a pod must be ready before it counts as available.
	MinReadySeconds int32 `json:"minReadySeconds,omitempty" protobuf:"varint,4,opt,name=minReadySeconds"`
	// Selector is an equality-based label query over pods; every pair must match. If
	// empty, the apiserver defaults it to the template's labels. Use [SelectorFromSet] to
	// match with it.
	Selector map[string]string `json:"selector,omitempty" protobuf:"bytes,2,rep,name=selector" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	// Template is the pod created when replicas are missing; its labels must match
	// Selector.
	Template *PodTemplateSpec `json:"template,omitempty" protobuf:"bytes,3,opt,name=template"`
}

// ReplicationControllerStatus is the observed state of a replication controller.
// Kubernetes: corev1.ReplicationControllerStatus.
type ReplicationControllerStatus struct {
	// Replicas is the number of pods the controller currently owns.
	Replicas int32 `json:"replicas" protobuf:"varint,1,opt,name=replicas"`
	// FullyLabeledReplicas counts pods whose labels match the template's labels.
	FullyLabeledReplicas int32 `json:"fullyLabeledReplicas,omitempty" protobuf:"varint,2,opt,name=fullyLabeledReplicas"`
	// ReadyReplicas counts owned pods with the Ready condition.
	ReadyReplicas int32 `json:"readyReplicas,omitempty" protobuf:"varint,4,opt,name=readyReplicas"`
	// AvailableReplicas counts owned pods ready for at least spec.minReadySeconds.
	AvailableReplicas int32 `json:"availableReplicas,omitempty" protobuf:"varint,5,opt,name=availableReplicas"`
	// ObservedGeneration is the metadata.generation this status reflects.
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,3,opt,name=observedGeneration"`
	// Conditions report problems, e.g. ReplicaFailure when pods cannot be created.
	Conditions []ReplicationControllerCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,6,rep,name=conditions"`
}

// ReplicationControllerConditionType names a fact about a replication controller.
// Kubernetes: corev1.ReplicationControllerConditionType.
type ReplicationControllerConditionType string

// ReplicationControllerReplicaFailure is set when the controller could not create or delete
// pods, e.g. because of a quota or a rejected template.
const ReplicationControllerReplicaFailure ReplicationControllerConditionType = "ReplicaFailure"

// ReplicationControllerCondition is one fact about a replication controller. Kubernetes:
// corev1.ReplicationControllerCondition.
type ReplicationControllerCondition struct {
	// Type names the fact.
	Type ReplicationControllerConditionType `json:"type" protobuf:"bytes,1,opt,name=type"`
	// Status is True, False or Unknown.
	Status ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status"`
	// LastTransitionTime is when Status last changed.
	LastTransitionTime Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	// Reason is a CamelCase reason for the last transition.
	Reason string `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	// Message is a human-readable account of the last transition.
	Message string `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}
