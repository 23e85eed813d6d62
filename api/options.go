package api

// DeleteOptions is the optional body of a DELETE request. Kubernetes: metav1.DeleteOptions.
type DeleteOptions struct {
	TypeMeta `json:",inline"`
	// GracePeriodSeconds overrides the object's default grace period; 0 deletes at once.
	GracePeriodSeconds *int64 `json:"gracePeriodSeconds,omitempty" protobuf:"varint,1,opt,name=gracePeriodSeconds"`
	// Preconditions must hold or the delete fails with Conflict.
	Preconditions *Preconditions `json:"preconditions,omitempty" protobuf:"bytes,2,opt,name=preconditions"`
	// OrphanDependents is the deprecated form of PropagationPolicy: true means Orphan.
	OrphanDependents *bool `json:"orphanDependents,omitempty" protobuf:"varint,3,opt,name=orphanDependents"`
	// PropagationPolicy says what happens to the object's dependents.
	// Its upstream Go tag says "varint"; the wire type follows generated.proto (string).
	PropagationPolicy *DeletionPropagation `json:"propagationPolicy,omitempty" protobuf:"bytes,4,opt,name=propagationPolicy"`
	// DryRun, when it holds "All", validates the delete without doing it.
	DryRun []string `json:"dryRun,omitempty" protobuf:"bytes,5,rep,name=dryRun"`
}

// Preconditions guard a delete: the object must still be the one the client saw.
// Kubernetes: metav1.Preconditions.
type Preconditions struct {
	// UID the object must have.
	UID *UID `json:"uid,omitempty" protobuf:"bytes,1,opt,name=uid"`
	// ResourceVersion the object must have.
	ResourceVersion *string `json:"resourceVersion,omitempty" protobuf:"bytes,2,opt,name=resourceVersion"`
}

// DeletionPropagation says what deleting an owner does to its dependents (the objects whose
// ownerReferences name it). Kubernetes: metav1.DeletionPropagation.
type DeletionPropagation string

// Deletion propagation policies.
const (
	// DeletePropagationOrphan removes the owner and strips its reference from the
	// dependents, which live on.
	DeletePropagationOrphan DeletionPropagation = "Orphan"
	// DeletePropagationBackground removes the owner at once; the garbage collector then
	// deletes the dependents.
	DeletePropagationBackground DeletionPropagation = "Background"
	// DeletePropagationForeground keeps the owner, with a deletionTimestamp and the
	// "foregroundDeletion" finalizer, until every dependent with blockOwnerDeletion is gone.
	DeletePropagationForeground DeletionPropagation = "Foreground"
)

// DryRunAll is the value of DeleteOptions.DryRun that asks for a dry run.
const DryRunAll = "All"

// Finalizers the server adds for a delete's propagation policy; the garbage
// collector acts on them and removes them. Kubernetes: metav1's
// FinalizerOrphanDependents and FinalizerDeleteDependents.
const (
	// FinalizerOrphanDependents holds an owner deleted with the Orphan policy
	// until its dependents' references to it are removed.
	FinalizerOrphanDependents = "orphan"
	// FinalizerDeleteDependents holds an owner deleted with the Foreground
	// policy until its blocking dependents are deleted.
	FinalizerDeleteDependents = "foregroundDeletion"
)
