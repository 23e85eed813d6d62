package api

// Endpoints lists the addresses behind a service: it has the service's name and namespace,
// and the endpoints controller rewrites it whenever the selected pods change. Kubernetes:
// corev1.Endpoints.
type Endpoints struct {
	TypeMeta `json:",inline"`
	// Metadata is the object's identity; its name is the service's name.
	Metadata ObjectMeta `json:"metadata,omitempty"`
	// Subsets group addresses by the set of ports they serve. Every address appears with
	// every port of its subset.
	Subsets []EndpointSubset `json:"subsets,omitempty"`
}

// GetObjectMeta returns the endpoints' metadata.
func (e *Endpoints) GetObjectMeta() *ObjectMeta { return &e.Metadata }

// EndpointsList is a list of endpoints. Kubernetes: corev1.EndpointsList.
type EndpointsList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty"`
	// Items are the endpoints.
	Items []Endpoints `json:"items"`
}

// EndpointSubset is a group of addresses that all serve the same ports. Kubernetes:
// corev1.EndpointSubset.
type EndpointSubset struct {
	// Addresses are ready to receive traffic.
	Addresses []EndpointAddress `json:"addresses,omitempty"`
	// NotReadyAddresses are selected by the service but not (yet) ready.
	NotReadyAddresses []EndpointAddress `json:"notReadyAddresses,omitempty"`
	// Ports are the ports every address in the subset serves.
	Ports []EndpointPort `json:"ports,omitempty"`
}

// EndpointAddress is one backend, usually a pod. Kubernetes: corev1.EndpointAddress.
type EndpointAddress struct {
	// IP of the backend.
	IP string `json:"ip"`
	// Hostname of the backend, for headless-service DNS records.
	Hostname string `json:"hostname,omitempty"`
	// NodeName is the node the backend runs on.
	NodeName *string `json:"nodeName,omitempty"`
	// TargetRef points at the pod behind the address.
	TargetRef *ObjectReference `json:"targetRef,omitempty"`
}

// EndpointPort is one port served by the addresses of a subset. Kubernetes:
// corev1.EndpointPort.
type EndpointPort struct {
	// Name matches the service port's name.
	Name string `json:"name,omitempty"`
	// Port is the port number on the backends.
	Port int32 `json:"port"`
	// Protocol defaults to TCP.
	Protocol Protocol `json:"protocol,omitempty"`
	// AppProtocol is the application protocol, copied from the service port.
	AppProtocol *string `json:"appProtocol,omitempty"`
}
