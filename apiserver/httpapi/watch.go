package httpapi

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/api/protobuf"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
)

// watchBatch is the most events a watch takes from its Watcher at once;
// they are written and then flushed together.
const watchBatch = 256

// serveWatch streams a watch, flushed as soon as the events pending have
// been written: in JSON, one event per line, {"type":"ADDED","object":{...}};
// in protobuf (application/vnd.kubernetes.protobuf;stream=watch), one frame
// per event, a 4-byte big-endian length and a metav1.WatchEvent message
// whose object is a whole enveloped object. It ends when the client goes away, when
// timeoutSeconds pass (kubectl get -w exits when the stream ends, so there
// is no timeout by default), on Shutdown, or after an ERROR event. A
// resourceVersion too old to watch from is an ERROR event carrying 410
// Expired, as kube-apiserver sends it; other bad requests get a Status.
func (h *Handler) serveWatch(w http.ResponseWriter, r *http.Request, req resourceRequest) error {
	out, err := negotiate(r, false)
	if err != nil {
		return err
	}
	q := queryOf(r)
	opts, err := listOptionsOf(q)
	if err != nil {
		return err
	}
	var timeout time.Duration
	if v := q.Get("timeoutSeconds"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return apierrors.NewBadRequest(fmt.Sprintf("timeoutSeconds %q is not a non-negative integer", v))
		}
		timeout = time.Duration(min(n, 1<<31)) * time.Second
	}
	watcher, err := h.srv.Watch(r.Context(), req.info.Name(), req.namespace, opts)
	if err != nil && !apierrors.IsGone(err) {
		return err
	}
	if !h.startWatch() {
		if watcher != nil {
			watcher.Stop()
		}
		return apierrors.NewServiceUnavailable("the server is shutting down")
	}
	defer h.watches.Done()
	h.metrics.watching(req.info.Resource, 1)
	defer h.metrics.watching(req.info.Resource, -1)

	s := &stream{h: h, w: w, info: req.info, out: out, first: true}
	w.Header().Set("Content-Type", out.format.contentType(true))
	w.Header().Set("Cache-Control", "no-cache, private")
	w.WriteHeader(http.StatusOK)
	if err != nil { // too old: the stream is one ERROR event
		st := apierrors.StatusOf(err)
		_ = s.write([]client.WatchEvent{{Type: api.WatchError, Status: &st}})
		return nil
	}
	defer watcher.Stop()
	if err := s.flush(); err != nil {
		return nil
	}

	var timeoutC, bookmarkC <-chan time.Time
	if timeout > 0 {
		t := h.clock.NewTimer(timeout)
		defer t.Stop()
		timeoutC = t.C()
	}
	var bookmarks clock.Timer
	if opts.AllowWatchBookmarks {
		bookmarks = h.clock.NewTimer(h.srv.BookmarkInterval())
		defer bookmarks.Stop()
		bookmarkC = bookmarks.C()
	}
	var buf []client.WatchEvent
	for {
		evs, err := watcher.Poll(buf[:0], watchBatch)
		if werr := s.write(evs); werr != nil {
			return nil // the client went away
		}
		clear(evs)
		buf = evs[:0]
		if err != nil || s.ended {
			return nil // the watch ended: after an ERROR event, or stopped
		}
		if len(evs) == watchBatch {
			continue // more may be pending right away
		}
		select {
		case <-watcher.Ready():
		case <-bookmarkC:
			bookmarks.Reset(h.srv.BookmarkInterval()) // Poll hands out a bookmark when one is due
		case <-timeoutC:
			return nil
		case <-r.Context().Done():
			return nil
		case <-h.done:
			return nil
		}
	}
}

// stream writes the events of one watch.
type stream struct {
	h     *Handler
	w     http.ResponseWriter
	info  apiserver.ResourceInfo
	out   output
	first bool // no Table has been sent yet: the next carries the columns
	ended bool // an ERROR event was written
	buf   []byte
}

// write encodes events, one line or frame each, and flushes them.
func (s *stream) write(evs []client.WatchEvent) error {
	if len(evs) == 0 {
		return nil
	}
	s.buf = s.buf[:0]
	for _, ev := range evs {
		b, err := s.encodeObject(ev)
		if err != nil {
			st := apierrors.StatusOf(err)
			ev = client.WatchEvent{Type: api.WatchError, Status: &st}
			if b, err = s.encodeObject(ev); err != nil {
				return err
			}
		}
		if s.out.format == formatProtobuf {
			start := len(s.buf)
			s.buf = append(s.buf, 0, 0, 0, 0) // the frame's length, filled in below
			s.buf = protobuf.AppendWatchEvent(s.buf, ev.Type, b)
			binary.BigEndian.PutUint32(s.buf[start:], uint32(len(s.buf)-start-4))
		} else {
			s.buf = append(s.buf, `{"type":"`...)
			s.buf = append(s.buf, ev.Type...)
			s.buf = append(s.buf, `","object":`...)
			s.buf = append(s.buf, b...)
			s.buf = append(s.buf, "}\n"...)
		}
		if ev.Type == api.WatchError {
			s.ended = true
			break
		}
	}
	if _, err := s.w.Write(s.buf); err != nil {
		return err
	}
	return s.flush()
}

// encodeObject encodes what an event carries in the stream's format: the
// stored object, which every watcher of it shares and so is encoded once
// (see encodings), or a bookmark, a PartialObjectMetadata, a Table row or
// the Status of an ERROR.
func (s *stream) encodeObject(ev client.WatchEvent) ([]byte, error) {
	obj, err := s.objectOf(ev)
	if err != nil {
		return nil, err
	}
	apiVersion, kind := s.info.APIVersion(), s.info.Kind
	switch o := obj.(type) {
	case *api.Status:
		apiVersion, kind = "v1", "Status"
	case *partialObjectMetadata:
		apiVersion, kind = o.APIVersion, o.Kind
	case api.Object:
		if (ev.Type == api.WatchAdded || ev.Type == api.WatchModified) && o == ev.Object {
			return s.h.encodings.encode(o, s.out.format, apiVersion, kind)
		}
	}
	return encodeValue(s.out.format, apiVersion, kind, obj)
}

func (s *stream) flush() error {
	err := http.NewResponseController(s.w).Flush()
	if errors.Is(err, http.ErrNotSupported) {
		return nil
	}
	return err
}

// objectOf returns what an event carries on the wire: the object, a
// one-row Table of it, or the Status of an ERROR.
func (s *stream) objectOf(ev client.WatchEvent) (any, error) {
	if ev.Type == api.WatchError {
		if ev.Status == nil {
			return nil, apierrors.NewInternalError(errors.New("watch ended without a status"))
		}
		st := *ev.Status
		st.TypeMeta = api.TypeMeta{Kind: "Status", APIVersion: "v1"}
		return &st, nil
	}
	switch {
	case s.out.partial:
		return partialOf(ev.Object, s.out.partialVersion), nil
	case !s.out.table && s.out.format == formatProtobuf:
		return ev.Object, nil // the envelope names the kind
	case !s.out.table:
		return withTypeMeta(s.info, ev.Object), nil
	}
	meta := api.ListMeta{ResourceVersion: ev.Object.GetObjectMeta().ResourceVersion}
	var objs []api.Object
	if ev.Type != api.WatchBookmark {
		objs = []api.Object{ev.Object}
	}
	t, err := s.h.tableOf(s.info, objs, s.out, meta, s.first)
	s.first = false
	return t, err
}
