// Package record writes Kubernetes Events about objects through a
// client.Client, correlating repeats, aggregating similar messages and
// filtering spam as client-go's recorder does. Kubernetes: client-go
// tools/record. It imports api, api/apierrors and client, never the server;
// an EventRecorder is safe for concurrent use.
package record

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"sync"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
)

// The recorder's correlation, with client-go's defaults (tools/record,
// EventCorrelator).
const (
	// maxRecordedEvents bounds the objects the recorder remembers (the
	// events about each it may bump, its aggregation groups, its spam
	// bucket); past it, all is forgotten and starts again (client-go keeps
	// an LRU of 4096 for each of these memories).
	maxRecordedEvents = 4096
	// aggregateMaxEvents is how many different messages of one reason about
	// one object, within aggregateInterval, are recorded as themselves; from
	// then on they are combined into one event whose count goes up.
	aggregateMaxEvents = 10
	aggregateInterval  = 10 * time.Minute
	// spamBurst events from this recorder about one object are let through
	// at once; then one more every spamRefill. The rest are dropped.
	spamBurst  = 25
	spamRefill = 5 * time.Minute
	// combinedPrefix starts the message of an aggregated event.
	combinedPrefix = "(combined from similar events): "
	// memorySlab is how many object memories are made in one allocation:
	// 64 of 240 bytes fill a 16 KiB size class.
	memorySlab = 64
)

// EventRecorder writes Kubernetes Events about objects, so that `kubectl
// describe` can show what a controller did and why. It correlates events
// as client-go's recorder does by default:
//
//   - an event that repeats one already written (same object, type, reason
//     and message) bumps that event's count and lastTimestamp instead of
//     creating another;
//   - from the tenth different message of one reason about one object
//     within ten minutes, the messages are combined into a single event,
//     "(combined from similar events): <latest message>", whose count goes
//     up (a controller creating 100 pods writes 10 events, not 100);
//   - it writes at most 25 events about one object at once, then one more
//     every five minutes, and drops the rest: a spam filter.
//
// Writes are synchronous, through the Client. Correlation is decided under
// one lock, but the writes are not made under it: writes about different
// events proceed in parallel, and writes about one event (its create, then
// its bumps) one at a time, in the order their callers were correlated. A
// simulated run, which calls from one goroutine, records the same events
// every time. Time comes from the injected clock. Kubernetes: client-go
// tools/record (EventCorrelator).
type EventRecorder struct {
	c         client.Client
	clock     clock.Clock
	component string // source.component and reportingComponent
	instance  string // source.host and reportingInstance

	// mu guards the fields below; it is never held across a write.
	mu sync.Mutex
	// objects holds what the recorder remembers of each object: one map
	// lookup per event, where a map per memory took three, each hashing
	// the object's four strings and more.
	objects map[objectKey]*objectMemory
	// slab holds the memories not yet handed out; a new object's memory is
	// taken from it, memorySlab made at a time (see newMemoryLocked).
	slab []objectMemory
	// lastNanos is the time suffix of the last event name made.
	lastNanos int64
}

// writtenEvent is one event the recorder writes and bumps.
type writtenEvent struct {
	// mu is held across each write of the event, so that its create and
	// bumps do not race; it guards ev, the event as last written (nil
	// before it is created, or after it was found deleted).
	mu sync.Mutex
	ev *api.Event
}

// objectKey names the object an event is about.
type objectKey struct {
	namespace, kind, name string
	uid                   api.UID
}

// objectMemory is what the recorder remembers of one object: its spam
// bucket, its aggregation groups (one per type and reason) and the events
// about it that a repeat bumps. The first group and event live in the
// memory itself (most objects, a pod with its Scheduled or Started event,
// never have a second): no allocation of its own per object, the memories
// coming from slabs (newMemoryLocked).
type objectMemory struct {
	bucket  spamBucket
	groups  []eventGroup
	written []writtenSlot

	group0   [1]eventGroup
	written0 [1]writtenSlot
	event0   writtenEvent
}

// writtenSlot names an event of the object that a repeat bumps: one message
// of a type and reason, or combinedPrefix for the group's combined event.
type writtenSlot struct {
	typ, reason, message string
	w                    *writtenEvent
}

// eventGroup is the distinct messages of one type and reason about an
// object seen lately: first, and the others in more, made at the second
// (most groups, a pod's Scheduled or Started, never see one).
type eventGroup struct {
	typ, reason string
	first       string
	hasFirst    bool
	more        map[string]struct{}
	last        time.Time
}

// seen reports whether the group has seen msg.
func (g *eventGroup) seen(msg string) bool {
	if g.hasFirst && g.first == msg {
		return true
	}
	_, ok := g.more[msg]
	return ok
}

// count returns how many distinct messages the group has seen.
func (g *eventGroup) count() int {
	if !g.hasFirst {
		return 0
	}
	return 1 + len(g.more)
}

// add notes a message the group has not seen.
func (g *eventGroup) add(msg string) {
	switch {
	case !g.hasFirst:
		g.first, g.hasFirst = msg, true
	case g.more == nil:
		g.more = map[string]struct{}{msg: {}}
	default:
		g.more[msg] = struct{}{}
	}
}

// spamBucket is a token bucket: tokens left as of when.
type spamBucket struct {
	tokens float64
	when   time.Time
}

// NewEventRecorder returns a recorder writing events as component (e.g.
// "replication-controller") from instance (a host or instance name).
func NewEventRecorder(c client.Client, clk clock.Clock, component, instance string) *EventRecorder {
	return &EventRecorder{
		c: c, clock: clk, component: component, instance: instance,
		objects: make(map[objectKey]*objectMemory),
	}
}

// Eventf records an event of eventType (api.EventTypeNormal or
// api.EventTypeWarning) about obj, with a message built like fmt.Sprintf.
// An event the spam filter drops is not an error.
func (r *EventRecorder) Eventf(ctx context.Context, obj api.Object, eventType, reason, format string, args ...any) error {
	return r.AnnotatedEventf(ctx, obj, nil, eventType, reason, format, args...)
}

// Event records an event with message as it is, unformatted: Eventf
// without the formatting, for a caller that has its message already (it
// spares a Sprintf and the boxing of its arguments). Kubernetes: client-go's
// EventRecorder.Event.
func (r *EventRecorder) Event(ctx context.Context, obj api.Object, eventType, reason, message string) error {
	return r.record(ctx, obj, nil, eventType, reason, message)
}

// AnnotatedEventf is Eventf with annotations on the Event: facts a component
// had when it acted, for readers that need them exactly (the demo's
// narrator), without changing the message `kubectl describe` shows. An
// event that bumps an earlier one replaces its annotations. Kubernetes:
// client-go's EventRecorder.AnnotatedEventf.
func (r *EventRecorder) AnnotatedEventf(ctx context.Context, obj api.Object, annotations map[string]string, eventType, reason, format string, args ...any) error {
	return r.record(ctx, obj, annotations, eventType, reason, fmt.Sprintf(format, args...))
}

// record correlates and writes one event with its message made.
func (r *EventRecorder) record(ctx context.Context, obj api.Object, annotations map[string]string, eventType, reason, msg string) error {
	m, tm := obj.GetObjectMeta(), obj.GetTypeMeta()
	ns := m.Namespace
	if ns == "" {
		ns = "default" // events about cluster-scoped objects live here
	}
	object := objectKey{ns, tm.Kind, m.Name, m.UID}
	now := r.clock.Now()

	r.mu.Lock()
	om := r.objects[object]
	if om == nil {
		if len(r.objects) >= maxRecordedEvents {
			clear(r.objects)
		}
		om = r.newMemoryLocked(now)
		r.objects[object] = om
	}
	slot, combined := om.aggregate(eventType, reason, msg, now)
	if !om.bucket.allow(now) {
		r.mu.Unlock()
		return nil
	}
	w := om.writtenFor(eventType, reason, slot)
	r.mu.Unlock()
	if combined {
		// Made only for an event the spam filter let through: a controller
		// creating 100 pods has 90 combined and 75 of them dropped.
		msg = combinedPrefix + msg
	}

	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ev != nil {
		written, err := r.bump(ctx, w.ev, msg, annotations, now)
		if err == nil {
			w.ev = written
			return nil
		}
		if !apierrors.IsNotFound(err) {
			return err
		}
		w.ev = nil // someone deleted it: start a new one
	}
	// Names are <object>.<time in hex>, as client-go makes them. On a fake
	// clock many events share a nanosecond, so the recorder never reuses a
	// suffix; a clash with another recorder's event steps past it.
	stamp := api.NewTime(now)
	for attempt := 0; ; attempt++ {
		// Each attempt's event is built for it and handed over to the
		// Client, which may keep it as the stored object instead of
		// copying it; the annotations are the caller's, so the event gets
		// its own map.
		// (One literal: a zero event filled in after would be copied
		// over with write barriers.)
		ev := &api.Event{
			Metadata: api.ObjectMeta{
				Namespace: ns, Name: eventName(m.Name, r.nextNanos(now)),
				Annotations: maps.Clone(annotations),
			},
			InvolvedObject: api.ObjectReference{
				Kind: tm.Kind, APIVersion: tm.APIVersion, Namespace: m.Namespace, Name: m.Name,
				UID: m.UID, ResourceVersion: m.ResourceVersion,
			},
			Reason: reason, Message: msg, Type: eventType,
			Source:         api.EventSource{Component: r.component, Host: r.instance},
			FirstTimestamp: stamp, LastTimestamp: stamp, Count: 1,
			ReportingController: r.component, ReportingInstance: r.instance,
		}
		created, err := r.c.Create(ctx, ev, client.Handover())
		if apierrors.IsAlreadyExists(err) && attempt < 16 {
			continue
		}
		if err != nil {
			return err
		}
		w.ev = created.(*api.Event)
		return nil
	}
}

// newMemoryLocked returns a new object's memory, with a full spam bucket,
// taken from the slab. Each memory in a slab is handed out once and never
// reused, so a writer still holding one of its events after the memory was
// forgotten (objects cleared) shares it with no one; a slab lives while any
// of its memories is remembered or in use, at most memorySlab of them, so
// it keeps no more than one slab's worth of forgotten memories (and the
// events they last wrote) past the objects' clearing. r.mu must be held.
func (r *EventRecorder) newMemoryLocked(now time.Time) *objectMemory {
	if len(r.slab) == 0 {
		r.slab = make([]objectMemory, memorySlab)
	}
	om := &r.slab[0]
	r.slab = r.slab[1:]
	om.bucket = spamBucket{tokens: spamBurst, when: now}
	om.groups, om.written = om.group0[:0], om.written0[:0]
	return om
}

// eventName returns an event's name, <object>.<nanos in hex> as client-go
// makes it (fmt.Sprintf("%v.%x", name, nanos)), in one allocation.
func eventName(object string, nanos int64) string {
	var buf [64]byte
	b := append(buf[:0], object...)
	b = append(b, '.')
	b = strconv.AppendInt(b, nanos, 16)
	return string(b)
}

// nextNanos returns the time suffix of a new event name: now, or one past
// the last suffix made if that is not earlier.
func (r *EventRecorder) nextNanos(now time.Time) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lastNanos = max(now.UnixNano(), r.lastNanos+1)
	return r.lastNanos
}

// aggregate notes msg in its group (of eventType and reason) and returns
// the slot of the event a repeat bumps, and whether msg is to be recorded
// combined: msg and false, or, once the group has seen aggregateMaxEvents
// different messages within aggregateInterval of each other, the group's
// one combined slot, combinedPrefix, and true (so the combined event's
// count goes up and its message, combinedPrefix+msg, follows the latest).
// The group keeps its first messages, so that their repeats still bump
// their own events.
func (om *objectMemory) aggregate(eventType, reason, msg string, now time.Time) (slot string, combined bool) {
	var g *eventGroup
	for i := range om.groups {
		if om.groups[i].typ == eventType && om.groups[i].reason == reason {
			g = &om.groups[i]
			break
		}
	}
	switch {
	case g == nil:
		om.groups = append(om.groups, eventGroup{typ: eventType, reason: reason})
		g = &om.groups[len(om.groups)-1]
	case now.Sub(g.last) > aggregateInterval:
		*g = eventGroup{typ: eventType, reason: reason} // a new group; its events stay written
	}
	g.last = now
	if g.seen(msg) {
		return msg, false
	}
	if g.count()+1 < aggregateMaxEvents {
		g.add(msg)
		return msg, false
	}
	return combinedPrefix, true
}

// writtenFor returns the event of eventType and reason that slot (a message,
// or combinedPrefix) names, made empty if the object has none yet.
func (om *objectMemory) writtenFor(eventType, reason, slot string) *writtenEvent {
	for _, s := range om.written {
		if s.message == slot && s.reason == reason && s.typ == eventType {
			return s.w
		}
	}
	w := &om.event0
	if len(om.written) > 0 {
		w = &writtenEvent{}
	}
	om.written = append(om.written, writtenSlot{typ: eventType, reason: reason, message: slot, w: w})
	return w
}

// allow takes a token from the spam bucket, if it has one.
func (b *spamBucket) allow(now time.Time) bool {
	if elapsed := now.Sub(b.when); elapsed > 0 {
		b.tokens = min(spamBurst, b.tokens+float64(elapsed)/float64(spamRefill))
		b.when = now
	}
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// bump adds one to a written event's count, from prev, the state the
// recorder last wrote, re-reading it only when someone else changed it
// meanwhile, and returns the event as written.
func (r *EventRecorder) bump(ctx context.Context, prev *api.Event, msg string, annotations map[string]string, now time.Time) (*api.Event, error) {
	events := client.For[*api.Event](r.c)
	cur := prev
	for {
		// A shallow copy, handed over: what differs is replaced, not
		// changed in place, and what is shared with cur is never changed.
		next := *cur
		next.Count++
		next.LastTimestamp = api.NewTime(now)
		next.Message = msg // a combined event shows the latest message
		if annotations != nil {
			next.Metadata.Annotations = maps.Clone(annotations) // and the latest facts
		}
		written, err := events.Update(ctx, &next, client.Handover())
		if err == nil {
			return written, nil
		}
		if !apierrors.IsConflict(err) {
			return nil, err
		}
		if cur, err = events.Get(ctx, prev.Metadata.Namespace, prev.Metadata.Name); err != nil {
			return nil, err
		}
	}
}
