package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
)

// narrator turns what the control plane does into short lines a person can
// follow: it watches pods, endpoints, leases and events through the API
// server, as kubectl get -w would, and says what changed and who did it.
// The demo's script uses it for its own lines too, so the story and the
// system's reactions come out in one order.
type narrator struct {
	out   io.Writer
	color bool
	start time.Time

	// mu guards the output, changed and the last-seen state below.
	mu      sync.Mutex
	changed chan struct{} // closed and replaced at every observed change
	ready   map[string]bool
	eps     map[string]string
	holder  map[string]string
	reasons map[string]int // events seen, by reason
	failed  map[string]bool
	node    map[string]string // pod key -> node, for the kubelet's lines

	// expectations, if set, reports the leading replication controller's
	// outstanding expectations for an RC key.
	expectations func(rcKey string) (add, del int, ok bool)
}

func newNarrator(out io.Writer, color bool, start time.Time) *narrator {
	return &narrator{
		out: out, color: color, start: start,
		changed: make(chan struct{}),
		ready:   map[string]bool{},
		eps:     map[string]string{},
		holder:  map[string]string{},
		reasons: map[string]int{},
		failed:  map[string]bool{},
		node:    map[string]string{},
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

// chapter prints a heading.
func (n *narrator) chapter(format string, a ...any) {
	n.mu.Lock()
	defer n.mu.Unlock()
	fmt.Fprintf(n.out, "\n%s\n", n.paint(ansiBold, fmt.Sprintf(format, a...)))
}

// plain prints a line of the story without an actor.
func (n *narrator) plain(format string, a ...any) {
	n.mu.Lock()
	defer n.mu.Unlock()
	fmt.Fprintf(n.out, "  %s\n", fmt.Sprintf(format, a...))
}

// say prints one line: the time since the start, who acted, and what
// happened.
func (n *narrator) say(at time.Time, actor, format string, a ...any) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.sayLocked(at, actor, format, a...)
}

func (n *narrator) sayLocked(at time.Time, actor, format string, a ...any) {
	elapsed := at.Sub(n.start).Seconds()
	if elapsed < 0 {
		elapsed = 0
	}
	fmt.Fprintf(n.out, "  %s  %s %s\n",
		n.paint(ansiDim, fmt.Sprintf("%5.1fs", elapsed)),
		n.paint(actorColour(actor), fmt.Sprintf("%-22s", actor)),
		fmt.Sprintf(format, a...))
}

func actorColour(actor string) string {
	switch {
	case strings.HasPrefix(actor, "replication"):
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

// Changed returns a channel closed at the next change the narrator sees.
func (n *narrator) Changed() <-chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.changed
}

func (n *narrator) notifyLocked() {
	close(n.changed)
	n.changed = make(chan struct{})
}

// count returns how many events with the reason the narrator has seen.
func (n *narrator) count(reason string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.reasons[reason]
}

// watchedResources are what the narrator follows.
var watchedResources = []string{apiserver.Events, apiserver.Pods, apiserver.Endpoints, apiserver.Leases}

// Run watches until ctx ends, from the resourceVersion rv, narrating each
// change. It returns once its watches have stopped.
func (n *narrator) Run(ctx context.Context, c apiserver.Client, now func() time.Time, rv string) error {
	var wg sync.WaitGroup
	errs := make(chan error, len(watchedResources))
	for _, res := range watchedResources {
		w, err := c.Watch(ctx, res, "", apiserver.ListOptions{ResourceVersion: rv})
		if err != nil {
			return fmt.Errorf("demo: watching %s: %w", res, err)
		}
		wg.Go(func() {
			defer w.Stop()
			var buf []apiserver.WatchEvent
			for {
				select {
				case <-ctx.Done():
					return
				case <-w.Ready():
				}
				var err error
				buf, err = w.Poll(buf[:0], 0)
				for _, ev := range buf {
					n.observe(now(), ev)
				}
				if err != nil {
					if ctx.Err() == nil {
						errs <- fmt.Errorf("demo: watch of %s ended: %w", res, err)
					}
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// observe narrates one watch event, if it is part of the story.
func (n *narrator) observe(at time.Time, ev apiserver.WatchEvent) {
	n.mu.Lock()
	defer n.mu.Unlock()
	defer n.notifyLocked()
	switch o := ev.Object.(type) {
	case *api.Event:
		if ev.Type == api.WatchAdded {
			n.event(at, o)
		}
	case *api.Pod:
		n.pod(at, ev.Type, o)
	case *api.Endpoints:
		n.endpoints(at, ev.Type, o)
	case *api.Lease:
		n.lease(at, o)
	}
}

// event narrates an Event a controller recorded: that is how Kubernetes'
// own components explain what they did (kubectl get events).
func (n *narrator) event(at time.Time, e *api.Event) {
	actor := e.Source.Component
	if e.ReportingController != "" && actor == "" {
		actor = e.ReportingController
	}
	n.reasons[e.Reason]++
	switch e.Reason {
	case "SuccessfulCreate", "SuccessfulDelete":
		line := e.Message
		if n.expectations != nil {
			key := e.InvolvedObject.Namespace + "/" + e.InvolvedObject.Name
			if add, del, ok := n.expectations(key); ok {
				line += fmt.Sprintf(" (expectations: %d creations, %d deletions not yet observed)", max(add, 0), max(del, 0))
			}
		}
		n.sayLocked(at, actor, "%s", line)
	case "Scheduled", "FailedScheduling":
		n.sayLocked(at, "scheduler", "%s", e.Message)
	case "FailedCreate", "FailedDelete", "NodeNotReady", "LeaderElection":
		n.sayLocked(at, actor, "%s", e.Message)
	case "Started", "Killing", "BackOff":
		node := n.node[e.InvolvedObject.Namespace+"/"+e.InvolvedObject.Name]
		n.sayLocked(at, "kubelet "+node, "%s: %s", e.InvolvedObject.Name, e.Message)
	}
}

// pod narrates a pod becoming ready or not ready, failing, or going away.
func (n *narrator) pod(at time.Time, typ string, p *api.Pod) {
	key := api.KeyOf(&p.Metadata)
	name := p.Metadata.Name
	if typ == api.WatchDeleted {
		delete(n.ready, key)
		delete(n.failed, key)
		delete(n.node, key)
		n.sayLocked(at, "apiserver", "pod %s is gone", name)
		return
	}
	if p.Spec.NodeName != "" {
		n.node[key] = p.Spec.NodeName
	}
	ready := api.IsPodReady(p)
	was := n.ready[key]
	n.ready[key] = ready
	switch {
	case p.Status.Phase == api.PodFailed:
		if !n.failed[key] {
			n.failed[key] = true
			n.sayLocked(at, "node-lifecycle", "pod %s failed: %s (%s)", name, p.Status.Reason, p.Status.Message)
		}
	case ready && !was:
		n.sayLocked(at, "kubelet "+p.Spec.NodeName, "pod %s is ready at %s", name, p.Status.PodIP)
	case !ready && was && p.Metadata.DeletionTimestamp == nil:
		n.sayLocked(at, "kubelet "+p.Spec.NodeName, "pod %s is not ready (restarts: %d)", name, restarts(p))
	}
}

func restarts(p *api.Pod) int32 {
	var r int32
	for _, cs := range p.Status.ContainerStatuses {
		r += cs.RestartCount
	}
	return r
}

// endpoints narrates the addresses behind a Service when they change.
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

// lease narrates a change of a lease's holder.
func (n *narrator) lease(at time.Time, l *api.Lease) {
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
