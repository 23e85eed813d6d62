package podenv

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/controllers/nodesim/container"
)

func service(ns, name, ip string, ports ...api.ServicePort) *api.Service {
	return &api.Service{Metadata: api.ObjectMeta{Namespace: ns, Name: name}, Spec: api.ServiceSpec{ClusterIP: ip, Ports: ports}}
}

func tcp(port int32) api.ServicePort { return api.ServicePort{Port: port, Protocol: api.ProtocolTCP} }

// testSources holds a ConfigMap "cfg" and a Secret "sec" in the pod's
// namespace, services, and a node of 4 cpus and 16Gi.
func testSources() Sources {
	cms := map[string]*api.ConfigMap{
		"cfg": {Data: map[string]string{"level": "very", "type": "charm", "1bad": "x", "REPLACE_ME": "from-cfg"}},
	}
	secrets := map[string]*api.Secret{
		"sec": {Data: map[string][]byte{"password": []byte("s3cr3t"), "user": []byte("admin")}},
	}
	return Sources{
		ConfigMap:   func(name string) (*api.ConfigMap, bool) { cm, ok := cms[name]; return cm, ok },
		Secret:      func(name string) (*api.Secret, bool) { s, ok := secrets[name]; return s, ok },
		Services:    func() []*api.Service { return services },
		Allocatable: api.ResourceList{api.ResourceCPU: "4", api.ResourceMemory: "16Gi"},
	}
}

// services are those of Kubernetes' TestMakeEnvironmentVariables, and more.
var services = []*api.Service{
	service("default", "kubernetes", "10.96.0.1", api.ServicePort{Name: "https", Port: 443, Protocol: api.ProtocolTCP}),
	service("test1", "test", "1.2.3.3", tcp(8083)),
	service("test1", "kubernetes", "1.2.3.6", tcp(8086)), // a namespace's own "kubernetes" wins
	service("test1", "headless", api.ClusterIPNone, tcp(80)),
	service("test1", "no-ip", "", tcp(80)),
	service("test1", "dns-udp", "1.2.3.5", api.ServicePort{Name: "dns", Port: 53, Protocol: api.ProtocolUDP}, api.ServicePort{Name: "dns-tcp", Port: 53, Protocol: api.ProtocolTCP}),
	service("other", "not-here", "1.2.3.8", tcp(8088)),
}

func testPod(links bool, env []api.EnvVar, from []api.EnvFromSource) *api.Pod {
	return &api.Pod{
		Metadata: api.ObjectMeta{Namespace: "test1", Name: "dapi-test-pod", UID: "uid-1",
			Labels: map[string]string{"app": "web", "tier": "front"}, Annotations: map[string]string{"build": "two\nlines"}},
		Spec: api.PodSpec{NodeName: "node-0", ServiceAccountName: "default", EnableServiceLinks: &links,
			Containers: []api.Container{{Name: "c", Image: "busybox", Env: env, EnvFrom: from,
				Resources: api.ResourceRequirements{Limits: api.ResourceList{api.ResourceCPU: "250m", api.ResourceMemory: "64Mi"}}}}},
		Status: api.PodStatus{HostIP: "192.168.0.2", HostIPs: []api.HostIP{{IP: "192.168.0.2"}, {IP: "fd00::2"}},
			PodIP: "10.244.0.5", PodIPs: []api.PodIP{{IP: "10.244.0.5"}, {IP: "fd00::5"}}},
	}
}

func fieldRef(path string) *api.EnvVarSource {
	return &api.EnvVarSource{FieldRef: &api.ObjectFieldSelector{APIVersion: "v1", FieldPath: path}}
}

func resourceRef(res, divisor string) *api.EnvVarSource {
	return &api.EnvVarSource{ResourceFieldRef: &api.ResourceFieldSelector{Resource: res, Divisor: api.Quantity(divisor)}}
}

// ev is a variable.
func ev(name, value string) container.EnvVar { return container.EnvVar{Name: name, Value: value} }

func ref(name string) api.LocalObjectReference { return api.LocalObjectReference{Name: name} }

func yes() *bool { b := true; return &b }

// kubernetesVars are the master service's variables.
var masterVars = []container.EnvVar{
	ev("KUBERNETES_PORT", "tcp://10.96.0.1:443"),
	ev("KUBERNETES_PORT_443_TCP", "tcp://10.96.0.1:443"),
	ev("KUBERNETES_PORT_443_TCP_ADDR", "10.96.0.1"),
	ev("KUBERNETES_PORT_443_TCP_PORT", "443"),
	ev("KUBERNETES_PORT_443_TCP_PROTO", "tcp"),
	ev("KUBERNETES_SERVICE_HOST", "10.96.0.1"),
	ev("KUBERNETES_SERVICE_PORT", "443"),
	ev("KUBERNETES_SERVICE_PORT_HTTPS", "443"),
}

// TestVariables ports the scenarios of the kubelet's
// TestMakeEnvironmentVariables that miniplane's pods can express.
func TestVariables(t *testing.T) {
	for _, tc := range []struct {
		name       string
		pod        *api.Pod
		ns         string // the pod's namespace, if not test1
		want       []container.EnvVar
		wantEvents []Event
		wantErr    string
	}{
		{name: "no service links: only the master service", pod: testPod(false, []api.EnvVar{{Name: "FOO", Value: "BAR"}}, nil),
			want: append([]container.EnvVar{ev("FOO", "BAR")}, masterVars...)},
		{name: "the master service in default", ns: "default", pod: testPod(true, nil, nil), want: masterVars},
		{name: "service links of the namespace, its own kubernetes winning", pod: testPod(true, []api.EnvVar{
			{Name: "FOO", Value: "BAR"}, {Name: "TEST_SERVICE_HOST", Value: "mine"}}, nil),
			want: []container.EnvVar{
				ev("FOO", "BAR"), ev("TEST_SERVICE_HOST", "mine"),
				ev("DNS_UDP_PORT", "udp://1.2.3.5:53"),
				ev("DNS_UDP_PORT_53_TCP", "tcp://1.2.3.5:53"), ev("DNS_UDP_PORT_53_TCP_ADDR", "1.2.3.5"), ev("DNS_UDP_PORT_53_TCP_PORT", "53"), ev("DNS_UDP_PORT_53_TCP_PROTO", "tcp"),
				ev("DNS_UDP_PORT_53_UDP", "udp://1.2.3.5:53"), ev("DNS_UDP_PORT_53_UDP_ADDR", "1.2.3.5"), ev("DNS_UDP_PORT_53_UDP_PORT", "53"), ev("DNS_UDP_PORT_53_UDP_PROTO", "udp"),
				ev("DNS_UDP_SERVICE_HOST", "1.2.3.5"), ev("DNS_UDP_SERVICE_PORT", "53"), ev("DNS_UDP_SERVICE_PORT_DNS", "53"), ev("DNS_UDP_SERVICE_PORT_DNS_TCP", "53"),
				ev("KUBERNETES_PORT", "tcp://1.2.3.6:8086"), ev("KUBERNETES_PORT_8086_TCP", "tcp://1.2.3.6:8086"), ev("KUBERNETES_PORT_8086_TCP_ADDR", "1.2.3.6"),
				ev("KUBERNETES_PORT_8086_TCP_PORT", "8086"), ev("KUBERNETES_PORT_8086_TCP_PROTO", "tcp"),
				ev("KUBERNETES_SERVICE_HOST", "1.2.3.6"), ev("KUBERNETES_SERVICE_PORT", "8086"),
				ev("TEST_PORT", "tcp://1.2.3.3:8083"), ev("TEST_PORT_8083_TCP", "tcp://1.2.3.3:8083"), ev("TEST_PORT_8083_TCP_ADDR", "1.2.3.3"),
				ev("TEST_PORT_8083_TCP_PORT", "8083"), ev("TEST_PORT_8083_TCP_PROTO", "tcp"), ev("TEST_SERVICE_PORT", "8083"),
			}},
		{name: "expansion of earlier variables and services", pod: testPod(false, []api.EnvVar{
			{Name: "A", Value: "a"}, {Name: "B", Value: "$(A)-$(KUBERNETES_SERVICE_HOST)-$(LATER)-$$(A)"}, {Name: "LATER", Value: "late"}}, nil),
			want: append([]container.EnvVar{ev("A", "a"), ev("B", "a-10.96.0.1-$(LATER)-$(A)"), ev("LATER", "late")}, masterVars...)},
		{name: "envFrom with a prefix, invalid keys skipped, env overrides", pod: testPod(false, []api.EnvVar{{Name: "p_REPLACE_ME", Value: "from-env"}},
			[]api.EnvFromSource{{Prefix: "p_", ConfigMapRef: &api.ConfigMapEnvSource{LocalObjectReference: ref("cfg")}}, {SecretRef: &api.SecretEnvSource{LocalObjectReference: ref("sec")}}}),
			want: append([]container.EnvVar{ev("p_1bad", "x"), ev("p_REPLACE_ME", "from-env"), ev("p_level", "very"), ev("p_type", "charm"), ev("password", "s3cr3t"), ev("user", "admin")}, masterVars...)},
		{name: "envFrom invalid keys", pod: testPod(false, nil, []api.EnvFromSource{{ConfigMapRef: &api.ConfigMapEnvSource{LocalObjectReference: ref("cfg")}}}),
			want: append([]container.EnvVar{ev("REPLACE_ME", "from-cfg"), ev("level", "very"), ev("type", "charm")}, masterVars...),
			wantEvents: []Event{{api.EventTypeWarning, "InvalidEnvironmentVariableNames",
				"Keys [1bad] from the EnvFrom configMap test1/cfg were skipped since they are considered invalid environment variable names."}}},
		{name: "envFrom of a missing optional source", pod: testPod(false, nil, []api.EnvFromSource{{SecretRef: &api.SecretEnvSource{LocalObjectReference: ref("nope"), Optional: yes()}}}),
			want: masterVars},
		{name: "envFrom of a missing configmap", pod: testPod(false, nil, []api.EnvFromSource{{ConfigMapRef: &api.ConfigMapEnvSource{LocalObjectReference: ref("nope")}}}),
			wantErr: `configmap "nope" not found`},
		{name: "keys of a configmap and a secret", pod: testPod(false, []api.EnvVar{
			{Name: "LEVEL", ValueFrom: &api.EnvVarSource{ConfigMapKeyRef: &api.ConfigMapKeySelector{LocalObjectReference: ref("cfg"), Key: "level"}}},
			{Name: "PASS", ValueFrom: &api.EnvVarSource{SecretKeyRef: &api.SecretKeySelector{LocalObjectReference: ref("sec"), Key: "password"}}},
			{Name: "OPT", ValueFrom: &api.EnvVarSource{SecretKeyRef: &api.SecretKeySelector{LocalObjectReference: ref("sec"), Key: "nope", Optional: yes()}}},
			{Name: "OPT2", ValueFrom: &api.EnvVarSource{ConfigMapKeyRef: &api.ConfigMapKeySelector{LocalObjectReference: ref("nope"), Key: "k", Optional: yes()}}},
		}, nil),
			want: append([]container.EnvVar{ev("LEVEL", "very"), ev("PASS", "s3cr3t")}, masterVars...)},
		{name: "missing configmap key", pod: testPod(false, []api.EnvVar{
			{Name: "X", ValueFrom: &api.EnvVarSource{ConfigMapKeyRef: &api.ConfigMapKeySelector{LocalObjectReference: ref("cfg"), Key: "nope"}}}}, nil),
			wantErr: "couldn't find key nope in ConfigMap test1/cfg"},
		{name: "missing secret key", pod: testPod(false, []api.EnvVar{
			{Name: "X", ValueFrom: &api.EnvVarSource{SecretKeyRef: &api.SecretKeySelector{LocalObjectReference: ref("sec"), Key: "nope"}}}}, nil),
			wantErr: "couldn't find key nope in Secret test1/sec"},
		{name: "missing secret", pod: testPod(false, []api.EnvVar{
			{Name: "X", ValueFrom: &api.EnvVarSource{SecretKeyRef: &api.SecretKeySelector{LocalObjectReference: ref("gone"), Key: "k"}}}}, nil),
			wantErr: `secret "gone" not found`},
		{name: "downward API fields", pod: testPod(false, []api.EnvVar{
			{Name: "POD_NAME", ValueFrom: fieldRef("metadata.name")},
			{Name: "POD_NAMESPACE", ValueFrom: fieldRef("metadata.namespace")},
			{Name: "POD_UID", ValueFrom: fieldRef("metadata.uid")},
			{Name: "APP", ValueFrom: fieldRef("metadata.labels['app']")},
			{Name: "BUILD", ValueFrom: fieldRef("metadata.annotations['build']")},
			{Name: "MISSING_LABEL", ValueFrom: fieldRef("metadata.labels['nope']")},
			{Name: "NODE", ValueFrom: fieldRef("spec.nodeName")},
			{Name: "SA", ValueFrom: fieldRef("spec.serviceAccountName")},
			{Name: "HOST_IP", ValueFrom: fieldRef("status.hostIP")},
			{Name: "HOST_IPS", ValueFrom: fieldRef("status.hostIPs")},
			{Name: "POD_IP", ValueFrom: fieldRef("status.podIP")},
			{Name: "POD_IPS", ValueFrom: fieldRef("status.podIPs")},
		}, nil),
			want: append([]container.EnvVar{ev("POD_NAME", "dapi-test-pod"), ev("POD_NAMESPACE", "test1"), ev("POD_UID", "uid-1"), ev("APP", "web"),
				ev("BUILD", "two\nlines"), ev("MISSING_LABEL", ""), ev("NODE", "node-0"), ev("SA", "default"), ev("HOST_IP", "192.168.0.2"),
				ev("HOST_IPS", "192.168.0.2,fd00::2"), ev("POD_IP", "10.244.0.5"), ev("POD_IPS", "10.244.0.5,fd00::5")}, masterVars...)},
		{name: "downward API resources", pod: testPod(false, []api.EnvVar{
			{Name: "CPU_LIMIT", ValueFrom: resourceRef("limits.cpu", "")},
			{Name: "CPU_LIMIT_M", ValueFrom: resourceRef("limits.cpu", "1m")},
			{Name: "MEM_LIMIT_MI", ValueFrom: resourceRef("limits.memory", "1Mi")},
			{Name: "MEM_LIMIT", ValueFrom: resourceRef("limits.memory", "")},
			{Name: "CPU_REQUEST", ValueFrom: resourceRef("requests.cpu", "1m")},
			{Name: "STORAGE_LIMIT", ValueFrom: resourceRef("limits.ephemeral-storage", "")},
		}, nil),
			want: append([]container.EnvVar{ev("CPU_LIMIT", "1"), ev("CPU_LIMIT_M", "250"), ev("MEM_LIMIT_MI", "64"), ev("MEM_LIMIT", "67108864"),
				ev("CPU_REQUEST", "0"), ev("STORAGE_LIMIT", "0")}, masterVars...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.ns != "" {
				tc.pod.Metadata.Namespace = tc.ns
			}
			vars, events, err := Variables(tc.pod, &tc.pod.Spec.Containers[0], testSources())
			if tc.wantErr != "" {
				var ce *ConfigError
				require.ErrorAs(t, err, &ce)
				assert.Equal(t, tc.wantErr, ce.Message)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, vars)
			assert.Equal(t, tc.wantEvents, events)
		})
	}
}

func TestResourceLimitFallsBackToAllocatable(t *testing.T) {
	pod := testPod(false, []api.EnvVar{
		{Name: "CPU", ValueFrom: resourceRef("limits.cpu", "")},
		{Name: "MEM", ValueFrom: resourceRef("limits.memory", "1Gi")},
	}, nil)
	pod.Spec.Containers[0].Resources = api.ResourceRequirements{}
	vars, _, err := Variables(pod, &pod.Spec.Containers[0], testSources())
	require.NoError(t, err)
	assert.Equal(t, []container.EnvVar{ev("CPU", "4"), ev("MEM", "16")}, vars[:2])
}

func TestStart(t *testing.T) {
	pod := testPod(false, []api.EnvVar{{Name: "GREETING", Value: "hello"}, {Name: "HOSTNAME", Value: "mine"}}, nil)
	ct := &pod.Spec.Containers[0]
	ct.Command = []string{"/bin/echo", "$(GREETING) $(KUBERNETES_SERVICE_PORT) $(NOPE) $$(GREETING)"}
	ct.Args = []string{"$(HOSTNAME)"}
	st, err := Start(pod, ct, nil, testSources())
	require.NoError(t, err)
	assert.Equal(t, []string{"/bin/echo", "hello 443 $(NOPE) $(GREETING)"}, st.Command)
	assert.Equal(t, []string{"mine"}, st.Args)
	env := st.Input.Env
	assert.Equal(t, ev("PATH", DefaultPath), env[0])
	assert.Equal(t, ev("HOSTNAME", "mine"), env[1], "the container's HOSTNAME replaces the runtime's in its place")
	assert.Equal(t, ev("GREETING", "hello"), env[2])
	assert.Equal(t, ev("HOME", "/root"), env[len(env)-1])
}

func TestHostname(t *testing.T) {
	long := "a123456789b123456789c123456789d123456789e123456789f123456789a-.zz"
	for _, tc := range []struct {
		name, hostname, podName, want string
	}{
		{"the pod's name", "", "web-1", "web-1"},
		{"spec.hostname", "box", "web-1", "box"},
		{"cut to 63, no trailing dash or dot", "", long, "a123456789b123456789c123456789d123456789e123456789f123456789a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := &api.Pod{Metadata: api.ObjectMeta{Name: tc.podName}, Spec: api.PodSpec{Hostname: tc.hostname}}
			assert.Equal(t, tc.want, Hostname(pod))
		})
	}
}
