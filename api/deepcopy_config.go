package api

import (
	"maps"
	"slices"
)

// This file holds the deep copies of ConfigMap, Secret and ServiceAccount and their lists.
// See deepcopy.go for the rule they follow.

// cloneBytesMap returns a copy of m whose values are copies too, or nil if m is nil.
func cloneBytesMap(m map[string][]byte) map[string][]byte {
	if m == nil {
		return nil
	}
	out := make(map[string][]byte, len(m))
	for k, v := range m {
		out[k] = slices.Clone(v)
	}
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *ConfigMap) DeepCopyInto(out *ConfigMap) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	out.Immutable = clonePtr(in.Immutable)
	out.Data = maps.Clone(in.Data)
	out.BinaryData = cloneBytesMap(in.BinaryData)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *ConfigMap) DeepCopy() *ConfigMap {
	if in == nil {
		return nil
	}
	out := new(ConfigMap)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject returns in.DeepCopy() as an Object.
func (in *ConfigMap) DeepCopyObject() Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *ConfigMapList) DeepCopyInto(out *ConfigMapList) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	out.Items = deepCopySlice(in.Items, (*ConfigMap).DeepCopyInto)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *ConfigMapList) DeepCopy() *ConfigMapList {
	if in == nil {
		return nil
	}
	out := new(ConfigMapList)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *Secret) DeepCopyInto(out *Secret) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	out.Immutable = clonePtr(in.Immutable)
	out.Data = cloneBytesMap(in.Data)
	out.StringData = maps.Clone(in.StringData)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *Secret) DeepCopy() *Secret {
	if in == nil {
		return nil
	}
	out := new(Secret)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject returns in.DeepCopy() as an Object.
func (in *Secret) DeepCopyObject() Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *SecretList) DeepCopyInto(out *SecretList) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	out.Items = deepCopySlice(in.Items, (*Secret).DeepCopyInto)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *SecretList) DeepCopy() *SecretList {
	if in == nil {
		return nil
	}
	out := new(SecretList)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *ServiceAccount) DeepCopyInto(out *ServiceAccount) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	out.Secrets = slices.Clone(in.Secrets)
	out.ImagePullSecrets = slices.Clone(in.ImagePullSecrets)
	out.AutomountServiceAccountToken = clonePtr(in.AutomountServiceAccountToken)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *ServiceAccount) DeepCopy() *ServiceAccount {
	if in == nil {
		return nil
	}
	out := new(ServiceAccount)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject returns in.DeepCopy() as an Object.
func (in *ServiceAccount) DeepCopyObject() Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *ServiceAccountList) DeepCopyInto(out *ServiceAccountList) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	out.Items = deepCopySlice(in.Items, (*ServiceAccount).DeepCopyInto)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *ServiceAccountList) DeepCopy() *ServiceAccountList {
	if in == nil {
		return nil
	}
	out := new(ServiceAccountList)
	in.DeepCopyInto(out)
	return out
}
