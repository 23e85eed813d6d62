package endpoints

import (
	"sync"
	"time"

	"github.com/miniplane/miniplane/api"
)

// AnnotationLastChangeTriggerTime records on Endpoints when the change that
// caused the latest write happened (a pod's readiness flip, or the service's
// creation), so that the delay from cause to Endpoints can be measured.
// Kubernetes: v1.EndpointsLastChangeTriggerTime.
const AnnotationLastChangeTriggerTime = "endpoints.kubernetes.io/last-change-trigger-time"

// triggerState is what the trigger-time tracker remembers of one service
// between syncs: the trigger times it saw last.
type triggerState struct {
	service time.Time            // the service's creation time
	pods    map[string]time.Time // pod name → its Ready condition's lastTransitionTime
}

// nextTriggerTime computes a sync's trigger time from the service's previous
// state (known false the first time the service is synced) and returns the
// state to remember. The first sync of a service reports its creation time;
// later ones the earliest trigger time that moved since the previous sync,
// or zero if none did. Like Kubernetes', it sees only the latest of several
// changes to one object between two syncs. Kubernetes:
// TriggerTimeTracker.ComputeEndpointLastChangeTriggerTime.
func nextTriggerTime(prev triggerState, known bool, svc *api.Service, pods []*api.Pod) (time.Time, triggerState) {
	next := triggerState{service: svc.Metadata.CreationTimestamp.Time, pods: make(map[string]time.Time, len(pods))}
	var earliest time.Time
	for _, pod := range pods {
		t := podTriggerTime(pod)
		if t.IsZero() {
			continue
		}
		next.pods[pod.Metadata.Name] = t
		if t.After(prev.pods[pod.Metadata.Name]) {
			earliest = minNonZero(earliest, t)
		}
	}
	if next.service.After(prev.service) {
		earliest = minNonZero(earliest, next.service)
	}
	if !known {
		return next.service, next
	}
	return earliest, next
}

// podTriggerTime is when the pod's Ready condition last changed; zero if it
// has none.
func podTriggerTime(pod *api.Pod) time.Time {
	for _, c := range pod.Status.Conditions {
		if c.Type == api.PodReady {
			return c.LastTransitionTime.Time
		}
	}
	return time.Time{}
}

func minNonZero(a, b time.Time) time.Time {
	switch {
	case a.IsZero():
		return b
	case b.IsZero() || a.Before(b):
		return a
	default:
		return b
	}
}

// triggerTracker keeps the trigger state of every service the controller
// syncs. The queue never syncs one service in two workers at once, so a
// service's state is read and written by one sync at a time.
type triggerTracker struct {
	// mu guards states: service key → state.
	mu     sync.Mutex
	states map[string]triggerState
}

// compute returns a sync's trigger time for a service and remembers the
// new state.
func (t *triggerTracker) compute(key string, svc *api.Service, pods []*api.Pod) time.Time {
	t.mu.Lock()
	prev, known := t.states[key]
	t.mu.Unlock()
	at, next := nextTriggerTime(prev, known, svc, pods)
	t.mu.Lock()
	t.states[key] = next
	t.mu.Unlock()
	return at
}

// forget drops a deleted service's state.
func (t *triggerTracker) forget(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.states, key)
}
