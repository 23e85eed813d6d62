package apiserver

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
)

func ptrTo[T any](v T) *T { return &v }

// validPod uses most of what a pod spec models, all of it valid.
func validPod() *api.Pod {
	return &api.Pod{
		Metadata: api.ObjectMeta{Name: "web-1", Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec: api.PodSpec{
			InitContainers: []api.Container{{Name: "init", Image: "busybox:1.36", Command: []string{"true"}}},
			Containers: []api.Container{{
				Name:  "web",
				Image: "nginx:1.25",
				Ports: []api.ContainerPort{{Name: "http", ContainerPort: 80}, {ContainerPort: 443, HostPort: 8443}},
				Env:   []api.EnvVar{{Name: "MODE", Value: "prod"}, {Name: "1weird.name-ok"}},
				Resources: api.ResourceRequirements{
					Limits:   api.ResourceList{"cpu": "500m", "memory": "128Mi", "example.com/gpu": "1"},
					Requests: api.ResourceList{"cpu": "250m", "memory": "64Mi"},
				},
				LivenessProbe:  &api.Probe{ProbeHandler: api.ProbeHandler{HTTPGet: &api.HTTPGetAction{Port: api.FromString("http")}}},
				ReadinessProbe: &api.Probe{ProbeHandler: api.ProbeHandler{TCPSocket: &api.TCPSocketAction{Port: api.FromInt(80)}}},
			}, {Name: "sidecar", Image: "envoyproxy/envoy@sha256:abc"}},
			NodeSelector:       map[string]string{"kubernetes.io/os": "linux"},
			ServiceAccountName: "default",
			Hostname:           "web-1",
			Subdomain:          "web",
			Tolerations: []api.Toleration{
				{Key: "node.kubernetes.io/not-ready", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute, TolerationSeconds: ptrTo(int64(300))},
				{Key: "dedicated", Value: "web", Effect: api.TaintEffectNoSchedule},
			},
		},
	}
}

func TestDefaultPod(t *testing.T) {
	pod := validPod()
	pod.Spec.Containers = append(pod.Spec.Containers,
		api.Container{Name: "latest", Image: "nginx:latest"},
		api.Container{Name: "untagged", Image: "localhost:5000/web"},
		api.Container{Name: "pinned", Image: "web", ImagePullPolicy: api.PullNever})
	defaultPod(pod)
	s := pod.Spec
	assert.Equal(t, api.RestartPolicyAlways, s.RestartPolicy)
	assert.Equal(t, api.DNSClusterFirst, s.DNSPolicy)
	assert.Equal(t, "default-scheduler", s.SchedulerName)
	assert.Equal(t, &api.PodSecurityContext{}, s.SecurityContext)
	require.NotNil(t, s.TerminationGracePeriodSeconds)
	assert.Equal(t, int64(30), *s.TerminationGracePeriodSeconds)

	policies := map[string]api.PullPolicy{}
	for _, c := range append(s.InitContainers, s.Containers...) {
		policies[c.Name] = c.ImagePullPolicy
	}
	assert.Equal(t, map[string]api.PullPolicy{
		"init":     api.PullIfNotPresent, // tagged
		"web":      api.PullIfNotPresent,
		"sidecar":  api.PullIfNotPresent, // pinned by digest
		"latest":   api.PullAlways,
		"untagged": api.PullAlways, // the ':' is the registry's port
		"pinned":   api.PullNever,  // set by the client
	}, policies)

	web := s.Containers[0]
	assert.Equal(t, api.ProtocolTCP, web.Ports[0].Protocol)
	assert.Equal(t, api.ProtocolTCP, web.Ports[1].Protocol)
	// Requests default to limits where missing; set ones stay.
	assert.Equal(t, api.ResourceList{"cpu": "250m", "memory": "64Mi", "example.com/gpu": "1"}, web.Resources.Requests)
	assert.Equal(t, &api.Probe{
		ProbeHandler:   api.ProbeHandler{HTTPGet: &api.HTTPGetAction{Path: "/", Port: api.FromString("http"), Scheme: "HTTP"}},
		TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3,
	}, web.LivenessProbe)
	assert.Nil(t, s.Containers[1].Resources.Requests, "no limits, no requests")

	// Defaulting twice changes nothing more; what the client set is kept.
	again := pod.DeepCopy()
	defaultPod(again)
	assert.Equal(t, pod, again)
	kept := &api.Pod{Spec: api.PodSpec{RestartPolicy: api.RestartPolicyNever, DNSPolicy: api.DNSDefault,
		SchedulerName: "mine", TerminationGracePeriodSeconds: ptrTo(int64(5)), EnableServiceLinks: ptrTo(false)}}
	defaultPod(kept)
	assert.Equal(t, api.PodSpec{RestartPolicy: api.RestartPolicyNever, DNSPolicy: api.DNSDefault,
		SchedulerName: "mine", TerminationGracePeriodSeconds: ptrTo(int64(5)), EnableServiceLinks: ptrTo(false),
		SecurityContext: &api.PodSecurityContext{}}, kept.Spec)
}

func TestValidatePod(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*api.Pod)
		want   string
		causes []cause
	}{
		{name: "valid", change: func(*api.Pod) {}},
		{name: "no containers", change: func(p *api.Pod) { p.Spec.Containers = nil },
			want: "spec.containers: Required value", causes: []cause{{required, "spec.containers"}}},
		{name: "no image", change: func(p *api.Pod) { p.Spec.Containers[0].Image = "" },
			want: "spec.containers[0].image: Required value", causes: []cause{{required, "spec.containers[0].image"}}},
		{name: "image with spaces", change: func(p *api.Pod) { p.Spec.Containers[1].Image = " envoy" },
			want:   `spec.containers[1].image: Invalid value: " envoy": must not have leading or trailing whitespace`,
			causes: []cause{{invalid, "spec.containers[1].image"}}},
		{name: "no container name", change: func(p *api.Pod) { p.Spec.Containers[1].Name = "" },
			want: "spec.containers[1].name: Required value", causes: []cause{{required, "spec.containers[1].name"}}},
		{name: "bad container name", change: func(p *api.Pod) { p.Spec.Containers[1].Name = "Side_car" },
			want:   `spec.containers[1].name: Invalid value: "Side_car": ` + msgDNS1123Label,
			causes: []cause{{invalid, "spec.containers[1].name"}}},
		{name: "duplicate container", change: func(p *api.Pod) { p.Spec.Containers[1].Name = "web" },
			want: `spec.containers[1].name: Duplicate value: "web"`, causes: []cause{{duplicate, "spec.containers[1].name"}}},
		{name: "init container named like a container", change: func(p *api.Pod) { p.Spec.InitContainers[0].Name = "sidecar" },
			want: `spec.initContainers[0].name: Duplicate value: "sidecar"`, causes: []cause{{duplicate, "spec.initContainers[0].name"}}},
		{name: "init container with probe", change: func(p *api.Pod) {
			p.Spec.InitContainers[0].ReadinessProbe = p.Spec.Containers[0].ReadinessProbe
		},
			want:   "spec.initContainers[0].readinessProbe: Forbidden: may not be set for init containers without restartPolicy=Always",
			causes: []cause{{forbidden, "spec.initContainers[0].readinessProbe"}}},
		{name: "container port out of range", change: func(p *api.Pod) { p.Spec.Containers[0].Ports[0].ContainerPort = 70000 },
			want:   "spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
			causes: []cause{{invalid, "spec.containers[0].ports[0].containerPort"}}},
		{name: "container port missing", change: func(p *api.Pod) { p.Spec.Containers[0].Ports[1].ContainerPort = 0 },
			want:   "spec.containers[0].ports[1].containerPort: Required value",
			causes: []cause{{required, "spec.containers[0].ports[1].containerPort"}}},
		{name: "host port out of range", change: func(p *api.Pod) { p.Spec.Containers[0].Ports[1].HostPort = -1 },
			want:   "spec.containers[0].ports[1].hostPort: Invalid value: -1: must be between 1 and 65535, inclusive",
			causes: []cause{{invalid, "spec.containers[0].ports[1].hostPort"}}},
		{name: "host port taken twice", change: func(p *api.Pod) {
			p.Spec.Containers[1].Ports = []api.ContainerPort{{ContainerPort: 9443, HostPort: 8443, Protocol: api.ProtocolTCP}}
		},
			want:   `spec.containers[1].ports[0].hostPort: Duplicate value: "TCP//8443"`,
			causes: []cause{{duplicate, "spec.containers[1].ports[0].hostPort"}}},
		{name: "bad protocol", change: func(p *api.Pod) { p.Spec.Containers[0].Ports[0].Protocol = "FOO" },
			want:   `spec.containers[0].ports[0].protocol: Unsupported value: "FOO": supported values: "SCTP", "TCP", "UDP"`,
			causes: []cause{{notSupported, "spec.containers[0].ports[0].protocol"}}},
		{name: "port name not IANA", change: func(p *api.Pod) { p.Spec.Containers[0].Ports[0].Name = "8080" },
			want:   `spec.containers[0].ports[0].name: Invalid value: "8080": must contain at least one letter (a-z)`,
			causes: []cause{{invalid, "spec.containers[0].ports[0].name"}}},
		{name: "port name twice", change: func(p *api.Pod) { p.Spec.Containers[0].Ports[1].Name = "http" },
			want: `spec.containers[0].ports[1].name: Duplicate value: "http"`, causes: []cause{{duplicate, "spec.containers[0].ports[1].name"}}},
		{name: "termination message from the logs", change: func(p *api.Pod) {
			p.Spec.Containers[0].TerminationMessagePolicy = api.TerminationMessageFallbackToLogsOnError
		}},
		{name: "bad terminationMessagePolicy", change: func(p *api.Pod) { p.Spec.Containers[0].TerminationMessagePolicy = "Never" },
			want:   `spec.containers[0].terminationMessagePolicy: Unsupported value: "Never": supported values: "File", "FallbackToLogsOnError"`,
			causes: []cause{{notSupported, "spec.containers[0].terminationMessagePolicy"}}},
		{name: "bad restartPolicy", change: func(p *api.Pod) { p.Spec.RestartPolicy = "Sometimes" },
			want:   `spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"`,
			causes: []cause{{notSupported, "spec.restartPolicy"}}},
		{name: "bad dnsPolicy", change: func(p *api.Pod) { p.Spec.DNSPolicy = "Google" },
			want:   `spec.dnsPolicy: Unsupported value: "Google": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"`,
			causes: []cause{{notSupported, "spec.dnsPolicy"}}},
		{name: "env name empty", change: func(p *api.Pod) { p.Spec.Containers[0].Env[1].Name = "" },
			want: "spec.containers[0].env[1].name: Required value", causes: []cause{{required, "spec.containers[0].env[1].name"}}},
		{name: "env name with =", change: func(p *api.Pod) { p.Spec.Containers[0].Env[0].Name = "A=B" },
			want:   `spec.containers[0].env[0].name: Invalid value: "A=B": a valid environment variable name must consist only of printable ASCII characters other than '='`,
			causes: []cause{{invalid, "spec.containers[0].env[0].name"}}},
		{name: "negative grace period", change: func(p *api.Pod) { p.Spec.TerminationGracePeriodSeconds = ptrTo(int64(-1)) },
			want:   "spec.terminationGracePeriodSeconds: Invalid value: -1: must be greater than or equal to 0",
			causes: []cause{{invalid, "spec.terminationGracePeriodSeconds"}}},
		{name: "bad node selector", change: func(p *api.Pod) { p.Spec.NodeSelector = map[string]string{"zone": "us east"} },
			want:   `spec.nodeSelector: Invalid value: "us east": ` + msgLabelValue,
			causes: []cause{{invalid, "spec.nodeSelector"}}},
		{name: "bad node name", change: func(p *api.Pod) { p.Spec.NodeName = "Node_1" },
			want:   `spec.nodeName: Invalid value: "Node_1": ` + msgDNS1123Subdomain,
			causes: []cause{{invalid, "spec.nodeName"}}},
		{name: "bad hostname", change: func(p *api.Pod) { p.Spec.Hostname = "web.1" },
			want: `spec.hostname: Invalid value: "web.1": must not contain dots`, causes: []cause{{invalid, "spec.hostname"}}},
		{name: "empty quantity", change: func(p *api.Pod) { p.Spec.Containers[0].Resources.Limits["memory"] = "" },
			want:   `spec.containers[0].resources.limits[memory]: Invalid value: "": ` + msgQuantityFormat,
			causes: []cause{{invalid, "spec.containers[0].resources.limits[memory]"}}},
		{name: "bad quantity", change: func(p *api.Pod) { p.Spec.Containers[0].Resources.Requests["cpu"] = "lots" },
			want:   `spec.containers[0].resources.requests[cpu]: Invalid value: "lots": ` + msgQuantityFormat,
			causes: []cause{{invalid, "spec.containers[0].resources.requests[cpu]"}}},
		{name: "negative quantity", change: func(p *api.Pod) { p.Spec.Containers[0].Resources.Requests["cpu"] = "-1" },
			want:   `spec.containers[0].resources.requests[cpu]: Invalid value: "-1": must be greater than or equal to 0`,
			causes: []cause{{invalid, "spec.containers[0].resources.requests[cpu]"}}},
		{name: "request above limit", change: func(p *api.Pod) { p.Spec.Containers[0].Resources.Requests["cpu"] = "1" },
			want:   `spec.containers[0].resources.requests: Invalid value: "1": must be less than or equal to cpu limit of 500m`,
			causes: []cause{{invalid, "spec.containers[0].resources.requests"}}},
		{name: "extended resource request below limit", change: func(p *api.Pod) {
			p.Spec.Containers[0].Resources.Limits["example.com/gpu"] = "2"
			p.Spec.Containers[0].Resources.Requests["example.com/gpu"] = "1"
		},
			want:   `spec.containers[0].resources.requests: Invalid value: "1": must be equal to example.com/gpu limit of 2`,
			causes: []cause{{invalid, "spec.containers[0].resources.requests"}}},
		{name: "extended resource without limit", change: func(p *api.Pod) {
			delete(p.Spec.Containers[0].Resources.Limits, "example.com/gpu")
			p.Spec.Containers[0].Resources.Requests["example.com/gpu"] = "1"
		},
			want:   "spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources",
			causes: []cause{{required, "spec.containers[0].resources.limits"}}},
		{name: "fractional extended resource", change: func(p *api.Pod) {
			p.Spec.Containers[0].Resources.Limits["example.com/gpu"] = "500m"
			p.Spec.Containers[0].Resources.Requests["example.com/gpu"] = "500m"
		},
			want: `[spec.containers[0].resources.limits[example.com/gpu]: Invalid value: "500m": must be an integer, ` +
				`spec.containers[0].resources.requests[example.com/gpu]: Invalid value: "500m": must be an integer]`,
			causes: []cause{{invalid, "spec.containers[0].resources.limits[example.com/gpu]"}, {invalid, "spec.containers[0].resources.requests[example.com/gpu]"}}},
		{name: "unknown resource", change: func(p *api.Pod) { p.Spec.Containers[0].Resources.Limits["gpus"] = "1" },
			want:   `spec.containers[0].resources.limits[gpus]: Invalid value: "gpus": must be a standard resource type or fully qualified`,
			causes: []cause{{invalid, "spec.containers[0].resources.limits[gpus]"}}},
		{name: "resource not for containers", change: func(p *api.Pod) { p.Spec.Containers[0].Resources.Limits["pods"] = "1" },
			want:   `spec.containers[0].resources.limits[pods]: Invalid value: "pods": must be a standard resource for containers`,
			causes: []cause{{invalid, "spec.containers[0].resources.limits[pods]"}}},
		{name: "probe without handler", change: func(p *api.Pod) { p.Spec.Containers[0].ReadinessProbe.TCPSocket = nil },
			want:   "spec.containers[0].readinessProbe: Required value: must specify a handler type",
			causes: []cause{{required, "spec.containers[0].readinessProbe"}}},
		{name: "probe with two handlers", change: func(p *api.Pod) {
			p.Spec.Containers[0].ReadinessProbe.Exec = &api.ExecAction{Command: []string{"true"}}
		},
			want:   "spec.containers[0].readinessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type",
			causes: []cause{{forbidden, "spec.containers[0].readinessProbe.tcpSocket"}}},
		{name: "grpc probe and another handler", change: func(p *api.Pod) {
			p.Spec.Containers[0].ReadinessProbe.GRPC = &api.GRPCAction{Port: 5000}
		},
			want:   "spec.containers[0].readinessProbe.grpc: Forbidden: may not specify more than 1 handler type",
			causes: []cause{{forbidden, "spec.containers[0].readinessProbe.grpc"}}},
		{name: "grpc probe port", change: func(p *api.Pod) {
			p.Spec.Containers[0].ReadinessProbe.TCPSocket = nil
			p.Spec.Containers[0].ReadinessProbe.GRPC = &api.GRPCAction{Port: 70000}
		},
			want:   "spec.containers[0].readinessProbe.grpc.port: Invalid value: 70000: must be between 1 and 65535, inclusive",
			causes: []cause{{invalid, "spec.containers[0].readinessProbe.grpc.port"}}},
		{name: "grpc probe", change: func(p *api.Pod) {
			p.Spec.Containers[0].ReadinessProbe.TCPSocket = nil
			p.Spec.Containers[0].ReadinessProbe.GRPC = &api.GRPCAction{Port: 5000}
		}},
		{name: "security contexts", change: func(p *api.Pod) {
			p.Spec.SecurityContext = &api.PodSecurityContext{RunAsUser: ptrTo(int64(1001)), RunAsGroup: ptrTo(int64(2002)),
				RunAsNonRoot: ptrTo(true), FSGroup: ptrTo(int64(2000)), SupplementalGroups: []int64{1234},
				SeccompProfile: &api.SeccompProfile{Type: "RuntimeDefault"}}
			p.Spec.Containers[0].SecurityContext = &api.SecurityContext{RunAsUser: ptrTo(int64(0)), Privileged: ptrTo(true),
				ReadOnlyRootFilesystem: ptrTo(true), Capabilities: &api.Capabilities{Add: []string{"NET_ADMIN"}, Drop: []string{"ALL"}},
				SeccompProfile: &api.SeccompProfile{Type: "Localhost", LocalhostProfile: ptrTo("profiles/audit.json")}}
		}},
		{name: "pod ids out of range", change: func(p *api.Pod) {
			p.Spec.SecurityContext = &api.PodSecurityContext{RunAsUser: ptrTo(int64(-1)), FSGroup: ptrTo(int64(1) << 31),
				SupplementalGroups: []int64{5, -7}}
		},
			want: "[spec.securityContext.fsGroup: Invalid value: 2147483648: must be between 0 and 2147483647, inclusive, " +
				"spec.securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive, " +
				"spec.securityContext.supplementalGroups[1]: Invalid value: -7: must be between 0 and 2147483647, inclusive]",
			causes: []cause{{invalid, "spec.securityContext.fsGroup"}, {invalid, "spec.securityContext.runAsUser"},
				{invalid, "spec.securityContext.supplementalGroups[1]"}}},
		{name: "container group out of range", change: func(p *api.Pod) {
			p.Spec.Containers[1].SecurityContext = &api.SecurityContext{RunAsGroup: ptrTo(int64(-2))}
		},
			want:   "spec.containers[1].securityContext.runAsGroup: Invalid value: -2: must be between 0 and 2147483647, inclusive",
			causes: []cause{{invalid, "spec.containers[1].securityContext.runAsGroup"}}},
		{name: "privileged without escalation", change: func(p *api.Pod) {
			p.Spec.Containers[0].SecurityContext = &api.SecurityContext{Privileged: ptrTo(true), AllowPrivilegeEscalation: ptrTo(false)}
		},
			want:   "spec.containers[0].securityContext: Invalid value: \"allowPrivilegeEscalation: false, privileged: true\": cannot set `allowPrivilegeEscalation` to false and `privileged` to true",
			causes: []cause{{invalid, "spec.containers[0].securityContext"}}},
		{name: "seccomp type", change: func(p *api.Pod) {
			p.Spec.SecurityContext = &api.PodSecurityContext{SeccompProfile: &api.SeccompProfile{Type: "Strict"}}
		},
			want:   `spec.securityContext.seccompProfile.type: Unsupported value: "Strict": supported values: "Localhost", "RuntimeDefault", "Unconfined"`,
			causes: []cause{{notSupported, "spec.securityContext.seccompProfile.type"}}},
		{name: "seccomp localhost without profile", change: func(p *api.Pod) {
			p.Spec.Containers[0].SecurityContext = &api.SecurityContext{SeccompProfile: &api.SeccompProfile{Type: "Localhost"}}
		},
			want:   "spec.containers[0].securityContext.seccompProfile.localhostProfile: Required value: must be set when seccomp type is Localhost",
			causes: []cause{{required, "spec.containers[0].securityContext.seccompProfile.localhostProfile"}}},
		{name: "seccomp profile not localhost", change: func(p *api.Pod) {
			p.Spec.SecurityContext = &api.PodSecurityContext{SeccompProfile: &api.SeccompProfile{Type: "RuntimeDefault", LocalhostProfile: ptrTo("a.json")}}
		},
			want:   `spec.securityContext.seccompProfile.localhostProfile: Invalid value: "a.json": can only be set when seccomp type is Localhost`,
			causes: []cause{{invalid, "spec.securityContext.seccompProfile.localhostProfile"}}},
		// Kubernetes' TestValidateSysctls, and the conformance test "should
		// reject invalid sysctls" (sysctl.go).
		{name: "sysctls", change: func(p *api.Pod) {
			p.Spec.SecurityContext = &api.PodSecurityContext{Sysctls: sysctls("net.foo.bar", "kernel.shmmax",
				"net.ipv4.conf.enp3s0/200.forwarding", "net/ipv4/conf/enp3s0.200/forwarding", "kernel.msgmax", "safe-and-unsafe")}
		}},
		{name: "sysctl names not of a sysctl's form", change: func(p *api.Pod) {
			p.Spec.SecurityContext = &api.PodSecurityContext{Sysctls: sysctls("i..nvalid", "_invalid", "", strings.Repeat("a", 254))}
		},
			want: `[spec.securityContext.sysctls[0].name: Invalid value: "i..nvalid": ` + msgSysctl +
				`, spec.securityContext.sysctls[1].name: Invalid value: "_invalid": ` + msgSysctl +
				`, spec.securityContext.sysctls[2].name: Required value` +
				`, spec.securityContext.sysctls[3].name: Invalid value: "` + strings.Repeat("a", 254) + `": ` + msgSysctl + `]`,
			causes: []cause{{invalid, "spec.securityContext.sysctls[0].name"}, {invalid, "spec.securityContext.sysctls[1].name"},
				{required, "spec.securityContext.sysctls[2].name"}, {invalid, "spec.securityContext.sysctls[3].name"}}},
		{name: "sysctl named twice", change: func(p *api.Pod) {
			p.Spec.SecurityContext = &api.PodSecurityContext{Sysctls: sysctls("kernel.shmmax", "kernel.shmmax")}
		},
			want:   `spec.securityContext.sysctls[1].name: Duplicate value: "kernel.shmmax"`,
			causes: []cause{{duplicate, "spec.securityContext.sysctls[1].name"}}},
		{name: "conformance's invalid sysctls", change: func(p *api.Pod) {
			p.Spec.SecurityContext = &api.PodSecurityContext{Sysctls: sysctls("foo-", "kernel.shmmax", "safe-and-unsafe", "bar..")}
		},
			want: `[spec.securityContext.sysctls[0].name: Invalid value: "foo-": ` + msgSysctl +
				`, spec.securityContext.sysctls[3].name: Invalid value: "bar..": ` + msgSysctl + `]`,
			causes: []cause{{invalid, "spec.securityContext.sysctls[0].name"}, {invalid, "spec.securityContext.sysctls[3].name"}}},
		{name: "host aliases", change: func(p *api.Pod) {
			p.Spec.HostAliases = []api.HostAlias{{IP: "123.45.67.89", Hostnames: []string{"foo", "bar.local"}}, {IP: "::1", Hostnames: []string{"Bad_Name"}}, {IP: "1.2.3"}}
		},
			want: `[spec.hostAliases[1].hostnames[0]: Invalid value: "Bad_Name": ` + msgDNS1123Subdomain +
				`, spec.hostAliases[2].ip: Invalid value: "1.2.3": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)]`,
			causes: []cause{{invalid, "spec.hostAliases[1].hostnames[0]"}, {invalid, "spec.hostAliases[2].ip"}}},
		{name: "probe port", change: func(p *api.Pod) { p.Spec.Containers[0].LivenessProbe.HTTPGet.Port = api.FromInt(0) },
			want:   "spec.containers[0].livenessProbe.httpGet.port: Invalid value: 0: must be between 1 and 65535, inclusive",
			causes: []cause{{invalid, "spec.containers[0].livenessProbe.httpGet.port"}}},
		{name: "liveness success threshold", change: func(p *api.Pod) { p.Spec.Containers[0].LivenessProbe.SuccessThreshold = 2 },
			want:   "spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1",
			causes: []cause{{invalid, "spec.containers[0].livenessProbe.successThreshold"}}},
		{name: "negative probe period", change: func(p *api.Pod) { p.Spec.Containers[0].ReadinessProbe.PeriodSeconds = -1 },
			want:   "spec.containers[0].readinessProbe.periodSeconds: Invalid value: -1: must be greater than or equal to 0",
			causes: []cause{{invalid, "spec.containers[0].readinessProbe.periodSeconds"}}},
		{name: "negative failure threshold", change: func(p *api.Pod) { p.Spec.Containers[0].LivenessProbe.FailureThreshold = -3 },
			want:   "spec.containers[0].livenessProbe.failureThreshold: Invalid value: -3: must be greater than or equal to 0",
			causes: []cause{{invalid, "spec.containers[0].livenessProbe.failureThreshold"}}},
		{name: "startup success threshold", change: func(p *api.Pod) {
			p.Spec.Containers[0].StartupProbe = &api.Probe{ProbeHandler: api.ProbeHandler{Exec: &api.ExecAction{Command: []string{"true"}}},
				TimeoutSeconds: 1, PeriodSeconds: 10, SuccessThreshold: 3, FailureThreshold: 30}
		},
			want:   "spec.containers[0].startupProbe.successThreshold: Invalid value: 3: must be 1",
			causes: []cause{{invalid, "spec.containers[0].startupProbe.successThreshold"}}},
		{name: "init container with startup probe", change: func(p *api.Pod) {
			p.Spec.InitContainers[0].StartupProbe = p.Spec.Containers[0].ReadinessProbe
		},
			want:   "spec.initContainers[0].startupProbe: Forbidden: may not be set for init containers without restartPolicy=Always",
			causes: []cause{{forbidden, "spec.initContainers[0].startupProbe"}}},
		{name: "node affinity without terms", change: func(p *api.Pod) {
			p.Spec.Affinity = &api.Affinity{NodeAffinity: &api.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{}}}
		},
			want:   "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Required value: must have at least one node selector term",
			causes: []cause{{required, "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"}}},
		{name: "node affinity bad operator", change: func(p *api.Pod) {
			p.Spec.Affinity = &api.Affinity{NodeAffinity: &api.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{
				NodeSelectorTerms: []api.NodeSelectorTerm{{MatchExpressions: []api.NodeSelectorRequirement{{Key: "zone", Operator: "Near", Values: []string{"a"}}}}}}}}
		},
			want:   `spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator`,
			causes: []cause{{invalid, "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator"}}},
		{name: "node affinity preference weight", change: func(p *api.Pod) {
			p.Spec.Affinity = &api.Affinity{NodeAffinity: &api.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []api.PreferredSchedulingTerm{
				{Weight: 0, Preference: api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{{Key: "zone", Operator: "Exists"}}}}}}}
		},
			want:   "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: must be in the range 1-100",
			causes: []cause{{invalid, "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight"}}},
		{name: "toleration without key must be Exists", change: func(p *api.Pod) { p.Spec.Tolerations[1].Key = "" },
			want:   "spec.tolerations[1].operator: Invalid value: \"\": operator must be Exists when `key` is empty, which means \"match all values and all keys\"",
			causes: []cause{{invalid, "spec.tolerations[1].operator"}}},
		{name: "toleration seconds need NoExecute", change: func(p *api.Pod) { p.Spec.Tolerations[1].TolerationSeconds = ptrTo(int64(1)) },
			want:   "spec.tolerations[1].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set",
			causes: []cause{{invalid, "spec.tolerations[1].effect"}}},
		{name: "toleration bad effect", change: func(p *api.Pod) { p.Spec.Tolerations[1].Effect = "Never" },
			want:   `spec.tolerations[1].effect: Unsupported value: "Never": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`,
			causes: []cause{{notSupported, "spec.tolerations[1].effect"}}},
		{name: "toleration Exists with value", change: func(p *api.Pod) { p.Spec.Tolerations[0].Value = "x" },
			want:   "spec.tolerations[0].operator: Invalid value: \"x\": value must be empty when `operator` is 'Exists'",
			causes: []cause{{invalid, "spec.tolerations[0].operator"}}},
		{name: "several problems, in Kubernetes' order", change: func(p *api.Pod) {
			p.Metadata.Name = ""
			p.Spec.Containers[0].Image = ""
			p.Spec.RestartPolicy = "Sometimes"
		},
			want: `[metadata.name: Required value: name or generateName is required, spec.containers[0].image: Required value, ` +
				`spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"]`,
			causes: []cause{{required, "metadata.name"}, {required, "spec.containers[0].image"}, {notSupported, "spec.restartPolicy"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := validPod()
			defaultPod(pod)
			tc.change(pod)
			assertErrors(t, validatePod(pod), tc.want, tc.causes)
		})
	}
}

func withDeadline(seconds int64) func(*api.Pod) {
	return func(p *api.Pod) { p.Spec.ActiveDeadlineSeconds = &seconds }
}

func TestValidatePodUpdate(t *testing.T) {
	const forbiddenSpec = "spec: Forbidden: pod updates may not change fields other than " +
		"`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`," +
		"`spec.tolerations` (only additions to existing tolerations)," +
		"`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"
	for _, tc := range []struct {
		name   string
		before func(*api.Pod) // the old pod, if not validPod
		change func(*api.Pod)
		want   string
		causes []cause
	}{
		{name: "labels and status", change: func(p *api.Pod) {
			p.Metadata.Labels["version"] = "2"
			p.Status.Phase = api.PodRunning
		}},
		{name: "images", change: func(p *api.Pod) {
			p.Spec.Containers[0].Image = "nginx:1.26"
			p.Spec.InitContainers[0].Image = "busybox:1.37"
		}},
		{name: "added toleration and new tolerationSeconds", change: func(p *api.Pod) {
			p.Spec.Tolerations[0].TolerationSeconds = ptrTo(int64(60))
			p.Spec.Tolerations = append(p.Spec.Tolerations, api.Toleration{Operator: api.TolerationOpExists})
		}},
		{name: "nil and empty are the same", change: func(p *api.Pod) { p.Spec.Containers[1].Env = []api.EnvVar{} }},
		{name: "removed toleration", change: func(p *api.Pod) { p.Spec.Tolerations = p.Spec.Tolerations[:1] },
			want:   "spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds",
			causes: []cause{{forbidden, "spec.tolerations"}}},
		{name: "ports", change: func(p *api.Pod) { p.Spec.Containers[0].Ports[0].ContainerPort = 8080 },
			want: forbiddenSpec, causes: []cause{{forbidden, "spec"}}},
		{name: "node name", change: func(p *api.Pod) { p.Spec.NodeName = "node-1" },
			want: forbiddenSpec, causes: []cause{{forbidden, "spec"}}},
		{name: "restart policy", change: func(p *api.Pod) { p.Spec.RestartPolicy = api.RestartPolicyNever },
			want: forbiddenSpec, causes: []cause{{forbidden, "spec"}}},
		{name: "added container", change: func(p *api.Pod) {
			p.Spec.Containers = append(p.Spec.Containers, api.Container{Name: "more", Image: "x", ImagePullPolicy: api.PullAlways})
		},
			want:   "spec.containers: Forbidden: pod updates may not add or remove containers",
			causes: []cause{{forbidden, "spec.containers"}}},
		{name: "renamed", change: func(p *api.Pod) { p.Metadata.Name = "web-2" },
			want: `metadata.name: Invalid value: "web-2": field is immutable`, causes: []cause{{invalid, "metadata.name"}}},
		{name: "invalid and immutable", change: func(p *api.Pod) {
			p.Spec.Containers[0].Image = ""
			p.Spec.Containers[0].Args = []string{"-v"}
		},
			want:   "[spec.containers[0].image: Required value, " + forbiddenSpec + "]",
			causes: []cause{{required, "spec.containers[0].image"}, {forbidden, "spec"}}},
		{name: "deadline set", change: func(p *api.Pod) { p.Spec.ActiveDeadlineSeconds = ptrTo(int64(5)) }},
		{name: "deadline lowered", before: withDeadline(10), change: func(p *api.Pod) { p.Spec.ActiveDeadlineSeconds = ptrTo(int64(5)) }},
		{name: "deadline raised", before: withDeadline(10), change: func(p *api.Pod) { p.Spec.ActiveDeadlineSeconds = ptrTo(int64(20)) },
			want:   "spec.activeDeadlineSeconds: Invalid value: 20: must be less than or equal to previous value",
			causes: []cause{{invalid, "spec.activeDeadlineSeconds"}}},
		{name: "deadline removed", before: withDeadline(10), change: func(p *api.Pod) { p.Spec.ActiveDeadlineSeconds = nil },
			want:   `spec.activeDeadlineSeconds: Invalid value: "null": must not update from a positive integer to nil value`,
			causes: []cause{{invalid, "spec.activeDeadlineSeconds"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old := validPod()
			if tc.before != nil {
				tc.before(old)
			}
			defaultPod(old)
			pod := old.DeepCopy()
			tc.change(pod)
			defaultPod(pod)
			assertErrors(t, validatePodUpdate(pod, old), tc.want, tc.causes)
		})
	}
}

// msgSysctl is what Kubernetes says of a sysctl name not of a sysctl's form.
const msgSysctl = `must have at most 253 characters and match regex ^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$`

// sysctls are sysctls of names, valued "1".
func sysctls(names ...string) []api.Sysctl {
	out := make([]api.Sysctl, len(names))
	for i, n := range names {
		out[i] = api.Sysctl{Name: n, Value: "1"}
	}
	return out
}
