package planetest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunPattern(t *testing.T) {
	tests := []struct {
		name, want string
	}{
		{name: "TestX", want: "^TestX$"},
		{name: "TestX/seed=17", want: "^TestX$/^seed=17$"},
		{name: "TestX/a+b/seed=3", want: `^TestX$/^a\+b$/^seed=3$`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, RunPattern(tt.name))
		})
	}
}

// TestReplayCommandIn builds a module with a nested module in a temporary
// directory and checks the command for tests in each.
func TestReplayCommandIn(t *testing.T) {
	root := t.TempDir()
	for _, dir := range []string{"pkg/sub", "interop/examples/clientgo"} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, dir), 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(root, "go.mod"), []byte("module m\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "interop", "go.mod"), []byte("module m/interop\n"), 0o644))
	tests := []struct {
		name, dir, test string
		seed            int64
		want            string
	}{
		{name: "the module's root", dir: ".", test: "TestA", seed: 1,
			want: "go test -run '^TestA$' ./ -miniplane.seed=1"},
		{name: "a sweep's subtest", dir: "pkg/sub", test: "TestA/seed=17", seed: 17,
			want: "go test -run '^TestA$/^seed=17$' ./pkg/sub/ -miniplane.seed=17"},
		{name: "a nested module", dir: "interop/examples/clientgo", test: "TestSweep/seed=42", seed: 42,
			want: "cd interop && go test -run '^TestSweep$/^seed=42$' ./examples/clientgo/ -miniplane.seed=42"},
		{name: "a negative seed", dir: "pkg", test: "TestB", seed: -5,
			want: "go test -run '^TestB$' ./pkg/ -miniplane.seed=-5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, ReplayCommandIn(filepath.Join(root, tt.dir), tt.test, tt.seed))
		})
	}
}

// TestReplayNamesThisPackage checks that ReplayCommand finds the package from
// the directory go test runs the test in.
func TestReplayNamesThisPackage(t *testing.T) {
	assert.Equal(t, "go test -run '^TestReplayNamesThisPackage$' ./plane/planetest/ -miniplane.seed=9", ReplayCommand(t, 9))
}

func TestSeedValue(t *testing.T) {
	var v seedValue
	assert.Empty(t, v.String(), "unset")
	require.NoError(t, v.Set("-12"))
	assert.Equal(t, seedValue{n: -12, set: true}, v)
	assert.Equal(t, "-12", v.String())
	err := v.Set("seventeen")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "miniplane.seed")
}

func TestSeedOf(t *testing.T) {
	def := DefaultSeed
	if s, ok := FlagSeed(); ok {
		def = s
	}
	tests := []struct {
		name string
		want int64
	}{
		{name: "TestA/seed=17", want: 17},
		{name: "TestA/seed=17/inner", want: 17},
		{name: "TestA/seed=x", want: def},
		{name: "TestA", want: def},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, SeedOf(newFake(tt.name)))
		})
	}
}

// TestSeedLogsReplayOnFailure checks that a test that took its seed from
// Seed and then failed logs the seed and the command that replays it, and
// that one that passed logs nothing.
func TestSeedLogsReplayOnFailure(t *testing.T) {
	for _, fail := range []bool{false, true} {
		f := newFake("TestInner")
		var seed int64
		f.run(func() {
			seed = Seed(f)
			if fail {
				f.Errorf("boom")
			}
		})
		if !fail {
			assert.Empty(t, f.allLogs())
			continue
		}
		want := DefaultSeed
		if s, ok := FlagSeed(); ok {
			want = s
		}
		assert.Equal(t, want, seed)
		assert.Contains(t, f.allLogs(), "go test -run '^TestInner$' ./plane/planetest/ -miniplane.seed="+itoa(want))
	}
}
