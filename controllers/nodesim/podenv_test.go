package nodesim

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
)

func (e *env) createConfigMap(name string, data map[string]string) {
	e.t.Helper()
	_, err := client.For[*api.ConfigMap](e.srv).Create(e.ctx, &api.ConfigMap{Metadata: api.ObjectMeta{Namespace: "default", Name: name}, Data: data})
	require.NoError(e.t, err)
	e.settle()
}

func (e *env) updateConfigMap(name string, data map[string]string) {
	e.t.Helper()
	cm, err := client.For[*api.ConfigMap](e.srv).Get(e.ctx, "default", name)
	require.NoError(e.t, err)
	cm = cm.DeepCopy()
	cm.Data = data
	_, err = client.For[*api.ConfigMap](e.srv).Update(e.ctx, cm)
	require.NoError(e.t, err)
	e.settle()
}

// specialConfig is the ConfigMap of the task "Configure a Pod to Use a
// ConfigMap".
var specialConfig = map[string]string{"SPECIAL_LEVEL": "very", "SPECIAL_TYPE": "charm"}

func configVolume(name string) func(*api.Pod) {
	return func(p *api.Pod) {
		p.Spec.Volumes = []api.Volume{{Name: "config-volume", VolumeSource: api.VolumeSource{ConfigMap: &api.ConfigMapVolumeSource{
			LocalObjectReference: api.LocalObjectReference{Name: name}}}}}
		p.Spec.Containers[0].VolumeMounts = []api.VolumeMount{{Name: "config-volume", MountPath: "/etc/config"}}
	}
}

func envFromKey(variable, cm, key string) func(*api.Pod) {
	return func(p *api.Pod) {
		p.Spec.Containers[0].Env = append(p.Spec.Containers[0].Env, api.EnvVar{Name: variable, ValueFrom: &api.EnvVarSource{
			ConfigMapKeyRef: &api.ConfigMapKeySelector{LocalObjectReference: api.LocalObjectReference{Name: cm}, Key: key}}})
	}
}

func TestContainerShowsItsEnvironmentAndVolumes(t *testing.T) {
	e := lifeEnv(t)
	_, err := client.For[*api.Service](e.srv).Create(e.ctx, &api.Service{Metadata: api.ObjectMeta{Namespace: "default", Name: "kubernetes"},
		Spec: api.ServiceSpec{ClusterIP: "10.96.0.1", Ports: []api.ServicePort{{Name: "https", Port: 443, Protocol: api.ProtocolTCP, TargetPort: api.FromInt(6443)}}}})
	require.NoError(t, err)
	e.createConfigMap("special-config", specialConfig)
	e.CreatePod("dapi-test-pod", command(api.RestartPolicyNever, "busybox", "/bin/sh", "-c", "env; ls /etc/config/; cat /etc/config/SPECIAL_LEVEL"),
		configVolume("special-config"), envFromKey("SPECIAL_LEVEL_KEY", "special-config", "SPECIAL_LEVEL"))
	e.settle()
	e.advance(time.Second)
	p := e.Pod("dapi-test-pod")
	require.Equal(t, api.PodSucceeded, p.Status.Phase)
	assert.Equal(t, []string{
		"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"HOSTNAME=dapi-test-pod",
		"SPECIAL_LEVEL_KEY=very",
		"KUBERNETES_PORT=tcp://10.96.0.1:443",
		"KUBERNETES_PORT_443_TCP=tcp://10.96.0.1:443",
		"KUBERNETES_PORT_443_TCP_ADDR=10.96.0.1",
		"KUBERNETES_PORT_443_TCP_PORT=443",
		"KUBERNETES_PORT_443_TCP_PROTO=tcp",
		"KUBERNETES_SERVICE_HOST=10.96.0.1",
		"KUBERNETES_SERVICE_PORT=443",
		"KUBERNETES_SERVICE_PORT_HTTPS=443",
		"HOME=/root",
		"SHLVL=1",
		"PWD=/",
		"SPECIAL_LEVEL",
		"SPECIAL_TYPE",
		"very",
	}, e.logText("dapi-test-pod", false))
}

func TestMissingConfigMapHoldsThePodBack(t *testing.T) {
	for _, tc := range []struct {
		name       string
		mutate     func(*api.Pod)
		argv       []string
		wantReason string
		wantEvent  string
	}{
		{"a volume's ConfigMap: FailedMount", configVolume("special-config"), []string{"cat", "/etc/config/SPECIAL_LEVEL"}, "ContainerCreating",
			`kubelet/node-0 FailedMount: MountVolume.SetUp failed for volume "config-volume" : configmap "special-config" not found`},
		{"a variable's ConfigMap: CreateContainerConfigError", envFromKey("LEVEL", "special-config", "SPECIAL_LEVEL"), []string{"printenv", "LEVEL"}, "CreateContainerConfigError",
			`kubelet/node-0 Failed: Error: configmap "special-config" not found`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := lifeEnv(t)
			e.CreatePod("p", command(api.RestartPolicyNever, "busybox", tc.argv...), tc.mutate)
			e.settle()
			e.advance(2 * time.Second)
			p := e.Pod("p")
			assert.Equal(t, api.PodPending, p.Status.Phase)
			require.NotNil(t, status0(p).State.Waiting)
			assert.Equal(t, tc.wantReason, status0(p).State.Waiting.Reason)
			assert.Contains(t, e.events("p"), tc.wantEvent)

			e.createConfigMap("special-config", specialConfig)
			e.advance(10 * time.Second) // the kubelet tries again, then pulls
			e.advance(time.Second)
			assert.Equal(t, api.PodSucceeded, e.Pod("p").Status.Phase)
			assert.Equal(t, []string{"very"}, e.logText("p", false))
		})
	}
}

func TestMissingKeyIsACreateContainerConfigError(t *testing.T) {
	e := lifeEnv(t)
	e.createConfigMap("special-config", specialConfig)
	e.CreatePod("p", command(api.RestartPolicyNever, "busybox", "env"), envFromKey("X", "special-config", "NOPE"))
	e.settle()
	e.advance(2 * time.Second)
	w := status0(e.Pod("p")).State.Waiting
	require.NotNil(t, w)
	assert.Equal(t, "CreateContainerConfigError", w.Reason)
	assert.Equal(t, "couldn't find key NOPE in ConfigMap default/special-config", w.Message)
	assert.Contains(t, e.events("p"), "kubelet/node-0 Failed: Error: couldn't find key NOPE in ConfigMap default/special-config")
	evs := e.events("p")
	require.Len(t, evs, 4)
	assert.Contains(t, evs[2], "kubelet/node-0 Pulled: Successfully pulled image", "the image is pulled before the config is made")
}

// TestKubeletRefusesToStart: a subPathExpr that expands to an absolute
// path or climbs out of its volume, and a root container that must not run
// as root, are CreateContainerConfigErrors with the kubelet's messages.
func TestKubeletRefusesToStart(t *testing.T) {
	subPath := func(value string) func(*api.Pod) {
		return func(p *api.Pod) {
			p.Spec.Volumes = []api.Volume{{Name: "workdir1", VolumeSource: api.VolumeSource{EmptyDir: &api.EmptyDirVolumeSource{}}}}
			p.Spec.Containers[0].Env = []api.EnvVar{{Name: "POD_NAME", Value: value}}
			p.Spec.Containers[0].VolumeMounts = []api.VolumeMount{{Name: "workdir1", MountPath: "/logscontainer", SubPathExpr: "$(POD_NAME)"}}
		}
	}
	for _, tc := range []struct {
		name  string
		argv  []string
		pod   func(*api.Pod)
		image string
		want  string
	}{
		{"absolute subPath", nil, subPath("/tmp"), "busybox", "error SubPath `/tmp` must not be an absolute path"},
		{"subPath with ..", nil, subPath(".."), "busybox", "unable to provision SubPath `..`: must not contain '..'"},
		{"subPath of an empty variable", []string{"true"}, subPath(""), "busybox", "missing value for POD_NAME"},
		{"root image, runAsNonRoot", []string{"id", "-u"}, func(p *api.Pod) {
			p.Spec.Containers[0].SecurityContext = &api.SecurityContext{RunAsNonRoot: ptr(true)}
		}, "busybox", `container has runAsNonRoot and image will run as root (pod: "p_default(` + "%s" + `)", container: app)`},
		{"runAsUser 0, runAsNonRoot", []string{"id", "-u"}, func(p *api.Pod) {
			p.Spec.SecurityContext = &api.PodSecurityContext{RunAsNonRoot: ptr(true), RunAsUser: ptr(int64(0))}
		}, "busybox", `container's runAsUser breaks non-root policy (pod: "p_default(` + "%s" + `)", container: app)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := lifeEnv(t)
			e.CreatePod("p", func(p *api.Pod) {
				p.Spec.RestartPolicy = api.RestartPolicyNever
				p.Spec.Containers[0].Image, p.Spec.Containers[0].Command = tc.image, tc.argv
			}, tc.pod)
			e.settle()
			e.advance(2 * time.Second)
			p := e.Pod("p")
			w := status0(p).State.Waiting
			require.NotNil(t, w)
			assert.Equal(t, "CreateContainerConfigError", w.Reason)
			want := tc.want
			if strings.Contains(want, "%s") {
				want = fmt.Sprintf(want, p.Metadata.UID)
			}
			assert.Equal(t, want, w.Message)
		})
	}
	// A nonroot image passes runAsNonRoot.
	e := lifeEnv(t)
	e.CreatePod("p", command(api.RestartPolicyNever, "registry.k8s.io/e2e-test-images/nonroot:1.4", "id", "-u"), func(p *api.Pod) {
		p.Spec.SecurityContext = &api.PodSecurityContext{RunAsNonRoot: ptr(true)}
	})
	e.settle()
	e.advance(2 * time.Second)
	require.Equal(t, api.PodSucceeded, e.Pod("p").Status.Phase)
	assert.Equal(t, []string{"1234"}, e.logText("p", false))
}

// TestConformanceOutputs runs pods shaped as Kubernetes' conformance tests
// for ConfigMap, Secret and downward API volumes and env write them
// (test/e2e/common/storage, test/e2e/common/node), and checks their logs
// hold the lines those tests look for.
func TestConformanceOutputs(t *testing.T) {
	agnhost := "registry.k8s.io/e2e-test-images/agnhost:2.53"
	for _, tc := range []struct {
		name  string
		image string
		args  []string
		pod   func(*api.Pod)
		want  []string
	}{
		{"configMap volume with defaultMode", agnhost,
			[]string{"mounttest", "--file_content=/etc/configmap-volume/data-1", "--file_mode=/etc/configmap-volume/data-1"},
			func(p *api.Pod) {
				p.Spec.Volumes = []api.Volume{{Name: "configmap-volume", VolumeSource: api.VolumeSource{ConfigMap: &api.ConfigMapVolumeSource{
					LocalObjectReference: api.LocalObjectReference{Name: "cm"}, DefaultMode: ptr(int32(0o400))}}}}
				p.Spec.Containers[0].VolumeMounts = []api.VolumeMount{{Name: "configmap-volume", MountPath: "/etc/configmap-volume"}}
			},
			[]string{`content of file "/etc/configmap-volume/data-1": value-1`, `mode of file "/etc/configmap-volume/data-1": -r--------`}},
		{"secret volume", agnhost,
			[]string{"mounttest", "--file_content=/etc/secret-volume/data-1", "--file_mode=/etc/secret-volume/data-1"},
			func(p *api.Pod) {
				p.Spec.Volumes = []api.Volume{{Name: "secret-volume", VolumeSource: api.VolumeSource{Secret: &api.SecretVolumeSource{SecretName: "sec"}}}}
				p.Spec.Containers[0].VolumeMounts = []api.VolumeMount{{Name: "secret-volume", MountPath: "/etc/secret-volume"}}
			},
			[]string{`content of file "/etc/secret-volume/data-1": value-1`, `mode of file "/etc/secret-volume/data-1": -rw-r--r--`}},
		{"downward API volume", agnhost,
			[]string{"mounttest", "--file_content=/etc/podinfo/podname"},
			func(p *api.Pod) {
				p.Spec.Volumes = []api.Volume{{Name: "podinfo", VolumeSource: api.VolumeSource{DownwardAPI: &api.DownwardAPIVolumeSource{
					Items: []api.DownwardAPIVolumeFile{{Path: "podname", FieldRef: &api.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.name"}}}}}}}
				p.Spec.Containers[0].VolumeMounts = []api.VolumeMount{{Name: "podinfo", MountPath: "/etc/podinfo"}}
			},
			[]string{`content of file "/etc/podinfo/podname": p`}},
		{"emptyDir on tmpfs", agnhost,
			[]string{"mounttest", "--fs_type=/test-volume", "--new_file_0644=/test-volume/test-file", "--file_perm=/test-volume/test-file"},
			func(p *api.Pod) {
				p.Spec.Volumes = []api.Volume{{Name: "test-volume", VolumeSource: api.VolumeSource{EmptyDir: &api.EmptyDirVolumeSource{Medium: "Memory"}}}}
				p.Spec.Containers[0].VolumeMounts = []api.VolumeMount{{Name: "test-volume", MountPath: "/test-volume"}}
			},
			[]string{`mount type of "/test-volume": tmpfs`, `content of file "/test-volume/test-file": mount-tester new file`, `perms of file "/test-volume/test-file": -rw-r--r--`}},
		{"downward API env", "busybox", []string{"sh", "-c", "env"},
			func(p *api.Pod) {
				p.Spec.Containers[0].Env = []api.EnvVar{
					{Name: "POD_NAME", ValueFrom: &api.EnvVarSource{FieldRef: &api.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.name"}}},
					{Name: "POD_NAMESPACE", ValueFrom: &api.EnvVarSource{FieldRef: &api.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}},
					{Name: "POD_IP", ValueFrom: &api.EnvVarSource{FieldRef: &api.ObjectFieldSelector{APIVersion: "v1", FieldPath: "status.podIP"}}},
					{Name: "CPU_LIMIT", ValueFrom: &api.EnvVarSource{ResourceFieldRef: &api.ResourceFieldSelector{Resource: "limits.cpu"}}},
				}
			},
			[]string{"POD_NAME=p", "POD_NAMESPACE=default", "POD_IP=10.244.0.2", "CPU_LIMIT=4"}},
		{"expansion in the command", "busybox", []string{"sh", "-c", `TEST_VAR=wrong echo "$(TEST_VAR)"`},
			func(p *api.Pod) { p.Spec.Containers[0].Env = []api.EnvVar{{Name: "TEST_VAR", Value: "test-value"}} },
			[]string{"test-value"}},
		// test/e2e/node/security_context.go and common/node/security_context.go.
		{"pod runAsUser and runAsGroup", "busybox", []string{"sh", "-c", "id"},
			func(p *api.Pod) {
				p.Spec.SecurityContext = &api.PodSecurityContext{RunAsUser: ptr(int64(1001)), RunAsGroup: ptr(int64(2002))}
			},
			[]string{"uid=1001 gid=2002 groups=2002"}},
		{"container overrides the pod", "busybox", []string{"sh", "-c", "id"},
			func(p *api.Pod) {
				p.Spec.SecurityContext = &api.PodSecurityContext{RunAsUser: ptr(int64(1001)), RunAsGroup: ptr(int64(2001))}
				p.Spec.Containers[0].SecurityContext = &api.SecurityContext{RunAsUser: ptr(int64(1002)), RunAsGroup: ptr(int64(2002))}
			},
			[]string{"uid=1002 gid=2002 groups=2002"}},
		{"runAsUser 65534", "busybox", []string{"sh", "-c", "test $(id -u) -eq 65534 && echo ok"},
			func(p *api.Pod) {
				p.Spec.Containers[0].SecurityContext = &api.SecurityContext{RunAsUser: ptr(int64(65534))}
			},
			[]string{"ok"}},
		{"unprivileged", "busybox", []string{"sh", "-c", "ip link add dummy0 type dummy || true"},
			func(p *api.Pod) { p.Spec.Containers[0].SecurityContext = &api.SecurityContext{Privileged: ptr(false)} },
			[]string{"ip: RTNETLINK answers: Operation not permitted"}},
		{"no privilege escalation", "registry.k8s.io/e2e-test-images/nonewprivs:1.3", nil,
			func(p *api.Pod) {
				p.Spec.Containers[0].SecurityContext = &api.SecurityContext{RunAsUser: ptr(int64(1000)), AllowPrivilegeEscalation: ptr(false)}
			},
			[]string{"Effective uid: 1000"}},
		// common/node/kubelet.go and containers.go.
		{"hostAliases in /etc/hosts", agnhost, []string{"etc-hosts"},
			func(p *api.Pod) {
				p.Spec.HostAliases = []api.HostAlias{{IP: "123.45.67.89", Hostnames: []string{"foo", "bar"}}}
			},
			[]string{"127.0.0.1\tlocalhost", "10.244.0.2\tp", "# Entries added by HostAliases.", "123.45.67.89\tfoo\tbar"}},
		{"the managed /etc/hosts", "busybox", []string{"cat", "/etc/hosts"}, nil,
			[]string{"# Kubernetes-managed hosts file.", "127.0.0.1\tlocalhost", "::1\tlocalhost ip6-localhost ip6-loopback", "fe00::0\tip6-localnet",
				"fe00::0\tip6-mcastprefix", "fe00::1\tip6-allnodes", "fe00::2\tip6-allrouters", "10.244.0.2\tp"}},
		{"hostNetwork: the node's /etc/hosts", "busybox", []string{"cat", "/etc/hosts", "/etc/hostname"},
			func(p *api.Pod) { p.Spec.HostNetwork = true },
			[]string{"127.0.0.1\tlocalhost", "::1\tlocalhost ip6-localhost ip6-loopback", "fe00::0\tip6-localnet", "ff00::0\tip6-mcastprefix",
				"ff02::1\tip6-allnodes", "ff02::2\tip6-allrouters", "10.0.0.1\tnode-0", "node-0"}},
		{"ClusterFirst resolv.conf", "busybox", []string{"cat", "/etc/resolv.conf"}, nil,
			[]string{"search default.svc.cluster.local svc.cluster.local cluster.local", "nameserver 10.96.0.10", "options ndots:5"}},
		{"the pod's hostname", "busybox", []string{"cat", "/etc/hostname"},
			func(p *api.Pod) { p.Spec.Hostname = "h" }, []string{"h"}},
		{"the image's entrypoint with the pod's args", agnhost, []string{"entrypoint-tester", "override", "arguments"}, nil,
			[]string{"[/agnhost entrypoint-tester override arguments]"}},
		// common/node/expansion.go.
		{"subPathExpr makes its directory", "busybox", []string{"sh", "-c", "test -d /testcontainer/p;echo $?"},
			func(p *api.Pod) {
				p.Spec.Volumes = []api.Volume{{Name: "workdir1", VolumeSource: api.VolumeSource{EmptyDir: &api.EmptyDirVolumeSource{}}}}
				p.Spec.Containers[0].Env = []api.EnvVar{{Name: "POD_NAME", Value: "p"}}
				p.Spec.Containers[0].VolumeMounts = []api.VolumeMount{{Name: "workdir1", MountPath: "/logscontainer", SubPathExpr: "$(POD_NAME)"},
					{Name: "workdir1", MountPath: "/testcontainer"}}
			},
			[]string{"0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := lifeEnv(t)
			e.createConfigMap("cm", map[string]string{"data-1": "value-1"})
			_, err := client.For[*api.Secret](e.srv).Create(e.ctx, &api.Secret{Metadata: api.ObjectMeta{Namespace: "default", Name: "sec"},
				Data: map[string][]byte{"data-1": []byte("value-1")}})
			require.NoError(t, err)
			if tc.pod == nil {
				tc.pod = func(*api.Pod) {}
			}
			e.CreatePod("p", func(p *api.Pod) {
				p.Spec.RestartPolicy = api.RestartPolicyNever
				p.Spec.Containers[0].Image, p.Spec.Containers[0].Args = tc.image, tc.args
			}, tc.pod)
			e.settle()
			e.advance(time.Second)
			require.Equal(t, api.PodSucceeded, e.Pod("p").Status.Phase)
			log := e.logText("p", false)
			for _, want := range tc.want {
				assert.Contains(t, log, want)
			}
		})
	}
}

// TestUpdatesAreReflectedInVolumes runs agnhost's read loop, as the
// conformance tests "updates should be reflected in volume" run it, and
// changes what the volume shows: the kubelet brings the file up to date at
// its next periodic sync for a ConfigMap or Secret, at once for the pod's
// own labels, and never under a subPath.
func TestUpdatesAreReflectedInVolumes(t *testing.T) {
	agnhost := "registry.k8s.io/e2e-test-images/agnhost:2.53"
	mount := func(source api.VolumeSource, subPath string) func(*api.Pod) {
		return func(p *api.Pod) {
			p.Spec.Volumes = []api.Volume{{Name: "v", VolumeSource: source}}
			p.Spec.Containers[0].VolumeMounts = []api.VolumeMount{{Name: "v", MountPath: "/etc/v", SubPath: subPath}}
		}
	}
	cmVolume := api.VolumeSource{ConfigMap: &api.ConfigMapVolumeSource{LocalObjectReference: api.LocalObjectReference{Name: "cm"}}}
	for _, tc := range []struct {
		name   string
		pod    func(*api.Pod)
		file   string
		update func(e *env)
		wait   time.Duration // after the update, before the new content shows
		before string
		after  string
	}{
		{"configMap at the next sync", mount(cmVolume, ""), "/etc/v/data-1",
			func(e *env) { e.updateConfigMap("cm", map[string]string{"data-1": "value-2"}) }, syncPeriod,
			`content of file "/etc/v/data-1": value-1`, `content of file "/etc/v/data-1": value-2`},
		{"configMap key deleted", mount(cmVolume, ""), "/etc/v/data-1",
			func(e *env) { e.updateConfigMap("cm", map[string]string{"data-3": "value-3"}) }, syncPeriod,
			`content of file "/etc/v/data-1": value-1`, "Error reading file /etc/v/data-1: open /etc/v/data-1: no such file or directory, retrying"},
		{"labels at once", mount(api.VolumeSource{DownwardAPI: &api.DownwardAPIVolumeSource{Items: []api.DownwardAPIVolumeFile{
			{Path: "labels", FieldRef: &api.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.labels"}}}}}, ""), "/etc/v/labels",
			func(e *env) {
				p := e.Pod("p").DeepCopy()
				p.Metadata.Labels = map[string]string{"key3": "value3"}
				_, err := client.For[*api.Pod](e.srv).Update(e.ctx, p)
				require.NoError(e.t, err)
				e.settle()
			}, 2 * time.Second,
			`content of file "/etc/v/labels": app="p"`, `content of file "/etc/v/labels": key3="value3"`},
		{"not under a subPath", mount(cmVolume, "data-1"), "/etc/v",
			func(e *env) { e.updateConfigMap("cm", map[string]string{"data-1": "value-2"}) }, syncPeriod,
			`content of file "/etc/v": value-1`, `content of file "/etc/v": value-1`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := lifeEnv(t)
			e.createConfigMap("cm", map[string]string{"data-1": "value-1"})
			e.CreatePod("p", func(p *api.Pod) {
				p.Metadata.Labels = map[string]string{"app": "p"}
				p.Spec.Containers[0].Image = agnhost
				p.Spec.Containers[0].Args = []string{"mounttest", "--break_on_expected_content=false", "--retry_time=600", "--file_content_in_loop=" + tc.file}
			}, tc.pod)
			e.settle()
			e.advance(3 * time.Second)
			log := e.logText("p", false)
			require.NotEmpty(t, log)
			assert.Equal(t, tc.before, log[len(log)-1])
			tc.update(e)
			if tc.wait > 2*time.Second {
				e.advance(2 * time.Second)
				log = e.logText("p", false)
				assert.Equal(t, tc.before, log[len(log)-1], "not before the kubelet's next sync")
			}
			e.advance(tc.wait)
			e.advance(2 * time.Second)
			log = e.logText("p", false)
			assert.Equal(t, tc.after, log[len(log)-1])
		})
	}
}
