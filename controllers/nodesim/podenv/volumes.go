package podenv

import (
	"fmt"
	iofs "io/fs"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/controllers/nodesim/container"
)

// MountError is why a volume of the pod cannot be set up: a ConfigMap or
// Secret it needs is missing. Error gives the kubelet's FailedMount
// event message.
type MountError struct{ Volume, Message string }

func (e *MountError) Error() string {
	return fmt.Sprintf("MountVolume.SetUp failed for volume %q : %s", e.Volume, e.Message)
}

// ServiceAccountDir is where the kubelet mounts the service account's
// token, the cluster's CA and the pod's namespace.
const ServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// TokenPlaceholder is what a token file holds when the kubelet has no way
// to issue tokens (Sources.Token is nil): it says so instead of holding a
// JWT. %s/%s are the pod's namespace and service account.
const TokenPlaceholder = "miniplane-simulated-token:system:serviceaccount:%s:%s"

// serviceAccountVolume names the volume of the service account token in
// a Volumes result: not a valid volume name, so no pod's volume has it.
const serviceAccountVolume = "kube-api-access (simulated)"

// Volumes returns the contents of each volume of pod, by name, each an FS
// rooted at the volume's directory; or a MountError for the first volume
// that cannot be set up. Unless the pod opts out
// (automountServiceAccountToken: false), it includes a simulated service
// account volume, for pods that reach the kubelet without the
// kube-api-access-xxxxx volume admission adds (ServiceAccount admission
// off: the simulator, a bare Server); a container that mounts admission's
// volume at ServiceAccountDir sees that one instead (Mount). Kubernetes: each volume plugin's SetUpAt
// payload (configmap.MakePayload, secret.MakePayload,
// downwardapi.CollectData, projected's collectData, emptyDir).
func Volumes(pod *api.Pod, src Sources) (map[string]container.FS, error) {
	vols := make(map[string]container.FS, len(pod.Spec.Volumes)+1)
	for i := range pod.Spec.Volumes {
		v := &pod.Spec.Volumes[i]
		fs, err := volumeFS(pod, &v.VolumeSource, src)
		if err != nil {
			return nil, &MountError{Volume: v.Name, Message: err.Error()}
		}
		vols[v.Name] = fs
	}
	if pod.Spec.AutomountServiceAccountToken == nil || *pod.Spec.AutomountServiceAccountToken {
		vols[serviceAccountVolume] = tokenFS(pod, src)
	}
	return vols, nil
}

// Volume returns the contents of pod's volume name as Volumes does, from
// the objects as they are now: the kubelet's remount of it.
func Volume(pod *api.Pod, name string, src Sources) (container.FS, error) {
	if name == serviceAccountVolume {
		return tokenFS(pod, src), nil
	}
	for i := range pod.Spec.Volumes {
		if v := &pod.Spec.Volumes[i]; v.Name == name {
			fs, err := volumeFS(pod, &v.VolumeSource, src)
			if err != nil {
				return nil, &MountError{Volume: v.Name, Message: err.Error()}
			}
			return fs, nil
		}
	}
	return nil, &MountError{Volume: name, Message: "no such volume"}
}

// Updatable reports whether a volume of pod shows something that can
// change while it runs: a ConfigMap, a Secret, or the pod's own fields
// (downwardAPI, projected). The service account volume shows the
// namespace's kube-root-ca.crt, which changes only with the cluster's CA,
// and counts only through its projected twin.
func Updatable(pod *api.Pod) bool {
	for i := range pod.Spec.Volumes {
		v := &pod.Spec.Volumes[i].VolumeSource
		if v.ConfigMap != nil || v.Secret != nil || v.DownwardAPI != nil || v.Projected != nil {
			return true
		}
	}
	return false
}

// UnderSubPath reports whether the file p of container ct lies in a
// volume mounted with a subPath, which the kubelet bind-mounts once and
// never updates.
func UnderSubPath(ct *api.Container, p string) bool {
	p = path.Clean("/" + p)
	under := false
	depth := -1
	for _, m := range ct.VolumeMounts {
		at := path.Clean("/" + m.MountPath)
		if (p == at || strings.HasPrefix(p, at+"/") || at == "/") && strings.Count(at, "/") > depth {
			under, depth = m.SubPath != "" || m.SubPathExpr != "", strings.Count(at, "/")
		}
	}
	return under
}

// payload is a volume's files by path relative to its root.
type payload map[string]container.File

func volumeFS(pod *api.Pod, v *api.VolumeSource, src Sources) (container.FS, error) {
	var (
		files payload
		err   error
		tmpfs bool
	)
	switch {
	case v.ConfigMap != nil:
		files, err = configMapPayload(v.ConfigMap.Name, v.ConfigMap.Items, mode(v.ConfigMap.DefaultMode), isTrue(v.ConfigMap.Optional), src)
	case v.Secret != nil:
		tmpfs = true
		files, err = secretPayload(v.Secret.SecretName, v.Secret.Items, mode(v.Secret.DefaultMode), isTrue(v.Secret.Optional), src)
	case v.DownwardAPI != nil:
		files, err = downwardPayload(pod, v.DownwardAPI.Items, mode(v.DownwardAPI.DefaultMode), src)
	case v.Projected != nil:
		tmpfs = true
		files, err = projectedPayload(pod, v.Projected, src)
	case v.EmptyDir != nil:
		tmpfs = v.EmptyDir.Medium == "Memory"
	}
	if err != nil {
		return nil, err
	}
	root := container.Dir(0o777)
	root.Tmpfs = tmpfs
	fs := container.FS{"/": root}
	for _, p := range sortedKeys(files) {
		f := files[p]
		f.Tmpfs = tmpfs
		fs.Put(p, f)
	}
	return fs, nil
}

// mode is a volume's default file mode: the API server defaults it to
// 0644.
func mode(m *int32) iofs.FileMode {
	if m == nil {
		return 0o644
	}
	return iofs.FileMode(*m) & iofs.ModePerm
}

func itemMode(m *int32, def iofs.FileMode) iofs.FileMode {
	if m == nil {
		return def
	}
	return iofs.FileMode(*m) & iofs.ModePerm
}

// keyPayload is a ConfigMap's or Secret's keys as files: every key at its
// own name, or only items' keys at their paths; a key items names that is
// missing fails unless the source is optional. Kubernetes:
// configmap.MakePayload, secret.MakePayload.
func keyPayload(data map[string]string, items []api.KeyToPath, def iofs.FileMode, optional bool, missingKey string) (payload, error) {
	files := payload{}
	if len(items) == 0 {
		for k, v := range data {
			files[k] = container.File{Data: v, Mode: def}
		}
		return files, nil
	}
	for _, it := range items {
		v, ok := data[it.Key]
		if !ok {
			if optional {
				continue
			}
			return nil, fmt.Errorf(missingKey, it.Key)
		}
		files[it.Path] = container.File{Data: v, Mode: itemMode(it.Mode, def)}
	}
	return files, nil
}

func configMapPayload(name string, items []api.KeyToPath, def iofs.FileMode, optional bool, src Sources) (payload, error) {
	cm, ok := src.ConfigMap(name)
	if !ok {
		if optional {
			return payload{}, nil
		}
		return nil, fmt.Errorf("configmap %q not found", name)
	}
	data := make(map[string]string, len(cm.Data)+len(cm.BinaryData))
	for k, v := range cm.Data {
		data[k] = v
	}
	for k, v := range cm.BinaryData {
		data[k] = string(v)
	}
	return keyPayload(data, items, def, optional, "configmap references non-existent config key: %s")
}

func secretPayload(name string, items []api.KeyToPath, def iofs.FileMode, optional bool, src Sources) (payload, error) {
	s, ok := src.Secret(name)
	if !ok {
		if optional {
			return payload{}, nil
		}
		return nil, fmt.Errorf("secret %q not found", name)
	}
	data := make(map[string]string, len(s.Data))
	for k, v := range s.Data {
		data[k] = string(v)
	}
	return keyPayload(data, items, def, optional, "references non-existent secret key: %s")
}

// downwardPayload is a downward API volume's files: each item's pod field
// or container resource. Kubernetes: downwardapi.CollectData.
func downwardPayload(pod *api.Pod, items []api.DownwardAPIVolumeFile, def iofs.FileMode, src Sources) (payload, error) {
	files := payload{}
	var errs []string
	for _, it := range items {
		var (
			v   string
			err error
		)
		switch {
		case it.FieldRef != nil:
			v, err = fieldValue(pod, it.FieldRef.FieldPath)
		case it.ResourceFieldRef != nil:
			v, err = resourceValue(pod, nil, it.ResourceFieldRef, src.Allocatable)
		}
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		files[path.Clean(it.Path)] = container.File{Data: v, Mode: itemMode(it.Mode, def)}
	}
	if err := aggregate(errs); err != nil {
		return nil, err
	}
	return files, nil
}

// projectedPayload is a projected volume's sources, merged. Kubernetes:
// projected's collectData, whose errors are aggregated.
func projectedPayload(pod *api.Pod, p *api.ProjectedVolumeSource, src Sources) (payload, error) {
	def := mode(p.DefaultMode)
	files := payload{}
	var errs []string
	for _, s := range p.Sources {
		var (
			part payload
			err  error
		)
		switch {
		case s.ConfigMap != nil:
			part, err = configMapPayload(s.ConfigMap.Name, s.ConfigMap.Items, def, isTrue(s.ConfigMap.Optional), src)
		case s.Secret != nil:
			part, err = secretPayload(s.Secret.Name, s.Secret.Items, def, isTrue(s.Secret.Optional), src)
		case s.DownwardAPI != nil:
			part, err = downwardPayload(pod, s.DownwardAPI.Items, def, src)
		case s.ServiceAccountToken != nil:
			var tok string
			if tok, err = token(pod, s.ServiceAccountToken.Audience, s.ServiceAccountToken.ExpirationSeconds, src); err == nil {
				part = payload{s.ServiceAccountToken.Path: {Data: tok, Mode: def}}
			}
		}
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		for k, f := range part {
			files[k] = f
		}
	}
	if err := aggregate(errs); err != nil {
		return nil, err
	}
	return files, nil
}

// aggregate is errors as utilerrors.NewAggregate prints them: one alone,
// several in brackets.
func aggregate(errs []string) error {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("%s", errs[0])
	}
	return fmt.Errorf("[%s]", strings.Join(errs, ", "))
}

// token is the content of a token file: a token of pod's account from
// src.Token, valid for expirationSeconds (default 3600, kube-apiserver's),
// or TokenPlaceholder. Kubernetes: the projected volume's
// ServiceAccountToken source, which the kubelet's token manager fills
// through TokenRequest.
func token(pod *api.Pod, audience string, expirationSeconds *int64, src Sources) (string, error) {
	if src.Token == nil {
		return fmt.Sprintf(TokenPlaceholder, pod.Metadata.Namespace, pod.Spec.ServiceAccountName), nil
	}
	seconds := int64(3600)
	if expirationSeconds != nil {
		seconds = *expirationSeconds
	}
	tok, err := src.Token(audience, seconds)
	if err != nil {
		return "", fmt.Errorf("failed to fetch token: %w", err)
	}
	return tok, nil
}

// tokenFS is the service account volume: token, ca.crt (from the
// namespace's kube-root-ca.crt, when it exists) and namespace.
func tokenFS(pod *api.Pod, src Sources) container.FS {
	root := container.Dir(0o777)
	root.Tmpfs = true
	fs := container.FS{"/": root}
	// A token that cannot be issued (the account is gone) leaves the
	// placeholder: the plain path has no way to hold the pod back.
	tok, err := token(pod, "", nil, src)
	if err != nil {
		tok = fmt.Sprintf(TokenPlaceholder, pod.Metadata.Namespace, pod.Spec.ServiceAccountName)
	}
	fs.Put("token", container.File{Data: tok, Mode: 0o644, Tmpfs: true})
	fs.Put("namespace", container.File{Data: pod.Metadata.Namespace, Mode: 0o644, Tmpfs: true})
	if cm, ok := src.ConfigMap("kube-root-ca.crt"); ok {
		if ca, ok := cm.Data["ca.crt"]; ok {
			fs.Put("ca.crt", container.File{Data: ca, Mode: 0o644, Tmpfs: true})
		}
	}
	return fs
}

// Mount is the filesystem of container ct: each of its volume mounts (and
// the service account volume, unless it mounts something there itself)
// with the volume's files, or those under its subPath. A subPath that is
// not in the volume is made an empty directory, as the kubelet makes it.
func Mount(ct *api.Container, vols map[string]container.FS) container.FS {
	return mount(ct.VolumeMounts, vols)
}

// mount is the filesystem of mounts (Mount). A subPath the volume lacks,
// which the kubelet makes in the volume, shows in the volume's other
// mounts too.
func mount(mounts []api.VolumeMount, vols map[string]container.FS) container.FS {
	fs := container.FS{}
	mounts = slices.Clone(mounts)
	made := map[string][]string{} // volume name → subPaths made in it
	for _, m := range mounts {
		sub := path.Clean("/" + m.SubPath)
		if _, ok := vols[m.Name][sub]; !ok && m.SubPath != "" {
			made[m.Name] = append(made[m.Name], sub)
		}
	}
	if _, ok := vols[serviceAccountVolume]; ok && !mountsAt(mounts, ServiceAccountDir) {
		mounts = append(mounts, api.VolumeMount{Name: serviceAccountVolume, MountPath: ServiceAccountDir})
	}
	// Shallower mounts first, so that a deeper one lays over them.
	sort.SliceStable(mounts, func(i, j int) bool {
		return strings.Count(path.Clean(mounts[i].MountPath), "/") < strings.Count(path.Clean(mounts[j].MountPath), "/")
	})
	for _, m := range mounts {
		vol, ok := vols[m.Name]
		if !ok {
			continue
		}
		at := path.Clean("/" + m.MountPath)
		sub := path.Clean("/" + m.SubPath)
		top, ok := vol[sub]
		if !ok {
			top = container.Dir(0o755)
		}
		fs.Put(at, top)
		if !top.IsDir() {
			continue
		}
		for _, p := range sortedKeys(vol) {
			rel, ok := strings.CutPrefix(p, sub)
			if !ok || rel == "" || sub != "/" && rel[0] != '/' {
				continue
			}
			fs.Put(path.Join(at, rel), vol[p])
		}
		for _, p := range made[m.Name] {
			if rel, ok := strings.CutPrefix(p, sub); ok && rel != "" && (sub == "/" || rel[0] == '/') {
				fs.Put(path.Join(at, rel), container.Dir(0o755))
			}
		}
	}
	return fs
}

func mountsAt(mounts []api.VolumeMount, dir string) bool {
	for _, m := range mounts {
		if path.Clean(m.MountPath) == dir {
			return true
		}
	}
	return false
}

// Shared says where a write to the file p of container ct of pod lands
// when p lies in a volume the kubelet shares, mounted writable: an
// emptyDir (shared by the pod's containers, kept across their restarts)
// or a hostPath (a directory of the node, shared by every pod there). It
// returns the volume's name and p's path in it (under the mount's
// subPath). The deepest mount holding p is the one written to.
func Shared(pod *api.Pod, ct *api.Container, p string) (volume, rel string, ok bool) {
	p = path.Clean("/" + p)
	depth := -1
	var mount *api.VolumeMount
	for i := range ct.VolumeMounts {
		m := &ct.VolumeMounts[i]
		at := path.Clean("/" + m.MountPath)
		if (p == at || strings.HasPrefix(p, at+"/") || at == "/") && strings.Count(at, "/") > depth {
			mount, depth = m, strings.Count(at, "/")
		}
	}
	if mount == nil || mount.ReadOnly {
		return "", "", false
	}
	i := slices.IndexFunc(pod.Spec.Volumes, func(v api.Volume) bool { return v.Name == mount.Name })
	if i < 0 || pod.Spec.Volumes[i].EmptyDir == nil && pod.Spec.Volumes[i].HostPath == nil {
		return "", "", false
	}
	in, _ := strings.CutPrefix(p, path.Clean("/"+mount.MountPath))
	return mount.Name, path.Join("/", mount.SubPath, in), true
}

// HostPath is the volume of the node's directory dir, the node's files
// being node (by absolute path): the directory and what lies under it,
// rooted at the volume's root. A directory the node lacks is made (the
// DirectoryOrCreate the e2e tests ask for; the other hostPath types'
// checks are not simulated).
func HostPath(node container.FS, dir string) container.FS {
	dir = path.Clean("/" + dir)
	fs := container.FS{"/": container.Dir(0o755)}
	if d, ok := node[dir]; ok {
		fs["/"] = d
	}
	for p, f := range node {
		if rel, ok := strings.CutPrefix(p, dir); ok && strings.HasPrefix(rel, "/") {
			fs[rel] = f
		} else if ok && dir == "/" && p != "/" {
			fs[p] = f
		}
	}
	return fs
}
