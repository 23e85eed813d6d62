package sim_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/election"
	"github.com/miniplane/miniplane/plane/planetest"
	"github.com/miniplane/miniplane/sim"
)

var (
	update          = flag.Bool("update", false, "rewrite the golden traces under testdata")
	sweep           = flag.Int("sweep", 0, "run the default scenario with all faults over this many seeds (README's figure)")
	deploymentSeeds = flag.Int("deploymentseeds", 200, "how many seeds TestSweepDeployments runs with all faults")
)

// helperEnv makes the test binary print one run's fingerprint and exit:
// TestFingerprintSameAcrossProcesses runs itself with it.
const helperEnv = "MINIPLANE_SIM_FINGERPRINT_SEED"

func TestMain(m *testing.M) {
	if seed := os.Getenv(helperEnv); seed != "" {
		var n uint64
		if _, err := fmt.Sscan(seed, &n); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		res := mustRun(nil, sim.Config{Seed: n, Faults: sim.AllFaults}, "default", 10*time.Minute)
		fmt.Println(res.Fingerprint)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// mustRun runs a scenario; t may be nil in the helper process.
func mustRun(t *testing.T, cfg sim.Config, scenario string, d time.Duration) sim.Result {
	sc, err := sim.ScenarioByName(scenario)
	if err == nil {
		var res sim.Result
		res, err = sim.RunScenario(context.Background(), cfg, sc, d)
		if err == nil {
			return res
		}
	}
	if t == nil {
		panic(err)
	}
	require.NoError(t, err)
	return sim.Result{}
}

func TestSameSeedSameFingerprintInOneProcess(t *testing.T) {
	tests := []struct {
		name     string
		scenario string
		faults   sim.FaultSet
	}{
		{"default, no faults", "default", 0},
		{"default, all faults", "default", sim.AllFaults},
		{"small, stale caches and crashes", "small", sim.FaultSet(0).With(sim.StaleCache).With(sim.Crash)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var traces [2]bytes.Buffer
			var res [2]sim.Result
			for i := range 2 {
				res[i] = mustRun(t, sim.Config{Seed: 7, Faults: tt.faults, Trace: &traces[i]}, tt.scenario, 10*time.Minute)
				require.Nil(t, res[i].Violation)
			}
			assert.Equal(t, res[0], res[1])
			assert.Equal(t, traces[0].String(), traces[1].String(), "byte for byte")
			assert.Greater(t, res[0].Steps, 100)
		})
	}
}

func TestSameSeedSameFingerprintAcrossProcesses(t *testing.T) {
	const seed = 3
	want := mustRun(t, sim.Config{Seed: seed, Faults: sim.AllFaults}, "default", 10*time.Minute).Fingerprint
	for i := range 2 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", helperEnv, seed))
		out, err := cmd.Output()
		require.NoError(t, err, "helper process %d", i)
		assert.Equal(t, want, strings.TrimSpace(string(out)), "process %d", i)
	}
}

func TestDifferentSeedsGiveDifferentTraces(t *testing.T) {
	seen := map[string]uint64{}
	for seed := uint64(1); seed <= 10; seed++ {
		res := mustRun(t, sim.Config{Seed: seed, Faults: sim.AllFaults}, "default", 10*time.Minute)
		require.Nil(t, res.Violation, "seed %d", seed)
		if other, dup := seen[res.Fingerprint]; dup {
			t.Fatalf("seeds %d and %d have the same fingerprint %s", other, seed, res.Fingerprint)
		}
		seen[res.Fingerprint] = seed
	}
}

// TestSweepAllFaults is the normal run's sweep: 200 seeds of the default
// scenario with every fault on, and every invariant must hold (60 under the
// race detector, which multiplies the CPU of each run by about ten and is
// after data races, not seeds).
func TestSweepAllFaults(t *testing.T) {
	seeds := uint64(200)
	switch {
	case testing.Short():
		seeds = 20
	case raceDetector:
		seeds = 60
	}
	// Runs share nothing: one group of seeds per processor.
	groups := uint64(runtime.GOMAXPROCS(0))
	for g := range groups {
		t.Run(fmt.Sprintf("seeds %d mod %d", g+1, groups), func(t *testing.T) {
			t.Parallel()
			for seed := g + 1; seed <= seeds; seed += groups {
				res := mustRun(t, sim.Config{Seed: seed, Faults: sim.AllFaults}, "default", 10*time.Minute)
				if res.Violation != nil {
					t.Fatalf("seed %d:\n%s", seed, res.Violation.Report())
				}
			}
		})
	}
}

// TestSweepReplicaSets sweeps the replicasets scenario with every fault
// on: the replica set controller keeps every invariant the replication
// controller does (rs-replicas, rs-status, rs-no-overshoot, owners-exist).
func TestSweepReplicaSets(t *testing.T) {
	seeds := uint64(40)
	if testing.Short() || raceDetector {
		seeds = 10
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		res := mustRun(t, sim.Config{Seed: seed, Faults: sim.AllFaults}, "replicasets", 10*time.Minute)
		if res.Violation != nil {
			t.Fatalf("seed %d:\n%s", seed, res.Violation.Report())
		}
	}
}

// TestPlantedBugIsFoundInAReplicaSet: the planted bug, in the replica set
// controller, breaks rs-no-overshoot.
func TestPlantedBugIsFoundInAReplicaSet(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		res := mustRun(t, sim.Config{Seed: seed, Faults: sim.AllFaults, ReplicationWithoutExpectations: true}, "replicasets", 10*time.Minute)
		if res.Violation != nil && res.Violation.Invariant == "rs-no-overshoot" {
			assert.Contains(t, res.Violation.Trace[len(res.Violation.Trace)-2], `"actor":"m`, "a controller's write")
			return
		}
	}
	t.Fatal("no seed of 1..10 broke rs-no-overshoot")
}

// TestSweepMany is README's figure: go test ./sim -run SweepMany -sweep 10000
// (or, with the wall time, miniplane sim --seeds 1..10000).
func TestSweepMany(t *testing.T) {
	if *sweep == 0 {
		t.Skip("set -sweep N to run N seeds")
	}
	var steps int
	var virtual time.Duration
	for seed := uint64(1); seed <= uint64(*sweep); seed++ {
		res := mustRun(t, sim.Config{Seed: seed, Faults: sim.AllFaults}, "default", 10*time.Minute)
		if res.Violation != nil {
			t.Fatalf("seed %d:\n%s", seed, res.Violation.Report())
		}
		steps += res.Steps
		virtual += res.Virtual
	}
	t.Logf("%d seeds, no violation: %d steps, %v virtual", *sweep, steps, virtual)
}

// TestPlantedBugIsFound: a replication controller without expectations
// creates pods its cache has not caught up with; the simulator finds it
// within a few seeds.
func TestPlantedBugIsFound(t *testing.T) {
	for _, faults := range []sim.FaultSet{0, sim.AllFaults} {
		t.Run(faults.String(), func(t *testing.T) {
			found := uint64(0)
			var v *sim.Violation
			for seed := uint64(1); seed <= 5 && found == 0; seed++ {
				res := mustRun(t, sim.Config{Seed: seed, Faults: faults, ReplicationWithoutExpectations: true}, "default", 10*time.Minute)
				if res.Violation != nil {
					found, v = seed, res.Violation
				}
			}
			require.NotZero(t, found, "no seed of 1..5 found the bug")
			assert.Equal(t, "rc-no-overshoot", v.Invariant)
			assert.Equal(t, found, v.Seed)
			assert.NotEmpty(t, v.Trace)
			assert.Contains(t, v.Trace[len(v.Trace)-1], `"kind":"violation"`)
			assert.Regexp(t, `"actor":"m\d/replicationcontroller","kind":"create"`, v.Trace[len(v.Trace)-2], "the offending write comes just before")
		})
	}
}

// TestViolationCarriesTheTestsReplayLine: a test that runs the simulator
// as a library gets, in the violation, the command that replays its seed
// (Config.Replay, fed by planetest.Replay), as `miniplane sim` prints its
// own.
func TestViolationCarriesTheTestsReplayLine(t *testing.T) {
	cfg := sim.Config{Seed: 1, Faults: sim.AllFaults, ReplicationWithoutExpectations: true,
		Replay: func(seed uint64) string { return planetest.ReplayCommand(t, int64(seed)) }}
	res := mustRun(t, cfg, "default", 10*time.Minute)
	require.NotNil(t, res.Violation, "seed 1 finds the planted bug")
	assert.Equal(t, `go test -run '^TestViolationCarriesTheTestsReplayLine$' ./sim/ -miniplane.seed=1`, res.Violation.Replay)
	assert.Contains(t, res.Violation.Report(), "replay: go test -run")
}

// TestGoldenTraces keeps short scenarios' traces under testdata; rewrite
// them with -update and review the diff.
func TestGoldenTraces(t *testing.T) {
	tests := []struct {
		file      string
		scenario  string
		seed      uint64
		instances int
		faults    sim.FaultSet
	}{
		{"small-seed1-one-instance-nofaults.jsonl", "small", 1, 1, 0},
		{"small-seed2-allfaults.jsonl", "small", 2, 3, sim.AllFaults},
		{"replicasets-seed1-one-instance-nofaults.jsonl", "replicasets", 1, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			var trace bytes.Buffer
			cfg := sim.Config{Seed: tt.seed, Instances: tt.instances, Faults: tt.faults, Trace: &trace, FaultEvery: 5 * time.Second}
			res := mustRun(t, cfg, tt.scenario, time.Minute)
			require.Nil(t, res.Violation)
			path := filepath.Join("testdata", tt.file)
			if *update {
				require.NoError(t, os.WriteFile(path, trace.Bytes(), 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run with -update to create it")
			wantLines, gotLines := strings.Split(string(want), "\n"), strings.Split(trace.String(), "\n")
			for i := range min(len(wantLines), len(gotLines)) {
				require.Equal(t, wantLines[i], gotLines[i], "line %d of %s differs (rewrite it with -update and review the diff)", i+1, path)
			}
			require.Equal(t, len(wantLines), len(gotLines), "lines in %s", path)
		})
	}
}

func TestParseFaults(t *testing.T) {
	tests := []struct {
		in      string
		want    sim.FaultSet
		wantErr string
	}{
		{"all", sim.AllFaults, ""},
		{"none", 0, ""},
		{"", 0, ""},
		{"crash", sim.FaultSet(0).With(sim.Crash), ""},
		{"stale, conflict", sim.FaultSet(0).With(sim.StaleCache).With(sim.Conflict), ""},
		{"crash,bogus", 0, `unknown fault "bogus"`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := sim.ParseFaults(tt.in)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			again, err := sim.ParseFaults(got.String())
			require.NoError(t, err)
			assert.Equal(t, got, again, "String parses back")
		})
	}
}

// unguarded is the election package's elector with its guard left out: a
// deposed leader's controllers write until its elector notices.
type unguarded struct{ e *election.Elector }

func (u unguarded) Step(ctx context.Context) time.Time  { return u.e.Step(ctx) }
func (u unguarded) IsLeader() bool                      { return u.e.IsLeader() }
func (u unguarded) Term() int64                         { return u.e.Term() }
func (u unguarded) Guard(c client.Client) client.Client { return c }

// TestUnguardedLeaderIsCaught: without the guard, a paused leader's
// controllers write after another instance has started leading, and the
// single-writer invariant says so; with it, the same seeds pass.
func TestUnguardedLeaderIsCaught(t *testing.T) {
	elect := func(identity string, c client.Client, clk clock.Clock, r *rand.Rand) (sim.Leadership, error) {
		e, err := election.New(election.Config{Client: c, Clock: clk, Identity: identity, Rand: r})
		return unguarded{e}, err
	}
	pauses := sim.FaultSet(0).With(sim.Pause)
	found := uint64(0)
	var v *sim.Violation
	for seed := uint64(1); seed <= 10 && found == 0; seed++ {
		res := mustRun(t, sim.Config{Seed: seed, Faults: pauses, Elect: elect}, "default", 10*time.Minute)
		if res.Violation != nil {
			found, v = seed, res.Violation
		}
	}
	require.NotZero(t, found, "no seed of 1..10 caught the unguarded leader")
	assert.Equal(t, "single-writer", v.Invariant)
	assert.Regexp(t, `^m\d wrote .* with term \d+ after m\d started leading with term \d+$`, v.Detail)

	res := mustRun(t, sim.Config{Seed: found, Faults: pauses}, "default", 10*time.Minute)
	assert.Nil(t, res.Violation, "the guarded elector, same seed")
}

// FuzzParseFaults: any --faults text parses to a set that prints back to
// text parsing to the same set, or fails with a message naming the faults.
func FuzzParseFaults(f *testing.F) {
	for _, s := range []string{"all", "none", "", "crash,stale", " podcrash , nodedown ", "crash,,", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		set, err := sim.ParseFaults(s)
		if err != nil {
			assert.Contains(t, err.Error(), "known: watchclose")
			return
		}
		again, err := sim.ParseFaults(set.String())
		require.NoError(t, err)
		assert.Equal(t, set, again)
	})
}

// TestInjectEachFault: each fault that strikes at a moment can be injected
// by hand into a running control plane, shows in the trace, and the system
// converges after it with every invariant holding.
func TestInjectEachFault(t *testing.T) {
	tests := []struct {
		fault   sim.Fault
		wantErr string
	}{
		{fault: sim.WatchClose},
		{fault: sim.Compact},
		{fault: sim.StaleCache},
		{fault: sim.Crash},
		{fault: sim.Pause},
		{fault: sim.PodCrash},
		{fault: sim.NodeDown},
		{fault: sim.Conflict, wantErr: "not a fault that strikes at a moment"},
		{fault: sim.Skew, wantErr: "not a fault that strikes at a moment"},
	}
	for _, tt := range tests {
		t.Run(tt.fault.String(), func(t *testing.T) {
			ctx := context.Background()
			var trace bytes.Buffer
			s, err := sim.New(ctx, sim.Config{Seed: 5, Trace: &trace})
			require.NoError(t, err)
			sc, err := sim.ScenarioByName("small")
			require.NoError(t, err)
			sc.Setup(s, time.Minute)
			require.NoError(t, s.RunFor(ctx, 20*time.Second))
			require.NoError(t, s.RunUntilQuiet(ctx, time.Minute), "quiet before the fault")

			err = s.Inject(ctx, tt.fault)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Contains(t, trace.String(), fmt.Sprintf(`"actor":"fault","kind":"%s"`, tt.fault))
			require.NoError(t, s.RunUntilQuiet(ctx, 5*time.Minute), "converges after the fault")
			require.NoError(t, s.Check(ctx))
		})
	}
}

// TestACustomInvariantStopsTheRun: an invariant of the test's own fails at
// the first quiet moment, and the violation names it.
func TestACustomInvariantStopsTheRun(t *testing.T) {
	ctx := context.Background()
	never := sim.Invariant{Name: "never-more-than-one-pod", Check: func(ctx context.Context, s *sim.Sim) error {
		pods, _, err := client.For[*api.Pod](s.Client()).List(ctx, "", client.ListOptions{})
		if err != nil {
			return err
		}
		if len(pods) > 1 {
			return fmt.Errorf("%d pods", len(pods))
		}
		return nil
	}}
	s, err := sim.New(ctx, sim.Config{Seed: 1, Invariants: []sim.Invariant{never}})
	require.NoError(t, err)
	sc, err := sim.ScenarioByName("small")
	require.NoError(t, err)
	sc.Setup(s, time.Minute)
	err = s.RunFor(ctx, time.Minute)
	var v *sim.Violation
	require.ErrorAs(t, err, &v)
	assert.Equal(t, "never-more-than-one-pod", v.Invariant)
	assert.Equal(t, "2 pods", v.Detail)
	assert.Equal(t, err, s.Err())
	_, err = s.Step(ctx)
	assert.Equal(t, v, err, "a stopped run stays stopped")
}
