package store

import (
	"fmt"

	"github.com/google/btree"
)

// Backend is what a store offers its user: the in-memory Store itself, or a
// store whose source of truth is elsewhere (etcd) and which serves reads and
// watches from a Store kept as its cache. Every method means what Store's
// does; a backend adds only its own errors (an unreachable server).
type Backend[V any] interface {
	Rev() int64
	Stats() Stats
	Create(key string, value V) (Record[V], error)
	Update(key string, value V, expectedRev int64) (Record[V], error)
	Delete(key string, expectedRev int64) (Record[V], error)
	Get(key string, rev int64) (Record[V], error)
	List(prefix string, opts ListOptions) (ListResult[V], error)
	Range(prefix string, opts ListOptions, fn func(Record[V]) bool) (rev int64, more bool, err error)
	Watch(prefix string, fromRev int64) (*Watcher[V], error)
	Compact(rev int64) error
}

var _ Backend[int] = (*Store[int])(nil)

// gapKey is the key of the placeholder events Advance and NewAt write: it
// is under no prefix but "" and "\x00", and never in the state tree.
const gapKey = "\x00gap"

// NewAt returns a store holding recs as the state at revision rev, with no
// history before it: reads at rev and later work, older ones fail with
// ErrCompacted, and so does a watch from before rev+1; one from rev+1 on
// sees every later write. It is how a
// cache of another store (etcd) starts from that store's snapshot. Each
// record keeps its CreateRev, ModRev and Version; keys must be unique, and
// rev at least 1 and at least every ModRev. stamp is as NewStamped's and is
// not called for recs.
func NewAt[V any](opts Options, stamp func(value V, rev int64), rev int64, recs []Record[V]) *Store[V] {
	s := NewStamped(opts, stamp)
	for _, r := range recs {
		s.tree.ReplaceOrInsert(item[V]{r.Key, &rec[V]{key: r.Key, value: r.Value, createRev: r.CreateRev, modRev: r.ModRev, version: r.Version}})
	}
	if rev > 1 {
		// The history window starts at rev, and holds rev's event: a
		// placeholder, since what happened at rev is in the state.
		s.rev = rev - 1
		s.commitLocked(gapEvent[V](rev))
		s.compactRev = rev
		// What was written at rev is in the state, not in history.
		s.watchFloor = rev + 1
	}
	return s
}

// Advance moves the revision on to rev with placeholder events that change
// no key: for a cache whose source skipped revisions it does not hold (a
// write under another prefix of etcd). It does nothing when rev is not
// beyond the current revision.
func (s *Store[V]) Advance(rev int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.rev < rev {
		s.commitLocked(gapEvent[V](s.rev + 1))
	}
}

// gapEvent is a placeholder event at rev: an update of gapKey, which is in
// no state, so reads and lists never see it.
func gapEvent[V any](rev int64) event[V] {
	r := &rec[V]{key: gapKey, createRev: rev, modRev: rev, version: 1}
	return event[V]{cur: r, prev: r}
}

// Reset replaces the whole state with recs as the state at revision rev,
// which must be beyond the current one, and drops all history: a cache
// whose source compacted revisions the cache had not yet seen starts again
// from a fresh snapshot, as kube-apiserver's cacher relists. Afterwards the
// store is as NewAt left it: reads at rev and later work, a watch from rev
// or before fails with ErrCompacted, and every watcher that had not yet
// seen all of rev ends with ErrCompacted on its next Poll (the writes it
// missed are only in the snapshot), which the API server sends as 410
// Expired.
func (s *Store[V]) Reset(rev int64, recs []Record[V]) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rev <= s.rev {
		panic(fmt.Sprintf("store: Reset at revision %d, not beyond the current %d", rev, s.rev))
	}
	// Parked watchers are woken before the placeholder below is written, so
	// that it moves none of their cursors past the gap.
	s.wakeAllLocked()
	s.tree = btree.NewG(btreeDegree, itemLess[V])
	for _, r := range recs {
		s.tree.ReplaceOrInsert(item[V]{r.Key, &rec[V]{key: r.Key, value: r.Value, createRev: r.CreateRev, modRev: r.ModRev, version: r.Version}})
	}
	s.hist.Drop(s.hist.Len())
	s.compactRev = rev
	s.rev = rev - 1
	s.commitLocked(gapEvent[V](rev))
	s.watchFloor = rev + 1
}
