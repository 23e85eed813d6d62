package api

import (
	"maps"
	"slices"
)

// Deep copies of the kinds kube-scheduler lists and watches besides the core ones
// (PersistentVolume, PersistentVolumeClaim, the storage.k8s.io kinds, PodDisruptionBudget,
// ReplicaSet, StatefulSet), their lists and the types inside them. See deepcopy.go for the
// rules.

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *PersistentVolume) DeepCopyInto(out *PersistentVolume) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	in.Spec.DeepCopyInto(&out.Spec)
	in.Status.DeepCopyInto(&out.Status)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *PersistentVolume) DeepCopy() *PersistentVolume {
	if in == nil {
		return nil
	}
	out := new(PersistentVolume)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject returns in.DeepCopy() as an Object.
func (in *PersistentVolume) DeepCopyObject() Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *PersistentVolumeList) DeepCopyInto(out *PersistentVolumeList) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	out.Items = deepCopySlice(in.Items, (*PersistentVolume).DeepCopyInto)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *PersistentVolumeList) DeepCopy() *PersistentVolumeList {
	if in == nil {
		return nil
	}
	out := new(PersistentVolumeList)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *PersistentVolumeSpec) DeepCopyInto(out *PersistentVolumeSpec) {
	*out = *in
	out.Capacity = in.Capacity.DeepCopy()
	in.PersistentVolumeSource.DeepCopyInto(&out.PersistentVolumeSource)
	out.AccessModes = slices.Clone(in.AccessModes)
	out.ClaimRef = clonePtr(in.ClaimRef)
	out.MountOptions = slices.Clone(in.MountOptions)
	out.VolumeMode = clonePtr(in.VolumeMode)
	out.NodeAffinity = in.NodeAffinity.DeepCopy()
	out.VolumeAttributesClassName = clonePtr(in.VolumeAttributesClassName)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *PersistentVolumeSpec) DeepCopy() *PersistentVolumeSpec {
	if in == nil {
		return nil
	}
	out := new(PersistentVolumeSpec)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *PersistentVolumeSource) DeepCopyInto(out *PersistentVolumeSource) {
	*out = *in
	out.HostPath = in.HostPath.DeepCopy()
	out.NFS = clonePtr(in.NFS)
	out.Local = in.Local.DeepCopy()
	out.CSI = in.CSI.DeepCopy()
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *PersistentVolumeSource) DeepCopy() *PersistentVolumeSource {
	if in == nil {
		return nil
	}
	out := new(PersistentVolumeSource)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *HostPathVolumeSource) DeepCopyInto(out *HostPathVolumeSource) {
	*out = *in
	out.Type = clonePtr(in.Type)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *HostPathVolumeSource) DeepCopy() *HostPathVolumeSource {
	if in == nil {
		return nil
	}
	out := new(HostPathVolumeSource)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *LocalVolumeSource) DeepCopyInto(out *LocalVolumeSource) {
	*out = *in
	out.FSType = clonePtr(in.FSType)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *LocalVolumeSource) DeepCopy() *LocalVolumeSource {
	if in == nil {
		return nil
	}
	out := new(LocalVolumeSource)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *CSIPersistentVolumeSource) DeepCopyInto(out *CSIPersistentVolumeSource) {
	*out = *in
	out.VolumeAttributes = maps.Clone(in.VolumeAttributes)
	out.ControllerPublishSecretRef = clonePtr(in.ControllerPublishSecretRef)
	out.NodeStageSecretRef = clonePtr(in.NodeStageSecretRef)
	out.NodePublishSecretRef = clonePtr(in.NodePublishSecretRef)
	out.ControllerExpandSecretRef = clonePtr(in.ControllerExpandSecretRef)
	out.NodeExpandSecretRef = clonePtr(in.NodeExpandSecretRef)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *CSIPersistentVolumeSource) DeepCopy() *CSIPersistentVolumeSource {
	if in == nil {
		return nil
	}
	out := new(CSIPersistentVolumeSource)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *VolumeNodeAffinity) DeepCopyInto(out *VolumeNodeAffinity) {
	*out = *in
	out.Required = in.Required.DeepCopy()
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *VolumeNodeAffinity) DeepCopy() *VolumeNodeAffinity {
	if in == nil {
		return nil
	}
	out := new(VolumeNodeAffinity)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *NodeSelector) DeepCopyInto(out *NodeSelector) {
	*out = *in
	out.NodeSelectorTerms = deepCopySlice(in.NodeSelectorTerms, (*NodeSelectorTerm).DeepCopyInto)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *NodeSelector) DeepCopy() *NodeSelector {
	if in == nil {
		return nil
	}
	out := new(NodeSelector)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *NodeSelectorTerm) DeepCopyInto(out *NodeSelectorTerm) {
	*out = *in
	out.MatchExpressions = deepCopySlice(in.MatchExpressions, (*NodeSelectorRequirement).DeepCopyInto)
	out.MatchFields = deepCopySlice(in.MatchFields, (*NodeSelectorRequirement).DeepCopyInto)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *NodeSelectorTerm) DeepCopy() *NodeSelectorTerm {
	if in == nil {
		return nil
	}
	out := new(NodeSelectorTerm)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *NodeSelectorRequirement) DeepCopyInto(out *NodeSelectorRequirement) {
	*out = *in
	out.Values = slices.Clone(in.Values)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *NodeSelectorRequirement) DeepCopy() *NodeSelectorRequirement {
	if in == nil {
		return nil
	}
	out := new(NodeSelectorRequirement)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *PersistentVolumeStatus) DeepCopyInto(out *PersistentVolumeStatus) {
	*out = *in
	out.LastPhaseTransitionTime = clonePtr(in.LastPhaseTransitionTime)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *PersistentVolumeStatus) DeepCopy() *PersistentVolumeStatus {
	if in == nil {
		return nil
	}
	out := new(PersistentVolumeStatus)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *PersistentVolumeClaim) DeepCopyInto(out *PersistentVolumeClaim) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	in.Spec.DeepCopyInto(&out.Spec)
	in.Status.DeepCopyInto(&out.Status)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *PersistentVolumeClaim) DeepCopy() *PersistentVolumeClaim {
	if in == nil {
		return nil
	}
	out := new(PersistentVolumeClaim)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject returns in.DeepCopy() as an Object.
func (in *PersistentVolumeClaim) DeepCopyObject() Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *PersistentVolumeClaimList) DeepCopyInto(out *PersistentVolumeClaimList) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	out.Items = deepCopySlice(in.Items, (*PersistentVolumeClaim).DeepCopyInto)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *PersistentVolumeClaimList) DeepCopy() *PersistentVolumeClaimList {
	if in == nil {
		return nil
	}
	out := new(PersistentVolumeClaimList)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *PersistentVolumeClaimSpec) DeepCopyInto(out *PersistentVolumeClaimSpec) {
	*out = *in
	out.AccessModes = slices.Clone(in.AccessModes)
	out.Selector = in.Selector.DeepCopy()
	in.Resources.DeepCopyInto(&out.Resources)
	out.StorageClassName = clonePtr(in.StorageClassName)
	out.VolumeMode = clonePtr(in.VolumeMode)
	out.DataSource = in.DataSource.DeepCopy()
	out.DataSourceRef = in.DataSourceRef.DeepCopy()
	out.VolumeAttributesClassName = clonePtr(in.VolumeAttributesClassName)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *PersistentVolumeClaimSpec) DeepCopy() *PersistentVolumeClaimSpec {
	if in == nil {
		return nil
	}
	out := new(PersistentVolumeClaimSpec)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *VolumeResourceRequirements) DeepCopyInto(out *VolumeResourceRequirements) {
	*out = *in
	out.Limits = in.Limits.DeepCopy()
	out.Requests = in.Requests.DeepCopy()
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *VolumeResourceRequirements) DeepCopy() *VolumeResourceRequirements {
	if in == nil {
		return nil
	}
	out := new(VolumeResourceRequirements)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *TypedLocalObjectReference) DeepCopyInto(out *TypedLocalObjectReference) {
	*out = *in
	out.APIGroup = clonePtr(in.APIGroup)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *TypedLocalObjectReference) DeepCopy() *TypedLocalObjectReference {
	if in == nil {
		return nil
	}
	out := new(TypedLocalObjectReference)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *TypedObjectReference) DeepCopyInto(out *TypedObjectReference) {
	*out = *in
	out.APIGroup = clonePtr(in.APIGroup)
	out.Namespace = clonePtr(in.Namespace)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *TypedObjectReference) DeepCopy() *TypedObjectReference {
	if in == nil {
		return nil
	}
	out := new(TypedObjectReference)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *PersistentVolumeClaimStatus) DeepCopyInto(out *PersistentVolumeClaimStatus) {
	*out = *in
	out.AccessModes = slices.Clone(in.AccessModes)
	out.Capacity = in.Capacity.DeepCopy()
	out.Conditions = slices.Clone(in.Conditions)
	out.AllocatedResources = in.AllocatedResources.DeepCopy()
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *PersistentVolumeClaimStatus) DeepCopy() *PersistentVolumeClaimStatus {
	if in == nil {
		return nil
	}
	out := new(PersistentVolumeClaimStatus)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *TopologySelectorTerm) DeepCopyInto(out *TopologySelectorTerm) {
	*out = *in
	out.MatchLabelExpressions = deepCopySlice(in.MatchLabelExpressions, (*TopologySelectorLabelRequirement).DeepCopyInto)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *TopologySelectorTerm) DeepCopy() *TopologySelectorTerm {
	if in == nil {
		return nil
	}
	out := new(TopologySelectorTerm)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *TopologySelectorLabelRequirement) DeepCopyInto(out *TopologySelectorLabelRequirement) {
	*out = *in
	out.Values = slices.Clone(in.Values)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *TopologySelectorLabelRequirement) DeepCopy() *TopologySelectorLabelRequirement {
	if in == nil {
		return nil
	}
	out := new(TopologySelectorLabelRequirement)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *LabelSelector) DeepCopyInto(out *LabelSelector) {
	*out = *in
	out.MatchLabels = maps.Clone(in.MatchLabels)
	out.MatchExpressions = deepCopySlice(in.MatchExpressions, (*LabelSelectorRequirement).DeepCopyInto)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *LabelSelector) DeepCopy() *LabelSelector {
	if in == nil {
		return nil
	}
	out := new(LabelSelector)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *LabelSelectorRequirement) DeepCopyInto(out *LabelSelectorRequirement) {
	*out = *in
	out.Values = slices.Clone(in.Values)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *LabelSelectorRequirement) DeepCopy() *LabelSelectorRequirement {
	if in == nil {
		return nil
	}
	out := new(LabelSelectorRequirement)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *StorageClass) DeepCopyInto(out *StorageClass) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	out.Parameters = maps.Clone(in.Parameters)
	out.ReclaimPolicy = clonePtr(in.ReclaimPolicy)
	out.MountOptions = slices.Clone(in.MountOptions)
	out.AllowVolumeExpansion = clonePtr(in.AllowVolumeExpansion)
	out.VolumeBindingMode = clonePtr(in.VolumeBindingMode)
	out.AllowedTopologies = deepCopySlice(in.AllowedTopologies, (*TopologySelectorTerm).DeepCopyInto)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *StorageClass) DeepCopy() *StorageClass {
	if in == nil {
		return nil
	}
	out := new(StorageClass)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject returns in.DeepCopy() as an Object.
func (in *StorageClass) DeepCopyObject() Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *StorageClassList) DeepCopyInto(out *StorageClassList) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	out.Items = deepCopySlice(in.Items, (*StorageClass).DeepCopyInto)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *StorageClassList) DeepCopy() *StorageClassList {
	if in == nil {
		return nil
	}
	out := new(StorageClassList)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *CSINode) DeepCopyInto(out *CSINode) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	in.Spec.DeepCopyInto(&out.Spec)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *CSINode) DeepCopy() *CSINode {
	if in == nil {
		return nil
	}
	out := new(CSINode)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject returns in.DeepCopy() as an Object.
func (in *CSINode) DeepCopyObject() Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *CSINodeList) DeepCopyInto(out *CSINodeList) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	out.Items = deepCopySlice(in.Items, (*CSINode).DeepCopyInto)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *CSINodeList) DeepCopy() *CSINodeList {
	if in == nil {
		return nil
	}
	out := new(CSINodeList)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *CSINodeSpec) DeepCopyInto(out *CSINodeSpec) {
	*out = *in
	out.Drivers = deepCopySlice(in.Drivers, (*CSINodeDriver).DeepCopyInto)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *CSINodeSpec) DeepCopy() *CSINodeSpec {
	if in == nil {
		return nil
	}
	out := new(CSINodeSpec)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *CSINodeDriver) DeepCopyInto(out *CSINodeDriver) {
	*out = *in
	out.TopologyKeys = slices.Clone(in.TopologyKeys)
	out.Allocatable = in.Allocatable.DeepCopy()
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *CSINodeDriver) DeepCopy() *CSINodeDriver {
	if in == nil {
		return nil
	}
	out := new(CSINodeDriver)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *VolumeNodeResources) DeepCopyInto(out *VolumeNodeResources) {
	*out = *in
	out.Count = clonePtr(in.Count)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *VolumeNodeResources) DeepCopy() *VolumeNodeResources {
	if in == nil {
		return nil
	}
	out := new(VolumeNodeResources)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *CSIDriver) DeepCopyInto(out *CSIDriver) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	in.Spec.DeepCopyInto(&out.Spec)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *CSIDriver) DeepCopy() *CSIDriver {
	if in == nil {
		return nil
	}
	out := new(CSIDriver)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject returns in.DeepCopy() as an Object.
func (in *CSIDriver) DeepCopyObject() Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *CSIDriverList) DeepCopyInto(out *CSIDriverList) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	out.Items = deepCopySlice(in.Items, (*CSIDriver).DeepCopyInto)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *CSIDriverList) DeepCopy() *CSIDriverList {
	if in == nil {
		return nil
	}
	out := new(CSIDriverList)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *CSIDriverSpec) DeepCopyInto(out *CSIDriverSpec) {
	*out = *in
	out.AttachRequired = clonePtr(in.AttachRequired)
	out.PodInfoOnMount = clonePtr(in.PodInfoOnMount)
	out.VolumeLifecycleModes = slices.Clone(in.VolumeLifecycleModes)
	out.StorageCapacity = clonePtr(in.StorageCapacity)
	out.FSGroupPolicy = clonePtr(in.FSGroupPolicy)
	out.RequiresRepublish = clonePtr(in.RequiresRepublish)
	out.SELinuxMount = clonePtr(in.SELinuxMount)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *CSIDriverSpec) DeepCopy() *CSIDriverSpec {
	if in == nil {
		return nil
	}
	out := new(CSIDriverSpec)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *CSIStorageCapacity) DeepCopyInto(out *CSIStorageCapacity) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	out.NodeTopology = in.NodeTopology.DeepCopy()
	out.Capacity = clonePtr(in.Capacity)
	out.MaximumVolumeSize = clonePtr(in.MaximumVolumeSize)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *CSIStorageCapacity) DeepCopy() *CSIStorageCapacity {
	if in == nil {
		return nil
	}
	out := new(CSIStorageCapacity)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject returns in.DeepCopy() as an Object.
func (in *CSIStorageCapacity) DeepCopyObject() Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *CSIStorageCapacityList) DeepCopyInto(out *CSIStorageCapacityList) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	out.Items = deepCopySlice(in.Items, (*CSIStorageCapacity).DeepCopyInto)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *CSIStorageCapacityList) DeepCopy() *CSIStorageCapacityList {
	if in == nil {
		return nil
	}
	out := new(CSIStorageCapacityList)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *VolumeAttachment) DeepCopyInto(out *VolumeAttachment) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	in.Spec.DeepCopyInto(&out.Spec)
	in.Status.DeepCopyInto(&out.Status)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *VolumeAttachment) DeepCopy() *VolumeAttachment {
	if in == nil {
		return nil
	}
	out := new(VolumeAttachment)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject returns in.DeepCopy() as an Object.
func (in *VolumeAttachment) DeepCopyObject() Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *VolumeAttachmentList) DeepCopyInto(out *VolumeAttachmentList) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	out.Items = deepCopySlice(in.Items, (*VolumeAttachment).DeepCopyInto)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *VolumeAttachmentList) DeepCopy() *VolumeAttachmentList {
	if in == nil {
		return nil
	}
	out := new(VolumeAttachmentList)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *VolumeAttachmentSpec) DeepCopyInto(out *VolumeAttachmentSpec) {
	*out = *in
	in.Source.DeepCopyInto(&out.Source)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *VolumeAttachmentSpec) DeepCopy() *VolumeAttachmentSpec {
	if in == nil {
		return nil
	}
	out := new(VolumeAttachmentSpec)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *VolumeAttachmentSource) DeepCopyInto(out *VolumeAttachmentSource) {
	*out = *in
	out.PersistentVolumeName = clonePtr(in.PersistentVolumeName)
	out.InlineVolumeSpec = in.InlineVolumeSpec.DeepCopy()
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *VolumeAttachmentSource) DeepCopy() *VolumeAttachmentSource {
	if in == nil {
		return nil
	}
	out := new(VolumeAttachmentSource)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *VolumeAttachmentStatus) DeepCopyInto(out *VolumeAttachmentStatus) {
	*out = *in
	out.AttachmentMetadata = maps.Clone(in.AttachmentMetadata)
	out.AttachError = in.AttachError.DeepCopy()
	out.DetachError = in.DetachError.DeepCopy()
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *VolumeAttachmentStatus) DeepCopy() *VolumeAttachmentStatus {
	if in == nil {
		return nil
	}
	out := new(VolumeAttachmentStatus)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *VolumeError) DeepCopyInto(out *VolumeError) {
	*out = *in
	out.ErrorCode = clonePtr(in.ErrorCode)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *VolumeError) DeepCopy() *VolumeError {
	if in == nil {
		return nil
	}
	out := new(VolumeError)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *PodDisruptionBudget) DeepCopyInto(out *PodDisruptionBudget) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	in.Spec.DeepCopyInto(&out.Spec)
	in.Status.DeepCopyInto(&out.Status)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *PodDisruptionBudget) DeepCopy() *PodDisruptionBudget {
	if in == nil {
		return nil
	}
	out := new(PodDisruptionBudget)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject returns in.DeepCopy() as an Object.
func (in *PodDisruptionBudget) DeepCopyObject() Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *PodDisruptionBudgetList) DeepCopyInto(out *PodDisruptionBudgetList) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	out.Items = deepCopySlice(in.Items, (*PodDisruptionBudget).DeepCopyInto)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *PodDisruptionBudgetList) DeepCopy() *PodDisruptionBudgetList {
	if in == nil {
		return nil
	}
	out := new(PodDisruptionBudgetList)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *PodDisruptionBudgetSpec) DeepCopyInto(out *PodDisruptionBudgetSpec) {
	*out = *in
	out.MinAvailable = clonePtr(in.MinAvailable)
	out.Selector = in.Selector.DeepCopy()
	out.MaxUnavailable = clonePtr(in.MaxUnavailable)
	out.UnhealthyPodEvictionPolicy = clonePtr(in.UnhealthyPodEvictionPolicy)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *PodDisruptionBudgetSpec) DeepCopy() *PodDisruptionBudgetSpec {
	if in == nil {
		return nil
	}
	out := new(PodDisruptionBudgetSpec)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *PodDisruptionBudgetStatus) DeepCopyInto(out *PodDisruptionBudgetStatus) {
	*out = *in
	out.DisruptedPods = maps.Clone(in.DisruptedPods)
	out.Conditions = slices.Clone(in.Conditions)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *PodDisruptionBudgetStatus) DeepCopy() *PodDisruptionBudgetStatus {
	if in == nil {
		return nil
	}
	out := new(PodDisruptionBudgetStatus)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *ReplicaSet) DeepCopyInto(out *ReplicaSet) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	in.Spec.DeepCopyInto(&out.Spec)
	in.Status.DeepCopyInto(&out.Status)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *ReplicaSet) DeepCopy() *ReplicaSet {
	if in == nil {
		return nil
	}
	out := new(ReplicaSet)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject returns in.DeepCopy() as an Object.
func (in *ReplicaSet) DeepCopyObject() Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *ReplicaSetList) DeepCopyInto(out *ReplicaSetList) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	out.Items = deepCopySlice(in.Items, (*ReplicaSet).DeepCopyInto)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *ReplicaSetList) DeepCopy() *ReplicaSetList {
	if in == nil {
		return nil
	}
	out := new(ReplicaSetList)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *ReplicaSetSpec) DeepCopyInto(out *ReplicaSetSpec) {
	*out = *in
	out.Replicas = clonePtr(in.Replicas)
	out.Selector = in.Selector.DeepCopy()
	in.Template.DeepCopyInto(&out.Template)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *ReplicaSetSpec) DeepCopy() *ReplicaSetSpec {
	if in == nil {
		return nil
	}
	out := new(ReplicaSetSpec)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *ReplicaSetStatus) DeepCopyInto(out *ReplicaSetStatus) {
	*out = *in
	out.Conditions = slices.Clone(in.Conditions)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *ReplicaSetStatus) DeepCopy() *ReplicaSetStatus {
	if in == nil {
		return nil
	}
	out := new(ReplicaSetStatus)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *StatefulSet) DeepCopyInto(out *StatefulSet) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	in.Spec.DeepCopyInto(&out.Spec)
	in.Status.DeepCopyInto(&out.Status)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *StatefulSet) DeepCopy() *StatefulSet {
	if in == nil {
		return nil
	}
	out := new(StatefulSet)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject returns in.DeepCopy() as an Object.
func (in *StatefulSet) DeepCopyObject() Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *StatefulSetList) DeepCopyInto(out *StatefulSetList) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	out.Items = deepCopySlice(in.Items, (*StatefulSet).DeepCopyInto)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *StatefulSetList) DeepCopy() *StatefulSetList {
	if in == nil {
		return nil
	}
	out := new(StatefulSetList)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *StatefulSetSpec) DeepCopyInto(out *StatefulSetSpec) {
	*out = *in
	out.Replicas = clonePtr(in.Replicas)
	out.Selector = in.Selector.DeepCopy()
	in.Template.DeepCopyInto(&out.Template)
	out.VolumeClaimTemplates = deepCopySlice(in.VolumeClaimTemplates, (*PersistentVolumeClaim).DeepCopyInto)
	in.UpdateStrategy.DeepCopyInto(&out.UpdateStrategy)
	out.RevisionHistoryLimit = clonePtr(in.RevisionHistoryLimit)
	out.PersistentVolumeClaimRetentionPolicy = clonePtr(in.PersistentVolumeClaimRetentionPolicy)
	out.Ordinals = clonePtr(in.Ordinals)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *StatefulSetSpec) DeepCopy() *StatefulSetSpec {
	if in == nil {
		return nil
	}
	out := new(StatefulSetSpec)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *StatefulSetUpdateStrategy) DeepCopyInto(out *StatefulSetUpdateStrategy) {
	*out = *in
	out.RollingUpdate = in.RollingUpdate.DeepCopy()
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *StatefulSetUpdateStrategy) DeepCopy() *StatefulSetUpdateStrategy {
	if in == nil {
		return nil
	}
	out := new(StatefulSetUpdateStrategy)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *RollingUpdateStatefulSetStrategy) DeepCopyInto(out *RollingUpdateStatefulSetStrategy) {
	*out = *in
	out.Partition = clonePtr(in.Partition)
	out.MaxUnavailable = clonePtr(in.MaxUnavailable)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *RollingUpdateStatefulSetStrategy) DeepCopy() *RollingUpdateStatefulSetStrategy {
	if in == nil {
		return nil
	}
	out := new(RollingUpdateStatefulSetStrategy)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *StatefulSetStatus) DeepCopyInto(out *StatefulSetStatus) {
	*out = *in
	out.CollisionCount = clonePtr(in.CollisionCount)
	out.Conditions = slices.Clone(in.Conditions)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *StatefulSetStatus) DeepCopy() *StatefulSetStatus {
	if in == nil {
		return nil
	}
	out := new(StatefulSetStatus)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *Deployment) DeepCopyInto(out *Deployment) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	in.Spec.DeepCopyInto(&out.Spec)
	in.Status.DeepCopyInto(&out.Status)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *Deployment) DeepCopy() *Deployment {
	if in == nil {
		return nil
	}
	out := new(Deployment)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject returns in.DeepCopy() as an Object.
func (in *Deployment) DeepCopyObject() Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *DeploymentList) DeepCopyInto(out *DeploymentList) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	out.Items = deepCopySlice(in.Items, (*Deployment).DeepCopyInto)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *DeploymentList) DeepCopy() *DeploymentList {
	if in == nil {
		return nil
	}
	out := new(DeploymentList)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *DeploymentSpec) DeepCopyInto(out *DeploymentSpec) {
	*out = *in
	out.Replicas = clonePtr(in.Replicas)
	out.Selector = in.Selector.DeepCopy()
	in.Template.DeepCopyInto(&out.Template)
	in.Strategy.DeepCopyInto(&out.Strategy)
	out.RevisionHistoryLimit = clonePtr(in.RevisionHistoryLimit)
	out.ProgressDeadlineSeconds = clonePtr(in.ProgressDeadlineSeconds)
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *DeploymentStrategy) DeepCopyInto(out *DeploymentStrategy) {
	*out = *in
	out.RollingUpdate = in.RollingUpdate.DeepCopy()
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *RollingUpdateDeployment) DeepCopyInto(out *RollingUpdateDeployment) {
	*out = *in
	out.MaxUnavailable = clonePtr(in.MaxUnavailable)
	out.MaxSurge = clonePtr(in.MaxSurge)
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *DeploymentStatus) DeepCopyInto(out *DeploymentStatus) {
	*out = *in
	out.Conditions = slices.Clone(in.Conditions)
	out.CollisionCount = clonePtr(in.CollisionCount)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *DeploymentSpec) DeepCopy() *DeploymentSpec {
	if in == nil {
		return nil
	}
	out := new(DeploymentSpec)
	in.DeepCopyInto(out)
	return out
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *DeploymentStrategy) DeepCopy() *DeploymentStrategy {
	if in == nil {
		return nil
	}
	out := new(DeploymentStrategy)
	in.DeepCopyInto(out)
	return out
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *RollingUpdateDeployment) DeepCopy() *RollingUpdateDeployment {
	if in == nil {
		return nil
	}
	out := new(RollingUpdateDeployment)
	in.DeepCopyInto(out)
	return out
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *DeploymentStatus) DeepCopy() *DeploymentStatus {
	if in == nil {
		return nil
	}
	out := new(DeploymentStatus)
	in.DeepCopyInto(out)
	return out
}
