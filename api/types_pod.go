package api

// Pod is a group of containers scheduled together onto one node: the unit a
// ReplicationController creates and the simulated kubelet runs. Kubernetes: corev1.Pod.
type Pod struct {
	TypeMeta `json:",inline"`
	// Metadata is the pod's identity, labels and owners.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the desired state, written by the pod's creator.
	Spec PodSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is the observed state, written by the scheduler and the kubelet.
	Status PodStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// GetObjectMeta returns the pod's metadata.
func (p *Pod) GetObjectMeta() *ObjectMeta { return &p.Metadata }

// PodList is a list of pods. Kubernetes: corev1.PodList.
type PodList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the pods.
	Items []Pod `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// PodTemplateSpec is the pod a controller stamps out: metadata (labels, annotations) and
// spec, without status. Kubernetes: corev1.PodTemplateSpec.
type PodTemplateSpec struct {
	// Metadata is copied into every pod created from the template.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is copied into every pod created from the template.
	Spec PodSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

// PodSpec is the desired state of a pod. Kubernetes: corev1.PodSpec (persistent volumes, pod affinity
// and many more are not modeled).
type PodSpec struct {
	// InitContainers run one after another, each to completion, before Containers start.
	InitContainers []Container `json:"initContainers,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,20,rep,name=initContainers"`
	// Containers run together for the life of the pod. Encoded even when empty, as in
	// Kubernetes.
	Containers []Container `json:"containers" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,2,rep,name=containers"`
	// RestartPolicy says when the kubelet restarts exited containers; default Always.
	RestartPolicy RestartPolicy `json:"restartPolicy,omitempty" protobuf:"bytes,3,opt,name=restartPolicy"`
	// TerminationGracePeriodSeconds is how long containers get to stop after SIGTERM.
	TerminationGracePeriodSeconds *int64 `json:"terminationGracePeriodSeconds,omitempty" protobuf:"varint,4,opt,name=terminationGracePeriodSeconds"`
	// ActiveDeadlineSeconds bounds how long the pod may run, from its start; a pod
	// with it set is in a quota's Terminating scope.
	ActiveDeadlineSeconds *int64 `json:"activeDeadlineSeconds,omitempty" protobuf:"varint,5,opt,name=activeDeadlineSeconds"`
	// DNSPolicy says how the pod's DNS is configured; default ClusterFirst.
	DNSPolicy DNSPolicy `json:"dnsPolicy,omitempty" protobuf:"bytes,6,opt,name=dnsPolicy"`
	// NodeSelector restricts scheduling to nodes whose labels include all of these.
	NodeSelector map[string]string `json:"nodeSelector,omitempty" protobuf:"bytes,7,rep,name=nodeSelector" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	// ServiceAccountName is the identity the pod's processes run as.
	ServiceAccountName string `json:"serviceAccountName,omitempty" protobuf:"bytes,8,opt,name=serviceAccountName"`
	// DeprecatedServiceAccount is a deprecated alias for ServiceAccountName: read when
	// ServiceAccountName is empty, and kept equal to it.
	DeprecatedServiceAccount string `json:"serviceAccount,omitempty" protobuf:"bytes,9,opt,name=serviceAccount"`
	// NodeName is the node the pod is bound to; set by the scheduler, or by the creator to
	// bypass scheduling.
	NodeName string `json:"nodeName,omitempty" protobuf:"bytes,10,opt,name=nodeName"`
	// HostNetwork puts the pod in its node's network namespace: the kubelet then hands
	// its containers the node's /etc/hosts rather than one it manages.
	HostNetwork bool `json:"hostNetwork,omitempty" protobuf:"varint,11,opt,name=hostNetwork"`
	// Hostname overrides the pod's hostname (default: the pod's name).
	Hostname string `json:"hostname,omitempty" protobuf:"bytes,16,opt,name=hostname"`
	// Subdomain, with a headless Service of the same name, gives the pod the DNS name
	// "<hostname>.<subdomain>.<namespace>.svc".
	Subdomain string `json:"subdomain,omitempty" protobuf:"bytes,17,opt,name=subdomain"`
	// SchedulerName names the scheduler responsible for the pod.
	SchedulerName string `json:"schedulerName,omitempty" protobuf:"bytes,19,opt,name=schedulerName"`
	// Tolerations let the pod run on nodes with matching taints.
	// Its upstream Go tag says "opt"; the label follows generated.proto (repeated).
	Tolerations []Toleration `json:"tolerations,omitempty" protobuf:"bytes,22,rep,name=tolerations"`
	// PriorityClassName names the pod's priority class.
	PriorityClassName string `json:"priorityClassName,omitempty" protobuf:"bytes,24,opt,name=priorityClassName"`
	// Priority is resolved from PriorityClassName at admission; higher is more important.
	// Its upstream Go tag says "bytes"; the wire type follows generated.proto (int32).
	Priority *int32 `json:"priority,omitempty" protobuf:"varint,25,opt,name=priority"`
	// Affinity holds the pod's scheduling constraints: node affinity only (pod affinity and
	// anti-affinity are not modeled).
	Affinity *Affinity `json:"affinity,omitempty" protobuf:"bytes,18,opt,name=affinity"`
	// Volumes are the pod's volumes, which its containers mount (VolumeMounts).
	Volumes []Volume `json:"volumes,omitempty" patchStrategy:"merge,retainKeys" patchMergeKey:"name" protobuf:"bytes,1,rep,name=volumes"`
	// AutomountServiceAccountToken says whether the service account's token is mounted.
	AutomountServiceAccountToken *bool `json:"automountServiceAccountToken,omitempty" protobuf:"varint,21,opt,name=automountServiceAccountToken"`
	// EnableServiceLinks says whether the kubelet hands the containers variables naming the
	// Services of the pod's namespace, as Docker links did; default true.
	EnableServiceLinks *bool `json:"enableServiceLinks,omitempty" protobuf:"varint,30,opt,name=enableServiceLinks"`
	// Overhead is what running the pod costs beyond its containers (set from its
	// RuntimeClass): the scheduler adds it to the pod's requests.
	// Its upstream Go tag says "opt"; the label follows generated.proto (a map, repeated).
	Overhead ResourceList `json:"overhead,omitempty" protobuf:"bytes,32,rep,name=overhead" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	// RuntimeClassName names the node.k8s.io RuntimeClass the pod runs with; the
	// RuntimeClass admission step copies its overhead and scheduling into the pod.
	RuntimeClassName *string `json:"runtimeClassName,omitempty" protobuf:"bytes,29,opt,name=runtimeClassName"`
	// PreemptionPolicy is resolved from PriorityClassName at admission, as Priority is:
	// whether the pod may preempt pods of lower priority.
	PreemptionPolicy *PreemptionPolicy `json:"preemptionPolicy,omitempty" protobuf:"bytes,31,opt,name=preemptionPolicy"`
	// SecurityContext holds the identity and privileges every container runs with unless
	// its own SecurityContext says otherwise.
	SecurityContext *PodSecurityContext `json:"securityContext,omitempty" protobuf:"bytes,14,opt,name=securityContext"`
	// HostAliases are entries the kubelet adds to the pod's /etc/hosts.
	HostAliases []HostAlias `json:"hostAliases,omitempty" patchStrategy:"merge" patchMergeKey:"ip" protobuf:"bytes,23,rep,name=hostAliases"`
	// EphemeralContainers are debugging containers added to a running pod through
	// its ephemeralcontainers subresource; a plain update may not change them. They are
	// added, never removed or changed, and never restarted.
	EphemeralContainers []EphemeralContainer `json:"ephemeralContainers,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,34,rep,name=ephemeralContainers"`
}

// EphemeralContainer is a container added to a running pod to inspect it, as kubectl debug
// does. Kubernetes: corev1.EphemeralContainer.
type EphemeralContainer struct {
	// EphemeralContainerCommon is the container itself; ports, probes and resources may
	// not be set. Its upstream Go tag says "req"; the label follows generated.proto
	// (optional).
	EphemeralContainerCommon `json:",inline" protobuf:"bytes,1,opt,name=ephemeralContainerCommon"`
	// TargetContainerName names the pod's container whose process namespace the
	// ephemeral container shares; it must be one of the pod's containers or init containers.
	TargetContainerName string `json:"targetContainerName,omitempty" protobuf:"bytes,2,opt,name=targetContainerName"`
}

// EphemeralContainerCommon is Container under the name of its ephemeral use: upstream
// keeps a separate type with the same fields and tags, and converts between the two,
// as the kubelet here does by not needing to. Kubernetes: corev1.EphemeralContainerCommon.
type EphemeralContainerCommon = Container

// HostAlias is a line of the pod's /etc/hosts: an IP and the names it answers to.
// Kubernetes: corev1.HostAlias.
type HostAlias struct {
	// IP is the address the names resolve to.
	IP string `json:"ip" protobuf:"bytes,1,opt,name=ip"`
	// Hostnames are the names, each a DNS-1123 subdomain.
	Hostnames []string `json:"hostnames,omitempty" protobuf:"bytes,2,rep,name=hostnames"`
}

// Affinity is a pod's scheduling constraints. Kubernetes: corev1.Affinity (podAffinity and
// podAntiAffinity are not modeled).
type Affinity struct {
	// NodeAffinity constrains the nodes the pod may be scheduled onto, by their labels and
	// name.
	NodeAffinity *NodeAffinity `json:"nodeAffinity,omitempty" protobuf:"bytes,1,opt,name=nodeAffinity"`
}

// NodeAffinity is a pod's rules about nodes. Kubernetes: corev1.NodeAffinity.
type NodeAffinity struct {
	// RequiredDuringSchedulingIgnoredDuringExecution must match a node for the pod to be
	// scheduled there; a node that stops matching later keeps the pod.
	RequiredDuringSchedulingIgnoredDuringExecution *NodeSelector `json:"requiredDuringSchedulingIgnoredDuringExecution,omitempty" protobuf:"bytes,1,opt,name=requiredDuringSchedulingIgnoredDuringExecution"`
	// PreferredDuringSchedulingIgnoredDuringExecution are weighted preferences; miniplane's
	// scheduler keeps them but does not score by them.
	PreferredDuringSchedulingIgnoredDuringExecution []PreferredSchedulingTerm `json:"preferredDuringSchedulingIgnoredDuringExecution,omitempty" protobuf:"bytes,2,rep,name=preferredDuringSchedulingIgnoredDuringExecution"`
}

// PreferredSchedulingTerm is a weighted node preference. Kubernetes:
// corev1.PreferredSchedulingTerm.
type PreferredSchedulingTerm struct {
	// Weight, 1 to 100, is added to a node's score when it matches Preference.
	Weight int32 `json:"weight" protobuf:"varint,1,opt,name=weight"`
	// Preference is the term a node should match.
	Preference NodeSelectorTerm `json:"preference" protobuf:"bytes,2,opt,name=preference"`
}

// Container is one container of a pod. Kubernetes: corev1.Container.
type Container struct {
	// Name is unique among the pod's containers.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// Image is the container image reference.
	Image string `json:"image,omitempty" protobuf:"bytes,2,opt,name=image"`
	// Command replaces the image's entrypoint.
	Command []string `json:"command,omitempty" protobuf:"bytes,3,rep,name=command"`
	// Args replace the image's command arguments.
	Args []string `json:"args,omitempty" protobuf:"bytes,4,rep,name=args"`
	// Ports are informational, but give names that a Service's targetPort can refer to.
	Ports []ContainerPort `json:"ports,omitempty" patchStrategy:"merge" patchMergeKey:"containerPort" protobuf:"bytes,6,rep,name=ports"`
	// EnvFrom sets a variable for each key of ConfigMaps and Secrets; Env overrides them.
	EnvFrom []EnvFromSource `json:"envFrom,omitempty" protobuf:"bytes,19,rep,name=envFrom"`
	// Env sets environment variables.
	Env []EnvVar `json:"env,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,7,rep,name=env"`
	// Resources are the compute resources requested and capped. Encoded as {} when empty,
	// as in Kubernetes.
	Resources ResourceRequirements `json:"resources,omitempty" protobuf:"bytes,8,opt,name=resources"`
	// VolumeMounts mount the pod's volumes into the container's filesystem.
	VolumeMounts []VolumeMount `json:"volumeMounts,omitempty" patchStrategy:"merge" patchMergeKey:"mountPath" protobuf:"bytes,9,rep,name=volumeMounts"`
	// LivenessProbe failing makes the kubelet restart the container.
	LivenessProbe *Probe `json:"livenessProbe,omitempty" protobuf:"bytes,10,opt,name=livenessProbe"`
	// ReadinessProbe failing takes the pod out of its Services' endpoints.
	ReadinessProbe *Probe `json:"readinessProbe,omitempty" protobuf:"bytes,11,opt,name=readinessProbe"`
	// StartupProbe, until it succeeds, holds back the liveness and readiness probes; failing
	// it makes the kubelet restart the container.
	StartupProbe *Probe `json:"startupProbe,omitempty" protobuf:"bytes,22,opt,name=startupProbe"`
	// ImagePullPolicy says when the kubelet pulls the image.
	ImagePullPolicy PullPolicy `json:"imagePullPolicy,omitempty" protobuf:"bytes,14,opt,name=imagePullPolicy"`
	// TerminationMessagePath is the file whose content the kubelet takes as
	// the terminated state's message when the container exits; empty is
	// /dev/termination-log.
	TerminationMessagePath string `json:"terminationMessagePath,omitempty" protobuf:"bytes,13,opt,name=terminationMessagePath"`
	// TerminationMessagePolicy is File (the message is the file's) or
	// FallbackToLogsOnError (the log's last lines when the file is empty
	// and the container failed); empty is File.
	TerminationMessagePolicy TerminationMessagePolicy `json:"terminationMessagePolicy,omitempty" protobuf:"bytes,20,opt,name=terminationMessagePolicy"`
	// SecurityContext is the identity and privileges the container runs with; a field
	// set here overrides the pod's.
	SecurityContext *SecurityContext `json:"securityContext,omitempty" protobuf:"bytes,15,opt,name=securityContext"`
}

// TerminationMessagePolicy says where a terminated container's message
// comes from. Kubernetes: corev1.TerminationMessagePolicy.
type TerminationMessagePolicy string

// Termination message policies.
const (
	// TerminationMessageReadFile takes the message from the file only.
	TerminationMessageReadFile TerminationMessagePolicy = "File"
	// TerminationMessageFallbackToLogsOnError takes the log's tail when the
	// file is empty and the container exited with an error.
	TerminationMessageFallbackToLogsOnError TerminationMessagePolicy = "FallbackToLogsOnError"
)

// ContainerPort is a port a container listens on. Kubernetes: corev1.ContainerPort.
type ContainerPort struct {
	// Name, if set, is unique in the pod and can be a Service's targetPort.
	Name string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	// HostPort exposes the port on the node.
	HostPort int32 `json:"hostPort,omitempty" protobuf:"varint,2,opt,name=hostPort"`
	// ContainerPort is the port number in the pod's network namespace.
	ContainerPort int32 `json:"containerPort" protobuf:"varint,3,opt,name=containerPort"`
	// Protocol defaults to TCP.
	Protocol Protocol `json:"protocol,omitempty" protobuf:"bytes,4,opt,name=protocol"`
}

// EnvVar is one environment variable. Kubernetes: corev1.EnvVar.
type EnvVar struct {
	// Name of the variable.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// Value of the variable; $(VAR) refers to a variable defined before it.
	Value string `json:"value,omitempty" protobuf:"bytes,2,opt,name=value"`
	// ValueFrom is where the value comes from, when Value is empty.
	ValueFrom *EnvVarSource `json:"valueFrom,omitempty" protobuf:"bytes,3,opt,name=valueFrom"`
}

// ResourceRequirements are a container's resource requests (what the scheduler reserves)
// and limits (the cap enforced at run time). Kubernetes: corev1.ResourceRequirements.
type ResourceRequirements struct {
	// Limits cap the container's usage.
	Limits ResourceList `json:"limits,omitempty" protobuf:"bytes,1,rep,name=limits" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	// Requests are reserved for the container on its node.
	Requests ResourceList `json:"requests,omitempty" protobuf:"bytes,2,rep,name=requests" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
}

// Probe is a periodic health check of a container. Kubernetes: corev1.Probe.
type Probe struct {
	// ProbeHandler is the check itself; exactly one of its fields is set.
	ProbeHandler `json:",inline" protobuf:"bytes,1,opt,name=handler"`
	// InitialDelaySeconds to wait after the container starts before the first probe.
	InitialDelaySeconds int32 `json:"initialDelaySeconds,omitempty" protobuf:"varint,2,opt,name=initialDelaySeconds"`
	// TimeoutSeconds after which a probe counts as failed; default 1.
	TimeoutSeconds int32 `json:"timeoutSeconds,omitempty" protobuf:"varint,3,opt,name=timeoutSeconds"`
	// PeriodSeconds between probes; default 10.
	PeriodSeconds int32 `json:"periodSeconds,omitempty" protobuf:"varint,4,opt,name=periodSeconds"`
	// SuccessThreshold is the consecutive successes that count as healthy; default 1.
	SuccessThreshold int32 `json:"successThreshold,omitempty" protobuf:"varint,5,opt,name=successThreshold"`
	// FailureThreshold is the consecutive failures that count as unhealthy; default 3.
	FailureThreshold int32 `json:"failureThreshold,omitempty" protobuf:"varint,6,opt,name=failureThreshold"`
}

// ProbeHandler is how a probe checks a container. Kubernetes: corev1.ProbeHandler.
type ProbeHandler struct {
	// Exec runs a command in the container; exit code 0 is success.
	Exec *ExecAction `json:"exec,omitempty" protobuf:"bytes,1,opt,name=exec"`
	// HTTPGet sends an HTTP GET; a status in [200, 400) is success.
	HTTPGet *HTTPGetAction `json:"httpGet,omitempty" protobuf:"bytes,2,opt,name=httpGet"`
	// TCPSocket opens a TCP connection; connecting is success.
	TCPSocket *TCPSocketAction `json:"tcpSocket,omitempty" protobuf:"bytes,3,opt,name=tcpSocket"`
	// GRPC calls the gRPC health checking protocol's Check; SERVING is success.
	GRPC *GRPCAction `json:"grpc,omitempty" protobuf:"bytes,4,opt,name=grpc"`
}

// GRPCAction is a gRPC health check probe. Kubernetes: corev1.GRPCAction.
type GRPCAction struct {
	// Port is the port number of the gRPC service.
	// Its upstream Go tag says "bytes"; the wire type follows generated.proto (int32).
	Port int32 `json:"port" protobuf:"varint,1,opt,name=port"`
	// Service is the name of the service asked about (grpc.health.v1.HealthCheckRequest);
	// empty asks about the server as a whole.
	Service *string `json:"service" protobuf:"bytes,2,opt,name=service"`
}

// ExecAction runs a command in a container. Kubernetes: corev1.ExecAction.
type ExecAction struct {
	// Command is run directly, not in a shell.
	Command []string `json:"command,omitempty" protobuf:"bytes,1,rep,name=command"`
}

// HTTPGetAction is an HTTP GET probe. Kubernetes: corev1.HTTPGetAction.
type HTTPGetAction struct {
	// Path to request.
	Path string `json:"path,omitempty" protobuf:"bytes,1,opt,name=path"`
	// Port is a number or the name of a container port.
	Port IntOrString `json:"port" protobuf:"bytes,2,opt,name=port"`
	// Host defaults to the pod IP.
	Host string `json:"host,omitempty" protobuf:"bytes,3,opt,name=host"`
	// Scheme is HTTP or HTTPS; default HTTP.
	Scheme string `json:"scheme,omitempty" protobuf:"bytes,4,opt,name=scheme"`
}

// TCPSocketAction is a TCP connect probe. Kubernetes: corev1.TCPSocketAction.
type TCPSocketAction struct {
	// Port is a number or the name of a container port.
	Port IntOrString `json:"port" protobuf:"bytes,1,opt,name=port"`
	// Host defaults to the pod IP.
	Host string `json:"host,omitempty" protobuf:"bytes,2,opt,name=host"`
}

// Toleration lets a pod be scheduled onto (or stay on) a node with a matching taint.
// Kubernetes: corev1.Toleration.
type Toleration struct {
	// Key is the taint key to match; empty with operator Exists matches every taint.
	Key string `json:"key,omitempty" protobuf:"bytes,1,opt,name=key"`
	// Operator is Exists or Equal; default Equal.
	Operator TolerationOperator `json:"operator,omitempty" protobuf:"bytes,2,opt,name=operator"`
	// Value must equal the taint's value when Operator is Equal.
	Value string `json:"value,omitempty" protobuf:"bytes,3,opt,name=value"`
	// Effect to match; empty matches every effect.
	Effect TaintEffect `json:"effect,omitempty" protobuf:"bytes,4,opt,name=effect"`
	// TolerationSeconds bounds how long a NoExecute taint is tolerated before eviction.
	TolerationSeconds *int64 `json:"tolerationSeconds,omitempty" protobuf:"varint,5,opt,name=tolerationSeconds"`
}

// PodStatus is the observed state of a pod. Kubernetes: corev1.PodStatus.
type PodStatus struct {
	// Phase is the pod's coarse place in its lifecycle.
	Phase PodPhase `json:"phase,omitempty" protobuf:"bytes,1,opt,name=phase"`
	// Conditions are the detailed facts: scheduled, initialized, containers ready, ready.
	Conditions []PodCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,2,rep,name=conditions"`
	// Message is a human-readable reason for the pod's state.
	Message string `json:"message,omitempty" protobuf:"bytes,3,opt,name=message"`
	// Reason is a CamelCase reason for the pod's state, e.g. "Evicted".
	Reason string `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	// NominatedNodeName is the node the scheduler preempted pods on for
	// this pod, which it waits for while they go; it may still be bound
	// elsewhere.
	NominatedNodeName string `json:"nominatedNodeName,omitempty" protobuf:"bytes,11,opt,name=nominatedNodeName"`
	// HostIP is the primary IP of the node the pod runs on.
	HostIP string `json:"hostIP,omitempty" protobuf:"bytes,5,opt,name=hostIP"`
	// HostIPs are all IPs of the node the pod runs on; the first equals HostIP.
	HostIPs []HostIP `json:"hostIPs,omitempty" patchStrategy:"merge" patchMergeKey:"ip" protobuf:"bytes,16,rep,name=hostIPs"`
	// PodIP is the pod's primary IP.
	PodIP string `json:"podIP,omitempty" protobuf:"bytes,6,opt,name=podIP"`
	// PodIPs are all the pod's IPs; the first equals PodIP.
	PodIPs []PodIP `json:"podIPs,omitempty" patchStrategy:"merge" patchMergeKey:"ip" protobuf:"bytes,12,rep,name=podIPs"`
	// StartTime is when the kubelet accepted the pod.
	StartTime *Time `json:"startTime,omitempty" protobuf:"bytes,7,opt,name=startTime"`
	// InitContainerStatuses has one entry per init container.
	InitContainerStatuses []ContainerStatus `json:"initContainerStatuses,omitempty" protobuf:"bytes,10,rep,name=initContainerStatuses"`
	// ContainerStatuses has one entry per container.
	ContainerStatuses []ContainerStatus `json:"containerStatuses,omitempty" protobuf:"bytes,8,rep,name=containerStatuses"`
	// EphemeralContainerStatuses has one entry per ephemeral container the kubelet has
	// seen.
	EphemeralContainerStatuses []ContainerStatus `json:"ephemeralContainerStatuses,omitempty" protobuf:"bytes,13,rep,name=ephemeralContainerStatuses"`
	// QOSClass is derived from the containers' requests and limits.
	// Its upstream Go tag says "rep"; the label follows generated.proto (optional).
	QOSClass PodQOSClass `json:"qosClass,omitempty" protobuf:"bytes,9,opt,name=qosClass"`
}

// PodCondition is one fact about a pod, with when it last changed. Kubernetes:
// corev1.PodCondition.
type PodCondition struct {
	// Type names the fact.
	Type PodConditionType `json:"type" protobuf:"bytes,1,opt,name=type"`
	// Status is True, False or Unknown.
	Status ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status"`
	// LastProbeTime is when the condition was last probed; usually zero (null).
	LastProbeTime Time `json:"lastProbeTime,omitempty" protobuf:"bytes,3,opt,name=lastProbeTime"`
	// LastTransitionTime is when Status last changed.
	LastTransitionTime Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,4,opt,name=lastTransitionTime"`
	// Reason is a CamelCase reason for the last transition.
	Reason string `json:"reason,omitempty" protobuf:"bytes,5,opt,name=reason"`
	// Message is a human-readable account of the last transition.
	Message string `json:"message,omitempty" protobuf:"bytes,6,opt,name=message"`
}

// PodIP is one IP address of a pod. Kubernetes: corev1.PodIP.
type PodIP struct {
	// IP is the address.
	IP string `json:"ip" protobuf:"bytes,1,opt,name=ip"`
}

// HostIP is one IP address of a pod's node. Kubernetes: corev1.HostIP.
type HostIP struct {
	// IP is the address.
	IP string `json:"ip" protobuf:"bytes,1,opt,name=ip"`
}

// ContainerStatus is the observed state of one container. Kubernetes:
// corev1.ContainerStatus.
type ContainerStatus struct {
	// Name matches the container's name in the spec.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// State is the current state.
	State ContainerState `json:"state,omitempty" protobuf:"bytes,2,opt,name=state"`
	// LastTerminationState is how the previous run ended, if the container restarted.
	LastTerminationState ContainerState `json:"lastState,omitempty" protobuf:"bytes,3,opt,name=lastState"`
	// Ready is whether the container passes its readiness probe.
	Ready bool `json:"ready" protobuf:"varint,4,opt,name=ready"`
	// RestartCount counts restarts.
	RestartCount int32 `json:"restartCount" protobuf:"varint,5,opt,name=restartCount"`
	// Image is the image the container runs.
	Image string `json:"image" protobuf:"bytes,6,opt,name=image"`
	// ImageID is the digest of that image.
	ImageID string `json:"imageID" protobuf:"bytes,7,opt,name=imageID"`
	// ContainerID is "<runtime>://<id>".
	ContainerID string `json:"containerID,omitempty" protobuf:"bytes,8,opt,name=containerID"`
	// Started is whether the container passed its startup probe (or has none and runs).
	Started *bool `json:"started,omitempty" protobuf:"varint,9,opt,name=started"`
}

// ContainerState is the state of a container; at most one field is set, and none means
// waiting. Kubernetes: corev1.ContainerState.
type ContainerState struct {
	// Waiting is set while the container is not yet running.
	Waiting *ContainerStateWaiting `json:"waiting,omitempty" protobuf:"bytes,1,opt,name=waiting"`
	// Running is set while the container runs.
	Running *ContainerStateRunning `json:"running,omitempty" protobuf:"bytes,2,opt,name=running"`
	// Terminated is set after the container exited.
	Terminated *ContainerStateTerminated `json:"terminated,omitempty" protobuf:"bytes,3,opt,name=terminated"`
}

// ContainerStateWaiting describes a container that is not yet running. Kubernetes:
// corev1.ContainerStateWaiting.
type ContainerStateWaiting struct {
	// Reason is a CamelCase reason, e.g. "ContainerCreating", "ImagePullBackOff".
	Reason string `json:"reason,omitempty" protobuf:"bytes,1,opt,name=reason"`
	// Message gives the details.
	Message string `json:"message,omitempty" protobuf:"bytes,2,opt,name=message"`
}

// ContainerStateRunning describes a running container. Kubernetes:
// corev1.ContainerStateRunning.
type ContainerStateRunning struct {
	// StartedAt is when the container last started.
	StartedAt Time `json:"startedAt,omitempty" protobuf:"bytes,1,opt,name=startedAt"`
}

// ContainerStateTerminated describes a container that exited. Kubernetes:
// corev1.ContainerStateTerminated.
type ContainerStateTerminated struct {
	// ExitCode of the container's process.
	ExitCode int32 `json:"exitCode" protobuf:"varint,1,opt,name=exitCode"`
	// Signal that killed the process, if any.
	Signal int32 `json:"signal,omitempty" protobuf:"varint,2,opt,name=signal"`
	// Reason is a CamelCase reason, e.g. "Completed", "OOMKilled".
	Reason string `json:"reason,omitempty" protobuf:"bytes,3,opt,name=reason"`
	// Message gives the details.
	Message string `json:"message,omitempty" protobuf:"bytes,4,opt,name=message"`
	// StartedAt is when the run that ended started.
	StartedAt Time `json:"startedAt,omitempty" protobuf:"bytes,5,opt,name=startedAt"`
	// FinishedAt is when it ended.
	FinishedAt Time `json:"finishedAt,omitempty" protobuf:"bytes,6,opt,name=finishedAt"`
	// ContainerID of the run that ended.
	ContainerID string `json:"containerID,omitempty" protobuf:"bytes,7,opt,name=containerID"`
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

// PodSecurityContext is the identity and privileges of a pod's processes, and
// the ownership of its volumes. Kubernetes: corev1.PodSecurityContext (SELinux,
// AppArmor, Windows options and the fsGroup and supplemental groups
// policies are not modeled).
type PodSecurityContext struct {
	// RunAsUser is the uid the containers' processes run as, instead of the image's.
	RunAsUser *int64 `json:"runAsUser,omitempty" protobuf:"varint,2,opt,name=runAsUser"`
	// RunAsNonRoot makes the kubelet refuse to start a container that would run as uid 0.
	RunAsNonRoot *bool `json:"runAsNonRoot,omitempty" protobuf:"varint,3,opt,name=runAsNonRoot"`
	// SupplementalGroups are groups the processes belong to besides their primary one.
	SupplementalGroups []int64 `json:"supplementalGroups,omitempty" protobuf:"varint,4,rep,name=supplementalGroups"`
	// FSGroup owns the pod's volumes, and the processes belong to it.
	FSGroup *int64 `json:"fsGroup,omitempty" protobuf:"varint,5,opt,name=fsGroup"`
	// RunAsGroup is the primary gid of the containers' processes, instead of the image's.
	RunAsGroup *int64 `json:"runAsGroup,omitempty" protobuf:"varint,6,opt,name=runAsGroup"`
	// Sysctls are the namespaced kernel parameters set for the pod. The kubelet
	// refuses a pod with a sysctl neither safe nor allowed on its node
	// (SysctlForbidden).
	Sysctls []Sysctl `json:"sysctls,omitempty" protobuf:"bytes,7,rep,name=sysctls"`
	// SeccompProfile is the system call filter of the containers.
	SeccompProfile *SeccompProfile `json:"seccompProfile,omitempty" protobuf:"bytes,10,opt,name=seccompProfile"`
}

// Sysctl is one kernel parameter set in a pod's namespaces: its name (with
// "." or "/" between its parts, "kernel.shm_rmid_forced") and value.
// Kubernetes: corev1.Sysctl.
type Sysctl struct {
	// Name is the parameter's name.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// Value is what it is set to.
	Value string `json:"value" protobuf:"bytes,2,opt,name=value"`
}

// SecurityContext is the identity and privileges of one container's
// processes; a field set here overrides the pod's. Kubernetes:
// corev1.SecurityContext (SELinux, AppArmor, Windows options and procMount
// are not modeled).
type SecurityContext struct {
	// Capabilities are added to and dropped from the runtime's default set.
	Capabilities *Capabilities `json:"capabilities,omitempty" protobuf:"bytes,1,opt,name=capabilities"`
	// Privileged runs the container with the host's devices and every capability.
	Privileged *bool `json:"privileged,omitempty" protobuf:"varint,2,opt,name=privileged"`
	// RunAsUser is the uid the processes run as.
	RunAsUser *int64 `json:"runAsUser,omitempty" protobuf:"varint,4,opt,name=runAsUser"`
	// RunAsNonRoot makes the kubelet refuse to start the container as uid 0.
	RunAsNonRoot *bool `json:"runAsNonRoot,omitempty" protobuf:"varint,5,opt,name=runAsNonRoot"`
	// ReadOnlyRootFilesystem mounts the image's filesystem read-only: only volumes are
	// writable.
	ReadOnlyRootFilesystem *bool `json:"readOnlyRootFilesystem,omitempty" protobuf:"varint,6,opt,name=readOnlyRootFilesystem"`
	// AllowPrivilegeEscalation false sets no_new_privs: a setuid binary does not raise
	// the process's privileges.
	AllowPrivilegeEscalation *bool `json:"allowPrivilegeEscalation,omitempty" protobuf:"varint,7,opt,name=allowPrivilegeEscalation"`
	// RunAsGroup is the primary gid of the processes.
	RunAsGroup *int64 `json:"runAsGroup,omitempty" protobuf:"varint,8,opt,name=runAsGroup"`
	// SeccompProfile is the container's system call filter, instead of the pod's.
	SeccompProfile *SeccompProfile `json:"seccompProfile,omitempty" protobuf:"bytes,11,opt,name=seccompProfile"`
}

// Capabilities are Linux capabilities added to and dropped from a container's
// default set. Kubernetes: corev1.Capabilities.
type Capabilities struct {
	// Add are capabilities added ("NET_ADMIN").
	Add []string `json:"add,omitempty" protobuf:"bytes,1,rep,name=add"`
	// Drop are capabilities dropped ("ALL" drops all).
	Drop []string `json:"drop,omitempty" protobuf:"bytes,2,rep,name=drop"`
}

// SeccompProfile is a system call filter. Kubernetes: corev1.SeccompProfile.
type SeccompProfile struct {
	// Type is RuntimeDefault, Unconfined or Localhost.
	Type string `json:"type" protobuf:"bytes,1,opt,name=type"`
	// LocalhostProfile is the profile's path under the kubelet's seccomp directory, for
	// type Localhost only.
	LocalhostProfile *string `json:"localhostProfile,omitempty" protobuf:"bytes,2,opt,name=localhostProfile"`
}
