package sim

import (
	"fmt"
	"strings"
	"time"
)

// Violation is an invariant that did not hold: the run stops at it.
type Violation struct {
	// Seed is the run's seed.
	Seed uint64
	// Step is the number of steps taken when it was found.
	Step int
	// At is the virtual time since the start of the run.
	At time.Duration
	// Invariant names the invariant; Detail says what was wrong.
	Invariant string
	Detail    string
	// Trace holds the last lines of the trace.
	Trace []string
	// Replay is the command that replays the run (Config.Replay's, or set
	// by the caller that knows it, such as `miniplane sim`).
	Replay string
}

// Error implements error: one line, without the trace.
func (v *Violation) Error() string {
	return fmt.Sprintf("invariant %s violated at step %d (virtual %v, seed %d): %s", v.Invariant, v.Step, v.At, v.Seed, v.Detail)
}

// Report returns the violation in full: what, where, the last trace
// lines, and the replay command.
func (v *Violation) Report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "VIOLATION seed=%d step=%d virtual=%v invariant=%s\n  %s\n", v.Seed, v.Step, v.At, v.Invariant, v.Detail)
	if len(v.Trace) > 0 {
		b.WriteString("last trace lines:\n")
		for _, l := range v.Trace {
			b.WriteString("  " + l + "\n")
		}
	}
	if v.Replay != "" {
		b.WriteString("replay: " + v.Replay + "\n")
	}
	return b.String()
}

// traceTailInReport is how many trace lines a violation carries.
const traceTailInReport = 10

// violate stops the run at the first violation; later ones are dropped,
// as they may be consequences of the first. objects are the objects
// concerned, as keys with their kinds ("Pod default/web-1"), for the
// trace's violation line.
func (s *Sim) violate(invariant, detail string, objects ...string) {
	if s.violation != nil {
		return
	}
	s.record(Event{Actor: "sim", Kind: "violation", Invariant: invariant, Objects: objects, Detail: detail})
	s.violation = &Violation{
		Seed: s.cfg.Seed, Step: s.steps, At: s.Elapsed(), Invariant: invariant, Detail: detail,
		Trace: s.trace.Tail(traceTailInReport),
	}
	if s.cfg.Replay != nil {
		s.violation.Replay = s.cfg.Replay(s.cfg.Seed)
	}
}
