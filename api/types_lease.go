package api

// Lease is a lock with an expiry, held by renewing it: leader election stores the current
// leader in one, and the holder must renew before leaseDurationSeconds pass or another
// candidate may take it. Kubernetes: coordinationv1.Lease (apiVersion
// coordination.k8s.io/v1).
type Lease struct {
	TypeMeta `json:",inline"`
	// Metadata is the lease's identity; its resourceVersion makes takeovers atomic.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the lease's state.
	Spec LeaseSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

// GetObjectMeta returns the lease's metadata.
func (l *Lease) GetObjectMeta() *ObjectMeta { return &l.Metadata }

// LeaseList is a list of leases. Kubernetes: coordinationv1.LeaseList.
type LeaseList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the leases.
	Items []Lease `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// LeaseSpec is the state of a lease. Kubernetes: coordinationv1.LeaseSpec.
type LeaseSpec struct {
	// HolderIdentity is the current holder; nil or empty means nobody holds the lease.
	HolderIdentity *string `json:"holderIdentity,omitempty" protobuf:"bytes,1,opt,name=holderIdentity"`
	// LeaseDurationSeconds is how long after RenewTime the lease expires.
	LeaseDurationSeconds *int32 `json:"leaseDurationSeconds,omitempty" protobuf:"varint,2,opt,name=leaseDurationSeconds"`
	// AcquireTime is when the current holder acquired the lease.
	AcquireTime *MicroTime `json:"acquireTime,omitempty" protobuf:"bytes,3,opt,name=acquireTime"`
	// RenewTime is when the current holder last renewed the lease.
	RenewTime *MicroTime `json:"renewTime,omitempty" protobuf:"bytes,4,opt,name=renewTime"`
	// LeaseTransitions counts changes of holder.
	LeaseTransitions *int32 `json:"leaseTransitions,omitempty" protobuf:"varint,5,opt,name=leaseTransitions"`
	// Strategy names the coordinated leader election strategy, e.g. "OldestEmulationVersion".
	Strategy *string `json:"strategy,omitempty" protobuf:"bytes,6,opt,name=strategy"`
	// PreferredHolder asks the current holder to step down in favour of this identity.
	PreferredHolder *string `json:"preferredHolder,omitempty" protobuf:"bytes,7,opt,name=preferredHolder"`
}
