package api

// APIService says where one group version of the API is served: locally
// by the API server itself (no service), or by an extension API server
// behind a Service that the aggregator proxies to. kube-apiserver keeps a
// local APIService for each group version it serves; miniplane does too,
// and stores the others without proxying to them. Kubernetes:
// apiregistrationv1.APIService (k8s.io/kube-aggregator).
type APIService struct {
	TypeMeta `json:",inline"`
	// Metadata is the standard object metadata; the name is version.group.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec contains information for locating and communicating with a server.
	Spec APIServiceSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status contains derived information about an API server.
	Status APIServiceStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// GetObjectMeta returns the APIService's metadata.
func (a *APIService) GetObjectMeta() *ObjectMeta { return &a.Metadata }

// APIServiceList is a list of APIServices.
type APIServiceList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the APIServices.
	Items []APIService `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// APIServiceSpec contains information for locating and communicating with
// a server.
type APIServiceSpec struct {
	// Service is a reference to the service for this API server; nil for
	// a group version the API server serves itself.
	Service *APIServiceReference `json:"service,omitempty" protobuf:"bytes,1,opt,name=service"`
	// Group is the API group name this server hosts.
	Group string `json:"group,omitempty" protobuf:"bytes,2,opt,name=group"`
	// Version is the API version this server hosts, e.g. "v1".
	Version string `json:"version,omitempty" protobuf:"bytes,3,opt,name=version"`
	// InsecureSkipTLSVerify disables TLS certificate verification when
	// communicating with this server.
	InsecureSkipTLSVerify bool `json:"insecureSkipTLSVerify,omitempty" protobuf:"varint,4,opt,name=insecureSkipTLSVerify"`
	// CABundle is a PEM encoded CA bundle which will be used to validate
	// an API server's serving certificate.
	CABundle []byte `json:"caBundle,omitempty" protobuf:"bytes,5,opt,name=caBundle"`
	// GroupPriorityMinimum is the priority this group should have at least.
	GroupPriorityMinimum int32 `json:"groupPriorityMinimum" protobuf:"varint,7,opt,name=groupPriorityMinimum"`
	// VersionPriority controls the ordering of this API version inside of
	// its group.
	VersionPriority int32 `json:"versionPriority" protobuf:"varint,8,opt,name=versionPriority"`
}

// APIServiceReference holds a reference to a Service. Kubernetes:
// apiregistrationv1.ServiceReference.
type APIServiceReference struct {
	// Namespace is the namespace of the service.
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,1,opt,name=namespace"`
	// Name is the name of the service.
	Name string `json:"name,omitempty" protobuf:"bytes,2,opt,name=name"`
	// Port is the port on the service hosting the API; defaults to 443.
	Port *int32 `json:"port,omitempty" protobuf:"varint,3,opt,name=port"`
}

// APIServiceStatus contains derived information about an API server.
type APIServiceStatus struct {
	// Conditions is the current service state of the APIService.
	Conditions []APIServiceCondition `json:"conditions,omitempty" protobuf:"bytes,1,rep,name=conditions"`
}

// APIServiceCondition describes the state of an APIService at a
// particular point.
type APIServiceCondition struct {
	// Type is the type of the condition: Available.
	Type string `json:"type" protobuf:"bytes,1,opt,name=type"`
	// Status is the status of the condition: True, False, Unknown.
	Status ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status"`
	// LastTransitionTime is the last time the condition transitioned from
	// one status to another.
	LastTransitionTime Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	// Reason is a unique, one-word, CamelCase reason for the condition's
	// last transition.
	Reason string `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	// Message is a human-readable message indicating details about last transition.
	Message string `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}
