package informer

import (
	"context"
	"slices"
	"sync"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
)

// DeltaType says what happened to an object.
type DeltaType string

// The kinds of deltas. Kubernetes: cache.DeltaType.
const (
	Added    DeltaType = "Added"
	Updated  DeltaType = "Updated"
	Deleted  DeltaType = "Deleted"
	Replaced DeltaType = "Replaced" // the object was in a (re)list
	Sync     DeltaType = "Sync"     // a periodic resync: nothing changed
)

// Delta is one change to one object. Object is an api.Object, or a
// DeletedFinalStateUnknown for a Deleted delta whose deletion was missed.
type Delta struct {
	Type   DeltaType
	Object any
	// targets, for a Sync delta, are the handlers the resync is for; nil
	// means all of them.
	targets *[]*Registration
}

// DeletedFinalStateUnknown stands for an object that a relist showed gone
// without its DELETED event having been seen: Obj is its last known state,
// which may be stale. Kubernetes: cache.DeletedFinalStateUnknown.
type DeletedFinalStateUnknown struct {
	Key string
	Obj api.Object
}

// DeletedObject unwraps what a Deleted delta or an OnDelete carries: the
// object, and whether it is only the last known state of a missed deletion.
func DeletedObject(obj any) (o api.Object, finalStateUnknown bool) {
	switch t := obj.(type) {
	case api.Object:
		return t, false
	case DeletedFinalStateUnknown:
		return t.Obj, true
	}
	return nil, false
}

// knownObjects is what a DeltaFIFO asks about the cache it feeds, to find the
// objects a relist no longer holds and the ones to resync.
type knownObjects interface {
	ListKeys() []string
	Get(key string) (api.Object, bool)
}

// DeltaFIFO queues changes per object: each key is queued once, in the order
// it first changed, with every delta it accumulated since, oldest first.
// Kubernetes: cache.DeltaFIFO (client-go's informers now use its successor,
// RealFIFO; DeltaFIFO is still the clearer one to learn from).
//
// Reading the fast paths. Semantically the FIFO is only items (key → its
// deltas) and queue (the keys in order): naiveFIFO in fifo_model_test.go is
// exactly that, and TestDeltaFIFOAgainstNaive checks this one against it on
// seeded random operations. Here a key's deltas live in its queue entry and
// items only says where that entry is, so that a pop, which reads the entry
// anyway, touches the map once (the delete) rather than twice, and a delta
// for a key already queued touches it once (the lookup) rather than twice.
// Three buffers make it cheap and change no answer:
//
//   - bulk: a (re)list into an empty FIFO is kept as one slice of Replaced
//     deltas (and tombstones), one per key, handed out in order; no key,
//     map entry or slice is made per object. Invariant: while bulk holds
//     deltas, items and queue are empty; any other change first spills
//     bulk into them (spillLocked).
//   - spare: delta slices emptied by pops, reused by pushLocked for the
//     next key that starts queueing, so a steady stream of events
//     allocates no slices.
//   - lent: the slice the last popReusing handed the informer. It is the
//     caller's until its next popReusing, which takes it back into spare;
//     a bulk view is never lent, as bulk is not the FIFO's to reuse.
type DeltaFIFO struct {
	known knownObjects

	// mu guards everything below. Invariant: a key is in queue[head:]
	// exactly once, with its deltas (never none), iff it is in items, and
	// then items[key]-base is its index in queue; queue[:head] are popped
	// slots, cleared. A position is kept as base plus the index, so that
	// moving the entries to the front of the array changes base, not the
	// map. Popping moves head rather than reslicing the front away, so
	// that a queue that empties (as it does between bursts) takes its next
	// keys into the same array instead of growing anew.
	mu    sync.Mutex
	items map[string]int
	queue []fifoEntry
	head  int
	base  int
	peak  int // the most keys queued since items was made
	// bulk[bulkHead:] are the deltas of a (re)list that arrived while
	// nothing was queued: one delta per key, each key once, handed out in
	// order before anything in queue. Keeping a list here rather than in
	// items spares every listed object a key, a map entry and a slice
	// until it is popped, which is most of the cost of a large list.
	// Invariant: while bulk holds deltas, items and queue are empty — a
	// change to any key first moves what is left of bulk into them
	// (spillLocked), so a key's deltas are never split in two places.
	bulk     []Delta
	bulkHead int
	// spare holds emptied delta slices that pushLocked reuses, so that a
	// steady stream of events allocates none; lent is the slice the last
	// popReusing handed out, taken back at the next one.
	spare [][]Delta
	lent  []Delta
	// replaced: the first Replace has happened; initialLeft counts the
	// keys queued by then that are not yet popped. The FIFO has synced
	// when replaced and initialLeft is 0.
	replaced    bool
	initialLeft int
	closed      bool
	// signaled says the FIFO may hold something to pop (or its first list
	// has arrived, or it is closed): set by every change that queues a
	// key, cleared by a Pop that finds the FIFO empty or empties it. It is
	// what Ready reports, kept as a flag so that a FIFO that empties and
	// fills again (after nearly every event, for a live informer) costs no
	// channel. ready is the channel Ready handed out while signaled was
	// false, or nil: signalLocked closes it and forgets it.
	signaled bool
	ready    chan struct{}
	// sleeping says the informer's processing loop waits on wake
	// (sleep); signalLocked clears it and sends wake its one token, as a
	// Registration wakes its dispatcher: wake is made once, with the FIFO.
	sleeping bool
	wake     chan struct{}
	// room is made by Full when the FIFO is over its limit, and closed
	// (and forgotten) once it is not.
	room chan struct{}
}

// fifoEntry is a queued key and its deltas, oldest first, and the cache
// entry the reflector found for the key while queueing them, if any: a hint
// for the informer, which may be stale by the time the key is popped (see
// Indexer.lookupLocked). It is nil for a key queued by anything but
// pushEvents, or whose events the cache held no entry for.
type fifoEntry struct {
	key    string
	deltas []Delta
	ent    *entry
}

// NewDeltaFIFO returns an empty FIFO feeding a cache described by known.
func NewDeltaFIFO(known knownObjects) *DeltaFIFO {
	return &DeltaFIFO{known: known, items: make(map[string]int), wake: make(chan struct{}, 1)}
}

// Add queues an Added delta.
func (f *DeltaFIFO) Add(obj api.Object) { f.push(Added, obj) }

// Update queues an Updated delta.
func (f *DeltaFIFO) Update(obj api.Object) { f.push(Updated, obj) }

// Delete queues a Deleted delta, unless the object is neither queued nor
// cached: then there is nothing to delete.
func (f *DeltaFIFO) Delete(obj api.Object) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.spillLocked()
	f.deleteLocked(KeyOf(obj), obj, nil)
}

// deleteLocked is Delete of obj, whose key is key; hint is nil or the cache
// entry found for key earlier (heldKeys).
func (f *DeltaFIFO) deleteLocked(key string, obj api.Object, hint *entry) {
	if _, queued := f.items[key]; !queued && !f.cachedLocked(key, hint) {
		return
	}
	f.pushLocked(key, Delta{Type: Deleted, Object: obj}, hint)
}

// cachedLocked reports whether the cache holds key. A hint still in the
// cache answers without looking key up; a stale one does not say that key
// is not cached again, so the lookup decides.
func (f *DeltaFIFO) cachedLocked(key string, hint *entry) bool {
	if x, ok := f.known.(*Indexer); ok && hint != nil && x.holds(hint) {
		return true
	}
	_, cached := f.known.Get(key)
	return cached
}

func (f *DeltaFIFO) push(t DeltaType, obj api.Object) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.spillLocked()
	f.pushLocked(KeyOf(obj), Delta{Type: t, Object: obj}, nil)
}

// pushLocked appends d to key's deltas, queueing the key if it was not.
// hint, if not nil, is the cache entry found for key (heldKeys): it replaces
// the one the key was queued with, as the newer is the likelier to be
// current.
func (f *DeltaFIFO) pushLocked(key string, d Delta, hint *entry) {
	if pos, queued := f.items[key]; queued {
		q := &f.queue[pos-f.base]
		if hint != nil {
			q.ent = hint
		}
		if n := len(q.deltas); d.Type == Deleted && q.deltas[n-1].Type == Deleted {
			// Two deletions in a row are one; keep the one that is not a guess.
			if _, guess := q.deltas[n-1].Object.(DeletedFinalStateUnknown); guess {
				q.deltas[n-1] = d
			}
			return
		}
		q.deltas = appendDelta(q.deltas, d)
		return
	}
	var ds []Delta
	if n := len(f.spare); n > 0 {
		ds, f.spare = f.spare[n-1], f.spare[:n-1]
	}
	f.items[key] = f.base + len(f.queue)
	f.queue = slices.Grow(f.queue, 1)
	f.queue = f.queue[:len(f.queue)+1]
	q := &f.queue[len(f.queue)-1]
	q.key, q.deltas, q.ent = key, appendDelta(ds, d), hint // field by field: see appendDelta
	f.peak = max(f.peak, len(f.queue)-f.head)
	f.signalLocked()
}

// appendDelta is append(ds, d), storing d's fields one by one. While the GC
// marks, which it does for much of a large run, copying a struct this size
// into the heap goes through the bulk write barrier (runtime.wbMove, which
// walks the type's pointer bitmap); a store of each field takes the cheaper
// buffered one.
func appendDelta(ds []Delta, d Delta) []Delta {
	ds = slices.Grow(ds, 1)
	ds = ds[:len(ds)+1]
	p := &ds[len(ds)-1]
	p.Type, p.Object, p.targets = d.Type, d.Object, d.targets
	return ds
}

// pushEventsChunk is how many events pushEvents queues per hold of the
// lock: short enough that a Pop waiting for it spins rather than sleeps.
const pushEventsChunk = 32

// pushEvents queues watch events, in order — Added, Updated or Deleted
// deltas; bookmarks are skipped — whose keys the caller computed (keys[i]
// is evs[i]'s), as Add, Update and Delete would one by one. ents[i] is nil
// or the cache entry heldKeys found for keys[i]: a hint kept with the key.
func (f *DeltaFIFO) pushEvents(evs []client.WatchEvent, keys []string, ents []*entry) {
	for len(evs) > 0 {
		n := min(len(evs), pushEventsChunk)
		f.mu.Lock()
		f.spillLocked()
		for i, ev := range evs[:n] {
			switch ev.Type {
			case api.WatchAdded:
				f.pushLocked(keys[i], Delta{Type: Added, Object: ev.Object}, ents[i])
			case api.WatchModified:
				f.pushLocked(keys[i], Delta{Type: Updated, Object: ev.Object}, ents[i])
			case api.WatchDeleted:
				f.deleteLocked(keys[i], ev.Object, ents[i])
			}
		}
		f.mu.Unlock()
		evs, keys, ents = evs[n:], keys[n:], ents[n:]
	}
}

// heldKeys implements heldKeySink for a FIFO feeding an Indexer: an event
// that updates or deletes a cached object gets the cache's key string and
// entry.
func (f *DeltaFIFO) heldKeys(evs []client.WatchEvent, keys []string, ents []*entry) {
	if x, ok := f.known.(*Indexer); ok {
		x.heldKeys(evs, keys, ents)
	}
}

// spillLocked moves what is left of bulk into items and queue, in order,
// before anything else is queued.
func (f *DeltaFIFO) spillLocked() {
	if f.bulkHead == len(f.bulk) {
		return
	}
	for _, d := range f.bulk[f.bulkHead:] {
		f.pushLocked(deltaKey(d), d, nil)
	}
	f.bulk, f.bulkHead = nil, 0
}

// deltaKey returns the key of the object a delta is about.
func deltaKey(d Delta) string {
	if t, ok := d.Object.(DeletedFinalStateUnknown); ok {
		return t.Key
	}
	return KeyOf(d.Object.(api.Object))
}

// signalLocked records that the FIFO may hold something to pop, and wakes
// whoever waits for it: a Ready channel, the sleeping processing loop.
func (f *DeltaFIFO) signalLocked() {
	f.signaled = true
	if f.ready != nil {
		close(f.ready)
		f.ready = nil
	}
	if f.sleeping {
		f.sleeping = false
		select {
		case f.wake <- struct{}{}:
		default: // a token already waits: one wakes the loop as well as two
		}
	}
}

// Replace queues the result of a (re)list: a Replaced delta for each listed
// object, then a Deleted tombstone for each object that is cached or queued
// but not listed — its deletion was missed.
func (f *DeltaFIFO) Replace(list []api.Object) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.bulkHead == len(f.bulk) && len(f.queue) == f.head {
		f.replaceIntoBulkLocked(list)
	} else {
		f.spillLocked()
		f.replaceLocked(list)
	}
	if !f.replaced {
		f.replaced, f.initialLeft = true, f.lenLocked()
		f.signalLocked() // even an empty first list is news: the cache has synced
	}
}

// replaceIntoBulkLocked is Replace on an empty FIFO: the list becomes bulk
// as it is, and no key is computed unless something is cached, for there is
// then nothing a listed key could tombstone or merge with.
func (f *DeltaFIFO) replaceIntoBulkLocked(list []api.Object) {
	known := f.known.ListKeys()
	var listed map[string]bool
	if len(known) > 0 {
		listed = make(map[string]bool, len(list))
		for _, obj := range list {
			listed[KeyOf(obj)] = true
		}
	} else if r, ok := f.known.(interface{ reserve(n int) }); ok {
		r.reserve(len(list)) // an empty cache about to take the whole list
	}
	bulk := make([]Delta, 0, len(list))
	for _, obj := range list {
		bulk = append(bulk, Delta{Type: Replaced, Object: obj})
	}
	for _, key := range known {
		if listed[key] {
			continue
		}
		if obj, ok := f.known.Get(key); ok {
			bulk = append(bulk, Delta{Type: Deleted, Object: DeletedFinalStateUnknown{Key: key, Obj: obj}})
		}
	}
	if len(bulk) > 0 {
		f.bulk, f.bulkHead = bulk, 0
		f.signalLocked()
	}
}

// replaceLocked is Replace while keys are queued: the listed objects and
// the tombstones merge with their keys' queued deltas.
func (f *DeltaFIFO) replaceLocked(list []api.Object) {
	listed := make(map[string]bool, len(list))
	for _, obj := range list {
		key := KeyOf(obj)
		listed[key] = true
		f.pushLocked(key, Delta{Type: Replaced, Object: obj}, nil)
	}
	// Queued but not listed: the newest queued state is the best guess.
	// (The pushes below go to keys already queued, so queue keeps its
	// length; each entry is read afresh, as a push may have moved it.)
	for i := f.head; i < len(f.queue); i++ {
		key, ds := f.queue[i].key, f.queue[i].deltas
		if listed[key] {
			continue
		}
		if last := ds[len(ds)-1]; last.Type != Deleted {
			listed[key] = true
			f.pushLocked(key, Delta{Type: Deleted, Object: DeletedFinalStateUnknown{Key: key, Obj: last.Object.(api.Object)}}, nil)
		}
	}
	for _, key := range f.known.ListKeys() {
		if listed[key] {
			continue
		}
		if obj, ok := f.known.Get(key); ok {
			f.pushLocked(key, Delta{Type: Deleted, Object: DeletedFinalStateUnknown{Key: key, Obj: obj}}, nil)
		}
	}
}

// Resync queues a Sync delta for every cached object that has no pending
// delta (a pending one would resync a stale copy).
func (f *DeltaFIFO) Resync() { f.resync(nil) }

// resync is Resync for the given handlers only (nil: all).
func (f *DeltaFIFO) resync(targets *[]*Registration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.spillLocked() // a key in bulk has a pending delta too
	for _, key := range f.known.ListKeys() {
		if _, queued := f.items[key]; queued {
			continue
		}
		if obj, ok := f.known.Get(key); ok {
			f.pushLocked(key, Delta{Type: Sync, Object: obj, targets: targets}, nil)
		}
	}
}

// Pop removes the oldest queued key and returns it with its deltas, oldest
// first, and whether they belong to the first list (isInInitialList). ok is
// false when the queue is empty. Pop never blocks: wait on Ready.
func (f *DeltaFIFO) Pop() (key string, deltas []Delta, isInInitialList, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	key, deltas, _, isInInitialList, _, ok = f.popLocked()
	return key, deltas, isInInitialList, ok
}

// popReusing is Pop for the informer, which is done with a key's deltas
// once it has applied them: it takes back the slice it handed out last time
// for reuse, so that deltas cost no allocation in steady state. It also
// reports HasSynced as of this pop, sparing the informer a second lock, and
// the key's cache entry hint (fifoEntry.ent).
func (f *DeltaFIFO) popReusing() (key string, deltas []Delta, hint *entry, isInInitialList, synced, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.lent != nil {
		if len(f.spare) < maxSpare && cap(f.lent) <= maxSpareCap {
			clear(f.lent)
			f.spare = append(f.spare, f.lent[:0])
		}
		f.lent = nil
	}
	var fromBulk bool
	key, deltas, hint, isInInitialList, fromBulk, ok = f.popLocked()
	if ok && !fromBulk {
		f.lent = deltas // a view of bulk is not the FIFO's to reuse
	}
	return key, deltas, hint, isInInitialList, f.replaced && f.initialLeft == 0, ok
}

// maxSpare bounds the emptied delta slices kept for reuse, and maxSpareCap
// their size: a key that gathered many deltas does not pin a large array.
// Run lets the backlog reach roomBelow keys plus one reflector step's
// events before the reflector waits, and every key queued needs a slice:
// keeping as many spare lets a backlog that drains and fills again reuse
// them all (with 64, a step of 256 new keys allocated 192 slices). At most
// a few hundred KiB per informer, mostly slices of one delta.
const (
	maxSpare    = roomBelow + maxEventsPerStep
	maxSpareCap = 8
)

// popLocked is Pop, with the key's hint; fromBulk says deltas is a view of
// bulk.
func (f *DeltaFIFO) popLocked() (key string, deltas []Delta, hint *entry, isInInitialList, fromBulk, ok bool) {
	switch {
	case f.bulkHead < len(f.bulk):
		fromBulk = true
		i := f.bulkHead
		f.bulkHead++
		deltas = f.bulk[i : i+1 : i+1] // a view: appending to it copies
		key = deltaKey(deltas[0])
		if f.bulkHead == len(f.bulk) {
			f.bulk, f.bulkHead = nil, 0
		}
	case f.head < len(f.queue):
		key, deltas, hint = f.queue[f.head].key, f.queue[f.head].deltas, f.queue[f.head].ent
		q := &f.queue[f.head]
		q.key, q.deltas, q.ent = "", nil, nil // not *q = fifoEntry{}: see appendDelta
		f.head++
		delete(f.items, key)
		switch {
		case f.head == len(f.queue):
			// Empty: the next key goes to the front of the same array.
			f.base += f.head
			f.queue, f.head = f.queue[:0], 0
		case f.head > roomBelow && f.head*2 > len(f.queue):
			// Mostly popped: move the rest to the front, rather than
			// let appends grow the array past the keys it holds.
			n := copy(f.queue, f.queue[f.head:])
			clear(f.queue[n:len(f.queue)])
			f.base += f.head
			f.queue, f.head = f.queue[:n], 0
		}
	default:
		f.resetReadyLocked()
		return "", nil, nil, false, false, false
	}
	if f.initialLeft > 0 {
		f.initialLeft--
		isInInitialList = true
	}
	n := f.lenLocked()
	if n == 0 {
		f.resetReadyLocked()
		f.shrinkLocked()
	}
	if n <= roomBelow {
		f.openRoomLocked()
	}
	return key, deltas, hint, isInInitialList, fromBulk, true
}

// lenLocked returns the number of queued keys.
func (f *DeltaFIFO) lenLocked() int { return len(f.queue) - f.head + len(f.bulk) - f.bulkHead }

// roomBelow is the backlog past which the FIFO reports itself Full.
const roomBelow = 1024

// Full reports whether more than 1024 keys are queued and, if so, returns a
// channel closed once at most 1024 are (or the FIFO is closed). A producer
// that feeds the FIFO much faster than it is drained — a reflector
// replaying a long watch — waits on it, so that the backlog, and with it the
// memory the FIFO touches per key, stays small and warm in the CPU's caches.
func (f *DeltaFIFO) Full() (<-chan struct{}, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed || f.lenLocked() <= roomBelow {
		return nil, false
	}
	if f.room == nil {
		f.room = make(chan struct{})
	}
	return f.room, true
}

// openRoomLocked wakes whoever waits on Full's channel.
func (f *DeltaFIFO) openRoomLocked() {
	if f.room != nil {
		close(f.room)
		f.room = nil
	}
}

// shrinkBelow is the size past which an emptied FIFO lets go of its storage:
// after a big list the queue's array and the map's buckets would otherwise
// stay allocated for as long as the informer lives (Go maps never shrink).
// It is well above the backlog Run keeps (roomBelow, plus one step's
// events), so that a FIFO that often runs empty under a steady stream does
// not rebuild its map each time.
const shrinkBelow = 4 * roomBelow

// shrinkLocked drops the storage of an empty FIFO that once grew large.
func (f *DeltaFIFO) shrinkLocked() {
	if cap(f.queue) > shrinkBelow {
		f.queue, f.head = nil, 0
	}
	if f.peak > shrinkBelow {
		f.items, f.peak = make(map[string]int), 0
	}
}

// resetReadyLocked re-arms Ready once the queue is empty (unless closed).
func (f *DeltaFIFO) resetReadyLocked() {
	if !f.closed {
		f.signaled = false
	}
}

// Ready returns a channel closed when the FIFO may hold something to pop (or
// its first list has arrived, even empty), or once it is closed. An empty
// Pop re-arms it.
func (f *DeltaFIFO) Ready() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.signaled || f.closed {
		return closedChan
	}
	if f.ready == nil {
		f.ready = make(chan struct{})
	}
	return f.ready
}

// sleep is the informer's processing loop running dry: it returns once
// the FIFO may hold something to pop (what would close Ready), or ctx is
// done. Something queued after the caller's Pop found the FIFO empty but
// before sleep takes the lock is seen here, and anything queued later
// sends the token, so nothing is missed; a token left from an earlier
// wake at most wakes the loop once for nothing.
func (f *DeltaFIFO) sleep(ctx context.Context) {
	f.mu.Lock()
	if f.signaled || f.closed {
		f.mu.Unlock()
		return
	}
	f.sleeping = true
	f.mu.Unlock()
	select {
	case <-ctx.Done():
		f.mu.Lock()
		f.sleeping = false
		f.mu.Unlock()
	case <-f.wake:
	}
}

// Len returns the number of queued keys.
func (f *DeltaFIFO) Len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lenLocked()
}

// HasSynced reports whether everything queued by the first Replace has been
// popped.
func (f *DeltaFIFO) HasSynced() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.replaced && f.initialLeft == 0
}

// Close wakes anyone waiting on Ready or Room; the FIFO keeps what it holds.
func (f *DeltaFIFO) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	f.signalLocked()
	f.openRoomLocked()
}
