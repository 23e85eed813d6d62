package nodesim

import (
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/controllers/nodesim/container"
)

// Ephemeral containers are added to a running pod (its ephemeralcontainers
// subresource, kubectl debug). The kubelet starts each one it has not seen,
// as any container of the pod: its image pulled, its command run by the
// container model, its log kept, exec reaching it. It never restarts one
// (an implicit restartPolicy Never), an ephemeral container is never
// ready, and none counts in the pod's phase or readiness. Kubernetes:
// kubeletruntime's computePodActions (EphemeralContainersToStart) and
// convertToAPIContainerStatuses for pod.Status.EphemeralContainerStatuses.

// ephemeralLife is the kubelet's memory of one ephemeral container, by
// name: ephemeral containers are only added, but in any place of the list.
type ephemeralLife struct {
	name string
	containerLife
}

// withEphemerals is l with a memory for each ephemeral container of pod it
// has none for: l itself when there is none new, else a copy (l is shared
// with syncs and exec).
func (l *podLife) withEphemerals(pod *api.Pod, images container.Images) *podLife {
	out := l
	for i := range pod.Spec.EphemeralContainers {
		ct := &pod.Spec.EphemeralContainers[i].EphemeralContainerCommon
		if l.ephemeral(ct.Name) != nil {
			continue
		}
		if out == l {
			out = l.clone()
		}
		e := ephemeralLife{name: ct.Name}
		e.run = container.Plan(ct.Command, ct.Args)
		e.pull, e.pullErr = images.Pull(ct.Image)
		out.ephemerals = append(out.ephemerals, e)
	}
	return out
}

// ephemeral is the memory of the ephemeral container name, or nil.
func (l *podLife) ephemeral(name string) *containerLife {
	for i := range l.ephemerals {
		if l.ephemerals[i].name == name {
			return &l.ephemerals[i].containerLife
		}
	}
	return nil
}

// stepEphemerals moves the pod's ephemeral containers on, once its
// containers may run (mounted and initialized), and returns their
// statuses, in the spec's order.
func (s *lifeStep) stepEphemerals(pod *api.Pod, old []api.ContainerStatus, running bool, f lifeFacts) []api.ContainerStatus {
	ecs := pod.Spec.EphemeralContainers
	if len(ecs) == 0 {
		return nil
	}
	view := *pod // never restarted
	view.Spec.RestartPolicy = api.RestartPolicyNever
	statuses := make([]api.ContainerStatus, len(ecs))
	for i := range ecs {
		ct := &ecs[i].EphemeralContainerCommon
		cs := statusOf(old, ct, false)
		if m := s.life.ephemeral(ct.Name); m != nil && running {
			s.stepContainer(&view, ct, &cs, m, f)
		}
		cs.Ready = false
		statuses[i] = cs
	}
	return statuses
}

// adoptedLife is the kubelet's memory of a pod on the fast path that moves
// to the life path when an ephemeral container is added to it: its
// running containers carry on (pulled, started when their status says,
// what they printed by now taken as printed), and its ephemeral
// containers start.
func adoptedLife(pod *api.Pod, images container.Images, now time.Time) *podLife {
	l := newLife(pod, images)
	for i := range pod.Spec.Containers {
		m := &l.containers[i]
		cs := statusOf(pod.Status.ContainerStatuses, &pod.Spec.Containers[i], false)
		if cs.State.Running == nil {
			continue
		}
		m.pulled, m.started = true, cs.State.Running.StartedAt.Time
		for line, ok := m.run.Line(m.printed); ok && !m.started.Add(line.At).After(now); line, ok = m.run.Line(m.printed) {
			m.printed++
		}
	}
	return l
}
