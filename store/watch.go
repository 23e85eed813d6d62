package store

import (
	"strings"
	"sync"
	"sync/atomic"
)

// closed is a channel that is always ready.
var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// Watcher delivers the events under one key prefix, from its start revision
// on, exactly once and in revision order, until it ends with an error. Create
// one with Store.Watch; stop it with Stop.
type Watcher[V any] struct {
	s      *Store[V]
	prefix string
	done   chan struct{} // closed when the watcher ends

	// mu guards next and err, and is held for a whole Poll so that two polls
	// never hand out the same event.
	mu sync.Mutex
	// next is the revision of the next event to examine: every event under
	// prefix with a revision in [start, next) has been returned by Poll.
	next int64
	// err is why the watcher ended; nil while it is live. Once set it never
	// changes.
	err error
	// scratch holds a Poll's history entries between lock and expansion.
	scratch []revEvent[V]

	// wake is the channel Ready handed out while the watcher is parked in
	// s.parked, nil otherwise; see Store.parked for its guard.
	wake chan struct{}
	// skip is the last revision a writer found outside prefix while the
	// watcher was parked: nothing at or below it is still to come, so Poll
	// moves next past it. Writers set it without w.mu, hence atomic.
	skip atomic.Int64
	// ended mirrors err != nil for writers, which do not take w.mu: they
	// drop an ended watcher from s.parked.
	ended atomic.Bool
}

// Watch starts a watcher on the keys under prefix whose first event is the
// first write at or after revision fromRev (inclusive, as etcd's
// start_revision). fromRev 0 means "from now on": only writes after the
// current revision. A fromRev before the history window fails with
// ErrCompacted; one in the future is accepted and waits for that revision.
func (s *Store[V]) Watch(prefix string, fromRev int64) (*Watcher[V], error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if fromRev == 0 {
		fromRev = s.rev + 1
	}
	if fromRev < s.compactRev || fromRev < s.watchFloor {
		return nil, &CompactedError{Rev: fromRev, CompactRev: max(s.compactRev, s.watchFloor)}
	}
	s.watchers.Add(1)
	return &Watcher[V]{s: s, prefix: prefix, next: fromRev, done: make(chan struct{})}, nil
}

// Poll is the delivery step. It appends to dst, in revision order, the
// pending events under the watcher's prefix — at most limit of them, or all
// when limit <= 0 — and returns at once, never waiting for more. progress is the
// revision through which the watcher has now seen every event (a bookmark:
// nothing at or below it is still to come).
//
// When the watcher has ended Poll returns the reason: ErrStopped after Stop,
// or an error matching ErrTooSlow and ErrCompacted when the history window
// moved past events it had not yet delivered. Events returned before the
// error are all there were: an error is never preceded by a gap.
func (w *Watcher[V]) Poll(dst []Event[V], limit int) (events []Event[V], progress int64, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.s
	s.mu.RLock()
	unlocked := false
	defer func() {
		if !unlocked {
			s.mu.RUnlock()
		}
	}()
	w.next = max(w.next, w.skip.Load()+1)
	// A watcher that starts in the future has seen nothing beyond now.
	seen := min(w.next-1, s.rev)
	if w.err != nil {
		return dst, seen, w.err
	}
	if w.next < s.compactRev || w.next < s.watchFloor {
		// The window moved past events it had not delivered, or a Reset
		// replaced them with a snapshot.
		w.endLocked(&CompactedError{Rev: w.next, CompactRev: max(s.compactRev, s.watchFloor), Watching: true})
		return dst, seen, w.err
	}
	// Only the matching history entries are copied under the lock (24
	// bytes each); expanding them into Events waits until it is released,
	// so a long catch-up does not stall writers.
	base := s.histBaseLocked()
	i := s.histIndexLocked(w.next)
	w.scratch = w.scratch[:0]
	for ; i < s.hist.Len() && (limit <= 0 || len(w.scratch) < limit); i++ {
		if ev := s.hist.At(i); strings.HasPrefix(ev.key(), w.prefix) {
			w.scratch = append(w.scratch, revEvent[V]{rev: base + int64(i), ev: ev})
		}
	}
	w.next = max(w.next, base+int64(i))
	progress = min(w.next-1, s.rev)
	s.mu.RUnlock()
	unlocked = true

	for _, e := range w.scratch {
		dst = append(dst, e.ev.toEvent(e.rev))
	}
	clear(w.scratch)
	return dst, progress, nil
}

// revEvent is a history entry with its revision, copied out for a Poll.
type revEvent[V any] struct {
	rev int64
	ev  event[V]
}

// Ready returns a channel that is closed once Poll may have something to say.
// It is closed at once when the watcher has ended, or when revisions at or
// after its next one exist (a wake-up that may find nothing under the
// prefix). Otherwise the watcher is caught up and parks: the channel is
// closed by the next write under its prefix, by a compaction, or by any
// write after the watcher ended. Writes under other prefixes do not wake
// it; they move its cursor past them instead, so an idle watcher never
// falls behind the history window. A live loop waits on it, then polls.
func (w *Watcher[V]) Ready() <-chan struct{} {
	w.mu.Lock()
	next, ended := max(w.next, w.skip.Load()+1), w.err != nil
	w.mu.Unlock()
	if ended {
		return closed
	}
	s := w.s
	s.mu.RLock()
	defer s.mu.RUnlock()
	if next <= s.rev || next < s.compactRev || next < s.watchFloor {
		return closed
	}
	// Writers hold s.mu exclusively while they close wake channels, so
	// under the shared lock one can only be created, by another caller of
	// Ready: chMu orders that.
	s.chMu.Lock()
	defer s.chMu.Unlock()
	if w.wake == nil {
		w.wake = make(chan struct{})
		s.parked = append(s.parked, w)
	}
	return w.wake
}

// Done returns a channel that is closed when the watcher ends: it was stopped,
// or a Poll found it had fallen behind the history window.
func (w *Watcher[V]) Done() <-chan struct{} { return w.done }

// Err returns why the watcher ended, or nil while it is live.
func (w *Watcher[V]) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Stop ends the watcher; later polls return ErrStopped. It is safe to call
// more than once and from any goroutine.
func (w *Watcher[V]) Stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.endLocked(ErrStopped)
	}
}

// endLocked records why the watcher ended. The caller holds w.mu and the
// watcher is live.
func (w *Watcher[V]) endLocked(err error) {
	w.err = err
	w.ended.Store(true)
	close(w.done)
	w.s.watchers.Add(-1)
}
