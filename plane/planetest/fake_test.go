package planetest

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

// fakeT is a testing.TB that records what a helper did to it instead of
// failing the real test: its failures, its logs, and subtests run through
// Run. Methods the helpers do not call are the embedded nil TB's, and
// panic.
type fakeT struct {
	testing.TB
	name string

	// mu guards the fields below.
	mu       sync.Mutex
	failed   bool
	errors   []string
	logs     []string
	cleanups []func()
	subs     []*fakeT
}

func newFake(name string) *fakeT { return &fakeT{name: name} }

func (f *fakeT) Helper()      {}
func (f *fakeT) Name() string { return f.name }

func (f *fakeT) Failed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failed
}

func (f *fakeT) Fail() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failed = true
}

func (f *fakeT) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failed = true
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}

// Fatalf records the failure and ends the goroutine, as testing.T's does;
// run the code under test through run or Run.
func (f *fakeT) Fatalf(format string, args ...any) {
	f.Errorf(format, args...)
	runtime.Goexit()
}

func (f *fakeT) Logf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.logs = append(f.logs, fmt.Sprintf(format, args...))
}

func (f *fakeT) Cleanup(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cleanups = append(f.cleanups, fn)
}

// Run runs body as the subtest name on a goroutine of its own, then its
// cleanups, last first; a failed subtest fails f.
func (f *fakeT) Run(name string, body func(*fakeT)) bool {
	sub := newFake(f.name + "/" + name)
	f.mu.Lock()
	f.subs = append(f.subs, sub)
	f.mu.Unlock()
	sub.run(func() { body(sub) })
	if sub.Failed() {
		f.Fail()
	}
	return !sub.Failed()
}

// run runs body on a goroutine, as a test's body, then f's cleanups.
func (f *fakeT) run(body func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		body()
	}()
	<-done
	f.mu.Lock()
	cleanups := slices.Clone(f.cleanups)
	f.mu.Unlock()
	for _, fn := range slices.Backward(cleanups) {
		fn()
	}
}

func (f *fakeT) allErrors() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.errors, "\n")
}

func (f *fakeT) allLogs() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.logs, "\n")
}
