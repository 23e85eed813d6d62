package nodesim

import (
	"context"
	"fmt"
	"hash/fnv"
	"reflect"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/client/record"
	"github.com/miniplane/miniplane/controllers/nodesim/container"
	"github.com/miniplane/miniplane/controllers/nodesim/podenv"
)

// A pod whose containers run the image's own command from an image that
// exists — every pod of a workload that names an image and nothing else —
// lives the one life of the fast path (decide, the status builders): Running
// and Ready a StartDelay after it is bound, until it is deleted or crashed
// by a hook. Any other pod — a container with a command or args, or an
// image the image rule says does not exist — lives the life its
// containers' commands and images give it (package container), on the
// life path below: each container's image is pulled (StartDelay, the pull
// time) or fails to be (ErrImagePull, then ImagePullBackOff on the
// kubelet's back-off); it is created and started, prints what its command
// prints, and exits when its command ends, with its code (Completed or
// Error); the restart policy and the kubelet's crash back-off say when it
// starts again (CrashLoopBackOff meanwhile); and once every container has
// stopped for good the pod is Succeeded or Failed. The kubelet of the
// pod's node tells each step in events (Pulling, Pulled, Failed, BackOff,
// Created, Started, Killing), as a real one does.
//
// The node lifecycle, the deletion of a pod and a finished pod are the
// fast path's on both paths (decide).

// podKind is which path a pod takes, worked out at the kubelet's first
// sync of it.
type podKind uint8

const (
	kindUnknown podKind = iota
	kindPlain           // the fast path
	kindLife            // the life path
)

// pullErrorShown is how long a failed pull's ErrImagePull shows before the
// kubelet's next sync shows ImagePullBackOff.
const pullErrorShown = time.Second

// podLife is the kubelet's memory of a pod on the life path: one entry per
// container of its spec, in order. A sync works on a copy (clone) and
// keeps it once its write is done.
type podLife struct {
	containers []containerLife
	inits      []containerLife // one per init container of its spec
	ephemerals []ephemeralLife // one per ephemeral container seen (withEphemerals)
	killed     bool            // Killing told, for a pod being deleted
	// vols are the contents of the pod's volumes once the kubelet has
	// mounted them (podenv.Volumes): no container starts before. nil
	// until then; mountRetry is when a failed mount is tried again.
	vols       map[string]container.FS
	mountRetry time.Time
	// mounted is when vols were last brought up to date, and labels and
	// annotations the pod's then (shared with the pod object, never
	// changed): see remount.
	mounted             time.Time
	labels, annotations map[string]string
	// texts are the lines the containers printed, which their logs'
	// logText entries index; only appended to, and shared by clones.
	texts []string
}

// containerLife is the kubelet's memory of one container. Times are exact
// (a status holds them to the second).
type containerLife struct {
	run     container.Run // what each of its runs does
	pull    container.PullResult
	pullErr string // the runtime's error when pull is not Pulled

	pulled       bool
	pulling      time.Time         // when the pull in flight began; zero if none
	pullFailed   time.Time         // when the last pull failed
	pullBackoff  container.Backoff // the image manager's back-off
	crashBackoff container.Backoff // the restart back-off (doBackOff)
	started      time.Time         // when the current run started
	finished     time.Time         // when the last run ended
	printed      int               // lines of the current run's output in its log
	carried      int               // changes of the current run's files carried into shared volumes (carry)
	told         time.Time         // the probes' events up to this time are told
	configRetry  time.Time         // when a start that failed for its config is tried again
	// execFiles are the changes exec'd commands made to the current run's
	// own files (ownfiles.go), At their offsets into it; only appended to.
	execFiles []container.FileChange
}

func (l *podLife) clone() *podLife {
	c := *l
	c.containers = append([]containerLife(nil), l.containers...)
	c.inits = append([]containerLife(nil), l.inits...)
	c.ephemerals = append([]ephemeralLife(nil), l.ephemerals...)
	return &c
}

// kindOfLocked says which path pod takes. The image rule's verdict on the
// last image asked about is kept, so that the pods of a workload ask it
// once. Its caller holds mu.
func (c *Controller) kindOfLocked(pod *api.Pod) podKind {
	if readsConfig(pod) || len(pod.Spec.InitContainers) > 0 || len(pod.Spec.EphemeralContainers) > 0 {
		return kindLife
	}
	for i := range pod.Spec.Containers {
		ct := &pod.Spec.Containers[i]
		if len(ct.Command) > 0 || len(ct.Args) > 0 || needsLife(ct) || startsWithChecks(pod, ct) {
			return kindLife
		}
		if ct.Image != c.lastImage || !c.lastImageSet {
			res, _ := c.cfg.Images.Pull(ct.Image)
			c.lastImage, c.lastImageOK, c.lastImageSet = ct.Image, res == container.Pulled, true
		}
		if !c.lastImageOK {
			return kindLife
		}
	}
	return kindPlain
}

// startsWithChecks reports whether the kubelet's start of ct depends on
// more than its image being there: a command its image's configuration
// gives (which the grammar runs), a subPathExpr to expand, or a
// runAsNonRoot to check; these show only on the life path.
func startsWithChecks(pod *api.Pod, ct *api.Container) bool {
	if _, known := container.ImageConfig(ct.Image); known {
		return true
	}
	for _, m := range ct.VolumeMounts {
		if m.SubPathExpr != "" {
			return true
		}
	}
	if sc := ct.SecurityContext; sc != nil && sc.RunAsNonRoot != nil {
		return *sc.RunAsNonRoot
	}
	sc := pod.Spec.SecurityContext
	return sc != nil && sc.RunAsNonRoot != nil && *sc.RunAsNonRoot
}

// readsConfig reports whether pod reads ConfigMaps or Secrets, for its
// volumes or its containers' environment: their absence holds it back
// (FailedMount, CreateContainerConfigError), which only the life path
// shows.
//
// The service account token volume that admission adds
// (kube-api-access-xxxxx) does not count: the plain path mounts the same
// files (podenv.Volumes), and the namespace's kube-root-ca.crt it reads is
// published as soon as the namespace exists.
func readsConfig(pod *api.Pod) bool {
	for i := range pod.Spec.Volumes {
		v := &pod.Spec.Volumes[i]
		if v.EmptyDir == nil && !(v.Projected != nil && strings.HasPrefix(v.Name, "kube-api-access-")) {
			return true
		}
	}
	for i := range pod.Spec.Containers {
		ct := &pod.Spec.Containers[i]
		if len(ct.EnvFrom) > 0 {
			return true
		}
		for _, e := range ct.Env {
			if e.ValueFrom != nil && (e.ValueFrom.ConfigMapKeyRef != nil || e.ValueFrom.SecretKeyRef != nil) {
				return true
			}
		}
	}
	return false
}

// newLife is the kubelet's memory of pod before it has done anything.
func newLife(pod *api.Pod, images container.Images) *podLife {
	l := &podLife{containers: make([]containerLife, len(pod.Spec.Containers)), inits: make([]containerLife, len(pod.Spec.InitContainers))}
	for i, ct := range pod.Spec.Containers {
		l.containers[i].run = container.Plan(ct.Command, ct.Args)
		l.containers[i].pull, l.containers[i].pullErr = images.Pull(ct.Image)
	}
	for i, ct := range pod.Spec.InitContainers {
		l.inits[i].run = container.Plan(ct.Command, ct.Args)
		l.inits[i].pull, l.inits[i].pullErr = images.Pull(ct.Image)
	}
	return l
}

// lifeFacts are the inputs, besides the pod and the kubelet's memory of
// it, of stepLife.
type lifeFacts struct {
	Now                  time.Time
	PullTime, ReadyDelay time.Duration
	CrashRequested       bool
	WantReady            *bool
	HostIP, PodIP        string
	// Sources are what the kubelet reads to hand the containers their
	// environment and volumes.
	Sources podenv.Sources
	// HostFiles are the files of the pod's node that hostPath volumes
	// show, by absolute path (shared, never changed).
	HostFiles container.FS
	// ExecWrites are the changes exec'd commands made to the pod's shared
	// volumes and its containers' own files since the last sync (PodExec),
	// for the sync to keep.
	ExecWrites []volumeWrite
}

// configRetryAfter is how long the kubelet waits before it tries again to
// mount a pod's volumes or start a container whose ConfigMap or Secret is
// missing: the pod worker's back-off period (backOffPeriod).
const configRetryAfter = 10 * time.Second

// kubeletEvent is an event the kubelet records about the pod.
type kubeletEvent struct{ typ, reason, message string }

// logAdd is a line added to a container run's log, or its end.
type logAdd struct {
	container, id string
	restart       int32
	at            time.Time
	text          string
	end           bool
}

// lifeStep is what stepLife decides: the pod's status (to write if write
// is set), the kubelet's memory after it, the events and log lines it
// makes, and how long until a sync is next due (0: none waits on time).
type lifeStep struct {
	status api.PodStatus
	write  bool
	life   *podLife
	events []kubeletEvent
	logs   []logAdd
	wait   time.Duration
	next   time.Time
	now    time.Time
	// hostWrites are the changes the step makes to the node's files (its
	// hostPath volumes'), by absolute path on the node, in order.
	hostWrites []container.FileChange
	// ownVols says the step's life.vols is its own copy, which it may
	// change (the life it was handed shares its map).
	ownVols bool
}

func (s *lifeStep) event(typ, reason, message string) {
	s.events = append(s.events, kubeletEvent{typ, reason, message})
}

// due notes that a sync is due at t, if t is later than now.
func (s *lifeStep) due(t time.Time) {
	if t.After(s.now) && (s.next.IsZero() || t.Before(s.next)) {
		s.next = t
	}
}

// stepLife moves a pod on the life path one step at f.Now: each of its
// containers, then the pod's phase and conditions from theirs. It is pure:
// life is not changed (the step's life is a copy).
func stepLife(pod *api.Pod, life *podLife, f lifeFacts) lifeStep {
	s := lifeStep{life: life.clone(), now: f.Now}
	st := *pod.Status.DeepCopy()
	if st.PodIP == "" && f.PodIP != "" {
		st.PodIP, st.PodIPs = f.PodIP, []api.PodIP{{IP: f.PodIP}}
	}
	if st.HostIP == "" && f.HostIP != "" {
		st.HostIP, st.HostIPs = f.HostIP, []api.HostIP{{IP: f.HostIP}}
	}
	f.PodIP = st.PodIP // the probes' address
	view := *pod       // the pod as the containers see it: its status so far
	view.Status = st
	mounted := s.mount(&view, f)
	if mounted {
		s.showHostPaths(&view, f)
		for _, w := range f.ExecWrites {
			if w.volume == "" {
				s.keepOwn(&view, w)
				continue
			}
			s.writeVolume(&view, w.volume, w.change)
		}
	}
	inits, incomplete, initFailed := s.stepInits(&view, st.InitContainerStatuses, mounted, f)
	initialized := len(incomplete) == 0
	statuses := make([]api.ContainerStatus, len(pod.Spec.Containers))
	var unready []string
	for i := range pod.Spec.Containers {
		ct := &pod.Spec.Containers[i]
		cs := statusOf(st.ContainerStatuses, ct, !initialized)
		if i < len(s.life.containers) && mounted && initialized {
			s.stepContainer(&view, ct, &cs, &s.life.containers[i], f)
		}
		if w := cs.State.Waiting; w != nil && w.Reason == container.ReasonContainerCreating && !initialized {
			cs.State.Waiting = &api.ContainerStateWaiting{Reason: container.ReasonPodInitializing} // as the kubelet accepted it
		}
		statuses[i] = cs
		if !cs.Ready {
			unready = append(unready, ct.Name)
		}
	}
	st.ContainerStatuses, st.InitContainerStatuses = statuses, inits
	st.EphemeralContainerStatuses = s.stepEphemerals(&view, st.EphemeralContainerStatuses, mounted && initialized, f)
	switch {
	case initFailed:
		st.Phase = api.PodFailed
	case !initialized:
		st.Phase = api.PodPending
	default:
		st.Phase = container.Phase(pod.Spec.RestartPolicy, statuses)
	}
	now := f.Now
	if deadline, ok := activeDeadline(&view); ok && st.Phase != api.PodSucceeded && st.Phase != api.PodFailed {
		if now.Before(deadline) {
			s.due(deadline)
		} else {
			s.pastDeadline(&st, now)
		}
	}
	if initialized {
		st.Conditions = setCondition(st.Conditions, api.PodInitialized, api.ConditionTrue, "", "", now)
	} else {
		st.Conditions = setCondition(st.Conditions, api.PodInitialized, api.ConditionFalse, reasonContainersNotInitialized,
			"containers with incomplete status: ["+strings.Join(incomplete, " ")+"]", now)
	}
	st.Conditions = setCondition(st.Conditions, api.PodScheduled, api.ConditionTrue, "", "", now)
	switch {
	case st.Phase == api.PodSucceeded || st.Phase == api.PodFailed:
		st.Conditions = setCondition(st.Conditions, api.ContainersReady, api.ConditionFalse, reasonPodCompleted, "", now)
		st.Conditions = setCondition(st.Conditions, api.PodReady, api.ConditionFalse, reasonPodCompleted, "", now)
	case len(unready) == 0:
		st.Conditions = setCondition(st.Conditions, api.ContainersReady, api.ConditionTrue, "", "", now)
		st.Conditions = setCondition(st.Conditions, api.PodReady, api.ConditionTrue, "", "", now)
	default:
		msg := notReadyPrefix + strings.Join(unready, " ") + "]"
		st.Conditions = setCondition(st.Conditions, api.ContainersReady, api.ConditionFalse, reasonContainersNotReady, msg, now)
		st.Conditions = setCondition(st.Conditions, api.PodReady, api.ConditionFalse, reasonContainersNotReady, msg, now)
	}
	s.status = st
	s.write = !reflect.DeepEqual(pod.Status, st)
	if !s.next.IsZero() {
		s.wait = s.next.Sub(now)
	}
	return s
}

// reasonContainersNotInitialized is the Initialized condition's reason
// while an init container has not completed.
const reasonContainersNotInitialized = "ContainersNotInitialized"

// statusOf is container ct's status among statuses, or the one it starts
// with: waiting, ContainerCreating, or PodInitializing while the pod has
// init containers to run first.
func statusOf(statuses []api.ContainerStatus, ct *api.Container, initializing bool) api.ContainerStatus {
	for _, old := range statuses {
		if old.Name == ct.Name {
			return old
		}
	}
	reason := container.ReasonContainerCreating
	if initializing {
		reason = container.ReasonPodInitializing
	}
	return api.ContainerStatus{Name: ct.Name, Image: ct.Image, Started: ptr(false),
		State: api.ContainerState{Waiting: &api.ContainerStateWaiting{Reason: reason}}}
}

// stepInits moves the pod's init containers on, as the kubelet runs them:
// one at a time in order, each once the one before has completed (exited
// 0), restarted when it fails unless the pod's restartPolicy is Never
// (OnFailure for them under Always). It returns their statuses, the names
// of those not completed (none: the pod is initialized) and whether one
// failed for good, which fails the pod. A completed init container is
// ready. Kubernetes: computePodActions' init container step
// (findNextInitContainerToRun) and getPhase's pending init containers.
func (s *lifeStep) stepInits(pod *api.Pod, old []api.ContainerStatus, mounted bool, f lifeFacts) (statuses []api.ContainerStatus, incomplete []string, failed bool) {
	inits := pod.Spec.InitContainers
	if len(inits) == 0 {
		return nil, nil, false
	}
	view := *pod // the restart policy the init containers follow
	if view.Spec.RestartPolicy != api.RestartPolicyNever {
		view.Spec.RestartPolicy = api.RestartPolicyOnFailure
	}
	completed := func(cs *api.ContainerStatus) bool {
		return cs.State.Terminated != nil && cs.State.Terminated.ExitCode == 0
	}
	statuses = make([]api.ContainerStatus, len(inits))
	for i := range inits {
		ct := &inits[i]
		cs := statusOf(old, ct, true)
		if len(incomplete) == 0 && !failed && mounted && i < len(s.life.inits) && !completed(&cs) {
			s.stepContainer(&view, ct, &cs, &s.life.inits[i], f)
		}
		cs.Ready = completed(&cs)
		if !cs.Ready {
			incomplete = append(incomplete, ct.Name)
		}
		if t := cs.State.Terminated; t != nil && t.ExitCode != 0 && view.Spec.RestartPolicy == api.RestartPolicyNever {
			failed = true
		}
		statuses[i] = cs
	}
	return statuses, incomplete, failed
}

// pastDeadline fails a pod active past its deadline, as deadlineStatus does
// on the fast path: its running containers killed, their logs ended.
func (s *lifeStep) pastDeadline(st *api.PodStatus, now time.Time) {
	for i := range st.ContainerStatuses {
		cs := &st.ContainerStatuses[i]
		if cs.State.Running != nil {
			s.logs = append(s.logs, logAdd{container: cs.Name, id: cs.ContainerID, restart: cs.RestartCount, at: now, end: true})
		}
		killContainer(cs, now)
	}
	st.Phase, st.Reason, st.Message = api.PodFailed, reasonDeadlineExceeded, messageDeadlineExceeded
	s.event(api.EventTypeNormal, reasonDeadlineExceeded, messageDeadlineExceeded)
}

// mount sets up the pod's volumes if they are not yet (the kubelet's
// volume manager, which every container waits for), and reports whether
// they are. A volume whose ConfigMap or Secret is missing fails with a
// FailedMount event, tried again every configRetryAfter.
func (s *lifeStep) mount(pod *api.Pod, f lifeFacts) bool {
	l := s.life
	if l.vols != nil {
		s.remount(pod, f)
		return true
	}
	if f.Now.Before(l.mountRetry) {
		s.due(l.mountRetry)
		return false
	}
	vols, err := podenv.Volumes(pod, f.Sources)
	if err != nil {
		s.event(api.EventTypeWarning, "FailedMount", err.Error())
		l.mountRetry = f.Now.Add(configRetryAfter)
		s.due(l.mountRetry)
		return false
	}
	l.vols, l.mounted, l.labels, l.annotations = vols, f.Now, pod.Metadata.Labels, pod.Metadata.Annotations
	return true
}

// syncPeriod is how often the kubelet syncs a running pod when nothing
// else makes it (its syncFrequency, one minute by default): each sync
// brings the files of its ConfigMap, Secret, downward API and projected
// volumes up to date.
const syncPeriod = time.Minute

// remount brings the mounted volumes' files up to date with the objects
// they show and the pod itself, as the kubelet's volume manager does when
// it syncs the pod (its volume plugins all RequiresRemount): at the
// periodic sync, and when the pod's labels or annotations change (an
// update the kubelet's pod config passes on). The simulator's other syncs,
// made to print a line on time, are not the kubelet's and change nothing.
// A volume that cannot be set up now (its ConfigMap deleted) keeps the
// files it had. Files mounted with a subPath are not updated (see live).
func (s *lifeStep) remount(pod *api.Pod, f lifeFacts) {
	l := s.life
	if !podenv.Updatable(pod) {
		return
	}
	due := l.mounted.Add(syncPeriod)
	if f.Now.Before(due) && reflect.DeepEqual(l.labels, pod.Metadata.Labels) && reflect.DeepEqual(l.annotations, pod.Metadata.Annotations) {
		s.due(due)
		return
	}
	l.mounted, l.labels, l.annotations = f.Now, pod.Metadata.Labels, pod.Metadata.Annotations
	vols := make(map[string]container.FS, len(l.vols))
	changed := false
	for name, old := range l.vols {
		fs := old
		if now, err := podenv.Volume(pod, name, f.Sources); err == nil {
			fs = now
		}
		vols[name] = fs
		changed = changed || !reflect.DeepEqual(fs, old)
	}
	if changed {
		l.vols = vols
	}
	s.due(f.Now.Add(syncPeriod))
}

// stepContainer moves one container (ct, its status cs and the kubelet's
// memory of it m) one step: its image, then its run.
func (s *lifeStep) stepContainer(pod *api.Pod, ct *api.Container, cs *api.ContainerStatus, m *containerLife, f lifeFacts) {
	now := f.Now
	if !m.pulled && !s.ensureImage(ct, cs, m, f) {
		return
	}
	switch {
	case cs.State.Running != nil:
		if m.started.IsZero() {
			m.started = cs.State.Running.StartedAt.Time // a kubelet that forgot: to the second
		}
		s.live(pod, ct, cs, m, f)
	case cs.State.Terminated != nil || cs.State.Waiting != nil && cs.LastTerminationState.Terminated != nil:
		t := cs.State.Terminated
		if t == nil {
			t = cs.LastTerminationState.Terminated
		}
		if !container.ShouldRestart(pod.Spec.RestartPolicy, t.ExitCode) {
			return // it stays terminated
		}
		finished := m.finished
		if finished.IsZero() {
			finished = t.FinishedAt.Time
		}
		if m.crashBackoff.InBackoffSince(finished, now) {
			if cs.State.Waiting == nil {
				s.event(api.EventTypeWarning, "BackOff", "Back-off restarting failed container "+ct.Name+" in pod "+container.PodRef(pod))
			}
			cs.LastTerminationState = api.ContainerState{Terminated: t}
			cs.State = api.ContainerState{Waiting: &api.ContainerStateWaiting{
				Reason: container.ReasonCrashLoopBackOff, Message: container.CrashLoopMessage(m.crashBackoff.Delay, ct.Name, pod)}}
			cs.Ready, cs.Started = false, ptr(false)
			s.due(m.crashBackoff.Due(finished))
			return
		}
		started, ok := s.configure(pod, ct, cs, m, f)
		if !ok {
			cs.LastTerminationState = api.ContainerState{Terminated: t}
			return
		}
		m.crashBackoff = m.crashBackoff.Next(finished, now)
		cs.LastTerminationState = api.ContainerState{Terminated: t}
		cs.RestartCount++
		if ct.ImagePullPolicy == api.PullAlways {
			s.event(api.EventTypeNormal, "Pulling", fmt.Sprintf("Pulling image %q", ct.Image))
			s.event(api.EventTypeNormal, "Pulled", fmt.Sprintf("Successfully pulled image %q in 0s (0s including waiting). Image size: %d bytes.", ct.Image, container.Size(ct.Image)))
		} else {
			s.event(api.EventTypeNormal, "Pulled", fmt.Sprintf("Container image %q already present on machine", ct.Image))
		}
		s.start(pod, ct, cs, m, f, started)
	default:
		if started, ok := s.configure(pod, ct, cs, m, f); ok {
			s.start(pod, ct, cs, m, f, started)
		}
	}
}

// configure works out what the kubelet hands the container as it starts
// it (podenv.Start), and reports whether it can: a ConfigMap, Secret or
// key its environment needs that is missing leaves it waiting with
// CreateContainerConfigError and a Failed event, tried again every
// configRetryAfter. Kubernetes: startContainer's generateContainerConfig.
func (s *lifeStep) configure(pod *api.Pod, ct *api.Container, cs *api.ContainerStatus, m *containerLife, f lifeFacts) (podenv.Started, bool) {
	if f.Now.Before(m.configRetry) {
		s.due(m.configRetry)
		return podenv.Started{}, false
	}
	started, err := podenv.Start(pod, ct, s.life.vols, f.Sources)
	if err != nil {
		s.event(api.EventTypeWarning, "Failed", "Error: "+err.Error())
		cs.State = api.ContainerState{Waiting: &api.ContainerStateWaiting{Reason: container.ReasonCreateContainerConfigError, Message: err.Error()}}
		cs.Ready, cs.Started = false, ptr(false)
		m.configRetry = f.Now.Add(configRetryAfter)
		s.due(m.configRetry)
		return podenv.Started{}, false
	}
	m.configRetry = time.Time{}
	return started, true
}

// ensureImage is the image manager (EnsureImageExists) for one container:
// it reports whether the image is there, and otherwise sets the
// container's waiting state.
func (s *lifeStep) ensureImage(ct *api.Container, cs *api.ContainerStatus, m *containerLife, f lifeFacts) bool {
	now := f.Now
	waiting := func(reason, message string) {
		if w := cs.State.Waiting; w == nil || w.Reason != reason || w.Message != message {
			cs.State = api.ContainerState{Waiting: &api.ContainerStateWaiting{Reason: reason, Message: message}}
		}
	}
	isWaiting := func(reason string) bool { return cs.State.Waiting != nil && cs.State.Waiting.Reason == reason }
	switch {
	case m.pull == container.InvalidName:
		msg := fmt.Sprintf("Failed to apply default image tag %q: %s", ct.Image, m.pullErr)
		if !isWaiting(container.ReasonInvalidImageName) {
			s.event(api.EventTypeWarning, "InspectFailed", msg)
		}
		waiting(container.ReasonInvalidImageName, msg)
		return false
	case ct.ImagePullPolicy == api.PullNever:
		if m.pull != container.Pulled {
			msg := fmt.Sprintf("Container image %q is not present with pull policy of Never", ct.Image)
			if !isWaiting(container.ReasonErrImageNeverPull) {
				s.event(api.EventTypeWarning, container.ReasonErrImageNeverPull, msg)
			}
			waiting(container.ReasonErrImageNeverPull, msg)
			return false
		}
		s.event(api.EventTypeNormal, "Pulled", fmt.Sprintf("Container image %q already present on machine", ct.Image))
		m.pulled = true
		return true
	}
	if m.pulling.IsZero() {
		if m.pullBackoff.InBackoffSinceUpdate(now) {
			if shown := m.pullFailed.Add(pullErrorShown); now.Before(shown) {
				s.due(shown) // ErrImagePull shows until the next sync
				return false
			}
			if !isWaiting(container.ReasonImagePullBackOff) {
				s.event(api.EventTypeNormal, "BackOff", fmt.Sprintf("Back-off pulling image %q", ct.Image))
				s.event(api.EventTypeWarning, "Failed", "Error: "+container.ReasonImagePullBackOff)
			}
			waiting(container.ReasonImagePullBackOff, fmt.Sprintf("Back-off pulling image %q", ct.Image))
			s.due(m.pullBackoff.Updated.Add(m.pullBackoff.Delay))
			return false
		}
		m.pulling = now
		s.event(api.EventTypeNormal, "Pulling", fmt.Sprintf("Pulling image %q", ct.Image))
	}
	if done := m.pulling.Add(f.PullTime); now.Before(done) {
		s.due(done)
		return false
	}
	took := now.Sub(m.pulling)
	m.pulling = time.Time{}
	if m.pull != container.Pulled {
		m.pullBackoff, m.pullFailed = m.pullBackoff.Next(now, now), now
		s.event(api.EventTypeWarning, "Failed", fmt.Sprintf("Failed to pull image %q: %s", ct.Image, m.pullErr))
		s.event(api.EventTypeWarning, "Failed", "Error: "+container.ReasonErrImagePull)
		waiting(container.ReasonErrImagePull, m.pullErr)
		s.due(now.Add(pullErrorShown))
		return false
	}
	m.pulled, m.pullBackoff = true, container.Backoff{}
	s.event(api.EventTypeNormal, "Pulled", fmt.Sprintf("Successfully pulled image %q in %v (%v including waiting). Image size: %d bytes.",
		ct.Image, took, took, container.Size(ct.Image)))
	return true
}

// start starts a run of the container, handed started: created, started,
// running.
func (s *lifeStep) start(pod *api.Pod, ct *api.Container, cs *api.ContainerStatus, m *containerLife, f lifeFacts, started podenv.Started) {
	now := f.Now
	m.started, m.printed, m.carried, m.told = now, 0, 0, now
	m.execFiles = nil // a new run: its writable layer is new
	started.Input.Start, started.Input.Seed = now, runSeed(pod, ct.Name, cs.RestartCount)
	m.run = container.PlanIn(started.Command, started.Args, started.Input)
	for _, e := range started.Events {
		s.event(e.Type, e.Reason, e.Message)
	}
	cs.ContainerID = containerID(pod.Metadata.UID, ct.Name, cs.RestartCount)
	cs.Image, cs.ImageID = ct.Image, imageID(ct.Image)
	cs.State = api.ContainerState{Running: &api.ContainerStateRunning{StartedAt: api.NewTime(now)}}
	cs.Started = ptr(true)
	s.event(api.EventTypeNormal, "Created", "Created container "+ct.Name)
	s.event(api.EventTypeNormal, "Started", "Started container "+ct.Name)
	if why := m.run.Why; why != "" {
		if serving := container.NewProgram(ct.Image, started.Command, started.Args, started.Input).Listening(); serving != "" {
			why = serving // a server the grammar does not run, whose answers the server rule gives
		}
		s.logs = append(s.logs, logAdd{container: ct.Name, id: cs.ContainerID, restart: cs.RestartCount, at: now, text: simulatedTag + why})
	}
	s.live(pod, ct, cs, m, f)
}

// runSeed seeds what a run of container name in its restartth restart
// draws at random: a hash (FNV-1a) of the pod's UID, the name and the
// count, so that each run differs and a replay draws the same.
func runSeed(pod *api.Pod, name string, restart int32) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%s/%d", pod.Metadata.UID, name, restart)
	return h.Sum64()
}

// live moves a running container on: the lines its run has printed by
// now, its exit when its run ends (or a crash asked for), its readiness.
func (s *lifeStep) live(pod *api.Pod, ct *api.Container, cs *api.ContainerStatus, m *containerLife, f lifeFacts) {
	now := f.Now
	var files container.FS // the container's files now, for the reads that follow them
	for ; ; m.printed++ {
		line, ok := m.run.Line(m.printed)
		if !ok {
			break
		}
		at := m.started.Add(line.At)
		if at.After(now) {
			s.due(at)
			break
		}
		if line.Reads == "" {
			s.logs = append(s.logs, logAdd{container: ct.Name, id: cs.ContainerID, restart: cs.RestartCount, at: at, text: line.Text})
			continue
		}
		text := line.Text
		if !podenv.UnderSubPath(ct, line.Reads) {
			if files == nil {
				files = podenv.Mount(ct, s.life.vols)
			}
			file, there := files.Lookup(line.Reads)
			text = container.ReadReport(line.Reads, file, there)
		}
		for _, t := range strings.Split(text, "\n") {
			s.logs = append(s.logs, logAdd{container: ct.Name, id: cs.ContainerID, restart: cs.RestartCount, at: at, text: t})
		}
	}
	end := m.started.Add(m.run.Duration)
	var probes probeOutcome
	probed := hasProbes(ct)
	if probed {
		until := now
		if !m.run.Forever && end.Before(until) {
			until = end // no probe runs after the container exits
		}
		run := m.run.Overlay(m.execFiles)
		probes = runProbes(ct, &run, m.started, until, f.PodIP)
		for _, e := range probes.events {
			if e.at.After(m.told) {
				s.event(e.typ, e.reason, e.message)
			}
		}
		m.told = until
	}
	switch {
	case f.CrashRequested:
		s.carry(pod, ct, m, now)
		s.logs = append(s.logs, logAdd{container: ct.Name, id: cs.ContainerID, restart: cs.RestartCount, at: now, text: simulatedTag + "container " + ct.Name + " exited with code 1 (a crash was injected)"})
		s.exit(ct, cs, m, 1, now)
		return
	case !probes.killAt.IsZero():
		s.carry(pod, ct, m, probes.killAt)
		s.event(api.EventTypeNormal, "Killing", "Container "+ct.Name+" failed "+probes.killedBy+" probe, will be restarted")
		s.exit(ct, cs, m, exitKilled, probes.killAt)
		return
	case m.run.Forever:
		s.carry(pod, ct, m, now)
	case !end.After(now):
		s.carry(pod, ct, m, end)
		s.exit(ct, cs, m, m.run.ExitCode, end)
		return
	default:
		s.carry(pod, ct, m, now)
		s.due(end)
	}
	ready := f.WantReady == nil || *f.WantReady
	if probed {
		cs.Started = ptr(probes.started)
		if f.WantReady == nil {
			ready = probes.started && probes.ready
		}
		if !probes.next.IsZero() {
			s.due(probes.next)
		}
	}
	cs.Ready = ready
}

// exitKilled is the exit code of a container the kubelet killed: 128 +
// SIGKILL.
const exitKilled = 137

// exit ends the container's run at with code.
func (s *lifeStep) exit(ct *api.Container, cs *api.ContainerStatus, m *containerLife, code int32, at time.Time) {
	cs.State = api.ContainerState{Terminated: &api.ContainerStateTerminated{
		ExitCode: code, Reason: container.TerminatedReason(code),
		Message:   terminationMessage(ct, &m.run, code, at.Sub(m.started)),
		StartedAt: api.NewTime(m.started), FinishedAt: api.NewTime(at), ContainerID: cs.ContainerID,
	}}
	cs.Ready, cs.Started = false, ptr(false)
	m.finished = at
	s.logs = append(s.logs, logAdd{container: cs.Name, id: cs.ContainerID, restart: cs.RestartCount, at: at, end: true})
}

// Limits of a termination message. Kubernetes:
// kubecontainer.MaxContainerTerminationMessageLength and
// MaxContainerTerminationMessageLog{Lines,Length}.
const (
	maxTerminationMessage     = 4096
	maxTerminationLogLines    = 80
	maxTerminationLogMessage  = 2048
	defaultTerminationMessage = "/dev/termination-log"
)

// terminationMessage is the message of a container's run that ended
// after ran with code: what its termination message file holds then (its
// first 4096 bytes), or, under FallbackToLogsOnError, when that is empty
// and the run failed, the last 80 lines the run printed (their first 2048
// bytes). Kubernetes: getTerminationMessage and
// readLastStringFromContainerLogs.
func terminationMessage(ct *api.Container, run *container.Run, code int32, ran time.Duration) string {
	p := ct.TerminationMessagePath
	if p == "" {
		p = defaultTerminationMessage
	}
	msg, _ := run.FileAtEnd(p)
	if len(msg) > maxTerminationMessage {
		msg = msg[:maxTerminationMessage]
	}
	if msg != "" || code == 0 || ct.TerminationMessagePolicy != api.TerminationMessageFallbackToLogsOnError {
		return msg
	}
	var lines []string
	for _, l := range run.Output {
		if l.At <= ran {
			lines = append(lines, l.Text)
		}
	}
	lines = lines[max(0, len(lines)-maxTerminationLogLines):]
	msg = strings.Join(lines, "\n")
	if len(msg) > maxTerminationLogMessage {
		msg = msg[:maxTerminationLogMessage]
	}
	return msg
}

// onLifePath reports whether a sync of pod, whose kubelet memory is st,
// is the life path's: the pod is on it, accepted, not finished, not being
// deleted, and its node is up.
func onLifePath(st *kubeletState, pod *api.Pod, f podFacts) bool {
	return st.kind == kindLife && !f.NodeDown && pod.Metadata.DeletionTimestamp == nil &&
		pod.Status.HostIP != "" && !finished(pod)
}

// runLife is the kubelet's sync of a pod on the life path (runPod's, once
// it has observed the pod): decide with stepLife, write the status if it
// changed, then keep the memory, the log lines and the events.
func (c *Controller) runLife(ctx context.Context, key string, st *podState, pod *api.Pod, node *api.Node, f podFacts, hostIP string, krec *record.EventRecorder) error {
	now := f.Now
	c.mu.Lock()
	life := c.lives[key]
	if life == nil {
		life = newLife(pod, c.cfg.Images)
		c.lives[key] = life
	}
	if l := life.withEphemerals(pod, c.cfg.Images); l != life {
		life = l
		c.lives[key] = life
	}
	hostFiles := c.hostFiles[pod.Spec.NodeName]
	execWrites := st.execWrites
	st.execWrites = nil
	c.mu.Unlock()
	if hostFiles == nil {
		hostFiles = nodeFiles(pod.Spec.NodeName, hostIP)
	}
	var podIP string
	if pod.Status.PodIP == "" {
		ip, err := c.allocateIP(st, key, node)
		if err != nil {
			c.event(ctx, krec, pod, api.EventTypeWarning, "FailedCreatePodSandBox", "no IP for the pod: %v", err)
			return err
		}
		podIP = ip
	}
	step := stepLife(pod, life, lifeFacts{
		Now: now, PullTime: c.cfg.StartDelay, ReadyDelay: c.cfg.ReadyDelay,
		CrashRequested: f.CrashRequested, WantReady: f.WantReady, HostIP: hostIP, PodIP: podIP,
		Sources: c.sources(pod, node), HostFiles: hostFiles, ExecWrites: execWrites,
	})
	if step.write {
		cp := *pod
		cp.Status = step.status
		if _, err := c.client.UpdateStatus(ctx, &cp, client.Handover()); err != nil {
			if apierrors.IsConflict(err) {
				c.queue.AddAfter(key, conflictRecheck)
			}
			if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
				return nil // gone, or the cache is behind: the handler queues the pod again
			}
			return fmt.Errorf("nodesim: life of %s: %w", key, err)
		}
	}
	c.mu.Lock()
	kept := st.kind == kindLife // not forgotten meanwhile
	if kept {
		c.lives[key] = step.life
	}
	c.writeHostLocked(pod.Spec.NodeName, hostIP, step.hostWrites)
	if f.CrashRequested {
		st.crash = false
	}
	for _, l := range step.logs {
		switch {
		case l.end:
			st.logs.add(l.container, l.id, l.restart, l.at, true)
		case kept:
			step.life.texts = append(step.life.texts, l.text)
			st.logs.addText(l.container, l.id, l.restart, l.at, uint32(len(step.life.texts)-1))
		}
	}
	c.mu.Unlock()
	if step.wait > 0 {
		c.queue.AddAfter(key, step.wait) // the queue keeps the earlier of two times
	}
	if ce := c.log.Check(zap.DebugLevel, "kubelet life"); ce != nil {
		ce.Write(zap.String("pod", key), zap.Bool("wrote", step.write), zap.Duration("next", step.wait))
	}
	for _, e := range step.events {
		c.eventMessage(ctx, krec, pod, e.typ, e.reason, e.message)
	}
	return nil
}

// tellKilling tells, once, that the kubelet stops the running containers
// of a pod on the life path that is being deleted.
func (c *Controller) tellKilling(ctx context.Context, key string, pod *api.Pod, krec *record.EventRecorder) {
	c.mu.Lock()
	l := c.lives[key]
	tell := l != nil && !l.killed
	if tell {
		l = l.clone()
		l.killed = true
		c.lives[key] = l
	}
	c.mu.Unlock()
	if !tell {
		return
	}
	for _, cs := range pod.Status.ContainerStatuses {
		if cs.State.Running != nil {
			c.eventMessage(ctx, krec, pod, api.EventTypeNormal, "Killing", "Stopping container "+cs.Name)
		}
	}
}

// sources are what the kubelet of node reads for pod: the caches'
// ConfigMaps, Secrets and Services of its namespace, the node's
// allocatable resources, and tokens of its service account
// (Config.Tokens).
func (c *Controller) sources(pod *api.Pod, node *api.Node) podenv.Sources {
	var alloc api.ResourceList
	if node != nil {
		alloc = node.Status.Allocatable
	}
	ns := pod.Metadata.Namespace
	var token func(string, int64) (string, error)
	if c.cfg.Tokens != nil {
		token = func(audience string, seconds int64) (string, error) { return c.cfg.Tokens(pod, audience, seconds) }
	}
	cms, secrets := c.configMaps.Namespace(ns), c.secrets.Namespace(ns)
	return podenv.Sources{
		ConfigMap: func(name string) (*api.ConfigMap, bool) {
			cm, err := cms.Get(name)
			return cm, err == nil
		},
		Secret: func(name string) (*api.Secret, bool) {
			s, err := secrets.Get(name)
			return s, err == nil
		},
		Services:    func() []*api.Service { return c.services.List(api.Selector{}) },
		Allocatable: alloc,
		Token:       token,
	}
}
