package api

// PodDisruptionBudget limits how many of a set of pods voluntary disruptions (evictions,
// drains) may take down at once: at least MinAvailable stay, or at most MaxUnavailable go.
// The disruption controller keeps its status, and the eviction subresource refuses an
// eviction it does not allow. Kubernetes: policyv1.PodDisruptionBudget.
type PodDisruptionBudget struct {
	TypeMeta `json:",inline"`
	// Metadata is the budget's identity.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the budget.
	Spec PodDisruptionBudgetSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is what the disruption controller observed.
	Status PodDisruptionBudgetStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// GetObjectMeta returns the budget's metadata.
func (pdb *PodDisruptionBudget) GetObjectMeta() *ObjectMeta { return &pdb.Metadata }

// PodDisruptionBudgetList is a list of budgets. Kubernetes:
// policyv1.PodDisruptionBudgetList.
type PodDisruptionBudgetList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the budgets.
	Items []PodDisruptionBudget `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// PodDisruptionBudgetSpec is a budget: one of MinAvailable and MaxUnavailable, over the
// pods Selector matches. Kubernetes: policyv1.PodDisruptionBudgetSpec.
type PodDisruptionBudgetSpec struct {
	// MinAvailable is how many selected pods must stay available: a number or a percentage.
	MinAvailable *IntOrString `json:"minAvailable,omitempty" protobuf:"bytes,1,opt,name=minAvailable"`
	// Selector selects the pods; an empty one selects every pod of the namespace.
	Selector *LabelSelector `json:"selector,omitempty" patchStrategy:"replace" protobuf:"bytes,2,opt,name=selector"`
	// MaxUnavailable is how many selected pods may be unavailable: a number or a
	// percentage.
	MaxUnavailable *IntOrString `json:"maxUnavailable,omitempty" protobuf:"bytes,3,opt,name=maxUnavailable"`
	// UnhealthyPodEvictionPolicy is when running but not ready pods may be evicted:
	// IfHealthyBudget or AlwaysAllow.
	UnhealthyPodEvictionPolicy *string `json:"unhealthyPodEvictionPolicy,omitempty" protobuf:"bytes,4,opt,name=unhealthyPodEvictionPolicy"`
}

// PodDisruptionBudgetStatus is what the disruption controller observed. Kubernetes:
// policyv1.PodDisruptionBudgetStatus.
type PodDisruptionBudgetStatus struct {
	// ObservedGeneration is the metadata.generation the status reflects.
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,1,opt,name=observedGeneration"`
	// DisruptedPods are pods evicted but not yet gone, by name, with the eviction's time.
	DisruptedPods map[string]Time `json:"disruptedPods,omitempty" protobuf:"bytes,2,rep,name=disruptedPods" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	// DisruptionsAllowed is how many pods may be disrupted now.
	DisruptionsAllowed int32 `json:"disruptionsAllowed" protobuf:"varint,3,opt,name=disruptionsAllowed"`
	// CurrentHealthy is the number of healthy selected pods.
	CurrentHealthy int32 `json:"currentHealthy" protobuf:"varint,4,opt,name=currentHealthy"`
	// DesiredHealthy is the least number of healthy pods the budget allows.
	DesiredHealthy int32 `json:"desiredHealthy" protobuf:"varint,5,opt,name=desiredHealthy"`
	// ExpectedPods is the number of pods the budget counts.
	ExpectedPods int32 `json:"expectedPods" protobuf:"varint,6,opt,name=expectedPods"`
	// Conditions report whether disruptions are allowed (DisruptionAllowed).
	Conditions []Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,7,rep,name=conditions"`
}
