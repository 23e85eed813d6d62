package api

// ResourceQuota caps what the objects of one namespace may hold together: in Spec.Hard,
// object counts ("pods", "count/replicasets.apps") and compute resources of pods
// ("requests.cpu", "limits.memory"); Status.Used is what they hold now. The API server
// refuses a write that would take Used past Hard, and the resourcequota controller
// recomputes Used. Kubernetes: corev1.ResourceQuota.
type ResourceQuota struct {
	TypeMeta `json:",inline"`
	// Metadata is the quota's identity.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the set of limits and the scopes they apply to.
	Spec ResourceQuotaSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is the enforced limits and what the namespace uses of them.
	Status ResourceQuotaStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// GetObjectMeta returns the quota's metadata.
func (q *ResourceQuota) GetObjectMeta() *ObjectMeta { return &q.Metadata }

// ResourceQuotaSpec is what a quota limits. Kubernetes: corev1.ResourceQuotaSpec.
type ResourceQuotaSpec struct {
	// Hard is the most the namespace may use, by resource name.
	Hard ResourceList `json:"hard,omitempty" protobuf:"bytes,1,rep,name=hard" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	// Scopes narrows the objects counted: all of them must match an object
	// (Terminating, NotTerminating, BestEffort, NotBestEffort, PriorityClass,
	// CrossNamespacePodAffinity, VolumeAttributesClass).
	Scopes []string `json:"scopes,omitempty" protobuf:"bytes,2,rep,name=scopes"`
	// ScopeSelector narrows the objects counted by expressions over scopes.
	ScopeSelector *ScopeSelector `json:"scopeSelector,omitempty" protobuf:"bytes,3,opt,name=scopeSelector"`
}

// ScopeSelector is a list of scope expressions, all of which must match.
// Kubernetes: corev1.ScopeSelector.
type ScopeSelector struct {
	// MatchExpressions are ANDed.
	MatchExpressions []ScopedResourceSelectorRequirement `json:"matchExpressions,omitempty" protobuf:"bytes,1,rep,name=matchExpressions"`
}

// ScopedResourceSelectorRequirement relates a scope to values.
// Kubernetes: corev1.ScopedResourceSelectorRequirement.
type ScopedResourceSelectorRequirement struct {
	// ScopeName is the scope the requirement applies to.
	ScopeName string `json:"scopeName" protobuf:"bytes,1,opt,name=scopeName"`
	// Operator is In, NotIn, Exists or DoesNotExist.
	Operator string `json:"operator" protobuf:"bytes,2,opt,name=operator"`
	// Values must be non-empty for In and NotIn and empty otherwise.
	Values []string `json:"values,omitempty" protobuf:"bytes,3,rep,name=values"`
}

// ResourceQuotaStatus is what a quota enforces and what is used of it.
// Kubernetes: corev1.ResourceQuotaStatus.
type ResourceQuotaStatus struct {
	// Hard is the enforced limits: the spec's, once the controller has seen them.
	Hard ResourceList `json:"hard,omitempty" protobuf:"bytes,1,rep,name=hard" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	// Used is what the namespace's objects in scope use, by resource name.
	Used ResourceList `json:"used,omitempty" protobuf:"bytes,2,rep,name=used" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
}

// ResourceQuotaList is a list of quotas. Kubernetes: corev1.ResourceQuotaList.
type ResourceQuotaList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the quotas.
	Items []ResourceQuota `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// The quota scopes Kubernetes defines. Kubernetes: corev1.ResourceQuotaScope.
const (
	// ScopeTerminating matches pods with spec.activeDeadlineSeconds set.
	ScopeTerminating = "Terminating"
	// ScopeNotTerminating matches pods without spec.activeDeadlineSeconds.
	ScopeNotTerminating = "NotTerminating"
	// ScopeBestEffort matches pods with no requests or limits at all.
	ScopeBestEffort = "BestEffort"
	// ScopeNotBestEffort matches pods with some request or limit.
	ScopeNotBestEffort = "NotBestEffort"
	// ScopePriorityClass matches pods by spec.priorityClassName (scopeSelector only).
	ScopePriorityClass = "PriorityClass"
	// ScopeCrossNamespacePodAffinity matches pods with cross-namespace affinity terms.
	ScopeCrossNamespacePodAffinity = "CrossNamespacePodAffinity"
	// ScopeVolumeAttributesClass matches claims by volume attributes class.
	ScopeVolumeAttributesClass = "VolumeAttributesClass"
)
