package planetest

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/miniplane/miniplane/clock"
)

// PollInterval is how soon Eventually looks at its condition again after
// the first look. The interval then doubles, up to a 200th of the timeout
// (and at most MaxPollInterval), so that a long wait in virtual time costs
// a few hundred looks, not tens of thousands.
const (
	PollInterval    = 10 * time.Millisecond
	MaxPollInterval = time.Second
)

// maxInterval is the longest Eventually waits between two looks.
func maxInterval(timeout time.Duration) time.Duration {
	return min(max(PollInterval, timeout/200), MaxPollInterval)
}

// Eventually waits until cond returns nil, looking again and again (see
// PollInterval), for at most timeout; if it never does, tb fails (FailNow) with cond's
// last error, the seed (SeedOf) and the replay command. It waits on the time
// package's timers through clock.Real: inside a testing/synctest bubble
// that is virtual time, which moves only when every goroutine of the
// bubble is blocked, so a wait of ten virtual minutes takes as long as the
// work done in them; outside a bubble it is a real-time poll.
func Eventually(tb T, cond func() error, timeout time.Duration) {
	tb.Helper()
	EventuallyOn(tb, clock.Real{}, cond, timeout)
}

// EventuallyOn is Eventually on clk. On a *clock.Fake the wait moves only
// as far as something else steps the clock.
func EventuallyOn(tb T, clk clock.Clock, cond func() error, timeout time.Duration) {
	tb.Helper()
	seed := SeedOf(tb)
	start, interval := clk.Now(), PollInterval
	for {
		err := cond()
		if err == nil {
			return
		}
		if clk.Since(start) >= timeout {
			complain(tb.Name(), err.Error())
			tb.Fatalf("not true after %v: %v\nseed %d; replay it with:\n\t%s", timeout, err, seed, ReplayCommand(tb, seed))
			return
		}
		t := clk.NewTimer(min(interval, timeout-clk.Since(start)))
		<-t.C()
		interval = min(2*interval, maxInterval(timeout))
	}
}

// Violation is one invariant found broken: which, and how.
type Violation struct {
	Invariant string
	Detail    string
}

func (v Violation) String() string { return v.Invariant + ": " + v.Detail }

// Judge collects the invariant violations of one run, and reports them
// all at once, with the run's seed and the command that replays it: when
// Report is called, or else when the test ends. The seed is SeedOf the
// test. Create it with NewJudge;
// it is safe for concurrent use.
type Judge struct {
	tb   T
	seed int64

	// mu guards violations and reported.
	mu         sync.Mutex
	violations []Violation
	reported   int // how many of violations Report has reported
}

// NewJudge returns a Judge for tb. It reports whatever it holds
// unreported when tb ends.
func NewJudge(tb T) *Judge {
	j := &Judge{tb: tb, seed: SeedOf(tb)}
	tb.Cleanup(j.Report)
	return j
}

// Check records a violation of invariant when err is not nil, and reports
// whether the invariant held.
func (j *Judge) Check(invariant string, err error) bool {
	if err == nil {
		return true
	}
	j.Violatef(invariant, "%v", err)
	return false
}

// Violatef records a violation of invariant.
func (j *Judge) Violatef(invariant, format string, args ...any) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.violations = append(j.violations, Violation{Invariant: invariant, Detail: fmt.Sprintf(format, args...)})
}

// Violations returns the violations recorded so far, in order.
func (j *Judge) Violations() []Violation {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]Violation(nil), j.violations...)
}

// Report fails the test (Errorf, so the test goes on) with every violation
// recorded since the last Report, the seed and the replay command; it does
// nothing when there is none.
func (j *Judge) Report() {
	j.tb.Helper()
	j.mu.Lock()
	fresh := j.violations[j.reported:]
	j.reported = len(j.violations)
	j.mu.Unlock()
	if len(fresh) == 0 {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d invariant violation(s) with seed %d:", len(fresh), j.seed)
	for _, v := range fresh {
		b.WriteString("\n\t")
		b.WriteString(v.String())
	}
	complain(j.tb.Name(), b.String())
	fmt.Fprintf(&b, "\nreplay it with:\n\t%s", ReplayCommand(j.tb, j.seed))
	j.tb.Errorf("%s", b.String())
}
