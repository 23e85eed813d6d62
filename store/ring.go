package store

// histRing is the history log: the events of consecutive revisions, oldest
// first, in a ring buffer. Compaction drops from the front and writes
// append at the back, so the log slides along its array instead of moving:
// a slice resliced from the front would lose its capacity there and, with
// the window full, copy the whole window to a new array every few thousand
// writes (100,000 events of 16 bytes, in the control-plane benchmark).
// The array grows by doubling while the window fills and never shrinks;
// its length is a power of two, so positions wrap with a mask.
type histRing[V any] struct {
	buf  []event[V]
	head int // index in buf of the oldest event
	n    int // events held
}

// len returns the number of events held.
func (h *histRing[V]) len() int { return h.n }

// at returns the i-th oldest event; i must be in [0, len).
func (h *histRing[V]) at(i int) event[V] { return h.buf[(h.head+i)&(len(h.buf)-1)] }

// push appends ev as the newest event.
func (h *histRing[V]) push(ev event[V]) {
	if h.n == len(h.buf) {
		h.grow()
	}
	h.buf[(h.head+h.n)&(len(h.buf)-1)] = ev
	h.n++
}

// drop removes the k oldest events (k ≤ len), clearing their slots so that
// the records they point to can be collected.
func (h *histRing[V]) drop(k int) {
	for range k {
		h.buf[h.head] = event[V]{}
		h.head = (h.head + 1) & (len(h.buf) - 1)
	}
	h.n -= k
}

// appendFrom appends the events from the i-th oldest on to dst, oldest first.
func (h *histRing[V]) appendFrom(dst []event[V], i int) []event[V] {
	if i >= h.n {
		return dst
	}
	start := (h.head + i) & (len(h.buf) - 1)
	end := start + h.n - i
	if end <= len(h.buf) {
		return append(dst, h.buf[start:end]...)
	}
	dst = append(dst, h.buf[start:]...)
	return append(dst, h.buf[:end-len(h.buf)]...)
}

// grow doubles the array and moves the events to its front, in order.
func (h *histRing[V]) grow() {
	size := 2 * len(h.buf)
	if size == 0 {
		size = 64
	}
	buf := h.appendFrom(make([]event[V], 0, size), 0)
	h.buf, h.head = buf[:size], 0
}
