package api

import "encoding/json"

// DaemonSet runs one copy of a pod on every eligible node: a node added gets one, a node
// removed loses it, and a template change replaces them node by node as the update
// strategy allows. Kubernetes: appsv1.DaemonSet.
type DaemonSet struct {
	TypeMeta `json:",inline"`
	// Metadata is the daemon set's identity.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the desired state.
	Spec DaemonSetSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is the observed state.
	Status DaemonSetStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// GetObjectMeta returns the daemon set's metadata.
func (ds *DaemonSet) GetObjectMeta() *ObjectMeta { return &ds.Metadata }

// DaemonSetList is a list of daemon sets. Kubernetes: appsv1.DaemonSetList.
type DaemonSetList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the daemon sets.
	Items []DaemonSet `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// DaemonSetSpec is the desired state of a daemon set. Kubernetes: appsv1.DaemonSetSpec.
type DaemonSetSpec struct {
	// Selector selects the pods the daemon set manages; required, must match the
	// template's labels, and cannot change after creation.
	Selector *LabelSelector `json:"selector" protobuf:"bytes,1,opt,name=selector"`
	// Template is the pod each eligible node runs; its restartPolicy must be Always.
	Template PodTemplateSpec `json:"template" protobuf:"bytes,2,opt,name=template"`
	// UpdateStrategy is how a template change reaches the pods.
	UpdateStrategy DaemonSetUpdateStrategy `json:"updateStrategy,omitempty" protobuf:"bytes,3,opt,name=updateStrategy"`
	// MinReadySeconds is how long a new pod must be ready before it counts as available;
	// defaults to 0.
	MinReadySeconds int32 `json:"minReadySeconds,omitempty" protobuf:"varint,4,opt,name=minReadySeconds"`
	// RevisionHistoryLimit is how many old ControllerRevisions are kept for rollback;
	// defaults to 10.
	RevisionHistoryLimit *int32 `json:"revisionHistoryLimit,omitempty" protobuf:"varint,6,opt,name=revisionHistoryLimit"`
}

// The daemon set update strategies (DaemonSetUpdateStrategy.Type).
const (
	// RollingUpdateDaemonSetStrategyType replaces old pods node by node, within
	// maxUnavailable and maxSurge.
	RollingUpdateDaemonSetStrategyType = "RollingUpdate"
	// OnDeleteDaemonSetStrategyType replaces an old pod only once someone deletes it.
	OnDeleteDaemonSetStrategyType = "OnDelete"
)

// DaemonSetUpdateStrategy is how a daemon set replaces its pods. Kubernetes:
// appsv1.DaemonSetUpdateStrategy.
type DaemonSetUpdateStrategy struct {
	// Type is RollingUpdate (the default) or OnDelete.
	Type string `json:"type,omitempty" protobuf:"bytes,1,opt,name=type"`
	// RollingUpdate tunes a RollingUpdate; present only when Type is RollingUpdate.
	RollingUpdate *RollingUpdateDaemonSet `json:"rollingUpdate,omitempty" protobuf:"bytes,2,opt,name=rollingUpdate"`
}

// RollingUpdateDaemonSet bounds a daemon set's rolling update. Exactly one of the two is
// non-zero. Kubernetes: appsv1.RollingUpdateDaemonSet.
type RollingUpdateDaemonSet struct {
	// MaxUnavailable is how many of the scheduled pods may be unavailable during the
	// update: a number or a percentage of desiredNumberScheduled, rounded up; defaults
	// to 1.
	MaxUnavailable *IntOrString `json:"maxUnavailable,omitempty" protobuf:"bytes,1,opt,name=maxUnavailable"`
	// MaxSurge is how many nodes may run an old and a new pod at once during the update:
	// a number or a percentage of desiredNumberScheduled, rounded up; defaults to 0.
	MaxSurge *IntOrString `json:"maxSurge,omitempty" protobuf:"bytes,2,opt,name=maxSurge"`
}

// DaemonSetStatus is the observed state of a daemon set. Kubernetes:
// appsv1.DaemonSetStatus.
type DaemonSetStatus struct {
	// CurrentNumberScheduled counts the eligible nodes that run at least one daemon pod.
	CurrentNumberScheduled int32 `json:"currentNumberScheduled" protobuf:"varint,1,opt,name=currentNumberScheduled"`
	// NumberMisscheduled counts the nodes that run a daemon pod but should not.
	NumberMisscheduled int32 `json:"numberMisscheduled" protobuf:"varint,2,opt,name=numberMisscheduled"`
	// DesiredNumberScheduled counts the nodes that should run a daemon pod.
	DesiredNumberScheduled int32 `json:"desiredNumberScheduled" protobuf:"varint,3,opt,name=desiredNumberScheduled"`
	// NumberReady counts the eligible nodes whose daemon pod is Ready.
	NumberReady int32 `json:"numberReady" protobuf:"varint,4,opt,name=numberReady"`
	// ObservedGeneration is the metadata.generation this status reflects.
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,5,opt,name=observedGeneration"`
	// UpdatedNumberScheduled counts the nodes that run a pod of the current template.
	UpdatedNumberScheduled int32 `json:"updatedNumberScheduled,omitempty" protobuf:"varint,6,opt,name=updatedNumberScheduled"`
	// NumberAvailable counts the eligible nodes whose daemon pod has been ready for
	// minReadySeconds.
	NumberAvailable int32 `json:"numberAvailable,omitempty" protobuf:"varint,7,opt,name=numberAvailable"`
	// NumberUnavailable counts the eligible nodes without an available daemon pod.
	NumberUnavailable int32 `json:"numberUnavailable,omitempty" protobuf:"varint,8,opt,name=numberUnavailable"`
	// CollisionCount counts revision-name collisions; it is hashed with the template to
	// name the newest ControllerRevision.
	CollisionCount *int32 `json:"collisionCount,omitempty" protobuf:"varint,9,opt,name=collisionCount"`
	// Conditions are facts about the daemon set.
	Conditions []DaemonSetCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,10,rep,name=conditions"`
}

// DaemonSetCondition is one fact about a daemon set. Kubernetes:
// appsv1.DaemonSetCondition.
type DaemonSetCondition struct {
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

// DaemonSetTemplateGenerationAnnotation is the annotation in which the API server keeps a
// daemon set's template generation: 1 at creation, raised by one at each change of the
// template. Kubernetes keeps it in its internal spec.templateGeneration and writes it out
// under this name in apps/v1. Kubernetes: appsv1.DeprecatedTemplateGeneration.
const DaemonSetTemplateGenerationAnnotation = "deprecated.daemonset.template.generation"

// DaemonSetTemplateGenerationLabel labels a daemon set's pods with the template generation
// they were made from. Kubernetes: extensions.DaemonSetTemplateGenerationKey.
const DaemonSetTemplateGenerationLabel = "pod-template-generation"

// DaemonSetUniqueLabelKey labels a daemon set's pods and ControllerRevisions with the
// hash that names the revision they belong to. Kubernetes:
// appsv1.DefaultDaemonSetUniqueLabelKey (ControllerRevisionHashLabelKey).
const DaemonSetUniqueLabelKey = "controller-revision-hash"

// ControllerRevision is an immutable snapshot of a controller's state at one revision:
// a DaemonSet (or StatefulSet) keeps one per pod template it has run, for rollout
// history and undo. Kubernetes: appsv1.ControllerRevision.
type ControllerRevision struct {
	TypeMeta `json:",inline"`
	// Metadata is the revision's identity.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Data is the serialized state, JSON; for a DaemonSet, a strategic merge patch that
	// replaces spec.template. Required, and cannot change after creation. Without
	// omitempty, as upstream's RawExtension is always written: null in JSON, an empty
	// message in protobuf.
	Data json.RawMessage `json:"data" protobuf:"bytes,2,opt,name=data"`
	// Revision orders the revisions of one controller; the newest is the highest.
	Revision int64 `json:"revision" protobuf:"varint,3,opt,name=revision"`
}

// GetObjectMeta returns the revision's metadata.
func (cr *ControllerRevision) GetObjectMeta() *ObjectMeta { return &cr.Metadata }

// ControllerRevisionList is a list of controller revisions. Kubernetes:
// appsv1.ControllerRevisionList.
type ControllerRevisionList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the controller revisions.
	Items []ControllerRevision `json:"items" protobuf:"bytes,2,rep,name=items"`
}
