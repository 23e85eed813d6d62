package main

import (
	"container/heap"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/controllers/deployment"
	"github.com/miniplane/miniplane/controllers/nodelifecycle"
	"github.com/miniplane/miniplane/controllers/replication"
)

// narrator turns what the control plane does into short lines a person can
// follow: it watches every resource through the API server, as kubectl get
// -w would, and says what changed and who did it. The demo's script uses it
// for its own lines too.
//
// Every line is told in the order of the store's revisions. The store moves
// its revision by one at each write, and the narrator watches every
// resource, so each revision reaches it exactly once, on one of its
// watches; it holds back what arrives early until the revisions before it
// have been told. So a pod is created before it is scheduled, and
// scheduled before its kubelet starts it, in the story as in the store,
// whatever the order the watches delivered them. A line of the script is
// placed after the revision the store had when the script acted (hold,
// act, sayAfter, unhold), so it comes before everything its act caused.
//
// Every figure a line shows comes from the object the component wrote: the
// replication controller's expectations from the annotations of its Event,
// written when it acted, and so the deployment controller's surge and
// unavailability figures; a kubelet's node from the pod's binding, told
// before; who made a pod not ready from its Ready condition's reason.
type narrator struct {
	out   io.Writer
	color bool
	start time.Time

	// mu guards everything below, and the output.
	mu      sync.Mutex
	changed chan struct{} // closed and replaced at every line told
	// next is the first revision not yet told: all before it have been.
	next int64
	// pending are the watch events and script lines waiting for their
	// turn, by revision; holds counts the script's writes in flight,
	// while which nothing is told (its line must come first).
	pending lineHeap
	holds   int
	seq     int64 // insertion order, to keep equal keys in order

	// now is the clock, set by Run.
	now func() time.Time

	pods    map[string]*podMemo // by key: what was last told of each pod
	owners  map[string]bool     // pod owners (RCs, replica sets) that exist and are not being deleted, by ownerKey
	rss     map[string]*rsMemo  // replica sets, by key
	deploys map[string]*deployMemo
	eps     map[string]string
	holder  map[string]string
	nodeUp  map[string]bool
	reasons map[string]int // events told, by reason and by component + " " + reason
	// combined counts, by reason, the events told from the bumps of an
	// event the recorder had combined from similar ones (client-go's
	// aggregation).
	combined map[string]int
}

// ownerKey names a pod's possible controller for owners.
func ownerKey(kind, namespace, name string) string { return kind + "/" + namespace + "/" + name }

// rsMemo is what the narrator last told of a replica set.
type rsMemo struct {
	replicas, available int32
	revision            string
}

// deployMemo is what the narrator last told of a deployment: its revision
// and each condition's status and reason.
type deployMemo struct {
	revision   string
	conditions map[string]string
}

// podMemo is what the narrator last told of a pod.
type podMemo struct {
	node                         string
	running, ready, failed, gone bool
	terminating, crashed         bool
	restarts                     int32
}

// Phases of a line at one revision: the watch event of the write at that
// revision, then the script's lines placed after it.
const (
	phaseEvent = iota
	phaseAfter
)

// line is one thing waiting to be told.
type line struct {
	rev   int64
	phase int
	seq   int64
	at    time.Time          // when it happened (or was seen)
	ev    client.WatchEvent  // phaseEvent only
	text  func(at time.Time) // the script's lines; called with mu held
	// told marks an Event told early, beside the write it reports: at its
	// own turn it only moves next on.
	told bool
}

// lineHeap orders lines by revision, phase, then arrival.
type lineHeap []*line

func (h lineHeap) Len() int { return len(h) }
func (h lineHeap) Less(i, j int) bool {
	a, b := h[i], h[j]
	if a.rev != b.rev {
		return a.rev < b.rev
	}
	if a.phase != b.phase {
		return a.phase < b.phase
	}
	return a.seq < b.seq
}
func (h lineHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *lineHeap) Push(x any)   { *h = append(*h, x.(*line)) }
func (h *lineHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// gapTimeout is how long the narrator waits for a missing revision before
// it gives up on it and tells what came after: a revision reaches none of
// its watches only if the server gained a resource the narrator does not
// watch, and the story must go on.
const gapTimeout = time.Second

func newNarrator(out io.Writer, color bool, start time.Time) *narrator {
	return &narrator{
		out: out, color: color, start: start,
		changed:  make(chan struct{}),
		now:      time.Now,
		pods:     map[string]*podMemo{},
		owners:   map[string]bool{},
		rss:      map[string]*rsMemo{},
		deploys:  map[string]*deployMemo{},
		eps:      map[string]string{},
		holder:   map[string]string{},
		nodeUp:   map[string]bool{},
		reasons:  map[string]int{},
		combined: map[string]int{},
	}
}

// ANSI colours, used only when the output is a terminal.
const (
	ansiReset = "\x1b[0m"
	ansiBold  = "\x1b[1m"
	ansiDim   = "\x1b[2m"
	ansiCyan  = "\x1b[36m"
	ansiGreen = "\x1b[32m"
	ansiRed   = "\x1b[31m"
	ansiBlue  = "\x1b[34m"
	ansiMag   = "\x1b[35m"
	ansiYel   = "\x1b[33m"
)

func (n *narrator) paint(code, s string) string {
	if !n.color {
		return s
	}
	return code + s + ansiReset
}

// hold stops the telling until unhold: the script holds while it acts, so
// that the line saying what it did (placed after the revision the store
// had before it acted) comes before what the control plane did in return.
func (n *narrator) hold() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.holds++
}

// unhold ends a hold.
func (n *narrator) unhold() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.holds--
	n.releaseLocked()
}

// sayAfter tells a line of the script once every revision up to rev has
// been told.
func (n *narrator) sayAfter(rev int64, at time.Time, actor, format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	n.after(rev, at, func(at time.Time) { n.sayLocked(at, actor, "%s", msg) })
}

// chapterAfter prints a heading once every revision up to rev has been
// told.
func (n *narrator) chapterAfter(rev int64, format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	n.after(rev, time.Time{}, func(time.Time) { fmt.Fprintf(n.out, "\n%s\n", n.paint(ansiBold, msg)) })
}

// plainAfter prints a line of the story without an actor once every
// revision up to rev has been told.
func (n *narrator) plainAfter(rev int64, format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	n.after(rev, time.Time{}, func(time.Time) { fmt.Fprintf(n.out, "  %s\n", msg) })
}

func (n *narrator) after(rev int64, at time.Time, text func(time.Time)) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.pushLocked(&line{rev: rev, phase: phaseAfter, at: at, text: text})
}

// sayLocked prints one line: the time since the start, who acted, and what
// happened.
func (n *narrator) sayLocked(at time.Time, actor, format string, a ...any) {
	elapsed := max(at.Sub(n.start).Seconds(), 0)
	fmt.Fprintf(n.out, "  %s  %s %s\n",
		n.paint(ansiDim, fmt.Sprintf("%5.1fs", elapsed)),
		n.paint(actorColour(actor), fmt.Sprintf("%-22s", actor)),
		fmt.Sprintf(format, a...))
}

func actorColour(actor string) string {
	switch {
	case strings.HasPrefix(actor, "replica"), strings.HasPrefix(actor, "deployment"):
		return ansiCyan
	case strings.HasPrefix(actor, "endpoint"):
		return ansiGreen
	case strings.HasPrefix(actor, "scheduler"), strings.HasPrefix(actor, "kubelet"), strings.HasPrefix(actor, "node"):
		return ansiBlue
	case strings.HasPrefix(actor, "garbage"):
		return ansiMag
	case strings.HasPrefix(actor, "lease"), strings.HasPrefix(actor, "election"):
		return ansiYel
	case strings.HasPrefix(actor, "you"):
		return ansiBold
	}
	return ansiRed
}

// Changed returns a channel closed at the next line told.
func (n *narrator) Changed() <-chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.changed
}

// told reports whether every revision up to rev has been told.
// toldThrough returns the revision through which every write has been
// told: where a narration of another server over the same etcd resumes.
func (n *narrator) toldThrough() int64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.next - 1
}

func (n *narrator) told(rev int64) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.next > rev
}

// count returns how many events with the reason the narrator has told,
// recorded by component if it is not "".
func (n *narrator) count(component, reason string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	if component != "" {
		reason = component + " " + reason
	}
	return n.reasons[reason]
}

// combinedEvents returns how many of the events with the reason told were
// bumps of a combined event.
func (n *narrator) combinedEvents(reason string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.combined[reason]
}

func (n *narrator) pushLocked(l *line) {
	n.seq++
	l.seq = n.seq
	heap.Push(&n.pending, l)
	n.releaseLocked()
}

// releaseLocked tells every line whose turn has come.
//
// A component writes the Event that reports a write after the write
// itself: the replication controller creates a pod, then records "Created
// pod"; meanwhile the scheduler may have bound the pod. So when the next
// write to tell is one that an Event will report (reportOf), the narrator
// tells that Event first, beside it, and waits for it (at most gapTimeout)
// if it has not arrived yet.
func (n *narrator) releaseLocked() {
	told := false
	for n.holds == 0 && len(n.pending) > 0 {
		top := n.pending[0]
		due := top.rev <= n.next // an event: every revision before it is told
		if top.phase == phaseAfter {
			due = top.rev < n.next // and its own too
		}
		if !due {
			break
		}
		var report *line
		if top.phase == phaseEvent && !top.told {
			if want, ok := n.reportOf(top.ev); ok {
				if report = n.findReport(want); report == nil && n.now().Sub(top.at) < gapTimeout {
					break // the report is on its way
				}
				if report != nil {
					report.told = true
					if !want.after {
						n.observeLocked(report.at, report.ev)
						report = nil
					}
				}
			}
		}
		heap.Pop(&n.pending)
		n.tellLocked(top)
		if report != nil { // the write's own line comes first
			n.observeLocked(report.at, report.ev)
		}
		told = true
	}
	if told {
		close(n.changed)
		n.changed = make(chan struct{})
	}
}

// tellLocked tells one line.
func (n *narrator) tellLocked(l *line) {
	if l.phase == phaseEvent {
		if !l.told {
			n.observeLocked(l.at, l.ev)
		}
		n.next = max(n.next, l.rev+1)
		return
	}
	l.text(l.at)
}

// report is the Event a component writes about one of its writes: its
// reason, the name of the object it is about, and how its message starts;
// after, if the write has a line of its own that comes first.
type report struct {
	reason, involved, message string
	after                     bool
}

// reportOf says which Event will report the pod or replica set write ev,
// if one will.
func (n *narrator) reportOf(ev client.WatchEvent) (report, bool) {
	if rs, ok := ev.Object.(*api.ReplicaSet); ok {
		return n.rsReportOf(ev.Type, rs)
	}
	p, ok := ev.Object.(*api.Pod)
	if !ok || ev.Type == api.WatchDeleted {
		return report{}, false
	}
	name := p.Metadata.Name
	m := n.pods[api.KeyOf(&p.Metadata)]
	if m == nil {
		m = &podMemo{}
	}
	owner := ""
	if ref := api.GetControllerOf(&p.Metadata); ref != nil && n.owners[ownerKey(ref.Kind, p.Metadata.Namespace, ref.Name)] {
		owner = ref.Name // a live RC or replica set: its controller reports what it does to the pod
	}
	switch {
	case ev.Type == api.WatchAdded && owner != "":
		return report{reason: replication.ReasonSuccessfulCreate, involved: owner, message: "Created pod: " + name}, true
	case p.Metadata.DeletionTimestamp != nil && !m.terminating && owner != "":
		return report{reason: replication.ReasonSuccessfulDelete, involved: owner, message: "Deleted pod: " + name}, true
	case p.Spec.NodeName != "" && m.node == "":
		return report{reason: "Scheduled", involved: name, message: "Successfully assigned "}, true
	case p.Status.Phase == api.PodFailed && !m.failed && p.Status.Reason == "NodeLost":
		return report{reason: "NodeLost", involved: name, message: ""}, true
	case p.Status.Phase == api.PodRunning && !m.running:
		return report{reason: "Started", involved: name, message: "Started containers"}, true
	case podCrashed(p) && !m.crashed:
		return report{reason: "BackOff", involved: name, message: "Container exited"}, true
	case m.crashed && !podCrashed(p) && p.Status.Phase == api.PodRunning:
		return report{reason: "Started", involved: name, message: "Restarted containers"}, true
	}
	return report{}, false
}

// rsReportOf says which Event will report a replica set write: the
// deployment controller's ScalingReplicaSet, when it made the set or
// changed its size. A set it makes has a line of its own, told first.
func (n *narrator) rsReportOf(typ string, rs *api.ReplicaSet) (report, bool) {
	ref := api.GetControllerOf(&rs.Metadata)
	if ref == nil || ref.Kind != "Deployment" || typ == api.WatchDeleted {
		return report{}, false
	}
	to := replicasOf(rs)
	var from int32
	if m := n.rss[api.KeyOf(&rs.Metadata)]; m != nil {
		from = m.replicas
	} else if typ != api.WatchAdded {
		return report{}, false // a set the narrator has not seen made: it cannot say from what
	}
	op := "up"
	switch {
	case to == from:
		return report{}, false
	case to < from:
		op = "down"
	}
	return report{reason: deployment.ReasonScalingReplicaSet, involved: ref.Name,
		message: fmt.Sprintf("Scaled %s replica set %s from %d to %d", op, rs.Metadata.Name, from, to),
		after:   typ == api.WatchAdded}, true
}

func replicasOf(rs *api.ReplicaSet) int32 {
	if rs.Spec.Replicas == nil {
		return 1
	}
	return *rs.Spec.Replicas
}

// combinedPrefix starts the message of an event the recorder combined from
// similar ones (client-go's EventAggregator): from the tenth different
// message of one reason about one object within ten minutes, it bumps one
// event instead of creating more.
const combinedPrefix = "(combined from similar events): "

// findReport returns the pending Event that is want, if it has arrived: a
// new Event, or a bump of one (a combined event's, or a repeat's).
func (n *narrator) findReport(want report) *line {
	for _, l := range n.pending {
		e, ok := l.ev.Object.(*api.Event)
		if l.phase == phaseEvent && !l.told && ok && l.ev.Type != api.WatchDeleted && e.Reason == want.reason &&
			e.InvolvedObject.Name == want.involved && strings.HasPrefix(strings.TrimPrefix(e.Message, combinedPrefix), want.message) {
			return l
		}
	}
	return nil
}

// podCrashed says whether one of the pod's containers has exited.
func podCrashed(p *api.Pod) bool {
	for _, cs := range p.Status.ContainerStatuses {
		if cs.State.Terminated != nil {
			return true
		}
	}
	return false
}

// skipGapLocked gives up on a revision missing for longer than gapTimeout,
// and on a report that did not come.
func (n *narrator) skipGapLocked(now time.Time) {
	if n.holds > 0 || len(n.pending) == 0 {
		return
	}
	if top := n.pending[0]; top.rev > n.next && now.Sub(top.at) > gapTimeout {
		n.next = top.rev
	}
	n.releaseLocked()
}

// drain tells whatever is still waiting, in order, gaps or not: the story
// is over.
func (n *narrator) drain() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.holds = 0
	for len(n.pending) > 0 {
		n.tellLocked(heap.Pop(&n.pending).(*line))
	}
}

// Run watches every resource of c until ctx ends, from the resourceVersion
// rv, and tells each change in revision order. It returns once its watches
// have stopped, and tells what was still waiting.
func (n *narrator) Run(ctx context.Context, c *apiserver.Server, now func() time.Time, rv string) error {
	start, err := strconv.ParseInt(rv, 10, 64)
	if err != nil {
		return fmt.Errorf("demo: watching from %q: %w", rv, err)
	}
	n.mu.Lock()
	n.now = now
	n.next = start + 1 // a watch from rv delivers what comes after it
	n.releaseLocked()
	n.mu.Unlock()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var resources []apiserver.ResourceInfo
	for _, res := range c.Resources() {
		if res.StoredAs == "" { // each stored object once: not again through another version
			resources = append(resources, res)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(resources))
	for _, res := range resources {
		w, err := c.Watch(ctx, res.Name(), "", client.ListOptions{ResourceVersion: rv})
		if err != nil {
			cancel()
			wg.Wait()
			return fmt.Errorf("demo: watching %s: %w", res.Resource, err)
		}
		wg.Go(func() {
			defer w.Stop()
			var buf []client.WatchEvent
			for {
				select {
				case <-ctx.Done():
					return
				case <-w.Ready():
				}
				var err error
				buf, err = w.Poll(buf[:0], 0)
				n.arrived(now(), buf)
				if err != nil {
					if ctx.Err() == nil {
						errs <- fmt.Errorf("demo: watch of %s ended: %w", res.Resource, err)
						cancel()
					}
					return
				}
			}
		})
	}
	wg.Go(func() {
		tick := time.NewTicker(gapTimeout / 4)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				n.mu.Lock()
				n.skipGapLocked(now())
				n.mu.Unlock()
			}
		}
	})
	wg.Wait()
	n.drain()
	close(errs)
	return <-errs
}

// arrived queues watch events for their turn.
func (n *narrator) arrived(at time.Time, evs []client.WatchEvent) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, ev := range evs {
		rev, err := strconv.ParseInt(ev.Object.GetObjectMeta().ResourceVersion, 10, 64)
		if err != nil {
			continue // not a write (a bookmark would be; none is asked for)
		}
		n.pushLocked(&line{rev: rev, phase: phaseEvent, at: at, ev: ev})
	}
}

// observeLocked tells one watch event, if it is part of the story.
func (n *narrator) observeLocked(at time.Time, ev client.WatchEvent) {
	switch o := ev.Object.(type) {
	case *api.Event:
		// A Modified Event is a bump: the recorder saw it again (or, for
		// a combined event, a similar one).
		if ev.Type != api.WatchDeleted {
			n.event(at, o)
		}
	case *api.Pod:
		n.pod(at, ev.Type, o)
	case *api.Endpoints:
		n.endpoints(at, ev.Type, o)
	case *api.Lease:
		n.lease(at, o)
	case *api.Node:
		n.nodeStatus(at, ev.Type, o)
	case *api.ReplicationController:
		n.owners[ownerKey("ReplicationController", o.Metadata.Namespace, o.Metadata.Name)] = ev.Type != api.WatchDeleted && o.Metadata.DeletionTimestamp == nil
	case *api.ReplicaSet:
		n.owners[ownerKey("ReplicaSet", o.Metadata.Namespace, o.Metadata.Name)] = ev.Type != api.WatchDeleted && o.Metadata.DeletionTimestamp == nil
		n.replicaSet(at, ev.Type, o)
	case *api.Deployment:
		n.deployment(at, ev.Type, o)
	}
}

// event tells an Event a component recorded: that is how Kubernetes' own
// components explain what they did (kubectl get events).
func (n *narrator) event(at time.Time, e *api.Event) {
	actor := e.Source.Component
	if e.ReportingController != "" && actor == "" {
		actor = e.ReportingController
	}
	n.reasons[e.Reason]++
	n.reasons[actor+" "+e.Reason]++
	msg, combined := strings.CutPrefix(e.Message, combinedPrefix)
	if combined {
		n.combined[e.Reason]++
	}
	podKey := e.InvolvedObject.Namespace + "/" + e.InvolvedObject.Name
	switch e.Reason {
	case replication.ReasonSuccessfulCreate, replication.ReasonSuccessfulDelete:
		n.sayLocked(at, actor, "%s%s", msg, expectationsNote(e))
	case deployment.ReasonScalingReplicaSet:
		n.sayLocked(at, actor, "%s%s", msg, fencepostsNote(e))
	case "Scheduled", "FailedScheduling":
		n.sayLocked(at, "scheduler", "%s", e.Message)
	case "FailedCreate", "FailedDelete", "LeaderElection":
		n.sayLocked(at, actor, "%s", e.Message)
	case "NodeLost":
		n.sayLocked(at, "node-lifecycle", "%s: %s", e.InvolvedObject.Name, e.Message)
	case "Started", "Killing", "BackOff", "Unhealthy":
		node := ""
		if m := n.pods[podKey]; m != nil {
			node = m.node
		}
		if node == "" {
			node = e.Source.Host
		}
		n.sayLocked(at, "kubelet "+node, "%s: %s", e.InvolvedObject.Name, e.Message)
	}
}

// expectationsNote reads the expectations the replication controller
// recorded on its event when it acted; "" if it recorded none.
func expectationsNote(e *api.Event) string {
	add, okAdd := e.Metadata.Annotations[replication.AnnotationExpectedCreations]
	del, okDel := e.Metadata.Annotations[replication.AnnotationExpectedDeletions]
	if !okAdd || !okDel {
		return ""
	}
	return fmt.Sprintf(" (expectations: %s creations, %s deletions not yet observed)", add, del)
}

// fencepostsNote reads the figures the deployment controller decided a
// rolling update's step with, from its event; "" if it recorded none.
func fencepostsNote(e *api.Event) string {
	f, ok := deployment.FencepostsOf(e.Metadata.Annotations)
	if !ok {
		return ""
	}
	return fmt.Sprintf(" (max surge %d → at most %d pods, %d now; max unavailable %d → at least %d available, %d now)",
		f.MaxSurge, f.MaxPods(), f.Pods, f.MaxUnavailable, f.MinAvailable(), f.Available)
}

// replicaSet tells a deployment's replica set made, given a revision, or
// its available replicas changing; its resizes are told by the
// deployment controller's events, beside them (rsReportOf).
func (n *narrator) replicaSet(at time.Time, typ string, rs *api.ReplicaSet) {
	key := api.KeyOf(&rs.Metadata)
	name := rs.Metadata.Name
	if typ == api.WatchDeleted {
		delete(n.rss, key)
		n.sayLocked(at, "apiserver", "replica set %s is gone", name)
		return
	}
	m := n.rss[key]
	revision := rs.Metadata.Annotations[deployment.RevisionAnnotation]
	ref := api.GetControllerOf(&rs.Metadata)
	byDeployment := ref != nil && ref.Kind == "Deployment"
	switch {
	case m == nil:
		m = &rsMemo{}
		n.rss[key] = m
		if byDeployment {
			n.sayLocked(at, "deployment-controller", "created replica set %s (revision %s, pod-template-hash %s): %s",
				name, revision, rs.Metadata.Labels[deployment.PodTemplateHashLabel], images(rs.Spec.Template.Spec))
		}
	case byDeployment && revision != m.revision:
		history := ""
		if h := rs.Metadata.Annotations[deployment.RevisionHistoryAnnotation]; h != "" {
			history = ", revision-history " + h
		}
		n.sayLocked(at, "deployment-controller", "replica set %s is the new one again: revision %s (was %s%s)", name, revision, m.revision, history)
	}
	m.revision = revision
	m.replicas = replicasOf(rs)
	if avail := rs.Status.AvailableReplicas; avail != m.available && rs.Status.ObservedGeneration > 0 {
		m.available = avail
		n.sayLocked(at, "replicaset-controller", "replica set %s: %d of %d available", name, avail, rs.Status.Replicas)
	}
}

// images lists a pod template's container images.
func images(spec api.PodSpec) string {
	var out []string
	for _, c := range spec.Containers {
		out = append(out, c.Image)
	}
	return strings.Join(out, ", ")
}

// deployment tells a deployment's revision and conditions changing:
// the deployment controller's writes (the user's are told by the script).
func (n *narrator) deployment(at time.Time, typ string, d *api.Deployment) {
	key := api.KeyOf(&d.Metadata)
	if typ == api.WatchDeleted {
		delete(n.deploys, key)
		return
	}
	m := n.deploys[key]
	if m == nil {
		m = &deployMemo{conditions: map[string]string{}}
		n.deploys[key] = m
	}
	name := d.Metadata.Name
	if rev := d.Metadata.Annotations[deployment.RevisionAnnotation]; rev != m.revision {
		m.revision = rev
		n.sayLocked(at, "deployment-controller", "deployment %s is at revision %s", name, rev)
	}
	for _, c := range d.Status.Conditions {
		state := string(c.Status) + " " + c.Reason
		if m.conditions[c.Type] == state {
			continue
		}
		m.conditions[c.Type] = state
		n.sayLocked(at, "deployment-controller", "deployment %s %s=%s (%s): %s", name, c.Type, c.Status, c.Reason, c.Message)
	}
}

// pod tells a pod becoming ready or not ready, failing, or going away.
func (n *narrator) pod(at time.Time, typ string, p *api.Pod) {
	key := api.KeyOf(&p.Metadata)
	name := p.Metadata.Name
	if typ == api.WatchDeleted {
		delete(n.pods, key)
		n.sayLocked(at, "apiserver", "pod %s is gone", name)
		return
	}
	m := n.pods[key]
	if m == nil {
		m = &podMemo{}
		n.pods[key] = m
	}
	if p.Spec.NodeName != "" {
		m.node = p.Spec.NodeName
	}
	ready := api.IsPodReady(p)
	was := m.ready
	m.ready = ready
	m.running = m.running || p.Status.Phase == api.PodRunning
	m.terminating = p.Metadata.DeletionTimestamp != nil
	m.crashed = podCrashed(p)
	m.restarts = restarts(p)
	switch {
	case p.Status.Phase == api.PodFailed:
		if !m.failed {
			m.failed = true
			// The node lifecycle controller fails the pods of a lost node
			// (NodeLost); any other failure is the pod's own kubelet's.
			if p.Status.Reason == nodelifecycle.ReasonNodeLost {
				n.sayLocked(at, "node-lifecycle", "pod %s failed: %s (%s)", name, p.Status.Reason, p.Status.Message)
			} else {
				n.sayLocked(at, "kubelet "+p.Spec.NodeName, "pod %s failed", name)
			}
		}
	case ready && !was:
		n.sayLocked(at, "kubelet "+p.Spec.NodeName, "pod %s is ready at %s", name, p.Status.PodIP)
	case !ready && was && p.Metadata.DeletionTimestamp == nil:
		// Who wrote it is in the condition: the node lifecycle controller
		// marks the pods of a node that stopped reporting (reason
		// NodeNotReady); otherwise it is the pod's own kubelet.
		if c := readyCondition(p); c != nil && c.Reason == "NodeNotReady" {
			n.sayLocked(at, "node-lifecycle", "pod %s is not ready: %s", name, c.Message)
			return
		}
		n.sayLocked(at, "kubelet "+p.Spec.NodeName, "pod %s is not ready (restarts: %d)", name, m.restarts)
	}
}

func readyCondition(p *api.Pod) *api.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == api.PodReady {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

func restarts(p *api.Pod) int32 {
	var r int32
	for _, cs := range p.Status.ContainerStatuses {
		r += cs.RestartCount
	}
	return r
}

// nodeStatus tells a node's Ready condition changing after it registered.
func (n *narrator) nodeStatus(at time.Time, typ string, node *api.Node) {
	name := node.Metadata.Name
	var cond *api.NodeCondition
	for i := range node.Status.Conditions {
		if node.Status.Conditions[i].Type == api.NodeReady {
			cond = &node.Status.Conditions[i]
		}
	}
	up := cond == nil || cond.Status == api.ConditionTrue
	was, known := n.nodeUp[name]
	n.nodeUp[name] = up
	if typ == api.WatchDeleted || !known || was == up || cond == nil {
		return
	}
	if up {
		n.sayLocked(at, "kubelet "+name, "node %s is Ready again: %s", name, cond.Message)
		return
	}
	n.sayLocked(at, "node-lifecycle", "node %s is %s: %s", name, cond.Status, cond.Message)
}

// endpoints tells the addresses behind a Service when they change.
func (n *narrator) endpoints(at time.Time, typ string, e *api.Endpoints) {
	key := api.KeyOf(&e.Metadata)
	if typ == api.WatchDeleted {
		delete(n.eps, key)
		n.sayLocked(at, "endpoint-controller", "endpoints %s deleted with their service", e.Metadata.Name)
		return
	}
	ready, notReady := endpointIPs(e)
	desc := describeAddresses(ready, notReady)
	if n.eps[key] == desc {
		return
	}
	n.eps[key] = desc
	n.sayLocked(at, "endpoint-controller", "endpoints %s: %s", e.Metadata.Name, desc)
}

// describeAddresses says which addresses an Endpoints object lists.
func describeAddresses(ready, notReady []string) string {
	switch {
	case len(ready) == 0 && len(notReady) == 0:
		return "no addresses"
	case len(notReady) == 0:
		return fmt.Sprintf("%d ready %v", len(ready), ready)
	case len(ready) == 0:
		return fmt.Sprintf("%d not ready %v", len(notReady), notReady)
	}
	return fmt.Sprintf("%d ready %v, %d not ready %v", len(ready), ready, len(notReady), notReady)
}

// endpointIPs returns the sorted ready and not-ready addresses of e.
func endpointIPs(e *api.Endpoints) (ready, notReady []string) {
	for _, s := range e.Subsets {
		for _, a := range s.Addresses {
			ready = append(ready, a.IP)
		}
		for _, a := range s.NotReadyAddresses {
			notReady = append(notReady, a.IP)
		}
	}
	slices.Sort(ready)
	slices.Sort(notReady)
	return ready, notReady
}

// lease tells a change of a lease's holder. The kubelets' node Leases in
// kube-node-lease are heartbeats, not an election: they are not told.
func (n *narrator) lease(at time.Time, l *api.Lease) {
	if l.Metadata.Namespace == api.NamespaceNodeLease {
		return
	}
	key := api.KeyOf(&l.Metadata)
	holder := ""
	if l.Spec.HolderIdentity != nil {
		holder = *l.Spec.HolderIdentity
	}
	if n.holder[key] == holder {
		return
	}
	n.holder[key] = holder
	if holder == "" {
		n.sayLocked(at, "leader-election", "lease %s released", l.Metadata.Name)
		return
	}
	var transitions int32
	if l.Spec.LeaseTransitions != nil {
		transitions = *l.Spec.LeaseTransitions
	}
	n.sayLocked(at, "leader-election", "%s holds lease %s (transitions: %d)", holder, l.Metadata.Name, transitions)
}
