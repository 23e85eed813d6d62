package apiserver

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
)

// withVolumes is validPod with a volume of each kind, mounted by its first
// container, and a variable of each source.
func withVolumes() *api.Pod {
	p := validPod()
	p.Spec.Volumes = []api.Volume{
		{Name: "config", VolumeSource: api.VolumeSource{ConfigMap: &api.ConfigMapVolumeSource{
			LocalObjectReference: api.LocalObjectReference{Name: "game"}, Items: []api.KeyToPath{{Key: "k", Path: "dir/k", Mode: ptrTo(int32(0o400))}}}}},
		{Name: "secret", VolumeSource: api.VolumeSource{Secret: &api.SecretVolumeSource{SecretName: "s"}}},
		{Name: "podinfo", VolumeSource: api.VolumeSource{DownwardAPI: &api.DownwardAPIVolumeSource{Items: []api.DownwardAPIVolumeFile{
			{Path: "labels", FieldRef: &api.ObjectFieldSelector{FieldPath: "metadata.labels"}},
			{Path: "cpu", ResourceFieldRef: &api.ResourceFieldSelector{ContainerName: "web", Resource: "limits.cpu", Divisor: "1m"}}}}}},
		{Name: "all", VolumeSource: api.VolumeSource{Projected: &api.ProjectedVolumeSource{Sources: []api.VolumeProjection{
			{ConfigMap: &api.ConfigMapProjection{LocalObjectReference: api.LocalObjectReference{Name: "game"}}},
			{ServiceAccountToken: &api.ServiceAccountTokenProjection{Path: "token"}}}}}},
		{Name: "scratch"},
	}
	p.Spec.Containers[0].VolumeMounts = []api.VolumeMount{{Name: "config", MountPath: "/etc/config"}, {Name: "scratch", MountPath: "/tmp", SubPath: "a"}}
	p.Spec.Containers[0].EnvFrom = []api.EnvFromSource{{Prefix: "CFG_", ConfigMapRef: &api.ConfigMapEnvSource{LocalObjectReference: api.LocalObjectReference{Name: "game"}}}}
	p.Spec.Containers[0].Env = []api.EnvVar{
		{Name: "POD", ValueFrom: &api.EnvVarSource{FieldRef: &api.ObjectFieldSelector{FieldPath: "metadata.name"}}},
		{Name: "APP", ValueFrom: &api.EnvVarSource{FieldRef: &api.ObjectFieldSelector{FieldPath: "metadata.labels['app']"}}},
		{Name: "PASS", ValueFrom: &api.EnvVarSource{SecretKeyRef: &api.SecretKeySelector{LocalObjectReference: api.LocalObjectReference{Name: "s"}, Key: "password"}}},
	}
	return p
}

func TestDefaultVolumes(t *testing.T) {
	p := withVolumes()
	defaultPod(p)
	v := p.Spec.Volumes
	assert.Equal(t, ptrTo(int32(0o644)), v[0].ConfigMap.DefaultMode)
	assert.Equal(t, ptrTo(int32(0o644)), v[1].Secret.DefaultMode)
	assert.Equal(t, ptrTo(int32(0o644)), v[2].DownwardAPI.DefaultMode)
	assert.Equal(t, "v1", v[2].DownwardAPI.Items[0].FieldRef.APIVersion)
	assert.Equal(t, ptrTo(int32(0o644)), v[3].Projected.DefaultMode)
	assert.Equal(t, ptrTo(int64(3600)), v[3].Projected.Sources[1].ServiceAccountToken.ExpirationSeconds)
	assert.Equal(t, &api.EmptyDirVolumeSource{}, v[4].EmptyDir, "a volume without a source is an emptyDir")
	hp := &api.Pod{Spec: api.PodSpec{Volumes: []api.Volume{{Name: "h", VolumeSource: api.VolumeSource{HostPath: &api.HostPathVolumeSource{Path: "/data"}}}}}}
	defaultPod(hp)
	assert.Equal(t, &api.HostPathVolumeSource{Path: "/data", Type: ptrTo("")}, hp.Spec.Volumes[0].HostPath, "a hostPath's type defaults to \"\", no check")
	assert.Nil(t, hp.Spec.Volumes[0].EmptyDir)
	assert.Equal(t, "v1", p.Spec.Containers[0].Env[0].ValueFrom.FieldRef.APIVersion)
	assert.Equal(t, ptrTo(true), p.Spec.EnableServiceLinks)
}

func TestValidatePodVolumes(t *testing.T) {
	ref := func(name string) api.LocalObjectReference { return api.LocalObjectReference{Name: name} }
	for _, tc := range []struct {
		name   string
		change func(*api.Pod)
		want   string
		causes []cause
	}{
		{name: "valid", change: func(*api.Pod) {}},
		{name: "duplicate volume", change: func(p *api.Pod) { p.Spec.Volumes[1].Name = "config" },
			want:   `spec.volumes[1].name: Duplicate value: "config"`,
			causes: []cause{{duplicate, "spec.volumes[1].name"}}},
		{name: "two sources", change: func(p *api.Pod) { p.Spec.Volumes[1].EmptyDir = &api.EmptyDirVolumeSource{} },
			want:   "spec.volumes[1].secret: Forbidden: may not specify more than 1 volume type",
			causes: []cause{{forbidden, "spec.volumes[1].secret"}}},
		{name: "hostPath", change: func(p *api.Pod) {
			p.Spec.Volumes[4].HostPath = &api.HostPathVolumeSource{Path: "/tmp/job-e2e/x", Type: ptrTo("DirectoryOrCreate")}
			p.Spec.Volumes[4].EmptyDir = nil
		}},
		{name: "hostPath and emptyDir", change: func(p *api.Pod) {
			p.Spec.Volumes[4].HostPath, p.Spec.Volumes[4].EmptyDir = &api.HostPathVolumeSource{Path: "/data"}, &api.EmptyDirVolumeSource{}
		},
			want:   "spec.volumes[4].hostPath: Forbidden: may not specify more than 1 volume type",
			causes: []cause{{forbidden, "spec.volumes[4].hostPath"}}},
		{name: "hostPath without path", change: func(p *api.Pod) {
			p.Spec.Volumes[4].HostPath, p.Spec.Volumes[4].EmptyDir = &api.HostPathVolumeSource{Type: ptrTo("Nope")}, nil
		},
			want: "spec.volumes[4].hostPath.path: Required value", causes: []cause{{required, "spec.volumes[4].hostPath.path"}}},
		{name: "hostPath with .. and an unknown type", change: func(p *api.Pod) {
			p.Spec.Volumes[4].HostPath, p.Spec.Volumes[4].EmptyDir = &api.HostPathVolumeSource{Path: "/data/../etc", Type: ptrTo("Dir")}, nil
		},
			want: `[spec.volumes[4].hostPath.path: Invalid value: "/data/../etc": must not contain '..', ` +
				`spec.volumes[4].hostPath.type: Unsupported value: "Dir": supported values: "", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"]`,
			causes: []cause{{invalid, "spec.volumes[4].hostPath.path"}, {notSupported, "spec.volumes[4].hostPath.type"}}},
		{name: "configMap without name", change: func(p *api.Pod) { p.Spec.Volumes[0].ConfigMap.Name = "" },
			want: "spec.volumes[0].configMap.name: Required value", causes: []cause{{required, "spec.volumes[0].configMap.name"}}},
		{name: "secret without name", change: func(p *api.Pod) { p.Spec.Volumes[1].Secret.SecretName = "" },
			want: "spec.volumes[1].secret.secretName: Required value", causes: []cause{{required, "spec.volumes[1].secret.secretName"}}},
		{name: "mode too big", change: func(p *api.Pod) { p.Spec.Volumes[1].Secret.DefaultMode = ptrTo(int32(0o1000)) },
			want:   "spec.volumes[1].secret.defaultMode: Invalid value: 512: must be a number between 0 and 0777 (octal), both inclusive",
			causes: []cause{{invalid, "spec.volumes[1].secret.defaultMode"}}},
		{name: "item path with ..", change: func(p *api.Pod) { p.Spec.Volumes[0].ConfigMap.Items[0].Path = "a/../b" },
			want:   `spec.volumes[0].configMap.items[0].path: Invalid value: "a/../b": must not contain '..'`,
			causes: []cause{{invalid, "spec.volumes[0].configMap.items[0].path"}}},
		{name: "absolute item path", change: func(p *api.Pod) { p.Spec.Volumes[0].ConfigMap.Items[0].Path = "/k" },
			want:   `spec.volumes[0].configMap.items[0].path: Invalid value: "/k": must be a relative path`,
			causes: []cause{{invalid, "spec.volumes[0].configMap.items[0].path"}}},
		{name: "downward field not supported", change: func(p *api.Pod) {
			p.Spec.Volumes[2].DownwardAPI.Items[0].FieldRef.FieldPath = "spec.nodeName"
		},
			want:   `spec.volumes[2].downwardAPI.items[0].fieldRef.fieldPath: Unsupported value: "spec.nodeName": supported values: "metadata.annotations", "metadata.labels", "metadata.name", "metadata.namespace", "metadata.uid"`,
			causes: []cause{{notSupported, "spec.volumes[2].downwardAPI.items[0].fieldRef.fieldPath"}}},
		{name: "downward resource needs a container", change: func(p *api.Pod) {
			p.Spec.Volumes[2].DownwardAPI.Items[1].ResourceFieldRef.ContainerName = ""
		},
			want:   "spec.volumes[2].downwardAPI.items[1].resourceFieldRef.containerName: Required value",
			causes: []cause{{required, "spec.volumes[2].downwardAPI.items[1].resourceFieldRef.containerName"}}},
		{name: "zero divisor is unset", change: func(p *api.Pod) { p.Spec.Volumes[2].DownwardAPI.Items[1].ResourceFieldRef.Divisor = "0" }},
		{name: "cpu divisor 1000m is 1", change: func(p *api.Pod) { p.Spec.Volumes[2].DownwardAPI.Items[1].ResourceFieldRef.Divisor = "1000m" }},
		{name: "memory divisor 1Mi", change: func(p *api.Pod) {
			r := p.Spec.Volumes[2].DownwardAPI.Items[1].ResourceFieldRef
			r.Resource, r.Divisor = "limits.memory", "1Mi"
		}},
		{name: "memory divisor 1000 is 1k", change: func(p *api.Pod) {
			r := p.Spec.Volumes[2].DownwardAPI.Items[1].ResourceFieldRef
			r.Resource, r.Divisor = "requests.memory", "1000"
		}},
		{name: "cpu divisor 1k", change: func(p *api.Pod) { p.Spec.Volumes[2].DownwardAPI.Items[1].ResourceFieldRef.Divisor = "1k" },
			want:   `spec.volumes[2].downwardAPI.items[1].resourceFieldRef.divisor: Invalid value: "limits.cpu": only divisor's values 1m and 1 are supported with the cpu resource`,
			causes: []cause{{invalid, "spec.volumes[2].downwardAPI.items[1].resourceFieldRef.divisor"}}},
		{name: "memory divisor 1m", change: func(p *api.Pod) {
			r := p.Spec.Volumes[2].DownwardAPI.Items[1].ResourceFieldRef
			r.Resource, r.Divisor = "limits.memory", "1m"
		},
			want:   `spec.volumes[2].downwardAPI.items[1].resourceFieldRef.divisor: Invalid value: "limits.memory": only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the memory resource`,
			causes: []cause{{invalid, "spec.volumes[2].downwardAPI.items[1].resourceFieldRef.divisor"}}},
		{name: "memory divisor 1e3 is not canonical", change: func(p *api.Pod) {
			r := p.Spec.Volumes[2].DownwardAPI.Items[1].ResourceFieldRef
			r.Resource, r.Divisor = "limits.memory", "1e3"
		},
			want:   `spec.volumes[2].downwardAPI.items[1].resourceFieldRef.divisor: Invalid value: "limits.memory": only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the memory resource`,
			causes: []cause{{invalid, "spec.volumes[2].downwardAPI.items[1].resourceFieldRef.divisor"}}},
		{name: "projected item mode too big", change: func(p *api.Pod) {
			p.Spec.Volumes[3].Projected.Sources[0].ConfigMap.Items = []api.KeyToPath{{Key: "k", Path: "k", Mode: ptrTo(int32(0o1000))}}
		},
			want:   "spec.volumes[3].projected.sources[0].configMap.items[0].mode: Invalid value: 512: must be a number between 0 and 0777 (octal), both inclusive",
			causes: []cause{{invalid, "spec.volumes[3].projected.sources[0].configMap.items[0].mode"}}},
		{name: "token too short", change: func(p *api.Pod) {
			p.Spec.Volumes[3].Projected.Sources[1].ServiceAccountToken.ExpirationSeconds = ptrTo(int64(60))
		},
			want:   "spec.volumes[3].projected.sources[1].serviceAccountToken.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes",
			causes: []cause{{invalid, "spec.volumes[3].projected.sources[1].serviceAccountToken.expirationSeconds"}}},
		{name: "mount of no volume", change: func(p *api.Pod) { p.Spec.Containers[0].VolumeMounts[0].Name = "nope" },
			want:   `spec.containers[0].volumeMounts[0].name: Not found: "nope"`,
			causes: []cause{{notFound, "spec.containers[0].volumeMounts[0].name"}}},
		{name: "mount path twice", change: func(p *api.Pod) { p.Spec.Containers[0].VolumeMounts[1].MountPath = "/etc/config" },
			want:   `spec.containers[0].volumeMounts[1].mountPath: Invalid value: "/etc/config": must be unique`,
			causes: []cause{{invalid, "spec.containers[0].volumeMounts[1].mountPath"}}},
		{name: "subPath escapes", change: func(p *api.Pod) { p.Spec.Containers[0].VolumeMounts[1].SubPath = "../x" },
			// Kubernetes names it without the mount's index.
			want:   `spec.containers[0].volumeMounts.subPath: Invalid value: "../x": must not contain '..'`,
			causes: []cause{{invalid, "spec.containers[0].volumeMounts.subPath"}}},
		{name: "subPathExpr", change: func(p *api.Pod) { p.Spec.Containers[0].VolumeMounts[0].SubPathExpr = "$(POD_NAME)" }},
		{name: "subPathExpr and subPath", change: func(p *api.Pod) { p.Spec.Containers[0].VolumeMounts[1].SubPathExpr = "$(POD_NAME)" },
			want:   `spec.containers[0].volumeMounts[1].subPathExpr: Invalid value: "$(POD_NAME)": subPathExpr and subPath are mutually exclusive`,
			causes: []cause{{invalid, "spec.containers[0].volumeMounts[1].subPathExpr"}}},
		{name: "subPathExpr absolute", change: func(p *api.Pod) { p.Spec.Containers[0].VolumeMounts[0].SubPathExpr = "/$(POD_NAME)" },
			want:   `spec.containers[0].volumeMounts.subPathExpr: Invalid value: "/$(POD_NAME)": must be a relative path`,
			causes: []cause{{invalid, "spec.containers[0].volumeMounts.subPathExpr"}}},
		{name: "value and valueFrom", change: func(p *api.Pod) { p.Spec.Containers[0].Env[0].Value = "x" },
			want:   "spec.containers[0].env[0].valueFrom: Invalid value: \"\": may not be specified when `value` is not empty",
			causes: []cause{{invalid, "spec.containers[0].env[0].valueFrom"}}},
		{name: "two sources of a value", change: func(p *api.Pod) {
			p.Spec.Containers[0].Env[0].ValueFrom.ConfigMapKeyRef = &api.ConfigMapKeySelector{LocalObjectReference: ref("game"), Key: "k"}
		},
			want:   `spec.containers[0].env[0].valueFrom: Invalid value: "": may not have more than one field specified at a time`,
			causes: []cause{{invalid, "spec.containers[0].env[0].valueFrom"}}},
		{name: "env field not supported", change: func(p *api.Pod) { p.Spec.Containers[0].Env[0].ValueFrom.FieldRef.FieldPath = "metadata.labels" },
			want:   `spec.containers[0].env[0].valueFrom.fieldRef.fieldPath: Unsupported value: "metadata.labels": supported values: "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"`,
			causes: []cause{{notSupported, "spec.containers[0].env[0].valueFrom.fieldRef.fieldPath"}}},
		{name: "secret key missing", change: func(p *api.Pod) { p.Spec.Containers[0].Env[2].ValueFrom.SecretKeyRef.Key = "" },
			want:   "spec.containers[0].env[2].valueFrom.secretKeyRef.key: Required value",
			causes: []cause{{required, "spec.containers[0].env[2].valueFrom.secretKeyRef.key"}}},
		{name: "envFrom both", change: func(p *api.Pod) {
			p.Spec.Containers[0].EnvFrom[0].SecretRef = &api.SecretEnvSource{LocalObjectReference: ref("s")}
		},
			want:   `spec.containers[0].envFrom[0]: Invalid value: "": may not have more than one field specified at a time`,
			causes: []cause{{invalid, "spec.containers[0].envFrom[0]"}}},
		{name: "envFrom bad prefix", change: func(p *api.Pod) { p.Spec.Containers[0].EnvFrom[0].Prefix = "A=" },
			want:   `spec.containers[0].envFrom[0].prefix: Invalid value: "A=": a valid environment variable name must consist only of printable ASCII characters other than '='`,
			causes: []cause{{invalid, "spec.containers[0].envFrom[0].prefix"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := withVolumes()
			defaultPod(pod)
			tc.change(pod)
			assertErrors(t, validatePod(pod), tc.want, tc.causes)
		})
	}
}
