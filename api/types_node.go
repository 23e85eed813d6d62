package api

// Node is a machine that runs pods; in miniplane a simulated one. Nodes are cluster-scoped:
// they have no namespace. Kubernetes: corev1.Node.
type Node struct {
	TypeMeta `json:",inline"`
	// Metadata is the node's identity.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the desired state.
	Spec NodeSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is the observed state, reported by the node's kubelet.
	Status NodeStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// GetObjectMeta returns the node's metadata.
func (n *Node) GetObjectMeta() *ObjectMeta { return &n.Metadata }

// NodeList is a list of nodes. Kubernetes: corev1.NodeList.
type NodeList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the nodes.
	Items []Node `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// NodeSpec is the desired state of a node. Kubernetes: corev1.NodeSpec.
type NodeSpec struct {
	// PodCIDR is the range pod IPs on this node are allocated from.
	PodCIDR string `json:"podCIDR,omitempty" protobuf:"bytes,1,opt,name=podCIDR"`
	// PodCIDRs are all the node's pod ranges (one per IP family); the first equals PodCIDR.
	// Its upstream Go tag says "opt"; the label follows generated.proto (repeated).
	PodCIDRs []string `json:"podCIDRs,omitempty" patchStrategy:"merge" protobuf:"bytes,7,rep,name=podCIDRs"`
	// ProviderID is the cloud provider's ID for the machine.
	ProviderID string `json:"providerID,omitempty" protobuf:"bytes,3,opt,name=providerID"`
	// Unschedulable keeps new pods off the node (kubectl cordon).
	Unschedulable bool `json:"unschedulable,omitempty" protobuf:"varint,4,opt,name=unschedulable"`
	// Taints repel pods that do not tolerate them.
	// Its upstream Go tag says "opt"; the label follows generated.proto (repeated).
	Taints []Taint `json:"taints,omitempty" protobuf:"bytes,5,rep,name=taints"`
}

// Taint marks a node so that only pods with a matching toleration are scheduled on it (or,
// for NoExecute, stay on it). Kubernetes: corev1.Taint.
type Taint struct {
	// Key of the taint.
	Key string `json:"key" protobuf:"bytes,1,opt,name=key"`
	// Value of the taint.
	Value string `json:"value,omitempty" protobuf:"bytes,2,opt,name=value"`
	// Effect on pods that do not tolerate the taint.
	Effect TaintEffect `json:"effect" protobuf:"bytes,3,opt,name=effect"`
	// TimeAdded is when a NoExecute taint was added.
	TimeAdded *Time `json:"timeAdded,omitempty" protobuf:"bytes,4,opt,name=timeAdded"`
}

// TaintEffect is what a taint does to pods that do not tolerate it. Kubernetes:
// corev1.TaintEffect.
type TaintEffect string

// Taint effects.
const (
	// TaintEffectNoSchedule keeps new pods off the node.
	TaintEffectNoSchedule TaintEffect = "NoSchedule"
	// TaintEffectPreferNoSchedule avoids the node when possible.
	TaintEffectPreferNoSchedule TaintEffect = "PreferNoSchedule"
	// TaintEffectNoExecute also evicts running pods.
	TaintEffectNoExecute TaintEffect = "NoExecute"
)

// NodeStatus is the observed state of a node. Kubernetes: corev1.NodeStatus.
type NodeStatus struct {
	// Capacity is the node's total resources.
	Capacity ResourceList `json:"capacity,omitempty" protobuf:"bytes,1,rep,name=capacity" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	// Allocatable is what is left for pods after system reservations.
	Allocatable ResourceList `json:"allocatable,omitempty" protobuf:"bytes,2,rep,name=allocatable" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	// Phase is deprecated in Kubernetes and usually empty.
	Phase NodePhase `json:"phase,omitempty" protobuf:"bytes,3,opt,name=phase"`
	// Conditions report health: Ready, MemoryPressure, DiskPressure, ...
	Conditions []NodeCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,4,rep,name=conditions"`
	// Addresses are the node's reachable addresses.
	Addresses []NodeAddress `json:"addresses,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,5,rep,name=addresses"`
	// DaemonEndpoints are the ports the node's daemons listen on. Encoded even when empty,
	// as in Kubernetes.
	DaemonEndpoints NodeDaemonEndpoints `json:"daemonEndpoints,omitempty" protobuf:"bytes,6,opt,name=daemonEndpoints"`
	// NodeInfo identifies the node's software. Encoded even when empty, as in Kubernetes.
	NodeInfo NodeSystemInfo `json:"nodeInfo,omitempty" protobuf:"bytes,7,opt,name=nodeInfo"`
}

// NodeDaemonEndpoints are the ports of the daemons running on a node. Kubernetes:
// corev1.NodeDaemonEndpoints.
type NodeDaemonEndpoints struct {
	// KubeletEndpoint is where the kubelet serves its API (logs, exec, metrics).
	KubeletEndpoint DaemonEndpoint `json:"kubeletEndpoint,omitempty" protobuf:"bytes,1,opt,name=kubeletEndpoint"`
}

// DaemonEndpoint is the port of one daemon. Kubernetes: corev1.DaemonEndpoint.
type DaemonEndpoint struct {
	// Port number. Its JSON name is "Port", capitalized, as in Kubernetes.
	Port int32 `json:"Port" protobuf:"varint,1,opt,name=Port"`
}

// NodePhase is a node's lifecycle phase (deprecated in Kubernetes). Kubernetes:
// corev1.NodePhase.
type NodePhase string

// Node phases.
const (
	// NodePending: created but not yet configured.
	NodePending NodePhase = "Pending"
	// NodeRunning: configured and running pods.
	NodeRunning NodePhase = "Running"
	// NodeTerminated: removed from the cluster.
	NodeTerminated NodePhase = "Terminated"
)

// NodeConditionType names a fact about a node. Kubernetes: corev1.NodeConditionType.
type NodeConditionType string

// Node condition types.
const (
	// NodeReady: the kubelet is healthy and ready to run pods.
	NodeReady NodeConditionType = "Ready"
	// NodeMemoryPressure: the node is low on memory.
	NodeMemoryPressure NodeConditionType = "MemoryPressure"
	// NodeDiskPressure: the node is low on disk.
	NodeDiskPressure NodeConditionType = "DiskPressure"
	// NodePIDPressure: the node is low on process IDs.
	NodePIDPressure NodeConditionType = "PIDPressure"
	// NodeNetworkUnavailable: the node's network is not configured.
	NodeNetworkUnavailable NodeConditionType = "NetworkUnavailable"
)

// NodeCondition is one fact about a node. Kubernetes: corev1.NodeCondition.
type NodeCondition struct {
	// Type names the fact.
	Type NodeConditionType `json:"type" protobuf:"bytes,1,opt,name=type"`
	// Status is True, False or Unknown (Unknown when the kubelet stopped reporting).
	Status ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status"`
	// LastHeartbeatTime is when the kubelet last reported the condition.
	LastHeartbeatTime Time `json:"lastHeartbeatTime,omitempty" protobuf:"bytes,3,opt,name=lastHeartbeatTime"`
	// LastTransitionTime is when Status last changed.
	LastTransitionTime Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,4,opt,name=lastTransitionTime"`
	// Reason is a CamelCase reason for the last transition.
	Reason string `json:"reason,omitempty" protobuf:"bytes,5,opt,name=reason"`
	// Message is a human-readable account of the last transition.
	Message string `json:"message,omitempty" protobuf:"bytes,6,opt,name=message"`
}

// NodeAddress is one address of a node. Kubernetes: corev1.NodeAddress.
type NodeAddress struct {
	// Type of the address.
	Type NodeAddressType `json:"type" protobuf:"bytes,1,opt,name=type"`
	// Address itself.
	Address string `json:"address" protobuf:"bytes,2,opt,name=address"`
}

// NodeAddressType is the kind of a node address. Kubernetes: corev1.NodeAddressType.
type NodeAddressType string

// Node address types.
const (
	// NodeHostName is the node's hostname.
	NodeHostName NodeAddressType = "Hostname"
	// NodeInternalIP is an IP reachable inside the cluster.
	NodeInternalIP NodeAddressType = "InternalIP"
	// NodeExternalIP is an IP reachable from outside the cluster.
	NodeExternalIP NodeAddressType = "ExternalIP"
	// NodeInternalDNS is a DNS name resolvable inside the cluster.
	NodeInternalDNS NodeAddressType = "InternalDNS"
	// NodeExternalDNS is a DNS name resolvable from outside the cluster.
	NodeExternalDNS NodeAddressType = "ExternalDNS"
)

// NodeSystemInfo identifies a node's machine and software. Every field is always encoded,
// as in Kubernetes. Kubernetes: corev1.NodeSystemInfo.
type NodeSystemInfo struct {
	// MachineID is the machine's /etc/machine-id.
	MachineID string `json:"machineID" protobuf:"bytes,1,opt,name=machineID"`
	// SystemUUID is the hardware UUID.
	SystemUUID string `json:"systemUUID" protobuf:"bytes,2,opt,name=systemUUID"`
	// BootID changes on every reboot.
	BootID string `json:"bootID" protobuf:"bytes,3,opt,name=bootID"`
	// KernelVersion is `uname -r`.
	KernelVersion string `json:"kernelVersion" protobuf:"bytes,4,opt,name=kernelVersion"`
	// OSImage is the OS name from /etc/os-release.
	OSImage string `json:"osImage" protobuf:"bytes,5,opt,name=osImage"`
	// ContainerRuntimeVersion is "<runtime>://<version>".
	ContainerRuntimeVersion string `json:"containerRuntimeVersion" protobuf:"bytes,6,opt,name=containerRuntimeVersion"`
	// KubeletVersion is the kubelet's version.
	KubeletVersion string `json:"kubeletVersion" protobuf:"bytes,7,opt,name=kubeletVersion"`
	// KubeProxyVersion is the kube-proxy's version (deprecated in Kubernetes).
	KubeProxyVersion string `json:"kubeProxyVersion" protobuf:"bytes,8,opt,name=kubeProxyVersion"`
	// OperatingSystem is GOOS, e.g. "linux".
	OperatingSystem string `json:"operatingSystem" protobuf:"bytes,9,opt,name=operatingSystem"`
	// Architecture is GOARCH, e.g. "amd64".
	Architecture string `json:"architecture" protobuf:"bytes,10,opt,name=architecture"`
}
