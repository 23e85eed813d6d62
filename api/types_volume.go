package api

// PersistentVolume is a piece of storage in the cluster, provisioned by an administrator or
// dynamically through a StorageClass, that a PersistentVolumeClaim binds to. It is
// cluster-scoped. The persistentvolume-binder binds it to claims, and its simulated
// provisioner makes volumes for claims of its class; nothing mounts them. Kubernetes:
// corev1.PersistentVolume.
type PersistentVolume struct {
	TypeMeta `json:",inline"`
	// Metadata is the volume's identity.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the volume as its owner described it.
	Spec PersistentVolumeSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is the volume's phase, written by the persistent-volume controller.
	Status PersistentVolumeStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// GetObjectMeta returns the volume's metadata.
func (pv *PersistentVolume) GetObjectMeta() *ObjectMeta { return &pv.Metadata }

// PersistentVolumeList is a list of persistent volumes. Kubernetes:
// corev1.PersistentVolumeList.
type PersistentVolumeList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the persistent volumes.
	Items []PersistentVolume `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// PersistentVolumeAccessMode is how a volume may be mounted. Kubernetes:
// corev1.PersistentVolumeAccessMode.
type PersistentVolumeAccessMode string

// The access modes Kubernetes defines.
const (
	// ReadWriteOnce: mounted read-write by one node.
	ReadWriteOnce PersistentVolumeAccessMode = "ReadWriteOnce"
	// ReadOnlyMany: mounted read-only by many nodes.
	ReadOnlyMany PersistentVolumeAccessMode = "ReadOnlyMany"
	// ReadWriteMany: mounted read-write by many nodes.
	ReadWriteMany PersistentVolumeAccessMode = "ReadWriteMany"
	// ReadWriteOncePod: mounted read-write by one pod.
	ReadWriteOncePod PersistentVolumeAccessMode = "ReadWriteOncePod"
)

// PersistentVolumeReclaimPolicy is what happens to a volume released by its claim.
// Kubernetes: corev1.PersistentVolumeReclaimPolicy.
type PersistentVolumeReclaimPolicy string

// The reclaim policies Kubernetes defines.
const (
	// PersistentVolumeReclaimRecycle scrubs the volume for a new claim (deprecated).
	PersistentVolumeReclaimRecycle PersistentVolumeReclaimPolicy = "Recycle"
	// PersistentVolumeReclaimDelete deletes the volume and its storage.
	PersistentVolumeReclaimDelete PersistentVolumeReclaimPolicy = "Delete"
	// PersistentVolumeReclaimRetain keeps the volume for an administrator; the default of a
	// volume created by hand.
	PersistentVolumeReclaimRetain PersistentVolumeReclaimPolicy = "Retain"
)

// PersistentVolumeMode says whether a volume is a filesystem or a raw block device.
// Kubernetes: corev1.PersistentVolumeMode.
type PersistentVolumeMode string

// The volume modes Kubernetes defines.
const (
	// PersistentVolumeBlock is a raw block device.
	PersistentVolumeBlock PersistentVolumeMode = "Block"
	// PersistentVolumeFilesystem is a formatted filesystem; the default.
	PersistentVolumeFilesystem PersistentVolumeMode = "Filesystem"
)

// PersistentVolumeSpec describes a persistent volume. Kubernetes:
// corev1.PersistentVolumeSpec.
type PersistentVolumeSpec struct {
	// Capacity is the volume's size, under "storage".
	Capacity ResourceList `json:"capacity,omitempty" protobuf:"bytes,1,rep,name=capacity" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	// PersistentVolumeSource is where the storage is: exactly one of its fields is set.
	PersistentVolumeSource `json:",inline" protobuf:"bytes,2,opt,name=persistentVolumeSource"`
	// AccessModes are the ways the volume can be mounted.
	AccessModes []PersistentVolumeAccessMode `json:"accessModes,omitempty" protobuf:"bytes,3,rep,name=accessModes"`
	// ClaimRef is the claim bound to the volume, set by the binder or pre-bound by hand.
	ClaimRef *ObjectReference `json:"claimRef,omitempty" protobuf:"bytes,4,opt,name=claimRef"`
	// PersistentVolumeReclaimPolicy is what happens when the claim is released: Retain
	// (the default), Delete or Recycle.
	PersistentVolumeReclaimPolicy PersistentVolumeReclaimPolicy `json:"persistentVolumeReclaimPolicy,omitempty" protobuf:"bytes,5,opt,name=persistentVolumeReclaimPolicy"`
	// StorageClassName is the StorageClass the volume belongs to; empty means none.
	StorageClassName string `json:"storageClassName,omitempty" protobuf:"bytes,6,opt,name=storageClassName"`
	// MountOptions are passed to mount as they are, unchecked.
	MountOptions []string `json:"mountOptions,omitempty" protobuf:"bytes,7,rep,name=mountOptions"`
	// VolumeMode is Filesystem (the default) or Block.
	VolumeMode *PersistentVolumeMode `json:"volumeMode,omitempty" protobuf:"bytes,8,opt,name=volumeMode"`
	// NodeAffinity limits the nodes the volume can be reached from; the scheduler places
	// a pod using the volume on one of them.
	NodeAffinity *VolumeNodeAffinity `json:"nodeAffinity,omitempty" protobuf:"bytes,9,opt,name=nodeAffinity"`
	// VolumeAttributesClassName names the VolumeAttributesClass of the volume.
	VolumeAttributesClassName *string `json:"volumeAttributesClassName,omitempty" protobuf:"bytes,10,opt,name=volumeAttributesClassName"`
}

// PersistentVolumeSource is where a persistent volume's storage is: exactly one field is
// set. miniplane keeps the sources a learner and kube-scheduler's tests use (hostPath, nfs,
// local, csi); a JSON body with another source loses it on decoding, as kube-apiserver drops
// fields its types do not have, and then fails validation for having none. Kubernetes:
// corev1.PersistentVolumeSource.
type PersistentVolumeSource struct {
	// HostPath is a directory on the node (single-node testing only).
	HostPath *HostPathVolumeSource `json:"hostPath,omitempty" protobuf:"bytes,3,opt,name=hostPath"`
	// NFS is an NFS export.
	NFS *NFSVolumeSource `json:"nfs,omitempty" protobuf:"bytes,5,opt,name=nfs"`
	// Local is a disk, partition or directory of one node; it needs NodeAffinity.
	Local *LocalVolumeSource `json:"local,omitempty" protobuf:"bytes,20,opt,name=local"`
	// CSI is a volume of an external CSI driver.
	CSI *CSIPersistentVolumeSource `json:"csi,omitempty" protobuf:"bytes,22,opt,name=csi"`
}

// HostPathVolumeSource is a directory on the host. Kubernetes: corev1.HostPathVolumeSource.
type HostPathVolumeSource struct {
	// Path is the directory's path on the host.
	Path string `json:"path" protobuf:"bytes,1,opt,name=path"`
	// Type is what must be at Path ("", "DirectoryOrCreate", "Directory", "File", ...).
	Type *string `json:"type,omitempty" protobuf:"bytes,2,opt,name=type"`
}

// NFSVolumeSource is an NFS export. Kubernetes: corev1.NFSVolumeSource.
type NFSVolumeSource struct {
	// Server is the NFS server's host name or IP address.
	Server string `json:"server" protobuf:"bytes,1,opt,name=server"`
	// Path is the exported path.
	Path string `json:"path" protobuf:"bytes,2,opt,name=path"`
	// ReadOnly mounts the export read-only.
	ReadOnly bool `json:"readOnly,omitempty" protobuf:"varint,3,opt,name=readOnly"`
}

// LocalVolumeSource is local storage of one node. Kubernetes: corev1.LocalVolumeSource.
type LocalVolumeSource struct {
	// Path is the full path of the disk, partition or directory on the node.
	Path string `json:"path" protobuf:"bytes,1,opt,name=path"`
	// FSType is the filesystem of a block device.
	FSType *string `json:"fsType,omitempty" protobuf:"bytes,2,opt,name=fsType"`
}

// CSIPersistentVolumeSource is a volume of an external CSI driver. Kubernetes:
// corev1.CSIPersistentVolumeSource.
type CSIPersistentVolumeSource struct {
	// Driver is the CSI driver's name.
	Driver string `json:"driver" protobuf:"bytes,1,opt,name=driver"`
	// VolumeHandle is the driver's identifier of the volume.
	VolumeHandle string `json:"volumeHandle" protobuf:"bytes,2,opt,name=volumeHandle"`
	// ReadOnly publishes the volume read-only.
	ReadOnly bool `json:"readOnly,omitempty" protobuf:"varint,3,opt,name=readOnly"`
	// FSType is the filesystem to mount.
	FSType string `json:"fsType,omitempty" protobuf:"bytes,4,opt,name=fsType"`
	// VolumeAttributes are passed to the driver as they are.
	VolumeAttributes map[string]string `json:"volumeAttributes,omitempty" protobuf:"bytes,5,rep,name=volumeAttributes" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	// ControllerPublishSecretRef names the secret passed to ControllerPublishVolume.
	ControllerPublishSecretRef *SecretReference `json:"controllerPublishSecretRef,omitempty" protobuf:"bytes,6,opt,name=controllerPublishSecretRef"`
	// NodeStageSecretRef names the secret passed to NodeStageVolume.
	NodeStageSecretRef *SecretReference `json:"nodeStageSecretRef,omitempty" protobuf:"bytes,7,opt,name=nodeStageSecretRef"`
	// NodePublishSecretRef names the secret passed to NodePublishVolume.
	NodePublishSecretRef *SecretReference `json:"nodePublishSecretRef,omitempty" protobuf:"bytes,8,opt,name=nodePublishSecretRef"`
	// ControllerExpandSecretRef names the secret passed to ControllerExpandVolume.
	ControllerExpandSecretRef *SecretReference `json:"controllerExpandSecretRef,omitempty" protobuf:"bytes,9,opt,name=controllerExpandSecretRef"`
	// NodeExpandSecretRef names the secret passed to NodeExpandVolume.
	NodeExpandSecretRef *SecretReference `json:"nodeExpandSecretRef,omitempty" protobuf:"bytes,10,opt,name=nodeExpandSecretRef"`
}

// SecretReference names a secret in any namespace. Kubernetes: corev1.SecretReference.
type SecretReference struct {
	// Name is the secret's name.
	Name string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	// Namespace is the secret's namespace.
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,2,opt,name=namespace"`
}

// VolumeNodeAffinity limits the nodes a volume can be reached from. Kubernetes:
// corev1.VolumeNodeAffinity.
type VolumeNodeAffinity struct {
	// Required are the nodes that can reach the volume.
	Required *NodeSelector `json:"required,omitempty" protobuf:"bytes,1,opt,name=required"`
}

// NodeSelector selects nodes: a node matches when it matches any of the terms.
// Kubernetes: corev1.NodeSelector.
type NodeSelector struct {
	// NodeSelectorTerms are ORed.
	NodeSelectorTerms []NodeSelectorTerm `json:"nodeSelectorTerms" protobuf:"bytes,1,rep,name=nodeSelectorTerms"`
}

// NodeSelectorTerm matches a node when all its requirements do. Kubernetes:
// corev1.NodeSelectorTerm.
type NodeSelectorTerm struct {
	// MatchExpressions are requirements on the node's labels.
	MatchExpressions []NodeSelectorRequirement `json:"matchExpressions,omitempty" protobuf:"bytes,1,rep,name=matchExpressions"`
	// MatchFields are requirements on the node's fields (metadata.name only).
	MatchFields []NodeSelectorRequirement `json:"matchFields,omitempty" protobuf:"bytes,2,rep,name=matchFields"`
}

// NodeSelectorRequirement is one requirement on a node label or field: Key, an Operator
// (In, NotIn, Exists, DoesNotExist, Gt, Lt) and Values. Kubernetes:
// corev1.NodeSelectorRequirement.
type NodeSelectorRequirement struct {
	// Key is the label key or field name.
	Key string `json:"key" protobuf:"bytes,1,opt,name=key"`
	// Operator relates Key to Values.
	Operator string `json:"operator" protobuf:"bytes,2,opt,name=operator"`
	// Values are the operands: several for In and NotIn, none for Exists and
	// DoesNotExist, one integer for Gt and Lt.
	Values []string `json:"values,omitempty" protobuf:"bytes,3,rep,name=values"`
}

// PersistentVolumePhase is where a volume is in its life. Kubernetes:
// corev1.PersistentVolumePhase.
type PersistentVolumePhase string

// The volume phases Kubernetes defines.
const (
	// VolumePending: not yet available.
	VolumePending PersistentVolumePhase = "Pending"
	// VolumeAvailable: not yet bound to a claim.
	VolumeAvailable PersistentVolumePhase = "Available"
	// VolumeBound: bound to a claim.
	VolumeBound PersistentVolumePhase = "Bound"
	// VolumeReleased: its claim is gone and it waits for reclamation.
	VolumeReleased PersistentVolumePhase = "Released"
	// VolumeFailed: reclamation failed.
	VolumeFailed PersistentVolumePhase = "Failed"
)

// PersistentVolumeStatus is the observed state of a volume. Kubernetes:
// corev1.PersistentVolumeStatus.
type PersistentVolumeStatus struct {
	// Phase is Pending, Available, Bound, Released or Failed.
	Phase PersistentVolumePhase `json:"phase,omitempty" protobuf:"bytes,1,opt,name=phase"`
	// Message is a human-readable account of the phase.
	Message string `json:"message,omitempty" protobuf:"bytes,2,opt,name=message"`
	// Reason is a CamelCase reason for a failure.
	Reason string `json:"reason,omitempty" protobuf:"bytes,3,opt,name=reason"`
	// LastPhaseTransitionTime is when Phase last changed.
	LastPhaseTransitionTime *Time `json:"lastPhaseTransitionTime,omitempty" protobuf:"bytes,4,opt,name=lastPhaseTransitionTime"`
}

// PersistentVolumeClaim is a user's request for storage, bound to one PersistentVolume by
// the persistentvolume-binder. Kubernetes: corev1.PersistentVolumeClaim.
type PersistentVolumeClaim struct {
	TypeMeta `json:",inline"`
	// Metadata is the claim's identity.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the storage asked for.
	Spec PersistentVolumeClaimSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is the claim's phase and bound capacity, written by the binder.
	Status PersistentVolumeClaimStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// GetObjectMeta returns the claim's metadata.
func (pvc *PersistentVolumeClaim) GetObjectMeta() *ObjectMeta { return &pvc.Metadata }

// PersistentVolumeClaimList is a list of claims. Kubernetes:
// corev1.PersistentVolumeClaimList.
type PersistentVolumeClaimList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the claims.
	Items []PersistentVolumeClaim `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// PersistentVolumeClaimSpec is the storage a claim asks for. Kubernetes:
// corev1.PersistentVolumeClaimSpec.
type PersistentVolumeClaimSpec struct {
	// AccessModes are the ways the volume must be mountable; at least one.
	AccessModes []PersistentVolumeAccessMode `json:"accessModes,omitempty" protobuf:"bytes,1,rep,name=accessModes"`
	// Selector limits the volumes the claim may bind to by their labels.
	Selector *LabelSelector `json:"selector,omitempty" protobuf:"bytes,4,opt,name=selector"`
	// Resources is the size asked for: requests["storage"] is required.
	Resources VolumeResourceRequirements `json:"resources,omitempty" protobuf:"bytes,2,opt,name=resources"`
	// VolumeName binds the claim to the named volume.
	VolumeName string `json:"volumeName,omitempty" protobuf:"bytes,3,opt,name=volumeName"`
	// StorageClassName is the StorageClass asked for; nil means the default class, ""
	// means no class.
	StorageClassName *string `json:"storageClassName,omitempty" protobuf:"bytes,5,opt,name=storageClassName"`
	// VolumeMode is Filesystem (the default) or Block.
	VolumeMode *PersistentVolumeMode `json:"volumeMode,omitempty" protobuf:"bytes,6,opt,name=volumeMode"`
	// DataSource is an object to populate the volume from (a snapshot, another claim).
	DataSource *TypedLocalObjectReference `json:"dataSource,omitempty" protobuf:"bytes,7,opt,name=dataSource"`
	// DataSourceRef is DataSource that may name any populator's object.
	DataSourceRef *TypedObjectReference `json:"dataSourceRef,omitempty" protobuf:"bytes,8,opt,name=dataSourceRef"`
	// VolumeAttributesClassName names the VolumeAttributesClass asked for.
	VolumeAttributesClassName *string `json:"volumeAttributesClassName,omitempty" protobuf:"bytes,9,opt,name=volumeAttributesClassName"`
}

// VolumeResourceRequirements is the size a claim asks for. Kubernetes:
// corev1.VolumeResourceRequirements.
type VolumeResourceRequirements struct {
	// Limits is the most storage the volume may have.
	Limits ResourceList `json:"limits,omitempty" protobuf:"bytes,1,rep,name=limits" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	// Requests is the least storage the volume must have.
	Requests ResourceList `json:"requests,omitempty" protobuf:"bytes,2,rep,name=requests" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
}

// TypedLocalObjectReference names an object of any kind in the referrer's namespace.
// Kubernetes: corev1.TypedLocalObjectReference.
type TypedLocalObjectReference struct {
	// APIGroup is the referent's group; nil means the core group.
	APIGroup *string `json:"apiGroup" protobuf:"bytes,1,opt,name=apiGroup"`
	// Kind is the referent's kind.
	Kind string `json:"kind" protobuf:"bytes,2,opt,name=kind"`
	// Name is the referent's name.
	Name string `json:"name" protobuf:"bytes,3,opt,name=name"`
}

// TypedObjectReference names an object of any kind in any namespace. Kubernetes:
// corev1.TypedObjectReference.
type TypedObjectReference struct {
	// APIGroup is the referent's group; nil means the core group.
	APIGroup *string `json:"apiGroup" protobuf:"bytes,1,opt,name=apiGroup"`
	// Kind is the referent's kind.
	Kind string `json:"kind" protobuf:"bytes,2,opt,name=kind"`
	// Name is the referent's name.
	Name string `json:"name" protobuf:"bytes,3,opt,name=name"`
	// Namespace is the referent's namespace; nil means the referrer's.
	Namespace *string `json:"namespace,omitempty" protobuf:"bytes,4,opt,name=namespace"`
}

// PersistentVolumeClaimPhase is where a claim is in its life. Kubernetes:
// corev1.PersistentVolumeClaimPhase.
type PersistentVolumeClaimPhase string

// The claim phases Kubernetes defines.
const (
	// ClaimPending: not yet bound.
	ClaimPending PersistentVolumeClaimPhase = "Pending"
	// ClaimBound: bound to a volume.
	ClaimBound PersistentVolumeClaimPhase = "Bound"
	// ClaimLost: its volume is gone.
	ClaimLost PersistentVolumeClaimPhase = "Lost"
)

// PersistentVolumeClaimStatus is the observed state of a claim. Kubernetes:
// corev1.PersistentVolumeClaimStatus.
type PersistentVolumeClaimStatus struct {
	// Phase is Pending, Bound or Lost.
	Phase PersistentVolumeClaimPhase `json:"phase,omitempty" protobuf:"bytes,1,opt,name=phase"`
	// AccessModes are the bound volume's.
	AccessModes []PersistentVolumeAccessMode `json:"accessModes,omitempty" protobuf:"bytes,2,rep,name=accessModes"`
	// Capacity is the bound volume's.
	Capacity ResourceList `json:"capacity,omitempty" protobuf:"bytes,3,rep,name=capacity" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	// Conditions report resizing.
	Conditions []PersistentVolumeClaimCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,4,rep,name=conditions"`
	// AllocatedResources is the storage allocated to the claim by a resize.
	AllocatedResources ResourceList `json:"allocatedResources,omitempty" protobuf:"bytes,5,rep,name=allocatedResources" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
}

// PersistentVolumeClaimCondition is one fact about a claim. Kubernetes:
// corev1.PersistentVolumeClaimCondition.
type PersistentVolumeClaimCondition struct {
	// Type names the fact ("Resizing", "FileSystemResizePending", ...).
	Type string `json:"type" protobuf:"bytes,1,opt,name=type"`
	// Status is True, False or Unknown.
	Status ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status"`
	// LastProbeTime is when the condition was last checked.
	LastProbeTime Time `json:"lastProbeTime,omitempty" protobuf:"bytes,3,opt,name=lastProbeTime"`
	// LastTransitionTime is when Status last changed.
	LastTransitionTime Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,4,opt,name=lastTransitionTime"`
	// Reason is a CamelCase reason for the last transition.
	Reason string `json:"reason,omitempty" protobuf:"bytes,5,opt,name=reason"`
	// Message is a human-readable account of the last transition.
	Message string `json:"message,omitempty" protobuf:"bytes,6,opt,name=message"`
}

// TopologySelectorTerm matches a topology when all its requirements do. Kubernetes:
// corev1.TopologySelectorTerm.
type TopologySelectorTerm struct {
	// MatchLabelExpressions are requirements on topology labels.
	MatchLabelExpressions []TopologySelectorLabelRequirement `json:"matchLabelExpressions,omitempty" protobuf:"bytes,1,rep,name=matchLabelExpressions"`
}

// TopologySelectorLabelRequirement requires a topology label to have one of Values.
// Kubernetes: corev1.TopologySelectorLabelRequirement.
type TopologySelectorLabelRequirement struct {
	// Key is the label key.
	Key string `json:"key" protobuf:"bytes,1,opt,name=key"`
	// Values are the allowed values.
	Values []string `json:"values" protobuf:"bytes,2,rep,name=values"`
}
