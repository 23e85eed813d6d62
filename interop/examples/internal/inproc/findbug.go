package inproc

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/plane/planetest"
)

// BuggySweep is the environment variable that lets an example's
// TestBuggySweep run: the sweep of the planted bug fails by design, so a
// plain `go test ./...` skips it, and SweepFindsTheBug runs it in a child
// process with this set.
const BuggySweep = "MINIPLANE_EXAMPLE_BUGGY_SWEEP"

// SweepFindsTheBug runs the test binary's TestBuggySweep (a sweep of seeds
// over the planted bug of the example in package dir, "clientgo") in a
// child process and checks that the sweep found the bug: some of its
// seeds failed, the output says each of want, and it printed the command
// that replays the first failed seed. It then runs that command's test (the
// same binary, -run and seed, without BuggySweep, as printed) and checks
// the seed fails again.
func SweepFindsTheBug(t *testing.T, dir string, seeds int, want ...string) {
	t.Helper()
	out, err := child(t, "-test.run=^TestBuggySweep$")
	require.Error(t, err, "the buggy sweep failed:\n%s", out)
	for _, w := range want {
		assert.Contains(t, out, w)
	}
	failed := regexp.MustCompile(`\d+ of ` + strconv.Itoa(seeds) + ` seeds failed`).FindString(out)
	assert.NotEmpty(t, failed, "the sweep's summary")
	replay := regexp.MustCompile(`cd interop && go test -run '\^TestBuggySweep\$/\^seed=(\d+)\$' \./examples/` +
		regexp.QuoteMeta(dir) + `/ -miniplane\.seed=(\d+)`)
	m := replay.FindStringSubmatch(out)
	require.NotNil(t, m, "a replay line in:\n%s", out)
	assert.Equal(t, m[1], m[2])
	t.Logf("the sweep found the bug: %s; the first is seed %s", failed, m[1])

	again, err := child(t, "-test.run=^TestBuggySweep$/^seed="+m[1]+"$", "-miniplane.seed="+m[1])
	require.Error(t, err, "replaying seed %s fails again:\n%s", m[1], again)
	assert.Contains(t, again, "1 of 1 seeds failed: "+m[1])
}

// child runs this test binary again with args, verbose, and the buggy
// sweep enabled unless args replay a seed, and returns its output.
func child(t *testing.T, args ...string) (string, error) {
	cmd := exec.CommandContext(t.Context(), os.Args[0], append(args, "-test.v")...)
	cmd.Env = os.Environ()
	if !slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "-miniplane.seed=") }) {
		cmd.Env = append(cmd.Env, BuggySweep+"=1") // a replay runs without it, as printed
	}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// RunBuggySweep is an example's TestBuggySweep: it sweeps body, the run
// of the planted bug, over seeds. The sweep fails by design, so it runs
// only as SweepFindsTheBug's child (with BuggySweep set), or to replay
// one seed; otherwise it skips.
func RunBuggySweep(t *testing.T, seeds int, body func(t *testing.T, seed int64)) {
	t.Helper()
	if _, replay := planetest.FlagSeed(); !replay && os.Getenv(BuggySweep) == "" {
		t.Skip("fails by design; TestSweepFindsTheBug runs it in a child process")
	}
	planetest.Sweep(t, seeds, body)
}

// RunFixedSweep is an example's TestFixedPasses200Seeds: it sweeps body,
// the run of the fixed controller, over 200 seeds (20 with -short),
// checks that every seed passed, and logs the wall-clock rate under what.
func RunFixedSweep(t *testing.T, what string, body func(t *testing.T, seed int64)) {
	t.Helper()
	n := 200
	if testing.Short() {
		n = 20
	}
	start := time.Now() // wallclock: the figure is wall time
	res := planetest.Sweep(t, n, body)
	elapsed := time.Since(start) // wallclock
	assert.Empty(t, res.Failed)
	t.Logf("%s: %d seeds in %v: %.1f seeds/s", what, len(res.Ran), elapsed.Round(time.Millisecond), float64(len(res.Ran))/elapsed.Seconds())
}
