// Package planetest holds what a test of a controller against miniplane's
// plane needs to judge a run: the -miniplane.seed flag and Seed, Sweep over
// many seeds, Eventually in virtual time, and a Judge of invariants; each
// failure says its seed and the exact `go test -run ...` command that
// replays it, and on failure the fault trace's lines that matter (see
// Start).
//
// Concurrency: Judge is safe for concurrent use; the functions keep no
// state but the flag, which only flag.Parse writes, and the fault traces of
// the planes Start started, under a mutex.
package planetest

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// SeedFlag is the name of the test flag that fixes the seed:
// `go test ... -miniplane.seed=17` makes Seed return 17 and Sweep run that
// one seed only.
const SeedFlag = "miniplane.seed"

// DefaultSeed is what Seed returns when the flag is not given.
const DefaultSeed int64 = 1

// seedValue is the flag's value: a seed, and whether it was given.
type seedValue struct {
	n   int64
	set bool
}

func (v *seedValue) String() string {
	if v == nil || !v.set {
		return ""
	}
	return strconv.FormatInt(v.n, 10)
}

func (v *seedValue) Set(s string) error {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("-%s=%q: a seed is a decimal int64", SeedFlag, s)
	}
	v.n, v.set = n, true
	return nil
}

// seedFlag is registered on the command line once, when a test binary
// that links this package starts, as the testing package registers its own
// -test.* flags; it is written only by flag.Parse (in testing.Main) and
// read only afterwards, by tests.
var seedFlag = func() *seedValue {
	v := &seedValue{}
	flag.Var(v, SeedFlag, "replay one seed: Seed returns it and Sweep runs it alone")
	return v
}()

// FlagSeed reports the seed given with -miniplane.seed, if one was.
func FlagSeed() (int64, bool) { return seedFlag.n, seedFlag.set }

// T is what the helpers need of a test: testing.TB, whose methods
// *testing.T, *testing.B and *testing.F all have.
type T = testing.TB

// Seed returns the seed tb runs with: the -miniplane.seed flag's, or
// DefaultSeed. When tb fails, it logs the seed and the command that
// replays the test with it.
func Seed(tb T) int64 {
	tb.Helper()
	seed, ok := FlagSeed()
	if !ok {
		seed = DefaultSeed
	}
	tb.Cleanup(func() {
		if tb.Failed() {
			tb.Logf("failed with seed %d; replay it with:\n\t%s", seed, ReplayCommand(tb, seed))
		}
	})
	return seed
}

// SeedOf returns the seed tb runs with: N when tb is a sweep's subtest
// "seed=N" (or a subtest of one), else what Seed returns.
func SeedOf(tb T) int64 {
	parts := strings.Split(tb.Name(), "/")
	for i := len(parts) - 1; i >= 0; i-- {
		if s, ok := strings.CutPrefix(parts[i], "seed="); ok {
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				return n
			}
		}
	}
	if seed, ok := FlagSeed(); ok {
		return seed
	}
	return DefaultSeed
}

// ReplayCommand returns the command that runs tb again, alone, with seed:
//
//	go test -run '^TestName$/^seed=17$' ./pkg/ -miniplane.seed=17
//
// The -run pattern anchors each element of tb.Name() (the names of
// subtests as the testing package rewrote them); the package is the
// directory the test runs in (go test runs a package's tests in its
// directory) relative to its module's root, and the command runs from that
// root. When the module is nested in another (as interop/ is in
// miniplane), the command starts by changing into it from the outer
// module's root: `cd interop && go test ...`.
func ReplayCommand(tb T, seed int64) string {
	return ReplayCommandIn(cwd(), tb.Name(), seed)
}

// cwd is the directory the test runs in: its package's.
func cwd() string {
	dir, err := os.Getwd()
	if err != nil {
		return "."
	}
	return dir
}

// ReplayCommandIn is ReplayCommand for a test named name whose package is in dir.
func ReplayCommandIn(dir, name string, seed int64) string {
	pkg, cd := "./", ""
	if root, ok := moduleRoot(dir); ok {
		if rel, err := filepath.Rel(root, dir); err == nil && rel != "." {
			pkg = "./" + filepath.ToSlash(rel) + "/"
		}
		if outer, ok := moduleRoot(filepath.Dir(root)); ok && outer != root {
			if rel, err := filepath.Rel(outer, root); err == nil {
				cd = "cd " + shellWord(filepath.ToSlash(rel)) + " && "
			}
		}
	}
	return fmt.Sprintf("%sgo test -run %s %s -%s=%d", cd, shellQuote(RunPattern(name)), pkg, SeedFlag, seed)
}

// RunPattern returns the -run pattern that selects exactly the test (or
// subtest) named name: each element of the name, between "/", quoted and
// anchored.
func RunPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// moduleRoot returns the nearest directory at or above dir with a go.mod.
func moduleRoot(dir string) (string, bool) {
	for {
		if fi, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && !fi.IsDir() {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// shellWord returns s as one shell word: as it is when it has only
// characters no shell treats specially, else quoted.
func shellWord(s string) string {
	if plainWord.MatchString(s) {
		return s
	}
	return shellQuote(s)
}

var plainWord = regexp.MustCompile(`^[A-Za-z0-9_./-]+$`)

// shellQuote quotes s for a POSIX shell, in single quotes.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
