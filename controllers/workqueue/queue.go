package workqueue

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/internal/ring"
)

// Config configures a Queue.
type Config[T comparable] struct {
	// Name names the queue in its metrics.
	Name string
	// Clock is the queue's only source of time: delayed adds, and the
	// durations its metrics record. Required.
	Clock clock.Clock
	// RateLimiter decides the delay of AddRateLimited. Nil means
	// DefaultControllerRateLimiter on Clock.
	RateLimiter RateLimiter[T]
	// Metrics turns on the figures Metrics reports. Off, the queue never
	// reads the clock outside AddAfter.
	Metrics bool
}

// Queue is a work queue of keys: client-go's rate-limiting, delaying work
// queue in one type. See the package documentation for its guarantees; the
// same contract written plainly, the version to read first, is model in
// reference_test.go, which TestAgainstModel holds this one to. Create
// one with New; the zero value is not usable. All methods are safe for
// concurrent use.
type Queue[T comparable] struct {
	name      string
	clock     clock.Clock
	limiter   RateLimiter[T]
	metricsOn bool
	// epoch is when the queue was made; the queue keeps its times as
	// durations since epoch, read with clock.Since.
	epoch time.Time

	// mu guards everything below. cond (on mu) wakes Get when an item is
	// queued or the queue is shutting down.
	mu   sync.Mutex
	cond sync.Cond

	// items maps every item that is waiting, in flight or delayed, or was
	// recently (releases), and nothing else, to the slot in states that
	// holds its state: its flags,
	// for an in-flight item its slot in flights, and for a delayed one its
	// slot in delayed's entries. freeStates lists the slots of states no
	// item owns; they are zero. An item is in queue exactly when its word
	// is dirty and not processing, and then exactly once, with its slot.
	// The map changes only when an item comes and goes: Get, a Done that
	// queues the item again and a delayed item coming due reach its state
	// through the slot the queue entry, the flight or the delayed entry
	// carries.
	items      map[T]uint32
	states     []itemState
	freeStates []uint32
	// queue is the order in which waiting items are handed out: by the add
	// that made each one waiting.
	queue ring.Ring[queued[T]]
	// processing counts the items with the processing flag.
	processing int
	// flights is a slab of the in-flight items: each owns the slot its
	// state word names, and freeFlights lists the slots no item owns. It
	// grows to the most items ever in flight at once — about the number of
	// workers — so Done finds its item here without a map lookup
	// (flightOfLocked), and reading the metrics walks only this.
	flights     []flight[T]
	freeFlights []uint32

	// delayed holds the items added with a delay that are not yet due:
	// exactly the items whose word has the delayed flag, each once.
	// While it is not empty, timer will fire (or its callback is running)
	// at or before the earliest ready time.
	delayed delayHeap[T]
	// releases lists the items the queue let go since its last sweep
	// (sweepLocked), each once: exactly the items whose word has the
	// releasing flag. They stay in items until the sweep, which deletes
	// those that nothing held again meanwhile; an Add or AddAfter of one
	// before then finds its slot and inserts nothing. A controller's key
	// often comes back soon after its sync (the object's next event: in
	// the scale benchmark half of nodesim's keys come back within 4,096
	// releases), and each such return spares a delete and an insert in a
	// large, cold map. releaseBatch is the length at which Done sweeps.
	// A queue holding fewer than retainAbove items lets an item go at once
	// instead: its map is small and in the CPU's caches, where a delete is
	// cheap and a list and a larger map are not.
	releases     []release[T]
	releaseBatch int
	retainAbove  int
	timer        clock.Timer // made on the first delayed add
	seq          uint64      // last seq given to a delayed item

	shuttingDown bool
	// drained is made by the first ShutDownWithDrain and closed once the
	// queue is shut down and holds nothing: nothing queued, in flight or
	// delayed. drainedClosed says it was closed.
	drained       chan struct{}
	drainedClosed bool

	m metrics // only with metricsOn
}

// release is an item in Queue.releases and its state slot.
type release[T comparable] struct {
	item  T
	state uint32
}

// releaseBatch is the default Queue.releaseBatch: at most this many items
// a queue no longer holds stay in its map, about 100 KiB for string keys.
// retainAbove is the default Queue.retainAbove, about where the map
// outgrows a core's own caches.
const (
	releaseBatch = 4096
	retainAbove  = 4096
)

// itemState is an item's slot in Queue.states: its state word and, while
// the word has the delayed flag, its slot in Queue.delayed's entries.
type itemState struct {
	word  uint64
	delay uint32
}

// The state word of an item: flags in the low bits, and above them, for an
// in-flight item, its slot in Queue.flights. An item with no flag is not in
// Queue.items.
//
// Reading the fast path. Semantically the queue is client-go's: a FIFO
// slice of waiting items, a dirty set and a processing set — the model in
// invariants_test.go, which TestAgainstModel drives with the queue on
// seeded random operations, checking checkInvariants after each. One map,
// items, holds both sets: it names each item's slot in a slab of state
// words, and the queue's entries, the flights and the delayed entries carry
// the slot, so that only Add and AddAfter (to find the item, and to insert
// a new one) and a Done that lets the item go touch the map; Get, a Done
// that queues the item again and a delayed item coming due touch none. The
// delayed set is the same map: a delayed add of an item already held (a
// controller asking, during a sync, to see its key again later) costs one
// lookup, and the item stays in the map until it is done with rather than
// leaving one map to enter another. In a controller's queue of 100,000
// keys the map is large and cold, and each operation it spares is a cache
// miss or two spared.
//
//	word&dirty      the item is in the dirty set
//	word&processing the item is in the processing set
//	word&delayed    the item is in the delayed set (its own, apart from the
//	                other two: it is added when it comes due)
//	word&releasing  the item is in Queue.releases; it is held only if it
//	                has another flag
//	word>>flagBits  its slot in flights while processing
//
// Invariant: an item is in queue iff its word is dirty and not processing,
// and then once. Add's TryLock is about the clock, not correctness: with metrics, a
// new item needs its add time, read before the lock when the lock is busy
// (not to make waiting workers wait longer) and under it when the lock is
// free (so that duplicate adds, the common case, read no clock).
const (
	// dirty: the item needs processing. It is queued, or it is in flight
	// and will be queued again by Done.
	dirty uint64 = 1 << iota
	// processing: a worker holds the item, between Get and Done.
	processing
	// delayed: the item waits in Queue.delayed for its ready time.
	delayed
	// releasing: the item is listed in Queue.releases, to be let go at
	// the next sweep unless it is held again by then.
	releasing

	flagBits = iota
	flagMask = 1<<flagBits - 1
)

// flight is an in-flight item: the item, the slot of its state word, and
// what the metrics need, as times since the queue's epoch: when it was
// handed out, and when it was added again (if it is dirty), for the queue
// duration of its next round. inUse tells an owned slot from a free one.
type flight[T comparable] struct {
	item           T
	state          uint32
	inUse          bool
	started, added time.Duration
}

// queued is one entry of the queue: an item, the slot of its state word
// and, with metrics, when it was added. Keeping the add time here rather
// than in items spares Get a map read.
type queued[T comparable] struct {
	item  T
	state uint32
	added time.Duration
}

// New returns an empty queue. It starts no goroutine.
func New[T comparable](cfg Config[T]) *Queue[T] {
	if cfg.Clock == nil {
		panic("workqueue.New: Config.Clock is required")
	}
	q := &Queue[T]{
		name:      cfg.Name,
		clock:     cfg.Clock,
		limiter:   cfg.RateLimiter,
		metricsOn: cfg.Metrics,
		epoch:     cfg.Clock.Now(),
		items:     make(map[T]uint32),

		releaseBatch: releaseBatch,
		retainAbove:  retainAbove,
	}
	if q.limiter == nil {
		q.limiter = DefaultControllerRateLimiter[T](cfg.Clock)
	}
	q.cond.L = &q.mu
	return q
}

// now returns the clock's time as a duration since the queue's epoch.
func (q *Queue[T]) now() time.Duration { return q.clock.Since(q.epoch) }

// Add marks item as needing processing. If it is already waiting, nothing
// changes (it keeps its place); if it is in flight, it is queued again when
// its worker calls Done; otherwise it joins the back of the queue. After
// shutdown, Add does nothing.
//
// With metrics, a new item needs the time of its add; a duplicate does not.
// If the lock is free, Add takes it and reads the clock only for a new item,
// so that duplicates — most adds, in a queue fed by an informer — cost no
// clock read. If the lock is busy, Add reads the clock while it waits for
// it rather than while holding it, so that it does not keep the workers
// queued behind it waiting longer.
func (q *Queue[T]) Add(item T) {
	now := readNow
	switch {
	case !q.metricsOn:
		q.mu.Lock()
	case q.mu.TryLock():
	default:
		now = q.now()
		q.mu.Lock()
	}
	if !q.shuttingDown {
		q.addLocked(item, now)
	}
	q.mu.Unlock()
}

// readNow, passed to addLocked as the time of an add, asks it to read the
// clock itself, if it needs the time.
const readNow = time.Duration(math.MinInt64)

// addLocked is Add without the shutdown check, for items the queue accepted
// before shutdown (delayed ones coming due). now is the time of the add, for
// the metrics, or readNow.
func (q *Queue[T]) addLocked(item T, now time.Duration) {
	slot, held := q.items[item]
	if !held {
		slot = q.newStateLocked()
		q.items[item] = slot
	}
	q.addHeldLocked(item, slot, now)
}

// addHeldLocked is addLocked of an item that holds the state slot slot.
func (q *Queue[T]) addHeldLocked(item T, slot uint32, now time.Duration) {
	s := &q.states[slot]
	word := s.word
	if word&dirty != 0 {
		return
	}
	s.word = word | dirty
	if q.metricsOn {
		if now == readNow {
			now = q.now()
		}
		q.m.adds++
		q.m.depth++
	}
	if word&processing != 0 {
		// Done queues it.
		if q.metricsOn {
			q.flights[word>>flagBits].added = now
		}
		return
	}
	q.queue.Push(queued[T]{item: item, state: slot, added: now})
	q.cond.Signal()
}

// newStateLocked returns a slot of states for a new item, reusing the one
// freed last (the most likely to be in the CPU's caches).
func (q *Queue[T]) newStateLocked() uint32 {
	if n := len(q.freeStates); n > 0 {
		slot := q.freeStates[n-1]
		q.freeStates = q.freeStates[:n-1]
		return slot
	}
	if uint64(len(q.states)) == math.MaxUint32 {
		panic("workqueue: more than 2^32-1 items held")
	}
	q.states = append(q.states, itemState{})
	return uint32(len(q.states) - 1)
}

// Get blocks until an item is queued, then hands it to the caller, who must
// call Done with it when finished. It returns shutdown true, and no item,
// once the queue is shut down and nothing is left to hand out: nothing queued
// and nothing delayed (delayed items remain only during ShutDownWithDrain).
func (q *Queue[T]) Get() (item T, shutdown bool) {
	// With metrics, the clock is read before taking the lock, so that the
	// lock is held no longer, and again if Get had to wait.
	var now time.Duration
	if q.metricsOn {
		now = q.now()
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.queue.Len() == 0 {
		if q.finishedLocked() {
			return item, true
		}
		q.cond.Wait()
		if q.metricsOn {
			now = q.now()
		}
	}
	return q.popLocked(now), false
}

// TryGet is Get without waiting, the step a simulator drives: it hands out
// the next queued item if there is one (ok true). Otherwise it returns ok
// false, and shutdown true if Get would have reported shutdown.
func (q *Queue[T]) TryGet() (item T, ok, shutdown bool) {
	var now time.Duration
	if q.metricsOn {
		now = q.now()
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.queue.Len() == 0 {
		return item, false, q.finishedLocked()
	}
	return q.popLocked(now), true, false
}

// finishedLocked reports whether Get must return shutdown: the queue is
// shutting down and holds nothing to hand out, now or later.
func (q *Queue[T]) finishedLocked() bool {
	return q.shuttingDown && q.queue.Len() == 0 && q.delayed.len() == 0
}

// popLocked moves the head of the queue to processing and returns it; the
// queue must not be empty. now is the time of the Get, with metrics.
func (q *Queue[T]) popLocked(now time.Duration) T {
	e := q.queue.Pop()
	q.processing++
	var slot uint32
	if n := len(q.freeFlights); n > 0 {
		slot = q.freeFlights[n-1]
		q.freeFlights = q.freeFlights[:n-1]
	} else {
		slot = uint32(len(q.flights))
		q.flights = append(q.flights, flight[T]{})
	}
	f := flight[T]{item: e.item, state: e.state, inUse: true}
	if q.metricsOn {
		q.m.depth--
		q.m.queueDuration.observe(now - e.added)
		f.started = now
	}
	q.flights[slot] = f
	s := &q.states[e.state]
	s.word = uint64(slot)<<flagBits | processing | s.word&(delayed|releasing)
	return e.item
}

// flightScanMax is the size of flights up to which flightOfLocked scans it
// rather than look the item up: a controller's few workers hold few items,
// and comparing a handful of keys (the same string, most often, so equal at
// the first compare) is cheaper than a lookup in a large map.
const flightScanMax = 16

// flightOfLocked returns the slot in flights of item, and false if item is
// not in flight: by a scan of flights while it is small, else through
// items. The two agree (TestAgainstModel checks it after every operation).
func (q *Queue[T]) flightOfLocked(item T) (uint32, bool) {
	if len(q.flights) <= flightScanMax {
		return q.flightByScanLocked(item)
	}
	return q.flightByItemsLocked(item)
}

// flightByScanLocked is flightOfLocked by a scan of flights.
func (q *Queue[T]) flightByScanLocked(item T) (uint32, bool) {
	for i := range q.flights {
		if f := &q.flights[i]; f.inUse && f.item == item {
			return uint32(i), true
		}
	}
	return 0, false
}

// flightByItemsLocked is flightOfLocked through items and the state word.
func (q *Queue[T]) flightByItemsLocked(item T) (uint32, bool) {
	slot, ok := q.items[item]
	if !ok || q.states[slot].word&processing == 0 {
		return 0, false
	}
	return uint32(q.states[slot].word >> flagBits), true
}

// Done tells the queue that the worker holding item has finished with it.
// If item was added while in flight, it is queued again now, once. Done of
// an item that is not in flight does nothing (client-go would queue a
// duplicate).
func (q *Queue[T]) Done(item T) {
	var now time.Duration
	if q.metricsOn {
		now = q.now() // before the lock, as in Get
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	slot, ok := q.flightOfLocked(item)
	if !ok {
		return
	}
	f := q.flights[slot]
	q.flights[slot] = flight[T]{} // let the garbage collector have what the item points to
	q.freeFlights = append(q.freeFlights, slot)
	q.processing--
	if q.metricsOn {
		q.m.workDuration.observe(now - f.started)
	}
	s := &q.states[f.state]
	switch {
	case s.word&dirty != 0:
		s.word = dirty | s.word&(delayed|releasing)
		q.queue.Push(queued[T]{item: item, state: f.state, added: f.added})
		q.cond.Signal()
	case s.word&delayed != 0:
		s.word = delayed | s.word&releasing // held for its ready time only
	case s.word&releasing == 0 && len(q.items) < q.retainAbove:
		q.releaseLocked(item, f.state)
		if q.shuttingDown {
			q.checkDrainedLocked()
		}
	default:
		if s.word&releasing == 0 {
			q.releases = append(q.releases, release[T]{item: item, state: f.state})
		}
		s.word = releasing
		if len(q.releases) >= q.releaseBatch {
			q.sweepLocked()
		}
		if q.shuttingDown {
			q.checkDrainedLocked()
		}
	}
}

// sweepLocked lets go of the items in releases that nothing has held
// again since they were listed, and empties the list.
func (q *Queue[T]) sweepLocked() {
	for i, r := range q.releases {
		s := &q.states[r.state]
		s.word &^= releasing
		if s.word == 0 {
			q.releaseLocked(r.item, r.state)
		}
		q.releases[i] = release[T]{} // let the garbage collector have what the item points to
	}
	q.releases = q.releases[:0]
}

// releaseLocked lets item go at once: it has no flag (it is neither
// waiting, in flight, delayed nor listed in releases), and slot is its
// state slot.
func (q *Queue[T]) releaseLocked(item T, slot uint32) {
	delete(q.items, item)
	q.states[slot] = itemState{}
	q.freeStates = append(q.freeStates, slot)
}

// Len returns the number of queued items: not those in flight (even if they
// will be queued again on Done), and not delayed ones. Informational only:
// it may change before the caller acts on it.
func (q *Queue[T]) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.queue.Len()
}

// ShuttingDown reports whether ShutDown or ShutDownWithDrain has been called.
func (q *Queue[T]) ShuttingDown() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.shuttingDown
}

// ShutDown stops the queue taking items: later adds of any kind are dropped.
// What is queued is still handed out, and an in-flight item that was added
// again before the shutdown is still queued again on Done; once nothing is
// queued, Get returns shutdown. It does not wait for workers.
//
// Delayed items that are not yet due are discarded, and returned, earliest
// ready time first (ties in the order of the AddAfter calls that set them),
// so the caller can log or persist what will not be retried. A second call
// returns nil.
func (q *Queue[T]) ShutDown() []T {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.shuttingDown = true
	dropped := q.takeDelayedLocked()
	if q.timer != nil {
		q.timer.Stop()
	}
	q.cond.Broadcast()
	q.checkDrainedLocked()
	return dropped
}

// ShutDownWithDrain stops the queue taking items, as ShutDown, and waits
// until it has finished all the work it holds: every queued item handed out
// and Done, every in-flight item Done (including the extra round of one
// added again while in flight), and every delayed item come due on the clock,
// handed out and Done. Meanwhile Get keeps handing out work and does not
// report shutdown while delayed items are pending. Workers must keep calling
// Get and Done, or the wait lasts until ctx ends.
//
// It returns nil once drained, or ctx.Err() if ctx ends first; the queue
// then stays shut down, its workers keep draining it, and its delayed items
// stay pending. To stop waiting for them, call ShutDown, which discards and
// returns them. Only ctx ends the wait: ShutDown does not.
func (q *Queue[T]) ShutDownWithDrain(ctx context.Context) error {
	q.mu.Lock()
	q.shuttingDown = true
	if q.drained == nil {
		q.drained = make(chan struct{})
	}
	q.checkDrainedLocked()
	// Waiters in Get with nothing queued and nothing delayed must now
	// return shutdown.
	q.cond.Broadcast()
	drained := q.drained
	q.mu.Unlock()

	select {
	case <-drained:
		return nil
	case <-ctx.Done():
		select {
		case <-drained: // both happened: drained wins, so the answer does not depend on select's coin
			return nil
		default:
			return ctx.Err()
		}
	}
}

// checkDrainedLocked closes drained if a drain is waiting and the queue is
// shut down and empty: nothing queued, in flight or delayed.
func (q *Queue[T]) checkDrainedLocked() {
	if q.drained == nil || q.drainedClosed || !q.shuttingDown {
		return
	}
	if q.queue.Len() == 0 && q.processing == 0 && q.delayed.len() == 0 {
		close(q.drained)
		q.drainedClosed = true
	}
}
