package workqueue

import "time"

// AddAfter adds item once d has passed on the queue's clock; d ≤ 0 adds it
// now. An item already pending keeps the earlier of its two ready times.
// When it comes due the item is added as by Add, so it collapses with a
// waiting copy. After shutdown, AddAfter does nothing.
//
// The queue owns no goroutine for this: one clock timer is armed for the
// earliest pending item. On a clock.Fake, delayed items come due inside the
// Step (or SetTime) that reaches their ready time, in ready-time order.
func (q *Queue[T]) AddAfter(item T, d time.Duration) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.shuttingDown {
		return
	}
	if q.metricsOn {
		q.m.retries++
	}
	if d <= 0 {
		q.addLocked(item, readNow)
		return
	}
	now := q.now()
	q.seq++
	slot, held := q.heldStateLocked(item)
	if !held {
		slot = q.newStateLocked()
		q.items[item] = slot
	}
	s := &q.states[slot]
	var head bool
	if s.word&delayed != 0 {
		head = q.delayed.advance(s.delay, now+d, q.seq)
	} else {
		s.delay, head = q.delayed.add(item, slot, now+d, q.seq)
		s.word |= delayed
	}
	if head {
		q.armLocked(now)
	}
}

// heldStateLocked returns item's state slot, and false if the queue does
// not hold it. A delayed add most often comes from the sync of the item
// itself (a kubelet waiting for a container to start, a retry after a
// failure), so while few items are in flight it looks among them first,
// as Done does: the item's entry in items was last touched when it was
// added, before a backlog of others, and is likely out of the CPU's caches.
func (q *Queue[T]) heldStateLocked(item T) (uint32, bool) {
	if len(q.flights) <= flightScanMax {
		if fs, ok := q.flightByScanLocked(item); ok {
			return q.flights[fs].state, true
		}
	}
	slot, ok := q.items[item]
	return slot, ok
}

// takeDelayedLocked empties the delayed set and returns its items, earliest
// ready time first (ties in add order), letting go of those that are not
// also waiting or in flight.
func (q *Queue[T]) takeDelayedLocked() []T {
	pending := q.delayed.takeAll()
	if len(pending) == 0 {
		return nil
	}
	items := make([]T, len(pending))
	for i, e := range pending {
		items[i] = e.item
		s := &q.states[e.state]
		s.word &^= delayed
		s.delay = 0
		if s.word == 0 {
			q.releaseLocked(e.item, e.state)
		}
	}
	return items
}

// NextDelayed returns the ready time of the earliest pending delayed item, so
// a simulator can move its fake clock straight there; ok is false when no
// item is pending.
func (q *Queue[T]) NextDelayed() (readyAt time.Time, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.delayed.len() == 0 {
		return time.Time{}, false
	}
	return q.epoch.Add(q.delayed.head().readyAt), true
}

// armLocked sets the timer to fire when the earliest pending item is due.
// The heap must not be empty.
func (q *Queue[T]) armLocked(now time.Duration) {
	d := q.delayed.head().readyAt - now
	if q.timer == nil {
		q.timer = q.clock.AfterFunc(d, q.fireDelayed)
		return
	}
	q.timer.Reset(d)
}

// fireDelayed is the timer's callback: it adds every item that is due and
// arms the timer for the next one. A call with nothing due (a real timer
// that fired just as it was reset) changes nothing but the timer.
func (q *Queue[T]) fireDelayed() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.delayed.len() == 0 {
		return // discarded by ShutDown
	}
	now := q.now()
	for q.delayed.len() > 0 && q.delayed.head().readyAt <= now {
		item, slot := q.delayed.pop()
		s := &q.states[slot]
		s.word &^= delayed
		s.delay = 0
		q.addHeldLocked(item, slot, now) // accepted before any shutdown, so not dropped
	}
	if q.delayed.len() > 0 {
		q.armLocked(now)
		return
	}
	if q.shuttingDown {
		// A drain was waiting for the delayed items; with none left, idle
		// workers in Get must learn that the queue is finished.
		q.cond.Broadcast()
		q.checkDrainedLocked()
	}
}
