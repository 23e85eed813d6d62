package api

import (
	"maps"
	"slices"
)

// Deep copies of the kinds other than Pod (ReplicationController, Service, Endpoints, Node,
// Lease, Event, Namespace), their lists and the types inside them. See deepcopy.go for the
// rules.

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *ReplicationController) DeepCopyInto(out *ReplicationController) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	in.Spec.DeepCopyInto(&out.Spec)
	in.Status.DeepCopyInto(&out.Status)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *ReplicationController) DeepCopy() *ReplicationController {
	if in == nil {
		return nil
	}
	out := new(ReplicationController)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject returns in.DeepCopy() as an Object.
func (in *ReplicationController) DeepCopyObject() Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *ReplicationControllerList) DeepCopyInto(out *ReplicationControllerList) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	out.Items = deepCopySlice(in.Items, (*ReplicationController).DeepCopyInto)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *ReplicationControllerList) DeepCopy() *ReplicationControllerList {
	if in == nil {
		return nil
	}
	out := new(ReplicationControllerList)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *ReplicationControllerSpec) DeepCopyInto(out *ReplicationControllerSpec) {
	*out = *in
	out.Replicas = clonePtr(in.Replicas)
	out.Selector = maps.Clone(in.Selector)
	out.Template = in.Template.DeepCopy()
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *ReplicationControllerSpec) DeepCopy() *ReplicationControllerSpec {
	if in == nil {
		return nil
	}
	out := new(ReplicationControllerSpec)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *ReplicationControllerStatus) DeepCopyInto(out *ReplicationControllerStatus) {
	*out = *in
	out.Conditions = slices.Clone(in.Conditions)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *ReplicationControllerStatus) DeepCopy() *ReplicationControllerStatus {
	if in == nil {
		return nil
	}
	out := new(ReplicationControllerStatus)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *Service) DeepCopyInto(out *Service) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	in.Spec.DeepCopyInto(&out.Spec)
	in.Status.DeepCopyInto(&out.Status)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *Service) DeepCopy() *Service {
	if in == nil {
		return nil
	}
	out := new(Service)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject returns in.DeepCopy() as an Object.
func (in *Service) DeepCopyObject() Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *ServiceList) DeepCopyInto(out *ServiceList) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	out.Items = deepCopySlice(in.Items, (*Service).DeepCopyInto)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *ServiceList) DeepCopy() *ServiceList {
	if in == nil {
		return nil
	}
	out := new(ServiceList)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *ServiceSpec) DeepCopyInto(out *ServiceSpec) {
	*out = *in
	out.Ports = deepCopySlice(in.Ports, (*ServicePort).DeepCopyInto)
	out.Selector = maps.Clone(in.Selector)
	out.ClusterIPs = slices.Clone(in.ClusterIPs)
	out.IPFamilies = slices.Clone(in.IPFamilies)
	out.IPFamilyPolicy = clonePtr(in.IPFamilyPolicy)
	out.InternalTrafficPolicy = clonePtr(in.InternalTrafficPolicy)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *ServiceSpec) DeepCopy() *ServiceSpec {
	if in == nil {
		return nil
	}
	out := new(ServiceSpec)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *ServicePort) DeepCopyInto(out *ServicePort) {
	*out = *in
	out.AppProtocol = clonePtr(in.AppProtocol)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *ServicePort) DeepCopy() *ServicePort {
	if in == nil {
		return nil
	}
	out := new(ServicePort)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *ServiceStatus) DeepCopyInto(out *ServiceStatus) {
	*out = *in
	in.LoadBalancer.DeepCopyInto(&out.LoadBalancer)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *ServiceStatus) DeepCopy() *ServiceStatus {
	if in == nil {
		return nil
	}
	out := new(ServiceStatus)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *LoadBalancerStatus) DeepCopyInto(out *LoadBalancerStatus) {
	*out = *in
	out.Ingress = slices.Clone(in.Ingress)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *LoadBalancerStatus) DeepCopy() *LoadBalancerStatus {
	if in == nil {
		return nil
	}
	out := new(LoadBalancerStatus)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *Endpoints) DeepCopyInto(out *Endpoints) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	out.Subsets = deepCopySlice(in.Subsets, (*EndpointSubset).DeepCopyInto)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *Endpoints) DeepCopy() *Endpoints {
	if in == nil {
		return nil
	}
	out := new(Endpoints)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject returns in.DeepCopy() as an Object.
func (in *Endpoints) DeepCopyObject() Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *EndpointsList) DeepCopyInto(out *EndpointsList) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	out.Items = deepCopySlice(in.Items, (*Endpoints).DeepCopyInto)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *EndpointsList) DeepCopy() *EndpointsList {
	if in == nil {
		return nil
	}
	out := new(EndpointsList)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *EndpointSubset) DeepCopyInto(out *EndpointSubset) {
	*out = *in
	out.Addresses = deepCopySlice(in.Addresses, (*EndpointAddress).DeepCopyInto)
	out.NotReadyAddresses = deepCopySlice(in.NotReadyAddresses, (*EndpointAddress).DeepCopyInto)
	out.Ports = deepCopySlice(in.Ports, (*EndpointPort).DeepCopyInto)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *EndpointSubset) DeepCopy() *EndpointSubset {
	if in == nil {
		return nil
	}
	out := new(EndpointSubset)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *EndpointAddress) DeepCopyInto(out *EndpointAddress) {
	*out = *in
	out.NodeName = clonePtr(in.NodeName)
	out.TargetRef = clonePtr(in.TargetRef)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *EndpointAddress) DeepCopy() *EndpointAddress {
	if in == nil {
		return nil
	}
	out := new(EndpointAddress)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *EndpointPort) DeepCopyInto(out *EndpointPort) {
	*out = *in
	out.AppProtocol = clonePtr(in.AppProtocol)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *EndpointPort) DeepCopy() *EndpointPort {
	if in == nil {
		return nil
	}
	out := new(EndpointPort)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *Node) DeepCopyInto(out *Node) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	in.Spec.DeepCopyInto(&out.Spec)
	in.Status.DeepCopyInto(&out.Status)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *Node) DeepCopy() *Node {
	if in == nil {
		return nil
	}
	out := new(Node)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject returns in.DeepCopy() as an Object.
func (in *Node) DeepCopyObject() Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *NodeList) DeepCopyInto(out *NodeList) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	out.Items = deepCopySlice(in.Items, (*Node).DeepCopyInto)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *NodeList) DeepCopy() *NodeList {
	if in == nil {
		return nil
	}
	out := new(NodeList)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *NodeSpec) DeepCopyInto(out *NodeSpec) {
	*out = *in
	out.PodCIDRs = slices.Clone(in.PodCIDRs)
	out.Taints = deepCopySlice(in.Taints, (*Taint).DeepCopyInto)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *NodeSpec) DeepCopy() *NodeSpec {
	if in == nil {
		return nil
	}
	out := new(NodeSpec)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *Taint) DeepCopyInto(out *Taint) {
	*out = *in
	out.TimeAdded = clonePtr(in.TimeAdded)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *Taint) DeepCopy() *Taint {
	if in == nil {
		return nil
	}
	out := new(Taint)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *NodeStatus) DeepCopyInto(out *NodeStatus) {
	*out = *in
	out.Capacity = maps.Clone(in.Capacity)
	out.Allocatable = maps.Clone(in.Allocatable)
	out.Conditions = slices.Clone(in.Conditions)
	out.Addresses = slices.Clone(in.Addresses)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *NodeStatus) DeepCopy() *NodeStatus {
	if in == nil {
		return nil
	}
	out := new(NodeStatus)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *Lease) DeepCopyInto(out *Lease) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	in.Spec.DeepCopyInto(&out.Spec)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *Lease) DeepCopy() *Lease {
	if in == nil {
		return nil
	}
	out := new(Lease)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject returns in.DeepCopy() as an Object.
func (in *Lease) DeepCopyObject() Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *LeaseList) DeepCopyInto(out *LeaseList) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	out.Items = deepCopySlice(in.Items, (*Lease).DeepCopyInto)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *LeaseList) DeepCopy() *LeaseList {
	if in == nil {
		return nil
	}
	out := new(LeaseList)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *LeaseSpec) DeepCopyInto(out *LeaseSpec) {
	*out = *in
	out.HolderIdentity = clonePtr(in.HolderIdentity)
	out.LeaseDurationSeconds = clonePtr(in.LeaseDurationSeconds)
	out.AcquireTime = clonePtr(in.AcquireTime)
	out.RenewTime = clonePtr(in.RenewTime)
	out.LeaseTransitions = clonePtr(in.LeaseTransitions)
	out.Strategy = clonePtr(in.Strategy)
	out.PreferredHolder = clonePtr(in.PreferredHolder)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *LeaseSpec) DeepCopy() *LeaseSpec {
	if in == nil {
		return nil
	}
	out := new(LeaseSpec)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *Event) DeepCopyInto(out *Event) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	out.Series = clonePtr(in.Series)
	out.Related = clonePtr(in.Related)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *Event) DeepCopy() *Event {
	if in == nil {
		return nil
	}
	out := new(Event)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject returns in.DeepCopy() as an Object.
func (in *Event) DeepCopyObject() Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *EventList) DeepCopyInto(out *EventList) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	out.Items = deepCopySlice(in.Items, (*Event).DeepCopyInto)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *EventList) DeepCopy() *EventList {
	if in == nil {
		return nil
	}
	out := new(EventList)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *Namespace) DeepCopyInto(out *Namespace) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	in.Spec.DeepCopyInto(&out.Spec)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *Namespace) DeepCopy() *Namespace {
	if in == nil {
		return nil
	}
	out := new(Namespace)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject returns in.DeepCopy() as an Object.
func (in *Namespace) DeepCopyObject() Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *NamespaceList) DeepCopyInto(out *NamespaceList) {
	*out = *in
	in.Metadata.DeepCopyInto(&out.Metadata)
	out.Items = deepCopySlice(in.Items, (*Namespace).DeepCopyInto)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *NamespaceList) DeepCopy() *NamespaceList {
	if in == nil {
		return nil
	}
	out := new(NamespaceList)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies in into out; out shares nothing mutable with in.
func (in *NamespaceSpec) DeepCopyInto(out *NamespaceSpec) {
	*out = *in
	out.Finalizers = slices.Clone(in.Finalizers)
}

// DeepCopy returns a copy of in that shares nothing mutable with it, or nil if in is nil.
func (in *NamespaceSpec) DeepCopy() *NamespaceSpec {
	if in == nil {
		return nil
	}
	out := new(NamespaceSpec)
	in.DeepCopyInto(out)
	return out
}
