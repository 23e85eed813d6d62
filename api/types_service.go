package api

// Service gives a set of pods, chosen by a label selector, one stable virtual IP and DNS
// name. The endpoints controller keeps an [Endpoints] object of the same name listing the
// selected pods' addresses. Kubernetes: corev1.Service.
type Service struct {
	TypeMeta `json:",inline"`
	// Metadata is the service's identity.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the desired state.
	Spec ServiceSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is the observed state (load balancer addresses).
	Status ServiceStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// GetObjectMeta returns the service's metadata.
func (s *Service) GetObjectMeta() *ObjectMeta { return &s.Metadata }

// ServiceList is a list of services. Kubernetes: corev1.ServiceList.
type ServiceList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the services.
	Items []Service `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ServiceSpec is the desired state of a service. Kubernetes: corev1.ServiceSpec.
type ServiceSpec struct {
	// Ports are the ports the service exposes.
	Ports []ServicePort `json:"ports,omitempty" patchStrategy:"merge" patchMergeKey:"port" protobuf:"bytes,1,rep,name=ports"`
	// Selector picks the pods behind the service by label equality. A service without a
	// selector gets no managed Endpoints; its endpoints are written by hand.
	Selector map[string]string `json:"selector,omitempty" protobuf:"bytes,2,rep,name=selector" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	// ClusterIP is the virtual IP, allocated by the apiserver; ClusterIPNone makes the
	// service headless.
	ClusterIP string `json:"clusterIP,omitempty" protobuf:"bytes,3,opt,name=clusterIP"`
	// ClusterIPs are all the service's IPs (one per IP family); the first equals ClusterIP.
	// Its upstream Go tag says "opt"; the label follows generated.proto (repeated).
	ClusterIPs []string `json:"clusterIPs,omitempty" protobuf:"bytes,18,rep,name=clusterIPs"`
	// Type is how the service is exposed; default ClusterIP.
	Type ServiceType `json:"type,omitempty" protobuf:"bytes,4,opt,name=type"`
	// SessionAffinity is None or ClientIP; default None.
	SessionAffinity ServiceAffinity `json:"sessionAffinity,omitempty" protobuf:"bytes,7,opt,name=sessionAffinity"`
	// ExternalName is the DNS name an ExternalName service aliases.
	ExternalName string `json:"externalName,omitempty" protobuf:"bytes,10,opt,name=externalName"`
	// PublishNotReadyAddresses puts pods into the ready addresses of the Endpoints even
	// before they are ready (used for peer discovery, e.g. by StatefulSets).
	PublishNotReadyAddresses bool `json:"publishNotReadyAddresses,omitempty" protobuf:"varint,13,opt,name=publishNotReadyAddresses"`
	// IPFamilies are the families of ClusterIPs, in order.
	// Its upstream Go tag says "opt"; the label follows generated.proto (repeated).
	IPFamilies []IPFamily `json:"ipFamilies,omitempty" protobuf:"bytes,19,rep,name=ipFamilies"`
	// IPFamilyPolicy is one of the IPFamilyPolicy constants.
	IPFamilyPolicy *string `json:"ipFamilyPolicy,omitempty" protobuf:"bytes,17,opt,name=ipFamilyPolicy"`
	// InternalTrafficPolicy is one of the InternalTrafficPolicy constants.
	InternalTrafficPolicy *string `json:"internalTrafficPolicy,omitempty" protobuf:"bytes,22,opt,name=internalTrafficPolicy"`
	// ExternalTrafficPolicy, Cluster or Local, is how a NodePort or LoadBalancer
	// service routes traffic from outside; defaulted to Cluster for them.
	ExternalTrafficPolicy string `json:"externalTrafficPolicy,omitempty" protobuf:"bytes,11,opt,name=externalTrafficPolicy"`
	// HealthCheckNodePort is the node port a LoadBalancer service with
	// ExternalTrafficPolicy Local answers health checks on, allocated from the
	// node port range when not chosen.
	// Its upstream Go tag says "bytes"; the wire type follows generated.proto (int32).
	HealthCheckNodePort int32 `json:"healthCheckNodePort,omitempty" protobuf:"varint,12,opt,name=healthCheckNodePort"`
}

// ServicePort is one port of a service. Kubernetes: corev1.ServicePort.
type ServicePort struct {
	// Name must be set, and unique, when the service has more than one port; the
	// Endpoints' ports carry the same name.
	Name string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	// Protocol defaults to TCP.
	Protocol Protocol `json:"protocol,omitempty" protobuf:"bytes,2,opt,name=protocol"`
	// AppProtocol is the application protocol, e.g. "http".
	AppProtocol *string `json:"appProtocol,omitempty" protobuf:"bytes,6,opt,name=appProtocol"`
	// Port is the port the service listens on.
	Port int32 `json:"port" protobuf:"varint,3,opt,name=port"`
	// TargetPort is the port on the pods: a number, or the name of a container port
	// (looked up per pod). Defaults to Port.
	TargetPort IntOrString `json:"targetPort,omitempty" protobuf:"bytes,4,opt,name=targetPort"`
	// NodePort is the port on every node for NodePort and LoadBalancer services.
	NodePort int32 `json:"nodePort,omitempty" protobuf:"varint,5,opt,name=nodePort"`
}

// ServiceStatus is the observed state of a service. Kubernetes: corev1.ServiceStatus.
type ServiceStatus struct {
	// LoadBalancer holds the external addresses of a LoadBalancer service.
	LoadBalancer LoadBalancerStatus `json:"loadBalancer,omitempty" protobuf:"bytes,1,opt,name=loadBalancer"`
	// Conditions are the current observations of the service's state,
	// written through the status subresource by whoever provides it (a
	// load balancer controller); nothing in miniplane sets them.
	Conditions []Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,2,rep,name=conditions"`
}

// LoadBalancerStatus lists a load balancer's addresses. Kubernetes:
// corev1.LoadBalancerStatus.
type LoadBalancerStatus struct {
	// Ingress are the load balancer's entry points.
	Ingress []LoadBalancerIngress `json:"ingress,omitempty" protobuf:"bytes,1,rep,name=ingress"`
}

// LoadBalancerIngress is one entry point of a load balancer. Kubernetes:
// corev1.LoadBalancerIngress.
type LoadBalancerIngress struct {
	// IP of the entry point.
	IP string `json:"ip,omitempty" protobuf:"bytes,1,opt,name=ip"`
	// Hostname of the entry point.
	Hostname string `json:"hostname,omitempty" protobuf:"bytes,2,opt,name=hostname"`
}

// ServiceType is how a service is exposed. Kubernetes: corev1.ServiceType.
type ServiceType string

// Service types.
const (
	// ServiceTypeClusterIP exposes the service on a cluster-internal virtual IP.
	ServiceTypeClusterIP ServiceType = "ClusterIP"
	// ServiceTypeNodePort also exposes it on a port of every node.
	ServiceTypeNodePort ServiceType = "NodePort"
	// ServiceTypeLoadBalancer also exposes it through an external load balancer.
	ServiceTypeLoadBalancer ServiceType = "LoadBalancer"
	// ServiceTypeExternalName is a DNS alias (CNAME) for spec.externalName.
	ServiceTypeExternalName ServiceType = "ExternalName"
)

// ClusterIPNone as spec.clusterIP makes a service headless: no virtual IP, and DNS returns
// the pods' addresses directly.
const ClusterIPNone = "None"

// ServiceAffinity is a service's session affinity. Kubernetes: corev1.ServiceAffinity.
type ServiceAffinity string

// Session affinities.
const (
	// ServiceAffinityNone balances each connection independently.
	ServiceAffinityNone ServiceAffinity = "None"
	// ServiceAffinityClientIP sends a client IP's connections to the same pod.
	ServiceAffinityClientIP ServiceAffinity = "ClientIP"
)

// IPFamily is an IP protocol version. Kubernetes: corev1.IPFamily.
type IPFamily string

// IP families.
const (
	// IPv4Protocol is IPv4.
	IPv4Protocol IPFamily = "IPv4"
	// IPv6Protocol is IPv6.
	IPv6Protocol IPFamily = "IPv6"
)

// Values of ServiceSpec.IPFamilyPolicy. Kubernetes: corev1.IPFamilyPolicy. They are
// untyped so that they fit the field's *string.
const (
	// IPFamilyPolicySingleStack allocates one cluster IP; the default.
	IPFamilyPolicySingleStack = "SingleStack"
	// IPFamilyPolicyPreferDualStack allocates two cluster IPs when the cluster can.
	IPFamilyPolicyPreferDualStack = "PreferDualStack"
	// IPFamilyPolicyRequireDualStack requires two cluster IPs.
	IPFamilyPolicyRequireDualStack = "RequireDualStack"
)

// Values of ServiceSpec.InternalTrafficPolicy. Kubernetes:
// corev1.ServiceInternalTrafficPolicy. They are untyped so that they fit the field's
// *string.
const (
	// InternalTrafficPolicyCluster routes in-cluster traffic to any ready endpoint; the
	// default.
	InternalTrafficPolicyCluster = "Cluster"
	// InternalTrafficPolicyLocal routes it only to endpoints on the client's node.
	InternalTrafficPolicyLocal = "Local"
	// ExternalTrafficPolicyCluster routes outside traffic to any ready endpoint.
	ExternalTrafficPolicyCluster = "Cluster"
	// ExternalTrafficPolicyLocal routes it only to endpoints on the node it
	// enters, which the load balancer finds by the health check node port.
	ExternalTrafficPolicyLocal = "Local"
)
