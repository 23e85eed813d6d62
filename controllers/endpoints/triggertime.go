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

// triggerState is what the controller remembers of one service between
// syncs: the trigger times it saw last, and the pods it saw them on.
type triggerState struct {
	service time.Time // the service's creation time
	// svc is the service version the pods were read for, nil in a state
	// made by hand: mayServe of pods is for it.
	svc *api.Service
	// pods are the selected pods, sorted by name: each pod's Ready
	// condition's lastTransitionTime, and the version read.
	pods []podTrigger
}

// podTrigger is a pod's trigger time, and what the sync that read it
// remembers of the pod version it read.
type podTrigger struct {
	name string
	at   time.Time
	// pod is the version read if it may serve, else nil. A later sync
	// that lists the same pointer lists the same pod, as cached objects
	// are immutable (DESIGN.md, "Contracts every package keeps"), and
	// the state holding it keeps it from being freed and its address
	// reused: that sync reads nothing of it again. It keeps a replaced version alive until the service's
	// next sync, which a change of a serving pod queues; a pod that does
	// not serve (being created, or terminating) is not kept, as it may
	// change many times before the next sync: it is read again.
	pod *api.Pod
	// mayServe is mayServe(svc, pod): false promises that the pod adds
	// no address to the service's Endpoints.
	mayServe bool
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
//
// It also reports whether what the Endpoints should hold may have changed
// since prev (moved): the service is another version, or a pod that may
// serve it (mayServe) came, went or is another version. When moved is
// false, the pods that may serve are the very versions prev listed, so the
// desired Endpoints are prev's. A serving pod listed as the same pointer
// as in prev costs no read of the pod: most syncs list a hundred pods of
// which one or two changed, and each read of a pod is a cache miss at
// scale.
func nextTriggerTime(prev triggerState, known bool, svc *api.Service, pods []*api.Pod, buf []podTrigger) (at time.Time, next triggerState, moved bool) {
	next = triggerState{service: svc.Metadata.CreationTimestamp.Time, svc: svc, pods: buf[:0]}
	same := known && prev.svc == svc
	moved = !same
	var earliest time.Time
	// Both lists are sorted by name (the controller lists pods in key
	// order, which for one namespace is name order): walk them together.
	// A pod as before is the next one of prev; a pod's name in both is
	// usually one string, shared by its versions, so most comparisons
	// stop at the pointer.
	family := serviceIPFamily(svc)
	j := 0
	for _, pod := range pods {
		if j < len(prev.pods) && prev.pods[j].pod == pod {
			e := prev.pods[j]
			if !same { // another service version: mayServe is asked again
				if e.mayServe = mayServe(svc, family, pod); !e.mayServe {
					e.pod = nil
				}
			}
			next.pods = append(next.pods, e)
			j++
			continue
		}
		p := podTrigger{name: pod.Metadata.Name, at: PodTriggerTime(pod), mayServe: mayServe(svc, family, pod)}
		if p.mayServe {
			p.pod = pod
		}
		if n := len(next.pods); n > 0 && next.pods[n-1].name > p.name {
			// Not in name order: sort a copy and start again (never the
			// controller's case; a caller may list in any order).
			return nextTriggerTime(prev, known, svc, slices.SortedStableFunc(slices.Values(pods), func(a, b *api.Pod) int {
				return cmp.Compare(a.Metadata.Name, b.Metadata.Name)
			}), buf)
		}
		for j < len(prev.pods) && prev.pods[j].name < p.name {
			moved = moved || prev.pods[j].mayServe // gone
			j++
		}
		var before time.Time
		if j < len(prev.pods) && prev.pods[j].name == p.name {
			before = prev.pods[j].at
			moved = moved || prev.pods[j].pod != pod && (prev.pods[j].mayServe || p.mayServe) // another version
			j++
		} else {
			moved = moved || p.mayServe // new
		}
		if p.at.After(before) {
			earliest = minNonZero(earliest, p.at)
		}
		next.pods = append(next.pods, p)
	}
	for ; j < len(prev.pods); j++ {
		moved = moved || prev.pods[j].mayServe // gone
	}
	if next.service.After(prev.service) {
		earliest = minNonZero(earliest, next.service)
	}
	if !known {
		return next.service, next, true
	}
	return earliest, next, moved
}

// PodTriggerTime is when the pod's Ready condition last changed; zero if it
// has none. It reads the conditions in place: every sync reads every pod's.
func PodTriggerTime(pod *api.Pod) time.Time {
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
	spare []podTrigger // cleared: it keeps no pod alive
	// verified is the Endpoints a sync found already holding what state's
	// service and pods give (so it wrote nothing), or nil. Any sync since
	// that found something moved (nextTriggerTime) set it back to nil, so
	// while it is the cache's Endpoints, they are still right: cached
	// objects are immutable, and the same pointer is the same version.
	verified *api.Endpoints
	// written is, on the same terms, the version of the Endpoints a sync
	// wrote for state's service and pods (what the server answered), or
	// zero: the cache shows it as another object than the one written, a
	// version the server made, so it is known by its UID and
	// resourceVersion, which name one version of one object. Without it,
	// the first sync after each write (a pod that stopped serving went on
	// changing, say) would compute the Endpoints again to find the write
	// it had just made.
	written endpointsVersion
}

// endpointsVersion names one version of an Endpoints object; zero names
// none.
type endpointsVersion struct {
	uid api.UID
	rv  string
}

// versionOf returns the version of ep, or zero if ep has no
// resourceVersion (a client that does not say).
func versionOf(ep *api.Endpoints) endpointsVersion {
	if ep == nil || ep.Metadata.ResourceVersion == "" {
		return endpointsVersion{}
	}
	return endpointsVersion{uid: ep.Metadata.UID, rv: ep.Metadata.ResourceVersion}
}

// compute returns a sync's trigger time for a service, remembers the new
// state, and returns the service's tracked state, which only this sync
// reads and changes until it returns.
func (t *triggerTracker) compute(key string, svc *api.Service, pods []*api.Pod) (time.Time, *trackedService) {
	t.mu.Lock()
	ts, known := t.states[key]
	if !known {
		ts = &trackedService{}
		t.states[key] = ts
	}
	t.mu.Unlock()
	// Only this sync touches ts: the queue syncs a key in one worker at
	// a time, and forget only drops it from the map.
	at, next, moved := nextTriggerTime(ts.state, known, svc, pods, ts.spare)
	ts.spare, ts.state = ts.state.pods, next
	clear(ts.spare)
	if moved {
		ts.forgetVerified()
	}
	return at, ts
}

// unchanged reports whether current, the cached Endpoints, is the version a
// sync found right or wrote, with nothing moved since: a sync may then
// write nothing without computing them.
func (ts *trackedService) unchanged(current *api.Endpoints) bool {
	if current == nil {
		return false
	}
	return ts.verified == current || ts.written != (endpointsVersion{}) && versionOf(current) == ts.written
}

// forgetVerified forgets that any version of the Endpoints was found
// right or written.
func (ts *trackedService) forgetVerified() {
	ts.verified, ts.written = nil, endpointsVersion{}
}

// forget drops a deleted service's state.
func (t *triggerTracker) forget(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.states, key)
}
