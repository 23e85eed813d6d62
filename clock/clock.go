// Package clock is the only door through which miniplane's library code sees time.
//
// Every component takes a Clock instead of calling time.Now, time.After or
// time.NewTimer (DESIGN.md, "Determinism", rule 1). The live binary passes
// Real; tests and the simulator pass a *Fake, which moves only when told to and
// fires due timers in time order, so a run on a Fake is a pure function of the
// calls made on it. It mirrors k8s.io/utils/clock and its testing.FakeClock,
// reduced to what miniplane uses.
//
// The package imports the standard library only and is safe for concurrent use.
package clock

import "time"

// Clock tells the time and makes timers.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// Since returns the time elapsed since t; it is Now().Sub(t).
	Since(t time.Time) time.Duration
	// NewTimer returns a timer that sends the time on its channel once d has
	// passed. A d of zero or less fires at the next chance.
	NewTimer(d time.Duration) Timer
	// AfterFunc calls f in its own goroutine (Real) or from the goroutine that
	// moves the clock (Fake) once d has passed. The returned Timer's C is nil.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a single-shot timer, as time.Timer.
type Timer interface {
	// C is the channel the fire time is sent on; it has room for one value,
	// so a fire is never lost and never blocks the clock. Nil for AfterFunc.
	C() <-chan time.Time
	// Stop prevents the timer from firing; it reports whether it was pending.
	Stop() bool
	// Reset makes the timer fire d from now; it reports whether it was pending.
	Reset(d time.Duration) bool
}

// Real is the wall clock. It is the only Clock that reads time.Now.
type Real struct{}

var _ Clock = Real{}

// Now reads the machine's clock.
func (Real) Now() time.Time { return time.Now() } // wallclock: Real is the one door to it

// Since returns the time elapsed since t on the machine's clock.
func (Real) Since(t time.Time) time.Duration { return time.Since(t) } // wallclock: as Now

// NewTimer wraps time.NewTimer.
func (Real) NewTimer(d time.Duration) Timer { return realTimer{time.NewTimer(d)} } // wallclock: as Now

// AfterFunc wraps time.AfterFunc.
func (Real) AfterFunc(d time.Duration, f func()) Timer { return realTimer{time.AfterFunc(d, f)} }

type realTimer struct{ t *time.Timer }

func (r realTimer) C() <-chan time.Time        { return r.t.C }
func (r realTimer) Stop() bool                 { return r.t.Stop() }
func (r realTimer) Reset(d time.Duration) bool { return r.t.Reset(d) }
