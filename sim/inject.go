package sim

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
)

// discreteFaults are the faults that strike at a moment (the others act on
// every write, or from the start).
var discreteFaults = []Fault{WatchClose, Compact, StaleCache, Crash, Pause, PodCrash, NodeDown}

// between draws a duration in [lo, hi), in whole milliseconds so the
// trace's times stay readable.
func between(r interface{ Int64N(int64) int64 }, lo, hi time.Duration) time.Duration {
	return lo + time.Duration(r.Int64N(int64((hi-lo)/time.Millisecond)))*time.Millisecond
}

func (s *Sim) scheduleNextFault() {
	for _, f := range discreteFaults {
		if s.cfg.Faults.Has(f) {
			s.nextFault = s.clock.Now().Add(between(s.faultRand, s.cfg.FaultEvery/2, s.cfg.FaultEvery*3/2))
			return
		}
	}
	s.nextFault = time.Time{}
}

func (s *Sim) injectRandomFault(ctx context.Context) {
	var options []Fault
	for _, f := range discreteFaults {
		if s.cfg.Faults.Has(f) {
			options = append(options, f)
		}
	}
	if len(options) == 0 {
		return
	}
	f := options[s.faultRand.IntN(len(options))]
	if err := s.Inject(ctx, f); err != nil {
		s.record(Event{Actor: "fault", Kind: f.String(), Detail: "not injected: " + err.Error()})
	}
}

// faultEvent traces fault f striking target, a component ("m1",
// "m0/pods"), or key, an object with its kind ("Node node-1").
func (s *Sim) faultEvent(f Fault, target, key, detail string) {
	s.epoch++ // a watch may have closed, a history been compacted
	s.dirty = true
	s.record(Event{Actor: "fault", Kind: f.String(), Key: key, Target: target, Fault: true, Detail: detail})
}

// healAfter schedules heal after a drawn delay; the system does not count
// as quiet until it has run.
func (s *Sim) healAfter(lo, hi time.Duration, target, key string, heal func(ctx context.Context)) time.Duration {
	d := between(s.faultRand, lo, hi)
	s.unhealed++
	s.schedule(s.clock.Now().Add(d), true, func(ctx context.Context) {
		s.unhealed--
		heal(ctx)
		s.record(Event{Actor: "fault", Kind: "heal", Key: key, Target: target})
	})
	return d
}

// Inject injects one fault now, on a target drawn from the seed, and
// schedules its healing. It fails, changing nothing, when the fault has no
// target (no open watch, no running pod, no leader to pause, ...).
func (s *Sim) Inject(ctx context.Context, f Fault) error {
	switch f {
	case WatchClose:
		s.watches = slices.DeleteFunc(s.watches, func(w *simWatch) bool { return w.stopped })
		if len(s.watches) == 0 {
			return fmt.Errorf("no open watch")
		}
		w := s.watches[s.faultRand.IntN(len(s.watches))]
		w.Stop()
		s.faultEvent(f, w.name, "", "watch closed")
	case Compact:
		rev := s.srv.Store().Rev()
		if err := s.srv.Compact(rev); err != nil {
			return err
		}
		s.faultEvent(f, "", "", fmt.Sprintf("history compacted to revision %d", rev))
	case StaleCache:
		var targets []*namedInformer
		s.eachInformer(func(_ *instance, ni *namedInformer) {
			if !ni.held && staleTargets[ni.name[strings.LastIndexByte(ni.name, '/')+1:]] {
				targets = append(targets, ni)
			}
		})
		if len(targets) == 0 {
			return fmt.Errorf("no informer to hold back")
		}
		ni := targets[s.faultRand.IntN(len(targets))]
		d := between(s.faultRand, 2*time.Second, 30*time.Second)
		s.Hold(ni.name, d)
	case Crash:
		in := s.pickInstance(func(in *instance) bool { return in.up })
		if in == nil {
			return fmt.Errorf("no instance is up")
		}
		s.Crash(in.name, between(s.faultRand, 5*time.Second, 40*time.Second))
	case Pause:
		in := s.pickInstance(func(in *instance) bool { return in.up && !in.paused && in.term != 0 })
		if in == nil {
			return fmt.Errorf("no leader to pause")
		}
		in.paused = true
		d := s.healAfter(5*time.Second, 30*time.Second, in.name+"/elector", "", func(context.Context) {
			in.paused = false
			in.electAt = s.clock.Now()
		})
		s.faultEvent(f, in.name+"/elector", "", "elector paused for "+d.String())
	case PodCrash:
		var running []*api.Pod
		for _, p := range s.pods("") {
			if p.Status.Phase == api.PodRunning && p.Metadata.DeletionTimestamp == nil {
				running = append(running, p)
			}
		}
		if len(running) == 0 {
			return fmt.Errorf("no running pod")
		}
		p := running[s.faultRand.IntN(len(running))]
		if err := s.nodes.CrashPod(ctx, p.Metadata.Namespace, p.Metadata.Name); err != nil { // no write: cannot fail by injection
			return err
		}
		s.faultEvent(f, "", "Pod "+api.KeyOf(&p.Metadata), "containers exit 1")
	case NodeDown:
		l, err := s.srv.List(ctx, client.Nodes, "", client.ListOptions{})
		if err != nil {
			return err
		}
		var up []string
		for _, o := range l.Items {
			if n := o.(*api.Node); nodeIsReady(n) {
				up = append(up, n.Metadata.Name)
			}
		}
		if len(up) < 2 {
			return fmt.Errorf("only %d node up; keeping it", len(up))
		}
		node := up[s.faultRand.IntN(len(up))]
		if err := s.unfaulted(func() error { return s.nodes.NodeDown(ctx, node) }); err != nil {
			return err
		}
		d := s.healAfter(10*time.Second, 60*time.Second, "", "Node "+node, func(ctx context.Context) {
			if err := s.unfaulted(func() error { return s.nodes.NodeUp(ctx, node) }); err != nil {
				s.violate("fault-heals", fmt.Sprintf("bringing node %s back up: %v", node, err))
			}
		})
		s.faultEvent(f, "", "Node "+node, "down for "+d.String())
	default:
		return fmt.Errorf("%v is not a fault that strikes at a moment", f)
	}
	return nil
}

func nodeIsReady(n *api.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == api.NodeReady {
			return c.Status == api.ConditionTrue
		}
	}
	return false
}

// staleTargets are the resources whose informers StaleCache holds back:
// those the controllers act on.
var staleTargets = map[string]bool{
	client.Pods: true, client.ReplicationControllers: true, client.Services: true,
	client.Endpoints: true, client.Nodes: true,
}

// Hold holds back the informer named name ("m0/pods", "nodesim/nodes") for
// d: its reflector and FIFO are not stepped, so its cache falls behind the
// store, and what is already queued for its handlers is still delivered.
// It reports whether there was such an informer, not held already.
func (s *Sim) Hold(name string, d time.Duration) bool {
	var target *namedInformer
	s.eachInformer(func(_ *instance, ni *namedInformer) {
		if ni.name == name && !ni.held {
			target = ni
		}
	})
	if target == nil {
		return false
	}
	target.held = true
	s.unhealed++
	s.schedule(s.clock.Now().Add(d), true, func(context.Context) {
		s.unhealed--
		target.held = false
		s.record(Event{Actor: "fault", Kind: "heal", Target: name})
	})
	s.faultEvent(StaleCache, name, "", "deliveries held for "+d.String())
	return true
}

// maybeHoldAfterWrite is the sharpest stale-cache fault, Sieve's: when a
// fault is due, a controller's write may be followed at once by holding
// back its own instance's informer of what it wrote, so its next sync
// reads a cache that has not seen the write.
func (s *Sim) maybeHoldAfterWrite(in *instance, obj api.Object) {
	now := s.clock.Now()
	if !s.injecting || !s.cfg.Faults.Has(StaleCache) || s.nextFault.IsZero() || now.Before(s.nextFault) || obj == nil {
		return
	}
	if s.faultRand.IntN(2) != 0 {
		return
	}
	resource, _, _ := objName(obj)
	if s.Hold(in.name+"/"+resource, between(s.faultRand, 2*time.Second, 30*time.Second)) {
		s.scheduleNextFault()
	}
}

// unfaulted runs fn, the fault injector's own write, with no write fault
// injected into it.
func (s *Sim) unfaulted(fn func() error) error {
	was := s.injecting
	s.injecting = false
	defer func() { s.injecting = was }()
	return fn()
}

// pickInstance draws one of the instances that satisfy ok.
func (s *Sim) pickInstance(ok func(*instance) bool) *instance {
	var fit []*instance
	for _, in := range s.instances {
		if ok(in) {
			fit = append(fit, in)
		}
	}
	if len(fit) == 0 {
		return nil
	}
	return fit[s.faultRand.IntN(len(fit))]
}

// Crash crashes the named instance now — its caches, queues, expectations
// and controllers are lost, its watches end — and restarts it fresh after
// down. A crashed leader does not release its lease.
func (s *Sim) Crash(name string, down time.Duration) {
	for _, in := range s.instances {
		if in.name != name || !in.up {
			continue
		}
		s.crashInstance(in)
		s.unhealed++
		s.schedule(s.clock.Now().Add(down), true, func(context.Context) {
			s.unhealed--
			if err := s.startInstance(in); err != nil {
				s.violate("fault-heals", err.Error())
			}
			s.record(Event{Actor: "fault", Kind: "heal", Target: in.name, Detail: "restarted"})
		})
		s.faultEvent(Crash, in.name, "", "down for "+down.String())
	}
}

// Leader returns the name of the instance whose controllers run, or "".
func (s *Sim) Leader() string {
	if in := s.leader(); in != nil {
		return in.name
	}
	return ""
}
