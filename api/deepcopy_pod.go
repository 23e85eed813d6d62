package api

import (
	"maps"
	"slices"
)

// Deep copies of Pod and the types inside it. See deepcopy.go for the rules.

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *Pod) DeepCopyInto(out *Pod) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	in.Spec.DeepCopyInto(&out.Spec)
	in.Status.DeepCopyInto(&out.Status)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *Pod) DeepCopy() *Pod {
	if in == nil {
		return nil
	}
	out := new(Pod)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject returns in.DeepCopy() as an Object.
func (in *Pod) DeepCopyObject() Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *PodList) DeepCopyInto(out *PodList) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	out.Items = deepCopySlice(in.Items, (*Pod).DeepCopyInto)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *PodList) DeepCopy() *PodList {
	if in == nil {
		return nil
	}
	out := new(PodList)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *PodTemplateSpec) DeepCopyInto(out *PodTemplateSpec) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	in.Spec.DeepCopyInto(&out.Spec)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *PodTemplateSpec) DeepCopy() *PodTemplateSpec {
	if in == nil {
		return nil
	}
	out := new(PodTemplateSpec)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *PodSpec) DeepCopyInto(out *PodSpec) {
	*out = *in
	out.InitContainers = deepCopySlice(in.InitContainers, (*Container).DeepCopyInto)
	out.Containers = deepCopySlice(in.Containers, (*Container).DeepCopyInto)
	out.TerminationGracePeriodSeconds = clonePtr(in.TerminationGracePeriodSeconds)
	out.NodeSelector = maps.Clone(in.NodeSelector)
	out.Tolerations = deepCopySlice(in.Tolerations, (*Toleration).DeepCopyInto)
	out.Priority = clonePtr(in.Priority)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *PodSpec) DeepCopy() *PodSpec {
	if in == nil {
		return nil
	}
	out := new(PodSpec)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *Container) DeepCopyInto(out *Container) {
	*out = *in
	out.Command = slices.Clone(in.Command)
	out.Args = slices.Clone(in.Args)
	out.Ports = slices.Clone(in.Ports)
	out.Env = slices.Clone(in.Env)
	in.Resources.DeepCopyInto(&out.Resources)
	out.LivenessProbe = in.LivenessProbe.DeepCopy()
	out.ReadinessProbe = in.ReadinessProbe.DeepCopy()
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *Container) DeepCopy() *Container {
	if in == nil {
		return nil
	}
	out := new(Container)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *ResourceRequirements) DeepCopyInto(out *ResourceRequirements) {
	*out = *in
	out.Limits = maps.Clone(in.Limits)
	out.Requests = maps.Clone(in.Requests)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *ResourceRequirements) DeepCopy() *ResourceRequirements {
	if in == nil {
		return nil
	}
	out := new(ResourceRequirements)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *Probe) DeepCopyInto(out *Probe) {
	*out = *in
	in.ProbeHandler.DeepCopyInto(&out.ProbeHandler)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *Probe) DeepCopy() *Probe {
	if in == nil {
		return nil
	}
	out := new(Probe)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *ProbeHandler) DeepCopyInto(out *ProbeHandler) {
	*out = *in
	out.Exec = in.Exec.DeepCopy()
	out.HTTPGet = clonePtr(in.HTTPGet)
	out.TCPSocket = clonePtr(in.TCPSocket)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *ProbeHandler) DeepCopy() *ProbeHandler {
	if in == nil {
		return nil
	}
	out := new(ProbeHandler)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *ExecAction) DeepCopyInto(out *ExecAction) {
	*out = *in
	out.Command = slices.Clone(in.Command)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *ExecAction) DeepCopy() *ExecAction {
	if in == nil {
		return nil
	}
	out := new(ExecAction)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *Toleration) DeepCopyInto(out *Toleration) {
	*out = *in
	out.TolerationSeconds = clonePtr(in.TolerationSeconds)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *Toleration) DeepCopy() *Toleration {
	if in == nil {
		return nil
	}
	out := new(Toleration)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *PodStatus) DeepCopyInto(out *PodStatus) {
	*out = *in
	out.Conditions = slices.Clone(in.Conditions)
	out.HostIPs = slices.Clone(in.HostIPs)
	out.PodIPs = slices.Clone(in.PodIPs)
	out.StartTime = clonePtr(in.StartTime)
	out.InitContainerStatuses = deepCopySlice(in.InitContainerStatuses, (*ContainerStatus).DeepCopyInto)
	out.ContainerStatuses = deepCopySlice(in.ContainerStatuses, (*ContainerStatus).DeepCopyInto)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *PodStatus) DeepCopy() *PodStatus {
	if in == nil {
		return nil
	}
	out := new(PodStatus)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *ContainerStatus) DeepCopyInto(out *ContainerStatus) {
	*out = *in
	in.State.DeepCopyInto(&out.State)
	in.LastTerminationState.DeepCopyInto(&out.LastTerminationState)
	out.Started = clonePtr(in.Started)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *ContainerStatus) DeepCopy() *ContainerStatus {
	if in == nil {
		return nil
	}
	out := new(ContainerStatus)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *ContainerState) DeepCopyInto(out *ContainerState) {
	*out = *in
	out.Waiting = clonePtr(in.Waiting)
	out.Running = clonePtr(in.Running)
	out.Terminated = clonePtr(in.Terminated)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *ContainerState) DeepCopy() *ContainerState {
	if in == nil {
		return nil
	}
	out := new(ContainerState)
	in.DeepCopyInto(out)
	return out
}
