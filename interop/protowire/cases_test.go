package protowire

import (
	"encoding/json"
	"maps"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
)

// The hand-written cases: for every top-level type, one object with every field miniplane
// models set (TestFullCasesSetEveryField checks that), and a few objects aimed at one
// special shape each.

var (
	created  = api.NewTime(time.Date(2024, 5, 14, 9, 21, 7, 0, time.UTC))
	deleted  = api.NewTime(time.Date(2024, 5, 14, 10, 0, 0, 0, time.UTC))
	acquired = api.NewMicroTime(time.Date(2024, 5, 14, 9, 21, 7, 123456000, time.UTC))
	renewed  = api.NewMicroTime(time.Date(2024, 5, 14, 9, 21, 17, 654321000, time.UTC))
)

func ptr[T any](v T) *T { return &v }

func fullObjectMeta(name string) api.ObjectMeta {
	return api.ObjectMeta{
		Name:                       name,
		GenerateName:               name + "-",
		Namespace:                  "default",
		UID:                        api.UID("3f1c2a4e-8d6b-4c1e-9a53-" + name),
		ResourceVersion:            "4242",
		Generation:                 7,
		CreationTimestamp:          created,
		DeletionTimestamp:          &deleted,
		DeletionGracePeriodSeconds: ptr(int64(30)),
		Labels:                     map[string]string{"app": "web", "tier": "front", "": "empty key"},
		Annotations:                map[string]string{"kubernetes.io/change-cause": "scale up", "z": ""},
		OwnerReferences: []api.OwnerReference{
			{APIVersion: "v1", Kind: "ReplicationController", Name: "web", UID: "rc-uid", Controller: ptr(true), BlockOwnerDeletion: ptr(true)},
			{APIVersion: "v1", Kind: "Service", Name: "other", UID: "svc-uid", Controller: ptr(false), BlockOwnerDeletion: ptr(false)},
		},
		Finalizers: []string{"foregroundDeletion", "example.com/cleanup"},
		ManagedFields: []api.ManagedFieldsEntry{
			{
				Manager: "kubectl-client-side-apply", Operation: "Update", APIVersion: "v1", Time: &created,
				FieldsType: "FieldsV1", FieldsV1: json.RawMessage(`{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:replicas":{}}}`),
				Subresource: "status",
			},
		},
	}
}

func fullListMeta() api.ListMeta {
	return api.ListMeta{ResourceVersion: "4243", Continue: "eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ", RemainingItemCount: ptr(int64(12))}
}

func fullObjectReference() api.ObjectReference {
	return api.ObjectReference{
		Kind: "Pod", Namespace: "default", Name: "web-1", UID: "pod-uid", APIVersion: "v1",
		ResourceVersion: "17", FieldPath: "spec.containers{web}",
	}
}

func fullContainer(name string) api.Container {
	return api.Container{
		Name:    name,
		Image:   "nginx:1.27",
		Command: []string{"/bin/sh", "-c"},
		Args:    []string{"exec nginx -g 'daemon off;'"},
		Ports: []api.ContainerPort{
			{Name: "http", HostPort: 8080, ContainerPort: 80, Protocol: api.ProtocolTCP},
			{Name: "dns", HostPort: 0, ContainerPort: 53, Protocol: api.ProtocolUDP},
		},
		EnvFrom: []api.EnvFromSource{
			{Prefix: "CFG_", ConfigMapRef: &api.ConfigMapEnvSource{LocalObjectReference: api.LocalObjectReference{Name: "cfg"}, Optional: ptr(true)}},
			{SecretRef: &api.SecretEnvSource{LocalObjectReference: api.LocalObjectReference{Name: "sec"}, Optional: ptr(false)}},
		},
		Env: []api.EnvVar{{Name: "MODE", Value: "prod"}, {Name: "EMPTY", Value: ""},
			{Name: "POD", ValueFrom: &api.EnvVarSource{FieldRef: &api.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.name"}}},
			{Name: "CPU", ValueFrom: &api.EnvVarSource{ResourceFieldRef: &api.ResourceFieldSelector{ContainerName: name, Resource: "limits.cpu", Divisor: "1m"}}},
			{Name: "LEVEL", ValueFrom: &api.EnvVarSource{ConfigMapKeyRef: &api.ConfigMapKeySelector{LocalObjectReference: api.LocalObjectReference{Name: "cfg"}, Key: "level", Optional: ptr(true)}}},
			{Name: "PASS", ValueFrom: &api.EnvVarSource{SecretKeyRef: &api.SecretKeySelector{LocalObjectReference: api.LocalObjectReference{Name: "sec"}, Key: "pass", Optional: ptr(false)}}},
		},
		VolumeMounts: []api.VolumeMount{{Name: "config", ReadOnly: true, MountPath: "/etc/config", SubPath: "sub"},
			{Name: "config", MountPath: "/var/log/app", SubPathExpr: "$(POD)"}},
		Resources: api.ResourceRequirements{
			Limits:   api.ResourceList{"cpu": "2", "memory": "1Gi", "ephemeral-storage": "10G"},
			Requests: api.ResourceList{"cpu": "500m", "memory": "128Mi", "pods": "1"},
		},
		LivenessProbe: &api.Probe{
			ProbeHandler: api.ProbeHandler{
				Exec:      &api.ExecAction{Command: []string{"cat", "/tmp/healthy"}},
				HTTPGet:   &api.HTTPGetAction{Path: "/healthz", Port: api.FromString("http"), Host: "10.0.0.1", Scheme: "HTTPS"},
				TCPSocket: &api.TCPSocketAction{Port: api.FromInt(80), Host: "localhost"},
				GRPC:      &api.GRPCAction{Port: 5000, Service: ptr("web")},
			},
			InitialDelaySeconds: 5, TimeoutSeconds: 2, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3,
		},
		ReadinessProbe: &api.Probe{
			ProbeHandler:        api.ProbeHandler{TCPSocket: &api.TCPSocketAction{Port: api.FromString("http")}},
			InitialDelaySeconds: 1,
		},
		StartupProbe: &api.Probe{
			ProbeHandler:     api.ProbeHandler{HTTPGet: &api.HTTPGetAction{Path: "/started", Port: api.FromInt(80)}},
			FailureThreshold: 30, PeriodSeconds: 10,
		},
		ImagePullPolicy:        api.PullIfNotPresent,
		TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: api.TerminationMessageFallbackToLogsOnError,
		SecurityContext: &api.SecurityContext{
			Capabilities: &api.Capabilities{Add: []string{"NET_ADMIN"}, Drop: []string{"ALL"}},
			Privileged:   ptr(false), RunAsUser: ptr(int64(1000)), RunAsNonRoot: ptr(true), ReadOnlyRootFilesystem: ptr(true),
			AllowPrivilegeEscalation: ptr(false), RunAsGroup: ptr(int64(3000)),
			SeccompProfile: &api.SeccompProfile{Type: "Localhost", LocalhostProfile: ptr("profiles/audit.json")},
		},
	}
}

func fullPodSpec() api.PodSpec {
	return api.PodSpec{
		InitContainers:                []api.Container{fullContainer("init")},
		Containers:                    []api.Container{fullContainer("web"), fullContainer("sidecar")},
		RestartPolicy:                 api.RestartPolicyAlways,
		TerminationGracePeriodSeconds: ptr(int64(30)),
		ActiveDeadlineSeconds:         ptr(int64(600)),
		DNSPolicy:                     api.DNSClusterFirst,
		NodeSelector:                  map[string]string{"kubernetes.io/os": "linux"},
		ServiceAccountName:            "default",
		DeprecatedServiceAccount:      "default",
		NodeName:                      "node-1",
		HostNetwork:                   true,
		Hostname:                      "web-1",
		Subdomain:                     "web",
		SchedulerName:                 "default-scheduler",
		Tolerations: []api.Toleration{
			{Key: "node.kubernetes.io/not-ready", Operator: api.TolerationOpExists, Value: "", Effect: api.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))},
			{Key: "dedicated", Operator: api.TolerationOpEqual, Value: "web", Effect: api.TaintEffectNoSchedule},
		},
		PriorityClassName: "high",
		Priority:          ptr(int32(1000)),
		PreemptionPolicy:  ptr(api.PreemptNever),
		RuntimeClassName:  ptr("gvisor"),
		Affinity: &api.Affinity{NodeAffinity: &api.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{{
				MatchExpressions: []api.NodeSelectorRequirement{{Key: "zone", Operator: "In", Values: []string{"a", "b"}}},
				MatchFields:      []api.NodeSelectorRequirement{{Key: "metadata.name", Operator: "NotIn", Values: []string{"node-9"}}},
			}}},
			PreferredDuringSchedulingIgnoredDuringExecution: []api.PreferredSchedulingTerm{{
				Weight: 10, Preference: api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{{Key: "disk", Operator: "Exists"}}},
			}},
		}},
		Overhead:                     api.ResourceList{"cpu": "250m", "memory": "120Mi"},
		AutomountServiceAccountToken: ptr(false),
		EnableServiceLinks:           ptr(true),
		Volumes:                      fullVolumes(),
		SecurityContext: &api.PodSecurityContext{RunAsUser: ptr(int64(1001)), RunAsNonRoot: ptr(false),
			SupplementalGroups: []int64{1234, 5678}, FSGroup: ptr(int64(2000)), RunAsGroup: ptr(int64(2002)),
			Sysctls:        []api.Sysctl{{Name: "kernel.shm_rmid_forced", Value: "1"}, {Name: "net/ipv4/ip_unprivileged_port_start", Value: "0"}},
			SeccompProfile: &api.SeccompProfile{Type: "RuntimeDefault"}},
		HostAliases: []api.HostAlias{{IP: "123.45.67.89", Hostnames: []string{"foo", "bar"}}},
		EphemeralContainers: []api.EphemeralContainer{{
			EphemeralContainerCommon: api.Container{Name: "debugger", Image: "busybox", Command: []string{"sh"},
				Env: []api.EnvVar{{Name: "A", Value: "b"}}, ImagePullPolicy: api.PullIfNotPresent, TerminationMessagePolicy: api.TerminationMessageReadFile},
			TargetContainerName: "web",
		}},
	}
}

func fullVolumes() []api.Volume {
	items := []api.KeyToPath{{Key: "level", Path: "dir/level", Mode: ptr(int32(0o400))}}
	files := []api.DownwardAPIVolumeFile{
		{Path: "labels", FieldRef: &api.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.labels"}, Mode: ptr(int32(0o444)),
			ResourceFieldRef: &api.ResourceFieldSelector{ContainerName: "web", Resource: "limits.memory", Divisor: "1Mi"}},
	}
	cm := api.LocalObjectReference{Name: "cfg"}
	return []api.Volume{
		{Name: "scratch", VolumeSource: api.VolumeSource{HostPath: &api.HostPathVolumeSource{Path: "/tmp/job-e2e/x", Type: ptr("DirectoryOrCreate")},
			EmptyDir:    &api.EmptyDirVolumeSource{Medium: "Memory", SizeLimit: ptr(api.Quantity("64Mi"))},
			Secret:      &api.SecretVolumeSource{SecretName: "sec", Items: items, DefaultMode: ptr(int32(0o644)), Optional: ptr(true)},
			DownwardAPI: &api.DownwardAPIVolumeSource{Items: files, DefaultMode: ptr(int32(0o644))},
			ConfigMap:   &api.ConfigMapVolumeSource{LocalObjectReference: cm, Items: items, DefaultMode: ptr(int32(0o600)), Optional: ptr(false)},
			Projected: &api.ProjectedVolumeSource{DefaultMode: ptr(int32(0o440)), Sources: []api.VolumeProjection{{
				Secret:              &api.SecretProjection{LocalObjectReference: api.LocalObjectReference{Name: "sec"}, Items: items, Optional: ptr(true)},
				DownwardAPI:         &api.DownwardAPIProjection{Items: files},
				ConfigMap:           &api.ConfigMapProjection{LocalObjectReference: cm, Items: items, Optional: ptr(false)},
				ServiceAccountToken: &api.ServiceAccountTokenProjection{Audience: "api", ExpirationSeconds: ptr(int64(3600)), Path: "token"},
			}}},
			PersistentVolumeClaim: &api.PersistentVolumeClaimVolumeSource{ClaimName: "data", ReadOnly: true},
		}},
	}
}

func fullPodStatus() api.PodStatus {
	state := api.ContainerState{
		Waiting:    &api.ContainerStateWaiting{Reason: "ContainerCreating", Message: "pulling"},
		Running:    &api.ContainerStateRunning{StartedAt: created},
		Terminated: &api.ContainerStateTerminated{ExitCode: 137, Signal: 9, Reason: "OOMKilled", Message: "out of memory", StartedAt: created, FinishedAt: deleted, ContainerID: "containerd://abc"},
	}
	status := api.ContainerStatus{
		Name: "web", State: state, LastTerminationState: state, Ready: true, RestartCount: 2,
		Image: "nginx:1.27", ImageID: "sha256:0123", ContainerID: "containerd://def", Started: ptr(true),
	}
	return api.PodStatus{
		Phase: api.PodRunning,
		Conditions: []api.PodCondition{
			{Type: api.PodReady, Status: api.ConditionTrue, LastProbeTime: created, LastTransitionTime: deleted, Reason: "Ready", Message: "all containers ready"},
			{Type: api.PodScheduled, Status: api.ConditionTrue},
		},
		Message:                    "running",
		Reason:                     "Started",
		NominatedNodeName:          "node-2",
		HostIP:                     "192.168.1.10",
		HostIPs:                    []api.HostIP{{IP: "192.168.1.10"}, {IP: "fd00::10"}},
		PodIP:                      "10.244.1.7",
		PodIPs:                     []api.PodIP{{IP: "10.244.1.7"}, {IP: "fd00:10:244::7"}},
		StartTime:                  &created,
		InitContainerStatuses:      []api.ContainerStatus{status},
		ContainerStatuses:          []api.ContainerStatus{status, {Name: "sidecar"}},
		EphemeralContainerStatuses: []api.ContainerStatus{{Name: "debugger"}},
		QOSClass:                   api.PodQOSBurstable,
	}
}

func fullPod(name string) api.Pod {
	return api.Pod{Metadata: fullObjectMeta(name), Spec: fullPodSpec(), Status: fullPodStatus()}
}

func fullReplicationController(name string) api.ReplicationController {
	return api.ReplicationController{
		Metadata: fullObjectMeta(name),
		Spec: api.ReplicationControllerSpec{
			Replicas: ptr(int32(3)), MinReadySeconds: 10, Selector: map[string]string{"app": "web"},
			Template: &api.PodTemplateSpec{Metadata: fullObjectMeta(""), Spec: fullPodSpec()},
		},
		Status: api.ReplicationControllerStatus{
			Replicas: 3, FullyLabeledReplicas: 3, ReadyReplicas: 2, AvailableReplicas: 1, ObservedGeneration: 7,
			Conditions: []api.ReplicationControllerCondition{
				{Type: api.ReplicationControllerReplicaFailure, Status: api.ConditionTrue, LastTransitionTime: created, Reason: "FailedCreate", Message: "quota exceeded"},
			},
		},
	}
}

func fullService(name string) api.Service {
	return api.Service{
		Metadata: fullObjectMeta(name),
		Spec: api.ServiceSpec{
			Ports: []api.ServicePort{
				{Name: "http", Protocol: api.ProtocolTCP, AppProtocol: ptr("http"), Port: 80, TargetPort: api.FromString("http"), NodePort: 30080},
				{Name: "metrics", Protocol: api.ProtocolTCP, AppProtocol: ptr(""), Port: 9090, TargetPort: api.FromInt(9091), NodePort: 30090},
			},
			Selector:                 map[string]string{"app": "web"},
			ClusterIP:                "10.96.0.10",
			ClusterIPs:               []string{"10.96.0.10", "fd00::a"},
			Type:                     api.ServiceTypeLoadBalancer,
			SessionAffinity:          api.ServiceAffinityClientIP,
			ExternalName:             "web.example.com",
			PublishNotReadyAddresses: true,
			IPFamilies:               []api.IPFamily{api.IPv4Protocol, api.IPv6Protocol},
			IPFamilyPolicy:           ptr(api.IPFamilyPolicyPreferDualStack),
			InternalTrafficPolicy:    ptr(api.InternalTrafficPolicyLocal),
			ExternalTrafficPolicy:    api.ExternalTrafficPolicyLocal,
			HealthCheckNodePort:      31000,
		},
		Status: api.ServiceStatus{LoadBalancer: api.LoadBalancerStatus{Ingress: []api.LoadBalancerIngress{
			{IP: "203.0.113.5", Hostname: "lb.example.com"},
		}}, Conditions: []api.Condition{
			{Type: "LoadBalancerReady", Status: api.ConditionTrue, ObservedGeneration: 2, LastTransitionTime: created, Reason: "Provisioned", Message: "the load balancer is up"},
		}},
	}
}

func fullEndpoints(name string) api.Endpoints {
	address := api.EndpointAddress{IP: "10.244.1.7", Hostname: "web-1", NodeName: ptr("node-1"), TargetRef: ptr(fullObjectReference())}
	return api.Endpoints{
		Metadata: fullObjectMeta(name),
		Subsets: []api.EndpointSubset{{
			Addresses:         []api.EndpointAddress{address, {IP: "10.244.2.8"}},
			NotReadyAddresses: []api.EndpointAddress{address},
			Ports: []api.EndpointPort{
				{Name: "http", Port: 80, Protocol: api.ProtocolTCP, AppProtocol: ptr("http")},
				{Name: "", Port: 0},
			},
		}},
	}
}

func fullNode(name string) api.Node {
	return api.Node{
		Metadata: fullObjectMeta(name),
		Spec: api.NodeSpec{
			PodCIDR: "10.244.1.0/24", PodCIDRs: []string{"10.244.1.0/24", "fd00:10:244:1::/64"},
			ProviderID: "kind://docker/kind/node-1", Unschedulable: true,
			Taints: []api.Taint{
				{Key: "node.kubernetes.io/unreachable", Value: "", Effect: api.TaintEffectNoExecute, TimeAdded: &created},
				{Key: "dedicated", Value: "web", Effect: api.TaintEffectNoSchedule},
			},
		},
		Status: api.NodeStatus{
			Capacity:    api.ResourceList{"cpu": "4", "memory": "16Gi", "pods": "110", "example.com/gpu": "0"},
			Allocatable: api.ResourceList{"cpu": "3800m", "memory": "15500Mi", "pods": "110"},
			Phase:       api.NodeRunning,
			Conditions: []api.NodeCondition{
				{Type: api.NodeReady, Status: api.ConditionTrue, LastHeartbeatTime: deleted, LastTransitionTime: created, Reason: "KubeletReady", Message: "kubelet is posting ready status"},
				{Type: api.NodeMemoryPressure, Status: api.ConditionFalse},
			},
			Addresses:       []api.NodeAddress{{Type: api.NodeInternalIP, Address: "192.168.1.10"}, {Type: api.NodeHostName, Address: "node-1"}},
			DaemonEndpoints: api.NodeDaemonEndpoints{KubeletEndpoint: api.DaemonEndpoint{Port: 10250}},
			NodeInfo: api.NodeSystemInfo{
				MachineID: "m", SystemUUID: "u", BootID: "b", KernelVersion: "6.8.0", OSImage: "Debian GNU/Linux 12",
				ContainerRuntimeVersion: "containerd://1.7.20", KubeletVersion: "v1.37.2", KubeProxyVersion: "v1.37.2",
				OperatingSystem: "linux", Architecture: "amd64",
			},
		},
	}
}

func fullLease(name string) api.Lease {
	return api.Lease{
		Metadata: fullObjectMeta(name),
		Spec: api.LeaseSpec{
			HolderIdentity: ptr("controller-manager-1"), LeaseDurationSeconds: ptr(int32(15)),
			AcquireTime: &acquired, RenewTime: &renewed, LeaseTransitions: ptr(int32(4)),
			Strategy: ptr("OldestEmulationVersion"), PreferredHolder: ptr("controller-manager-2"),
		},
	}
}

func fullEndpointSlice(name string) api.EndpointSlice {
	tcp := api.ProtocolTCP
	return api.EndpointSlice{
		Metadata:    fullObjectMeta(name),
		AddressType: api.AddressTypeIPv4,
		Endpoints: []api.Endpoint{{
			Addresses:  []string{"10.244.1.5"},
			Conditions: api.EndpointConditions{Ready: ptr(true), Serving: ptr(true), Terminating: ptr(false)},
			Hostname:   ptr("web-0"),
			TargetRef: &api.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: "default", Name: "web-0", UID: "u-web-0",
				ResourceVersion: "42", FieldPath: "spec.containers{web}"},
			DeprecatedTopology: map[string]string{"kubernetes.io/hostname": "node-1"},
			NodeName:           ptr("node-1"), Zone: ptr("zone-a"),
			Hints: &api.EndpointHints{ForZones: []api.ForZone{{Name: "zone-a"}}},
		}},
		Ports: []api.EndpointSlicePort{{Name: ptr("http"), Protocol: &tcp, Port: ptr(int32(8080)), AppProtocol: ptr("http")}},
	}
}

func fullEvent(name string) api.Event {
	return api.Event{
		Metadata:            fullObjectMeta(name),
		InvolvedObject:      fullObjectReference(),
		Reason:              "Scheduled",
		Message:             "Successfully assigned default/web-1 to node-1",
		Source:              api.EventSource{Component: "default-scheduler", Host: "node-1"},
		FirstTimestamp:      created,
		LastTimestamp:       deleted,
		Count:               3,
		Type:                api.EventTypeNormal,
		EventTime:           acquired,
		Series:              &api.EventSeries{Count: 3, LastObservedTime: renewed},
		Action:              "Binding",
		Related:             &api.ObjectReference{Kind: "Node", Name: "node-1"},
		ReportingController: "default-scheduler",
		ReportingInstance:   "scheduler-1",
	}
}

func fullNamespace(name string) api.Namespace {
	return api.Namespace{
		Metadata: fullObjectMeta(name),
		Spec:     api.NamespaceSpec{Finalizers: []string{api.FinalizerKubernetes}},
		Status: api.NamespaceStatus{Phase: api.NamespaceTerminating, Conditions: []api.NamespaceCondition{
			{Type: "NamespaceDeletionContentFailure", Status: api.ConditionTrue, LastTransitionTime: created, Reason: "ContentDeletionFailed", Message: "some content could not be deleted"},
		}},
	}
}

func fullConfigMap(name string) api.ConfigMap {
	return api.ConfigMap{
		Metadata:   fullObjectMeta(name),
		Immutable:  ptr(true),
		Data:       map[string]string{"app.properties": "mode=dev\n", "LOG_LEVEL": "debug"},
		BinaryData: map[string][]byte{"logo.png": {0x89, 'P', 'N', 'G', 0, 0xff}, "z": {1}},
	}
}

func fullSecret(name string) api.Secret {
	return api.Secret{
		Metadata:   fullObjectMeta(name),
		Immutable:  ptr(false),
		Data:       map[string][]byte{"tls.crt": []byte("-----BEGIN CERTIFICATE-----"), "tls.key": {0, 1, 2, 0xfe}},
		StringData: map[string]string{"note": "write-only"},
		Type:       api.SecretTypeTLS,
	}
}

func fullServiceAccount(name string) api.ServiceAccount {
	return api.ServiceAccount{
		Metadata:                     fullObjectMeta(name),
		Secrets:                      []api.ObjectReference{fullObjectReference(), {Name: "builder-token"}},
		ImagePullSecrets:             []api.LocalObjectReference{{Name: "registry"}, {Name: "mirror"}},
		AutomountServiceAccountToken: ptr(false),
	}
}

func fullResourceQuota(name string) api.ResourceQuota {
	return api.ResourceQuota{
		Metadata: fullObjectMeta(name),
		Spec: api.ResourceQuotaSpec{
			Hard:   api.ResourceList{"pods": "10", "requests.cpu": "2"},
			Scopes: []string{api.ScopeNotTerminating},
			ScopeSelector: &api.ScopeSelector{MatchExpressions: []api.ScopedResourceSelectorRequirement{
				{ScopeName: api.ScopePriorityClass, Operator: "In", Values: []string{"high", "low"}}}},
		},
		Status: api.ResourceQuotaStatus{Hard: api.ResourceList{"pods": "10"}, Used: api.ResourceList{"pods": "3"}},
	}
}

func fullStatus() api.Status {
	return api.Status{
		Metadata: fullListMeta(),
		Status:   api.StatusFailure,
		Message:  `Pod "web" is invalid: spec.containers[0].image: Required value`,
		Reason:   api.StatusReasonInvalid,
		Details: &api.StatusDetails{
			Name: "web", Group: "coordination.k8s.io", Kind: "leases", UID: "lease-uid",
			Causes: []api.StatusCause{
				{Type: api.CauseTypeFieldValueRequired, Message: "Required value", Field: "spec.containers[0].image"},
				{Type: api.CauseTypeFieldValueInvalid, Message: "", Field: ""},
			},
			RetryAfterSeconds: 5,
		},
		Code: 422,
	}
}

func fullDeleteOptions() api.DeleteOptions {
	return api.DeleteOptions{
		GracePeriodSeconds: ptr(int64(0)),
		Preconditions:      &api.Preconditions{UID: ptr(api.UID("pod-uid")), ResourceVersion: ptr("4242")},
		OrphanDependents:   ptr(false),
		PropagationPolicy:  ptr(api.DeletePropagationForeground),
		DryRun:             []string{api.DryRunAll},
	}
}

func fullLabelSelector() *api.LabelSelector {
	return &api.LabelSelector{MatchLabels: map[string]string{"app": "web"},
		MatchExpressions: []api.LabelSelectorRequirement{{Key: "tier", Operator: "In", Values: []string{"front", "back"}}}}
}

func fullPersistentVolumeSpec() api.PersistentVolumeSpec {
	secret := &api.SecretReference{Name: "s", Namespace: "kube-system"}
	return api.PersistentVolumeSpec{
		Capacity: api.ResourceList{"storage": "10Gi"},
		PersistentVolumeSource: api.PersistentVolumeSource{
			HostPath: &api.HostPathVolumeSource{Path: "/data", Type: ptr("Directory")},
			NFS:      &api.NFSVolumeSource{Server: "nfs", Path: "/export", ReadOnly: true},
			Local:    &api.LocalVolumeSource{Path: "/mnt/disk", FSType: ptr("ext4")},
			CSI: &api.CSIPersistentVolumeSource{Driver: "ebs.csi.aws.com", VolumeHandle: "vol-1", ReadOnly: true, FSType: "xfs",
				VolumeAttributes: map[string]string{"a": "b"}, ControllerPublishSecretRef: secret, NodeStageSecretRef: secret,
				NodePublishSecretRef: secret, ControllerExpandSecretRef: secret, NodeExpandSecretRef: secret},
		},
		AccessModes:                   []api.PersistentVolumeAccessMode{api.ReadWriteOnce, api.ReadOnlyMany},
		ClaimRef:                      ptr(fullObjectReference()),
		PersistentVolumeReclaimPolicy: api.PersistentVolumeReclaimRetain,
		StorageClassName:              "fast",
		MountOptions:                  []string{"ro", "soft"},
		VolumeMode:                    ptr(api.PersistentVolumeFilesystem),
		NodeAffinity: &api.VolumeNodeAffinity{Required: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{{
			MatchExpressions: []api.NodeSelectorRequirement{{Key: "zone", Operator: "In", Values: []string{"a"}}},
			MatchFields:      []api.NodeSelectorRequirement{{Key: "metadata.name", Operator: "In", Values: []string{"node-1"}}},
		}}}},
		VolumeAttributesClassName: ptr("gold"),
	}
}

func fullPersistentVolume(name string) api.PersistentVolume {
	return api.PersistentVolume{Metadata: fullObjectMeta(name), Spec: fullPersistentVolumeSpec(),
		Status: api.PersistentVolumeStatus{Phase: api.VolumeBound, Message: "bound", Reason: "Bound", LastPhaseTransitionTime: ptr(created)}}
}

func fullPersistentVolumeClaim(name string) api.PersistentVolumeClaim {
	return api.PersistentVolumeClaim{
		Metadata: fullObjectMeta(name),
		Spec: api.PersistentVolumeClaimSpec{
			AccessModes: []api.PersistentVolumeAccessMode{api.ReadWriteOnce},
			Selector:    fullLabelSelector(),
			Resources:   api.VolumeResourceRequirements{Limits: api.ResourceList{"storage": "2Gi"}, Requests: api.ResourceList{"storage": "1Gi"}},
			VolumeName:  "pv0", StorageClassName: ptr("fast"), VolumeMode: ptr(api.PersistentVolumeBlock),
			DataSource:                &api.TypedLocalObjectReference{APIGroup: ptr("snapshot.storage.k8s.io"), Kind: "VolumeSnapshot", Name: "snap"},
			DataSourceRef:             &api.TypedObjectReference{APIGroup: ptr("snapshot.storage.k8s.io"), Kind: "VolumeSnapshot", Name: "snap", Namespace: ptr("other")},
			VolumeAttributesClassName: ptr("gold"),
		},
		Status: api.PersistentVolumeClaimStatus{
			Phase: api.ClaimBound, AccessModes: []api.PersistentVolumeAccessMode{api.ReadWriteOnce},
			Capacity: api.ResourceList{"storage": "1Gi"},
			Conditions: []api.PersistentVolumeClaimCondition{{Type: "Resizing", Status: api.ConditionTrue, LastProbeTime: created,
				LastTransitionTime: created, Reason: "Resize", Message: "resizing"}},
			AllocatedResources: api.ResourceList{"storage": "2Gi"},
		},
	}
}

func fullStorageClass(name string) api.StorageClass {
	return api.StorageClass{Metadata: fullObjectMeta(name), Provisioner: "ebs.csi.aws.com", Parameters: map[string]string{"type": "gp3"},
		ReclaimPolicy: ptr(api.PersistentVolumeReclaimDelete), MountOptions: []string{"debug"}, AllowVolumeExpansion: ptr(true),
		VolumeBindingMode: ptr(api.VolumeBindingWaitForFirstConsumer),
		AllowedTopologies: []api.TopologySelectorTerm{{MatchLabelExpressions: []api.TopologySelectorLabelRequirement{{Key: "zone", Values: []string{"a", "b"}}}}}}
}

func fullCSINode(name string) api.CSINode {
	return api.CSINode{Metadata: fullObjectMeta(name), Spec: api.CSINodeSpec{Drivers: []api.CSINodeDriver{{
		Name: "ebs.csi.aws.com", NodeID: "i-1", TopologyKeys: []string{"zone"}, Allocatable: &api.VolumeNodeResources{Count: ptr(int32(25))}}}}}
}

func fullCSIDriver(name string) api.CSIDriver {
	return api.CSIDriver{Metadata: fullObjectMeta(name), Spec: api.CSIDriverSpec{AttachRequired: ptr(true), PodInfoOnMount: ptr(true),
		VolumeLifecycleModes: []string{"Persistent", "Ephemeral"}, StorageCapacity: ptr(true), FSGroupPolicy: ptr("File"),
		RequiresRepublish: ptr(true), SELinuxMount: ptr(true)}}
}

func fullCSIStorageCapacity(name string) api.CSIStorageCapacity {
	return api.CSIStorageCapacity{Metadata: fullObjectMeta(name), NodeTopology: fullLabelSelector(), StorageClassName: "fast",
		Capacity: ptr(api.Quantity("100Gi")), MaximumVolumeSize: ptr(api.Quantity("16Ti"))}
}

func fullVolumeAttachment(name string) api.VolumeAttachment {
	spec := fullPersistentVolumeSpec()
	volErr := &api.VolumeError{Time: created, Message: "timeout", ErrorCode: ptr(int32(4))}
	return api.VolumeAttachment{Metadata: fullObjectMeta(name),
		Spec: api.VolumeAttachmentSpec{Attacher: "ebs.csi.aws.com", NodeName: "node-1",
			Source: api.VolumeAttachmentSource{PersistentVolumeName: ptr("pv0"), InlineVolumeSpec: &spec}},
		Status: api.VolumeAttachmentStatus{Attached: true, AttachmentMetadata: map[string]string{"dev": "/dev/xvdf"}, AttachError: volErr, DetachError: volErr}}
}

func fullPodDisruptionBudget(name string) api.PodDisruptionBudget {
	return api.PodDisruptionBudget{Metadata: fullObjectMeta(name),
		Spec: api.PodDisruptionBudgetSpec{MinAvailable: ptr(api.IntOrString{Type: api.String, StrVal: "50%"}), Selector: fullLabelSelector(),
			MaxUnavailable: ptr(api.IntOrString{Type: api.Int, IntVal: 1}), UnhealthyPodEvictionPolicy: ptr("AlwaysAllow")},
		Status: api.PodDisruptionBudgetStatus{ObservedGeneration: 3, DisruptedPods: map[string]api.Time{"web-1": created},
			DisruptionsAllowed: 1, CurrentHealthy: 3, DesiredHealthy: 2, ExpectedPods: 3,
			Conditions: []api.Condition{{Type: "DisruptionAllowed", Status: api.ConditionTrue, ObservedGeneration: 3, LastTransitionTime: created, Reason: "SufficientPods", Message: "ok"}}}}
}

func fullReplicaSet(name string) api.ReplicaSet {
	return api.ReplicaSet{Metadata: fullObjectMeta(name),
		Spec: api.ReplicaSetSpec{Replicas: ptr(int32(3)), MinReadySeconds: 5, Selector: fullLabelSelector(),
			Template: api.PodTemplateSpec{Metadata: fullObjectMeta(""), Spec: fullPodSpec()}},
		Status: api.ReplicaSetStatus{Replicas: 3, FullyLabeledReplicas: 3, ReadyReplicas: 2, AvailableReplicas: 2, ObservedGeneration: 4,
			Conditions: []api.ReplicaSetCondition{{Type: "ReplicaFailure", Status: api.ConditionFalse, LastTransitionTime: created, Reason: "r", Message: "m"}}}}
}

func fullJob(name string) api.Job {
	return api.Job{Metadata: fullObjectMeta(name),
		Spec: api.JobSpec{Parallelism: ptr(int32(2)), Completions: ptr(int32(4)), ActiveDeadlineSeconds: ptr(int64(600)),
			PodFailurePolicy: &api.PodFailurePolicy{Rules: []api.PodFailurePolicyRule{
				{Action: "FailJob", OnExitCodes: &api.PodFailurePolicyOnExitCodesRequirement{ContainerName: ptr("main"), Operator: "In", Values: []int32{1, 42}}},
				{Action: "Ignore", OnPodConditions: []api.PodFailurePolicyOnPodConditionsPattern{{Type: "DisruptionTarget", Status: api.ConditionTrue}}}}},
			SuccessPolicy: &api.SuccessPolicy{Rules: []api.SuccessPolicyRule{{SucceededIndexes: ptr("0-2"), SucceededCount: ptr(int32(2))}}},
			BackoffLimit:  ptr(int32(6)), BackoffLimitPerIndex: ptr(int32(1)), MaxFailedIndexes: ptr(int32(2)),
			Selector: fullLabelSelector(), ManualSelector: ptr(true),
			Template:                api.PodTemplateSpec{Metadata: fullObjectMeta(""), Spec: fullPodSpec()},
			TTLSecondsAfterFinished: ptr(int32(100)), CompletionMode: ptr("Indexed"), Suspend: ptr(false),
			PodReplacementPolicy: ptr("Failed"), ManagedBy: ptr("kubernetes.io/job-controller")},
		Status: api.JobStatus{
			Conditions: []api.JobCondition{{Type: "Complete", Status: api.ConditionTrue, LastProbeTime: created, LastTransitionTime: created, Reason: "CompletionsReached", Message: "m"}},
			StartTime:  &created, CompletionTime: &created, Active: 1, Succeeded: 2, Failed: 3, Terminating: ptr(int32(1)),
			CompletedIndexes: "0-1", FailedIndexes: ptr("3"),
			UncountedTerminatedPods: &api.UncountedTerminatedPods{Succeeded: []api.UID{"u1"}, Failed: []api.UID{"u2"}},
			Ready:                   ptr(int32(1))}}
}

func fullDeployment(name string) api.Deployment {
	return api.Deployment{Metadata: fullObjectMeta(name),
		Spec: api.DeploymentSpec{Replicas: ptr(int32(3)), MinReadySeconds: 5, Selector: fullLabelSelector(),
			Template: api.PodTemplateSpec{Metadata: fullObjectMeta(""), Spec: fullPodSpec()},
			Strategy: api.DeploymentStrategy{Type: "RollingUpdate", RollingUpdate: &api.RollingUpdateDeployment{
				MaxUnavailable: ptr(api.IntOrString{Type: api.Int, IntVal: 1}), MaxSurge: ptr(api.IntOrString{Type: api.String, StrVal: "25%"})}},
			RevisionHistoryLimit: ptr(int32(4)), Paused: true, ProgressDeadlineSeconds: ptr(int32(600))},
		Status: api.DeploymentStatus{ObservedGeneration: 4, Replicas: 3, UpdatedReplicas: 2, ReadyReplicas: 2, AvailableReplicas: 1, UnavailableReplicas: 2,
			Conditions:     []api.DeploymentCondition{{Type: "Progressing", Status: api.ConditionTrue, LastUpdateTime: created, LastTransitionTime: created, Reason: "NewReplicaSetAvailable", Message: "m"}},
			CollisionCount: ptr(int32(1))}}
}

func fullDaemonSet(name string) api.DaemonSet {
	return api.DaemonSet{Metadata: fullObjectMeta(name),
		Spec: api.DaemonSetSpec{Selector: fullLabelSelector(), MinReadySeconds: 5,
			Template: api.PodTemplateSpec{Metadata: fullObjectMeta(""), Spec: fullPodSpec()},
			UpdateStrategy: api.DaemonSetUpdateStrategy{Type: "RollingUpdate", RollingUpdate: &api.RollingUpdateDaemonSet{
				MaxUnavailable: ptr(api.IntOrString{Type: api.Int, IntVal: 1}), MaxSurge: ptr(api.IntOrString{Type: api.String, StrVal: "0%"})}},
			RevisionHistoryLimit: ptr(int32(4))},
		Status: api.DaemonSetStatus{CurrentNumberScheduled: 3, NumberMisscheduled: 1, DesiredNumberScheduled: 3, NumberReady: 2,
			ObservedGeneration: 4, UpdatedNumberScheduled: 2, NumberAvailable: 1, NumberUnavailable: 2, CollisionCount: ptr(int32(1)),
			Conditions: []api.DaemonSetCondition{{Type: "Unknown", Status: api.ConditionTrue, LastTransitionTime: created, Reason: "R", Message: "m"}}}}
}

func fullControllerRevision(name string) api.ControllerRevision {
	return api.ControllerRevision{Metadata: fullObjectMeta(name),
		Data: json.RawMessage(`{"spec":{"template":{"$patch":"replace","metadata":{"labels":{"app":"agent"}}}}}`), Revision: 3}
}

// fullJobSpec sets every field of a job's spec, for the job template of a
// cron job.
func fullJobSpec() api.JobSpec {
	return api.JobSpec{Parallelism: ptr(int32(2)), Completions: ptr(int32(4)), ActiveDeadlineSeconds: ptr(int64(60)),
		PodFailurePolicy: &api.PodFailurePolicy{Rules: []api.PodFailurePolicyRule{
			{Action: "FailJob", OnExitCodes: &api.PodFailurePolicyOnExitCodesRequirement{ContainerName: ptr("app"), Operator: "In", Values: []int32{1, 42}}},
			{Action: "Ignore", OnPodConditions: []api.PodFailurePolicyOnPodConditionsPattern{{Type: "DisruptionTarget", Status: api.ConditionTrue}}},
		}},
		SuccessPolicy: &api.SuccessPolicy{Rules: []api.SuccessPolicyRule{{SucceededIndexes: ptr("0-2"), SucceededCount: ptr(int32(2))}}},
		BackoffLimit:  ptr(int32(6)), BackoffLimitPerIndex: ptr(int32(1)), MaxFailedIndexes: ptr(int32(2)),
		Selector: fullLabelSelector(), ManualSelector: ptr(true),
		Template:                api.PodTemplateSpec{Metadata: fullObjectMeta(""), Spec: fullPodSpec()},
		TTLSecondsAfterFinished: ptr(int32(100)), CompletionMode: ptr("Indexed"), Suspend: ptr(true),
		PodReplacementPolicy: ptr("Failed"), ManagedBy: ptr("kubernetes.io/job-controller")}
}

func fullLimitRange(name string) api.LimitRange {
	return api.LimitRange{Metadata: fullObjectMeta(name), Spec: api.LimitRangeSpec{Limits: []api.LimitRangeItem{{
		Type: api.LimitTypeContainer, Max: api.ResourceList{"cpu": "2"}, Min: api.ResourceList{"cpu": "100m"},
		Default: api.ResourceList{"cpu": "500m"}, DefaultRequest: api.ResourceList{"cpu": "250m"}, MaxLimitRequestRatio: api.ResourceList{"cpu": "4"},
	}}}}
}

func fullPodTemplate(name string) api.PodTemplate {
	return api.PodTemplate{Metadata: fullObjectMeta(name), Template: api.PodTemplateSpec{Metadata: fullObjectMeta(""), Spec: fullPodSpec()}}
}

func fullIngress(name string) api.Ingress {
	backend := api.IngressBackend{Service: &api.IngressServiceBackend{Name: "web", Port: api.ServiceBackendPort{Number: 80}}}
	return api.Ingress{Metadata: fullObjectMeta(name),
		Spec: api.IngressSpec{IngressClassName: ptr("nginx"), DefaultBackend: &api.IngressBackend{
			Resource: &api.TypedLocalObjectReference{APIGroup: ptr("k8s.example.com"), Kind: "StorageBucket", Name: "static"}},
			TLS: []api.IngressTLS{{Hosts: []string{"a.example.com", "*.b.example.com"}, SecretName: "tls"}},
			Rules: []api.IngressRule{{Host: "a.example.com", IngressRuleValue: api.IngressRuleValue{HTTP: &api.HTTPIngressRuleValue{
				Paths: []api.HTTPIngressPath{{Path: "/", PathType: ptr(api.PathTypePrefix), Backend: backend},
					{Path: "/api", PathType: ptr(api.PathTypeExact), Backend: api.IngressBackend{
						Service: &api.IngressServiceBackend{Name: "api", Port: api.ServiceBackendPort{Name: "http"}}}}}}}}}},
		Status: api.IngressStatus{LoadBalancer: api.IngressLoadBalancerStatus{Ingress: []api.IngressLoadBalancerIngress{
			{IP: "192.0.2.1", Ports: []api.IngressPortStatus{{Port: 443, Protocol: api.ProtocolTCP, Error: ptr("Pending")}}},
			{Hostname: "lb.example.com"}}}}}
}

func fullIngressClass(name string) api.IngressClass {
	return api.IngressClass{Metadata: fullObjectMeta(name), Spec: api.IngressClassSpec{Controller: "example.com/ingress",
		Parameters: &api.IngressClassParametersReference{APIGroup: ptr("k8s.example.com"), Kind: "Params", Name: "p",
			Scope: ptr(api.IngressClassParametersScopeNamespace), Namespace: ptr("ops")}}}
}

func fullNetworkPolicy(name string) api.NetworkPolicy {
	port := api.NetworkPolicyPort{Protocol: ptr(api.ProtocolUDP), Port: ptr(api.FromInt(53)), EndPort: ptr(int32(60))}
	return api.NetworkPolicy{Metadata: fullObjectMeta(name), Spec: api.NetworkPolicySpec{PodSelector: *fullLabelSelector(),
		Ingress: []api.NetworkPolicyIngressRule{{Ports: []api.NetworkPolicyPort{port, {Port: ptr(api.FromString("http"))}},
			From: []api.NetworkPolicyPeer{{PodSelector: fullLabelSelector(), NamespaceSelector: fullLabelSelector()},
				{IPBlock: &api.IPBlock{CIDR: "10.0.0.0/8", Except: []string{"10.1.0.0/16", "10.2.0.0/16"}}}}}},
		Egress:      []api.NetworkPolicyEgressRule{{Ports: []api.NetworkPolicyPort{port}, To: []api.NetworkPolicyPeer{{NamespaceSelector: fullLabelSelector()}}}},
		PolicyTypes: []api.PolicyType{api.PolicyTypeIngress, api.PolicyTypeEgress}}}
}

func fullPriorityClass(name string) api.PriorityClass {
	return api.PriorityClass{Metadata: fullObjectMeta(name), Value: 1000, GlobalDefault: true,
		Description: "for the web tier", PreemptionPolicy: ptr(api.PreemptLowerPriority)}
}

func fullRuntimeClass(name string) api.RuntimeClass {
	return api.RuntimeClass{Metadata: fullObjectMeta(name), Handler: "runsc",
		Overhead: &api.Overhead{PodFixed: api.ResourceList{"cpu": "250m", "memory": "120Mi"}},
		Scheduling: &api.Scheduling{NodeSelector: map[string]string{"sandbox": "gvisor"},
			Tolerations: []api.Toleration{{Key: "sandbox", Operator: api.TolerationOpEqual, Value: "gvisor", Effect: api.TaintEffectNoSchedule, TolerationSeconds: ptr(int64(60))}}}}
}

func fullCertificateSigningRequest(name string) api.CertificateSigningRequest {
	return api.CertificateSigningRequest{Metadata: fullObjectMeta(name),
		Spec: api.CertificateSigningRequestSpec{Request: []byte("-----BEGIN CERTIFICATE REQUEST-----\n"), SignerName: "example.com/signer",
			ExpirationSeconds: ptr(int32(3600)), Usages: []api.KeyUsage{"digital signature", "server auth"},
			Username: "jane", UID: "u-1", Groups: []string{"system:authenticated", "devs"}},
		Status: api.CertificateSigningRequestStatus{Certificate: []byte("-----BEGIN CERTIFICATE-----\n"),
			Conditions: []api.CertificateSigningRequestCondition{{Type: "Approved", Status: "True", Reason: "AutoApproved", Message: "ok",
				LastUpdateTime: created, LastTransitionTime: created}}}}
}

func fullFlowSchema(name string) api.FlowSchema {
	return api.FlowSchema{Metadata: fullObjectMeta(name),
		Spec: api.FlowSchemaSpec{PriorityLevelConfiguration: api.PriorityLevelConfigurationReference{Name: "workload-low"},
			MatchingPrecedence: 9000, DistinguisherMethod: &api.FlowDistinguisherMethod{Type: "ByNamespace"},
			Rules: []api.PolicyRulesWithSubjects{{
				Subjects: []api.FlowSubject{{Kind: "User", User: &api.UserSubject{Name: "jane"}},
					{Kind: "Group", Group: &api.GroupSubject{Name: "devs"}},
					{Kind: "ServiceAccount", ServiceAccount: &api.ServiceAccountSubject{Namespace: "ci", Name: "*"}}},
				ResourceRules: []api.ResourcePolicyRule{{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"pods"},
					ClusterScope: true, Namespaces: []string{"*"}}},
				NonResourceRules: []api.NonResourcePolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz"}}}}}},
		Status: api.FlowSchemaStatus{Conditions: []api.FlowSchemaCondition{{Type: "Dangling", Status: "False",
			LastTransitionTime: created, Reason: "Found", Message: "the level exists"}}}}
}

func fullPriorityLevelConfiguration(name string) api.PriorityLevelConfiguration {
	return api.PriorityLevelConfiguration{Metadata: fullObjectMeta(name),
		Spec: api.PriorityLevelConfigurationSpec{Type: "Limited",
			Limited: &api.LimitedPriorityLevelConfiguration{NominalConcurrencyShares: ptr(int32(30)), LendablePercent: ptr(int32(10)),
				BorrowingLimitPercent: ptr(int32(50)),
				LimitResponse:         api.LimitResponse{Type: "Queue", Queuing: &api.QueuingConfiguration{Queues: 64, HandSize: 6, QueueLengthLimit: 50}}},
			Exempt: &api.ExemptPriorityLevelConfiguration{NominalConcurrencyShares: ptr(int32(0)), LendablePercent: ptr(int32(0))}},
		Status: api.PriorityLevelConfigurationStatus{Conditions: []api.PriorityLevelConfigurationCondition{{Type: "Ready", Status: "True",
			LastTransitionTime: created, Reason: "Fine", Message: "fine"}}}}
}

func fullCronJob(name string) api.CronJob {
	return api.CronJob{Metadata: fullObjectMeta(name),
		Spec: api.CronJobSpec{Schedule: "*/5 * * * *", TimeZone: ptr("Europe/Paris"), StartingDeadlineSeconds: ptr(int64(30)),
			ConcurrencyPolicy: "Forbid", Suspend: ptr(true),
			JobTemplate:                api.JobTemplateSpec{Metadata: fullObjectMeta(""), Spec: fullJobSpec()},
			SuccessfulJobsHistoryLimit: ptr(int32(3)), FailedJobsHistoryLimit: ptr(int32(1))},
		Status: api.CronJobStatus{
			Active:           []api.ObjectReference{{Kind: "Job", Namespace: "default", Name: name + "-1", UID: "u1", APIVersion: "batch/v1", ResourceVersion: "7", FieldPath: "spec"}},
			LastScheduleTime: &created, LastSuccessfulTime: &created}}
}

func fullRules() []api.PolicyRule {
	return []api.PolicyRule{
		{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"pods", "pods/log"}, ResourceNames: []string{"web"}},
		{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz", "/api/*"}},
	}
}

func fullSubjects() []api.Subject {
	return []api.Subject{{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: "jane"},
		{Kind: "ServiceAccount", Name: "default", Namespace: "default"}}
}

func fullRole(name string) api.Role {
	return api.Role{Metadata: fullObjectMeta(name), Rules: fullRules()}
}

func fullClusterRole(name string) api.ClusterRole {
	return api.ClusterRole{Metadata: fullObjectMeta(name), Rules: fullRules(),
		AggregationRule: &api.AggregationRule{ClusterRoleSelectors: []api.LabelSelector{*fullLabelSelector()}}}
}

func fullRoleBinding(name string) api.RoleBinding {
	return api.RoleBinding{Metadata: fullObjectMeta(name), Subjects: fullSubjects(),
		RoleRef: api.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "reader"}}
}

func fullClusterRoleBinding(name string) api.ClusterRoleBinding {
	return api.ClusterRoleBinding{Metadata: fullObjectMeta(name), Subjects: fullSubjects(),
		RoleRef: api.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "view"}}
}

func fullStatefulSet(name string) api.StatefulSet {
	return api.StatefulSet{Metadata: fullObjectMeta(name),
		Spec: api.StatefulSetSpec{Replicas: ptr(int32(3)), Selector: fullLabelSelector(),
			Template:             api.PodTemplateSpec{Metadata: fullObjectMeta(""), Spec: fullPodSpec()},
			VolumeClaimTemplates: []api.PersistentVolumeClaim{fullPersistentVolumeClaim("data")},
			ServiceName:          "db", PodManagementPolicy: "Parallel",
			UpdateStrategy: api.StatefulSetUpdateStrategy{Type: "RollingUpdate", RollingUpdate: &api.RollingUpdateStatefulSetStrategy{
				Partition: ptr(int32(1)), MaxUnavailable: ptr(api.IntOrString{Type: api.Int, IntVal: 2})}},
			RevisionHistoryLimit: ptr(int32(10)), MinReadySeconds: 5,
			PersistentVolumeClaimRetentionPolicy: &api.StatefulSetPersistentVolumeClaimRetentionPolicy{WhenDeleted: "Delete", WhenScaled: "Retain"},
			Ordinals:                             &api.StatefulSetOrdinals{Start: 1}},
		Status: api.StatefulSetStatus{ObservedGeneration: 4, Replicas: 3, ReadyReplicas: 2, CurrentReplicas: 2, UpdatedReplicas: 1,
			CurrentRevision: "db-1", UpdateRevision: "db-2", CollisionCount: ptr(int32(1)), AvailableReplicas: 2,
			Conditions: []api.StatefulSetCondition{{Type: "Progressing", Status: api.ConditionTrue, LastTransitionTime: created, Reason: "r", Message: "m"}}}}
}

// fullCases returns, for every top-level type, an object with every modeled field set.
// fullSchema sets every field of JSONSchemaProps, each once in a form JSON can carry (JSON
// holds one arm of each either-or type, so the array form of items and the boolean form
// of additionalItems sit in nested schemas). The raw JSON values are compact, as
// encoding/json writes them and so as the JSON-built upstream object holds them.
func fullSchema() *api.JSONSchemaProps {
	leaf := func(typ string) api.JSONSchemaProps {
		return api.JSONSchemaProps{Type: typ, Description: typ + " leaf"}
	}
	return &api.JSONSchemaProps{
		ID: "https://example.com/widget", Schema: "http://json-schema.org/draft-04/schema#", Ref: ptr("#/definitions/widget"),
		Description: "A widget.", Type: "object", Format: "widget", Title: "Widget",
		Default:          json.RawMessage(`{"size":"small","replicas":1}`),
		Maximum:          ptr(10.5),
		ExclusiveMaximum: true,
		Minimum:          ptr(-1.25),
		ExclusiveMinimum: true,
		MaxLength:        ptr(int64(63)), MinLength: ptr(int64(0)),
		Pattern:  "^[a-z]+$",
		MaxItems: ptr(int64(5)), MinItems: ptr(int64(1)), UniqueItems: true,
		MultipleOf:    ptr(0.5),
		Enum:          []json.RawMessage{json.RawMessage(`"small"`), json.RawMessage(`3`), json.RawMessage(`{"k":[true,false]}`)},
		MaxProperties: ptr(int64(20)), MinProperties: ptr(int64(-3)),
		Required: []string{"spec", "metadata"},
		Items:    &api.JSONSchemaPropsOrArray{Schema: ptr(leaf("string"))},
		AllOf: []api.JSONSchemaProps{
			{Type: "array", Items: &api.JSONSchemaPropsOrArray{JSONSchemas: []api.JSONSchemaProps{leaf("string"), leaf("integer")}}},
			{AdditionalItems: &api.JSONSchemaPropsOrBool{Allows: false}},
		},
		OneOf: []api.JSONSchemaProps{{Required: []string{"a"}}, {Required: []string{"b"}}},
		AnyOf: []api.JSONSchemaProps{{MinLength: ptr(int64(2))}},
		Not:   &api.JSONSchemaProps{Pattern: "^x"},
		Properties: map[string]api.JSONSchemaProps{
			"spec":   {Type: "object", Properties: map[string]api.JSONSchemaProps{"size": leaf("string")}},
			"status": {Type: "object", XPreserveUnknownFields: ptr(true)},
			"":       {},
		},
		AdditionalProperties: &api.JSONSchemaPropsOrBool{Allows: true, Schema: ptr(leaf("integer"))},
		PatternProperties:    map[string]api.JSONSchemaProps{"^x-": leaf("string"), "^y-": {}},
		Dependencies: map[string]api.JSONSchemaPropsOrStringArray{
			"a": {Property: []string{"b", "c"}},
			"d": {Schema: &api.JSONSchemaProps{Required: []string{"e"}}},
		},
		AdditionalItems: &api.JSONSchemaPropsOrBool{Allows: true, Schema: ptr(leaf("boolean"))},
		Definitions:     map[string]api.JSONSchemaProps{"widget": leaf("object"), "gadget": leaf("array")},
		ExternalDocs:    &api.ExternalDocumentation{Description: "more", URL: "https://example.com/docs"},
		Example:         json.RawMessage(`{"spec":{"size":"large"}}`),
		Nullable:        true,

		XPreserveUnknownFields: ptr(false),
		XEmbeddedResource:      true,
		XIntOrString:           true,
		XListMapKeys:           []string{"name", "port"},
		XListType:              ptr("map"),
		XMapType:               ptr("granular"),
		XValidations: []api.ValidationRule{
			{
				Rule: "self.replicas <= 10", Message: "too many", MessageExpression: "'too many: ' + string(self.replicas)",
				Reason: ptr("FieldValueInvalid"), FieldPath: ".replicas", OptionalOldSelf: ptr(true),
			},
			{Rule: "self == oldSelf", OptionalOldSelf: ptr(false)},
		},
	}
}

func fullCRD(plural string) api.CustomResourceDefinition {
	names := api.CustomResourceDefinitionNames{
		Plural: plural, Singular: "widget", ShortNames: []string{"wd", "wdg"}, Kind: "Widget", ListKind: "WidgetList",
		Categories: []string{"all", "demo"},
	}
	return api.CustomResourceDefinition{
		Metadata: fullObjectMeta(plural + ".demo.example.com"),
		Spec: api.CustomResourceDefinitionSpec{
			Group: "demo.example.com", Names: names, Scope: api.NamespaceScoped,
			Versions: []api.CustomResourceDefinitionVersion{
				{
					Name: "v1", Served: true, Storage: true, Deprecated: true, DeprecationWarning: ptr("use v2"),
					Schema: &api.CustomResourceValidation{OpenAPIV3Schema: fullSchema()},
					Subresources: &api.CustomResourceSubresources{
						Status: &api.CustomResourceSubresourceStatus{},
						Scale:  &api.CustomResourceSubresourceScale{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas", LabelSelectorPath: ptr(".status.selector")},
					},
					AdditionalPrinterColumns: []api.CustomResourceColumnDefinition{
						{Name: "Size", Type: "string", Format: "byte", Description: "the size", Priority: 1, JSONPath: ".spec.size"},
						{Name: "Replicas", Type: "integer", JSONPath: ".spec.replicas"},
					},
					SelectableFields: []api.SelectableField{{JSONPath: ".spec.size"}},
				},
				{Name: "v1beta1", Served: false, Storage: false, Schema: &api.CustomResourceValidation{}},
			},
			Conversion:            &api.CustomResourceConversion{Strategy: "None"},
			PreserveUnknownFields: true,
		},
		Status: api.CustomResourceDefinitionStatus{
			Conditions: []api.CustomResourceDefinitionCondition{
				{Type: api.CRDNamesAccepted, Status: api.ConditionTrue, LastTransitionTime: created, Reason: "NoConflicts", Message: "no conflicts found"},
				{Type: api.CRDEstablished, Status: api.ConditionFalse},
			},
			AcceptedNames:  names,
			StoredVersions: []string{"v1beta1", "v1"},
		},
	}
}

func fullCases() map[string]any {
	cases := admissionFullCases()
	maps.Copy(cases, map[string]any{
		"Pod":                   ptr(fullPod("web-1")),
		"PodList":               &api.PodList{Metadata: fullListMeta(), Items: []api.Pod{fullPod("web-1"), fullPod("web-2")}},
		"ReplicationController": ptr(fullReplicationController("web")),
		"ReplicationControllerList": &api.ReplicationControllerList{Metadata: fullListMeta(),
			Items: []api.ReplicationController{fullReplicationController("web")}},
		"Service":           ptr(fullService("web")),
		"ServiceList":       &api.ServiceList{Metadata: fullListMeta(), Items: []api.Service{fullService("web"), fullService("db")}},
		"Endpoints":         ptr(fullEndpoints("web")),
		"EndpointsList":     &api.EndpointsList{Metadata: fullListMeta(), Items: []api.Endpoints{fullEndpoints("web")}},
		"Node":              ptr(fullNode("node-1")),
		"NodeList":          &api.NodeList{Metadata: fullListMeta(), Items: []api.Node{fullNode("node-1"), fullNode("node-2")}},
		"EndpointSlice":     ptr(fullEndpointSlice("web-abc12")),
		"EndpointSliceList": &api.EndpointSliceList{Metadata: fullListMeta(), Items: []api.EndpointSlice{fullEndpointSlice("web-abc12")}},
		"Lease":             ptr(fullLease("kube-controller-manager")),
		"LeaseList":         &api.LeaseList{Metadata: fullListMeta(), Items: []api.Lease{fullLease("a"), fullLease("b")}},
		"Event":             ptr(fullEvent("web-1.17d1")),
		"EventList":         &api.EventList{Metadata: fullListMeta(), Items: []api.Event{fullEvent("web-1.17d1")}},
		"Namespace":         ptr(fullNamespace("team")),
		"NamespaceList":     &api.NamespaceList{Metadata: fullListMeta(), Items: []api.Namespace{fullNamespace("team"), fullNamespace("default")}},
		"ConfigMap":         ptr(fullConfigMap("app")),
		"ConfigMapList":     &api.ConfigMapList{Metadata: fullListMeta(), Items: []api.ConfigMap{fullConfigMap("a"), fullConfigMap("b")}},
		"Secret":            ptr(fullSecret("tls")),
		"SecretList":        &api.SecretList{Metadata: fullListMeta(), Items: []api.Secret{fullSecret("a"), fullSecret("b")}},
		"ServiceAccount":    ptr(fullServiceAccount("builder")),
		"ResourceQuota":     ptr(fullResourceQuota("compute")),
		"ResourceQuotaList": &api.ResourceQuotaList{Metadata: fullListMeta(),
			Items: []api.ResourceQuota{fullResourceQuota("a"), fullResourceQuota("b")}},
		"ServiceAccountList": &api.ServiceAccountList{Metadata: fullListMeta(),
			Items: []api.ServiceAccount{fullServiceAccount("a"), fullServiceAccount("default")}},
		"PersistentVolume":      ptr(fullPersistentVolume("pv0")),
		"PersistentVolumeList":  &api.PersistentVolumeList{Metadata: fullListMeta(), Items: []api.PersistentVolume{fullPersistentVolume("a")}},
		"PersistentVolumeClaim": ptr(fullPersistentVolumeClaim("data")),
		"PersistentVolumeClaimList": &api.PersistentVolumeClaimList{Metadata: fullListMeta(),
			Items: []api.PersistentVolumeClaim{fullPersistentVolumeClaim("a")}},
		"StorageClass":       ptr(fullStorageClass("fast")),
		"StorageClassList":   &api.StorageClassList{Metadata: fullListMeta(), Items: []api.StorageClass{fullStorageClass("a")}},
		"CSINode":            ptr(fullCSINode("node-1")),
		"CSINodeList":        &api.CSINodeList{Metadata: fullListMeta(), Items: []api.CSINode{fullCSINode("a")}},
		"CSIDriver":          ptr(fullCSIDriver("ebs.csi.aws.com")),
		"CSIDriverList":      &api.CSIDriverList{Metadata: fullListMeta(), Items: []api.CSIDriver{fullCSIDriver("a")}},
		"CSIStorageCapacity": ptr(fullCSIStorageCapacity("cap")),
		"CSIStorageCapacityList": &api.CSIStorageCapacityList{Metadata: fullListMeta(),
			Items: []api.CSIStorageCapacity{fullCSIStorageCapacity("a")}},
		"VolumeAttachment":     ptr(fullVolumeAttachment("csi-1")),
		"VolumeAttachmentList": &api.VolumeAttachmentList{Metadata: fullListMeta(), Items: []api.VolumeAttachment{fullVolumeAttachment("a")}},
		"PodDisruptionBudget":  ptr(fullPodDisruptionBudget("web")),
		"PodDisruptionBudgetList": &api.PodDisruptionBudgetList{Metadata: fullListMeta(),
			Items: []api.PodDisruptionBudget{fullPodDisruptionBudget("a")}},
		"LimitRange":         ptr(fullLimitRange("limits")),
		"LimitRangeList":     &api.LimitRangeList{Metadata: fullListMeta(), Items: []api.LimitRange{fullLimitRange("a")}},
		"PodTemplate":        ptr(fullPodTemplate("web")),
		"PodTemplateList":    &api.PodTemplateList{Metadata: fullListMeta(), Items: []api.PodTemplate{fullPodTemplate("a")}},
		"PriorityClass":      ptr(fullPriorityClass("high")),
		"Ingress":            ptr(fullIngress("web")),
		"IngressList":        &api.IngressList{Metadata: fullListMeta(), Items: []api.Ingress{fullIngress("a")}},
		"IngressClass":       ptr(fullIngressClass("nginx")),
		"IngressClassList":   &api.IngressClassList{Metadata: fullListMeta(), Items: []api.IngressClass{fullIngressClass("a")}},
		"NetworkPolicy":      ptr(fullNetworkPolicy("deny")),
		"NetworkPolicyList":  &api.NetworkPolicyList{Metadata: fullListMeta(), Items: []api.NetworkPolicy{fullNetworkPolicy("a")}},
		"PriorityClassList":  &api.PriorityClassList{Metadata: fullListMeta(), Items: []api.PriorityClass{fullPriorityClass("a")}},
		"Role":               ptr(fullRole("reader")),
		"RoleList":           &api.RoleList{Metadata: fullListMeta(), Items: []api.Role{fullRole("a")}},
		"RoleBinding":        ptr(fullRoleBinding("read")),
		"RoleBindingList":    &api.RoleBindingList{Metadata: fullListMeta(), Items: []api.RoleBinding{fullRoleBinding("a")}},
		"ClusterRole":        ptr(fullClusterRole("view")),
		"ClusterRoleList":    &api.ClusterRoleList{Metadata: fullListMeta(), Items: []api.ClusterRole{fullClusterRole("a")}},
		"ClusterRoleBinding": ptr(fullClusterRoleBinding("view")),
		"ClusterRoleBindingList": &api.ClusterRoleBindingList{Metadata: fullListMeta(),
			Items: []api.ClusterRoleBinding{fullClusterRoleBinding("a")}},
		"RuntimeClass":              ptr(fullRuntimeClass("gvisor")),
		"RuntimeClassList":          &api.RuntimeClassList{Metadata: fullListMeta(), Items: []api.RuntimeClass{fullRuntimeClass("a")}},
		"CertificateSigningRequest": ptr(fullCertificateSigningRequest("csr-1")),
		"CertificateSigningRequestList": &api.CertificateSigningRequestList{Metadata: fullListMeta(),
			Items: []api.CertificateSigningRequest{fullCertificateSigningRequest("a")}},
		"FlowSchema":                 ptr(fullFlowSchema("workload")),
		"FlowSchemaList":             &api.FlowSchemaList{Metadata: fullListMeta(), Items: []api.FlowSchema{fullFlowSchema("a")}},
		"PriorityLevelConfiguration": ptr(fullPriorityLevelConfiguration("workload-low")),
		"PriorityLevelConfigurationList": &api.PriorityLevelConfigurationList{Metadata: fullListMeta(),
			Items: []api.PriorityLevelConfiguration{fullPriorityLevelConfiguration("a")}},
		"CronJob":            ptr(fullCronJob("hello")),
		"CronJobList":        &api.CronJobList{Metadata: fullListMeta(), Items: []api.CronJob{fullCronJob("a")}},
		"Job":                ptr(fullJob("pi")),
		"JobList":            &api.JobList{Metadata: fullListMeta(), Items: []api.Job{fullJob("a")}},
		"Deployment":         ptr(fullDeployment("web")),
		"DeploymentList":     &api.DeploymentList{Metadata: fullListMeta(), Items: []api.Deployment{fullDeployment("a")}},
		"DaemonSet":          ptr(fullDaemonSet("agent")),
		"DaemonSetList":      &api.DaemonSetList{Metadata: fullListMeta(), Items: []api.DaemonSet{fullDaemonSet("a")}},
		"ControllerRevision": ptr(fullControllerRevision("agent-5d4b8c")),
		"ControllerRevisionList": &api.ControllerRevisionList{Metadata: fullListMeta(),
			Items: []api.ControllerRevision{fullControllerRevision("a")}},
		"ReplicaSet":               ptr(fullReplicaSet("web")),
		"ReplicaSetList":           &api.ReplicaSetList{Metadata: fullListMeta(), Items: []api.ReplicaSet{fullReplicaSet("a")}},
		"StatefulSet":              ptr(fullStatefulSet("db")),
		"StatefulSetList":          &api.StatefulSetList{Metadata: fullListMeta(), Items: []api.StatefulSet{fullStatefulSet("a")}},
		"CustomResourceDefinition": ptr(fullCRD("widgets")),
		"CustomResourceDefinitionList": &api.CustomResourceDefinitionList{Metadata: fullListMeta(),
			Items: []api.CustomResourceDefinition{fullCRD("widgets"), fullCRD("gadgets")}},
		"Scale": &api.Scale{
			Metadata: fullObjectMeta("web"),
			Spec:     api.ScaleSpec{Replicas: 5},
			Status:   api.ScaleStatus{Replicas: 3, Selector: "app=web"},
		},
		"Binding":       &api.Binding{Metadata: fullObjectMeta("web-1"), Target: api.ObjectReference{Kind: "Node", Name: "node-1", APIVersion: "v1", Namespace: "x", UID: "u", ResourceVersion: "1", FieldPath: "f"}},
		"Status":        ptr(fullStatus()),
		"DeleteOptions": ptr(fullDeleteOptions()),
		"WatchEvent":    &api.WatchEvent{Type: api.WatchModified, Object: json.RawMessage(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web-1"}}`)},
	})
	return cases
}

// specialCases aims one object at each special shape and at zero values, which gogo
// writes for every non-pointer field.
func specialCases() map[string]any {
	beforeEpoch := api.NewTime(time.Date(1969, 7, 20, 20, 17, 40, 0, time.UTC))
	firstYear := api.NewMicroTime(time.Date(1, 1, 1, 0, 0, 1, 1000, time.UTC))
	lastYear := api.NewMicroTime(time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC))

	withTimes := fullPod("times")
	withTimes.Metadata.CreationTimestamp = beforeEpoch
	withTimes.Metadata.DeletionTimestamp = nil
	withTimes.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionFalse}} // zero times
	// A pointer to the zero time is left out: its JSON is null, the same as a nil pointer, so
	// the JSON-built upstream object cannot hold it.

	negative := fullPod("negative")
	negative.Spec.Priority = ptr(int32(-2147483648))
	negative.Spec.TerminationGracePeriodSeconds = ptr(int64(-1))
	negative.Status.ContainerStatuses[0].State.Terminated.ExitCode = -1
	negative.Status.ContainerStatuses[0].RestartCount = -7
	negative.Metadata.Generation = -9223372036854775808

	intOrString := fullService("ports")
	intOrString.Spec.Ports = []api.ServicePort{
		{Name: "int", Port: 1, TargetPort: api.FromInt(8080)},
		{Name: "string", Port: 2, TargetPort: api.FromString("http")},
		{Name: "zero", Port: 3, TargetPort: api.IntOrString{}},
		{Name: "empty string", Port: 4, TargetPort: api.FromString("")},
		{Name: "negative", Port: 5, TargetPort: api.FromInt(-1)},
	}

	quantities := fullNode("quantities")
	quantities.Status.Capacity = api.ResourceList{
		"cpu": "250m", "memory": "64Ki", "hugepages-2Mi": "0", "storage": "1500G", "tiny": "1n",
		"big": "8E", "exp": "12e6", "negative": "-5",
	}
	quantities.Status.Allocatable = nil

	managed := fullObjectMeta("managed")
	managed.ManagedFields = []api.ManagedFieldsEntry{
		{Manager: "kubectl", Operation: "Apply", FieldsType: "FieldsV1", FieldsV1: json.RawMessage(`{}`)},
		{Manager: "kube-controller-manager", Operation: "Update", FieldsV1: nil},
	}

	return map[string]any{
		"times before the epoch and zero":      &withTimes,
		"microtimes at the ends of the range":  &api.Lease{Spec: api.LeaseSpec{AcquireTime: &firstYear, RenewTime: &lastYear}},
		"microtime zero":                       &api.Event{Series: &api.EventSeries{}},
		"negative numbers":                     &negative,
		"IntOrString both arms":                &intOrString,
		"ResourceList quantities":              &quantities,
		"managedFields FieldsV1":               &api.ReplicationController{Metadata: managed},
		"Status with details and causes":       ptr(fullStatus()),
		"Status without details":               &api.Status{Status: api.StatusSuccess, Code: 200},
		"DeleteOptions with preconditions":     &api.DeleteOptions{Preconditions: &api.Preconditions{UID: ptr(api.UID(""))}},
		"WatchEvent without object":            &api.WatchEvent{Type: api.WatchBookmark},
		"empty list":                           &api.PodList{},
		"empty list item":                      &api.PodList{Items: []api.Pod{{}}},
		"empty pod":                            &api.Pod{},
		"empty node":                           &api.Node{},
		"empty event":                          &api.Event{},
		"empty lease":                          &api.Lease{},
		"empty scale":                          &api.Scale{},
		"empty config map":                     &api.ConfigMap{},
		"empty secret":                         &api.Secret{},
		"empty service account":                &api.ServiceAccount{},
		"empty values in byte and string maps": &api.ConfigMap{Data: map[string]string{"e": ""}, BinaryData: map[string][]byte{"e": {}}},
		"empty secret value":                   &api.Secret{Data: map[string][]byte{"empty": {}, "x": []byte("y")}},
		"empty delete options":                 &api.DeleteOptions{},
		"empty status":                         &api.Status{},
		"empty watch event":                    &api.WatchEvent{},
		"pod template with empty containers":   &api.ReplicationController{Spec: api.ReplicationControllerSpec{Template: &api.PodTemplateSpec{Spec: api.PodSpec{Containers: []api.Container{{}}}}}},
		"probe with an empty handler":          &api.Pod{Spec: api.PodSpec{Containers: []api.Container{{Name: "c", LivenessProbe: &api.Probe{}}}}},
		"empty definition":                     &api.CustomResourceDefinition{},
		"definition with empty schemas":        &api.CustomResourceDefinition{Spec: api.CustomResourceDefinitionSpec{Versions: []api.CustomResourceDefinitionVersion{{Schema: &api.CustomResourceValidation{OpenAPIV3Schema: &api.JSONSchemaProps{Items: &api.JSONSchemaPropsOrArray{Schema: &api.JSONSchemaProps{}}, AdditionalProperties: &api.JSONSchemaPropsOrBool{}, Properties: map[string]api.JSONSchemaProps{"e": {}}}}}}}},
		"schema numbers at their limits":       &api.CustomResourceDefinition{Spec: api.CustomResourceDefinitionSpec{Versions: []api.CustomResourceDefinitionVersion{{Schema: &api.CustomResourceValidation{OpenAPIV3Schema: &api.JSONSchemaProps{Maximum: ptr(1.7976931348623157e308), Minimum: ptr(-5e-324), MultipleOf: ptr(0.0), MaxLength: ptr(int64(-9223372036854775808))}}}}}},
	}
}

func TestRoundTripFullObjects(t *testing.T) {
	for name, obj := range fullCases() {
		t.Run(name, func(t *testing.T) { checkRoundTrips(t, obj) })
	}
}

func TestRoundTripSpecialShapes(t *testing.T) {
	for name, obj := range specialCases() {
		t.Run(name, func(t *testing.T) { checkRoundTrips(t, obj) })
	}
}

// TestFullCasesSetEveryField keeps the full cases honest: every top-level type has one, and
// in it every field reachable from the type is non-zero somewhere, so a field added to the
// api types without a case here fails.
func TestFullCasesSetEveryField(t *testing.T) {
	cases := fullCases()
	for _, k := range kinds {
		t.Run(k.kind, func(t *testing.T) {
			obj, ok := cases[k.kind]
			if !assert.True(t, ok, "no full case for %s", k.kind) {
				return
			}
			assert.Empty(t, unsetFields(reflect.ValueOf(obj)), "fields never set in the full %s", k.kind)
		})
	}
}

// unsetFields returns the struct fields reachable in v that are zero wherever they occur,
// as "Type.Field". TypeMeta (not on the wire) and the insides of the special shapes are
// not looked at.
func unsetFields(v reflect.Value) []string {
	reached := map[string]bool{} // "Type.Field" → set somewhere
	var order []string
	var walk func(reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Slice:
			if v.Type().Elem().Kind() != reflect.Uint8 {
				for i := range v.Len() {
					walk(v.Index(i))
				}
			}
		case reflect.Struct:
			switch v.Type() {
			case reflect.TypeFor[api.Time](), reflect.TypeFor[api.MicroTime](), reflect.TypeFor[api.IntOrString]():
				return
			}
			for i := range v.NumField() {
				f := v.Type().Field(i)
				if f.Type == reflect.TypeFor[api.TypeMeta]() {
					continue
				}
				key := v.Type().Name() + "." + f.Name
				if _, seen := reached[key]; !seen {
					order = append(order, key)
				}
				reached[key] = reached[key] || !v.Field(i).IsZero()
				walk(v.Field(i))
			}
		}
	}
	walk(v)
	var unset []string
	for _, key := range order {
		if !reached[key] {
			unset = append(unset, key)
		}
	}
	return unset
}
