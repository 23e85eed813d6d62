package apiserver

// Typed equality of the statuses a status update compares most: the answer
// of reflect.DeepEqual, without reflection. A pod's status update asks
// whether the status changed at all (statusHooks.same), twice per pod in a
// scale-up, and reflect.DeepEqual walked the whole PodStatus to answer.
//
// Each function answers exactly what reflect.DeepEqual answers for the same
// values, so that an update is written, or found a no-op, as before:
//   - a nil slice differs from an empty one, and two slices sharing their
//     first element and length are equal without a look at the elements;
//   - a nil pointer differs from a non-nil one; two non-nil pointers are
//     equal when what they point to is;
//   - two times are equal when their wall clock, monotonic reading and
//     location (compared deeply) are: == answers that when it says yes, and
//     reflect.DeepEqual when it says no (another *time.Location of the same
//     contents).
// TestEqualPodStatusIsDeepEqual checks this on generated statuses; its
// generator fills every field reflection finds, so a field added to one of
// these types and not compared here makes it fail.

import (
	"reflect"

	"github.com/miniplane/miniplane/api"
)

// statusEqual returns the equality statusHooks.same uses for statuses of
// type S: a typed one for the statuses that have one, reflect.DeepEqual for
// the others.
func statusEqual[S any]() func(a, b *S) bool {
	if eq, ok := any(equalPodStatus).(func(a, b *S) bool); ok {
		return eq
	}
	return func(a, b *S) bool { return reflect.DeepEqual(a, b) }
}

// equalPodStatus reports whether reflect.DeepEqual(a, b).
func equalPodStatus(a, b *api.PodStatus) bool {
	if a == b {
		return true
	}
	return a.Phase == b.Phase && a.Message == b.Message && a.Reason == b.Reason && a.NominatedNodeName == b.NominatedNodeName &&
		a.HostIP == b.HostIP && a.PodIP == b.PodIP && a.QOSClass == b.QOSClass &&
		equalSlices(a.Conditions, b.Conditions, equalPodCondition) &&
		equalSlices(a.HostIPs, b.HostIPs, func(x, y *api.HostIP) bool { return *x == *y }) &&
		equalSlices(a.PodIPs, b.PodIPs, func(x, y *api.PodIP) bool { return *x == *y }) &&
		equalPointers(a.StartTime, b.StartTime, equalTime) &&
		equalSlices(a.InitContainerStatuses, b.InitContainerStatuses, equalContainerStatus) &&
		equalSlices(a.ContainerStatuses, b.ContainerStatuses, equalContainerStatus) &&
		equalSlices(a.EphemeralContainerStatuses, b.EphemeralContainerStatuses, equalContainerStatus)
}

func equalPodCondition(a, b *api.PodCondition) bool {
	return a.Type == b.Type && a.Status == b.Status && a.Reason == b.Reason && a.Message == b.Message &&
		equalTime(&a.LastProbeTime, &b.LastProbeTime) && equalTime(&a.LastTransitionTime, &b.LastTransitionTime)
}

func equalContainerStatus(a, b *api.ContainerStatus) bool {
	return a.Name == b.Name && a.Ready == b.Ready && a.RestartCount == b.RestartCount &&
		a.Image == b.Image && a.ImageID == b.ImageID && a.ContainerID == b.ContainerID &&
		equalPointers(a.Started, b.Started, func(x, y *bool) bool { return *x == *y }) &&
		equalContainerState(&a.State, &b.State) && equalContainerState(&a.LastTerminationState, &b.LastTerminationState)
}

func equalContainerState(a, b *api.ContainerState) bool {
	return equalPointers(a.Waiting, b.Waiting, func(x, y *api.ContainerStateWaiting) bool { return *x == *y }) &&
		equalPointers(a.Running, b.Running, func(x, y *api.ContainerStateRunning) bool { return equalTime(&x.StartedAt, &y.StartedAt) }) &&
		equalPointers(a.Terminated, b.Terminated, equalContainerStateTerminated)
}

func equalContainerStateTerminated(a, b *api.ContainerStateTerminated) bool {
	return a.ExitCode == b.ExitCode && a.Signal == b.Signal && a.Reason == b.Reason &&
		a.Message == b.Message && a.ContainerID == b.ContainerID &&
		equalTime(&a.StartedAt, &b.StartedAt) && equalTime(&a.FinishedAt, &b.FinishedAt)
}

// equalTime is reflect.DeepEqual of two times (see the file comment).
func equalTime(a, b *api.Time) bool {
	return a.Time == b.Time || reflect.DeepEqual(a, b)
}

// equalSlices is reflect.DeepEqual of two slices whose elements eq compares.
func equalSlices[E any](a, b []E, eq func(x, y *E) bool) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true
	}
	for i := range a {
		if !eq(&a[i], &b[i]) {
			return false
		}
	}
	return true
}

// equalPointers is reflect.DeepEqual of two pointers whose targets eq
// compares.
func equalPointers[E any](a, b *E, eq func(x, y *E) bool) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a == b || eq(a, b)
}
