package nodesim

import (
	"fmt"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/controllers/nodesim/container"
	"github.com/miniplane/miniplane/controllers/nodesim/podenv"
)

// PodExec runs argv in the container of pod (a pod as the API server holds
// it) as a kubelet's exec runs it through the container runtime: nothing
// runs, so the command goes through the container model's grammar
// (container.Run.Execute) at the injected clock's time, over the files and
// environment the kubelet handed the container, what its own command and
// earlier exec'd commands have done to its files by now, and its shared volumes (emptyDir, hostPath) as
// the kubelet holds them now, every container's writes carried in
// (container.Run.ExecuteWith). A container that is not running gets the
// runtime's error, as a 500 InternalError Status (kube-apiserver's
// translator reports the kubelet's errors so).
func (c *Controller) PodExec(pod *api.Pod, name string, argv []string) (container.ExecResult, error) {
	if !containerRunning(pod, name) {
		return container.ExecResult{}, apierrors.NewInternalError(fmt.Errorf("error executing command in container: container %q in pod %q is not running", name, pod.Metadata.Name))
	}
	now := c.clock.Now()
	key := api.KeyOf(&pod.Metadata)
	c.mu.Lock()
	var (
		m       containerLife
		vols    map[string]container.FS
		pending []volumeWrite
	)
	if l := c.lives[key]; l != nil {
		if cl := l.find(pod, name); cl != nil {
			m, vols = *cl, l.vols // vols is replaced, never changed, by a sync
		}
	}
	if st := c.state[key]; st != nil {
		pending = st.execWrites
	}
	c.mu.Unlock()
	if !m.started.IsZero() {
		// Just after now: the command sees what the container's command
		// and the kubelet's probes did at now, and they do not see what
		// it does (ownfiles.go).
		d := now.Sub(m.started) + time.Nanosecond
		ct := findContainer(pod, name)
		if vols == nil || ct == nil {
			run := m.run.Overlay(ownFiles(m, pending, name))
			return run.Execute(argv, d), nil
		}
		node, _ := c.nodes.Get(pod.Spec.NodeName)
		started, err := podenv.Start(pod, ct, withWrites(vols, pending), c.sources(pod, node))
		if err != nil {
			return container.ExecResult{}, apierrors.NewInternalError(fmt.Errorf("error executing command in container: %w", err))
		}
		at := make([]string, len(started.Mounts))
		for i, vm := range started.Mounts {
			at[i] = vm.MountPath
		}
		run := m.run.Overlay(ownFiles(m, pending, name))
		res := run.ExecuteWith(argv, d, started.Input.FS, at)
		c.keepExecWrites(pod, ct, started.Mounts, res.Files, m.started, d)
		return res, nil
	}
	// A pod on the fast path (or a container the kubelet keeps no run of):
	// its command made no file, so it sees what the kubelet hands it.
	in, err := c.handed(pod, name)
	if err != nil {
		return container.ExecResult{}, apierrors.NewInternalError(fmt.Errorf("error executing command in container: %w", err))
	}
	return container.ExecuteIn(argv, nil, in), nil
}

// containerRunning reports whether the status of pod has its container name running.
func containerRunning(pod *api.Pod, name string) bool {
	for _, statuses := range [][]api.ContainerStatus{pod.Status.ContainerStatuses, pod.Status.InitContainerStatuses, pod.Status.EphemeralContainerStatuses} {
		for _, cs := range statuses {
			if cs.Name == name {
				return cs.State.Running != nil
			}
		}
	}
	return false
}

// handed is what the kubelet hands the container name of pod when it
// starts it: its environment and the files of its volumes.
func (c *Controller) handed(pod *api.Pod, name string) (container.Input, error) {
	ct := findContainer(pod, name)
	if ct == nil {
		return container.Input{}, fmt.Errorf("container %q not found in pod %q", name, pod.Metadata.Name)
	}
	node, _ := c.nodes.Get(pod.Spec.NodeName)
	src := c.sources(pod, node)
	vols, err := podenv.Volumes(pod, src)
	if err != nil {
		return container.Input{}, err
	}
	started, err := podenv.Start(pod, ct, vols, src)
	if err != nil {
		return container.Input{}, err
	}
	return started.Input, nil
}

// findContainer returns the container name of pod, one of its containers,
// init containers or ephemeral containers, or nil.
func findContainer(pod *api.Pod, name string) *api.Container {
	for _, cts := range [][]api.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		for i := range cts {
			if cts[i].Name == name {
				return &cts[i]
			}
		}
	}
	for i := range pod.Spec.EphemeralContainers {
		if pod.Spec.EphemeralContainers[i].Name == name {
			return &pod.Spec.EphemeralContainers[i].EphemeralContainerCommon
		}
	}
	return nil
}

// find is the kubelet's memory of pod's container (or init or ephemeral
// container) name; nil if there is none. The caller holds the controller's lock.
func (l *podLife) find(pod *api.Pod, name string) *containerLife {
	for i := range pod.Spec.Containers {
		if pod.Spec.Containers[i].Name == name && i < len(l.containers) {
			return &l.containers[i]
		}
	}
	for i := range pod.Spec.InitContainers {
		if pod.Spec.InitContainers[i].Name == name && i < len(l.inits) {
			return &l.inits[i]
		}
	}
	return l.ephemeral(name)
}

// volumeWrite is a change to a file of the pod's shared volume (its path
// in the volume); or, with no volume, to the own files of the pod's
// container in its run that started at started (its path in the
// container, At its offset into the run: ownfiles.go).
type volumeWrite struct {
	volume string
	change container.FileChange

	container string
	started   time.Time
}

// withWrites is vols with writes made: a copy, vols being shared.
func withWrites(vols map[string]container.FS, writes []volumeWrite) map[string]container.FS {
	if len(writes) == 0 {
		return vols
	}
	out := make(map[string]container.FS, len(vols))
	for k, fs := range vols {
		out[k] = fs
	}
	for _, w := range writes {
		if w.volume != "" { // not a container's own file
			out[w.volume] = applied(out[w.volume], w.change)
		}
	}
	return out
}

// keepExecWrites keeps the changes an exec'd command of container ct
// (mounted at mounts, subPathExpr expanded) made to files of the pod's
// shared volumes (emptyDir, hostPath), as a real container's writes
// there outlive the command: the next exec sees them at once, and the
// pod's next sync, queued now, carries them into the volumes, where the
// pod's other containers, and with a hostPath the node's other pods, see
// them. What it changed elsewhere, in the container's own files, the
// kubelet keeps for the container's run that started at started, the
// command having run d into it (ownfiles.go).
func (c *Controller) keepExecWrites(pod *api.Pod, ct *api.Container, mounts []api.VolumeMount, changes []container.FileChange, started time.Time, d time.Duration) {
	view := *ct
	view.VolumeMounts = mounts
	var writes []volumeWrite
	for _, ch := range changes {
		if name, rel, ok := podenv.Shared(pod, &view, ch.Path); ok {
			ch.Path = rel
			writes = append(writes, volumeWrite{volume: name, change: ch})
			continue
		}
		ch.At = d
		writes = append(writes, volumeWrite{change: ch, container: ct.Name, started: started})
	}
	if len(writes) == 0 {
		return
	}
	key := api.KeyOf(&pod.Metadata)
	c.mu.Lock()
	st := c.state[key]
	if st != nil {
		st.execWrites = append(st.execWrites, writes...)
	}
	c.mu.Unlock()
	if st != nil {
		c.queue.Add(key)
	}
}
