package protobuf

import (
	"encoding/json"
	"time"

	"github.com/miniplane/miniplane/api"
)

// The types below mirror k8s.io/api's shapes with upstream's protobuf tags (field numbers,
// names, and upstream's occasional wrong wire type), so that the codec can be tested
// before package api carries tags. Each names its upstream counterpart.

// testPod mirrors corev1.Pod. TypeMeta has no protobuf tag, so it is not on the wire.
type testPod struct {
	api.TypeMeta `json:",inline"`
	Metadata     testMeta      `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	Spec         testPodSpec   `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	Status       testPodStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// testMeta mirrors metav1.ObjectMeta.
type testMeta struct {
	Name                       string               `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	GenerateName               string               `json:"generateName,omitempty" protobuf:"bytes,2,opt,name=generateName"`
	Namespace                  string               `json:"namespace,omitempty" protobuf:"bytes,3,opt,name=namespace"`
	UID                        api.UID              `json:"uid,omitempty" protobuf:"bytes,5,opt,name=uid,casttype=k8s.io/kubernetes/pkg/types.UID"`
	ResourceVersion            string               `json:"resourceVersion,omitempty" protobuf:"bytes,6,opt,name=resourceVersion"`
	Generation                 int64                `json:"generation,omitempty" protobuf:"varint,7,opt,name=generation"`
	CreationTimestamp          api.Time             `json:"creationTimestamp,omitempty" protobuf:"bytes,8,opt,name=creationTimestamp"`
	DeletionTimestamp          *api.Time            `json:"deletionTimestamp,omitempty" protobuf:"bytes,9,opt,name=deletionTimestamp"`
	DeletionGracePeriodSeconds *int64               `json:"deletionGracePeriodSeconds,omitempty" protobuf:"varint,10,opt,name=deletionGracePeriodSeconds"`
	Labels                     map[string]string    `json:"labels,omitempty" protobuf:"bytes,11,rep,name=labels" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	Annotations                map[string]string    `json:"annotations,omitempty" protobuf:"bytes,12,rep,name=annotations"`
	OwnerReferences            []testOwnerReference `json:"ownerReferences,omitempty" protobuf:"bytes,13,rep,name=ownerReferences"`
	Finalizers                 []string             `json:"finalizers,omitempty" protobuf:"bytes,14,rep,name=finalizers"`
	ManagedFields              []testManagedFields  `json:"managedFields,omitempty" protobuf:"bytes,17,rep,name=managedFields"`
}

// testOwnerReference mirrors metav1.OwnerReference, whose Go field order differs from its
// field numbers.
type testOwnerReference struct {
	APIVersion         string  `json:"apiVersion" protobuf:"bytes,5,opt,name=apiVersion"`
	Kind               string  `json:"kind" protobuf:"bytes,1,opt,name=kind"`
	Name               string  `json:"name" protobuf:"bytes,3,opt,name=name"`
	UID                api.UID `json:"uid" protobuf:"bytes,4,opt,name=uid,casttype=k8s.io/apimachinery/pkg/types.UID"`
	Controller         *bool   `json:"controller,omitempty" protobuf:"varint,6,opt,name=controller"`
	BlockOwnerDeletion *bool   `json:"blockOwnerDeletion,omitempty" protobuf:"varint,7,opt,name=blockOwnerDeletion"`
}

// testManagedFields mirrors metav1.ManagedFieldsEntry, with FieldsV1 kept as raw JSON as
// package api keeps it.
type testManagedFields struct {
	Manager     string          `json:"manager,omitempty" protobuf:"bytes,1,opt,name=manager"`
	Operation   string          `json:"operation,omitempty" protobuf:"bytes,2,opt,name=operation,casttype=ManagedFieldsOperationType"`
	APIVersion  string          `json:"apiVersion,omitempty" protobuf:"bytes,3,opt,name=apiVersion"`
	Time        *api.Time       `json:"time,omitempty" protobuf:"bytes,4,opt,name=time"`
	FieldsType  string          `json:"fieldsType,omitempty" protobuf:"bytes,6,opt,name=fieldsType"`
	FieldsV1    json.RawMessage `json:"fieldsV1,omitempty" protobuf:"bytes,7,opt,name=fieldsV1"`
	Subresource string          `json:"subresource,omitempty" protobuf:"bytes,8,opt,name=subresource"`
}

// testPodSpec mirrors corev1.PodSpec, including upstream's "bytes" tag on the int32
// Priority, which the generated code writes as a varint.
type testPodSpec struct {
	InitContainers                []testContainer   `json:"initContainers,omitempty" protobuf:"bytes,20,rep,name=initContainers"`
	Containers                    []testContainer   `json:"containers" protobuf:"bytes,2,rep,name=containers"`
	RestartPolicy                 api.RestartPolicy `json:"restartPolicy,omitempty" protobuf:"bytes,3,opt,name=restartPolicy,casttype=RestartPolicy"`
	TerminationGracePeriodSeconds *int64            `json:"terminationGracePeriodSeconds,omitempty" protobuf:"varint,4,opt,name=terminationGracePeriodSeconds"`
	DNSPolicy                     api.DNSPolicy     `json:"dnsPolicy,omitempty" protobuf:"bytes,6,opt,name=dnsPolicy,casttype=DNSPolicy"`
	NodeSelector                  map[string]string `json:"nodeSelector,omitempty" protobuf:"bytes,7,rep,name=nodeSelector"`
	ServiceAccountName            string            `json:"serviceAccountName,omitempty" protobuf:"bytes,8,opt,name=serviceAccountName"`
	NodeName                      string            `json:"nodeName,omitempty" protobuf:"bytes,10,opt,name=nodeName"`
	SchedulerName                 string            `json:"schedulerName,omitempty" protobuf:"bytes,19,opt,name=schedulerName"`
	Tolerations                   []testToleration  `json:"tolerations,omitempty" protobuf:"bytes,22,opt,name=tolerations"`
	Priority                      *int32            `json:"priority,omitempty" protobuf:"bytes,25,opt,name=priority"`
}

// testContainer mirrors corev1.Container.
type testContainer struct {
	Name            string            `json:"name" protobuf:"bytes,1,opt,name=name"`
	Image           string            `json:"image,omitempty" protobuf:"bytes,2,opt,name=image"`
	Command         []string          `json:"command,omitempty" protobuf:"bytes,3,rep,name=command"`
	Args            []string          `json:"args,omitempty" protobuf:"bytes,4,rep,name=args"`
	Ports           []testPort        `json:"ports,omitempty" protobuf:"bytes,6,rep,name=ports"`
	Env             []testEnvVar      `json:"env,omitempty" protobuf:"bytes,7,rep,name=env"`
	Resources       testResources     `json:"resources,omitempty" protobuf:"bytes,8,opt,name=resources"`
	LivenessProbe   *testProbe        `json:"livenessProbe,omitempty" protobuf:"bytes,10,opt,name=livenessProbe"`
	ReadinessProbe  *testProbe        `json:"readinessProbe,omitempty" protobuf:"bytes,11,opt,name=readinessProbe"`
	ImagePullPolicy api.PullPolicy    `json:"imagePullPolicy,omitempty" protobuf:"bytes,14,opt,name=imagePullPolicy,casttype=PullPolicy"`
	Stdin           bool              `json:"stdin,omitempty" protobuf:"varint,16,opt,name=stdin"`
	Extra           map[string]string `json:"-"` // untagged: not on the wire
}

// testPort mirrors corev1.ContainerPort.
type testPort struct {
	Name          string       `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	HostPort      int32        `json:"hostPort,omitempty" protobuf:"varint,2,opt,name=hostPort"`
	ContainerPort int32        `json:"containerPort" protobuf:"varint,3,opt,name=containerPort"`
	Protocol      api.Protocol `json:"protocol,omitempty" protobuf:"bytes,4,opt,name=protocol,casttype=Protocol"`
}

// testEnvVar mirrors corev1.EnvVar.
type testEnvVar struct {
	Name  string `json:"name" protobuf:"bytes,1,opt,name=name"`
	Value string `json:"value,omitempty" protobuf:"bytes,2,opt,name=value"`
}

// testResources mirrors corev1.ResourceRequirements.
type testResources struct {
	Limits   api.ResourceList `json:"limits,omitempty" protobuf:"bytes,1,rep,name=limits,casttype=ResourceList,castkey=ResourceName"`
	Requests api.ResourceList `json:"requests,omitempty" protobuf:"bytes,2,rep,name=requests,casttype=ResourceList,castkey=ResourceName"`
}

// testProbe mirrors corev1.Probe, which embeds ProbeHandler as the nested message 1.
type testProbe struct {
	ProbeHandler        `json:",inline" protobuf:"bytes,1,opt,name=handler"`
	InitialDelaySeconds int32 `json:"initialDelaySeconds,omitempty" protobuf:"varint,2,opt,name=initialDelaySeconds"`
	PeriodSeconds       int32 `json:"periodSeconds,omitempty" protobuf:"varint,4,opt,name=periodSeconds"`
}

// ProbeHandler mirrors corev1.ProbeHandler. Its name is exported because an embedded
// field is named after its type, and the codec reads and writes exported fields only.
type ProbeHandler struct {
	Exec    *testExec    `json:"exec,omitempty" protobuf:"bytes,1,opt,name=exec"`
	HTTPGet *testHTTPGet `json:"httpGet,omitempty" protobuf:"bytes,2,opt,name=httpGet"`
}

// testExec mirrors corev1.ExecAction.
type testExec struct {
	Command []string `json:"command,omitempty" protobuf:"bytes,1,rep,name=command"`
}

// testHTTPGet mirrors corev1.HTTPGetAction.
type testHTTPGet struct {
	Path   string          `json:"path,omitempty" protobuf:"bytes,1,opt,name=path"`
	Port   api.IntOrString `json:"port" protobuf:"bytes,2,opt,name=port"`
	Host   string          `json:"host,omitempty" protobuf:"bytes,3,opt,name=host"`
	Scheme string          `json:"scheme,omitempty" protobuf:"bytes,4,opt,name=scheme,casttype=URIScheme"`
}

// testToleration mirrors corev1.Toleration.
type testToleration struct {
	Key               string                 `json:"key,omitempty" protobuf:"bytes,1,opt,name=key"`
	Operator          api.TolerationOperator `json:"operator,omitempty" protobuf:"bytes,2,opt,name=operator,casttype=TolerationOperator"`
	Value             string                 `json:"value,omitempty" protobuf:"bytes,3,opt,name=value"`
	Effect            api.TaintEffect        `json:"effect,omitempty" protobuf:"bytes,4,opt,name=effect,casttype=TaintEffect"`
	TolerationSeconds *int64                 `json:"tolerationSeconds,omitempty" protobuf:"varint,5,opt,name=tolerationSeconds"`
}

// testPodStatus mirrors corev1.PodStatus, including upstream's "rep" tag on the string
// QOSClass.
type testPodStatus struct {
	Phase             api.PodPhase          `json:"phase,omitempty" protobuf:"bytes,1,opt,name=phase,casttype=PodPhase"`
	Conditions        []testCondition       `json:"conditions,omitempty" protobuf:"bytes,2,rep,name=conditions"`
	HostIP            string                `json:"hostIP,omitempty" protobuf:"bytes,5,opt,name=hostIP"`
	PodIP             string                `json:"podIP,omitempty" protobuf:"bytes,6,opt,name=podIP"`
	StartTime         *api.Time             `json:"startTime,omitempty" protobuf:"bytes,7,opt,name=startTime"`
	ContainerStatuses []testContainerStatus `json:"containerStatuses,omitempty" protobuf:"bytes,8,rep,name=containerStatuses"`
	QOSClass          api.PodQOSClass       `json:"qosClass,omitempty" protobuf:"bytes,9,rep,name=qosClass"`
	PodIPs            []testPodIP           `json:"podIPs,omitempty" protobuf:"bytes,12,rep,name=podIPs"`
}

// testPodIP mirrors corev1.PodIP.
type testPodIP struct {
	IP string `json:"ip" protobuf:"bytes,1,opt,name=ip"`
}

// testCondition mirrors corev1.PodCondition.
type testCondition struct {
	Type               api.PodConditionType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=PodConditionType"`
	Status             api.ConditionStatus  `json:"status" protobuf:"bytes,2,opt,name=status,casttype=ConditionStatus"`
	LastProbeTime      api.Time             `json:"lastProbeTime,omitempty" protobuf:"bytes,3,opt,name=lastProbeTime"`
	LastTransitionTime api.Time             `json:"lastTransitionTime,omitempty" protobuf:"bytes,4,opt,name=lastTransitionTime"`
	Reason             string               `json:"reason,omitempty" protobuf:"bytes,5,opt,name=reason"`
	Message            string               `json:"message,omitempty" protobuf:"bytes,6,opt,name=message"`
}

// testContainerStatus mirrors corev1.ContainerStatus.
type testContainerStatus struct {
	Name         string             `json:"name" protobuf:"bytes,1,opt,name=name"`
	State        testContainerState `json:"state,omitempty" protobuf:"bytes,2,opt,name=state"`
	LastState    testContainerState `json:"lastState,omitempty" protobuf:"bytes,3,opt,name=lastState"`
	Ready        bool               `json:"ready" protobuf:"varint,4,opt,name=ready"`
	RestartCount int32              `json:"restartCount" protobuf:"varint,5,opt,name=restartCount"`
	Image        string             `json:"image" protobuf:"bytes,6,opt,name=image"`
	ImageID      string             `json:"imageID" protobuf:"bytes,7,opt,name=imageID"`
	ContainerID  string             `json:"containerID,omitempty" protobuf:"bytes,8,opt,name=containerID"`
	Started      *bool              `json:"started,omitempty" protobuf:"varint,9,opt,name=started"`
}

// testContainerState mirrors corev1.ContainerState.
type testContainerState struct {
	Running    *testStateRunning    `json:"running,omitempty" protobuf:"bytes,2,opt,name=running"`
	Terminated *testStateTerminated `json:"terminated,omitempty" protobuf:"bytes,3,opt,name=terminated"`
}

// testStateRunning mirrors corev1.ContainerStateRunning.
type testStateRunning struct {
	StartedAt api.Time `json:"startedAt,omitempty" protobuf:"bytes,1,opt,name=startedAt"`
}

// testStateTerminated mirrors corev1.ContainerStateTerminated.
type testStateTerminated struct {
	ExitCode   int32    `json:"exitCode" protobuf:"varint,1,opt,name=exitCode"`
	Signal     int32    `json:"signal,omitempty" protobuf:"varint,2,opt,name=signal"`
	Reason     string   `json:"reason,omitempty" protobuf:"bytes,3,opt,name=reason"`
	FinishedAt api.Time `json:"finishedAt,omitempty" protobuf:"bytes,6,opt,name=finishedAt"`
}

// testLeaseSpec mirrors coordinationv1.LeaseSpec, for MicroTime.
type testLeaseSpec struct {
	HolderIdentity       *string        `json:"holderIdentity,omitempty" protobuf:"bytes,1,opt,name=holderIdentity"`
	LeaseDurationSeconds *int32         `json:"leaseDurationSeconds,omitempty" protobuf:"varint,2,opt,name=leaseDurationSeconds"`
	AcquireTime          *api.MicroTime `json:"acquireTime,omitempty" protobuf:"bytes,3,opt,name=acquireTime"`
	RenewTime            *api.MicroTime `json:"renewTime,omitempty" protobuf:"bytes,4,opt,name=renewTime"`
	LeaseTransitions     *int32         `json:"leaseTransitions,omitempty" protobuf:"varint,5,opt,name=leaseTransitions"`
}

// testScalars holds one field of each scalar shape the codec writes.
type testScalars struct {
	Bool   bool         `protobuf:"varint,1,opt,name=bool"`
	Int32  int32        `protobuf:"varint,2,opt,name=int32"`
	Int64  int64        `protobuf:"varint,3,opt,name=int64"`
	Uint32 uint32       `protobuf:"varint,4,opt,name=uint32"`
	String string       `protobuf:"bytes,5,opt,name=string"`
	Phase  api.PodPhase `protobuf:"bytes,6,opt,name=phase"`
	Bytes  []byte       `protobuf:"bytes,7,opt,name=bytes"`
	Int32s []int32      `protobuf:"varint,8,rep,name=int32s"`
	Bools  []bool       `protobuf:"varint,9,rep,name=bools"`
	Nested *testScalars `protobuf:"bytes,10,opt,name=nested"`
}

// testRaw holds the two json.RawMessage shapes: metav1.FieldsV1 (omitempty, written when
// set) and runtime.RawExtension (always written).
type testRaw struct {
	Object   json.RawMessage `json:"object" protobuf:"bytes,2,opt,name=object"`
	FieldsV1 json.RawMessage `json:"fieldsV1,omitempty" protobuf:"bytes,7,opt,name=fieldsV1"`
}

// testTree is recursive, for plans of recursive types and the nesting limit.
type testTree struct {
	Name     string              `protobuf:"bytes,1,opt,name=name"`
	Children []testTree          `protobuf:"bytes,2,rep,name=children"`
	Next     *testTree           `protobuf:"bytes,3,opt,name=next"`
	ByName   map[string]testTree `protobuf:"bytes,4,rep,name=byName"`
	Times    map[string]api.Time `protobuf:"bytes,5,rep,name=times"`
}

// realisticPod returns a pod as a ReplicationController creates it and a kubelet reports
// it: the benchmarks' and round trips' subject.
func realisticPod() *testPod {
	created := api.NewTime(time.Date(2024, 5, 14, 9, 21, 7, 0, time.UTC))
	started := api.NewTime(created.Add(3 * time.Second))
	grace := int64(30)
	priority := int32(0)
	yes := true
	return &testPod{
		TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		Metadata: testMeta{
			Name:              "web-7d4b9c8f5-x2x9q",
			GenerateName:      "web-7d4b9c8f5-",
			Namespace:         "default",
			UID:               "6f1c2a9e-3b4d-4c5e-8f70-1a2b3c4d5e6f",
			ResourceVersion:   "482915",
			CreationTimestamp: created,
			Labels:            map[string]string{"app": "web", "pod-template-hash": "7d4b9c8f5", "tier": "frontend"},
			Annotations:       map[string]string{"kubernetes.io/config.seen": "2024-05-14T09:21:07.123456789Z"},
			OwnerReferences: []testOwnerReference{{
				APIVersion: "v1", Kind: "ReplicationController", Name: "web",
				UID: "0b5e0f3c-9d2a-4e61-b7c8-2f3e4d5c6b7a", Controller: &yes, BlockOwnerDeletion: &yes,
			}},
			ManagedFields: []testManagedFields{{
				Manager: "kube-controller-manager", Operation: "Update", APIVersion: "v1", Time: &created,
				FieldsType: "FieldsV1",
				FieldsV1:   json.RawMessage(`{"f:metadata":{"f:generateName":{},"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:containers":{}}}`),
			}},
		},
		Spec: testPodSpec{
			Containers: []testContainer{{
				Name:    "web",
				Image:   "registry.k8s.io/nginx-slim:0.27",
				Command: []string{"nginx", "-g", "daemon off;"},
				Ports:   []testPort{{Name: "http", ContainerPort: 80, Protocol: api.ProtocolTCP}},
				Env:     []testEnvVar{{Name: "MODE", Value: "production"}, {Name: "WORKERS", Value: "4"}},
				Resources: testResources{
					Limits:   api.ResourceList{api.ResourceCPU: "500m", api.ResourceMemory: "128Mi"},
					Requests: api.ResourceList{api.ResourceCPU: "250m", api.ResourceMemory: "64Mi"},
				},
				LivenessProbe: &testProbe{
					ProbeHandler:  ProbeHandler{HTTPGet: &testHTTPGet{Path: "/healthz", Port: api.FromString("http"), Scheme: "HTTP"}},
					PeriodSeconds: 10,
				},
				ReadinessProbe: &testProbe{
					ProbeHandler:        ProbeHandler{HTTPGet: &testHTTPGet{Path: "/ready", Port: api.FromInt(80), Scheme: "HTTP"}},
					InitialDelaySeconds: 2,
					PeriodSeconds:       5,
				},
				ImagePullPolicy: api.PullIfNotPresent,
			}},
			RestartPolicy:                 api.RestartPolicyAlways,
			TerminationGracePeriodSeconds: &grace,
			DNSPolicy:                     api.DNSClusterFirst,
			ServiceAccountName:            "default",
			NodeName:                      "node-3",
			SchedulerName:                 "default-scheduler",
			Tolerations: []testToleration{
				{Key: "node.kubernetes.io/not-ready", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute, TolerationSeconds: new(int64(300))},
				{Key: "node.kubernetes.io/unreachable", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute, TolerationSeconds: new(int64(300))},
			},
			Priority: &priority,
		},
		Status: testPodStatus{
			Phase: api.PodRunning,
			Conditions: []testCondition{
				{Type: api.PodInitialized, Status: api.ConditionTrue, LastTransitionTime: created},
				{Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: started},
				{Type: api.ContainersReady, Status: api.ConditionTrue, LastTransitionTime: started},
				{Type: api.PodScheduled, Status: api.ConditionTrue, LastTransitionTime: created},
			},
			HostIP:    "10.0.0.13",
			PodIP:     "10.244.3.17",
			PodIPs:    []testPodIP{{IP: "10.244.3.17"}},
			StartTime: &created,
			ContainerStatuses: []testContainerStatus{{
				Name:         "web",
				State:        testContainerState{Running: &testStateRunning{StartedAt: started}},
				LastState:    testContainerState{Terminated: &testStateTerminated{ExitCode: 137, Reason: "OOMKilled", FinishedAt: created}},
				Ready:        true,
				RestartCount: 1,
				Image:        "registry.k8s.io/nginx-slim:0.27",
				ImageID:      "registry.k8s.io/nginx-slim@sha256:6654dd5f2bd1d6f1ad3a9b4f6a1c1ad0f2f4bb5e3c6f9ab0c8f2e7a1d3b5c7e9",
				ContainerID:  "containerd://8f2a6c1d9b3e4f5a7c8d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a1b",
				Started:      &yes,
			}},
			QOSClass: api.PodQOSBurstable,
		},
	}
}
