package ui

import (
	"encoding/json"
	"net/http"
	"reflect"
	"sort"
	"strconv"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// maxChanges is the most changes a row or an object's diff lists.
const maxChanges = 40

// Change is one changed field: its JSON path ("spec.replicas",
// "status.conditions[1].status") and its values before and after, either
// absent when the field was added or removed.
type Change struct {
	Path string `json:"path"`
	From any    `json:"from,omitempty"`
	To   any    `json:"to,omitempty"`
}

// noise are the metadata fields every write changes or that say who wrote
// (the row's Actor already does): left out of diffs.
var noise = []string{"resourceVersion", "managedFields"}

// diff returns the changes from prev to cur (either nil), at most
// maxChanges, and whether there were more.
func diff(prev, cur api.Object) ([]Change, bool) {
	var out []Change
	diffValues("", plain(prev), plain(cur), &out)
	if len(out) > maxChanges {
		return out[:maxChanges], true
	}
	return out, false
}

// plain is obj as JSON values, without the noise; nil for nil.
func plain(obj api.Object) any {
	if obj == nil || reflect.ValueOf(obj).IsNil() {
		return nil
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return nil // every api type marshals; a diff is a view, not a contract
	}
	var v map[string]any
	if json.Unmarshal(b, &v) != nil {
		return nil
	}
	if m, ok := v["metadata"].(map[string]any); ok {
		for _, k := range noise {
			delete(m, k)
		}
	}
	return v
}

// diffValues appends the changes from a to b under path, objects field by
// field in key order, lists item by item when their lengths agree.
func diffValues(path string, a, b any, out *[]Change) {
	if len(*out) > maxChanges || reflect.DeepEqual(a, b) {
		return
	}
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if (aok || a == nil) && (bok || b == nil) && (aok || bok) {
		keys := make([]string, 0, len(am)+len(bm))
		for k := range am {
			keys = append(keys, k)
		}
		for k := range bm {
			if _, ok := am[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := k
			if path != "" {
				p = path + "." + k
			}
			diffValues(p, am[k], bm[k], out)
		}
		return
	}
	al, aok := a.([]any)
	bl, bok := b.([]any)
	if aok && bok && len(al) == len(bl) {
		for i := range al {
			diffValues(path+"["+strconv.Itoa(i)+"]", al[i], bl[i], out)
		}
		return
	}
	if aok && bok {
		// Lists that grew or shrank: the items removed and added.
		for _, x := range al {
			if !containsValue(bl, x) {
				*out = append(*out, Change{Path: path + "[-]", From: x})
			}
		}
		for _, x := range bl {
			if !containsValue(al, x) {
				*out = append(*out, Change{Path: path + "[+]", To: x})
			}
		}
		return
	}
	*out = append(*out, Change{Path: path, From: a, To: b})
}

func containsValue(list []any, v any) bool {
	for _, x := range list {
		if reflect.DeepEqual(x, v) {
			return true
		}
	}
	return false
}

// ObjectDiff is what changed in one object between two revisions.
type ObjectDiff struct {
	Kind      string   `json:"kind"`
	Namespace string   `json:"namespace,omitempty"`
	Name      string   `json:"name"`
	Verb      string   `json:"verb"` // ADDED, MODIFIED or DELETED over the span
	Changes   []Change `json:"changes"`
	Truncated bool     `json:"truncated,omitempty"`
}

// Diff is what changed between two revisions, object by object.
type Diff struct {
	From    int64        `json:"from"`
	To      int64        `json:"to"`
	Objects []ObjectDiff `json:"objects"`
	// Writes is how many writes lie in (From, To].
	Writes int `json:"writes"`
}

func (h *Handler) serveDiff(w http.ResponseWriter, r *http.Request) {
	from, err := revisionParam(r, "from")
	if err != nil {
		writeError(w, err)
		return
	}
	to, err := revisionParam(r, "to")
	if err != nil {
		writeError(w, err)
		return
	}
	if from == 0 || to == 0 || from > to {
		writeError(w, apierrors.NewBadRequest("diff needs revisions from and to with from <= to; got from="+strconv.FormatInt(from, 10)+" to="+strconv.FormatInt(to, 10)))
		return
	}
	for _, rev := range []int64{from, to} {
		if err := h.checkRevision(rev); err != nil {
			writeError(w, err)
			return
		}
	}
	// Each object's state at from is the prev of its first write after
	// from, and its state at to the cur of its last write up to to.
	type span struct {
		first, last scanned
	}
	spans := map[string]*span{}
	var order []string
	d := &Diff{From: from, To: to, Objects: []ObjectDiff{}}
	err = h.scan(r.Context(), from+1, to, func(s scanned) bool {
		d.Writes++
		key := s.row.Object()
		if sp, ok := spans[key]; ok {
			sp.last = s
			return true
		}
		spans[key] = &span{first: s, last: s}
		order = append(order, key)
		return true
	})
	if err != nil {
		writeError(w, err)
		return
	}
	sort.Strings(order)
	for _, key := range order {
		sp := spans[key]
		before, after := sp.first.prev, sp.last.cur
		if before == nil && after == nil {
			continue // created and deleted within the span
		}
		verb := api.WatchModified
		switch {
		case before == nil:
			verb = api.WatchAdded
		case after == nil:
			verb = api.WatchDeleted
		}
		od := ObjectDiff{Kind: sp.first.row.Kind, Namespace: sp.first.row.Namespace, Name: sp.first.row.Name, Verb: verb}
		od.Changes, od.Truncated = diff(before, after)
		if verb != api.WatchModified {
			od.Changes, od.Truncated = nil, false // the whole object: the verb says it
		}
		if verb == api.WatchModified && len(od.Changes) == 0 {
			continue
		}
		if od.Changes == nil {
			od.Changes = []Change{}
		}
		d.Objects = append(d.Objects, od)
	}
	writeJSON(w, d)
}
