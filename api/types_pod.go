package api

// Pod is a group of containers scheduled together onto one node: the unit a
// ReplicationController creates and the simulated kubelet runs. Kubernetes: corev1.Pod.
type Pod struct {
	TypeMeta `json:",inline"`
	// Metadata is the pod's identity, labels and owners.
	Metadata ObjectMeta `json:"metadata,omitempty"`
	// Spec is the desired state, written by the pod's creator.
	Spec PodSpec `json:"spec,omitempty"`
	// Status is the observed state, written by the scheduler and the kubelet.
	Status PodStatus `json:"status,omitempty"`
}

// GetObjectMeta returns the pod's metadata.
func (p *Pod) GetObjectMeta() *ObjectMeta { return &p.Metadata }

// PodList is a list of pods. Kubernetes: corev1.PodList.
type PodList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty"`
	// Items are the pods.
	Items []Pod `json:"items"`
}

// PodTemplateSpec is the pod a controller stamps out: metadata (labels, annotations) and
// spec, without status. Kubernetes: corev1.PodTemplateSpec.
type PodTemplateSpec struct {
	// Metadata is copied into every pod created from the template.
	Metadata ObjectMeta `json:"metadata,omitempty"`
	// Spec is copied into every pod created from the template.
	Spec PodSpec `json:"spec,omitempty"`
}

// PodSpec is the desired state of a pod. Kubernetes: corev1.PodSpec (volumes, affinity,
// security contexts and many more are not modeled).
type PodSpec struct {
	// InitContainers run one after another, each to completion, before Containers start.
	InitContainers []Container `json:"initContainers,omitempty"`
	// Containers run together for the life of the pod. Encoded even when empty, as in
	// Kubernetes.
	Containers []Container `json:"containers"`
	// RestartPolicy says when the kubelet restarts exited containers; default Always.
	RestartPolicy RestartPolicy `json:"restartPolicy,omitempty"`
	// TerminationGracePeriodSeconds is how long containers get to stop after SIGTERM.
	TerminationGracePeriodSeconds *int64 `json:"terminationGracePeriodSeconds,omitempty"`
	// DNSPolicy says how the pod's DNS is configured; default ClusterFirst.
	DNSPolicy DNSPolicy `json:"dnsPolicy,omitempty"`
	// NodeSelector restricts scheduling to nodes whose labels include all of these.
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`
	// ServiceAccountName is the identity the pod's processes run as.
	ServiceAccountName string `json:"serviceAccountName,omitempty"`
	// NodeName is the node the pod is bound to; set by the scheduler, or by the creator to
	// bypass scheduling.
	NodeName string `json:"nodeName,omitempty"`
	// Hostname overrides the pod's hostname (default: the pod's name).
	Hostname string `json:"hostname,omitempty"`
	// Subdomain, with a headless Service of the same name, gives the pod the DNS name
	// "<hostname>.<subdomain>.<namespace>.svc".
	Subdomain string `json:"subdomain,omitempty"`
	// SchedulerName names the scheduler responsible for the pod.
	SchedulerName string `json:"schedulerName,omitempty"`
	// Tolerations let the pod run on nodes with matching taints.
	Tolerations []Toleration `json:"tolerations,omitempty"`
	// PriorityClassName names the pod's priority class.
	PriorityClassName string `json:"priorityClassName,omitempty"`
	// Priority is resolved from PriorityClassName at admission; higher is more important.
	Priority *int32 `json:"priority,omitempty"`
}

// Container is one container of a pod. Kubernetes: corev1.Container.
type Container struct {
	// Name is unique among the pod's containers.
	Name string `json:"name"`
	// Image is the container image reference.
	Image string `json:"image,omitempty"`
	// Command replaces the image's entrypoint.
	Command []string `json:"command,omitempty"`
	// Args replace the image's command arguments.
	Args []string `json:"args,omitempty"`
	// Ports are informational, but give names that a Service's targetPort can refer to.
	Ports []ContainerPort `json:"ports,omitempty"`
	// Env sets environment variables.
	Env []EnvVar `json:"env,omitempty"`
	// Resources are the compute resources requested and capped. Encoded as {} when empty,
	// as in Kubernetes.
	Resources ResourceRequirements `json:"resources,omitempty"`
	// LivenessProbe failing makes the kubelet restart the container.
	LivenessProbe *Probe `json:"livenessProbe,omitempty"`
	// ReadinessProbe failing takes the pod out of its Services' endpoints.
	ReadinessProbe *Probe `json:"readinessProbe,omitempty"`
	// ImagePullPolicy says when the kubelet pulls the image.
	ImagePullPolicy PullPolicy `json:"imagePullPolicy,omitempty"`
}

// ContainerPort is a port a container listens on. Kubernetes: corev1.ContainerPort.
type ContainerPort struct {
	// Name, if set, is unique in the pod and can be a Service's targetPort.
	Name string `json:"name,omitempty"`
	// HostPort exposes the port on the node.
	HostPort int32 `json:"hostPort,omitempty"`
	// ContainerPort is the port number in the pod's network namespace.
	ContainerPort int32 `json:"containerPort"`
	// Protocol defaults to TCP.
	Protocol Protocol `json:"protocol,omitempty"`
}

// EnvVar is one environment variable. Kubernetes: corev1.EnvVar (valueFrom is not modeled).
type EnvVar struct {
	// Name of the variable.
	Name string `json:"name"`
	// Value of the variable.
	Value string `json:"value,omitempty"`
}

// ResourceRequirements are a container's resource requests (what the scheduler reserves)
// and limits (the cap enforced at run time). Kubernetes: corev1.ResourceRequirements.
type ResourceRequirements struct {
	// Limits cap the container's usage.
	Limits ResourceList `json:"limits,omitempty"`
	// Requests are reserved for the container on its node.
	Requests ResourceList `json:"requests,omitempty"`
}

// Probe is a periodic health check of a container. Kubernetes: corev1.Probe.
type Probe struct {
	// ProbeHandler is the check itself; exactly one of its fields is set.
	ProbeHandler `json:",inline"`
	// InitialDelaySeconds to wait after the container starts before the first probe.
	InitialDelaySeconds int32 `json:"initialDelaySeconds,omitempty"`
	// TimeoutSeconds after which a probe counts as failed; default 1.
	TimeoutSeconds int32 `json:"timeoutSeconds,omitempty"`
	// PeriodSeconds between probes; default 10.
	PeriodSeconds int32 `json:"periodSeconds,omitempty"`
	// SuccessThreshold is the consecutive successes that count as healthy; default 1.
	SuccessThreshold int32 `json:"successThreshold,omitempty"`
	// FailureThreshold is the consecutive failures that count as unhealthy; default 3.
	FailureThreshold int32 `json:"failureThreshold,omitempty"`
}

// ProbeHandler is how a probe checks a container. Kubernetes: corev1.ProbeHandler.
type ProbeHandler struct {
	// Exec runs a command in the container; exit code 0 is success.
	Exec *ExecAction `json:"exec,omitempty"`
	// HTTPGet sends an HTTP GET; a status in [200, 400) is success.
	HTTPGet *HTTPGetAction `json:"httpGet,omitempty"`
	// TCPSocket opens a TCP connection; connecting is success.
	TCPSocket *TCPSocketAction `json:"tcpSocket,omitempty"`
}

// ExecAction runs a command in a container. Kubernetes: corev1.ExecAction.
type ExecAction struct {
	// Command is run directly, not in a shell.
	Command []string `json:"command,omitempty"`
}

// HTTPGetAction is an HTTP GET probe. Kubernetes: corev1.HTTPGetAction.
type HTTPGetAction struct {
	// Path to request.
	Path string `json:"path,omitempty"`
	// Port is a number or the name of a container port.
	Port IntOrString `json:"port"`
	// Host defaults to the pod IP.
	Host string `json:"host,omitempty"`
	// Scheme is HTTP or HTTPS; default HTTP.
	Scheme string `json:"scheme,omitempty"`
}

// TCPSocketAction is a TCP connect probe. Kubernetes: corev1.TCPSocketAction.
type TCPSocketAction struct {
	// Port is a number or the name of a container port.
	Port IntOrString `json:"port"`
	// Host defaults to the pod IP.
	Host string `json:"host,omitempty"`
}

// Toleration lets a pod be scheduled onto (or stay on) a node with a matching taint.
// Kubernetes: corev1.Toleration.
type Toleration struct {
	// Key is the taint key to match; empty with operator Exists matches every taint.
	Key string `json:"key,omitempty"`
	// Operator is Exists or Equal; default Equal.
	Operator TolerationOperator `json:"operator,omitempty"`
	// Value must equal the taint's value when Operator is Equal.
	Value string `json:"value,omitempty"`
	// Effect to match; empty matches every effect.
	Effect TaintEffect `json:"effect,omitempty"`
	// TolerationSeconds bounds how long a NoExecute taint is tolerated before eviction.
	TolerationSeconds *int64 `json:"tolerationSeconds,omitempty"`
}

// PodStatus is the observed state of a pod. Kubernetes: corev1.PodStatus.
type PodStatus struct {
	// Phase is the pod's coarse place in its lifecycle.
	Phase PodPhase `json:"phase,omitempty"`
	// Conditions are the detailed facts: scheduled, initialized, containers ready, ready.
	Conditions []PodCondition `json:"conditions,omitempty"`
	// Message is a human-readable reason for the pod's state.
	Message string `json:"message,omitempty"`
	// Reason is a CamelCase reason for the pod's state, e.g. "Evicted".
	Reason string `json:"reason,omitempty"`
	// HostIP is the primary IP of the node the pod runs on.
	HostIP string `json:"hostIP,omitempty"`
	// HostIPs are all IPs of the node the pod runs on; the first equals HostIP.
	HostIPs []HostIP `json:"hostIPs,omitempty"`
	// PodIP is the pod's primary IP.
	PodIP string `json:"podIP,omitempty"`
	// PodIPs are all the pod's IPs; the first equals PodIP.
	PodIPs []PodIP `json:"podIPs,omitempty"`
	// StartTime is when the kubelet accepted the pod.
	StartTime *Time `json:"startTime,omitempty"`
	// InitContainerStatuses has one entry per init container.
	InitContainerStatuses []ContainerStatus `json:"initContainerStatuses,omitempty"`
	// ContainerStatuses has one entry per container.
	ContainerStatuses []ContainerStatus `json:"containerStatuses,omitempty"`
	// QOSClass is derived from the containers' requests and limits.
	QOSClass PodQOSClass `json:"qosClass,omitempty"`
}

// PodCondition is one fact about a pod, with when it last changed. Kubernetes:
// corev1.PodCondition.
type PodCondition struct {
	// Type names the fact.
	Type PodConditionType `json:"type"`
	// Status is True, False or Unknown.
	Status ConditionStatus `json:"status"`
	// LastProbeTime is when the condition was last probed; usually zero (null).
	LastProbeTime Time `json:"lastProbeTime,omitempty"`
	// LastTransitionTime is when Status last changed.
	LastTransitionTime Time `json:"lastTransitionTime,omitempty"`
	// Reason is a CamelCase reason for the last transition.
	Reason string `json:"reason,omitempty"`
	// Message is a human-readable account of the last transition.
	Message string `json:"message,omitempty"`
}

// PodIP is one IP address of a pod. Kubernetes: corev1.PodIP.
type PodIP struct {
	// IP is the address.
	IP string `json:"ip"`
}

// HostIP is one IP address of a pod's node. Kubernetes: corev1.HostIP.
type HostIP struct {
	// IP is the address.
	IP string `json:"ip"`
}

// ContainerStatus is the observed state of one container. Kubernetes:
// corev1.ContainerStatus.
type ContainerStatus struct {
	// Name matches the container's name in the spec.
	Name string `json:"name"`
	// State is the current state.
	State ContainerState `json:"state,omitempty"`
	// LastTerminationState is how the previous run ended, if the container restarted.
	LastTerminationState ContainerState `json:"lastState,omitempty"`
	// Ready is whether the container passes its readiness probe.
	Ready bool `json:"ready"`
	// RestartCount counts restarts.
	RestartCount int32 `json:"restartCount"`
	// Image is the image the container runs.
	Image string `json:"image"`
	// ImageID is the digest of that image.
	ImageID string `json:"imageID"`
	// ContainerID is "<runtime>://<id>".
	ContainerID string `json:"containerID,omitempty"`
	// Started is whether the container passed its startup probe (or has none and runs).
	Started *bool `json:"started,omitempty"`
}

// ContainerState is the state of a container; at most one field is set, and none means
// waiting. Kubernetes: corev1.ContainerState.
type ContainerState struct {
	// Waiting is set while the container is not yet running.
	Waiting *ContainerStateWaiting `json:"waiting,omitempty"`
	// Running is set while the container runs.
	Running *ContainerStateRunning `json:"running,omitempty"`
	// Terminated is set after the container exited.
	Terminated *ContainerStateTerminated `json:"terminated,omitempty"`
}

// ContainerStateWaiting describes a container that is not yet running. Kubernetes:
// corev1.ContainerStateWaiting.
type ContainerStateWaiting struct {
	// Reason is a CamelCase reason, e.g. "ContainerCreating", "ImagePullBackOff".
	Reason string `json:"reason,omitempty"`
	// Message gives the details.
	Message string `json:"message,omitempty"`
}

// ContainerStateRunning describes a running container. Kubernetes:
// corev1.ContainerStateRunning.
type ContainerStateRunning struct {
	// StartedAt is when the container last started.
	StartedAt Time `json:"startedAt,omitempty"`
}

// ContainerStateTerminated describes a container that exited. Kubernetes:
// corev1.ContainerStateTerminated.
type ContainerStateTerminated struct {
	// ExitCode of the container's process.
	ExitCode int32 `json:"exitCode"`
	// Signal that killed the process, if any.
	Signal int32 `json:"signal,omitempty"`
	// Reason is a CamelCase reason, e.g. "Completed", "OOMKilled".
	Reason string `json:"reason,omitempty"`
	// Message gives the details.
	Message string `json:"message,omitempty"`
	// StartedAt is when the run that ended started.
	StartedAt Time `json:"startedAt,omitempty"`
	// FinishedAt is when it ended.
	FinishedAt Time `json:"finishedAt,omitempty"`
	// ContainerID of the run that ended.
	ContainerID string `json:"containerID,omitempty"`
}

// PodPhase is a pod's coarse place in its lifecycle. Kubernetes: corev1.PodPhase.
type PodPhase string

// Pod phases. Succeeded and Failed are terminal: a pod never leaves them.
const (
	// PodPending: accepted, but not all containers are running yet (scheduling, pulling).
	PodPending PodPhase = "Pending"
	// PodRunning: bound to a node and at least one container is running or restarting.
	PodRunning PodPhase = "Running"
	// PodSucceeded: all containers exited with success and will not restart.
	PodSucceeded PodPhase = "Succeeded"
	// PodFailed: all containers exited, at least one in failure, and none will restart.
	PodFailed PodPhase = "Failed"
	// PodUnknown: the pod's state could not be obtained, typically a lost node.
	PodUnknown PodPhase = "Unknown"
)

// PodConditionType names a fact in PodStatus.Conditions. Kubernetes: corev1.PodConditionType.
type PodConditionType string

// Pod condition types, in the order a healthy pod gains them.
const (
	// PodScheduled: the pod is bound to a node.
	PodScheduled PodConditionType = "PodScheduled"
	// PodInitialized: all init containers completed.
	PodInitialized PodConditionType = "Initialized"
	// ContainersReady: every container is ready.
	ContainersReady PodConditionType = "ContainersReady"
	// PodReady: the pod can serve traffic and belongs in its Services' ready endpoints.
	PodReady PodConditionType = "Ready"
)

// ConditionStatus is the status of any condition. Kubernetes: corev1.ConditionStatus.
type ConditionStatus string

// Condition statuses.
const (
	// ConditionTrue means the condition holds.
	ConditionTrue ConditionStatus = "True"
	// ConditionFalse means the condition does not hold.
	ConditionFalse ConditionStatus = "False"
	// ConditionUnknown means it cannot be decided.
	ConditionUnknown ConditionStatus = "Unknown"
)

// Protocol is a network protocol of a port. Kubernetes: corev1.Protocol.
type Protocol string

// Protocols.
const (
	// ProtocolTCP is the default protocol.
	ProtocolTCP Protocol = "TCP"
	// ProtocolUDP is UDP.
	ProtocolUDP Protocol = "UDP"
	// ProtocolSCTP is SCTP.
	ProtocolSCTP Protocol = "SCTP"
)

// RestartPolicy says when the kubelet restarts a pod's exited containers. Kubernetes:
// corev1.RestartPolicy.
type RestartPolicy string

// Restart policies.
const (
	// RestartPolicyAlways restarts every exited container; the pod never completes.
	RestartPolicyAlways RestartPolicy = "Always"
	// RestartPolicyOnFailure restarts containers that exited non-zero.
	RestartPolicyOnFailure RestartPolicy = "OnFailure"
	// RestartPolicyNever restarts nothing.
	RestartPolicyNever RestartPolicy = "Never"
)

// PullPolicy says when to pull a container image. Kubernetes: corev1.PullPolicy.
type PullPolicy string

// Image pull policies.
const (
	// PullAlways pulls on every container start.
	PullAlways PullPolicy = "Always"
	// PullNever uses only images already on the node.
	PullNever PullPolicy = "Never"
	// PullIfNotPresent pulls only when the node lacks the image.
	PullIfNotPresent PullPolicy = "IfNotPresent"
)

// DNSPolicy says how a pod's DNS resolver is configured. Kubernetes: corev1.DNSPolicy.
type DNSPolicy string

// DNS policies.
const (
	// DNSClusterFirst resolves through cluster DNS first; the default.
	DNSClusterFirst DNSPolicy = "ClusterFirst"
	// DNSClusterFirstWithHostNet is ClusterFirst for pods on the host network.
	DNSClusterFirstWithHostNet DNSPolicy = "ClusterFirstWithHostNet"
	// DNSDefault inherits the node's resolver configuration.
	DNSDefault DNSPolicy = "Default"
	// DNSNone leaves DNS configuration to the pod's dnsConfig.
	DNSNone DNSPolicy = "None"
)

// PodQOSClass is a pod's quality-of-service class, derived from its containers' requests and
// limits; it decides eviction order under node pressure. Kubernetes: corev1.PodQOSClass.
type PodQOSClass string

// QoS classes, from last to first evicted.
const (
	// PodQOSGuaranteed: every container has equal requests and limits for CPU and memory.
	PodQOSGuaranteed PodQOSClass = "Guaranteed"
	// PodQOSBurstable: some requests or limits, but not Guaranteed.
	PodQOSBurstable PodQOSClass = "Burstable"
	// PodQOSBestEffort: no requests or limits at all.
	PodQOSBestEffort PodQOSClass = "BestEffort"
)

// TolerationOperator is how a toleration matches a taint's value. Kubernetes:
// corev1.TolerationOperator.
type TolerationOperator string

// Toleration operators.
const (
	// TolerationOpExists matches any value.
	TolerationOpExists TolerationOperator = "Exists"
	// TolerationOpEqual matches an equal value.
	TolerationOpEqual TolerationOperator = "Equal"
)
