package api

// The networking.k8s.io/v1 kinds: Ingress, IngressClass and NetworkPolicy.
// miniplane stores and validates them as kube-apiserver does, but it has no
// data plane: no ingress controller routes an Ingress's traffic and no network
// plugin enforces a NetworkPolicy (DESIGN.md, "Deliberately left out").

// Ingress routes outside HTTP traffic to Services by host and path, through
// whatever ingress controller implements its IngressClass. Kubernetes:
// networkingv1.Ingress.
type Ingress struct {
	TypeMeta `json:",inline"`
	// Metadata is the ingress's identity.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the routing wanted.
	Spec IngressSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is the load balancer an ingress controller reports.
	Status IngressStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// GetObjectMeta returns the ingress's metadata.
func (in *Ingress) GetObjectMeta() *ObjectMeta { return &in.Metadata }

// IngressList is a list of ingresses. Kubernetes: networkingv1.IngressList.
type IngressList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the ingresses.
	Items []Ingress `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// IngressSpec is an ingress's routing. Kubernetes: networkingv1.IngressSpec.
type IngressSpec struct {
	// IngressClassName names the IngressClass whose controller implements the
	// ingress; the DefaultIngressClass admission step fills it when empty.
	IngressClassName *string `json:"ingressClassName,omitempty" protobuf:"bytes,4,opt,name=ingressClassName"`
	// DefaultBackend takes the requests no rule matches.
	DefaultBackend *IngressBackend `json:"defaultBackend,omitempty" protobuf:"bytes,1,opt,name=defaultBackend"`
	// TLS names the hosts served over TLS and the secrets holding their keys.
	TLS []IngressTLS `json:"tls,omitempty" protobuf:"bytes,2,rep,name=tls"`
	// Rules route requests by host and path.
	Rules []IngressRule `json:"rules,omitempty" protobuf:"bytes,3,rep,name=rules"`
}

// IngressTLS is the TLS of some hosts. Kubernetes: networkingv1.IngressTLS.
type IngressTLS struct {
	// Hosts are the names the certificate covers.
	Hosts []string `json:"hosts,omitempty" protobuf:"bytes,1,rep,name=hosts"`
	// SecretName names the Secret holding the certificate and key.
	SecretName string `json:"secretName,omitempty" protobuf:"bytes,2,opt,name=secretName"`
}

// IngressStatus is what an ingress controller reports. Kubernetes:
// networkingv1.IngressStatus.
type IngressStatus struct {
	// LoadBalancer lists the addresses traffic enters by.
	LoadBalancer IngressLoadBalancerStatus `json:"loadBalancer,omitempty" protobuf:"bytes,1,opt,name=loadBalancer"`
}

// IngressLoadBalancerStatus lists an ingress's load balancer addresses.
// Kubernetes: networkingv1.IngressLoadBalancerStatus.
type IngressLoadBalancerStatus struct {
	// Ingress are the addresses.
	Ingress []IngressLoadBalancerIngress `json:"ingress,omitempty" protobuf:"bytes,1,rep,name=ingress"`
}

// IngressLoadBalancerIngress is one load balancer address. Kubernetes:
// networkingv1.IngressLoadBalancerIngress.
type IngressLoadBalancerIngress struct {
	// IP is the address, for load balancers reached by IP.
	IP string `json:"ip,omitempty" protobuf:"bytes,1,opt,name=ip"`
	// Hostname is the address, for load balancers reached by DNS name.
	Hostname string `json:"hostname,omitempty" protobuf:"bytes,2,opt,name=hostname"`
	// Ports are the ports the load balancer listens on, with their errors.
	Ports []IngressPortStatus `json:"ports,omitempty" protobuf:"bytes,4,rep,name=ports"`
}

// IngressPortStatus is one port of a load balancer address. Kubernetes:
// networkingv1.IngressPortStatus.
type IngressPortStatus struct {
	// Port is the port number.
	Port int32 `json:"port" protobuf:"varint,1,opt,name=port"`
	// Protocol is TCP, UDP or SCTP.
	Protocol Protocol `json:"protocol" protobuf:"bytes,2,opt,name=protocol"`
	// Error, in CamelCase, says what went wrong with the port.
	Error *string `json:"error,omitempty" protobuf:"bytes,3,opt,name=error"`
}

// IngressRule routes the requests for one host (all hosts when empty).
// Kubernetes: networkingv1.IngressRule, with its inline IngressRuleValue.
type IngressRule struct {
	// Host is a DNS name, or a wildcard "*.example.com" matching one label.
	Host string `json:"host,omitempty" protobuf:"bytes,1,opt,name=host"`
	// IngressRuleValue is the rule's routing, inline in JSON.
	IngressRuleValue `json:",inline" protobuf:"bytes,2,opt,name=ingressRuleValue"`
}

// IngressRuleValue is how a rule routes. Kubernetes: networkingv1.IngressRuleValue.
type IngressRuleValue struct {
	// HTTP routes by path.
	HTTP *HTTPIngressRuleValue `json:"http,omitempty" protobuf:"bytes,1,opt,name=http"`
}

// HTTPIngressRuleValue routes a host's requests by path. Kubernetes:
// networkingv1.HTTPIngressRuleValue.
type HTTPIngressRuleValue struct {
	// Paths map paths to backends.
	Paths []HTTPIngressPath `json:"paths" protobuf:"bytes,1,rep,name=paths"`
}

// PathType is how an ingress path matches a request's. Kubernetes:
// networkingv1.PathType.
type PathType string

// The path types Kubernetes defines.
const (
	// PathTypeExact matches the path exactly.
	PathTypeExact PathType = "Exact"
	// PathTypePrefix matches the path's '/'-separated elements as a prefix.
	PathTypePrefix PathType = "Prefix"
	// PathTypeImplementationSpecific leaves matching to the IngressClass.
	PathTypeImplementationSpecific PathType = "ImplementationSpecific"
)

// HTTPIngressPath maps a path to a backend. Kubernetes: networkingv1.HTTPIngressPath.
type HTTPIngressPath struct {
	// Path is matched against the request's path; it starts with '/'.
	Path string `json:"path,omitempty" protobuf:"bytes,1,opt,name=path"`
	// PathType is how Path matches; it is required.
	PathType *PathType `json:"pathType" protobuf:"bytes,3,opt,name=pathType"`
	// Backend takes the matching requests.
	Backend IngressBackend `json:"backend" protobuf:"bytes,2,opt,name=backend"`
}

// IngressBackend is where requests go: a Service's port or another
// resource, exactly one of them. Kubernetes: networkingv1.IngressBackend.
type IngressBackend struct {
	// Service is a Service's port in the ingress's namespace.
	Service *IngressServiceBackend `json:"service,omitempty" protobuf:"bytes,4,opt,name=service"`
	// Resource is another object in the ingress's namespace (a bucket, say).
	Resource *TypedLocalObjectReference `json:"resource,omitempty" protobuf:"bytes,3,opt,name=resource"`
}

// IngressServiceBackend is a Service and one of its ports. Kubernetes:
// networkingv1.IngressServiceBackend.
type IngressServiceBackend struct {
	// Name is the Service's name.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// Port is the Service's port, by name or number.
	Port ServiceBackendPort `json:"port,omitempty" protobuf:"bytes,2,opt,name=port"`
}

// ServiceBackendPort names a Service port by name or by number, one of the
// two. Kubernetes: networkingv1.ServiceBackendPort.
type ServiceBackendPort struct {
	// Name is the port's name.
	Name string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	// Number is the port's number.
	// Its upstream Go tag says "bytes"; the wire type follows generated.proto (int32).
	Number int32 `json:"number,omitempty" protobuf:"varint,2,opt,name=number"`
}

// IngressClass names the controller that implements the ingresses of the
// class. The annotation AnnotationIsDefaultIngressClass "true" makes it the
// class of ingresses that name none. Kubernetes: networkingv1.IngressClass.
type IngressClass struct {
	TypeMeta `json:",inline"`
	// Metadata is the class's identity.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec names the controller and its parameters.
	Spec IngressClassSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

// AnnotationIsDefaultIngressClass, set to "true" on an IngressClass, makes it
// the default class. Kubernetes: networkingv1.AnnotationIsDefaultIngressClass.
const AnnotationIsDefaultIngressClass = "ingressclass.kubernetes.io/is-default-class"

// AnnotationIngressClass is the class annotation older ingresses name their
// class with, instead of spec.ingressClassName. Kubernetes:
// networkingv1beta1.AnnotationIngressClass.
const AnnotationIngressClass = "kubernetes.io/ingress.class"

// GetObjectMeta returns the class's metadata.
func (ic *IngressClass) GetObjectMeta() *ObjectMeta { return &ic.Metadata }

// IngressClassList is a list of ingress classes. Kubernetes:
// networkingv1.IngressClassList.
type IngressClassList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the ingress classes.
	Items []IngressClass `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// IngressClassSpec names an ingress class's controller. Kubernetes:
// networkingv1.IngressClassSpec.
type IngressClassSpec struct {
	// Controller is a domain-prefixed path naming the controller
	// ("example.com/ingress-ctrl"); it cannot change.
	Controller string `json:"controller,omitempty" protobuf:"bytes,1,opt,name=controller"`
	// Parameters names an object configuring the controller.
	Parameters *IngressClassParametersReference `json:"parameters,omitempty" protobuf:"bytes,2,opt,name=parameters"`
}

// The scopes of an IngressClass's parameters. Kubernetes:
// networkingv1.IngressClassParametersReferenceScope*.
const (
	// IngressClassParametersScopeNamespace: the parameters are namespaced.
	IngressClassParametersScopeNamespace = "Namespace"
	// IngressClassParametersScopeCluster: the parameters are cluster-scoped (the default).
	IngressClassParametersScopeCluster = "Cluster"
)

// IngressClassParametersReference names the object configuring an ingress
// class's controller. Kubernetes: networkingv1.IngressClassParametersReference.
type IngressClassParametersReference struct {
	// APIGroup is the object's group; nil means the core group.
	APIGroup *string `json:"apiGroup,omitempty" protobuf:"bytes,1,opt,name=aPIGroup"`
	// Kind is the object's kind.
	Kind string `json:"kind" protobuf:"bytes,2,opt,name=kind"`
	// Name is the object's name.
	Name string `json:"name" protobuf:"bytes,3,opt,name=name"`
	// Scope is Cluster (the default) or Namespace.
	Scope *string `json:"scope" protobuf:"bytes,4,opt,name=scope"`
	// Namespace is the object's namespace, set exactly when Scope is Namespace.
	Namespace *string `json:"namespace,omitempty" protobuf:"bytes,5,opt,name=namespace"`
}

// NetworkPolicy says which traffic may reach (ingress) and leave (egress)
// the pods it selects, for a network plugin to enforce. Kubernetes:
// networkingv1.NetworkPolicy.
type NetworkPolicy struct {
	TypeMeta `json:",inline"`
	// Metadata is the policy's identity.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the traffic allowed.
	Spec NetworkPolicySpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

// GetObjectMeta returns the policy's metadata.
func (np *NetworkPolicy) GetObjectMeta() *ObjectMeta { return &np.Metadata }

// NetworkPolicyList is a list of network policies. Kubernetes:
// networkingv1.NetworkPolicyList.
type NetworkPolicyList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the network policies.
	Items []NetworkPolicy `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// PolicyType is a direction a NetworkPolicy governs. Kubernetes:
// networkingv1.PolicyType.
type PolicyType string

// The policy types.
const (
	// PolicyTypeIngress governs traffic to the selected pods.
	PolicyTypeIngress PolicyType = "Ingress"
	// PolicyTypeEgress governs traffic from the selected pods.
	PolicyTypeEgress PolicyType = "Egress"
)

// NetworkPolicySpec is the traffic a policy allows. Kubernetes:
// networkingv1.NetworkPolicySpec.
type NetworkPolicySpec struct {
	// PodSelector selects the pods of the namespace the policy applies to;
	// empty selects them all.
	PodSelector LabelSelector `json:"podSelector" protobuf:"bytes,1,opt,name=podSelector"`
	// Ingress rules allow traffic to the pods; any one matching allows it.
	Ingress []NetworkPolicyIngressRule `json:"ingress,omitempty" protobuf:"bytes,2,rep,name=ingress"`
	// Egress rules allow traffic from the pods.
	Egress []NetworkPolicyEgressRule `json:"egress,omitempty" protobuf:"bytes,3,rep,name=egress"`
	// PolicyTypes are the directions governed; by default Ingress, and Egress
	// too when the policy has egress rules.
	PolicyTypes []PolicyType `json:"policyTypes,omitempty" protobuf:"bytes,4,rep,name=policyTypes"`
}

// NetworkPolicyIngressRule allows traffic from some peers to some ports.
// Kubernetes: networkingv1.NetworkPolicyIngressRule.
type NetworkPolicyIngressRule struct {
	// Ports are the ports allowed; none means all.
	Ports []NetworkPolicyPort `json:"ports,omitempty" protobuf:"bytes,1,rep,name=ports"`
	// From are the peers allowed; none means all.
	From []NetworkPolicyPeer `json:"from,omitempty" protobuf:"bytes,2,rep,name=from"`
}

// NetworkPolicyEgressRule allows traffic to some peers on some ports.
// Kubernetes: networkingv1.NetworkPolicyEgressRule.
type NetworkPolicyEgressRule struct {
	// Ports are the ports allowed; none means all.
	Ports []NetworkPolicyPort `json:"ports,omitempty" protobuf:"bytes,1,rep,name=ports"`
	// To are the peers allowed; none means all.
	To []NetworkPolicyPeer `json:"to,omitempty" protobuf:"bytes,2,rep,name=to"`
}

// NetworkPolicyPort is a port, or a range of ports, and a protocol.
// Kubernetes: networkingv1.NetworkPolicyPort.
type NetworkPolicyPort struct {
	// Protocol is TCP (the default), UDP or SCTP.
	Protocol *Protocol `json:"protocol,omitempty" protobuf:"bytes,1,opt,name=protocol"`
	// Port is a number or a named container port; nil means every port.
	Port *IntOrString `json:"port,omitempty" protobuf:"bytes,2,opt,name=port"`
	// EndPort ends the range that starts at a numeric Port.
	// Its upstream Go tag says "bytes"; the wire type follows generated.proto (int32).
	EndPort *int32 `json:"endPort,omitempty" protobuf:"varint,3,opt,name=endPort"`
}

// IPBlock is a CIDR, less some CIDRs inside it. Kubernetes: networkingv1.IPBlock.
type IPBlock struct {
	// CIDR is the block, "10.0.0.0/8".
	// Its upstream Go tag has no label; generated.proto says optional.
	CIDR string `json:"cidr" protobuf:"bytes,1,opt,name=cidr"`
	// Except are blocks inside CIDR that are left out.
	Except []string `json:"except,omitempty" protobuf:"bytes,2,rep,name=except"`
}

// NetworkPolicyPeer is who may talk: pods by label, namespaces by label
// (both, ANDed), or an IP block alone. Kubernetes: networkingv1.NetworkPolicyPeer.
type NetworkPolicyPeer struct {
	// PodSelector selects pods (of the policy's namespace, unless
	// NamespaceSelector is set too).
	PodSelector *LabelSelector `json:"podSelector,omitempty" protobuf:"bytes,1,opt,name=podSelector"`
	// NamespaceSelector selects namespaces.
	NamespaceSelector *LabelSelector `json:"namespaceSelector,omitempty" protobuf:"bytes,2,opt,name=namespaceSelector"`
	// IPBlock selects addresses.
	// Its upstream Go tag says "rep"; generated.proto has one optional message.
	IPBlock *IPBlock `json:"ipBlock,omitempty" protobuf:"bytes,3,opt,name=ipBlock"`
}
