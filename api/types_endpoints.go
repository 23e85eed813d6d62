package api

// Endpoints lists the addresses behind a service: it has the service's name and namespace,
// and the endpoints controller rewrites it whenever the selected pods change. Kubernetes:
// corev1.Endpoints.
type Endpoints struct {
	TypeMeta `json:",inline"`
	// Metadata is the object's identity; its name is the service's name.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Subsets group addresses by the set of ports they serve. Every address appears with
	// every port of its subset.
	Subsets []EndpointSubset `json:"subsets,omitempty" protobuf:"bytes,2,rep,name=subsets"`
}

// GetObjectMeta returns the endpoints' metadata.
func (e *Endpoints) GetObjectMeta() *ObjectMeta { return &e.Metadata }

// EndpointsList is a list of endpoints. Kubernetes: corev1.EndpointsList.
type EndpointsList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the endpoints.
	Items []Endpoints `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// EndpointSubset is a group of addresses that all serve the same ports. Kubernetes:
// corev1.EndpointSubset.
type EndpointSubset struct {
	// Addresses are ready to receive traffic.
	Addresses []EndpointAddress `json:"addresses,omitempty" protobuf:"bytes,1,rep,name=addresses"`
	// NotReadyAddresses are selected by the service but not (yet) ready.
	NotReadyAddresses []EndpointAddress `json:"notReadyAddresses,omitempty" protobuf:"bytes,2,rep,name=notReadyAddresses"`
	// Ports are the ports every address in the subset serves.
	Ports []EndpointPort `json:"ports,omitempty" protobuf:"bytes,3,rep,name=ports"`
}

// EndpointAddress is one backend, usually a pod. Kubernetes: corev1.EndpointAddress.
type EndpointAddress struct {
	// IP of the backend.
	IP string `json:"ip" protobuf:"bytes,1,opt,name=ip"`
	// Hostname of the backend, for headless-service DNS records.
	Hostname string `json:"hostname,omitempty" protobuf:"bytes,3,opt,name=hostname"`
	// NodeName is the node the backend runs on.
	NodeName *string `json:"nodeName,omitempty" protobuf:"bytes,4,opt,name=nodeName"`
	// TargetRef points at the pod behind the address.
	TargetRef *ObjectReference `json:"targetRef,omitempty" protobuf:"bytes,2,opt,name=targetRef"`
}

// EndpointPort is one port served by the addresses of a subset. Kubernetes:
// corev1.EndpointPort.
type EndpointPort struct {
	// Name matches the service port's name.
	Name string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	// Port is the port number on the backends.
	Port int32 `json:"port" protobuf:"varint,2,opt,name=port"`
	// Protocol defaults to TCP.
	Protocol Protocol `json:"protocol,omitempty" protobuf:"bytes,3,opt,name=protocol"`
	// AppProtocol is the application protocol, copied from the service port.
	AppProtocol *string `json:"appProtocol,omitempty" protobuf:"bytes,4,opt,name=appProtocol"`
}
