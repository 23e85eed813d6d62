package apiserver

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/internal/clock"
)

// maxRecordedEvents bounds the recorder's memory of events it may aggregate
// into; past it, it forgets them all and starts new ones.
const maxRecordedEvents = 4096

// EventRecorder writes Kubernetes Events about objects, so that `kubectl
// describe` can show what a controller did and why. An event that repeats
// one already written (same object, type, reason and message) bumps that
// event's count and lastTimestamp instead of creating another, as
// client-go's recorder does. Writes are synchronous, through the Client, so
// a simulated run records the same events every time. Kubernetes:
// client-go tools/record.
type EventRecorder struct {
	c         Client
	clock     clock.Clock
	component string // source.component and reportingComponent
	instance  string // source.host and reportingInstance

	// mu guards seen (the event name written for each repeat key) and
	// lastNanos (the time suffix of the last name made).
	mu        sync.Mutex
	seen      map[eventKey]string
	lastNanos int64
}

type eventKey struct {
	namespace, kind, name string
	uid                   api.UID
	typ, reason, message  string
}

// NewEventRecorder returns a recorder writing events as component (e.g.
// "replication-controller") from instance (a host or instance name).
func NewEventRecorder(c Client, clk clock.Clock, component, instance string) *EventRecorder {
	return &EventRecorder{c: c, clock: clk, component: component, instance: instance, seen: make(map[eventKey]string)}
}

// Eventf records an event of eventType (api.EventTypeNormal or
// api.EventTypeWarning) about obj, with a message built like fmt.Sprintf.
func (r *EventRecorder) Eventf(ctx context.Context, obj api.Object, eventType, reason, format string, args ...any) error {
	m, tm := obj.GetObjectMeta(), obj.GetTypeMeta()
	msg := fmt.Sprintf(format, args...)
	ns := m.Namespace
	if ns == "" {
		ns = "default" // events about cluster-scoped objects live here
	}
	key := eventKey{ns, tm.Kind, m.Name, m.UID, eventType, reason, msg}
	now := r.clock.Now()

	r.mu.Lock()
	defer r.mu.Unlock()
	if name, ok := r.seen[key]; ok {
		err := r.bump(ctx, ns, name, now)
		if err == nil || !IsNotFound(err) {
			return err
		}
		delete(r.seen, key) // someone deleted it: start a new one
	}
	ev := &api.Event{
		Metadata: api.ObjectMeta{Namespace: ns},
		InvolvedObject: api.ObjectReference{
			Kind: tm.Kind, APIVersion: tm.APIVersion, Namespace: m.Namespace, Name: m.Name,
			UID: m.UID, ResourceVersion: m.ResourceVersion,
		},
		Reason: reason, Message: msg, Type: eventType,
		Source:         api.EventSource{Component: r.component, Host: r.instance},
		FirstTimestamp: api.NewTime(now), LastTimestamp: api.NewTime(now), Count: 1,
		ReportingController: r.component, ReportingInstance: r.instance,
	}
	// Names are <object>.<time in hex>, as client-go makes them. On a fake
	// clock many events share a nanosecond, so the recorder never reuses a
	// suffix; a clash with another recorder's event steps past it.
	nanos := max(now.UnixNano(), r.lastNanos+1)
	for attempt := 0; ; attempt, nanos = attempt+1, nanos+1 {
		ev.Metadata.Name = m.Name + "." + strconv.FormatInt(nanos, 16)
		r.lastNanos = nanos
		_, err := r.c.Create(ctx, ev)
		if IsAlreadyExists(err) && attempt < 16 {
			continue
		}
		if err != nil {
			return err
		}
		break
	}
	if len(r.seen) >= maxRecordedEvents {
		clear(r.seen)
	}
	r.seen[key] = ev.Metadata.Name
	return nil
}

// bump adds one to a recorded event's count.
func (r *EventRecorder) bump(ctx context.Context, namespace, name string, now time.Time) error {
	events := For[*api.Event](r.c)
	for {
		cur, err := events.Get(ctx, namespace, name)
		if err != nil {
			return err
		}
		next := cur.DeepCopy()
		next.Count++
		next.LastTimestamp = api.NewTime(now)
		_, err = events.Update(ctx, next)
		if !IsConflict(err) {
			return err
		}
	}
}
