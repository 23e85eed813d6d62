package api

// The apps/v1 kinds kube-scheduler's PodTopologySpread plugin reads to find a pod's
// owner's selector. miniplane stores and serves them, with their status and scale
// subresources; no ReplicaSet or StatefulSet controller creates their pods here.

// ReplicaSet keeps a number of pods matching its selector running: the successor of
// ReplicationController, with a set-based selector. Kubernetes: appsv1.ReplicaSet.
type ReplicaSet struct {
	TypeMeta `json:",inline"`
	// Metadata is the replica set's identity.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the desired state.
	Spec ReplicaSetSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is the observed state.
	Status ReplicaSetStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// GetObjectMeta returns the replica set's metadata.
func (rs *ReplicaSet) GetObjectMeta() *ObjectMeta { return &rs.Metadata }

// ReplicaSetList is a list of replica sets. Kubernetes: appsv1.ReplicaSetList.
type ReplicaSetList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the replica sets.
	Items []ReplicaSet `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ReplicaSetSpec is the desired state of a replica set. Kubernetes: appsv1.ReplicaSetSpec.
type ReplicaSetSpec struct {
	// Replicas is the desired number of pods; nil means 1 (the apiserver defaults it).
	Replicas *int32 `json:"replicas,omitempty" protobuf:"varint,1,opt,name=replicas"`
	// MinReadySeconds is how long a pod must be ready before it counts as available.
	MinReadySeconds int32 `json:"minReadySeconds,omitempty" protobuf:"varint,4,opt,name=minReadySeconds"`
	// Selector selects the pods; it is required, must not be empty and must match the
	// template's labels.
	Selector *LabelSelector `json:"selector" protobuf:"bytes,2,opt,name=selector"`
	// Template is the pod created when replicas are missing.
	Template PodTemplateSpec `json:"template,omitempty" protobuf:"bytes,3,opt,name=template"`
}

// ReplicaSetStatus is the observed state of a replica set. Kubernetes:
// appsv1.ReplicaSetStatus.
type ReplicaSetStatus struct {
	// Replicas is the number of pods the replica set owns.
	Replicas int32 `json:"replicas" protobuf:"varint,1,opt,name=replicas"`
	// FullyLabeledReplicas counts pods whose labels match the template's labels.
	FullyLabeledReplicas int32 `json:"fullyLabeledReplicas,omitempty" protobuf:"varint,2,opt,name=fullyLabeledReplicas"`
	// ReadyReplicas counts owned pods with the Ready condition.
	ReadyReplicas int32 `json:"readyReplicas,omitempty" protobuf:"varint,4,opt,name=readyReplicas"`
	// AvailableReplicas counts owned pods ready for at least spec.minReadySeconds.
	AvailableReplicas int32 `json:"availableReplicas,omitempty" protobuf:"varint,5,opt,name=availableReplicas"`
	// ObservedGeneration is the metadata.generation this status reflects.
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,3,opt,name=observedGeneration"`
	// Conditions report problems, e.g. ReplicaFailure.
	Conditions []ReplicaSetCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,6,rep,name=conditions"`
}

// ReplicaSetCondition is one fact about a replica set. Kubernetes:
// appsv1.ReplicaSetCondition.
type ReplicaSetCondition struct {
	// Type names the fact.
	Type string `json:"type" protobuf:"bytes,1,opt,name=type"`
	// Status is True, False or Unknown.
	Status ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status"`
	// LastTransitionTime is when Status last changed.
	LastTransitionTime Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	// Reason is a CamelCase reason for the last transition.
	Reason string `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	// Message is a human-readable account of the last transition.
	Message string `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}

// ReplicaSetReplicaFailure is the condition the replica set controller sets when it could
// not create or delete a pod. Kubernetes: appsv1.ReplicaSetReplicaFailure.
const ReplicaSetReplicaFailure = "ReplicaFailure"

// StatefulSet runs pods with stable, ordinal identities (web-0, web-1, ...) and stable
// storage from its volume claim templates, governed by a headless service. Kubernetes:
// appsv1.StatefulSet.
type StatefulSet struct {
	TypeMeta `json:",inline"`
	// Metadata is the stateful set's identity.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the desired state.
	Spec StatefulSetSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is the observed state.
	Status StatefulSetStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// GetObjectMeta returns the stateful set's metadata.
func (ss *StatefulSet) GetObjectMeta() *ObjectMeta { return &ss.Metadata }

// StatefulSetList is a list of stateful sets. Kubernetes: appsv1.StatefulSetList.
type StatefulSetList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the stateful sets.
	Items []StatefulSet `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// StatefulSetSpec is the desired state of a stateful set. Only Replicas, Ordinals,
// Template, UpdateStrategy, PersistentVolumeClaimRetentionPolicy and MinReadySeconds may
// change after creation. Kubernetes: appsv1.StatefulSetSpec.
type StatefulSetSpec struct {
	// Replicas is the desired number of pods; nil means 1.
	Replicas *int32 `json:"replicas,omitempty" protobuf:"varint,1,opt,name=replicas"`
	// Selector selects the pods; required, and must match the template's labels.
	Selector *LabelSelector `json:"selector" protobuf:"bytes,2,opt,name=selector"`
	// Template is the pod each ordinal runs.
	Template PodTemplateSpec `json:"template" protobuf:"bytes,3,opt,name=template"`
	// VolumeClaimTemplates are the claims each pod gets, named <claim>-<pod>.
	VolumeClaimTemplates []PersistentVolumeClaim `json:"volumeClaimTemplates,omitempty" protobuf:"bytes,4,rep,name=volumeClaimTemplates"`
	// ServiceName is the headless service that gives the pods their DNS names.
	ServiceName string `json:"serviceName" protobuf:"bytes,5,opt,name=serviceName"`
	// PodManagementPolicy is OrderedReady (the default) or Parallel.
	PodManagementPolicy string `json:"podManagementPolicy,omitempty" protobuf:"bytes,6,opt,name=podManagementPolicy"`
	// UpdateStrategy is how a template change reaches the pods.
	UpdateStrategy StatefulSetUpdateStrategy `json:"updateStrategy,omitempty" protobuf:"bytes,7,opt,name=updateStrategy"`
	// RevisionHistoryLimit is how many old revisions are kept; defaults to 10.
	RevisionHistoryLimit *int32 `json:"revisionHistoryLimit,omitempty" protobuf:"varint,8,opt,name=revisionHistoryLimit"`
	// MinReadySeconds is how long a pod must be ready before it counts as available.
	MinReadySeconds int32 `json:"minReadySeconds,omitempty" protobuf:"varint,9,opt,name=minReadySeconds"`
	// PersistentVolumeClaimRetentionPolicy is what happens to the claims when the set is
	// deleted or scaled down.
	PersistentVolumeClaimRetentionPolicy *StatefulSetPersistentVolumeClaimRetentionPolicy `json:"persistentVolumeClaimRetentionPolicy,omitempty" protobuf:"bytes,10,opt,name=persistentVolumeClaimRetentionPolicy"`
	// Ordinals sets the first ordinal.
	Ordinals *StatefulSetOrdinals `json:"ordinals,omitempty" protobuf:"bytes,11,opt,name=ordinals"`
}

// StatefulSetUpdateStrategy is how a stateful set updates its pods. Kubernetes:
// appsv1.StatefulSetUpdateStrategy.
type StatefulSetUpdateStrategy struct {
	// Type is RollingUpdate (the default) or OnDelete.
	Type string `json:"type,omitempty" protobuf:"bytes,1,opt,name=type"`
	// RollingUpdate tunes a RollingUpdate.
	RollingUpdate *RollingUpdateStatefulSetStrategy `json:"rollingUpdate,omitempty" protobuf:"bytes,2,opt,name=rollingUpdate"`
}

// RollingUpdateStatefulSetStrategy tunes a rolling update. Kubernetes:
// appsv1.RollingUpdateStatefulSetStrategy.
type RollingUpdateStatefulSetStrategy struct {
	// Partition: only ordinals at or above it are updated; defaults to 0.
	Partition *int32 `json:"partition,omitempty" protobuf:"varint,1,opt,name=partition"`
	// MaxUnavailable is how many pods may be down during the update.
	MaxUnavailable *IntOrString `json:"maxUnavailable,omitempty" protobuf:"bytes,2,opt,name=maxUnavailable"`
}

// StatefulSetPersistentVolumeClaimRetentionPolicy says whether claims are kept (Retain)
// or deleted (Delete) when the set is deleted or scaled down. Kubernetes:
// appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy.
type StatefulSetPersistentVolumeClaimRetentionPolicy struct {
	// WhenDeleted applies when the set is deleted.
	WhenDeleted string `json:"whenDeleted,omitempty" protobuf:"bytes,1,opt,name=whenDeleted"`
	// WhenScaled applies when the set is scaled down.
	WhenScaled string `json:"whenScaled,omitempty" protobuf:"bytes,2,opt,name=whenScaled"`
}

// StatefulSetOrdinals sets a stateful set's first ordinal. Kubernetes:
// appsv1.StatefulSetOrdinals.
type StatefulSetOrdinals struct {
	// Start is the first ordinal; defaults to 0.
	Start int32 `json:"start" protobuf:"varint,1,opt,name=start"`
}

// StatefulSetStatus is the observed state of a stateful set. Kubernetes:
// appsv1.StatefulSetStatus.
type StatefulSetStatus struct {
	// ObservedGeneration is the metadata.generation this status reflects.
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,1,opt,name=observedGeneration"`
	// Replicas is the number of pods the set owns.
	Replicas int32 `json:"replicas" protobuf:"varint,2,opt,name=replicas"`
	// ReadyReplicas counts owned pods with the Ready condition.
	ReadyReplicas int32 `json:"readyReplicas,omitempty" protobuf:"varint,3,opt,name=readyReplicas"`
	// CurrentReplicas counts pods at CurrentRevision.
	CurrentReplicas int32 `json:"currentReplicas,omitempty" protobuf:"varint,4,opt,name=currentReplicas"`
	// UpdatedReplicas counts pods at UpdateRevision.
	UpdatedReplicas int32 `json:"updatedReplicas,omitempty" protobuf:"varint,5,opt,name=updatedReplicas"`
	// CurrentRevision is the revision of the pods below the partition.
	CurrentRevision string `json:"currentRevision,omitempty" protobuf:"bytes,6,opt,name=currentRevision"`
	// UpdateRevision is the revision the set updates pods to.
	UpdateRevision string `json:"updateRevision,omitempty" protobuf:"bytes,7,opt,name=updateRevision"`
	// CollisionCount disambiguates revision names.
	CollisionCount *int32 `json:"collisionCount,omitempty" protobuf:"varint,9,opt,name=collisionCount"`
	// Conditions are facts about the set.
	Conditions []StatefulSetCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,10,rep,name=conditions"`
	// AvailableReplicas counts owned pods ready for at least spec.minReadySeconds.
	AvailableReplicas int32 `json:"availableReplicas" protobuf:"varint,11,opt,name=availableReplicas"`
}

// StatefulSetCondition is one fact about a stateful set. Kubernetes:
// appsv1.StatefulSetCondition.
type StatefulSetCondition struct {
	// Type names the fact.
	Type string `json:"type" protobuf:"bytes,1,opt,name=type"`
	// Status is True, False or Unknown.
	Status ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status"`
	// LastTransitionTime is when Status last changed.
	LastTransitionTime Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	// Reason is a CamelCase reason for the last transition.
	Reason string `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	// Message is a human-readable account of the last transition.
	Message string `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}

// Deployment declares the pods of an application and how to replace them: it owns a
// ReplicaSet per pod template it has run, scales the newest up and the older ones down
// as its strategy allows, and keeps the old ones (scaled to 0) for rollback.
// Kubernetes: appsv1.Deployment.
type Deployment struct {
	TypeMeta `json:",inline"`
	// Metadata is the deployment's identity.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the desired state.
	Spec DeploymentSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is the observed state.
	Status DeploymentStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// GetObjectMeta returns the deployment's metadata.
func (d *Deployment) GetObjectMeta() *ObjectMeta { return &d.Metadata }

// DeploymentList is a list of deployments. Kubernetes: appsv1.DeploymentList.
type DeploymentList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the deployments.
	Items []Deployment `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// DeploymentSpec is the desired state of a deployment. Kubernetes: appsv1.DeploymentSpec.
type DeploymentSpec struct {
	// Replicas is the desired number of pods; nil means 1 (the apiserver defaults it).
	Replicas *int32 `json:"replicas,omitempty" protobuf:"varint,1,opt,name=replicas"`
	// Selector selects the pods and replica sets the deployment manages; required, must
	// match the template's labels, and cannot change after creation.
	Selector *LabelSelector `json:"selector" protobuf:"bytes,2,opt,name=selector"`
	// Template is the pod the newest replica set runs; a change starts a rollout.
	Template PodTemplateSpec `json:"template" protobuf:"bytes,3,opt,name=template"`
	// Strategy is how old pods are replaced by new ones.
	Strategy DeploymentStrategy `json:"strategy,omitempty" patchStrategy:"retainKeys" protobuf:"bytes,4,opt,name=strategy"`
	// MinReadySeconds is how long a new pod must be ready, without a container crashing,
	// before it counts as available; defaults to 0.
	MinReadySeconds int32 `json:"minReadySeconds,omitempty" protobuf:"varint,5,opt,name=minReadySeconds"`
	// RevisionHistoryLimit is how many old, scaled-down replica sets are kept for
	// rollback; defaults to 10.
	RevisionHistoryLimit *int32 `json:"revisionHistoryLimit,omitempty" protobuf:"varint,6,opt,name=revisionHistoryLimit"`
	// Paused stops rollouts: while it is true, a template change starts none, and the
	// controller only scales and cleans up.
	Paused bool `json:"paused,omitempty" protobuf:"varint,7,opt,name=paused"`
	// ProgressDeadlineSeconds is how long a rollout may go without progress before the
	// Progressing condition says ProgressDeadlineExceeded; defaults to 600.
	ProgressDeadlineSeconds *int32 `json:"progressDeadlineSeconds,omitempty" protobuf:"varint,9,opt,name=progressDeadlineSeconds"`
}

// The deployment strategies (DeploymentStrategy.Type).
const (
	// RecreateDeploymentStrategyType deletes every old pod before creating new ones.
	RecreateDeploymentStrategyType = "Recreate"
	// RollingUpdateDeploymentStrategyType scales the new replica set up and the old
	// ones down gradually, within maxSurge and maxUnavailable.
	RollingUpdateDeploymentStrategyType = "RollingUpdate"
)

// DeploymentStrategy is how a deployment replaces its pods. Kubernetes:
// appsv1.DeploymentStrategy.
type DeploymentStrategy struct {
	// Type is Recreate or RollingUpdate (the default).
	Type string `json:"type,omitempty" protobuf:"bytes,1,opt,name=type"`
	// RollingUpdate tunes a RollingUpdate; present only when Type is RollingUpdate.
	RollingUpdate *RollingUpdateDeployment `json:"rollingUpdate,omitempty" protobuf:"bytes,2,opt,name=rollingUpdate"`
}

// RollingUpdateDeployment bounds a rolling update. Kubernetes:
// appsv1.RollingUpdateDeployment.
type RollingUpdateDeployment struct {
	// MaxUnavailable is how many of the desired pods may be unavailable during the
	// update: a number or a percentage of replicas, rounded down; defaults to 25%. It
	// cannot be 0 when MaxSurge is 0.
	MaxUnavailable *IntOrString `json:"maxUnavailable,omitempty" protobuf:"bytes,1,opt,name=maxUnavailable"`
	// MaxSurge is how many pods may exist above the desired number during the update:
	// a number or a percentage of replicas, rounded up; defaults to 25%.
	MaxSurge *IntOrString `json:"maxSurge,omitempty" protobuf:"bytes,2,opt,name=maxSurge"`
}

// DeploymentStatus is the observed state of a deployment. Kubernetes:
// appsv1.DeploymentStatus.
type DeploymentStatus struct {
	// ObservedGeneration is the metadata.generation this status reflects.
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,1,opt,name=observedGeneration"`
	// Replicas counts the non-terminated pods of all the deployment's replica sets.
	Replicas int32 `json:"replicas,omitempty" protobuf:"varint,2,opt,name=replicas"`
	// UpdatedReplicas counts the non-terminated pods that run the current template.
	UpdatedReplicas int32 `json:"updatedReplicas,omitempty" protobuf:"varint,3,opt,name=updatedReplicas"`
	// ReadyReplicas counts the pods with the Ready condition.
	ReadyReplicas int32 `json:"readyReplicas,omitempty" protobuf:"varint,7,opt,name=readyReplicas"`
	// AvailableReplicas counts the pods ready for at least minReadySeconds.
	AvailableReplicas int32 `json:"availableReplicas,omitempty" protobuf:"varint,4,opt,name=availableReplicas"`
	// UnavailableReplicas is how many pods are still missing for full capacity: running
	// but not yet available, or not yet created.
	UnavailableReplicas int32 `json:"unavailableReplicas,omitempty" protobuf:"varint,5,opt,name=unavailableReplicas"`
	// Conditions are Available, Progressing and ReplicaFailure.
	Conditions []DeploymentCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,6,rep,name=conditions"`
	// CollisionCount counts pod-template-hash collisions; it is hashed with the
	// template to name the newest replica set.
	CollisionCount *int32 `json:"collisionCount,omitempty" protobuf:"varint,8,opt,name=collisionCount"`
}

// The deployment condition types (DeploymentCondition.Type).
const (
	// DeploymentAvailable: at least replicas − maxUnavailable pods are available.
	DeploymentAvailable = "Available"
	// DeploymentProgressing: the rollout is moving, done, or past its deadline.
	DeploymentProgressing = "Progressing"
	// DeploymentReplicaFailure: a pod of a replica set could not be created or deleted.
	DeploymentReplicaFailure = "ReplicaFailure"
)

// DeploymentCondition is one fact about a deployment. Kubernetes:
// appsv1.DeploymentCondition.
type DeploymentCondition struct {
	// Type names the fact: Available, Progressing or ReplicaFailure.
	Type string `json:"type" protobuf:"bytes,1,opt,name=type"`
	// Status is True, False or Unknown.
	Status ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status"`
	// LastUpdateTime is when the condition was last written.
	LastUpdateTime Time `json:"lastUpdateTime,omitempty" protobuf:"bytes,6,opt,name=lastUpdateTime"`
	// LastTransitionTime is when Status last changed.
	LastTransitionTime Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,7,opt,name=lastTransitionTime"`
	// Reason is a CamelCase reason for the last transition (NewReplicaSetAvailable,
	// ProgressDeadlineExceeded, MinimumReplicasAvailable, ...).
	Reason string `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	// Message is a human-readable account of the last transition.
	Message string `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}
