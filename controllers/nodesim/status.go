package nodesim

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"time"

	"github.com/miniplane/miniplane/api"
)

// Reasons the simulated kubelet and node lifecycle write into pod status.
const (
	reasonContainersNotReady = "ContainersNotReady"
	reasonNodeNotReady       = "NodeNotReady"
	reasonNodeLost           = "NodeLost"
	reasonUnschedulable      = "Unschedulable"
	reasonError              = "Error"
	reasonProbeFailed        = "ReadinessProbeFailed"
)

// setCondition returns conds with the condition of typ set to status,
// reason and message. Its lastTransitionTime moves to now only when its
// status changes, as in Kubernetes. conds must be the caller's own (the
// status builders copy the pod's, ownStatus): it is changed in place.
func setCondition(conds []api.PodCondition, typ api.PodConditionType, status api.ConditionStatus, reason, message string, now time.Time) []api.PodCondition {
	out := conds
	for i := range out {
		if out[i].Type != typ {
			continue
		}
		if out[i].Status != status {
			out[i].LastTransitionTime = api.NewTime(now)
		}
		out[i].Status, out[i].Reason, out[i].Message = status, reason, message
		return out
	}
	return append(out, api.PodCondition{Type: typ, Status: status, Reason: reason, Message: message, LastTransitionTime: api.NewTime(now)})
}

// conditionOf returns the pod's condition of typ, if it has one.
func conditionOf(pod *api.Pod, typ api.PodConditionType) (api.PodCondition, bool) {
	for _, c := range pod.Status.Conditions {
		if c.Type == typ {
			return c, true
		}
	}
	return api.PodCondition{}, false
}

// containerID is a deterministic "<runtime>://<id>" for one run of one
// container: a hash of the pod's UID, the container's name and its restart
// count, so a restarted container gets a new ID and a replay the same ones.
func containerID(uid api.UID, name string, restarts int32) string {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%s/%d", uid, name, restarts)
	return fmt.Sprintf("containerd://%016x", h.Sum64())
}

// imageID is a deterministic stand-in for an image digest.
func imageID(image string) string {
	h := fnv.New64a()
	h.Write([]byte(image))
	return fmt.Sprintf("%s@sha256:%016x", image, h.Sum64())
}

// notReadyMessage names the pod's containers in Kubernetes' words.
func notReadyMessage(pod *api.Pod) string {
	var b strings.Builder
	b.WriteString("containers with unready status: [")
	for i, c := range pod.Spec.Containers {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(c.Name)
	}
	b.WriteByte(']')
	return b.String()
}

// withNotReady marks ContainersReady and Ready False.
func withNotReady(pod *api.Pod, conds []api.PodCondition, now time.Time) []api.PodCondition {
	msg := notReadyMessage(pod)
	conds = setCondition(conds, api.ContainersReady, api.ConditionFalse, reasonContainersNotReady, msg, now)
	return setCondition(conds, api.PodReady, api.ConditionFalse, reasonContainersNotReady, msg, now)
}

// ownStatus returns a copy of pod's status for a status builder to change:
// its conditions are the builder's own, and its container statuses too when
// containers is set (the builders that change them in place); the rest is
// shared with the cached pod, to be replaced, never changed in place. No
// deep copy is needed: the API server copies the status it stores.
func ownStatus(pod *api.Pod, containers bool) api.PodStatus {
	st := pod.Status
	// Room for the four conditions a pod gets, so setCondition's appends
	// do not grow it.
	conds := make([]api.PodCondition, len(st.Conditions), max(len(st.Conditions), 4))
	copy(conds, st.Conditions)
	st.Conditions = conds
	if containers {
		st.ContainerStatuses = slices.Clone(st.ContainerStatuses)
	}
	return st
}

// acceptedStatus is the status the kubelet writes when it takes a pod bound
// to its node at hostIP: phase Pending, containers waiting to be created,
// Initialized True, not ready.
func acceptedStatus(pod *api.Pod, hostIP string, now time.Time) api.PodStatus {
	st := ownStatus(pod, false)
	st.Phase = api.PodPending
	st.HostIP, st.HostIPs = hostIP, []api.HostIP{{IP: hostIP}}
	if st.StartTime == nil {
		t := api.NewTime(now)
		st.StartTime = &t
	}
	st.ContainerStatuses = make([]api.ContainerStatus, len(pod.Spec.Containers))
	for i, c := range pod.Spec.Containers {
		st.ContainerStatuses[i] = api.ContainerStatus{
			Name: c.Name, Image: c.Image,
			State:   api.ContainerState{Waiting: &api.ContainerStateWaiting{Reason: "ContainerCreating"}},
			Started: ptr(false),
		}
	}
	st.Conditions = setCondition(st.Conditions, api.PodInitialized, api.ConditionTrue, "", "", now)
	st.Conditions = setCondition(st.Conditions, api.PodScheduled, api.ConditionTrue, "", "", now)
	st.Conditions = withNotReady(pod, st.Conditions, now)
	return st
}

// startedStatus is the status of a pod whose containers the kubelet has just
// started on a node at hostIP, with podIP: phase Running, every container
// running and started but not yet ready.
func startedStatus(pod *api.Pod, hostIP, podIP string, now time.Time) api.PodStatus {
	st := ownStatus(pod, false)
	st.Phase = api.PodRunning
	st.HostIP, st.HostIPs = hostIP, []api.HostIP{{IP: hostIP}}
	st.PodIP, st.PodIPs = podIP, []api.PodIP{{IP: podIP}}
	if st.StartTime == nil {
		t := api.NewTime(now)
		st.StartTime = &t
	}
	st.ContainerStatuses = make([]api.ContainerStatus, len(pod.Spec.Containers))
	for i, c := range pod.Spec.Containers {
		st.ContainerStatuses[i] = api.ContainerStatus{
			Name: c.Name, Image: c.Image, ImageID: imageID(c.Image),
			ContainerID: containerID(pod.Metadata.UID, c.Name, 0),
			State:       api.ContainerState{Running: &api.ContainerStateRunning{StartedAt: api.NewTime(now)}},
			Started:     ptr(true),
		}
	}
	st.Conditions = setCondition(st.Conditions, api.PodInitialized, api.ConditionTrue, "", "", now)
	st.Conditions = setCondition(st.Conditions, api.PodScheduled, api.ConditionTrue, "", "", now)
	st.Conditions = withNotReady(pod, st.Conditions, now)
	return st
}

// readyStatus is the status of a running pod whose containers all passed
// their readiness checks: containers ready, ContainersReady and Ready True.
func readyStatus(pod *api.Pod, now time.Time) api.PodStatus {
	st := ownStatus(pod, true)
	markReady(&st, now)
	return st
}

// markReady makes st, a status the caller owns (its conditions and
// container statuses too, as a builder returns them), the one readyStatus
// returns: a builder's result made ready in the same write, without
// copying it again.
func markReady(st *api.PodStatus, now time.Time) {
	for i := range st.ContainerStatuses {
		st.ContainerStatuses[i].Ready = true
	}
	st.Conditions = setCondition(st.Conditions, api.ContainersReady, api.ConditionTrue, "", "", now)
	st.Conditions = setCondition(st.Conditions, api.PodReady, api.ConditionTrue, "", "", now)
}

// probeFailedStatus is the status of a running pod whose readiness checks
// fail (SetPodReady false): containers not ready, ContainersReady and Ready
// False; the containers keep running.
func probeFailedStatus(pod *api.Pod, now time.Time) api.PodStatus {
	st := ownStatus(pod, true)
	for i := range st.ContainerStatuses {
		st.ContainerStatuses[i].Ready = false
	}
	st.Conditions = withNotReady(pod, st.Conditions, now)
	return st
}

// nodeNotReadyStatus is what the node lifecycle controller writes for a pod
// on a node that stopped reporting: only the Ready condition goes False; the
// containers' state is unknown, so it is left alone.
func nodeNotReadyStatus(pod *api.Pod, now time.Time) api.PodStatus {
	st := ownStatus(pod, false)
	st.Conditions = setCondition(st.Conditions, api.PodReady, api.ConditionFalse, reasonNodeNotReady,
		fmt.Sprintf("node %s is not ready", pod.Spec.NodeName), now)
	return st
}

// nodeLostStatus is the status of a pod given up on because its node stayed
// down past the eviction timeout: phase Failed, reason NodeLost, not ready.
func nodeLostStatus(pod *api.Pod, now time.Time) api.PodStatus {
	st := ownStatus(pod, true)
	st.Phase = api.PodFailed
	st.Reason = reasonNodeLost
	st.Message = fmt.Sprintf("Node %s which was running pod %s is unresponsive", pod.Spec.NodeName, pod.Metadata.Name)
	for i := range st.ContainerStatuses {
		st.ContainerStatuses[i].Ready = false
	}
	st.Conditions = withNotReady(pod, st.Conditions, now)
	return st
}

// crashedStatus is the status of a running pod whose containers just exited
// with code 1. With restartPolicy Never the pod is finished: phase Failed.
// Otherwise the kubelet will restart them, so each container's restartCount
// goes up by one now and the phase stays Running.
func crashedStatus(pod *api.Pod, now time.Time) api.PodStatus {
	st := ownStatus(pod, true)
	restart := pod.Spec.RestartPolicy != api.RestartPolicyNever
	for i := range st.ContainerStatuses {
		cs := &st.ContainerStatuses[i]
		var started api.Time
		if cs.State.Running != nil {
			started = cs.State.Running.StartedAt
		}
		cs.State = api.ContainerState{Terminated: &api.ContainerStateTerminated{
			ExitCode: 1, Reason: reasonError, StartedAt: started, FinishedAt: api.NewTime(now), ContainerID: cs.ContainerID,
		}}
		cs.Ready, cs.Started = false, ptr(false)
		if restart {
			cs.RestartCount++
		}
	}
	if !restart {
		st.Phase = api.PodFailed
	}
	st.Conditions = withNotReady(pod, st.Conditions, now)
	return st
}

// restartedStatus is the status of a crashed pod whose containers the
// kubelet has started again: running (not yet ready), with the run that
// ended as their last state.
func restartedStatus(pod *api.Pod, now time.Time) api.PodStatus {
	st := ownStatus(pod, true)
	for i := range st.ContainerStatuses {
		cs := &st.ContainerStatuses[i]
		if cs.State.Terminated == nil {
			continue
		}
		cs.LastTerminationState = cs.State
		cs.State = api.ContainerState{Running: &api.ContainerStateRunning{StartedAt: api.NewTime(now)}}
		cs.ContainerID = containerID(pod.Metadata.UID, cs.Name, cs.RestartCount)
		cs.Ready, cs.Started = false, ptr(true)
	}
	st.Conditions = withNotReady(pod, st.Conditions, now)
	return st
}

// unschedulableStatus is the status of a pending pod no node can take.
func unschedulableStatus(pod *api.Pod, message string, now time.Time) api.PodStatus {
	st := ownStatus(pod, false)
	st.Conditions = setCondition(st.Conditions, api.PodScheduled, api.ConditionFalse, reasonUnschedulable, message, now)
	return st
}

// crashed reports whether any of the pod's containers has exited.
func crashed(pod *api.Pod) bool {
	for _, cs := range pod.Status.ContainerStatuses {
		if cs.State.Terminated != nil {
			return true
		}
	}
	return false
}

func ptr[T any](v T) *T { return &v }
