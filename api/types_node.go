package api

// Node is a machine that runs pods; in miniplane a simulated one. Nodes are cluster-scoped:
// they have no namespace. Kubernetes: corev1.Node.
type Node struct {
	TypeMeta `json:",inline"`
	// Metadata is the node's identity.
	Metadata ObjectMeta `json:"metadata,omitempty"`
	// Spec is the desired state.
	Spec NodeSpec `json:"spec,omitempty"`
	// Status is the observed state, reported by the node's kubelet.
	Status NodeStatus `json:"status,omitempty"`
}

// GetObjectMeta returns the node's metadata.
func (n *Node) GetObjectMeta() *ObjectMeta { return &n.Metadata }

// NodeList is a list of nodes. Kubernetes: corev1.NodeList.
type NodeList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty"`
	// Items are the nodes.
	Items []Node `json:"items"`
}

// NodeSpec is the desired state of a node. Kubernetes: corev1.NodeSpec.
type NodeSpec struct {
	// PodCIDR is the range pod IPs on this node are allocated from.
	PodCIDR string `json:"podCIDR,omitempty"`
	// PodCIDRs are all the node's pod ranges (one per IP family); the first equals PodCIDR.
	PodCIDRs []string `json:"podCIDRs,omitempty"`
	// ProviderID is the cloud provider's ID for the machine.
	ProviderID string `json:"providerID,omitempty"`
	// Unschedulable keeps new pods off the node (kubectl cordon).
	Unschedulable bool `json:"unschedulable,omitempty"`
	// Taints repel pods that do not tolerate them.
	Taints []Taint `json:"taints,omitempty"`
}

// Taint marks a node so that only pods with a matching toleration are scheduled on it (or,
// for NoExecute, stay on it). Kubernetes: corev1.Taint.
type Taint struct {
	// Key of the taint.
	Key string `json:"key"`
	// Value of the taint.
	Value string `json:"value,omitempty"`
	// Effect on pods that do not tolerate the taint.
	Effect TaintEffect `json:"effect"`
	// TimeAdded is when a NoExecute taint was added.
	TimeAdded *Time `json:"timeAdded,omitempty"`
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
	Capacity ResourceList `json:"capacity,omitempty"`
	// Allocatable is what is left for pods after system reservations.
	Allocatable ResourceList `json:"allocatable,omitempty"`
	// Phase is deprecated in Kubernetes and usually empty.
	Phase NodePhase `json:"phase,omitempty"`
	// Conditions report health: Ready, MemoryPressure, DiskPressure, ...
	Conditions []NodeCondition `json:"conditions,omitempty"`
	// Addresses are the node's reachable addresses.
	Addresses []NodeAddress `json:"addresses,omitempty"`
	// DaemonEndpoints are the ports the node's daemons listen on. Encoded even when empty,
	// as in Kubernetes.
	DaemonEndpoints NodeDaemonEndpoints `json:"daemonEndpoints,omitempty"`
	// NodeInfo identifies the node's software. Encoded even when empty, as in Kubernetes.
	NodeInfo NodeSystemInfo `json:"nodeInfo,omitempty"`
}

// NodeDaemonEndpoints are the ports of the daemons running on a node. Kubernetes:
// corev1.NodeDaemonEndpoints.
type NodeDaemonEndpoints struct {
	// KubeletEndpoint is where the kubelet serves its API (logs, exec, metrics).
	KubeletEndpoint DaemonEndpoint `json:"kubeletEndpoint,omitempty"`
}

// DaemonEndpoint is the port of one daemon. Kubernetes: corev1.DaemonEndpoint.
type DaemonEndpoint struct {
	// Port number. Its JSON name is "Port", capitalized, as in Kubernetes.
	Port int32 `json:"Port"`
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
	Type NodeConditionType `json:"type"`
	// Status is True, False or Unknown (Unknown when the kubelet stopped reporting).
	Status ConditionStatus `json:"status"`
	// LastHeartbeatTime is when the kubelet last reported the condition.
	LastHeartbeatTime Time `json:"lastHeartbeatTime,omitempty"`
	// LastTransitionTime is when Status last changed.
	LastTransitionTime Time `json:"lastTransitionTime,omitempty"`
	// Reason is a CamelCase reason for the last transition.
	Reason string `json:"reason,omitempty"`
	// Message is a human-readable account of the last transition.
	Message string `json:"message,omitempty"`
}

// NodeAddress is one address of a node. Kubernetes: corev1.NodeAddress.
type NodeAddress struct {
	// Type of the address.
	Type NodeAddressType `json:"type"`
	// Address itself.
	Address string `json:"address"`
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
	MachineID string `json:"machineID"`
	// SystemUUID is the hardware UUID.
	SystemUUID string `json:"systemUUID"`
	// BootID changes on every reboot.
	BootID string `json:"bootID"`
	// KernelVersion is `uname -r`.
	KernelVersion string `json:"kernelVersion"`
	// OSImage is the OS name from /etc/os-release.
	OSImage string `json:"osImage"`
	// ContainerRuntimeVersion is "<runtime>://<version>".
	ContainerRuntimeVersion string `json:"containerRuntimeVersion"`
	// KubeletVersion is the kubelet's version.
	KubeletVersion string `json:"kubeletVersion"`
	// KubeProxyVersion is the kube-proxy's version (deprecated in Kubernetes).
	KubeProxyVersion string `json:"kubeProxyVersion"`
	// OperatingSystem is GOOS, e.g. "linux".
	OperatingSystem string `json:"operatingSystem"`
	// Architecture is GOARCH, e.g. "amd64".
	Architecture string `json:"architecture"`
}
