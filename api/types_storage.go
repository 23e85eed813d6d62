package api

// The storage.k8s.io/v1 kinds kube-scheduler's volume plugins read. miniplane stores and
// serves them; the persistentvolume-binder reads StorageClasses (its simulated provisioner
// serves miniplane.io/simulated); no CSI driver or attach-detach controller acts on them here.

// StorageClass describes a class of dynamically provisioned volumes: the provisioner that
// makes them and its parameters. It is cluster-scoped and has no spec: its fields are
// top-level, and Provisioner and Parameters cannot change once created. Kubernetes:
// storagev1.StorageClass.
type StorageClass struct {
	TypeMeta `json:",inline"`
	// Metadata is the class's identity.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Provisioner is the volume plugin or CSI driver that provisions the class's volumes.
	Provisioner string `json:"provisioner" protobuf:"bytes,2,opt,name=provisioner"`
	// Parameters are passed to the provisioner as they are.
	Parameters map[string]string `json:"parameters,omitempty" protobuf:"bytes,3,rep,name=parameters" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	// ReclaimPolicy is given to the class's volumes: Delete (the default) or Retain.
	ReclaimPolicy *PersistentVolumeReclaimPolicy `json:"reclaimPolicy,omitempty" protobuf:"bytes,4,opt,name=reclaimPolicy"`
	// MountOptions are given to the class's volumes.
	MountOptions []string `json:"mountOptions,omitempty" protobuf:"bytes,5,rep,name=mountOptions"`
	// AllowVolumeExpansion lets claims of the class grow.
	AllowVolumeExpansion *bool `json:"allowVolumeExpansion,omitempty" protobuf:"varint,6,opt,name=allowVolumeExpansion"`
	// VolumeBindingMode is when claims are bound: Immediate (the default) or
	// WaitForFirstConsumer, which lets the scheduler choose the node first.
	VolumeBindingMode *VolumeBindingMode `json:"volumeBindingMode,omitempty" protobuf:"bytes,7,opt,name=volumeBindingMode"`
	// AllowedTopologies limits where volumes may be provisioned.
	AllowedTopologies []TopologySelectorTerm `json:"allowedTopologies,omitempty" protobuf:"bytes,8,rep,name=allowedTopologies"`
}

// GetObjectMeta returns the class's metadata.
func (sc *StorageClass) GetObjectMeta() *ObjectMeta { return &sc.Metadata }

// StorageClassList is a list of storage classes. Kubernetes: storagev1.StorageClassList.
type StorageClassList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the storage classes.
	Items []StorageClass `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// VolumeBindingMode is when a class's claims are bound. Kubernetes:
// storagev1.VolumeBindingMode.
type VolumeBindingMode string

// The binding modes Kubernetes defines.
const (
	// VolumeBindingImmediate binds as soon as the claim is created.
	VolumeBindingImmediate VolumeBindingMode = "Immediate"
	// VolumeBindingWaitForFirstConsumer binds once a pod using the claim is scheduled.
	VolumeBindingWaitForFirstConsumer VolumeBindingMode = "WaitForFirstConsumer"
)

// CSINode holds the CSI drivers installed on a node, written by the kubelet. Its name is
// the node's. It is cluster-scoped. Kubernetes: storagev1.CSINode.
type CSINode struct {
	TypeMeta `json:",inline"`
	// Metadata is the object's identity; its name is the node's.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec lists the node's drivers.
	Spec CSINodeSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
}

// GetObjectMeta returns the object's metadata.
func (n *CSINode) GetObjectMeta() *ObjectMeta { return &n.Metadata }

// CSINodeList is a list of CSINodes. Kubernetes: storagev1.CSINodeList.
type CSINodeList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the CSINodes.
	Items []CSINode `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// CSINodeSpec lists a node's CSI drivers. Kubernetes: storagev1.CSINodeSpec.
type CSINodeSpec struct {
	// Drivers are the drivers on the node, with unique names.
	Drivers []CSINodeDriver `json:"drivers" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,1,rep,name=drivers"`
}

// CSINodeDriver is one CSI driver on a node. Kubernetes: storagev1.CSINodeDriver.
type CSINodeDriver struct {
	// Name is the driver's name.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// NodeID is the node's identity as the driver knows it.
	NodeID string `json:"nodeID" protobuf:"bytes,2,opt,name=nodeID"`
	// TopologyKeys are the node labels the driver reports topology with.
	TopologyKeys []string `json:"topologyKeys" protobuf:"bytes,3,rep,name=topologyKeys"`
	// Allocatable is how many of the driver's volumes the node can take; the scheduler's
	// NodeVolumeLimits plugin reads it.
	Allocatable *VolumeNodeResources `json:"allocatable,omitempty" protobuf:"bytes,4,opt,name=allocatable"`
}

// VolumeNodeResources limits the volumes of one driver on a node. Kubernetes:
// storagev1.VolumeNodeResources.
type VolumeNodeResources struct {
	// Count is the most volumes of the driver the node can use; nil means no limit.
	Count *int32 `json:"count,omitempty" protobuf:"varint,1,opt,name=count"`
}

// CSIDriver describes a CSI driver deployed in the cluster: whether its volumes need
// attaching, what the kubelet passes it on mount, whether it reports storage capacity.
// Its name is the driver's. It is cluster-scoped. Kubernetes: storagev1.CSIDriver.
type CSIDriver struct {
	TypeMeta `json:",inline"`
	// Metadata is the object's identity; its name is the driver's.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the driver's behaviour.
	Spec CSIDriverSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
}

// GetObjectMeta returns the object's metadata.
func (d *CSIDriver) GetObjectMeta() *ObjectMeta { return &d.Metadata }

// CSIDriverList is a list of CSIDrivers. Kubernetes: storagev1.CSIDriverList.
type CSIDriverList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the CSIDrivers.
	Items []CSIDriver `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// CSIDriverSpec is a CSI driver's behaviour; the server defaults every field but
// SELinuxMount on create. Kubernetes: storagev1.CSIDriverSpec.
type CSIDriverSpec struct {
	// AttachRequired: volumes need a ControllerPublish (a VolumeAttachment) before
	// mounting. Defaults to true. Immutable.
	AttachRequired *bool `json:"attachRequired,omitempty" protobuf:"varint,1,opt,name=attachRequired"`
	// PodInfoOnMount: the kubelet passes the pod's identity on mount. Defaults to false.
	PodInfoOnMount *bool `json:"podInfoOnMount,omitempty" protobuf:"varint,2,opt,name=podInfoOnMount"`
	// VolumeLifecycleModes are Persistent and/or Ephemeral. Defaults to [Persistent].
	VolumeLifecycleModes []string `json:"volumeLifecycleModes,omitempty" protobuf:"bytes,3,rep,name=volumeLifecycleModes"`
	// StorageCapacity: the driver publishes CSIStorageCapacity objects, which the scheduler
	// then checks. Defaults to false.
	StorageCapacity *bool `json:"storageCapacity,omitempty" protobuf:"varint,4,opt,name=storageCapacity"`
	// FSGroupPolicy is how volume ownership follows a pod's fsGroup: None, File or
	// ReadWriteOnceWithFSType (the default).
	FSGroupPolicy *string `json:"fsGroupPolicy,omitempty" protobuf:"bytes,5,opt,name=fsGroupPolicy"`
	// RequiresRepublish: the kubelet calls NodePublishVolume periodically. Defaults to
	// false.
	RequiresRepublish *bool `json:"requiresRepublish,omitempty" protobuf:"varint,7,opt,name=requiresRepublish"`
	// SELinuxMount: the driver supports mounting with an SELinux context.
	SELinuxMount *bool `json:"seLinuxMount,omitempty" protobuf:"varint,8,opt,name=seLinuxMount"`
}

// CSIStorageCapacity is the storage a CSI driver can provision for one StorageClass in
// one topology segment; the scheduler's VolumeBinding plugin reads it when the driver's
// CSIDriver has storageCapacity set. It is namespaced (the driver's namespace).
// Kubernetes: storagev1.CSIStorageCapacity.
type CSIStorageCapacity struct {
	TypeMeta `json:",inline"`
	// Metadata is the object's identity.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// NodeTopology selects the nodes the capacity is reachable from; nil means none.
	NodeTopology *LabelSelector `json:"nodeTopology,omitempty" protobuf:"bytes,2,opt,name=nodeTopology"`
	// StorageClassName is the class the capacity is for. Required, immutable.
	StorageClassName string `json:"storageClassName" protobuf:"bytes,3,opt,name=storageClassName"`
	// Capacity is what the driver reports as free; nil means unknown.
	Capacity *Quantity `json:"capacity,omitempty" protobuf:"bytes,4,opt,name=capacity"`
	// MaximumVolumeSize is the largest volume the driver could make now.
	MaximumVolumeSize *Quantity `json:"maximumVolumeSize,omitempty" protobuf:"bytes,5,opt,name=maximumVolumeSize"`
}

// GetObjectMeta returns the object's metadata.
func (c *CSIStorageCapacity) GetObjectMeta() *ObjectMeta { return &c.Metadata }

// CSIStorageCapacityList is a list of CSIStorageCapacities. Kubernetes:
// storagev1.CSIStorageCapacityList.
type CSIStorageCapacityList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the CSIStorageCapacities.
	Items []CSIStorageCapacity `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// VolumeAttachment asks an attacher to attach a volume to a node, and records whether it
// did. It is cluster-scoped; its spec cannot change once created. Kubernetes:
// storagev1.VolumeAttachment.
type VolumeAttachment struct {
	TypeMeta `json:",inline"`
	// Metadata is the object's identity.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the attachment asked for.
	Spec VolumeAttachmentSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	// Status is the attacher's result.
	Status VolumeAttachmentStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// GetObjectMeta returns the object's metadata.
func (va *VolumeAttachment) GetObjectMeta() *ObjectMeta { return &va.Metadata }

// VolumeAttachmentList is a list of VolumeAttachments. Kubernetes:
// storagev1.VolumeAttachmentList.
type VolumeAttachmentList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the VolumeAttachments.
	Items []VolumeAttachment `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// VolumeAttachmentSpec is the attachment asked for. Kubernetes:
// storagev1.VolumeAttachmentSpec.
type VolumeAttachmentSpec struct {
	// Attacher is the CSI driver that attaches.
	Attacher string `json:"attacher" protobuf:"bytes,1,opt,name=attacher"`
	// Source is the volume: exactly one of its fields is set.
	Source VolumeAttachmentSource `json:"source" protobuf:"bytes,2,opt,name=source"`
	// NodeName is the node to attach to.
	NodeName string `json:"nodeName" protobuf:"bytes,3,opt,name=nodeName"`
}

// VolumeAttachmentSource is the volume to attach: a PersistentVolume by name, or an inline
// volume's spec. Kubernetes: storagev1.VolumeAttachmentSource.
type VolumeAttachmentSource struct {
	// PersistentVolumeName names the volume.
	PersistentVolumeName *string `json:"persistentVolumeName,omitempty" protobuf:"bytes,1,opt,name=persistentVolumeName"`
	// InlineVolumeSpec is an inline volume migrated to CSI.
	InlineVolumeSpec *PersistentVolumeSpec `json:"inlineVolumeSpec,omitempty" protobuf:"bytes,2,opt,name=inlineVolumeSpec"`
}

// VolumeAttachmentStatus is the attacher's result. Kubernetes:
// storagev1.VolumeAttachmentStatus.
type VolumeAttachmentStatus struct {
	// Attached says the volume is attached.
	Attached bool `json:"attached" protobuf:"varint,1,opt,name=attached"`
	// AttachmentMetadata is what the attacher returned, passed on to mount.
	AttachmentMetadata map[string]string `json:"attachmentMetadata,omitempty" protobuf:"bytes,2,rep,name=attachmentMetadata" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	// AttachError is the last attach failure.
	AttachError *VolumeError `json:"attachError,omitempty" protobuf:"bytes,3,opt,name=attachError"`
	// DetachError is the last detach failure.
	DetachError *VolumeError `json:"detachError,omitempty" protobuf:"bytes,4,opt,name=detachError"`
}

// VolumeError is a failure of an attach or detach. Kubernetes: storagev1.VolumeError.
type VolumeError struct {
	// Time is when the failure happened.
	Time Time `json:"time,omitempty" protobuf:"bytes,1,opt,name=time"`
	// Message is the failure, safe to show.
	Message string `json:"message,omitempty" protobuf:"bytes,2,opt,name=message"`
	// ErrorCode is the gRPC code of the failure.
	ErrorCode *int32 `json:"errorCode,omitempty" protobuf:"varint,3,opt,name=errorCode"`
}
