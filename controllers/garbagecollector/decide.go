package garbagecollector

import (
	"slices"

	"github.com/miniplane/miniplane/api"
)

// OwnerState is what a live read says of one owner a dependent references.
type OwnerState int

const (
	// OwnerPresent: the owner exists with the referenced UID and is not
	// waiting for its dependents.
	OwnerPresent OwnerState = iota
	// OwnerAbsent: the server says NotFound, or holds another object (another
	// UID) under the owner's name. The reference dangles.
	OwnerAbsent
	// OwnerWaiting: the owner is being deleted in the foreground: it has a
	// deletionTimestamp and the foregroundDeletion finalizer.
	OwnerWaiting
	// OwnerUnknown: the reference names a kind the server does not serve, or
	// a namespaced owner of a cluster-scoped object; it cannot be checked,
	// so it counts as present: the collector never deletes on a guess.
	OwnerUnknown
)

var ownerStateNames = [...]string{"Present", "Absent", "Waiting", "Unknown"}

func (s OwnerState) String() string { return ownerStateNames[s] }

// Owner is one ownerReference of a dependent with its owner's state.
type Owner struct {
	Ref   api.OwnerReference
	State OwnerState
}

// Verb is what to do to a dependent.
type Verb int

const (
	// Keep: nothing to do.
	Keep Verb = iota
	// RemoveRefs: remove the references to Action.RemoveUIDs and keep the
	// object: it still has an owner.
	RemoveRefs
	// Delete: delete the object with Action.Policy.
	Delete
)

// Dependent is what a decision needs of the object itself.
type Dependent struct {
	// Finalizers are the object's finalizers.
	Finalizers []string
	// HasDependents: other objects name it as their owner.
	HasDependents bool
	// DependentDeletingDependents: one of its own dependents is being deleted
	// in the foreground — with an owner of its own doing the same, a possible
	// ownership cycle that would wait forever.
	DependentDeletingDependents bool
}

// Action is the decision about one dependent.
type Action struct {
	Verb       Verb
	RemoveUIDs []api.UID               // RemoveRefs: the owners to forget, in reference order
	Policy     api.DeletionPropagation // Delete: how the delete propagates to the object's own dependents
	// Unblock: before a Delete, set blockOwnerDeletion false on the object's
	// references, so that no owner waits on it (breaks ownership cycles).
	Unblock bool
}

// DecideDependent decides what to do with a dependent given its owners'
// states, its own finalizers and whether it has dependents of its own —
// Kubernetes' attemptToDeleteItem:
//   - no owners: keep (it is not garbage);
//   - an owner remains (present or unknown): keep, removing the references
//     to the absent owners and to the owners waiting for their dependents
//     (which must not wait on it any more);
//   - every owner is gone or waiting, some wait, and the object has
//     dependents: delete it in the foreground too, so that the waiting owner
//     goes only after the whole subtree — first unblocking its references
//     when a dependent of its own waits too, which may be a cycle;
//   - otherwise delete it, with the policy its own finalizers already ask
//     for (orphan, foreground), else in the background.
func DecideDependent(owners []Owner, d Dependent) Action {
	if len(owners) == 0 {
		return Action{Verb: Keep}
	}
	var solid, waiting int
	var remove []api.UID
	for _, o := range owners {
		switch o.State {
		case OwnerPresent, OwnerUnknown:
			solid++
		case OwnerWaiting:
			waiting++
			remove = append(remove, o.Ref.UID)
		case OwnerAbsent:
			remove = append(remove, o.Ref.UID)
		}
	}
	switch {
	case solid > 0 && len(remove) == 0:
		return Action{Verb: Keep}
	case solid > 0:
		return Action{Verb: RemoveRefs, RemoveUIDs: remove}
	case waiting > 0 && d.HasDependents:
		return Action{Verb: Delete, Policy: api.DeletePropagationForeground, Unblock: d.DependentDeletingDependents}
	case slices.Contains(d.Finalizers, api.FinalizerOrphanDependents):
		return Action{Verb: Delete, Policy: api.DeletePropagationOrphan}
	case slices.Contains(d.Finalizers, api.FinalizerDeleteDependents):
		return Action{Verb: Delete, Policy: api.DeletePropagationForeground}
	}
	return Action{Verb: Delete, Policy: api.DeletePropagationBackground}
}

// StateOf classifies a live read of an owner: obj is what the server
// returned under the owner's name (nil when it said NotFound).
func StateOf(ref api.OwnerReference, obj api.Object) OwnerState {
	if obj == nil {
		return OwnerAbsent
	}
	m := obj.GetObjectMeta()
	switch {
	case m.UID != ref.UID:
		return OwnerAbsent
	case deletingDependents(m):
		return OwnerWaiting
	}
	return OwnerPresent
}

// deletingDependents reports whether an object is being deleted in the
// foreground: it waits for its blocking dependents.
func deletingDependents(m *api.ObjectMeta) bool {
	return m.DeletionTimestamp != nil && slices.Contains(m.Finalizers, api.FinalizerDeleteDependents)
}

// orphaning reports whether an object is being deleted with the Orphan
// policy: its dependents must first lose their references to it.
func orphaning(m *api.ObjectMeta) bool {
	return m.DeletionTimestamp != nil && slices.Contains(m.Finalizers, api.FinalizerOrphanDependents)
}

// blocks reports whether ref makes a foreground deletion of its owner wait.
func blocks(ref api.OwnerReference) bool {
	return ref.BlockOwnerDeletion != nil && *ref.BlockOwnerDeletion
}

// withoutOwners returns refs without the references to uids, and whether
// any was removed. refs is not changed.
func withoutOwners(refs []api.OwnerReference, uids []api.UID) ([]api.OwnerReference, bool) {
	out := slices.DeleteFunc(slices.Clone(refs), func(r api.OwnerReference) bool {
		return slices.Contains(uids, r.UID)
	})
	if len(out) == len(refs) {
		return refs, false
	}
	if len(out) == 0 {
		out = nil
	}
	return out, true
}

// unblocked returns refs with blockOwnerDeletion false wherever it was
// true, and whether any was. refs is not changed.
func unblocked(refs []api.OwnerReference) ([]api.OwnerReference, bool) {
	out := slices.Clone(refs)
	changed := false
	for i := range out {
		if blocks(out[i]) {
			no := false
			out[i].BlockOwnerDeletion = &no
			changed = true
		}
	}
	if !changed {
		return refs, false
	}
	return out, true
}

// withoutFinalizer returns finalizers without f, and whether it was there.
// finalizers is not changed.
func withoutFinalizer(finalizers []string, f string) ([]string, bool) {
	out := slices.DeleteFunc(slices.Clone(finalizers), func(x string) bool { return x == f })
	if len(out) == len(finalizers) {
		return finalizers, false
	}
	if len(out) == 0 {
		out = nil
	}
	return out, true
}
