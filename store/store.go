package store

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/google/btree"

	"github.com/miniplane/miniplane/internal/ring"
)

// DefaultHistoryLimit is the history window when Options.HistoryLimit is 0.
// kube-apiserver's watch cache keeps between 100 and 102,400 events; 10,000
// is enough for a relist-free demo and small enough to show 410s in tests.
const DefaultHistoryLimit = 10_000

// btreeDegree is the node width of the state tree; 32 is etcd's choice.
const btreeDegree = 32

// Options configure a Store. The zero value is ready to use.
type Options struct {
	// HistoryLimit is the most write events kept for watches and reads at past
	// revisions. When a write would exceed it, the oldest events are compacted
	// away. 0 means DefaultHistoryLimit.
	HistoryLimit int
}

// Record is one stored value with its revisions. Value is shared with the
// store and every other reader: treat it as immutable.
type Record[V any] struct {
	Key       string
	Value     V
	CreateRev int64 // revision of the write that created the key
	ModRev    int64 // revision of the key's last write: its resourceVersion
	Version   int64 // writes since creation: 1 after create, +1 per update
}

// rec is the immutable form of a Record held in the tree and in history.
// Once stored it is never changed; a write stores a new rec.
type rec[V any] struct {
	key       string
	value     V
	createRev int64
	modRev    int64
	version   int64
}

func (r *rec[V]) record() Record[V] {
	return Record[V]{Key: r.key, Value: r.value, CreateRev: r.createRev, ModRev: r.modRev, Version: r.version}
}

// stateTree is the current state: one item per live key, ordered by key.
type stateTree[V any] = btree.BTreeG[item[V]]

// item is what the tree holds: the key inline, so lookups need no allocation.
type item[V any] struct {
	key string
	r   *rec[V]
}

func itemLess[V any](a, b item[V]) bool { return a.key < b.key }

// Store is a versioned key-value store. Create one with New.
type Store[V any] struct {
	limit int            // history window; fixed at New
	stamp func(V, int64) // see NewStamped; may be nil

	// mu guards every field below. Writers and Clone take it exclusively;
	// Get and history scans share it.
	mu sync.RWMutex
	// tree holds the current state, one item per live key.
	tree *stateTree[V]
	// rev is the current revision: that of the last write, 1 when empty.
	rev int64
	// compactRev is the oldest revision still readable (0 before any
	// compaction). Invariant: hist holds exactly the events of revisions
	// histBase()..rev, where histBase() = max(compactRev, 2).
	compactRev int64
	// watchFloor is the oldest revision a watch may start from, beyond
	// compactRev: the first after NewAt's snapshot (0 otherwise).
	watchFloor int64
	// hist is the history log, oldest first: writes push at the back and
	// compaction drops from the front, so the window slides along one
	// array instead of being copied whenever it is full (100,000 events
	// in the control-plane benchmark).
	hist ring.Ring[event[V]]
	// parked are the watchers waiting for news (see Watcher.Ready), each
	// with its own wake channel: a write closes the channels of those whose
	// prefix holds its key and tells the others, through their skip, that
	// it was not for them, so that an idle watcher is neither woken by
	// nor left behind by writes elsewhere. parked, and the wake field of
	// each watcher, are read and changed under chMu plus either mode of mu;
	// only a holder of mu exclusively closes a wake channel or removes a
	// watcher.
	chMu   sync.Mutex
	parked []*Watcher[V]

	// watchers counts the live (not ended) watchers, for Stats. It is
	// atomic, not guarded by mu: a Poll ends a watcher while reading.
	watchers atomic.Int64
}

// New returns an empty store at revision 1.
func New[V any](opts Options) *Store[V] { return NewStamped[V](opts, nil) }

// NewStamped returns an empty store that calls stamp with every value a Create
// or Update is about to store and the revision it will have. stamp runs under
// the store's lock, before any reader can see the value, so it may write the
// revision into a value the caller still owns (the API server writes
// metadata.resourceVersion this way). It must be quick and must not call the
// store. A nil stamp does nothing.
func NewStamped[V any](opts Options, stamp func(value V, rev int64)) *Store[V] {
	limit := opts.HistoryLimit
	if limit <= 0 {
		limit = DefaultHistoryLimit
	}
	return &Store[V]{
		limit: limit,
		stamp: stamp,
		tree:  btree.NewG(btreeDegree, itemLess[V]),
		rev:   1,
	}
}

// Rev returns the current revision.
func (s *Store[V]) Rev() int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.rev
}

// Stats is a snapshot of a store's counters.
type Stats struct {
	Rev        int64 // current revision
	CompactRev int64 // oldest readable revision; 0 before any compaction
	Keys       int   // live keys
	History    int   // events in the history window
	Watchers   int   // watchers not yet ended
}

// Stats returns the store's counters.
func (s *Store[V]) Stats() Stats {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return Stats{Rev: s.rev, CompactRev: s.compactRev, Keys: s.tree.Len(), History: s.hist.Len(), Watchers: int(s.watchers.Load())}
}

// Create stores value under key at a new revision. It fails with ErrExists if
// the key is present.
func (s *Store[V]) Create(key string, value V) (Record[V], error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := &rec[V]{key: key, value: value, createRev: s.rev + 1, modRev: s.rev + 1, version: 1}
	// Insert first and undo on the rare collision: one tree walk, not two.
	if old, found := s.tree.ReplaceOrInsert(item[V]{key, r}); found {
		s.tree.ReplaceOrInsert(old)
		return Record[V]{}, fmt.Errorf("%w: %q", ErrExists, key)
	}
	if s.stamp != nil {
		s.stamp(value, r.modRev)
	}
	s.commitLocked(event[V]{cur: r})
	return r.record(), nil
}

// Update replaces the value under key at a new revision. If expectedRev is not
// 0 the key's ModRev must equal it, or the update fails with a *ConflictError;
// 0 makes the update unconditional. A missing key fails with ErrNotFound.
func (s *Store[V]) Update(key string, value V, expectedRev int64) (Record[V], error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	// Replace first and undo on the rare miss or conflict: one tree walk,
	// not two. r is filled in from what it replaced before the lock is
	// let go, so no reader sees it half made.
	r := &rec[V]{key: key, value: value, modRev: s.rev + 1}
	old, found := s.tree.ReplaceOrInsert(item[V]{key, r})
	if !found {
		s.tree.Delete(item[V]{key: key})
		return Record[V]{}, fmt.Errorf("%w: %q", ErrNotFound, key)
	}
	if expectedRev != 0 && old.r.modRev != expectedRev {
		s.tree.ReplaceOrInsert(old)
		return Record[V]{}, &ConflictError{Key: key, Expected: expectedRev, Actual: old.r.modRev}
	}
	r.createRev, r.version = old.r.createRev, old.r.version+1
	if s.stamp != nil {
		s.stamp(value, r.modRev)
	}
	s.commitLocked(event[V]{cur: r, prev: old.r})
	return r.record(), nil
}

// Delete removes key at a new revision and returns the record it held. If
// expectedRev is not 0 the key's ModRev must equal it, or the delete fails with
// a *ConflictError. A missing key fails with ErrNotFound and, as in etcd,
// does not advance the revision.
func (s *Store[V]) Delete(key string, expectedRev int64) (Record[V], error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, found := s.tree.Delete(item[V]{key: key})
	if !found {
		return Record[V]{}, fmt.Errorf("%w: %q", ErrNotFound, key)
	}
	if expectedRev != 0 && old.r.modRev != expectedRev {
		s.tree.ReplaceOrInsert(old)
		return Record[V]{}, &ConflictError{Key: key, Expected: expectedRev, Actual: old.r.modRev}
	}
	s.commitLocked(event[V]{prev: old.r})
	return old.r.record(), nil
}

// commitLocked appends ev as the next revision, trims history to the window
// and wakes waiting watchers. The caller holds s.mu exclusively and has
// already applied ev to the tree.
func (s *Store[V]) commitLocked(ev event[V]) {
	s.rev++
	s.hist.Push(ev)
	if s.hist.Len() > s.limit {
		s.compactLocked(s.rev - int64(s.limit) + 1)
	}
	if len(s.parked) == 0 {
		return
	}
	key := ev.key()
	// kept counts the watchers that stay parked, moved to the front in
	// order. Most writes wake none: the slice is then left as it is, not
	// rewritten, since every pointer stored pays a write barrier while the
	// garbage collector marks.
	kept := 0
	for i, w := range s.parked {
		if !w.ended.Load() && !strings.HasPrefix(key, w.prefix) {
			// Every revision since w parked is outside its prefix: its
			// cursor may move past them, and a compaction of them is no
			// gap for it.
			w.skip.Store(s.rev)
			if kept != i {
				s.parked[kept] = w
			}
			kept++
			continue
		}
		close(w.wake)
		w.wake = nil
	}
	if kept < len(s.parked) {
		clear(s.parked[kept:])
		s.parked = s.parked[:kept]
	}
}

// wakeAllLocked closes the wake channel of every parked watcher. The caller
// holds s.mu exclusively.
func (s *Store[V]) wakeAllLocked() {
	for _, w := range s.parked {
		close(w.wake)
		w.wake = nil
	}
	clear(s.parked)
	s.parked = s.parked[:0]
}

// Get returns the record under key at revision rev, or at the current
// revision when rev is 0.
func (s *Store[V]) Get(key string, rev int64) (Record[V], error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := s.checkRevLocked(rev); err != nil {
		return Record[V]{}, err
	}
	if rev != 0 && rev < s.rev {
		// The first write to key after rev holds, as prev, the state at rev.
		for i := s.histIndexLocked(rev + 1); i < s.hist.Len(); i++ {
			if ev := s.hist.At(i); ev.key() == key {
				if ev.prev == nil {
					return Record[V]{}, fmt.Errorf("%w: %q at revision %d", ErrNotFound, key, rev)
				}
				return ev.prev.record(), nil
			}
		}
	}
	it, found := s.tree.Get(item[V]{key: key})
	if !found {
		return Record[V]{}, fmt.Errorf("%w: %q", ErrNotFound, key)
	}
	return it.r.record(), nil
}

// checkRevLocked reports whether a read at rev (0 meaning current) is
// possible. The caller holds s.mu.
func (s *Store[V]) checkRevLocked(rev int64) error {
	switch {
	case rev == 0:
		return nil
	case rev > s.rev:
		return futureRev(rev, s.rev)
	case rev < s.compactRev:
		return &CompactedError{Rev: rev, CompactRev: s.compactRev}
	}
	return nil
}

// Compact drops the history before rev: afterwards reads and watches at
// revisions from rev on still work, and older ones fail with ErrCompacted, as
// do watchers whose next event was dropped. Compacting at or below the
// current compaction revision fails with ErrCompacted, beyond the current
// revision with ErrFutureRev.
func (s *Store[V]) Compact(rev int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rev <= s.compactRev {
		return &CompactedError{Rev: rev, CompactRev: s.compactRev}
	}
	if rev > s.rev {
		return futureRev(rev, s.rev)
	}
	s.compactLocked(rev)
	// Watchers behind the new window learn it on their next Poll; wake them.
	s.wakeAllLocked()
	return nil
}

// compactLocked makes rev the oldest readable revision. rev must be in
// (s.compactRev, s.rev].
func (s *Store[V]) compactLocked(rev int64) {
	s.hist.Drop(s.histIndexLocked(rev))
	s.compactRev = rev
}

// histBaseLocked returns the revision of s.hist[0] (or of the next write, when
// history is empty). Revision 1 is the empty store and has no event.
func (s *Store[V]) histBaseLocked() int64 { return max(s.compactRev, 2) }

// histIndexLocked returns the index in s.hist of the event at revision rev,
// clamped to [0, len(s.hist)].
func (s *Store[V]) histIndexLocked(rev int64) int {
	i := rev - s.histBaseLocked()
	return int(min(max(i, 0), int64(s.hist.Len())))
}
