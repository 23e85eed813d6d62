package nodesim

import (
	"fmt"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/controllers/nodesim/container"
	"github.com/miniplane/miniplane/controllers/nodesim/podenv"
)

// PodExec runs argv in the container of pod (a pod as the API server holds
// it) as a kubelet's exec runs it through the container runtime: nothing
// runs, so the command goes through the container model's grammar
// (container.Run.Execute) at the injected clock's time, over the files and
// environment the kubelet handed the container and what its own command
// has done to its files by now. A container that is not running gets the
// runtime's error, as a 500 InternalError Status (kube-apiserver's
// translator reports the kubelet's errors so).
func (c *Controller) PodExec(pod *api.Pod, name string, argv []string) (container.ExecResult, error) {
	if !containerRunning(pod, name) {
		return container.ExecResult{}, apierrors.NewInternalError(fmt.Errorf("error executing command in container: container %q in pod %q is not running", name, pod.Metadata.Name))
	}
	now := c.clock.Now()
	key := api.KeyOf(&pod.Metadata)
	c.mu.Lock()
	l := c.lives[key]
	if l != nil {
		for i, ct := range pod.Spec.Containers {
			if ct.Name != name || i >= len(l.containers) || l.containers[i].started.IsZero() {
				continue
			}
			m := l.containers[i]
			c.mu.Unlock()
			return m.run.Execute(argv, now.Sub(m.started)), nil
		}
	}
	c.mu.Unlock()
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
	for _, statuses := range [][]api.ContainerStatus{pod.Status.ContainerStatuses, pod.Status.InitContainerStatuses} {
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

// findContainer returns the container name of pod, one of its containers
// or init containers, or nil.
func findContainer(pod *api.Pod, name string) *api.Container {
	for _, cts := range [][]api.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		for i := range cts {
			if cts[i].Name == name {
				return &cts[i]
			}
		}
	}
	return nil
}
