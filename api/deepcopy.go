package api

import (
	"maps"
	"slices"
)

// This file holds the deep-copy helpers and the deep copies of the metadata types and the
// non-kind objects. Deep copies are written by hand, without reflection or JSON, because the
// store and informers copy objects on hot paths. The rule each DeepCopyInto follows: copy
// the struct by value, then replace every map, slice and pointer with a fresh copy. A test
// fills every field of every type through reflection and checks that no copy shares memory
// with its original, so a field added without its copy line fails the build's tests.
//
// Time and MicroTime are copied by value: the *time.Location inside a time.Time is never
// mutated, so sharing it is safe.

// clonePtr returns a pointer to a copy of *p, or nil. T must hold no maps, slices or
// pointers that need copying themselves.
func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// deepCopySlice returns a new slice holding deep copies of in's elements, made by
// copyInto, or nil if in is nil (an empty slice stays empty, not nil).
func deepCopySlice[T any](in []T, copyInto func(in, out *T)) []T {
	if in == nil {
		return nil
	}
	out := make([]T, len(in))
	for i := range in {
		copyInto(&in[i], &out[i])
	}
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *ObjectMeta) DeepCopyInto(out *ObjectMeta) {
	*out = *in
	out.DeletionTimestamp = clonePtr(in.DeletionTimestamp)
	out.DeletionGracePeriodSeconds = clonePtr(in.DeletionGracePeriodSeconds)
	out.Labels = maps.Clone(in.Labels)
	out.Annotations = maps.Clone(in.Annotations)
	out.OwnerReferences = deepCopySlice(in.OwnerReferences, (*OwnerReference).DeepCopyInto)
	out.Finalizers = slices.Clone(in.Finalizers)
	out.ManagedFields = deepCopySlice(in.ManagedFields, (*ManagedFieldsEntry).DeepCopyInto)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *ObjectMeta) DeepCopy() *ObjectMeta {
	if in == nil {
		return nil
	}
	out := new(ObjectMeta)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *ManagedFieldsEntry) DeepCopyInto(out *ManagedFieldsEntry) {
	*out = *in
	out.Time = clonePtr(in.Time)
	out.FieldsV1 = slices.Clone(in.FieldsV1)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *ManagedFieldsEntry) DeepCopy() *ManagedFieldsEntry {
	if in == nil {
		return nil
	}
	out := new(ManagedFieldsEntry)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *OwnerReference) DeepCopyInto(out *OwnerReference) {
	*out = *in
	out.Controller = clonePtr(in.Controller)
	out.BlockOwnerDeletion = clonePtr(in.BlockOwnerDeletion)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *OwnerReference) DeepCopy() *OwnerReference {
	if in == nil {
		return nil
	}
	out := new(OwnerReference)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *ListMeta) DeepCopyInto(out *ListMeta) {
	*out = *in
	out.RemainingItemCount = clonePtr(in.RemainingItemCount)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *ListMeta) DeepCopy() *ListMeta {
	if in == nil {
		return nil
	}
	out := new(ListMeta)
	in.DeepCopyInto(out)
	return out
}

// DeepCopy returns a copy of in, or nil if in is nil.
func (in ResourceList) DeepCopy() ResourceList {
	return maps.Clone(in)
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *Status) DeepCopyInto(out *Status) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	out.Details = in.Details.DeepCopy()
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *Status) DeepCopy() *Status {
	if in == nil {
		return nil
	}
	out := new(Status)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *StatusDetails) DeepCopyInto(out *StatusDetails) {
	*out = *in
	out.Causes = slices.Clone(in.Causes)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *StatusDetails) DeepCopy() *StatusDetails {
	if in == nil {
		return nil
	}
	out := new(StatusDetails)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *DeleteOptions) DeepCopyInto(out *DeleteOptions) {
	*out = *in
	out.GracePeriodSeconds = clonePtr(in.GracePeriodSeconds)
	out.Preconditions = in.Preconditions.DeepCopy()
	out.OrphanDependents = clonePtr(in.OrphanDependents)
	out.PropagationPolicy = clonePtr(in.PropagationPolicy)
	out.DryRun = slices.Clone(in.DryRun)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *DeleteOptions) DeepCopy() *DeleteOptions {
	if in == nil {
		return nil
	}
	out := new(DeleteOptions)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *Preconditions) DeepCopyInto(out *Preconditions) {
	*out = *in
	out.UID = clonePtr(in.UID)
	out.ResourceVersion = clonePtr(in.ResourceVersion)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *Preconditions) DeepCopy() *Preconditions {
	if in == nil {
		return nil
	}
	out := new(Preconditions)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *WatchEvent) DeepCopyInto(out *WatchEvent) {
	*out = *in
	out.Object = slices.Clone(in.Object)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *WatchEvent) DeepCopy() *WatchEvent {
	if in == nil {
		return nil
	}
	out := new(WatchEvent)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *Scale) DeepCopyInto(out *Scale) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *Scale) DeepCopy() *Scale {
	if in == nil {
		return nil
	}
	out := new(Scale)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject returns in.DeepCopy() as an Object.
func (in *Scale) DeepCopyObject() Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *Binding) DeepCopyInto(out *Binding) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *Binding) DeepCopy() *Binding {
	if in == nil {
		return nil
	}
	out := new(Binding)
	in.DeepCopyInto(out)
	return out
}
