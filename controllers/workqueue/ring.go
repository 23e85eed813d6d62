package workqueue

// fifo is the queue's order of work: a ring buffer of items, oldest first.
// It grows by doubling and never shrinks, so a queue in steady state pushes
// and pops without allocating. Its capacity is always a power of two (or
// zero), so positions wrap with a mask.
type fifo[T any] struct {
	buf  []T
	head int // index of the oldest item
	n    int // number of items
}

func (f *fifo[T]) len() int { return f.n }

func (f *fifo[T]) push(x T) {
	if f.n == len(f.buf) {
		f.grow()
	}
	f.buf[(f.head+f.n)&(len(f.buf)-1)] = x
	f.n++
}

// pop removes and returns the oldest item; the fifo must not be empty.
func (f *fifo[T]) pop() T {
	x := f.buf[f.head]
	var zero T
	f.buf[f.head] = zero // let the garbage collector have what the item points to
	f.head = (f.head + 1) & (len(f.buf) - 1)
	f.n--
	return x
}

// grow doubles the capacity and moves the items to the front of the new buffer.
func (f *fifo[T]) grow() {
	size := 2 * len(f.buf)
	if size == 0 {
		size = 64
	}
	buf := make([]T, size)
	k := copy(buf, f.buf[f.head:])
	copy(buf[k:], f.buf[:f.head])
	f.buf, f.head = buf, 0
}
