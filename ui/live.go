package ui

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/store"
)

// serveWatch streams the timeline's new rows as server-sent events, from
// after the revision in Last-Event-ID (a reconnecting EventSource sends
// it) or the after parameter, or from now on. Each row that the query's
// filters keep is an event "row" with the Row (changes and cause filled)
// and the revision as its id; after each batch of writes an event
// "revision" carries the newest revision, so the page refreshes its
// snapshot even when the rows were filtered out. A start older than the
// history window, or a watch that falls out of it, ends the stream with
// an event "gone" carrying the 410 Status.
//
// Server-sent events rather than the Kubernetes watch API: one stream
// carries every kind (a Kubernetes watch is per resource), each row comes
// with its diff and cause computed where the previous state is at hand,
// and EventSource reconnects by itself, resuming from the last id.
func (h *Handler) serveWatch(w http.ResponseWriter, r *http.Request) {
	q, err := parseQuery(r)
	if err != nil {
		writeError(w, err)
		return
	}
	after := q.After
	if id := r.Header.Get("Last-Event-ID"); id != "" {
		if after, err = strconv.ParseInt(id, 10, 64); err != nil || after < 1 {
			writeError(w, apierrors.NewBadRequest("Last-Event-ID must be a revision; got "+strconv.Quote(id)))
			return
		}
	}
	q.After = 0
	h.streams.Add(1)
	defer h.streams.Done()
	flusher, ok := w.(http.Flusher)
	if !ok {
		writeError(w, apierrors.NewInternalError(fmt.Errorf("ui: the response writer cannot stream")))
		return
	}
	oldest, current := h.window()
	if after == 0 {
		after = current
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	gone := func(err error) {
		st := err.(*apierrors.StatusError).Status
		b, _ := json.Marshal(st)
		fmt.Fprintf(w, "event: gone\ndata: %s\n\n", b)
		flusher.Flush()
	}
	if after < oldest-1 {
		gone(compacted(after, oldest))
		return
	}
	// Read the window from its start so that causes are inferred as the
	// timeline infers them; emit only what follows after.
	watch, err := h.cfg.History.Watch("", oldest)
	if err != nil {
		gone(compacted(after, h.oldestNow()))
		return
	}
	defer watch.Stop()
	fmt.Fprintf(w, ": following writes after revision %d\n\n", after)
	flusher.Flush()
	sc := h.newScanner()
	var buf []store.Event[api.Object]
	for {
		buf, _, err = watch.Poll(buf[:0], 512)
		if err != nil {
			gone(compacted(after, h.oldestNow()))
			return
		}
		if len(buf) == 0 {
			select {
			case <-r.Context().Done():
				return
			case <-h.stop:
				return
			case <-watch.Ready():
			}
			continue
		}
		var last int64
		for _, ev := range buf {
			s := readEvent(ev)
			row := sc.add(s)
			if row.Revision <= after {
				continue
			}
			last = row.Revision
			if !q.match(row) {
				continue
			}
			out := *row
			out.Changes, out.Truncated = diff(s.prev, s.cur)
			b, err := json.Marshal(out)
			if err != nil {
				return
			}
			fmt.Fprintf(w, "id: %d\nevent: row\ndata: %s\n\n", row.Revision, b)
		}
		if last != 0 {
			fmt.Fprintf(w, "id: %d\nevent: revision\ndata: %d\n\n", last, last)
			flusher.Flush()
		}
	}
}
