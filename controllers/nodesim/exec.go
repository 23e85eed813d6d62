package nodesim

import (
	"fmt"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/controllers/nodesim/container"
	"github.com/miniplane/miniplane/controllers/nodesim/podenv"
)

// Exec runs argv in the running container named container of pod, as the
// kubelet's exec (pods/exec) runs a command: through the container's
// command grammar, now into its current run, over the files the run has
// with its shared volumes (emptyDir, hostPath) as the kubelet holds them
// now, every container's writes carried in (container.Run.ExecWith). It
// returns the command's exit code and what it printed. A container that
// is not running is a BadRequest, with the kubelet's words. A pod the
// kubelet runs on its fast path (no command of its own) runs the image's
// command, which made no files: argv sees its volumes as they were
// mounted.
func (c *Controller) Exec(pod *api.Pod, containerName string, argv []string) (code int32, output string, err error) {
	ct, running := runningContainer(pod, containerName)
	if ct == nil {
		return 0, "", apierrors.NewBadRequest(fmt.Sprintf("container %s is not valid for pod %s", containerName, pod.Metadata.Name))
	}
	if !running {
		return 0, "", apierrors.NewBadRequest(fmt.Sprintf("container %s is not running in pod %s", containerName, pod.Metadata.Name))
	}
	now := c.clock.Now()
	c.mu.Lock()
	life := c.lives[api.KeyOf(&pod.Metadata)]
	var m *containerLife
	if life != nil {
		m = life.find(pod, containerName)
	}
	c.mu.Unlock()
	if m == nil || life.vols == nil || m.started.IsZero() {
		run := container.Plan(nil, nil)
		code, output = run.Exec(argv, 0)
		return code, output, nil
	}
	at := make([]string, len(ct.VolumeMounts))
	for i, vm := range ct.VolumeMounts {
		at[i] = vm.MountPath
	}
	code, output = m.run.ExecWith(argv, now.Sub(m.started), podenv.Mount(ct, life.vols), at)
	return code, output, nil
}

// runningContainer is pod's container (or init container) name, and
// whether its status says it runs.
func runningContainer(pod *api.Pod, name string) (*api.Container, bool) {
	var ct *api.Container
	for _, list := range [][]api.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		for i := range list {
			if list[i].Name == name {
				ct = &list[i]
			}
		}
	}
	for _, list := range [][]api.ContainerStatus{pod.Status.ContainerStatuses, pod.Status.InitContainerStatuses} {
		for _, cs := range list {
			if cs.Name == name {
				return ct, ct != nil && cs.State.Running != nil
			}
		}
	}
	return ct, false
}

// find is the kubelet's memory of pod's container (or init container)
// name; nil if there is none. The life is shared: the caller only reads it.
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
	return nil
}
