package nodesim

import (
	"slices"
	"sync"

	"github.com/miniplane/miniplane/api"
)

// A status the kubelet writes is handed over (client.Handover): the server
// stores it as given, and every reader of the pod shares it. So a stored
// status need not own its pieces; it only needs them never to change. The
// statuses of pods that reach the same stage in the same second are equal
// but for a few per-pod fields (pod IP, container ID): their conditions
// (the same types, reasons and transition times), their start time, their
// containers' states, their node's host IP list. publish makes a built
// status out of immutable pieces, taking each from the pod's old status
// when it did not change, else from a statusShare that hands out the same
// piece to every pod that asks for an equal one, else making it anew. Only
// the container statuses once they name their containers' IDs, and the pod
// IP list, are a pod's own: about 150 bytes a pod where a status of its own
// took 768.
//
// What makes the sharing safe: nothing changes a stored status in place
// (the contract of the store's objects, DESIGN.md, "Contracts every package
// keeps", which the server keeps too: it changes a handed-over object only
// in its top-level struct), and nodesim changes only its scratch block
// (ownStatus copies the conditions and container statuses there before a
// builder changes them, and a builder replaces a pointer, never writes
// through it). A piece is shared only when it is == to the one asked for,
// field by field, so a shared status is identical to one made anew;
// TestPublishedStatusEqual holds them equal, and
// TestPublishedStatusOwnsNoScratch checks that nothing published points
// into the scratch block.

// statusShare hands out the immutable pieces of published statuses
// (newStatusShare makes one); a nil *statusShare shares nothing (every piece is
// made anew), which is the plain way its tests compare it with. mu guards
// everything in it; the *Locked methods expect it held.
type statusShare struct {
	mu sync.Mutex
	// conds are the condition lists handed out last: the pods that
	// change stage in one second ask for a handful of lists.
	conds recentLists[api.PodCondition]
	// containers are the container status lists with no container ID
	// handed out last (the accepted statuses of a workload's pods).
	containers recentLists[api.ContainerStatus]
	times      recent[api.Time]
	running    recent[api.ContainerStateRunning]
	waiting    recent[api.ContainerStateWaiting]
	// hostIPs holds, by host IP, its one-entry list: one per node.
	hostIPs map[string][]api.HostIP
	// yes and no are what every published Started points at: true and
	// false, set by newStatusShare and never written after.
	yes, no bool
}

// newStatusShare returns a statusShare that has handed out nothing.
func newStatusShare() *statusShare { return &statusShare{yes: true} }

// recent is a few values handed out last, each behind the pointer that
// was handed out, for the next ask for an equal one.
type recent[T comparable] struct {
	last [4]*T
	next int
}

// get returns a pointer to a value equal to v: one handed out before, or
// a new one.
func (r *recent[T]) get(v T) *T {
	for _, p := range r.last {
		if p != nil && *p == v {
			return p
		}
	}
	p := new(T)
	*p = v
	r.last[r.next] = p
	r.next = (r.next + 1) % len(r.last)
	return p
}

// recentLists is a few lists handed out last, newest at next-1, for the
// next ask for an equal one.
type recentLists[T comparable] struct {
	last [8][]T
	next int
}

// get returns a list equal to l, which is the caller's scratch: one handed
// out before, or a copy of l.
func (r *recentLists[T]) get(l []T) []T {
	for _, s := range r.last {
		if s != nil && slices.Equal(s, l) {
			return s
		}
	}
	c := slices.Clone(l)
	r.last[r.next] = c
	r.next = (r.next + 1) % len(r.last)
	return c
}

// conditionsLocked returns a list equal to conds, which is the caller's
// scratch: one handed out before, or a copy of conds.
func (sh *statusShare) conditionsLocked(conds []api.PodCondition) []api.PodCondition {
	if sh == nil {
		return slices.Clone(conds)
	}
	return sh.conds.get(conds)
}

// containersLocked returns a list equal to list, which is the caller's
// scratch: one handed out before, or a copy of list. Its states and Started
// are compared by pointer: shared ones (stateLocked, startedLocked) match.
func (sh *statusShare) containersLocked(list []api.ContainerStatus) []api.ContainerStatus {
	if sh == nil {
		return slices.Clone(list)
	}
	return sh.containers.get(list)
}

// timeLocked returns a pointer to a time equal to t.
func (sh *statusShare) timeLocked(t api.Time) *api.Time {
	if sh == nil {
		return &t
	}
	return sh.times.get(t)
}

// hostIPsLocked returns a list of the one host IP ip.
func (sh *statusShare) hostIPsLocked(ip api.HostIP) []api.HostIP {
	if sh == nil {
		return []api.HostIP{ip}
	}
	l, ok := sh.hostIPs[ip.IP]
	if !ok {
		if sh.hostIPs == nil {
			sh.hostIPs = make(map[string][]api.HostIP)
		}
		l = []api.HostIP{ip}
		sh.hostIPs[ip.IP] = l
	}
	return l
}

// startedLocked returns a pointer to v.
func (sh *statusShare) startedLocked(v bool) *bool {
	switch {
	case sh == nil:
		return &v
	case v:
		return &sh.yes
	}
	return &sh.no
}

// stateLocked returns s, a state in the caller's scratch, with its waiting
// and running states immutable: was's when equal (was is the container's
// state in the old status), else shared ones. A terminated state is never
// in the scratch (crashedStatus makes it anew; a restart moves it to the
// last state): it is kept.
func (sh *statusShare) stateLocked(s, was api.ContainerState) api.ContainerState {
	if w := s.Waiting; w != nil {
		switch {
		case was.Waiting != nil && *was.Waiting == *w:
			s.Waiting = was.Waiting
		case sh == nil:
			s.Waiting = ptr(*w)
		default:
			s.Waiting = sh.waiting.get(*w)
		}
	}
	if r := s.Running; r != nil {
		switch {
		case was.Running != nil && *was.Running == *r:
			s.Running = was.Running
		case sh == nil:
			s.Running = ptr(*r)
		default:
			s.Running = sh.running.get(*r)
		}
	}
	return s
}

// publish returns st, a status built in b from old (the status of the pod
// as cached), made of immutable pieces: those equal to old's are old's,
// the others shared (b.share) or made anew; nothing in it points into b's
// scratch block any more. The result is equal to st in every field: only
// where its pieces live changes. Call it once a status is final (after
// markReady): changing a published status would change other pods'.
func (b *statusBuf) publish(old *api.PodStatus, st api.PodStatus) api.PodStatus {
	sh := b.share
	if sh != nil {
		sh.mu.Lock()
		defer sh.mu.Unlock()
	}
	switch {
	case len(st.Conditions) == 0:
		st.Conditions = emptyOf(st.Conditions)
	case slices.Equal(st.Conditions, old.Conditions):
		st.Conditions = old.Conditions
	default:
		st.Conditions = sh.conditionsLocked(st.Conditions)
	}
	if t := st.StartTime; t != nil {
		if old.StartTime != nil && *old.StartTime == *t {
			st.StartTime = old.StartTime
		} else {
			st.StartTime = sh.timeLocked(*t)
		}
	}
	switch {
	case len(st.HostIPs) == 0:
		st.HostIPs = emptyOf(st.HostIPs)
	case slices.Equal(st.HostIPs, old.HostIPs):
		st.HostIPs = old.HostIPs
	case len(st.HostIPs) == 1:
		st.HostIPs = sh.hostIPsLocked(st.HostIPs[0])
	default:
		st.HostIPs = slices.Clone(st.HostIPs)
	}
	switch {
	case len(st.PodIPs) == 0:
		st.PodIPs = emptyOf(st.PodIPs)
	case slices.Equal(st.PodIPs, old.PodIPs):
		st.PodIPs = old.PodIPs
	default:
		st.PodIPs = slices.Clone(st.PodIPs)
	}
	if len(st.ContainerStatuses) == 0 {
		st.ContainerStatuses = emptyOf(st.ContainerStatuses)
		return st
	}
	// The container statuses get their states and Started shared, in a
	// scratch copy. A list that names no container ID (containers not yet
	// created, as in a status just accepted) is shared like the
	// conditions; one that does is the pod's own.
	list := append(b.pub[:0], st.ContainerStatuses...)
	b.pub = list
	own := false
	for i := range list {
		cs := &list[i]
		var was api.ContainerStatus
		if i < len(old.ContainerStatuses) {
			was = old.ContainerStatuses[i]
		}
		cs.State = sh.stateLocked(cs.State, was.State)
		cs.LastTerminationState = sh.stateLocked(cs.LastTerminationState, was.LastTerminationState)
		if cs.Started != nil {
			cs.Started = sh.startedLocked(*cs.Started)
		}
		own = own || cs.ContainerID != ""
	}
	if own {
		st.ContainerStatuses = slices.Clone(list)
	} else {
		st.ContainerStatuses = sh.containersLocked(list)
	}
	return st
}

// emptyOf returns s if it is nil, else an empty list of its own: an empty
// list stays empty, not nil (the server tells them apart when it compares
// statuses), and points into no scratch.
func emptyOf[T any](s []T) []T {
	if s == nil {
		return nil
	}
	return []T{}
}
