package tainteviction

import (
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/controllers/scheduler/fit"
)

// action is what decide says to do with a pod.
type action int

const (
	keep     action = iota // nothing changes: no eviction, or the one pending stands
	cancel                 // drop a pending eviction: the pod may stay
	schedule               // evict at the returned time
	evict                  // evict now
)

func (a action) String() string {
	return [...]string{"keep", "cancel", "schedule", "evict"}[a]
}

// pending is an eviction decided but not yet done.
type pending struct {
	since time.Time // when it was decided
	at    time.Time // when it is due
}

// decide says what to do with pod, bound to node (nil when the node is not
// known), at now, given the eviction pending for it (nil for none).
// Kubernetes: processPodOnNode.
func decide(pod *api.Pod, node *api.Node, now time.Time, p *pending) (action, pending) {
	noPending := keep
	if p != nil {
		noPending = cancel
	}
	if pod.Metadata.DeletionTimestamp != nil || pod.Spec.NodeName == "" || node == nil {
		return noPending, pending{}
	}
	taints := noExecuteTaints(node.Spec.Taints)
	if len(taints) == 0 {
		return noPending, pending{}
	}
	used, all := matchingTolerations(taints, pod.Spec.Tolerations)
	if !all {
		return evict, pending{}
	}
	wait, forever := minTolerationTime(used)
	switch {
	case forever:
		return noPending, pending{}
	case p != nil && !now.Before(p.at):
		return evict, pending{}
	case p != nil:
		return keep, *p // the first decision's time stands
	case wait == 0:
		return evict, pending{}
	}
	return schedule, pending{since: now, at: now.Add(wait)}
}

// noExecuteTaints returns the taints of effect NoExecute.
func noExecuteTaints(taints []api.Taint) []api.Taint {
	var out []api.Taint
	for _, t := range taints {
		if t.Effect == api.TaintEffectNoExecute {
			out = append(out, t)
		}
	}
	return out
}

// matchingTolerations returns, for each taint, the first toleration that
// tolerates it, and whether every taint is tolerated. Kubernetes:
// v1helper.GetMatchingTolerations.
func matchingTolerations(taints []api.Taint, tolerations []api.Toleration) ([]api.Toleration, bool) {
	var used []api.Toleration
	for i := range taints {
		found := false
		for _, tol := range tolerations {
			if fit.Tolerates([]api.Toleration{tol}, &taints[i]) {
				used = append(used, tol)
				found = true
				break
			}
		}
		if !found {
			return nil, false
		}
	}
	return used, true
}

// minTolerationTime returns the least tolerationSeconds of tolerations (0
// when one is 0 or less, or when there are none), or forever when none
// has any. Kubernetes: getMinTolerationTime.
func minTolerationTime(tolerations []api.Toleration) (wait time.Duration, forever bool) {
	if len(tolerations) == 0 {
		return 0, false
	}
	least := int64(-1)
	for _, t := range tolerations {
		if t.TolerationSeconds == nil {
			continue
		}
		if *t.TolerationSeconds <= 0 {
			return 0, false
		}
		if least < 0 || *t.TolerationSeconds < least {
			least = *t.TolerationSeconds
		}
	}
	if least < 0 {
		return 0, true
	}
	return time.Duration(least) * time.Second, false
}
