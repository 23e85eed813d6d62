package sim

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/controllers/manager"
	"github.com/miniplane/miniplane/informer"
	"github.com/miniplane/miniplane/store"
)

// stepKind is what a candidate step does.
type stepKind uint8

const (
	stepReflector stepKind = iota // pump a reflector: list, watch, or deliver watch events
	stepPop                       // pop one key's deltas into the cache
	stepDispatch                  // hand one notification to one handler
	stepResync                    // queue due handler resyncs
	stepStart                     // a synced controller's start-up work
	stepSync                      // one controller work item
	stepElect                     // one election round
	stepSweep                     // end due grace periods
	stepMonitors                  // a controller's sync of the informers of its own (monitoring)
)

// candidate is one step that may have work.
type candidate struct {
	kind stepKind
	in   *instance // nil for nodesim and the server
	ni   *namedInformer
	reg  *informer.Registration // for stepDispatch
	c    *ctrlState
}

// collect appends every step that may have work now, in a fixed order.
func (s *Sim) collect(out []candidate, now time.Time) []candidate {
	if at, ok := s.srv.NextSweep(); ok && !at.After(now) {
		out = append(out, candidate{kind: stepSweep})
	}
	state := idleState{rev: s.srv.Store().Rev(), at: now, epoch: s.epoch}
	s.eachInformer(func(in *instance, ni *namedInformer) {
		if !ni.held {
			if ni.idle != state {
				if ni.inf.Reflector().Pending() {
					out = append(out, candidate{kind: stepReflector, in: in, ni: ni})
				} else {
					ni.idle = state
				}
			}
			if ni.fifoMaybe {
				if f := ni.inf.FIFO(); f.Len() > 0 || (!ni.inf.HasSynced() && f.HasSynced()) {
					out = append(out, candidate{kind: stepPop, in: in, ni: ni})
				} else {
					ni.fifoMaybe = false
				}
			}
		}
		if ni.regsMaybe {
			n := len(out)
			for _, r := range ni.regs {
				if r.Pending() > 0 {
					out = append(out, candidate{kind: stepDispatch, in: in, ni: ni, reg: r})
				}
			}
			ni.regsMaybe = len(out) > n
		}
		if !ni.resyncAt.IsZero() && !now.Before(ni.resyncAt) {
			out = append(out, candidate{kind: stepResync, in: in, ni: ni})
		}
	})
	out = s.collectController(out, nil, s.nodeCtrl)
	for _, c := range s.clusterCtrls {
		out = s.collectController(out, nil, c)
	}
	for _, in := range s.instances {
		if !in.up {
			continue
		}
		if !in.paused && !in.electAt.IsZero() && !now.Before(in.electAt) {
			out = append(out, candidate{kind: stepElect, in: in})
		}
		for _, c := range in.ctrls {
			out = s.collectController(out, in, c)
		}
	}
	return out
}

func (s *Sim) collectController(out []candidate, in *instance, c *ctrlState) []candidate {
	switch {
	case !c.started:
		if c.c.HasSynced() {
			out = append(out, candidate{kind: stepStart, in: in, c: c})
		}
	case c.queue == nil || c.queue.Len() > 0:
		out = append(out, candidate{kind: stepSync, in: in, c: c})
	}
	if m, ok := c.c.(monitoring); ok && in != nil && c.started && m.MonitorsPending() {
		out = append(out, candidate{kind: stepMonitors, in: in, c: c})
	}
	return out
}

// run takes a candidate step and traces it; it reports whether the step
// did anything.
func (s *Sim) run(ctx context.Context, c candidate) bool {
	switch c.kind {
	case stepSweep:
		from := s.srv.Store().Rev() + 1
		n := s.srv.Sweep()
		if n == 0 {
			return false
		}
		s.dirty = true
		s.recordServerWrites(from)
		s.record(Event{Actor: "apiserver", Kind: "sweep", Detail: strconv.Itoa(n)})
	case stepReflector:
		r := c.ni.inf.Reflector()
		before := r.Stats()
		if !r.Step(ctx) {
			return false
		}
		c.ni.fifoMaybe = true
		kind := "events"
		switch after := r.Stats(); {
		case after.Lists != before.Lists:
			kind = "list"
		case after.Watches != before.Watches:
			kind = "watch"
		}
		s.record(Event{Actor: c.ni.name, Kind: kind, Detail: "rv=" + r.LastSyncResourceVersion()})
	case stepPop:
		synced := c.ni.inf.HasSynced()
		if !c.ni.inf.ProcessOne() {
			if synced || !c.ni.inf.HasSynced() {
				return false
			}
			// An empty first list: nothing popped, but the informer has
			// synced, and its handlers with it.
			s.record(Event{Actor: c.ni.name, Kind: "synced"})
			return true
		}
		c.ni.regsMaybe = true
		s.record(Event{Actor: c.ni.name, Kind: "pop", Detail: "left=" + strconv.Itoa(c.ni.inf.FIFO().Len())})
	case stepDispatch:
		if !c.reg.DispatchOne() {
			return false
		}
		s.record(Event{Actor: c.ni.name + "#" + strconv.Itoa(slices.Index(c.ni.regs, c.reg)), Kind: "dispatch"})
	case stepResync:
		s.noteResync(c.in, c.ni)
		s.record(Event{Actor: c.ni.name, Kind: "resync"})
	case stepStart:
		s.startController(c.c)
		s.record(Event{Actor: actorOf(c.in, c.c.name), Kind: "start"})
	case stepSync:
		return s.runSync(ctx, c.in, c.c)
	case stepMonitors:
		detail := s.syncMonitors(ctx, c.in, c.c, c.c.c.(monitoring))
		s.record(Event{Actor: actorOf(c.in, c.c.name), Kind: "monitors", Detail: detail})
	case stepElect:
		detail := s.stepElector(ctx, c.in)
		s.record(Event{Actor: c.in.name + "/elector", Kind: "elect", Detail: detail})
	}
	return true
}

func actorOf(in *instance, name string) string {
	if in == nil {
		return name
	}
	return in.name + "/" + name
}

// runSync takes one controller work item and traces it with the key it
// took, its kind, and the outcome, read from the queue around the step: a
// key whose failures rose was queued again with backoff ("error"), one
// the queue still holds otherwise was queued again ("requeue").
func (s *Sim) runSync(ctx context.Context, in *instance, c *ctrlState) bool {
	var key string
	var failures int
	if c.queue != nil {
		key, _ = c.queue.Peek()
		failures = c.queue.NumRequeues(key)
	}
	if !c.c.ProcessOne(ctx) {
		return false
	}
	ev := Event{Actor: actorOf(in, c.name), Kind: "sync", Queue: -1, Outcome: "ok"}
	if c.queue != nil {
		ev.Queue = c.queue.Len()
		if key == "" {
			ev.Outcome = "idle"
		} else {
			ev.Key = syncKey(c.name, key)
			switch {
			case c.queue.NumRequeues(key) > failures:
				ev.Outcome = "error"
			case c.queue.Holds(key):
				ev.Outcome = "requeue"
			}
		}
	}
	s.record(ev)
	return true
}

// syncKey names a built-in controller's queue key with the kind it keys:
// the replication controller's are ReplicationControllers, the endpoints
// controller's Services, nodesim's, the scheduler's and the node
// lifecycle controller's Pods (and Nodes, which have no namespace). The garbage collector's keys (uids) and other controllers'
// are left as they are.
func syncKey(controller, key string) string {
	switch controller {
	case manager.ReplicationController:
		return "ReplicationController " + key
	case manager.Endpoint:
		return "Service " + key
	case "nodesim", "scheduler", "nodelifecycle":
		if strings.Contains(key, "/") {
			return "Pod " + key
		}
		return "Node " + key
	}
	return key
}

// recordServerWrites traces the writes the server made on its own since
// revision from (ended grace periods, namespace cleanup), one line each,
// as the clients' writes are traced.
func (s *Sim) recordServerWrites(from int64) {
	if from > s.srv.Store().Rev() {
		return
	}
	w, err := s.srv.Store().Watch("/", from)
	if err != nil {
		panic("sim: watching the writes just made: " + err.Error()) // they are in the history window
	}
	defer w.Stop()
	evs, _, err := w.Poll(nil, 0)
	if err != nil {
		panic("sim: reading the writes just made: " + err.Error())
	}
	for _, ev := range evs {
		rec, verb := ev.Record, "update"
		if ev.Type == store.Deleted {
			rec, verb = ev.Prev, "delete"
		}
		obj := rec.Value
		if obj == nil {
			continue
		}
		st := stateOf(obj)
		st.Gone = ev.Type == store.Deleted
		s.record(Event{Actor: "apiserver", Kind: verb, Key: kindOf(obj) + " " + api.KeyOf(obj.GetObjectMeta()),
			Rev: ev.Rev, Obj: objJSON(st)})
	}
}
