package podenv

import (
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/controllers/nodesim/container"
)

// DefaultPath is the PATH a container starts with unless it sets one:
// containerd's default, which busybox's and most images' own PATH equals.
const DefaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// Started is what the kubelet hands a container it starts.
type Started struct {
	// Input is its environment and filesystem.
	Input container.Input
	// Command and Args are the container's, their $(VAR) references
	// expanded.
	Command, Args []string
	// Events are the events the kubelet records meanwhile.
	Events []Event
	// Mounts are the container's volume mounts, each subPathExpr expanded
	// into its SubPath.
	Mounts []api.VolumeMount
}

// Start works out what the kubelet hands container ct of pod when it
// starts it, the pod's volumes being vols (Volumes): the environment is
// the runtime's PATH and HOSTNAME, the kubelet's variables (Variables), and
// HOME, which the runtime adds last; a variable the container sets replaces
// the runtime's in its place. The command is the container's, or its
// image's (container.Config.Argv); the files are its volumes (with each
// subPathExpr expanded), over the files the simulator knows its image
// holds (container.ImageFiles), and the files the kubelet and runtime
// write under /etc (etcFiles); its user and privileges come from the security contexts (Security).
// It fails with a ConfigError when the environment, a subPath or the user
// is refused. Kubernetes: generateContainerConfig with
// ExpandContainerCommandAndArgs and makeMounts, and containerd's WithEnv.
func Start(pod *api.Pod, ct *api.Container, vols map[string]container.FS, src Sources) (Started, error) {
	vars, events, err := Variables(pod, ct, src)
	if err != nil {
		return Started{}, err
	}
	mounts, err := subPaths(ct, vars)
	if err != nil {
		return Started{}, err
	}
	kubelet := newOrdered()
	for _, v := range vars {
		kubelet.set(v.Name, v.Value)
	}
	mapping := mappingOf(kubelet)
	st := Started{Events: events, Mounts: mounts}
	image, _ := container.ImageConfig(ct.Image)
	st.Command, st.Args = image.Argv(expandAll(ct.Command, mapping), expandAll(ct.Args, mapping))
	env := []container.EnvVar{{Name: "PATH", Value: DefaultPath}, {Name: "HOSTNAME", Value: Hostname(pod)}}
	for _, v := range vars {
		if i := indexOf(env, v.Name); i >= 0 {
			env[i].Value = v.Value
		} else {
			env = append(env, v)
		}
	}
	if indexOf(env, "HOME") < 0 {
		env = append(env, container.EnvVar{Name: "HOME", Value: "/root"})
	}
	fs := mount(mounts, vols)
	imageFiles(ct.Image, mounts, fs)
	etcFiles(pod, mounts, fs)
	st.Input = container.Input{Env: env, FS: fs}
	if err := Security(pod, ct, &st.Input); err != nil {
		return Started{}, err
	}
	return st, nil
}

func expandAll(in []string, mapping func(string) (string, bool)) []string {
	if in == nil {
		return nil
	}
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = Expand(s, mapping)
	}
	return out
}

func indexOf(env []container.EnvVar, name string) int {
	for i := range env {
		if env[i].Name == name {
			return i
		}
	}
	return -1
}

// Hostname is the pod's hostname: spec.hostname, or its name, cut to 63
// bytes without a trailing '-' or '.'. Kubernetes:
// GeneratePodHostNameAndDomain.
func Hostname(pod *api.Pod) string {
	h := pod.Spec.Hostname
	if h == "" {
		h = pod.Metadata.Name
	}
	if len(h) > 63 {
		h = strings.TrimRight(h[:63], "-.")
	}
	return h
}

// imageFiles puts into fs, the files of a container of image mounted at
// mounts, the files the simulator knows the image holds, each unless a
// volume is mounted over it: a mount hides what the image has there.
func imageFiles(image string, mounts []api.VolumeMount, fs container.FS) {
	files := container.ImageFiles(image)
	for _, p := range slices.Sorted(maps.Keys(files)) {
		hidden := slices.ContainsFunc(mounts, func(m api.VolumeMount) bool {
			at := path.Clean("/" + m.MountPath)
			return p == at || at == "/" || strings.HasPrefix(p, at+"/")
		})
		if !hidden {
			fs.Put(p, files[p])
		}
	}
}
