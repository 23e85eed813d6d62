package workqueue

import (
	"cmp"
	"slices"
	"time"
)

// delayEntry is one item waiting for its ready time.
type delayEntry[T comparable] struct {
	item T
	// state is the item's slot in Queue.states, whose delay names this
	// entry's slot: the queue's map is looked up when the item is delayed,
	// not again when it comes due.
	state uint32
	// readyAt is when the item is due, as time since the queue's epoch.
	readyAt time.Duration
	// seq orders items due at the same time: the AddAfter that set readyAt
	// earlier comes first.
	seq uint64
	// pos is the entry's position in delayHeap.heap.
	pos int
}

// before is the heap's order: ready time, then add order.
func (d *delayEntry[T]) before(e *delayEntry[T]) bool {
	if d.readyAt != e.readyAt {
		return d.readyAt < e.readyAt
	}
	return d.seq < e.seq
}

// delayHeap holds the pending delayed items: a min-heap by ready time. It
// has no index of its own: the queue keeps each delayed item's entry slot
// in the item's state (itemState.delay), found through the queue's one map,
// so an item is pending at most once and delaying it again finds its entry
// without a second map.
//
// The entries live in a slab and the heap orders their slot numbers, so
// moving an entry up or down the heap rewrites two ints. Freed slots are
// reused, so a steady flow of delayed items does not allocate.
//
// Invariants: heap holds the slots of the pending entries, each once, in
// heap order, with entries[heap[i]].pos == i; free holds the other slots of
// entries.
type delayHeap[T comparable] struct {
	entries []delayEntry[T]
	free    []uint32
	heap    []uint32
}

func (d *delayHeap[T]) len() int { return len(d.heap) }

// head returns the earliest pending entry; the heap must not be empty.
func (d *delayHeap[T]) head() *delayEntry[T] { return &d.entries[d.heap[0]] }

// add makes item, whose state slot is state and which is not pending, due
// at readyAt. It returns the entry's slot, and whether item is now the head.
func (d *delayHeap[T]) add(item T, state uint32, readyAt time.Duration, seq uint64) (slot uint32, head bool) {
	if n := len(d.free); n > 0 {
		slot = d.free[n-1]
		d.free = d.free[:n-1]
	} else {
		slot = uint32(len(d.entries))
		d.entries = append(d.entries, delayEntry[T]{})
	}
	d.entries[slot] = delayEntry[T]{item: item, state: state, readyAt: readyAt, seq: seq, pos: len(d.heap)}
	d.heap = append(d.heap, slot)
	return slot, d.up(len(d.heap)-1) == 0
}

// advance makes the pending entry in slot due at readyAt if that is earlier
// than its ready time (the earliest ready time wins). It reports whether the
// entry is now the head.
func (d *delayHeap[T]) advance(slot uint32, readyAt time.Duration, seq uint64) bool {
	e := &d.entries[slot]
	if readyAt >= e.readyAt {
		return false
	}
	e.readyAt, e.seq = readyAt, seq
	return d.up(e.pos) == 0
}

// pop removes the earliest pending entry and returns its item and state
// slot; the heap must not be empty.
func (d *delayHeap[T]) pop() (item T, state uint32) {
	slot := d.heap[0]
	last := len(d.heap) - 1
	d.swap(0, last)
	d.heap = d.heap[:last]
	if last > 0 {
		d.down(0)
	}
	item, state = d.entries[slot].item, d.entries[slot].state
	d.entries[slot] = delayEntry[T]{} // let the garbage collector have what the item points to
	d.free = append(d.free, slot)
	return item, state
}

// takeAll empties the heap and returns its entries by ready time, then add
// order.
func (d *delayHeap[T]) takeAll() []delayEntry[T] {
	if len(d.heap) == 0 {
		return nil
	}
	pending := make([]delayEntry[T], len(d.heap))
	for i, slot := range d.heap {
		pending[i] = d.entries[slot]
	}
	slices.SortFunc(pending, func(a, b delayEntry[T]) int {
		return cmp.Or(cmp.Compare(a.readyAt, b.readyAt), cmp.Compare(a.seq, b.seq))
	})
	clear(d.entries)
	d.entries, d.free, d.heap = d.entries[:0], d.free[:0], d.heap[:0]
	return pending
}

// less reports whether the entry at heap position i comes before the one at j.
func (d *delayHeap[T]) less(i, j int) bool {
	return d.entries[d.heap[i]].before(&d.entries[d.heap[j]])
}

// up moves the entry at heap position i towards the root until its parent
// comes before it, and returns where it ended.
func (d *delayHeap[T]) up(i int) int {
	for i > 0 {
		parent := (i - 1) / 2
		if !d.less(i, parent) {
			break
		}
		d.swap(i, parent)
		i = parent
	}
	return i
}

// down moves the entry at heap position i towards the leaves until both its
// children come after it.
func (d *delayHeap[T]) down(i int) {
	n := len(d.heap)
	for {
		least := i
		if l := 2*i + 1; l < n && d.less(l, least) {
			least = l
		}
		if r := 2*i + 2; r < n && d.less(r, least) {
			least = r
		}
		if least == i {
			return
		}
		d.swap(i, least)
		i = least
	}
}

func (d *delayHeap[T]) swap(i, j int) {
	d.heap[i], d.heap[j] = d.heap[j], d.heap[i]
	d.entries[d.heap[i]].pos = i
	d.entries[d.heap[j]].pos = j
}
