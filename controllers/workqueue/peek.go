package workqueue

// Peek returns the item TryGet would hand out next, without handing it out
// (ok false when nothing is queued). It is a read-only view for a
// simulator's trace, which names the key a worker's step is about to
// process; a live worker must not act on it, as another may take the item
// first.
func (q *Queue[T]) Peek() (item T, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.queue.Len() == 0 {
		return item, false
	}
	return q.queue.At(0).item, true
}

// Holds reports whether item is waiting, in flight or delayed: whether the
// queue will hand it out again without another Add.
func (q *Queue[T]) Holds(item T) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	slot, ok := q.items[item]
	return ok && q.states[slot].word&(dirty|processing|delayed) != 0
}
