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
	// maxRecordedEvents bounds each of the recorder's memories (events it
	// may bump, aggregation groups, spam buckets); past it, that memory is
	// forgotten and starts again (client-go keeps an LRU of 4096).
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
	// written holds, by repeat key, each event that a repeat bumps.
	written map[eventKey]*writtenEvent
	// groups holds the messages seen per object and reason, for
	// aggregation.
	groups map[groupKey]*eventGroup
	// buckets holds each object's spam-filter tokens.
	buckets map[objectKey]*spamBucket
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

// groupKey names the events of one type and reason about one object.
type groupKey struct {
	object      objectKey
	typ, reason string
}

// eventKey names an event that a repeat bumps: one message of a group, or
// combinedPrefix for the group's combined event.
type eventKey struct {
	group   groupKey
	message string
}

// eventGroup is the distinct messages of a group seen lately: first, and
// the others in more, made at the second (most groups, a pod's Scheduled
// or Started, never see one).
type eventGroup struct {
	first    string
	hasFirst bool
	more     map[string]struct{}
	last     time.Time
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
		written: make(map[eventKey]*writtenEvent),
		groups:  make(map[groupKey]*eventGroup),
		buckets: make(map[objectKey]*spamBucket),
	}
}

// Eventf records an event of eventType (api.EventTypeNormal or
// api.EventTypeWarning) about obj, with a message built like fmt.Sprintf.
// An event the spam filter drops is not an error.
func (r *EventRecorder) Eventf(ctx context.Context, obj api.Object, eventType, reason, format string, args ...any) error {
	return r.AnnotatedEventf(ctx, obj, nil, eventType, reason, format, args...)
}

// AnnotatedEventf is Eventf with annotations on the Event: facts a component
// had when it acted, for readers that need them exactly (the demo's
// narrator), without changing the message `kubectl describe` shows. An
// event that bumps an earlier one replaces its annotations. Kubernetes:
// client-go's EventRecorder.AnnotatedEventf.
func (r *EventRecorder) AnnotatedEventf(ctx context.Context, obj api.Object, annotations map[string]string, eventType, reason, format string, args ...any) error {
	m, tm := obj.GetObjectMeta(), obj.GetTypeMeta()
	msg := fmt.Sprintf(format, args...)
	ns := m.Namespace
	if ns == "" {
		ns = "default" // events about cluster-scoped objects live here
	}
	object := objectKey{ns, tm.Kind, m.Name, m.UID}
	group := groupKey{object, eventType, reason}
	now := r.clock.Now()

	r.mu.Lock()
	msg, key := r.aggregateLocked(group, msg, now)
	if !r.allowLocked(object, now) {
		r.mu.Unlock()
		return nil
	}
	w := r.written[key]
	if w == nil {
		w = &writtenEvent{}
		remember(r.written, key, w)
	}
	r.mu.Unlock()

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
	for attempt := 0; ; attempt++ {
		// Each attempt's event is built for it and handed over to the
		// Client, which may keep it as the stored object instead of
		// copying it; the annotations are the caller's, so the event gets
		// its own map.
		ev := &api.Event{
			Metadata: api.ObjectMeta{
				Namespace: ns, Name: m.Name + "." + strconv.FormatInt(r.nextNanos(now), 16),
				Annotations: maps.Clone(annotations),
			},
			InvolvedObject: api.ObjectReference{
				Kind: tm.Kind, APIVersion: tm.APIVersion, Namespace: m.Namespace, Name: m.Name,
				UID: m.UID, ResourceVersion: m.ResourceVersion,
			},
			Reason: reason, Message: msg, Type: eventType,
			Source:         api.EventSource{Component: r.component, Host: r.instance},
			FirstTimestamp: api.NewTime(now), LastTimestamp: api.NewTime(now), Count: 1,
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

// nextNanos returns the time suffix of a new event name: now, or one past
// the last suffix made if that is not earlier.
func (r *EventRecorder) nextNanos(now time.Time) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lastNanos = max(now.UnixNano(), r.lastNanos+1)
	return r.lastNanos
}

// aggregateLocked notes msg in its group and returns the message to record
// and the key of the event a repeat bumps: msg and its own key, or, once
// the group has seen aggregateMaxEvents different messages within
// aggregateInterval of each other, the combined message and the group's
// one combined key (so the combined event's count goes up and its message
// follows the latest). The group keeps its first messages, so that their
// repeats still bump their own events.
func (r *EventRecorder) aggregateLocked(k groupKey, msg string, now time.Time) (string, eventKey) {
	g := r.groups[k]
	if g == nil || now.Sub(g.last) > aggregateInterval {
		g = &eventGroup{}
		remember(r.groups, k, g)
	}
	g.last = now
	if g.seen(msg) {
		return msg, eventKey{k, msg}
	}
	if g.count()+1 < aggregateMaxEvents {
		g.add(msg)
		return msg, eventKey{k, msg}
	}
	return combinedPrefix + msg, eventKey{k, combinedPrefix}
}

// allowLocked takes a token from the object's spam bucket, if it has one.
func (r *EventRecorder) allowLocked(k objectKey, now time.Time) bool {
	b := r.buckets[k]
	if b == nil {
		b = &spamBucket{tokens: spamBurst, when: now}
		remember(r.buckets, k, b)
	}
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

// remember puts v in m under k, first forgetting all of m when it is full.
func remember[K comparable, V any](m map[K]V, k K, v V) {
	if _, ok := m[k]; !ok && len(m) >= maxRecordedEvents {
		clear(m)
	}
	m[k] = v
}
