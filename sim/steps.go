package sim

import (
	"context"
	"slices"
	"strconv"
	"time"

	"github.com/miniplane/miniplane/informer"
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
	return out
}

// run takes a candidate step and traces it; it reports whether the step
// did anything.
func (s *Sim) run(ctx context.Context, c candidate) bool {
	switch c.kind {
	case stepSweep:
		n := s.srv.Sweep()
		if n == 0 {
			return false
		}
		s.dirty = true
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
		if !c.c.c.ProcessOne(ctx) {
			return false
		}
		detail := ""
		if c.c.queue != nil {
			detail = "left=" + strconv.Itoa(c.c.queue.Len())
		}
		s.record(Event{Actor: actorOf(c.in, c.c.name), Kind: "sync", Detail: detail})
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
