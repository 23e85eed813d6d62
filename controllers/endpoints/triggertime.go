package endpoints

import (
	"cmp"
	"slices"
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
	service time.Time    // the service's creation time
	pods    []podTrigger // by pod name, sorted: each pod's Ready condition's lastTransitionTime
}

// podTrigger is a pod's trigger time.
type podTrigger struct {
	name string
	at   time.Time
}

// nextTriggerTime computes a sync's trigger time from the service's previous
// state (known false the first time the service is synced) and returns the
// state to remember, whose pods are appended to buf (which must not share
// prev's array: a sync reuses the array of the state before prev). The
// first sync of a service reports its creation time; later ones the
// earliest trigger time that moved since the previous sync, or zero if none
// did. Like Kubernetes', it sees only the latest of several changes to one
// object between two syncs. Kubernetes:
// TriggerTimeTracker.ComputeEndpointLastChangeTriggerTime.
func nextTriggerTime(prev triggerState, known bool, svc *api.Service, pods []*api.Pod, buf []podTrigger) (time.Time, triggerState) {
	next := triggerState{service: svc.Metadata.CreationTimestamp.Time, pods: buf[:0]}
	for _, pod := range pods {
		if t := podTriggerTime(pod); !t.IsZero() {
			next.pods = append(next.pods, podTrigger{pod.Metadata.Name, t})
		}
	}
	// The controller lists pods in key order, which for one namespace is
	// name order; sort only what came otherwise.
	byName := func(a, b podTrigger) int { return cmp.Compare(a.name, b.name) }
	if !slices.IsSortedFunc(next.pods, byName) {
		slices.SortFunc(next.pods, byName)
	}
	// Both lists are sorted by name: walk them together. A pod's name in
	// both is usually one string, shared by its versions, so most
	// comparisons stop at the pointer.
	var earliest time.Time
	j := 0
	for _, p := range next.pods {
		for j < len(prev.pods) && prev.pods[j].name < p.name {
			j++
		}
		var before time.Time
		if j < len(prev.pods) && prev.pods[j].name == p.name {
			before = prev.pods[j].at
		}
		if p.at.After(before) {
			earliest = minNonZero(earliest, p.at)
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
// has none. It reads the conditions in place: every sync reads every pod's.
func podTriggerTime(pod *api.Pod) time.Time {
	cs := pod.Status.Conditions
	for i := range cs {
		if cs[i].Type == api.PodReady {
			return cs[i].LastTransitionTime.Time
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
	states map[string]*trackedService
}

// trackedService is a service's state, and the array of the state before
// it, which the next sync fills: a service's syncs allocate nothing here.
type trackedService struct {
	state triggerState
	spare []podTrigger
}

// compute returns a sync's trigger time for a service and remembers the
// new state.
func (t *triggerTracker) compute(key string, svc *api.Service, pods []*api.Pod) time.Time {
	t.mu.Lock()
	ts, known := t.states[key]
	if !known {
		ts = &trackedService{}
		t.states[key] = ts
	}
	t.mu.Unlock()
	// Only this sync touches ts: the queue syncs a key in one worker at
	// a time, and forget only drops it from the map.
	at, next := nextTriggerTime(ts.state, known, svc, pods, ts.spare)
	ts.spare, ts.state = ts.state.pods, next
	return at
}

// forget drops a deleted service's state.
func (t *triggerTracker) forget(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.states, key)
}
