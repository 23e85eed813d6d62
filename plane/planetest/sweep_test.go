package planetest

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestSweepFindsFailingSeeds sweeps a body that fails on even seeds, one
// with Errorf and one with Fatalf, and checks what the sweep reports: the
// failed seeds, each subtest's replay command, and the parent's summary.
func TestSweepFindsFailingSeeds(t *testing.T) {
	if _, ok := FlagSeed(); ok {
		t.Skip("-miniplane.seed makes every sweep run one seed")
	}
	f := newFake("TestOuter")
	var res SweepResult
	f.run(func() {
		res = Sweep(f, 5, func(t *fakeT, seed int64) {
			switch seed {
			case 2:
				t.Errorf("seed two is bad")
			case 4:
				t.Fatalf("seed four is worse")
			}
		})
	})
	assert.Equal(t, []int64{1, 2, 3, 4, 5}, res.Ran)
	assert.Equal(t, []int64{2, 4}, res.Failed)
	require.Len(t, f.subs, 5)
	for i, sub := range f.subs {
		seed := int64(i + 1)
		assert.Equal(t, fmt.Sprintf("TestOuter/seed=%d", seed), sub.Name())
		replay := fmt.Sprintf("go test -run '^TestOuter$/^seed=%d$' ./plane/planetest/ -miniplane.seed=%d", seed, seed)
		if seed%2 == 0 {
			assert.True(t, sub.Failed())
			assert.Contains(t, sub.allLogs(), replay)
			assert.Contains(t, sub.allLogs(), fmt.Sprintf("failed with seed %d", seed))
		} else {
			assert.False(t, sub.Failed())
			assert.Empty(t, sub.allLogs())
		}
	}
	assert.True(t, f.Failed())
	assert.Contains(t, f.allErrors(), "2 of 5 seeds failed: 2, 4")
	assert.Contains(t, f.allErrors(), "go test -run '^TestOuter$/^seed=2$' ./plane/planetest/ -miniplane.seed=2")
}

func TestSweepAllPass(t *testing.T) {
	f := newFake("TestOuter")
	var seen []int64
	var res SweepResult
	f.run(func() {
		res = Sweep(f, 200, func(_ *fakeT, seed int64) { seen = append(seen, seed) })
	})
	assert.False(t, f.Failed())
	assert.Empty(t, f.allErrors())
	assert.Empty(t, res.Failed)
	assert.Equal(t, res.Ran, seen)
	if s, ok := FlagSeed(); ok {
		assert.Equal(t, []int64{s}, seen)
	} else {
		assert.Len(t, seen, 200)
	}
}

// TestSweepOnTestingT runs Sweep on a real *testing.T, with a body that
// passes, to show it runs as subtests named seed=N.
func TestSweepOnTestingT(t *testing.T) {
	var names []string
	res := Sweep(t, 3, func(t *testing.T, seed int64) {
		names = append(names, t.Name())
		assert.Equal(t, seed, SeedOf(t))
	})
	assert.Empty(t, res.Failed)
	if _, ok := FlagSeed(); !ok {
		assert.Equal(t, []string{"TestSweepOnTestingT/seed=1", "TestSweepOnTestingT/seed=2", "TestSweepOnTestingT/seed=3"}, names)
	}
}

// TestReplayCountsFailedRuns replays a seed whose body fails on every
// third run, and one whose body always passes: Replay counts the failed
// runs, names each run's subtest, and says whether the runs agreed.
func TestReplayCountsFailedRuns(t *testing.T) {
	for _, tc := range []struct {
		name       string
		failEvery  int
		wantFailed int
		wantStable bool
	}{
		{"flaky", 3, 3, false},
		{"always fails", 1, 10, true},
		{"never fails", 0, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake("TestOuter")
			var res ReplayResult
			runs := 0
			f.run(func() {
				res = Replay(f, 7, 10, func(t *fakeT, seed int64) {
					runs++
					assert.Equal(t, int64(7), seed)
					assert.Equal(t, int64(7), SeedOf(t))
					if tc.failEvery > 0 && runs%tc.failEvery == 0 {
						t.Errorf("run %d failed", runs)
					}
				})
			})
			assert.Equal(t, ReplayResult{Seed: 7, Runs: 10, Failed: tc.wantFailed}, res)
			assert.Equal(t, tc.wantStable, res.Stable())
			assert.Equal(t, tc.wantFailed > 0, f.Failed())
			assert.Contains(t, f.allLogs(), fmt.Sprintf("seed 7 failed %d of 10 runs", tc.wantFailed))
			require.Len(t, f.subs, 1)
			require.Len(t, f.subs[0].subs, 10)
			assert.Equal(t, "TestOuter/seed=7/run=10", f.subs[0].subs[9].Name())
		})
	}
}
