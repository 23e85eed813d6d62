package nodesim

import (
	"fmt"
	"slices"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// The simulated kubelets keep a log per container run, as a container
// runtime does, so that `kubectl logs` has something true to show: nothing
// runs, so each line says what the kubelet did to the container (started
// it, found it ready, saw it crash, stopped it), at the injected clock's
// time. A run is named by its container ID, which changes at each restart;
// the kubelet keeps a container's current run and the one before it (what
// `kubectl logs --previous` shows) and forgets a pod's runs when the pod is
// gone. Lines are stored as a time and a kind, and rendered when read, so a
// run costs a few dozen bytes.

// MaxLogLines bounds one run's log: past it, the oldest lines are dropped.
const MaxLogLines = 1000

// LogLine is one line of a container's log. Seq numbers a run's lines from
// 1 without gaps, also across dropped lines.
type LogLine struct {
	Seq  int64
	Time time.Time
	Text string
}

// ContainerLog is what ContainerLog returns: lines of one run after a
// point, whether the run has ended, and a channel closed at its next line
// or its end (nil when it has ended).
type ContainerLog struct {
	Lines   []LogLine
	Ended   bool
	Changed <-chan struct{}
}

// logKind is what a log line says.
type logKind uint8

const (
	logStarted      logKind = iota // the container started
	logReadyNoProbe                // ready as soon as it runs: no readiness probe
	logReadyProbe                  // its readiness probe passed
	logNotReady                    // its readiness probe failed
	logCrashed                     // it exited with code 1
	logStopped                     // SIGTERM: it stopped, code 0
	logKilled                      // SIGTERM ignored: killed, code 137
	logText                        // what its command printed: texts[arg] of the pod's podLife (life.go)
)

// simulatedTag starts every line the kubelet writes in a container's log
// itself, rather than the container's command.
const simulatedTag = "[miniplane simulated kubelet] "

// logEntry is a stored line.
type logEntry struct {
	at   int64 // unix nanoseconds
	kind logKind
	arg  uint32 // for logText, the index of its text in the run's texts
}

// containerRun is the log of one run of one container.
type containerRun struct {
	id        string // its container ID
	container string
	restart   int32
	ended     bool
	entries   []logEntry
	first     int64 // Seq of entries[0]
	// changed is closed at the next line or the end; nil until a reader
	// waits on it, so that a run nobody follows costs no channel.
	changed chan struct{}
	// inline is the memory of entries while it fits: a run the kubelet
	// starts, finds ready and stops has three lines.
	inline [3]logEntry
}

// podLogs is the runs of one pod's containers, oldest first: each
// container's current run and the one before it. It lives in the pod's
// podState, and the Controller's mu guards it: the kubelet writes a pod's
// lines in the same lock hold as what it remembers of the write, and
// finds them with the pod's state, without a map of its own. Its zero
// value holds no run.
type podLogs struct {
	runs []*containerRun
	// firstRun is the memory of the pod's first run and one that of runs
	// while it holds one run, so that a pod whose containers never restart
	// costs no allocation for its logs.
	firstRun containerRun
	one      [1]*containerRun
}

// empty reports whether the pod has no run.
func (pl *podLogs) empty() bool { return len(pl.runs) == 0 }

// run returns the pod's run with id, creating it (and forgetting the
// container's run before the previous one) if it is new.
func (pl *podLogs) run(container, id string, restart int32) *containerRun {
	if r, ok := pl.find(id); ok {
		return r
	}
	if pl.runs == nil {
		pl.runs = pl.one[:0]
	}
	r := &pl.firstRun
	if r.id != "" {
		r = new(containerRun) // not the pod's first run
	}
	*r = containerRun{id: id, container: container, restart: restart, first: 1}
	r.entries = r.inline[:0]
	refs := append(pl.runs, r)
	// Keep the current run and the one before it of each container: a
	// third drops the oldest.
	count := 0
	for _, ref := range refs {
		if ref.container == container {
			count++
		}
	}
	if count > 2 {
		i := slices.IndexFunc(refs, func(ref *containerRun) bool { return ref.container == container })
		refs = slices.Delete(refs, i, i+1)
	}
	pl.runs = refs
	return r
}

// find returns the pod's run with id, if it has one.
func (pl *podLogs) find(id string) (*containerRun, bool) {
	for _, r := range pl.runs {
		if r.id == id {
			return r, true
		}
	}
	return nil, false
}

// add appends lines of kinds to the run with id, and ends the run after
// them if end is set.
func (pl *podLogs) add(container, id string, restart int32, at time.Time, end bool, kinds ...logKind) {
	if id == "" {
		return
	}
	r := pl.run(container, id, restart)
	if r.ended {
		return
	}
	for _, kind := range kinds {
		if len(r.entries) == MaxLogLines {
			r.entries = slices.Delete(r.entries, 0, 1)
			r.first++
		}
		r.entries = append(r.entries, logEntry{at: at.UnixNano(), kind: kind})
	}
	r.ended = end
	if r.changed != nil {
		close(r.changed)
		r.changed = nil
	}
}

// addText appends a line its command printed to the run with id: the
// text is the pod's podLife's texts[text] (life.go), kept there, not in
// the run, which every pod has.
func (pl *podLogs) addText(container, id string, restart int32, at time.Time, text uint32) {
	if id == "" {
		return
	}
	r := pl.run(container, id, restart)
	if r.ended {
		return
	}
	pl.add(container, id, restart, at, false, logText)
	r.entries[len(r.entries)-1].arg = text
}

// end ends every run of the pod, as when its node is lost.
func (pl *podLogs) end() {
	for _, r := range pl.runs {
		if !r.ended {
			r.ended = true
			if r.changed != nil {
				close(r.changed)
				r.changed = nil
			}
		}
	}
}

// forget drops the pod's runs, ending them for any follower.
func (pl *podLogs) forget() {
	pl.end()
	*pl = podLogs{}
}

// ContainerLog returns the log of a container of pod, a pod as the API
// server holds it: its current run, or with previous the run before,
// chosen from the pod's status as the kubelet chooses
// (validateContainerLogStatus), only the lines whose Seq is above after.
// When there is no such run it returns a 400 BadRequest Status with the
// kubelet's message: the container is not known, is waiting to start, or
// has no previous run.
func (c *Controller) ContainerLog(pod *api.Pod, container string, previous bool, after int64) (ContainerLog, error) {
	name := pod.Metadata.Name
	var cs *api.ContainerStatus
	for _, statuses := range [][]api.ContainerStatus{pod.Status.ContainerStatuses, pod.Status.InitContainerStatuses, pod.Status.EphemeralContainerStatuses} {
		for i := range statuses {
			if statuses[i].Name == container {
				cs = &statuses[i]
			}
		}
	}
	if cs == nil {
		return ContainerLog{}, apierrors.NewBadRequest(fmt.Sprintf("container %q in pod %q is not available", container, name))
	}
	last, state := cs.LastTerminationState.Terminated, cs.State
	var id string
	var restart int32
	switch {
	case previous:
		if last == nil || last.ContainerID == "" {
			return ContainerLog{}, apierrors.NewBadRequest(fmt.Sprintf("previous terminated container %q in pod %q not found", container, name))
		}
		id, restart = last.ContainerID, max(cs.RestartCount-1, 0)
	case state.Running != nil:
		id, restart = cs.ContainerID, cs.RestartCount
	case state.Terminated != nil && state.Terminated.ContainerID != "":
		id, restart = state.Terminated.ContainerID, cs.RestartCount
	case last != nil && last.ContainerID != "":
		id, restart = last.ContainerID, max(cs.RestartCount-1, 0)
	case state.Waiting != nil:
		return ContainerLog{}, apierrors.NewBadRequest(fmt.Sprintf("container %q in pod %q is waiting to start: %s", container, name, state.Waiting.Reason))
	default:
		return ContainerLog{}, apierrors.NewBadRequest(fmt.Sprintf("container %q in pod %q is terminated", container, name))
	}

	key := api.KeyOf(&pod.Metadata)
	c.mu.Lock()
	var r *containerRun
	st, ok := c.state[key]
	if ok {
		r, ok = st.logs.find(id)
	}
	if !ok {
		if state.Running == nil || previous || !c.hasPod(pod) {
			c.mu.Unlock()
			return ContainerLog{Ended: true}, nil // a run this kubelet never saw, or forgot: nothing to show
		}
		// Running, but its first line is not written yet (the status
		// write comes first): wait for it. The pod is still in the cache,
		// and the cache loses it before forget runs (and takes mu, held
		// here), so this run will be forgotten with the pod's others.
		r = c.stateLocked(key).logs.run(container, id, restart)
	}
	// The lines are copied under mu and rendered after it.
	out := ContainerLog{Ended: r.ended}
	first, restarts := r.first, r.restart
	var texts []string
	if l := c.lives[key]; l != nil {
		texts = l.texts // only appended to: what is below its length stays
	}
	skip := min(max(after-first+1, 0), int64(len(r.entries)))
	entries := slices.Clone(r.entries[skip:])
	if !r.ended {
		if r.changed == nil {
			r.changed = make(chan struct{})
		}
		out.Changed = r.changed
	}
	c.mu.Unlock()

	image := ""
	if ct := findContainer(pod, container); ct != nil {
		image = ct.Image
	}
	for i, e := range entries {
		seq := first + skip + int64(i)
		text := ""
		if e.kind == logText {
			if int(e.arg) < len(texts) {
				text = texts[e.arg]
			}
		} else {
			text = e.kind.text(container, image, pod, restarts)
		}
		out.Lines = append(out.Lines, LogLine{Seq: seq, Time: time.Unix(0, e.at).UTC(), Text: text})
	}
	return out, nil
}

// hasPod says whether the pod cache holds pod (the same one: same uid).
func (c *Controller) hasPod(pod *api.Pod) bool {
	cached, err := c.pods.Namespace(pod.Metadata.Namespace).Get(pod.Metadata.Name)
	return err == nil && cached.Metadata.UID == pod.Metadata.UID
}

// text renders a line of the log of container (from image) in pod, in its
// run after restart restarts.
func (k logKind) text(container, image string, pod *api.Pod, restart int32) string {
	const tag = simulatedTag
	switch k {
	case logStarted:
		verb := "started"
		if restart > 0 {
			verb = fmt.Sprintf("restarted (restart %d)", restart)
		}
		return fmt.Sprintf("%scontainer %s %s from image %s on %s, pod IP %s; no process runs, this log is all it writes",
			tag, container, verb, image, pod.Spec.NodeName, pod.Status.PodIP)
	case logReadyNoProbe:
		return tag + "container " + container + " is ready: it has no readiness probe, so it is ready once running"
	case logReadyProbe:
		return tag + "container " + container + " is ready: its readiness probe passed"
	case logNotReady:
		return tag + "container " + container + " is not ready: its readiness probe failed"
	case logCrashed:
		return tag + "container " + container + " exited with code 1 (a crash was injected)"
	case logStopped:
		return tag + "container " + container + " got SIGTERM and exited with code 0: the pod is being deleted"
	case logKilled:
		return tag + "container " + container + " ignored SIGTERM and was killed (exit code 137): the pod is being deleted"
	}
	return tag + "?"
}

// logWriteLocked adds to the containers' logs, pl, what a status write
// by the kubelet did; pod is the pod as written. Its caller holds mu.
func logWriteLocked(pl *podLogs, pod *api.Pod, act action, now time.Time) {
	for _, cs := range pod.Status.ContainerStatuses {
		switch act {
		case actStart, actRestart:
			if cs.Ready {
				pl.add(cs.Name, cs.ContainerID, cs.RestartCount, now, false, logStarted, logReadyNoProbe)
			} else {
				pl.add(cs.Name, cs.ContainerID, cs.RestartCount, now, false, logStarted)
			}
		case actReady:
			pl.add(cs.Name, cs.ContainerID, cs.RestartCount, now, false, logReadyProbe)
		case actProbeFail:
			pl.add(cs.Name, cs.ContainerID, cs.RestartCount, now, false, logNotReady)
		case actCrash:
			if t := cs.State.Terminated; t != nil {
				pl.add(cs.Name, t.ContainerID, cs.RestartCount, now, true, logCrashed)
			}
		case actDeadline:
			if t := cs.State.Terminated; t != nil && t.ExitCode == exitKilled {
				pl.add(cs.Name, t.ContainerID, cs.RestartCount, now, true, logStopped)
			}
		case actStop:
			// The containers that were running, stopped now: the others
			// were told when they ended (or never ran).
			if t := cs.State.Terminated; t != nil && t.Reason != reasonStatusUnknown && t.FinishedAt == api.NewTime(now) {
				kind := logStopped
				if t.ExitCode != 0 {
					kind = logKilled
				}
				pl.add(cs.Name, t.ContainerID, cs.RestartCount, now, true, kind)
			}
		}
	}
	if act == actDeadline {
		pl.end() // the pod is over: nothing more will be written
	}
}

// logStopLocked ends the running containers' logs, pl, of a pod whose
// deletion the kubelet confirms. Its caller holds mu.
func logStopLocked(pl *podLogs, pod *api.Pod, now time.Time) {
	for _, cs := range pod.Status.ContainerStatuses {
		if cs.State.Running != nil {
			pl.add(cs.Name, cs.ContainerID, cs.RestartCount, now, true, logStopped)
		}
	}
	pl.end()
}
