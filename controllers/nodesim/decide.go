package nodesim

import (
	"time"

	"github.com/miniplane/miniplane/api"
)

// action is one thing the simulated kubelet does to a bound pod.
type action int

const (
	actNone          action = iota
	actAccept               // the kubelet takes a bound pod: Pending, hostIP, containers creating
	actStart                // Pending → Running: containers started, IP given; ready too without readiness probes
	actReady                // Running → Ready: readiness probes passed (after ReadyDelay)
	actProbeFail            // Ready → not ready: readiness checks fail (SetPodReady false)
	actCrash                // containers exit with code 1 (CrashPod)
	actRestart              // crashed containers start again; ready at once without readiness probes
	actStop                 // terminating: containers stopped, the pod in a terminal phase (Succeeded or Failed)
	actConfirmDelete        // terminating and terminal: delete with grace 0
	actDeadline             // active past spec.activeDeadlineSeconds: containers killed, Failed, DeadlineExceeded
)

var actionNames = [...]string{"none", "accept", "start", "ready", "probe-fail", "crash", "restart", "stop", "confirm-delete", "deadline"}

func (a action) String() string { return actionNames[a] }

// podFacts are the inputs, besides the pod itself, of decide.
type podFacts struct {
	Now time.Time
	// Since is when the kubelet first saw the pod in its current stage
	// (stageOf): the delays count from it.
	Since time.Time
	// NodeDown says the pod's node is down: its kubelet does nothing
	// (the node lifecycle controller, controllers/nodelifecycle, acts on
	// its pods).
	NodeDown bool
	// WantReady overrides readiness (SetPodReady): nil lets it follow the
	// delays, false holds the pod not ready, true makes it ready at once.
	WantReady *bool
	// CrashRequested says CrashPod asked for a crash not yet written.
	CrashRequested bool

	StartDelay, ReadyDelay, TerminationDelay time.Duration
}

// stage is the pod's place in its lifecycle as the kubelet sees it; a
// change of stage restarts the clock of podFacts.Since.
type stage struct {
	phase                       api.PodPhase
	terminating, crashed, ready bool
}

// stageOf returns the pod's stage. A pod is created Pending, in Kubernetes,
// so no phase is Pending.
func stageOf(pod *api.Pod) stage {
	s := stage{phase: pod.Status.Phase, terminating: pod.Metadata.DeletionTimestamp != nil, crashed: crashed(pod), ready: api.IsPodReady(pod)}
	if s.phase == "" {
		s.phase = api.PodPending
	}
	return s
}

// String names a stage: its phase, then "/terminating", "/crashed" and
// "/ready" as they apply.
func (s stage) String() string {
	out := string(s.phase)
	if s.terminating {
		out += "/terminating"
	}
	if s.crashed {
		out += "/crashed"
	}
	if s.ready {
		out += "/ready"
	}
	return out
}

// decide says what happens next to a pod bound to a simulated node: the
// action due now (actNone if none) and, when something will be due later,
// how long until then (0 when nothing is waiting on time). A pod active
// past its deadline is failed before anything else happens to it. A pod
// being deleted has its containers stopped after TerminationDelay and is
// moved to a terminal phase (actStop), then its deletion is confirmed
// (actConfirmDelete), as the kubelet's status manager deletes a pod only
// once it is terminal (KEP-3329).
func decide(pod *api.Pod, f podFacts) (action, time.Duration) {
	switch pod.Status.Phase {
	case api.PodSucceeded, api.PodFailed:
		if pod.Metadata.DeletionTimestamp != nil && !f.NodeDown {
			return actConfirmDelete, 0 // nothing runs: it may go at once
		}
		return actNone, 0 // finished: nothing runs any more
	}
	deadline, ok := activeDeadline(pod)
	if !ok || f.NodeDown || pod.Metadata.DeletionTimestamp != nil {
		return decideRest(pod, f)
	}
	left := deadline.Sub(f.Now)
	if left <= 0 {
		return actDeadline, 0
	}
	act, wait := decideRest(pod, f)
	if act == actNone && (wait == 0 || left < wait) {
		wait = left
	}
	return act, wait
}

// activeDeadline is when the pod has been active on its node longer than
// its spec.activeDeadlineSeconds allow, counted from its status.startTime;
// false when it has no deadline or has not started. Kubernetes: the
// kubelet's activeDeadlineHandler.pastActiveDeadline.
func activeDeadline(pod *api.Pod) (time.Time, bool) {
	d, start := pod.Spec.ActiveDeadlineSeconds, pod.Status.StartTime
	if d == nil || start == nil {
		return time.Time{}, false
	}
	return start.Time.Add(time.Duration(*d) * time.Second), true
}

// decideRest is decide for a pod within its deadline.
func decideRest(pod *api.Pod, f podFacts) (action, time.Duration) {
	// due reports whether d has passed since t, and otherwise how long is left.
	due := func(t time.Time, d time.Duration) (bool, time.Duration) {
		left := t.Add(d).Sub(f.Now)
		return left <= 0, left
	}
	if f.NodeDown {
		return actNone, 0 // the node's kubelet is gone: it does nothing until the node is up
	}
	if pod.Metadata.DeletionTimestamp != nil {
		if ok, left := due(f.Since, f.TerminationDelay); !ok {
			return actNone, left
		}
		return actStop, 0
	}
	if pod.Status.Phase != api.PodRunning {
		ok, left := due(f.Since, f.StartDelay)
		switch {
		case ok:
			return actStart, 0
		case pod.Status.HostIP == "":
			return actAccept, left
		}
		return actNone, left
	}
	switch {
	case f.CrashRequested:
		return actCrash, 0
	case crashed(pod):
		if ok, left := due(f.Since, f.StartDelay); !ok {
			return actNone, left
		}
		return actRestart, 0
	case f.WantReady != nil && !*f.WantReady:
		if api.IsPodReady(pod) {
			return actProbeFail, 0
		}
		return actNone, 0
	case api.IsPodReady(pod):
		return actNone, 0
	case f.WantReady != nil && *f.WantReady:
		return actReady, 0
	}
	readyDelay := f.ReadyDelay
	if !hasReadinessProbe(pod) {
		readyDelay = 0 // a container without a readiness probe is ready once it runs
	}
	if ok, left := due(f.Since, readyDelay); !ok {
		return actNone, left
	}
	return actReady, 0
}

// hasReadinessProbe reports whether any of the pod's containers has a
// readiness probe. Without one, the kubelet counts a running container as
// ready at once.
func hasReadinessProbe(pod *api.Pod) bool {
	for i := range pod.Spec.Containers {
		if pod.Spec.Containers[i].ReadinessProbe != nil {
			return true
		}
	}
	return false
}

// readyOnStart reports whether a pod whose containers start (or restart)
// now is ready in the same status write: none of its containers has a
// readiness probe to pass first, and SetPodReady does not hold it not
// ready. As the kubelet does, and kwok's pod-ready stage, this makes a
// probe-less pod Running and Ready in one write.
func readyOnStart(pod *api.Pod, f podFacts) bool {
	return !hasReadinessProbe(pod) && (f.WantReady == nil || *f.WantReady)
}
