package clock

import (
	"container/heap"
	"sync"
	"time"
)

// Fake is a Clock that moves only when told to (Step, SetTime, StepToNext).
// Moving it fires every timer that has come due, one at a time in the order of
// their deadlines (ties in the order the timers were set), with Now reading
// each timer's own deadline while it fires. The zero value is not usable: call
// NewFake.
type Fake struct {
	// mu guards now, seq and timers. It is never held while an AfterFunc
	// callback runs, so a callback may use the clock.
	mu     sync.Mutex
	now    time.Time
	seq    uint64
	timers timerHeap // pending timers only; a fired or stopped timer is not here
}

var _ Clock = (*Fake)(nil)

// NewFake returns a fake clock reading t.
func NewFake(t time.Time) *Fake { return &Fake{now: t} }

// Now returns the fake time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// Since returns Now().Sub(t).
func (f *Fake) Since(t time.Time) time.Duration { return f.Now().Sub(t) }

// NewTimer returns a timer that fires when the clock reaches now+d.
func (f *Fake) NewTimer(d time.Duration) Timer {
	t := &fakeTimer{clock: f, c: make(chan time.Time, 1), index: -1}
	t.Reset(d)
	return t
}

// AfterFunc returns a timer that calls fn, from the goroutine moving the
// clock, when the clock reaches now+d.
func (f *Fake) AfterFunc(d time.Duration, fn func()) Timer {
	t := &fakeTimer{clock: f, fn: fn, index: -1}
	t.Reset(d)
	return t
}

// Step moves the clock forward by d, firing the timers that come due.
func (f *Fake) Step(d time.Duration) {
	f.SetTime(f.Now().Add(d))
}

// SetTime moves the clock to t, firing the timers whose deadline is at or
// before t. Setting a time earlier than Now moves the clock back and fires
// nothing; timers keep their absolute deadlines.
func (f *Fake) SetTime(t time.Time) {
	for f.fireNext(t) {
	}
	f.mu.Lock()
	f.now = t
	f.mu.Unlock()
}

// StepToNext moves the clock to the earliest pending deadline and fires every
// timer due then. It reports false, and leaves the clock alone, when no timer
// is pending. A simulator calls it when nothing else is runnable.
func (f *Fake) StepToNext() bool {
	next, ok := f.NextDeadline()
	if !ok {
		return false
	}
	if next.Before(f.Now()) {
		next = f.Now()
	}
	f.SetTime(next)
	return true
}

// NextDeadline returns the earliest deadline of the pending timers.
func (f *Fake) NextDeadline() (time.Time, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.timers) == 0 {
		return time.Time{}, false
	}
	return f.timers[0].when, true
}

// Waiters returns the number of pending timers: set and neither fired nor
// stopped.
func (f *Fake) Waiters() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.timers)
}

// fireNext fires the earliest timer due at or before limit, if any.
func (f *Fake) fireNext(limit time.Time) bool {
	f.mu.Lock()
	if len(f.timers) == 0 || f.timers[0].when.After(limit) {
		f.mu.Unlock()
		return false
	}
	t := heap.Pop(&f.timers).(*fakeTimer)
	if t.when.After(f.now) {
		f.now = t.when
	}
	when := t.when
	f.mu.Unlock()

	if t.fn != nil {
		t.fn()
		return true
	}
	select {
	case t.c <- when:
	default: // a previous fire is still unread; like time.Timer, keep one
	}
	return true
}

type fakeTimer struct {
	clock *Fake
	fn    func()
	c     chan time.Time
	// when, seq and index are guarded by clock.mu; index is -1 when the
	// timer is not pending.
	when  time.Time
	seq   uint64
	index int
}

func (t *fakeTimer) C() <-chan time.Time { return t.c }

func (t *fakeTimer) Stop() bool {
	f := t.clock
	f.mu.Lock()
	defer f.mu.Unlock()
	if t.index < 0 {
		return false
	}
	heap.Remove(&f.timers, t.index)
	return true
}

func (t *fakeTimer) Reset(d time.Duration) bool {
	f := t.clock
	f.mu.Lock()
	defer f.mu.Unlock()
	wasPending := t.index >= 0
	if wasPending {
		heap.Remove(&f.timers, t.index)
	}
	f.seq++
	t.when, t.seq = f.now.Add(d), f.seq
	heap.Push(&f.timers, t)
	return wasPending
}

// timerHeap orders pending timers by deadline, then by the order they were set.
type timerHeap []*fakeTimer

func (h timerHeap) Len() int { return len(h) }
func (h timerHeap) Less(i, j int) bool {
	if !h[i].when.Equal(h[j].when) {
		return h[i].when.Before(h[j].when)
	}
	return h[i].seq < h[j].seq
}
func (h timerHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *timerHeap) Push(x any) {
	t := x.(*fakeTimer)
	t.index = len(*h)
	*h = append(*h, t)
}
func (h *timerHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	old[len(old)-1] = nil
	t.index = -1
	*h = old[:len(old)-1]
	return t
}
