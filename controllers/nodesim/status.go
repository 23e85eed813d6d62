package nodesim

import (
	"strconv"
	"strings"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/controllers/nodesim/container"
)

// Reasons the simulated kubelet writes into pod status.
const (
	reasonContainersNotReady = "ContainersNotReady"
	reasonError              = "Error"
	reasonProbeFailed        = "ReadinessProbeFailed"
	reasonPodCompleted       = "PodCompleted"
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

// FNV-1a, 64 bits (hash/fnv's New64a), computed inline: the hash.Hash
// and the formatting it was fed through cost allocations per pod.
const (
	fnvOffset64 = 14695981039346656037
	fnvPrime64  = 1099511628211
)

func fnv1a[S ~string | ~[]byte](h uint64, s S) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime64
	}
	return h
}

// appendHex16 appends v as 16 lowercase hex digits, zero-padded (%016x).
func appendHex16(b []byte, v uint64) []byte {
	const digits = "0123456789abcdef"
	for shift := 60; shift >= 0; shift -= 4 {
		b = append(b, digits[(v>>uint(shift))&0xf])
	}
	return b
}

// containerID is a deterministic "<runtime>://<id>" for one run of one
// container: a hash of the pod's UID, the container's name and its restart
// count ("<uid>/<name>/<restarts>"), so a restarted container gets a new ID
// and a replay the same ones.
func containerID(uid api.UID, name string, restarts int32) string {
	var num [11]byte
	h := fnv1a(fnvOffset64, uid)
	h = fnv1a(h, "/")
	h = fnv1a(h, name)
	h = fnv1a(h, "/")
	h = fnv1a(h, strconv.AppendInt(num[:0], int64(restarts), 10))
	const runtime = "containerd://"
	var out [len(runtime) + 16]byte
	return string(appendHex16(append(out[:0], runtime...), h))
}

// imageID is a deterministic stand-in for an image digest:
// "<image>@sha256:<FNV-1a of image>".
func imageID(image string) string {
	const sep = "@sha256:"
	out := make([]byte, 0, len(image)+len(sep)+16)
	out = append(append(out, image...), sep...)
	return string(appendHex16(out, fnv1a(fnvOffset64, image)))
}

const notReadyPrefix = "containers with unready status: ["

// notReadyMessage names the pod's containers in Kubernetes' words.
func notReadyMessage(pod *api.Pod) string {
	var b strings.Builder
	b.WriteString(notReadyPrefix)
	for i, c := range pod.Spec.Containers {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(c.Name)
	}
	b.WriteByte(']')
	return b.String()
}

// isNotReadyMessage reports whether msg is notReadyMessage(pod), without
// building it.
func isNotReadyMessage(msg string, pod *api.Pod) bool {
	rest, ok := strings.CutPrefix(msg, notReadyPrefix)
	for i, c := range pod.Spec.Containers {
		if ok && i > 0 {
			rest, ok = strings.CutPrefix(rest, " ")
		}
		if ok {
			rest, ok = strings.CutPrefix(rest, c.Name)
		}
	}
	return ok && rest == "]"
}

// withNotReady marks ContainersReady and Ready False.
func withNotReady(b *statusBuf, pod *api.Pod, conds []api.PodCondition, now time.Time) []api.PodCondition {
	msg := b.notReadyMessage(pod)
	conds = setCondition(conds, api.ContainersReady, api.ConditionFalse, reasonContainersNotReady, msg, now)
	return setCondition(conds, api.PodReady, api.ConditionFalse, reasonContainersNotReady, msg, now)
}

// statusBuf is what a status builder builds a status in: a scratch block,
// reused from one status to the next, which the builders' results point
// into (conditions, container statuses and their states, IP lists, start
// time, Started), and the derived strings it keeps from one status to the
// next. A built status is not fit to keep: publish (share.go) turns it into
// one made of immutable pieces, shared where they can be, before it is
// handed over (client.Handover) with its write. A statusBuf is used by one
// goroutine at a time (the carriers lend them), and never copied: its
// scratch slices point into its own arrays.
type statusBuf struct {
	statusBlock

	// share hands out the immutable pieces publish makes the status of;
	// nil means none are shared: every piece is made anew.
	share *statusShare

	// pub is publish's scratch copy of the container statuses.
	pub []api.ContainerStatus

	// Derived strings kept from one use to the next, one entry each: the
	// pods of a workload share their image and container names.
	image, imageID string
	notReady       string
}

// statusBlock is the scratch memory of one built status, with room for
// the common pod's one container.
type statusBlock struct {
	conds      [4]api.PodCondition // a pod's four: Initialized, Ready, ContainersReady, PodScheduled
	containers []api.ContainerStatus
	waiting    []api.ContainerStateWaiting
	running    []api.ContainerStateRunning
	hostIPs    [1]api.HostIP
	podIPs     [1]api.PodIP
	startTime  api.Time
	yes, no    bool // what Started points at: true and false

	container0 [1]api.ContainerStatus
	waiting0   [1]api.ContainerStateWaiting
	running0   [1]api.ContainerStateRunning
}

// reset lets go of what the last status built in b refers to (the pods'
// strings and pieces), keeping the scratch memory and the cached strings.
func (b *statusBuf) reset() {
	clear(b.conds[:])
	clear(b.containers[:cap(b.containers)])
	clear(b.waiting[:cap(b.waiting)])
	clear(b.running[:cap(b.running)])
	clear(b.pub[:cap(b.pub)])
	b.hostIPs, b.podIPs, b.startTime = [1]api.HostIP{}, [1]api.PodIP{}, api.Time{}
}

// sized returns s with length n, zeroed, reusing its memory when it can.
func sized[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// imageIDOf is imageID(image), remembered from the last call.
func (b *statusBuf) imageIDOf(image string) string {
	if b.imageID == "" || b.image != image {
		b.image, b.imageID = image, imageID(image)
	}
	return b.imageID
}

// notReadyMessage is notReadyMessage(pod), remembered from the last call.
func (b *statusBuf) notReadyMessage(pod *api.Pod) string {
	if !isNotReadyMessage(b.notReady, pod) {
		b.notReady = notReadyMessage(pod)
	}
	return b.notReady
}

// ownStatus returns a copy of pod's status for a status builder to change,
// in b's scratch block: its conditions and container statuses are the
// builder's own, to change in place. What they point to (start time, IP
// lists, container states, Started) is still the pod's, shared and
// immutable: a builder replaces such a pointer, never writes through it.
func ownStatus(b *statusBuf, pod *api.Pod) api.PodStatus {
	st := pod.Status
	// Room for the four conditions a pod gets, so setCondition's appends
	// do not grow it.
	var conds []api.PodCondition
	if n := len(st.Conditions); n <= len(b.conds) {
		conds = b.conds[:n]
	} else {
		conds = make([]api.PodCondition, n)
	}
	copy(conds, st.Conditions)
	st.Conditions = conds
	if b.containers == nil {
		b.containers, b.waiting, b.running = b.container0[:0], b.waiting0[:0], b.running0[:0]
	}
	if len(st.ContainerStatuses) > 0 {
		b.containers = append(b.containers[:0], st.ContainerStatuses...)
		st.ContainerStatuses = b.containers
	}
	return st
}

// withHostIP sets the pod's host address.
func withHostIP(b *statusBuf, st *api.PodStatus, hostIP string) {
	b.hostIPs[0] = api.HostIP{IP: hostIP}
	st.HostIP, st.HostIPs = hostIP, b.hostIPs[:]
}

// withStartTime sets the pod's start time to now unless it has one.
func withStartTime(b *statusBuf, st *api.PodStatus, now time.Time) {
	if st.StartTime == nil {
		b.startTime = api.NewTime(now)
		st.StartTime = &b.startTime
	}
}

// acceptedStatus is the status the kubelet writes when it takes a pod bound
// to its node at hostIP: phase Pending, containers waiting to be created,
// Initialized True, not ready.
func acceptedStatus(b *statusBuf, pod *api.Pod, hostIP string, now time.Time) api.PodStatus {
	st := ownStatus(b, pod)
	st.Phase = api.PodPending
	withHostIP(b, &st, hostIP)
	withStartTime(b, &st, now)
	n := len(pod.Spec.Containers)
	b.containers, b.waiting, b.no = sized(b.containers, n), sized(b.waiting, n), false
	reason := container.ReasonContainerCreating
	if len(pod.Spec.InitContainers) > 0 {
		reason = container.ReasonPodInitializing // the init containers run first (life.go)
	}
	for i, c := range pod.Spec.Containers {
		b.waiting[i] = api.ContainerStateWaiting{Reason: reason}
		b.containers[i] = api.ContainerStatus{
			Name: c.Name, Image: c.Image,
			State:   api.ContainerState{Waiting: &b.waiting[i]},
			Started: &b.no,
		}
	}
	st.ContainerStatuses = b.containers
	if len(pod.Spec.InitContainers) == 0 {
		st.Conditions = setCondition(st.Conditions, api.PodInitialized, api.ConditionTrue, "", "", now)
	} else {
		names := make([]string, len(pod.Spec.InitContainers))
		st.InitContainerStatuses = make([]api.ContainerStatus, len(pod.Spec.InitContainers))
		for i, c := range pod.Spec.InitContainers {
			names[i] = c.Name
			st.InitContainerStatuses[i] = statusOf(nil, &c, true)
		}
		st.Conditions = setCondition(st.Conditions, api.PodInitialized, api.ConditionFalse, reasonContainersNotInitialized,
			"containers with incomplete status: ["+strings.Join(names, " ")+"]", now)
	}
	st.Conditions = setCondition(st.Conditions, api.PodScheduled, api.ConditionTrue, "", "", now)
	st.Conditions = withNotReady(b, pod, st.Conditions, now)
	return st
}

// startedStatus is the status of a pod whose containers the kubelet has just
// started on a node at hostIP, with podIP: phase Running, every container
// running and started but not yet ready.
func startedStatus(b *statusBuf, pod *api.Pod, hostIP, podIP string, now time.Time) api.PodStatus {
	st := ownStatus(b, pod)
	st.Phase = api.PodRunning
	withHostIP(b, &st, hostIP)
	b.podIPs[0] = api.PodIP{IP: podIP}
	st.PodIP, st.PodIPs = podIP, b.podIPs[:]
	withStartTime(b, &st, now)
	n := len(pod.Spec.Containers)
	b.containers, b.running, b.yes = sized(b.containers, n), sized(b.running, n), true
	for i, c := range pod.Spec.Containers {
		b.running[i] = api.ContainerStateRunning{StartedAt: api.NewTime(now)}
		b.containers[i] = api.ContainerStatus{
			Name: c.Name, Image: c.Image, ImageID: b.imageIDOf(c.Image),
			ContainerID: containerID(pod.Metadata.UID, c.Name, 0),
			State:       api.ContainerState{Running: &b.running[i]},
			Started:     &b.yes,
		}
	}
	st.ContainerStatuses = b.containers
	st.Conditions = setCondition(st.Conditions, api.PodInitialized, api.ConditionTrue, "", "", now)
	st.Conditions = setCondition(st.Conditions, api.PodScheduled, api.ConditionTrue, "", "", now)
	st.Conditions = withNotReady(b, pod, st.Conditions, now)
	return st
}

// readyStatus is the status of a running pod whose containers all passed
// their readiness checks: containers ready, ContainersReady and Ready True.
func readyStatus(b *statusBuf, pod *api.Pod, now time.Time) api.PodStatus {
	st := ownStatus(b, pod)
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
func probeFailedStatus(b *statusBuf, pod *api.Pod, now time.Time) api.PodStatus {
	st := ownStatus(b, pod)
	for i := range st.ContainerStatuses {
		st.ContainerStatuses[i].Ready = false
	}
	st.Conditions = withNotReady(b, pod, st.Conditions, now)
	return st
}

// Reason and message of a pod failed at its active deadline. Kubernetes:
// the kubelet's activeDeadlineHandler.
const (
	reasonDeadlineExceeded  = "DeadlineExceeded"
	messageDeadlineExceeded = "Pod was active on the node longer than the specified deadline"
)

// deadlineStatus is the status of a pod active past its deadline: its
// running containers killed (exit code 137), phase Failed, reason
// DeadlineExceeded, not ready.
func deadlineStatus(b *statusBuf, pod *api.Pod, now time.Time) api.PodStatus {
	st := ownStatus(b, pod)
	st.Phase = api.PodFailed
	st.Reason, st.Message = reasonDeadlineExceeded, messageDeadlineExceeded
	for i := range st.ContainerStatuses {
		killContainer(&st.ContainerStatuses[i], now)
	}
	st.Conditions = withNotReady(b, pod, st.Conditions, now)
	return st
}

// Reason and message of a container the kubelet cannot account for when
// it stops a pod (it never ran, or was waiting to restart). Kubernetes:
// the status manager's TerminatePod.
const (
	reasonStatusUnknown  = "ContainerStatusUnknown"
	messageStatusUnknown = "The container could not be located when the pod was terminated"
)

// stoppedStatus is the status of a pod being deleted whose containers the
// kubelet has stopped, which it writes before it confirms the deletion
// (KEP-3329, PodDisruptionConditions): each running container terminated
// with the code it exits with on SIGTERM (stopExitCode), any other not
// terminated yet marked ContainerStatusUnknown with code 137 (as the
// status manager's TerminatePod does), and the phase terminal: Succeeded
// when every container exited 0, else Failed (the kubelet's getPhase of a
// terminal pod, whatever its restartPolicy). Conditions others wrote
// (DisruptionTarget) are kept. Kubernetes: generateAPIPodStatus with
// podIsTerminal, then TerminatePod.
func stoppedStatus(b *statusBuf, pod *api.Pod, now time.Time) api.PodStatus {
	st := ownStatus(b, pod)
	succeeded := len(st.ContainerStatuses) > 0
	for i := range st.ContainerStatuses {
		cs := &st.ContainerStatuses[i]
		switch {
		case cs.State.Running != nil:
			code := stopExitCode(containerOf(pod, cs.Name))
			cs.State = api.ContainerState{Terminated: &api.ContainerStateTerminated{
				ExitCode: code, Reason: container.TerminatedReason(code),
				StartedAt: cs.State.Running.StartedAt, FinishedAt: api.NewTime(now), ContainerID: cs.ContainerID,
			}}
		case cs.State.Terminated == nil:
			cs.State = api.ContainerState{Terminated: &api.ContainerStateTerminated{
				ExitCode: exitKilled, Reason: reasonStatusUnknown, Message: messageStatusUnknown,
			}}
		}
		cs.Ready, cs.Started = false, ptr(false)
		succeeded = succeeded && cs.State.Terminated.ExitCode == 0
	}
	if succeeded {
		st.Phase = api.PodSucceeded
		st.Conditions = setCondition(st.Conditions, api.ContainersReady, api.ConditionFalse, reasonPodCompleted, "", now)
		st.Conditions = setCondition(st.Conditions, api.PodReady, api.ConditionFalse, reasonPodCompleted, "", now)
	} else {
		st.Phase = api.PodFailed
		st.Conditions = withNotReady(b, pod, st.Conditions, now)
	}
	return st
}

// stopExitCode is the code a running container exits with when the
// kubelet stops it (SIGTERM, then SIGKILL at the end of the grace period):
// 0 for one that runs its image's own server, which stops cleanly on
// SIGTERM (as nginx does); 137 (128 + SIGKILL) for one that runs a command
// the pod gives (sh -c ..., sleep), whose process is PID 1 and has no
// SIGTERM handler, so it ignores the signal and is killed.
func stopExitCode(ct *api.Container) int32 {
	if ct != nil && (len(ct.Command) > 0 || len(ct.Args) > 0) {
		return exitKilled
	}
	return 0
}

// containerOf is the pod's container named name, nil if none.
func containerOf(pod *api.Pod, name string) *api.Container {
	for i := range pod.Spec.Containers {
		if pod.Spec.Containers[i].Name == name {
			return &pod.Spec.Containers[i]
		}
	}
	return nil
}

// killContainer ends a container the kubelet kills at now: a running one
// is terminated with exit code 137 (128 + SIGKILL), a waiting one without
// a run stays as it is.
func killContainer(cs *api.ContainerStatus, now time.Time) {
	if r := cs.State.Running; r != nil {
		cs.State = api.ContainerState{Terminated: &api.ContainerStateTerminated{
			ExitCode: exitKilled, Reason: reasonError, StartedAt: r.StartedAt, FinishedAt: api.NewTime(now), ContainerID: cs.ContainerID,
		}}
	}
	cs.Ready, cs.Started = false, ptr(false)
}

// crashedStatus is the status of a running pod whose containers just exited
// with code 1. With restartPolicy Never the pod is finished: phase Failed.
// Otherwise the kubelet will restart them, so each container's restartCount
// goes up by one now and the phase stays Running.
func crashedStatus(b *statusBuf, pod *api.Pod, now time.Time) api.PodStatus {
	st := ownStatus(b, pod)
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
	st.Conditions = withNotReady(b, pod, st.Conditions, now)
	return st
}

// restartedStatus is the status of a crashed pod whose containers the
// kubelet has started again: running (not yet ready), with the run that
// ended as their last state.
func restartedStatus(b *statusBuf, pod *api.Pod, now time.Time) api.PodStatus {
	st := ownStatus(b, pod)
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
	st.Conditions = withNotReady(b, pod, st.Conditions, now)
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
