package store

import (
	"slices"
	"strings"
)

// ListOptions select a page of a List.
type ListOptions struct {
	// Rev is the revision to read at; 0 means the current revision. To page
	// consistently, pass the Rev of the first page's result to every later page.
	Rev int64
	// Limit is the most records to return; 0 means all.
	Limit int
	// After, when not empty, starts the page after this key (exclusive): the
	// last key of the previous page.
	After string
}

// ListResult is one page of a List.
type ListResult[V any] struct {
	Records []Record[V] // in key order
	Rev     int64       // the revision the page was read at
	More    bool        // Limit cut the page short: continue After the last key
}

// List returns the records whose keys start with prefix, in key order, at the
// revision opts.Rev (current if 0). A revision before the history window fails
// with ErrCompacted, one not yet written with ErrFutureRev.
//
// The read holds the store's lock only to take a copy-on-write Clone of the
// tree and the slice of history after the revision; it walks them unlocked, so
// a long list never stalls writers.
func (s *Store[V]) List(prefix string, opts ListOptions) (ListResult[V], error) {
	var res ListResult[V]
	var err error
	res.Rev, res.More, err = s.Range(prefix, opts, func(r Record[V]) bool {
		res.Records = append(res.Records, r)
		return true
	})
	if err != nil {
		return ListResult[V]{}, err
	}
	return res, nil
}

// Range is List without the slice: it calls fn for each record of the page
// in key order, and returns the revision read and whether Limit cut the
// page short. fn returning false stops the walk early (more is then false).
func (s *Store[V]) Range(prefix string, opts ListOptions, fn func(Record[V]) bool) (rev int64, more bool, err error) {
	snap, rev, later, err := s.snapshot(opts.Rev)
	if err != nil {
		return 0, false, err
	}
	n := 0
	walkAt(snap, later, prefix, opts.After, func(r *rec[V]) bool {
		if opts.Limit > 0 && n == opts.Limit {
			more = true
			return false
		}
		n++
		return fn(r.record())
	})
	return rev, more, nil
}

// snapshot returns a clone of the current tree, the revision to read at, and
// the history events after that revision, which the caller must undo.
func (s *Store[V]) snapshot(rev int64) (*stateTree[V], int64, []event[V], error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.checkRevLocked(rev); err != nil {
		return nil, 0, nil, err
	}
	if rev == 0 {
		rev = s.rev
	}
	// The events after rev are copied: compaction clears the slots it drops.
	later := s.hist.AppendFrom(nil, s.histIndexLocked(rev+1))
	return s.tree.Clone(), rev, later, nil
}

// walkAt calls fn, in key order, for every record under prefix and after the
// key after, as the state was before the events in later were applied to
// snap. It stops when fn returns false.
func walkAt[V any](snap *stateTree[V], later []event[V], prefix, after string, fn func(*rec[V]) bool) {
	// past maps each key that later touched to its state before the first
	// such touch (nil: it did not exist). gone marks those whose last touch
	// deleted them: they are not in snap. revived lists the keys that
	// existed then but are gone now, to be merged into the walk in order.
	var past map[string]*rec[V]
	var gone map[string]bool
	var revived []*rec[V]
	for _, ev := range later {
		k := ev.key()
		if !strings.HasPrefix(k, prefix) || (after != "" && k <= after) {
			continue
		}
		if past == nil {
			past, gone = make(map[string]*rec[V]), make(map[string]bool)
		}
		if _, seen := past[k]; !seen {
			past[k] = ev.prev
		}
		gone[k] = ev.cur == nil
	}
	for k, r := range past {
		if r != nil && gone[k] {
			revived = append(revived, r)
		}
	}
	slices.SortFunc(revived, func(a, b *rec[V]) int { return strings.Compare(a.key, b.key) })

	emitRevivedBefore := func(key string, all bool) bool {
		for len(revived) > 0 && (all || revived[0].key < key) {
			if !fn(revived[0]) {
				return false
			}
			revived = revived[1:]
		}
		return true
	}
	cont := true
	visit := func(it item[V]) bool {
		if !strings.HasPrefix(it.key, prefix) {
			return false
		}
		if after != "" && it.key <= after {
			return true
		}
		if cont = emitRevivedBefore(it.key, false); !cont {
			return false
		}
		r := it.r
		if then, touched := past[it.key]; touched {
			r = then
		}
		if r == nil {
			return true
		}
		cont = fn(r)
		return cont
	}
	start := prefix
	if after > start {
		start = after
	}
	snap.AscendGreaterOrEqual(item[V]{key: start}, visit)
	if cont {
		emitRevivedBefore("", true)
	}
}
