package api

// EndpointSlice is a slice of the endpoints behind a service: the endpointslice
// controller keeps a few per service (at most 100 endpoints each, one address type
// each), labelled with the service's name, and kube-proxy reads them in place of the
// older Endpoints. Kubernetes: discoveryv1.EndpointSlice (apiVersion
// discovery.k8s.io/v1).
type EndpointSlice struct {
	TypeMeta `json:",inline"`
	// Metadata is the slice's identity; its label kubernetes.io/service-name names the
	// service.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// AddressType is the kind of every address in the slice: IPv4, IPv6 or FQDN.
	// Immutable.
	AddressType AddressType `json:"addressType" protobuf:"bytes,4,opt,name=addressType"`
	// Endpoints are the backends, at most 1000.
	Endpoints []Endpoint `json:"endpoints" protobuf:"bytes,2,rep,name=endpoints"`
	// Ports are the ports every endpoint of the slice serves.
	Ports []EndpointSlicePort `json:"ports" protobuf:"bytes,3,rep,name=ports"`
}

// GetObjectMeta returns the slice's metadata.
func (s *EndpointSlice) GetObjectMeta() *ObjectMeta { return &s.Metadata }

// EndpointSliceList is a list of endpoint slices. Kubernetes:
// discoveryv1.EndpointSliceList.
type EndpointSliceList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the slices.
	Items []EndpointSlice `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// AddressType is the kind of address an endpoint slice holds. Kubernetes:
// discoveryv1.AddressType.
type AddressType string

// The address types an endpoint slice may have.
const (
	// AddressTypeIPv4: every address is an IPv4 address.
	AddressTypeIPv4 AddressType = "IPv4"
	// AddressTypeIPv6: every address is an IPv6 address.
	AddressTypeIPv6 AddressType = "IPv6"
	// AddressTypeFQDN: every address is a fully qualified domain name.
	AddressTypeFQDN AddressType = "FQDN"
)

// Endpoint is one backend of a slice, usually a pod. Kubernetes:
// discoveryv1.Endpoint.
type Endpoint struct {
	// Addresses of the backend, of the slice's address type; consumers use the first.
	Addresses []string `json:"addresses" protobuf:"bytes,1,rep,name=addresses"`
	// Conditions say whether the backend takes traffic.
	Conditions EndpointConditions `json:"conditions,omitempty" protobuf:"bytes,2,opt,name=conditions"`
	// Hostname of the backend, for headless-service DNS records.
	Hostname *string `json:"hostname,omitempty" protobuf:"bytes,3,opt,name=hostname"`
	// TargetRef points at the pod behind the endpoint.
	TargetRef *ObjectReference `json:"targetRef,omitempty" protobuf:"bytes,4,opt,name=targetRef"`
	// DeprecatedTopology is the v1beta1 topology map, kept for round trips.
	DeprecatedTopology map[string]string `json:"deprecatedTopology,omitempty" protobuf:"bytes,5,rep,name=deprecatedTopology" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	// NodeName is the node the backend runs on.
	NodeName *string `json:"nodeName,omitempty" protobuf:"bytes,6,opt,name=nodeName"`
	// Zone is the zone of that node (its topology.kubernetes.io/zone label).
	Zone *string `json:"zone,omitempty" protobuf:"bytes,7,opt,name=zone"`
	// Hints are topology-aware routing hints; miniplane's controller sets none.
	Hints *EndpointHints `json:"hints,omitempty" protobuf:"bytes,8,opt,name=hints"`
}

// EndpointConditions are an endpoint's state. Kubernetes:
// discoveryv1.EndpointConditions.
type EndpointConditions struct {
	// Ready: the backend takes new traffic (its pod is ready and not terminating).
	Ready *bool `json:"ready,omitempty" protobuf:"varint,1,opt,name=ready"`
	// Serving: the pod is ready, whether or not it is terminating.
	Serving *bool `json:"serving,omitempty" protobuf:"varint,2,opt,name=serving"`
	// Terminating: the pod is being deleted.
	Terminating *bool `json:"terminating,omitempty" protobuf:"varint,3,opt,name=terminating"`
}

// EndpointHints are topology hints for an endpoint. Kubernetes:
// discoveryv1.EndpointHints.
type EndpointHints struct {
	// ForZones are the zones that should send traffic to this endpoint.
	ForZones []ForZone `json:"forZones,omitempty" protobuf:"bytes,1,rep,name=forZones"`
}

// ForZone names a zone in a hint. Kubernetes: discoveryv1.ForZone.
type ForZone struct {
	// Name is the zone's name.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
}

// EndpointSlicePort is one port the endpoints of a slice serve. Kubernetes:
// discoveryv1.EndpointPort.
type EndpointSlicePort struct {
	// Name matches the service port's name; defaults to "".
	Name *string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	// Protocol defaults to TCP.
	Protocol *Protocol `json:"protocol,omitempty" protobuf:"bytes,2,opt,name=protocol"`
	// Port is the port number on the backends; nil means every port.
	Port *int32 `json:"port,omitempty" protobuf:"varint,3,opt,name=port"`
	// AppProtocol is the application protocol, copied from the service port.
	AppProtocol *string `json:"appProtocol,omitempty" protobuf:"bytes,4,opt,name=appProtocol"`
}
