package apiserver

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/store"
)

// InitialEventsEndAnnotation marks the BOOKMARK that ends a streaming list's
// initial ADDED events (KEP-3157).
const InitialEventsEndAnnotation = "k8s.io/initial-events-end"

// Watch starts a watch on a resource in a namespace ("" for all). Where it
// starts follows Kubernetes (see ListOptions): with resourceVersion "" or
// "0" it first sends the current state as ADDED events; from "N" it sends
// the changes after N, or fails with 410 Expired when N is compacted; with
// SendInitialEvents it sends the current state, then (if bookmarks are
// allowed) a BOOKMARK annotated k8s.io/initial-events-end, then the changes. With selectors, an update
// that moves an object into the selection arrives as ADDED and one that
// moves it out as DELETED. A watch that falls behind the store's history
// ends with an ERROR event carrying 410 Expired: relist.
func (s *Server) Watch(_ context.Context, resource, namespace string, opts client.ListOptions) (client.Watcher, error) {
	k, err := s.kindFor(resource)
	if err != nil {
		return nil, err
	}
	f, err := newFilter(k, opts.LabelSelector, opts.FieldSelector)
	if err != nil {
		return nil, err
	}
	if errs := validateWatchOptions(opts); len(errs) > 0 {
		return nil, apierrors.NewInvalid("meta.k8s.io", "ListOptions", "", errs)
	}
	w := &watch{s: s, k: k, f: f, bookmarks: opts.AllowWatchBookmarks, lastBookmark: s.clock.Now()}
	prefix := k.prefix(namespace)

	rv := opts.ResourceVersion
	initial := rv == "" || rv == "0"
	if opts.SendInitialEvents != nil {
		initial = *opts.SendInitialEvents
	}
	var from int64 // the last revision the watch need not send
	switch {
	case initial:
		if rv != "" && rv != "0" {
			n, err := parseRV(rv)
			if err != nil {
				return nil, err
			}
			if cur := s.store.Rev(); n > cur {
				return nil, apierrors.NewTooLargeResourceVersion(n, cur)
			}
		}
		res, err := s.store.List(prefix, store.ListOptions{})
		if err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		for _, r := range res.Records {
			if f.matches(r.Value) {
				w.initial = append(w.initial, client.WatchEvent{Type: api.WatchAdded, Object: k.out(r.Value)})
			}
		}
		from = res.Rev
		if opts.SendInitialEvents != nil && opts.AllowWatchBookmarks {
			w.initial = append(w.initial, client.WatchEvent{Type: api.WatchBookmark, Object: w.bookmark(from, true)})
		}
	case rv == "" || rv == "0":
		from = s.store.Rev() // no initial events: start now
	default:
		if from, err = parseRV(rv); err != nil {
			return nil, err
		}
	}
	w.sw, err = s.store.Watch(prefix, from+1)
	var ce *store.CompactedError
	if errors.As(err, &ce) {
		return nil, apierrors.NewTooOldResourceVersion(from, ce.CompactRev)
	} else if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	w.lastRV, w.bookmarkRV = from, from
	return w, nil
}

// validateWatchOptions applies Kubernetes' rules for the streaming list.
// (Without allowWatchBookmarks a streaming list is accepted, as Kubernetes
// does, but gets no BOOKMARK to say where the initial events end.)
func validateWatchOptions(opts client.ListOptions) apierrors.FieldErrors {
	var errs apierrors.FieldErrors
	if opts.SendInitialEvents != nil {
		if opts.ResourceVersionMatch != client.MatchNotOlderThan {
			errs = append(errs, Forbidden(NewPath("resourceVersionMatch"), "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"))
		}
	} else if opts.ResourceVersionMatch != "" {
		errs = append(errs, Forbidden(NewPath("resourceVersionMatch"), "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"))
	}
	return errs
}

// watch is a Watcher over a store watcher: it turns store events into API
// watch events through the filter, after any initial events.
type watch struct {
	s         *Server
	k         *kind
	f         filter
	sw        *store.Watcher[api.Object]
	bookmarks bool

	// mu guards the fields below; a Poll holds it throughout.
	mu           sync.Mutex
	initial      []client.WatchEvent // synthetic events not yet handed out
	lastRV       int64               // every event at or below it has been handed out
	lastBookmark time.Time           // when the last BOOKMARK was handed out
	bookmarkRV   int64               // and the resourceVersion it carried
	closed       bool                // Stop was called, or the ERROR event was handed out
	buf          []store.Event[api.Object]
}

// Poll implements Watcher.
func (w *watch) Poll(dst []client.WatchEvent, limit int) ([]client.WatchEvent, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return dst, client.ErrWatchClosed
	}
	n := 0
	for len(w.initial) > 0 && (limit <= 0 || n < limit) {
		dst = append(dst, w.initial[0])
		w.initial[0] = client.WatchEvent{}
		w.initial = w.initial[1:]
		n++
	}
	if limit > 0 && n == limit {
		return dst, nil
	}
	evs, progress, err := w.sw.Poll(w.buf[:0], limit-n)
	for _, ev := range evs {
		if out, ok := w.transform(ev); ok {
			dst = append(dst, out)
		}
	}
	clear(evs)
	w.buf = evs[:0]
	w.lastRV = max(w.lastRV, progress)
	if w.bookmarks && w.lastRV > w.bookmarkRV && w.s.clock.Since(w.lastBookmark) >= w.s.bookmarkEvery {
		dst = append(dst, client.WatchEvent{Type: api.WatchBookmark, Object: w.bookmark(w.lastRV, false)})
		w.lastBookmark, w.bookmarkRV = w.s.clock.Now(), w.lastRV
	}
	switch {
	case err == nil:
	case errors.Is(err, store.ErrStopped):
		w.closed = true
		return dst, client.ErrWatchClosed
	default:
		var ce *store.CompactedError
		status := apierrors.NewInternalError(err).Status
		if errors.As(err, &ce) {
			status = apierrors.NewTooOldResourceVersion(w.lastRV, ce.CompactRev).Status
		}
		dst = append(dst, client.WatchEvent{Type: api.WatchError, Status: &status})
		w.closed = true
		w.sw.Stop()
	}
	return dst, nil
}

// transform turns a store event into the watch event this watch's filter
// makes of it, if any, carrying the object as the watched kind shows it.
func (w *watch) transform(ev store.Event[api.Object]) (client.WatchEvent, bool) {
	typ, obj := w.decide(ev)
	if obj == nil {
		return client.WatchEvent{}, false
	}
	return client.WatchEvent{Type: typ, Object: w.k.out(obj)}, true
}

// decide returns the type and stored object of the watch event a store
// event makes through the filter, or a nil object for none.
func (w *watch) decide(ev store.Event[api.Object]) (string, api.Object) {
	switch ev.Type {
	case store.Created:
		if w.f.matches(ev.Record.Value) {
			return api.WatchAdded, ev.Record.Value
		}
	case store.Updated:
		if w.f.everything() {
			return api.WatchModified, ev.Record.Value
		}
		now, before := w.f.matches(ev.Record.Value), w.f.matches(ev.Prev.Value)
		switch {
		case now && before:
			return api.WatchModified, ev.Record.Value
		case now:
			return api.WatchAdded, ev.Record.Value
		case before:
			return api.WatchDeleted, withRV(ev.Prev.Value, ev.Rev)
		}
	case store.Deleted:
		if w.f.matches(ev.Prev.Value) {
			return api.WatchDeleted, withRV(ev.Prev.Value, ev.Rev)
		}
	}
	return "", nil
}

// withRV returns obj's last state as of revision rev: a DELETED event
// carries the object with the deletion's resourceVersion, so a client that
// resumes from it does not see the deletion again.
func withRV(obj api.Object, rev int64) api.Object {
	c := shallowCopy(obj)
	c.GetObjectMeta().ResourceVersion = strconv.FormatInt(rev, 10)
	return c
}

// bookmark returns the object of a BOOKMARK event: an empty object of the
// watched kind holding only the resourceVersion.
func (w *watch) bookmark(rev int64, initialEnd bool) api.Object {
	obj := w.k.newObj()
	*obj.GetTypeMeta() = api.TypeMeta{APIVersion: w.k.apiVersion, Kind: w.k.kind}
	m := obj.GetObjectMeta()
	m.ResourceVersion = strconv.FormatInt(rev, 10)
	if initialEnd {
		m.Annotations = map[string]string{InitialEventsEndAnnotation: "true"}
	}
	return obj
}

// Ready implements Watcher.
func (w *watch) Ready() <-chan struct{} {
	w.mu.Lock()
	pending := w.closed || len(w.initial) > 0
	w.mu.Unlock()
	if pending {
		c := make(chan struct{})
		close(c)
		return c
	}
	return w.sw.Ready()
}

// Stop implements Watcher.
func (w *watch) Stop() {
	w.sw.Stop()
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
}
