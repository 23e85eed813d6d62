package podenv

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/controllers/nodesim/container"
)

func modeOf(m int32) *int32 { return &m }

func vol(name string, src api.VolumeSource) api.Volume {
	return api.Volume{Name: name, VolumeSource: src}
}

// volumePod is testPod with volumes; its container mounts each volume at
// /v/<name>.
func volumePod(vols ...api.Volume) *api.Pod {
	pod := testPod(false, nil, nil)
	pod.Spec.Volumes = vols
	for _, v := range vols {
		pod.Spec.Containers[0].VolumeMounts = append(pod.Spec.Containers[0].VolumeMounts, api.VolumeMount{Name: v.Name, MountPath: "/v/" + v.Name})
	}
	return pod
}

// file is what the container sees at p: its content and mode, or "" and
// 0 when there is none.
func file(fs container.FS, p string) (string, iofs.FileMode) {
	f, ok := fs.Lookup(p)
	if !ok {
		return "", 0
	}
	return f.Data, f.Mode
}

func TestVolumes(t *testing.T) {
	type want struct {
		path string
		data string
		mode iofs.FileMode
	}
	for _, tc := range []struct {
		name    string
		vols    []api.Volume
		want    []want
		ls      map[string][]string // directory: entries
		tmpfs   string              // a path on a tmpfs
		wantErr string
	}{
		{name: "configMap: every key, defaultMode", vols: []api.Volume{vol("c", api.VolumeSource{ConfigMap: &api.ConfigMapVolumeSource{LocalObjectReference: ref("cfg"), DefaultMode: modeOf(0o400)}})},
			want: []want{{"/v/c/level", "very", 0o400}, {"/v/c/1bad", "x", 0o400}},
			ls:   map[string][]string{"/v/c": {"1bad", "REPLACE_ME", "level", "type"}}},
		{name: "configMap items with paths and modes", vols: []api.Volume{vol("c", api.VolumeSource{ConfigMap: &api.ConfigMapVolumeSource{LocalObjectReference: ref("cfg"),
			Items: []api.KeyToPath{{Key: "level", Path: "path/to/level", Mode: modeOf(0o600)}, {Key: "type", Path: "type"}}, DefaultMode: modeOf(0o644)}})},
			want: []want{{"/v/c/path/to/level", "very", 0o600}, {"/v/c/type", "charm", 0o644}, {"/v/c/level", "", 0}},
			ls:   map[string][]string{"/v/c": {"path", "type"}}},
		{name: "missing configMap", vols: []api.Volume{vol("c", api.VolumeSource{ConfigMap: &api.ConfigMapVolumeSource{LocalObjectReference: ref("nope")}})},
			wantErr: `MountVolume.SetUp failed for volume "c" : configmap "nope" not found`},
		{name: "missing optional configMap is empty", vols: []api.Volume{vol("c", api.VolumeSource{ConfigMap: &api.ConfigMapVolumeSource{LocalObjectReference: ref("nope"), Optional: yes()}})},
			ls: map[string][]string{"/v/c": nil}},
		{name: "missing configMap key", vols: []api.Volume{vol("c", api.VolumeSource{ConfigMap: &api.ConfigMapVolumeSource{LocalObjectReference: ref("cfg"),
			Items: []api.KeyToPath{{Key: "nope", Path: "x"}}}})},
			wantErr: `MountVolume.SetUp failed for volume "c" : configmap references non-existent config key: nope`},
		{name: "secret, decoded, on a tmpfs", vols: []api.Volume{vol("s", api.VolumeSource{Secret: &api.SecretVolumeSource{SecretName: "sec"}})},
			want: []want{{"/v/s/password", "s3cr3t", 0o644}}, tmpfs: "/v/s/password"},
		{name: "missing secret", vols: []api.Volume{vol("s", api.VolumeSource{Secret: &api.SecretVolumeSource{SecretName: "nope"}})},
			wantErr: `MountVolume.SetUp failed for volume "s" : secret "nope" not found`},
		{name: "downwardAPI", vols: []api.Volume{vol("d", api.VolumeSource{DownwardAPI: &api.DownwardAPIVolumeSource{Items: []api.DownwardAPIVolumeFile{
			{Path: "labels", FieldRef: &api.ObjectFieldSelector{FieldPath: "metadata.labels"}},
			{Path: "annotations", FieldRef: &api.ObjectFieldSelector{FieldPath: "metadata.annotations"}},
			{Path: "podname", FieldRef: &api.ObjectFieldSelector{FieldPath: "metadata.name"}, Mode: modeOf(0o400)},
			{Path: "cpu_limit", ResourceFieldRef: &api.ResourceFieldSelector{ContainerName: "c", Resource: "limits.cpu", Divisor: "1m"}},
			{Path: "memory_request", ResourceFieldRef: &api.ResourceFieldSelector{ContainerName: "c", Resource: "requests.memory"}},
		}}})},
			want: []want{{"/v/d/labels", "app=\"web\"\ntier=\"front\"", 0o644}, {"/v/d/annotations", `build="two\nlines"`, 0o644},
				{"/v/d/podname", "dapi-test-pod", 0o400}, {"/v/d/cpu_limit", "250", 0o644}, {"/v/d/memory_request", "0", 0o644}}},
		{name: "projected sources merged", vols: []api.Volume{vol("p", api.VolumeSource{Projected: &api.ProjectedVolumeSource{DefaultMode: modeOf(0o440), Sources: []api.VolumeProjection{
			{ConfigMap: &api.ConfigMapProjection{LocalObjectReference: ref("cfg"), Items: []api.KeyToPath{{Key: "level", Path: "cfg/level"}}}},
			{Secret: &api.SecretProjection{LocalObjectReference: ref("sec"), Items: []api.KeyToPath{{Key: "user", Path: "sec/user", Mode: modeOf(0o400)}}}},
			{DownwardAPI: &api.DownwardAPIProjection{Items: []api.DownwardAPIVolumeFile{{Path: "podname", FieldRef: &api.ObjectFieldSelector{FieldPath: "metadata.name"}}}}},
			{ServiceAccountToken: &api.ServiceAccountTokenProjection{Path: "token"}},
		}}})},
			want: []want{{"/v/p/cfg/level", "very", 0o440}, {"/v/p/sec/user", "admin", 0o400}, {"/v/p/podname", "dapi-test-pod", 0o440},
				{"/v/p/token", "miniplane-simulated-token:system:serviceaccount:test1:default", 0o440}},
			ls: map[string][]string{"/v/p": {"cfg", "podname", "sec", "token"}}, tmpfs: "/v/p/token"},
		{name: "projected errors aggregated", vols: []api.Volume{vol("p", api.VolumeSource{Projected: &api.ProjectedVolumeSource{Sources: []api.VolumeProjection{
			{ConfigMap: &api.ConfigMapProjection{LocalObjectReference: ref("a")}}, {Secret: &api.SecretProjection{LocalObjectReference: ref("b")}}}}})},
			wantErr: `MountVolume.SetUp failed for volume "p" : [configmap "a" not found, secret "b" not found]`},
		{name: "emptyDir", vols: []api.Volume{vol("e", api.VolumeSource{EmptyDir: &api.EmptyDirVolumeSource{}}), vol("m", api.VolumeSource{EmptyDir: &api.EmptyDirVolumeSource{Medium: "Memory"}})},
			want: []want{{"/v/e", "", iofs.ModeDir | 0o777}}, ls: map[string][]string{"/v/e": nil, "/v": {"e", "m"}}, tmpfs: "/v/m"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := volumePod(tc.vols...)
			vols, err := Volumes(pod, testSources())
			if tc.wantErr != "" {
				var me *MountError
				require.ErrorAs(t, err, &me)
				assert.Equal(t, tc.wantErr, me.Error())
				return
			}
			require.NoError(t, err)
			fs := Mount(&pod.Spec.Containers[0], vols)
			for _, w := range tc.want {
				data, m := file(fs, w.path)
				assert.Equal(t, w.data, data, w.path)
				assert.Equal(t, w.mode, m, w.path)
			}
			for dir, entries := range tc.ls {
				assert.Equal(t, entries, fs.List(dir), dir)
			}
			if tc.tmpfs != "" {
				f, _ := fs.Lookup(tc.tmpfs)
				assert.True(t, f.Tmpfs, tc.tmpfs)
			}
		})
	}
}

func TestMountSubPathAndServiceAccount(t *testing.T) {
	cfg := vol("c", api.VolumeSource{ConfigMap: &api.ConfigMapVolumeSource{LocalObjectReference: ref("cfg"),
		Items: []api.KeyToPath{{Key: "level", Path: "dir/level"}, {Key: "type", Path: "type"}}}})
	scratch := vol("e", api.VolumeSource{EmptyDir: &api.EmptyDirVolumeSource{}})
	for _, tc := range []struct {
		name      string
		mounts    []api.VolumeMount
		automount *bool
		want      map[string]string // path: content ("/" for a directory)
		absent    []string
	}{
		{name: "a file by subPath", mounts: []api.VolumeMount{{Name: "c", MountPath: "/etc/type.conf", SubPath: "type"}},
			want: map[string]string{"/etc/type.conf": "charm"}, absent: []string{"/etc/dir"}},
		{name: "a directory by subPath", mounts: []api.VolumeMount{{Name: "c", MountPath: "/etc/config", SubPath: "dir"}},
			want: map[string]string{"/etc/config/level": "very"}, absent: []string{"/etc/config/type"}},
		{name: "a missing subPath is made a directory", mounts: []api.VolumeMount{{Name: "e", MountPath: "/data", SubPath: "logs"}},
			want: map[string]string{"/data": "/"}},
		{name: "the service account volume", mounts: nil,
			want: map[string]string{ServiceAccountDir + "/token": "miniplane-simulated-token:system:serviceaccount:test1:default",
				ServiceAccountDir + "/namespace": "test1", ServiceAccountDir + "/ca.crt": "CA"}},
		{name: "automount off", automount: new(bool), absent: []string{ServiceAccountDir}},
		{name: "a mount of its own there", mounts: []api.VolumeMount{{Name: "e", MountPath: ServiceAccountDir}},
			want: map[string]string{ServiceAccountDir: "/"}, absent: []string{ServiceAccountDir + "/token"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := testPod(false, nil, nil)
			pod.Spec.Volumes = []api.Volume{cfg, scratch}
			pod.Spec.Containers[0].VolumeMounts = tc.mounts
			pod.Spec.AutomountServiceAccountToken = tc.automount
			src := testSources()
			cms := src.ConfigMap
			src.ConfigMap = func(name string) (*api.ConfigMap, bool) {
				if name == "kube-root-ca.crt" {
					return &api.ConfigMap{Data: map[string]string{"ca.crt": "CA"}}, true
				}
				return cms(name)
			}
			vols, err := Volumes(pod, src)
			require.NoError(t, err)
			fs := Mount(&pod.Spec.Containers[0], vols)
			for p, content := range tc.want {
				f, ok := fs.Lookup(p)
				require.True(t, ok, p)
				if content == "/" {
					assert.True(t, f.IsDir(), p)
				} else {
					assert.Equal(t, content, f.Data, p)
				}
			}
			for _, p := range tc.absent {
				_, ok := fs.Lookup(p)
				assert.False(t, ok, p)
			}
		})
	}
}

func TestUnderSubPath(t *testing.T) {
	ct := &api.Container{VolumeMounts: []api.VolumeMount{
		{Name: "a", MountPath: "/etc/a"},
		{Name: "b", MountPath: "/etc/a/b", SubPath: "sub"},
		{Name: "c", MountPath: "/etc/resolv.conf", SubPath: "key"},
	}}
	for _, tc := range []struct {
		path string
		want bool
	}{
		{"/etc/a/x", false},
		{"/etc/a/b", true},
		{"/etc/a/b/x", true},
		{"/etc/a/bx", false},
		{"/etc/resolv.conf", true},
		{"etc/resolv.conf", true},
		{"/other", false},
	} {
		t.Run(tc.path, func(t *testing.T) {
			assert.Equal(t, tc.want, UnderSubPath(ct, tc.path))
		})
	}
}

func TestVolumeIsRemountedFromTheObjectsNow(t *testing.T) {
	cmVol := vol("cm", api.VolumeSource{ConfigMap: &api.ConfigMapVolumeSource{LocalObjectReference: api.LocalObjectReference{Name: "c"}}})
	for _, tc := range []struct {
		name          string
		vols          []api.Volume
		volume        string
		data          map[string]string
		wantUpdatable bool
		wantFile      string
		wantErr       string
	}{
		{"a configMap's new value", []api.Volume{cmVol}, "cm", map[string]string{"k": "new"}, true, "new", ""},
		{"a configMap gone", []api.Volume{cmVol}, "cm", nil, true, "", `MountVolume.SetUp failed for volume "cm" : configmap "c" not found`},
		{"an emptyDir only", []api.Volume{vol("scratch", api.VolumeSource{EmptyDir: &api.EmptyDirVolumeSource{}})}, "scratch", nil, false, "", ""},
		{"no such volume", []api.Volume{cmVol}, "nope", map[string]string{"k": "new"}, true, "", `MountVolume.SetUp failed for volume "nope" : no such volume`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := volumePod(tc.vols...)
			assert.Equal(t, tc.wantUpdatable, Updatable(pod))
			src := Sources{ConfigMap: func(name string) (*api.ConfigMap, bool) {
				return &api.ConfigMap{Data: tc.data}, tc.data != nil && name == "c"
			}}
			fs, err := Volume(pod, tc.volume, src)
			if tc.wantErr != "" {
				require.EqualError(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			got, _ := file(fs, "k")
			assert.Equal(t, tc.wantFile, got)
		})
	}
}

// TestProjectedTokenComesFromSourcesToken: a serviceAccountToken source
// holds what Sources.Token issues for its audience and lifetime (3600 s by
// default); a token that cannot be issued fails the mount as the kubelet's
// token manager does.
func TestProjectedTokenComesFromSourcesToken(t *testing.T) {
	seconds := int64(7200)
	pod := volumePod(vol("p", api.VolumeSource{Projected: &api.ProjectedVolumeSource{Sources: []api.VolumeProjection{
		{ServiceAccountToken: &api.ServiceAccountTokenProjection{Path: "default"}},
		{ServiceAccountToken: &api.ServiceAccountTokenProjection{Path: "vault", Audience: "vault", ExpirationSeconds: &seconds}},
	}}}))
	src := testSources()
	src.Token = func(audience string, expirationSeconds int64) (string, error) {
		return fmt.Sprintf("jwt(%s,%d)", audience, expirationSeconds), nil
	}
	vols, err := Volumes(pod, src)
	require.NoError(t, err)
	fs := Mount(&pod.Spec.Containers[0], vols)
	data, _ := file(fs, "/v/p/default")
	assert.Equal(t, "jwt(,3600)", data)
	data, _ = file(fs, "/v/p/vault")
	assert.Equal(t, "jwt(vault,7200)", data)

	src.Token = func(string, int64) (string, error) { return "", errors.New(`serviceaccounts "default" not found`) }
	_, err = Volumes(pod, src)
	var me *MountError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, `MountVolume.SetUp failed for volume "p" : [failed to fetch token: serviceaccounts "default" not found, failed to fetch token: serviceaccounts "default" not found]`, me.Error())
}

func TestShared(t *testing.T) {
	pod := &api.Pod{Spec: api.PodSpec{Volumes: []api.Volume{
		{Name: "scratch", VolumeSource: api.VolumeSource{EmptyDir: &api.EmptyDirVolumeSource{}}},
		{Name: "host", VolumeSource: api.VolumeSource{HostPath: &api.HostPathVolumeSource{Path: "/tmp/x"}}},
		{Name: "cfg", VolumeSource: api.VolumeSource{ConfigMap: &api.ConfigMapVolumeSource{}}},
	}}}
	ct := &api.Container{VolumeMounts: []api.VolumeMount{
		{Name: "scratch", MountPath: "/data"}, {Name: "scratch", MountPath: "/data/sub", SubPath: "a/b"},
		{Name: "host", MountPath: "/host"}, {Name: "host", MountPath: "/ro", ReadOnly: true}, {Name: "cfg", MountPath: "/etc/cfg"},
	}}
	for _, tc := range []struct {
		path, volume, rel string
		ok                bool
	}{
		{"/data/foo", "scratch", "/foo", true},
		{"/data", "scratch", "/", true},
		{"/data/sub/f", "scratch", "/a/b/f", true},
		{"/host/x/y", "host", "/x/y", true},
		{"/ro/f", "", "", false},
		{"/etc/cfg/k", "", "", false},
		{"/tmp/f", "", "", false},
	} {
		volume, rel, ok := Shared(pod, ct, tc.path)
		assert.Equal(t, []any{tc.volume, tc.rel, tc.ok}, []any{volume, rel, ok}, tc.path)
	}
}

func TestHostPath(t *testing.T) {
	node := container.FS{}
	node.Put("/tmp/x/f", container.File{Data: "hi", Mode: 0o644})
	node.Put("/tmp/xy", container.File{Data: "not under /tmp/x", Mode: 0o644})
	assert.Equal(t, container.FS{"/": container.Dir(0o755), "/f": {Data: "hi", Mode: 0o644}}, HostPath(node, "/tmp/x"))
	assert.Equal(t, container.FS{"/": container.Dir(0o755)}, HostPath(node, "/nope"), "a directory the node lacks is made")
}
