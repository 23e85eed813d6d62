package informer

import (
	"sync"

	"github.com/miniplane/miniplane/api"
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
type DeltaFIFO struct {
	known knownObjects

	// mu guards everything below. Invariant: a key is in queue exactly
	// once iff items[key] is non-empty.
	mu    sync.Mutex
	items map[string][]Delta
	queue []string
	peak  int // the most keys queued since items was made
	// replaced: the first Replace has happened; initialLeft counts the
	// keys queued by then that are not yet popped. The FIFO has synced
	// when replaced and initialLeft is 0.
	replaced    bool
	initialLeft int
	closed      bool
	// ready is closed when the queue becomes non-empty or is closed.
	ready chan struct{}
}

// NewDeltaFIFO returns an empty FIFO feeding a cache described by known.
func NewDeltaFIFO(known knownObjects) *DeltaFIFO {
	return &DeltaFIFO{known: known, items: make(map[string][]Delta), ready: make(chan struct{})}
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
	key := KeyOf(obj)
	if _, queued := f.items[key]; !queued {
		if _, cached := f.known.Get(key); !cached {
			return
		}
	}
	f.pushLocked(key, Delta{Type: Deleted, Object: obj})
}

func (f *DeltaFIFO) push(t DeltaType, obj api.Object) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pushLocked(KeyOf(obj), Delta{Type: t, Object: obj})
}

// pushLocked appends d to key's deltas, queueing the key if it was not.
func (f *DeltaFIFO) pushLocked(key string, d Delta) {
	old := f.items[key]
	if n := len(old); n > 0 && d.Type == Deleted && old[n-1].Type == Deleted {
		// Two deletions in a row are one; keep the one that is not a guess.
		if _, guess := old[n-1].Object.(DeletedFinalStateUnknown); guess {
			old[n-1] = d
		}
		return
	}
	if len(old) == 0 {
		f.queue = append(f.queue, key)
		f.peak = max(f.peak, len(f.queue))
		f.signalLocked()
	}
	f.items[key] = append(old, d)
}

func (f *DeltaFIFO) signalLocked() {
	select {
	case <-f.ready:
	default:
		close(f.ready)
	}
}

// Replace queues the result of a (re)list: a Replaced delta for each listed
// object, then a Deleted tombstone for each object that is cached or queued
// but not listed — its deletion was missed.
func (f *DeltaFIFO) Replace(list []api.Object) {
	f.mu.Lock()
	defer f.mu.Unlock()
	listed := make(map[string]bool, len(list))
	for _, obj := range list {
		key := KeyOf(obj)
		listed[key] = true
		f.pushLocked(key, Delta{Type: Replaced, Object: obj})
	}
	// Queued but not listed: the newest queued state is the best guess.
	for _, key := range f.queue {
		if listed[key] {
			continue
		}
		ds := f.items[key]
		if last := ds[len(ds)-1]; last.Type != Deleted {
			listed[key] = true
			f.pushLocked(key, Delta{Type: Deleted, Object: DeletedFinalStateUnknown{Key: key, Obj: last.Object.(api.Object)}})
		}
	}
	for _, key := range f.known.ListKeys() {
		if listed[key] {
			continue
		}
		if obj, ok := f.known.Get(key); ok {
			f.pushLocked(key, Delta{Type: Deleted, Object: DeletedFinalStateUnknown{Key: key, Obj: obj}})
		}
	}
	if !f.replaced {
		f.replaced, f.initialLeft = true, len(f.queue)
		f.signalLocked() // even an empty first list is news: the cache has synced
	}
}

// Resync queues a Sync delta for every cached object that has no pending
// delta (a pending one would resync a stale copy).
func (f *DeltaFIFO) Resync() { f.resync(nil) }

// resync is Resync for the given handlers only (nil: all).
func (f *DeltaFIFO) resync(targets *[]*Registration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, key := range f.known.ListKeys() {
		if len(f.items[key]) > 0 {
			continue
		}
		if obj, ok := f.known.Get(key); ok {
			f.pushLocked(key, Delta{Type: Sync, Object: obj, targets: targets})
		}
	}
}

// Pop removes the oldest queued key and returns it with its deltas, oldest
// first, and whether they belong to the first list (isInInitialList). ok is
// false when the queue is empty. Pop never blocks: wait on Ready.
func (f *DeltaFIFO) Pop() (key string, deltas []Delta, isInInitialList, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.queue) == 0 {
		f.resetReadyLocked()
		return "", nil, false, false
	}
	key = f.queue[0]
	f.queue[0] = ""
	f.queue = f.queue[1:]
	deltas = f.items[key]
	delete(f.items, key)
	if f.initialLeft > 0 {
		f.initialLeft--
		isInInitialList = true
	}
	if len(f.queue) == 0 {
		f.resetReadyLocked()
		f.shrinkLocked()
	}
	return key, deltas, isInInitialList, true
}

// shrinkBelow is the size past which an emptied FIFO lets go of its storage:
// after a big list the queue's array and the map's buckets would otherwise
// stay allocated for as long as the informer lives (Go maps never shrink).
const shrinkBelow = 1024

// shrinkLocked drops the storage of an empty FIFO that once grew large.
func (f *DeltaFIFO) shrinkLocked() {
	if cap(f.queue) > shrinkBelow {
		f.queue = nil
	}
	if f.peak > shrinkBelow {
		f.items, f.peak = make(map[string][]Delta), 0
	}
}

// resetReadyLocked re-arms Ready once the queue is empty (unless closed).
func (f *DeltaFIFO) resetReadyLocked() {
	select {
	case <-f.ready:
		if !f.closed {
			f.ready = make(chan struct{})
		}
	default:
	}
}

// Ready returns a channel closed when the FIFO may hold something to pop (or
// its first list has arrived, even empty), or once it is closed. An empty
// Pop re-arms it.
func (f *DeltaFIFO) Ready() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ready
}

// Len returns the number of queued keys.
func (f *DeltaFIFO) Len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.queue)
}

// HasSynced reports whether everything queued by the first Replace has been
// popped.
func (f *DeltaFIFO) HasSynced() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.replaced && f.initialLeft == 0
}

// Close wakes anyone waiting on Ready; the FIFO keeps what it holds.
func (f *DeltaFIFO) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	f.signalLocked()
}
