package nodelifecycle

import (
	"fmt"
	"strings"
	"time"

	"github.com/miniplane/miniplane/api"
)

// action is what the controller does to one pod bound to a node that is
// not ready.
type action int

const (
	actNone     action = iota
	actNotReady        // the pod's Ready condition goes False (MarkPodsNotReady)
	actLost            // the pod is Failed, reason NodeLost
)

var actionNames = [...]string{"none", "not-ready", "lost"}

func (a action) String() string { return actionNames[a] }

// Reasons this controller writes into pod status and events.
const (
	// ReasonNodeNotReady is the Ready condition's reason on a pod whose
	// node is not ready, and the reason of the events on the node and the
	// pod: upstream's.
	ReasonNodeNotReady = "NodeNotReady"
	// ReasonNodeLost is the reason of a pod failed because its node stayed
	// not ready past the eviction timeout: upstream's NodeUnreachablePodReason.
	ReasonNodeLost = "NodeLost"

	reasonContainersNotReady = "ContainersNotReady"
)

// podFacts are the inputs, besides the pod itself, of decide.
type podFacts struct {
	Now time.Time
	// DownSince is when the pod's node went not ready (nodeHealth.since).
	DownSince       time.Time
	EvictionTimeout time.Duration
}

// decide says what happens next to a pod bound to a node that is not
// ready: the action due now (actNone if none) and, when something will be
// due later, how long until then (0 when nothing waits on time). A finished
// pod is left alone; a running pod that is still ready is marked not ready
// at once; once the node has been down EvictionTimeout, a pod not being
// deleted is marked Failed.
func decide(pod *api.Pod, f podFacts) (action, time.Duration) {
	switch pod.Status.Phase {
	case api.PodSucceeded, api.PodFailed:
		return actNone, 0
	}
	left := f.DownSince.Add(f.EvictionTimeout).Sub(f.Now)
	if left <= 0 {
		if pod.Metadata.DeletionTimestamp != nil {
			return actNone, 0 // being deleted already; its grace period ends it
		}
		return actLost, 0
	}
	if c, _ := podCondition(pod, api.PodReady); c.Status != api.ConditionFalse && pod.Status.Phase == api.PodRunning {
		return actNotReady, left
	}
	return actNone, left
}

// podCondition returns the pod's condition of typ, if it has one.
func podCondition(pod *api.Pod, typ api.PodConditionType) (api.PodCondition, bool) {
	for _, c := range pod.Status.Conditions {
		if c.Type == typ {
			return c, true
		}
	}
	return api.PodCondition{}, false
}

// updatePodCondition sets cond in st, adding it if st has none of its
// type; cond's lastTransitionTime is kept from the old one when its status
// does not change. It reports whether anything changed. Kubernetes:
// pkg/api/v1/pod's UpdatePodCondition.
func updatePodCondition(st *api.PodStatus, cond api.PodCondition) bool {
	for i, old := range st.Conditions {
		if old.Type != cond.Type {
			continue
		}
		if old.Status == cond.Status {
			cond.LastTransitionTime = old.LastTransitionTime
		}
		if old == cond {
			return false
		}
		st.Conditions[i] = cond
		return true
	}
	st.Conditions = append(st.Conditions, cond)
	return true
}

// notReadyPod is pod, copied, as marked on a node that stopped reporting:
// only its Ready condition goes False; the containers' state is unknown,
// so it is left alone.
func notReadyPod(pod *api.Pod, now time.Time) *api.Pod {
	p := pod.DeepCopy()
	updatePodCondition(&p.Status, api.PodCondition{Type: api.PodReady, Status: api.ConditionFalse, Reason: ReasonNodeNotReady,
		Message: fmt.Sprintf("node %s is not ready", pod.Spec.NodeName), LastTransitionTime: api.NewTime(now)})
	return p
}

// lostPod is pod, copied, as given up on because its node stayed down past
// the eviction timeout: phase Failed, reason NodeLost, its containers and
// itself not ready.
func lostPod(pod *api.Pod, now time.Time) *api.Pod {
	p := pod.DeepCopy()
	p.Status.Phase = api.PodFailed
	p.Status.Reason = ReasonNodeLost
	p.Status.Message = fmt.Sprintf("Node %s which was running pod %s is unresponsive", pod.Spec.NodeName, pod.Metadata.Name)
	for i := range p.Status.ContainerStatuses {
		p.Status.ContainerStatuses[i].Ready = false
	}
	names := make([]string, len(pod.Spec.Containers))
	for i, c := range pod.Spec.Containers {
		names[i] = c.Name
	}
	msg := "containers with unready status: [" + strings.Join(names, " ") + "]"
	for _, typ := range []api.PodConditionType{api.ContainersReady, api.PodReady} {
		updatePodCondition(&p.Status, api.PodCondition{Type: typ, Status: api.ConditionFalse, Reason: reasonContainersNotReady,
			Message: msg, LastTransitionTime: api.NewTime(now)})
	}
	return p
}

// nodeReady reports whether a node is ready: its Ready condition is True,
// or it has none (a node registered by hand, say with kubectl; upstream
// waits for its first status). since is when the condition last changed.
func nodeReady(n *api.Node) (ready bool, since time.Time) {
	for _, cond := range n.Status.Conditions {
		if cond.Type == api.NodeReady {
			return cond.Status == api.ConditionTrue, cond.LastTransitionTime.Time
		}
	}
	return true, time.Time{}
}
