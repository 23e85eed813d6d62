package workqueue

import (
	"cmp"
	"slices"
	"time"
)

// delayed is one item waiting for its ready time.
type delayed[T comparable] struct {
	item T
	// readyAt is when the item is due, as time since the queue's epoch.
	readyAt time.Duration
	// seq orders items due at the same time: the AddAfter that set readyAt
	// earlier comes first.
	seq uint64
	// pos is the entry's position in delayHeap.heap.
	pos int
}

// before is the heap's order: ready time, then add order.
func (d *delayed[T]) before(e *delayed[T]) bool {
	if d.readyAt != e.readyAt {
		return d.readyAt < e.readyAt
	}
	return d.seq < e.seq
}

// delayHeap holds the pending delayed items: a min-heap by ready time, with
// an index from item to entry so that an item is pending at most once.
//
// The entries live in a slab and the heap orders their slot numbers, so
// moving an entry up or down the heap rewrites two ints instead of the index
// map; a pending item costs one map insert and one map delete in all. Freed
// slots are reused, so a steady flow of delayed items does not allocate.
//
// Invariants: index maps each pending item to its slot; heap holds exactly
// those slots, in heap order, with entries[heap[i]].pos == i; free holds
// the other slots of entries.
type delayHeap[T comparable] struct {
	entries []delayed[T]
	free    []int
	heap    []int
	index   map[T]int
}

func (d *delayHeap[T]) len() int { return len(d.heap) }

// head returns the earliest pending entry; the heap must not be empty.
func (d *delayHeap[T]) head() *delayed[T] { return &d.entries[d.heap[0]] }

// add makes item due at readyAt unless it is already due at or before then
// (the earliest ready time wins). It reports whether item is now the head.
func (d *delayHeap[T]) add(item T, readyAt time.Duration, seq uint64) bool {
	if d.index == nil {
		d.index = make(map[T]int)
	}
	if slot, ok := d.index[item]; ok {
		e := &d.entries[slot]
		if readyAt >= e.readyAt {
			return false
		}
		e.readyAt, e.seq = readyAt, seq
		return d.up(e.pos) == 0
	}
	var slot int
	if n := len(d.free); n > 0 {
		slot = d.free[n-1]
		d.free = d.free[:n-1]
	} else {
		slot = len(d.entries)
		d.entries = append(d.entries, delayed[T]{})
	}
	d.entries[slot] = delayed[T]{item: item, readyAt: readyAt, seq: seq, pos: len(d.heap)}
	d.index[item] = slot
	d.heap = append(d.heap, slot)
	return d.up(len(d.heap)-1) == 0
}

// pop removes the earliest pending item and returns it; the heap must not be
// empty.
func (d *delayHeap[T]) pop() T {
	slot := d.heap[0]
	last := len(d.heap) - 1
	d.swap(0, last)
	d.heap = d.heap[:last]
	if last > 0 {
		d.down(0)
	}
	item := d.entries[slot].item
	d.entries[slot] = delayed[T]{} // let the garbage collector have what the item points to
	d.free = append(d.free, slot)
	delete(d.index, item)
	return item
}

// takeAll empties the heap and returns its items by ready time, then add order.
func (d *delayHeap[T]) takeAll() []T {
	if len(d.heap) == 0 {
		return nil
	}
	pending := make([]delayed[T], len(d.heap))
	for i, slot := range d.heap {
		pending[i] = d.entries[slot]
	}
	slices.SortFunc(pending, func(a, b delayed[T]) int {
		return cmp.Or(cmp.Compare(a.readyAt, b.readyAt), cmp.Compare(a.seq, b.seq))
	})
	items := make([]T, len(pending))
	for i, e := range pending {
		items[i] = e.item
	}
	clear(d.entries)
	d.entries, d.free, d.heap = d.entries[:0], d.free[:0], d.heap[:0]
	clear(d.index)
	return items
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
