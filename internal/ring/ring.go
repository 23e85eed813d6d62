// Package ring is a FIFO ring buffer of values, oldest first, shared by the
// store's history log and the workqueue's order of work.
//
// Items are pushed at the back and removed from the front, so the contents
// slide along one array instead of moving: a slice resliced from the front
// would lose its capacity there and, once full, copy everything to a new
// array every so often. The array grows by doubling and never shrinks, so a
// ring in steady state pushes and pops without allocating; its length is a
// power of two (or zero), so positions wrap with a mask. Removed slots are
// cleared, so what an item points to can be collected.
//
// It has no Kubernetes counterpart (client-go's workqueue uses a slice). It
// imports nothing. A Ring is not safe for concurrent use: its owner's lock
// guards it.
package ring

// Ring is a FIFO of T, oldest first. The zero value is an empty ring.
type Ring[T any] struct {
	buf  []T
	head int // index in buf of the oldest item
	n    int // items held
}

// Len returns the number of items held.
func (r *Ring[T]) Len() int { return r.n }

// At returns the i-th oldest item; i must be in [0, Len).
func (r *Ring[T]) At(i int) T { return r.buf[(r.head+i)&(len(r.buf)-1)] }

// Push appends x as the newest item.
func (r *Ring[T]) Push(x T) {
	if r.n == len(r.buf) {
		r.grow()
	}
	r.buf[(r.head+r.n)&(len(r.buf)-1)] = x
	r.n++
}

// Pop removes and returns the oldest item; the ring must not be empty.
func (r *Ring[T]) Pop() T {
	x := r.buf[r.head]
	var zero T
	r.buf[r.head] = zero
	r.head = (r.head + 1) & (len(r.buf) - 1)
	r.n--
	return x
}

// Drop removes the k oldest items (k ≤ Len).
func (r *Ring[T]) Drop(k int) {
	var zero T
	for range k {
		r.buf[r.head] = zero
		r.head = (r.head + 1) & (len(r.buf) - 1)
	}
	r.n -= k
}

// AppendFrom appends the items from the i-th oldest on to dst, oldest first,
// and returns the extended slice; nothing when i ≥ Len.
func (r *Ring[T]) AppendFrom(dst []T, i int) []T {
	if i >= r.n {
		return dst
	}
	start := (r.head + i) & (len(r.buf) - 1)
	end := start + r.n - i
	if end <= len(r.buf) {
		return append(dst, r.buf[start:end]...)
	}
	dst = append(dst, r.buf[start:]...)
	return append(dst, r.buf[:end-len(r.buf)]...)
}

// grow doubles the array (to 64 from empty) and moves the items to its
// front, in order.
func (r *Ring[T]) grow() {
	size := 2 * len(r.buf)
	if size == 0 {
		size = 64
	}
	buf := make([]T, size)
	k := copy(buf, r.buf[r.head:])
	copy(buf[k:], r.buf[:r.head])
	r.buf, r.head = buf, 0
}
