package api

import "fmt"

// PodReadiness counts a pod's ready containers, its containers, and their
// restarts: kubectl's READY ("1/2") and RESTARTS columns.
func PodReadiness(p *Pod) (ready, total int, restarts int64) {
	total = len(p.Spec.Containers)
	for _, cs := range p.Status.ContainerStatuses {
		restarts += int64(cs.RestartCount)
		if cs.Ready && cs.State.Running != nil {
			ready++
		}
	}
	return ready, total, restarts
}

// PodStatusReason is the STATUS column `kubectl get pods` prints: the
// phase, or the reason a container is waiting or has terminated
// (ContainerCreating, CrashLoopBackOff, ImagePullBackOff, Completed,
// Error, ...), Init:n/m while init containers run, and Terminating once
// deletion began. The API server's pod Table and the page's counts both
// print it, so that they agree with each other and with kubectl.
// Kubernetes: printPod in pkg/printers/internalversion/printers.go.
func PodStatusReason(p *Pod) string {
	reason := string(p.Status.Phase)
	if p.Status.Reason != "" {
		reason = p.Status.Reason
	}
	initializing := false
	for i, cs := range p.Status.InitContainerStatuses {
		switch {
		case cs.State.Terminated != nil && cs.State.Terminated.ExitCode == 0:
			continue
		case cs.State.Terminated != nil:
			reason = "Init:" + terminatedReason(cs.State.Terminated)
		case cs.State.Waiting != nil && cs.State.Waiting.Reason != "" && cs.State.Waiting.Reason != "PodInitializing":
			reason = "Init:" + cs.State.Waiting.Reason
		default:
			reason = fmt.Sprintf("Init:%d/%d", i, len(p.Spec.InitContainers))
		}
		initializing = true
		break
	}
	if !initializing {
		running := false
		for i := len(p.Status.ContainerStatuses) - 1; i >= 0; i-- {
			cs := p.Status.ContainerStatuses[i]
			switch {
			case cs.State.Waiting != nil && cs.State.Waiting.Reason != "":
				reason = cs.State.Waiting.Reason
			case cs.State.Terminated != nil:
				reason = terminatedReason(cs.State.Terminated)
			case cs.State.Running != nil && cs.Ready:
				running = true
			}
		}
		if reason == "Completed" && running {
			reason = string(PodRunning)
			if !IsPodReady(p) {
				reason = "NotReady"
			}
		}
	}
	if p.Metadata.DeletionTimestamp != nil {
		reason = "Terminating"
	}
	return reason
}

// terminatedReason is a terminated container's reason, else its signal,
// else its exit code, as kubectl prints them.
func terminatedReason(t *ContainerStateTerminated) string {
	switch {
	case t.Reason != "":
		return t.Reason
	case t.Signal != 0:
		return fmt.Sprintf("Signal:%d", t.Signal)
	}
	return fmt.Sprintf("ExitCode:%d", t.ExitCode)
}
