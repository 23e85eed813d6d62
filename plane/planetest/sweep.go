package planetest

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// Runner is a test that runs subtests of its own type: *testing.T
// (Runner[*testing.T]) and *testing.B (Runner[*testing.B]) are Runners.
type Runner[R any] interface {
	testing.TB
	Run(name string, body func(R)) bool
}

// SweepResult is what a sweep found: the seeds it ran, in order, and those
// whose subtest failed.
type SweepResult struct {
	Ran    []int64
	Failed []int64
}

// Sweep runs body once per seed, each time as the subtest "seed=N" of tb:
// over the seeds 1 to n, or, when -miniplane.seed is given, over that one
// seed alone. A seed's subtest that fails logs the seed and the command
// that replays it (see ReplayCommand); when any failed, tb fails too with the
// list of failed seeds and the first one's replay command.
//
// Seeds run one after the other; body may call t.Parallel to run them
// concurrently (the results are then complete only when tb's own body
// has returned, so Sweep's return value counts the seeds that failed
// before it returned).
func Sweep[R Runner[R]](tb R, n int, body func(t R, seed int64)) SweepResult {
	tb.Helper()
	seeds := sweepSeeds(n)
	var (
		mu  sync.Mutex
		res = SweepResult{Ran: seeds}
	)
	for _, seed := range seeds {
		tb.Run(fmt.Sprintf("seed=%d", seed), func(t R) {
			t.Cleanup(func() {
				if !t.Failed() {
					return
				}
				mu.Lock()
				res.Failed = append(res.Failed, seed)
				mu.Unlock()
				t.Logf("failed with seed %d; replay it with:\n\t%s", seed, ReplayCommand(t, seed))
			})
			body(t, seed)
		})
	}
	mu.Lock()
	defer mu.Unlock()
	if len(res.Failed) > 0 {
		tb.Errorf("%s; replay the first with:\n\t%s", summary(res), ReplayCommandIn(cwd(), tb.Name()+"/"+fmt.Sprintf("seed=%d", res.Failed[0]), res.Failed[0]))
	}
	return SweepResult{Ran: res.Ran, Failed: append([]int64(nil), res.Failed...)}
}

// sweepSeeds returns the seeds a sweep of n runs: 1 to n, or the flag's.
func sweepSeeds(n int) []int64 {
	if seed, ok := FlagSeed(); ok {
		return []int64{seed}
	}
	seeds := make([]int64, n)
	for i := range seeds {
		seeds[i] = int64(i + 1)
	}
	return seeds
}

// summary says how many seeds of a sweep failed, and which.
func summary(r SweepResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d seeds failed: ", len(r.Failed), len(r.Ran))
	for i, s := range r.Failed {
		if i == 10 {
			fmt.Fprintf(&b, " ... (%d more)", len(r.Failed)-10)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, s)
	}
	return b.String()
}
