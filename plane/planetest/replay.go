package planetest

import (
	"fmt"
	"sync"
)

// ReplayResult is what Replay found: the seed, how many times it ran, and
// how many of those runs failed.
type ReplayResult struct {
	Seed   int64
	Runs   int
	Failed int
}

// Stable reports whether every run agreed: all failed or none did. A seed
// whose runs disagree depends on something besides the seed, most often
// on how Go's scheduler interleaves goroutines that race (several
// workers of one controller, say).
func (r ReplayResult) Stable() bool { return r.Failed == 0 || r.Failed == r.Runs }

func (r ReplayResult) String() string {
	return fmt.Sprintf("seed %d failed %d of %d runs", r.Seed, r.Failed, r.Runs)
}

// Replay runs body k times with seed, each time as the subtest
// "seed=N/run=I" of tb (I from 1 to k), one after the other, and logs and
// returns how many runs failed. A failing seed that fails every time is
// one a colleague can replay from the printed command; one that fails
// some of the time needs that many runs to be seen again:
//
//	planetest.Replay(t, 12, 20, func(t *testing.T, seed int64) { run(t, seed) })
//	// seed 12 failed 20 of 20 runs
//
// Each failing run fails tb, as Sweep's failing seeds do.
func Replay[R Runner[R]](tb R, seed int64, k int, body func(t R, seed int64)) ReplayResult {
	tb.Helper()
	var (
		mu  sync.Mutex
		res = ReplayResult{Seed: seed, Runs: k}
	)
	tb.Run(fmt.Sprintf("seed=%d", seed), func(t R) {
		for i := range k {
			t.Run(fmt.Sprintf("run=%d", i+1), func(t R) {
				t.Cleanup(func() {
					if t.Failed() {
						mu.Lock()
						res.Failed++
						mu.Unlock()
					}
				})
				body(t, seed)
			})
		}
	})
	mu.Lock()
	defer mu.Unlock()
	tb.Logf("%s", res)
	return res
}
