package sim

import (
	"time"

	"github.com/miniplane/miniplane/clock"
)

// skewedClock is one instance's view of the simulation's fake clock: the
// same timers, read with a fixed offset. Durations (timers, Since) are
// unaffected; only the wall readings differ, as between two hosts whose
// clocks disagree.
type skewedClock struct {
	f    *clock.Fake
	skew time.Duration
}

var _ clock.Clock = skewedClock{}

func (c skewedClock) Now() time.Time                  { return c.f.Now().Add(c.skew) }
func (c skewedClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }
func (c skewedClock) NewTimer(d time.Duration) clock.Timer {
	return c.f.NewTimer(d)
}
func (c skewedClock) AfterFunc(d time.Duration, fn func()) clock.Timer {
	return c.f.AfterFunc(d, fn)
}
