package ui

import (
	"context"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/store"
)

// Timeline page sizes.
const (
	defaultRows = 100
	maxRows     = 1000
)

// Row is one store write, as the timeline shows it.
type Row struct {
	Revision int64 `json:"revision"`
	// Time is when the write happened as the object records it (see
	// writeTime); zero when it records nothing.
	Time time.Time `json:"time,omitzero"`
	// Verb is ADDED, MODIFIED or DELETED, as a watch reports the write.
	Verb      string `json:"verb"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	// Actor is who wrote it (see actorOf); "" when nothing records it.
	Actor string `json:"actor"`
	// Changes is what changed, filled only for the rows a page returns.
	Changes []Change `json:"changes,omitempty"`
	// Truncated says Changes holds the first maxChanges changes only.
	Truncated bool `json:"truncated,omitempty"`
	// Cause is the reconcile that made a controller's write, when known.
	Cause *Cause `json:"cause,omitempty"`
}

// Object names the row's object as "Kind/namespace/name" (or
// "Kind/name"), the form the object filter matches.
func (r *Row) Object() string {
	if r.Namespace == "" {
		return r.Kind + "/" + r.Name
	}
	return r.Kind + "/" + r.Namespace + "/" + r.Name
}

// TimelineQuery selects timeline rows. The zero value is the newest
// defaultRows writes.
type TimelineQuery struct {
	// Before is exclusive: rows have revisions below it (0: no bound).
	Before int64
	// After is exclusive: rows have revisions above it (0: no bound).
	After int64
	// Limit is the most rows returned, newest first (0: defaultRows).
	Limit int
	// Object is a substring of the row's Object ("web" matches
	// ReplicationController/default/web and the pods web-xxxxx).
	Object string
	// Kinds and Actors, when not empty, keep only rows of these kinds
	// and by these writers; Hide drops rows of these kinds.
	Kinds, Actors, Hide []string
}

// match says whether q keeps r.
func (q *TimelineQuery) match(r *Row) bool {
	if q.Object != "" && !strings.Contains(r.Object(), q.Object) {
		return false
	}
	if len(q.Kinds) > 0 && !contains(q.Kinds, r.Kind) {
		return false
	}
	if len(q.Actors) > 0 && !contains(q.Actors, r.Actor) {
		return false
	}
	return !contains(q.Hide, r.Kind)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// Timeline is one page of rows, newest first.
type Timeline struct {
	Rows    []Row `json:"rows"`
	Oldest  int64 `json:"oldest"`
	Current int64 `json:"current"`
	// Continue, when not 0, is the Before of the next (older) page.
	Continue int64 `json:"continue,omitempty"`
}

func (h *Handler) serveTimeline(w http.ResponseWriter, r *http.Request) {
	q, err := parseQuery(r)
	if err == nil {
		var t *Timeline
		if t, err = h.Timeline(r.Context(), q); err == nil {
			writeJSON(w, t)
			return
		}
	}
	writeError(w, err)
}

// parseQuery reads a TimelineQuery from before, after, limit, object,
// kind, actor and hide (the last three comma-separated).
func parseQuery(r *http.Request) (TimelineQuery, error) {
	var q TimelineQuery
	var err error
	if q.Before, err = revisionParam(r, "before"); err != nil {
		return q, err
	}
	if q.After, err = revisionParam(r, "after"); err != nil {
		return q, err
	}
	v := r.URL.Query()
	if s := v.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxRows {
			return q, apierrors.NewBadRequest("limit must be between 1 and " + strconv.Itoa(maxRows) + "; got " + strconv.Quote(s))
		}
		q.Limit = n
	}
	q.Object = v.Get("object")
	split := func(s string) []string {
		if s == "" {
			return nil
		}
		return strings.Split(s, ",")
	}
	q.Kinds, q.Actors, q.Hide = split(v.Get("kind")), split(v.Get("actor")), split(v.Get("hide"))
	return q, nil
}

// Timeline returns the newest writes in the history window that q keeps,
// up to q.Limit, newest first, with their changes and causes. A Before or
// After older than the window is a 410 Gone saying so.
func (h *Handler) Timeline(ctx context.Context, q TimelineQuery) (*Timeline, error) {
	limit := q.Limit
	if limit == 0 {
		limit = defaultRows
	}
	oldest, current := h.window()
	for _, rev := range []int64{q.Before, q.After} {
		if rev != 0 && rev < oldest {
			return nil, compacted(rev, oldest)
		}
	}
	t := &Timeline{Rows: []Row{}, Oldest: oldest, Current: current}
	// The page is the last limit matches below Before: keep a ring of
	// them while scanning the window forward, which is the only way the
	// store's history reads, and the way causes are inferred.
	ring := make([]scanned, 0, limit)
	next, more := 0, false
	sc := h.newScanner()
	err := h.scan(ctx, oldest, current, func(s scanned) bool {
		if q.Before != 0 && s.row.Revision >= q.Before {
			return false
		}
		row := sc.add(s)
		if (q.After != 0 && row.Revision <= q.After) || !q.match(row) {
			return true
		}
		s.row = row
		if len(ring) < limit {
			ring = append(ring, s)
		} else {
			ring[next] = s
			next = (next + 1) % limit
			more = true
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	for i := range ring {
		s := ring[(next+len(ring)-1-i)%len(ring)] // newest first
		row := *s.row
		row.Changes, row.Truncated = diff(s.prev, s.cur)
		t.Rows = append(t.Rows, row)
	}
	if more && len(t.Rows) > 0 {
		t.Continue = t.Rows[len(t.Rows)-1].Revision
	}
	return t, nil
}

// scanned is one write read from the history: its row without changes,
// and the object before and after it (nil for none).
type scanned struct {
	row       *Row
	prev, cur api.Object
}

// scan calls fn with every write from revision from through to, in order,
// until fn returns false.
func (h *Handler) scan(ctx context.Context, from, to int64, fn func(scanned) bool) error {
	w, err := h.cfg.History.Watch("", from)
	if err != nil {
		return compacted(from, h.oldestNow())
	}
	defer w.Stop()
	var buf []store.Event[api.Object]
	for {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		buf, _, err = w.Poll(buf[:0], 512)
		if err != nil {
			return compacted(from, h.oldestNow())
		}
		if len(buf) == 0 {
			return nil
		}
		for _, ev := range buf {
			if ev.Rev > to {
				return nil
			}
			if !fn(readEvent(ev)) {
				return nil
			}
		}
	}
}

// readEvent makes the row of one store event.
func readEvent(ev store.Event[api.Object]) scanned {
	s := scanned{prev: ev.Prev.Value, cur: ev.Record.Value}
	obj := s.cur
	verb := api.WatchModified
	switch ev.Type {
	case store.Created:
		verb = api.WatchAdded
	case store.Deleted:
		verb = api.WatchDeleted
		obj = s.prev
	}
	m := obj.GetObjectMeta()
	s.row = &Row{
		Revision: ev.Rev, Verb: verb, Kind: obj.GetTypeMeta().Kind,
		Namespace: m.Namespace, Name: m.Name,
	}
	s.row.Actor, s.row.Time = actorOf(s.prev, s.cur)
	return s
}

// actorOf says who made the write from prev to cur, and when, by what the
// objects record. In order:
//
//   - the managedFields entry the write added or changed (the latest by
//     time if several): its manager and time. The API server records
//     every write over HTTP (fieldManager or User-Agent) and every
//     in-process write under client.WithFieldManager there.
//   - for a write that changed no entry (a manager writing the fields it
//     owns again within the second its entry records): the latest entry
//     of the part it changed, the status subresource's for a status-only
//     write, the object's otherwise; not for a graceful delete.
//   - a pod whose spec.nodeName the write set: "scheduler", since only the
//     binding subresource sets it.
//   - a Lease whose renewTime changed: its holder, the elector that
//     renewed it, at renewTime.
//   - an Event: its reporting component.
//   - a delete: "" (Kubernetes records no deleter), at the deletion
//     timestamp when there is one.
func actorOf(prev, cur api.Object) (string, time.Time) {
	if cur == nil {
		if ts := prev.GetObjectMeta().DeletionTimestamp; ts != nil {
			return "", ts.Time
		}
		return "", time.Time{}
	}
	if p, ok := prev.(*api.Pod); ok && p.Spec.NodeName == "" && cur.(*api.Pod).Spec.NodeName != "" {
		return "scheduler", time.Time{}
	}
	var prevEntries []api.ManagedFieldsEntry
	if prev != nil {
		prevEntries = prev.GetObjectMeta().ManagedFields
	}
	best := writerEntry(prevEntries, cur.GetObjectMeta().ManagedFields)
	if best == nil && prev != nil && !markedForDeletion(prev, cur) {
		best = latestEntry(cur, statusOnly(prev, cur))
	}
	if best != nil {
		var at time.Time
		if best.Time != nil {
			at = best.Time.Time
		}
		return best.Manager, at
	}
	switch c := cur.(type) {
	case *api.Lease:
		p, _ := prev.(*api.Lease)
		if c.Spec.RenewTime != nil && c.Spec.HolderIdentity != nil && (p == nil || !reflect.DeepEqual(p.Spec.RenewTime, c.Spec.RenewTime)) {
			return *c.Spec.HolderIdentity, c.Spec.RenewTime.Time
		}
	case *api.Event:
		if c.ReportingController != "" {
			return c.ReportingController, time.Time{}
		}
		return c.Source.Component, time.Time{}
	}
	if prev == nil {
		return "", cur.GetObjectMeta().CreationTimestamp.Time
	}
	return "", time.Time{}
}

// writerEntry returns the entry of cur that a write from prev's entries
// to cur's made: one that is new or whose time moved (the writer's entry
// is stamped; the entries that only lost fields to it keep their time),
// the latest if several; else one that changed at all; else nil.
func writerEntry(prev, cur []api.ManagedFieldsEntry) *api.ManagedFieldsEntry {
	var stamped, changed *api.ManagedFieldsEntry
	for i, e := range cur {
		old, found := findEntry(prev, e)
		if found && reflect.DeepEqual(old, e) {
			continue
		}
		if changed == nil {
			changed = &cur[i]
		}
		if found && reflect.DeepEqual(old.Time, e.Time) {
			continue
		}
		if stamped == nil || (e.Time != nil && (stamped.Time == nil || !e.Time.Before(stamped.Time.Time))) {
			stamped = &cur[i]
		}
	}
	if stamped != nil {
		return stamped
	}
	return changed
}

// findEntry returns the entry of entries with e's manager, operation and
// subresource.
func findEntry(entries []api.ManagedFieldsEntry, e api.ManagedFieldsEntry) (api.ManagedFieldsEntry, bool) {
	for _, x := range entries {
		if x.Manager == e.Manager && x.Operation == e.Operation && x.Subresource == e.Subresource {
			return x, true
		}
	}
	return api.ManagedFieldsEntry{}, false
}

// latestEntry returns cur's latest entry for the status subresource
// (status true) or for the object itself, or nil.
func latestEntry(cur api.Object, status bool) *api.ManagedFieldsEntry {
	sub := ""
	if status {
		sub = "status"
	}
	entries := cur.GetObjectMeta().ManagedFields
	var best *api.ManagedFieldsEntry
	for i, e := range entries {
		if e.Subresource == sub && e.Time != nil && (best == nil || !e.Time.Before(best.Time.Time)) {
			best = &entries[i]
		}
	}
	return best
}

// markedForDeletion says whether the write set the deletion timestamp: a
// graceful delete, which managedFields do not record.
func markedForDeletion(prev, cur api.Object) bool {
	return prev.GetObjectMeta().DeletionTimestamp == nil && cur.GetObjectMeta().DeletionTimestamp != nil
}

// statusOnly says whether the write from prev to cur changed only the
// status (objects without one never do).
func statusOnly(prev, cur api.Object) bool {
	p, c := reflect.ValueOf(prev).Elem(), reflect.ValueOf(cur).Elem()
	ps, cs := p.FieldByName("Status"), c.FieldByName("Status")
	if !ps.IsValid() || reflect.DeepEqual(ps.Interface(), cs.Interface()) {
		return false
	}
	for i := range p.NumField() {
		name := p.Type().Field(i).Name
		if name == "Status" || name == "Metadata" {
			continue
		}
		if !reflect.DeepEqual(p.Field(i).Interface(), c.Field(i).Interface()) {
			return false
		}
	}
	pm, cm := *prev.GetObjectMeta(), *cur.GetObjectMeta()
	pm.ResourceVersion, cm.ResourceVersion = "", ""
	return reflect.DeepEqual(pm, cm)
}
