package container

import (
	"time"

	"github.com/miniplane/miniplane/api"
)

// The kubelet's back-off, for restarts and for image pulls alike: 10s,
// doubled at every step up to 5 minutes, and forgotten once the last step
// is more than twice that (10 minutes) behind the event that asks
// (client-go's flowcontrol.Backoff as the kubelet makes it, without jitter).
const (
	InitialBackoff = 10 * time.Second
	MaxBackoff     = 5 * time.Minute
)

// Backoff is the kubelet's back-off for one key (a container of a pod, or
// an image of a pod): the delay it imposes now and when it last stepped.
// Its zero value is no back-off. It is a value: Next returns the next one.
type Backoff struct {
	Delay   time.Duration
	Updated time.Time
}

// expired reports whether the back-off is forgotten for an event at t:
// there is none, or its last step is more than 2×MaxBackoff before t (a
// container that ran for ten minutes starts again at 10s).
func (b Backoff) expired(t time.Time) bool {
	return b.Delay == 0 || t.Sub(b.Updated) > 2*MaxBackoff
}

// InBackoffSince reports whether, at now, an event at t (a container's
// finish) is still held back: less than Delay has passed since it.
// Kubernetes: Backoff.IsInBackOffSince, which the kubelet asks before it
// restarts an exited container (doBackOff).
func (b Backoff) InBackoffSince(t, now time.Time) bool {
	return !b.expired(t) && now.Sub(t) < b.Delay
}

// InBackoffSinceUpdate reports whether, at now, less than Delay has passed
// since the last step. Kubernetes: Backoff.IsInBackOffSinceUpdate, which the
// image manager asks before it pulls again.
func (b Backoff) InBackoffSinceUpdate(now time.Time) bool {
	return !b.expired(now) && now.Sub(b.Updated) < b.Delay
}

// Next is the back-off after a step at now for an event at t: InitialBackoff
// if the back-off was expired for t, else twice the delay, at most
// MaxBackoff. Kubernetes: Backoff.Next.
func (b Backoff) Next(t, now time.Time) Backoff {
	if b.expired(t) {
		return Backoff{Delay: InitialBackoff, Updated: now}
	}
	return Backoff{Delay: min(2*b.Delay, MaxBackoff), Updated: now}
}

// Due is when an event at t stops being held back by b.
func (b Backoff) Due(t time.Time) time.Time {
	if b.expired(t) {
		return t
	}
	return t.Add(b.Delay)
}

// ShouldRestart reports whether the kubelet restarts a container that
// exited with exitCode under the pod's restartPolicy: Always (the
// default) restarts every exit, OnFailure a non-zero one, Never none.
func ShouldRestart(policy api.RestartPolicy, exitCode int32) bool {
	switch policy {
	case api.RestartPolicyNever:
		return false
	case api.RestartPolicyOnFailure:
		return exitCode != 0
	}
	return true
}

// Reasons a container's state carries.
const (
	ReasonCompleted         = "Completed"
	ReasonError             = "Error"
	ReasonCrashLoopBackOff  = "CrashLoopBackOff"
	ReasonContainerCreating = "ContainerCreating"
	// ReasonPodInitializing: the container waits for the pod's init
	// containers to complete.
	ReasonPodInitializing   = "PodInitializing"
	ReasonErrImagePull      = "ErrImagePull"
	ReasonImagePullBackOff  = "ImagePullBackOff"
	ReasonErrImageNeverPull = "ErrImageNeverPull"
	ReasonInvalidImageName  = "InvalidImageName"
	// ReasonCreateContainerConfigError: the kubelet cannot make the
	// container's environment (a ConfigMap, Secret or key is missing).
	ReasonCreateContainerConfigError = "CreateContainerConfigError"
)

// TerminatedReason is the reason of a run that exited with exitCode, as
// the container runtime reports it: Completed for 0, else Error.
func TerminatedReason(exitCode int32) string {
	if exitCode == 0 {
		return ReasonCompleted
	}
	return ReasonError
}

// PodRef names a pod as the kubelet's messages do (format.Pod):
// NAME_NAMESPACE(UID).
func PodRef(pod *api.Pod) string {
	return pod.Metadata.Name + "_" + pod.Metadata.Namespace + "(" + string(pod.Metadata.UID) + ")"
}

// CrashLoopMessage is the message of a container's CrashLoopBackOff state,
// in the kubelet's words (doBackOff).
func CrashLoopMessage(delay time.Duration, container string, pod *api.Pod) string {
	return "back-off " + delay.String() + " restarting failed container=" + container + " pod=" + PodRef(pod)
}

// Phase is the phase a pod's containers give it, as the kubelet's getPhase
// works it out: Pending while a container waits that never ran; Running
// while one runs, or all have stopped and some will restart; else, all
// stopped for good, Succeeded if every one exited 0 and Failed if not.
func Phase(policy api.RestartPolicy, statuses []api.ContainerStatus) api.PodPhase {
	var running, waiting, stopped, succeeded int
	for i := range statuses {
		s := &statuses[i]
		switch {
		case s.State.Running != nil:
			running++
		case s.State.Terminated != nil:
			stopped++
			if s.State.Terminated.ExitCode == 0 {
				succeeded++
			}
		case s.LastTerminationState.Terminated != nil:
			stopped++ // waiting to restart
		default:
			waiting++
		}
	}
	switch {
	case waiting > 0:
		return api.PodPending
	case running > 0:
		return api.PodRunning
	case stopped > 0:
		if policy == api.RestartPolicyAlways || policy == "" {
			return api.PodRunning
		}
		if stopped == succeeded {
			return api.PodSucceeded
		}
		if policy == api.RestartPolicyNever {
			return api.PodFailed
		}
		return api.PodRunning
	}
	return api.PodPending
}
