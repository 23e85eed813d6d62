package api

// This file holds the deep copies of the objects of the named API groups served beside the
// core kinds whose storage they share or act on: events.k8s.io/v1 Event and policy/v1
// Eviction. See deepcopy.go for the rule every DeepCopyInto follows.

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *EventsV1Event) DeepCopyInto(out *EventsV1Event) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	out.Series = clonePtr(in.Series)
	out.Related = clonePtr(in.Related)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *EventsV1Event) DeepCopy() *EventsV1Event {
	if in == nil {
		return nil
	}
	out := new(EventsV1Event)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject returns in.DeepCopy() as an Object.
func (in *EventsV1Event) DeepCopyObject() Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *EventsV1EventList) DeepCopyInto(out *EventsV1EventList) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	out.Items = deepCopySlice(in.Items, (*EventsV1Event).DeepCopyInto)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *EventsV1EventList) DeepCopy() *EventsV1EventList {
	if in == nil {
		return nil
	}
	out := new(EventsV1EventList)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *Eviction) DeepCopyInto(out *Eviction) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	out.DeleteOptions = in.DeleteOptions.DeepCopy()
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *Eviction) DeepCopy() *Eviction {
	if in == nil {
		return nil
	}
	out := new(Eviction)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject returns in.DeepCopy() as an Object.
func (in *Eviction) DeepCopyObject() Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}
