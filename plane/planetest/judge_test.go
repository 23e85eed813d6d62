package planetest

import (
	"errors"
	"fmt"
	"runtime"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/clock"
)

// TestEventuallyInVirtualTime waits inside a synctest bubble: a condition
// that becomes true after five virtual minutes passes within a ten-minute
// timeout, and one that never does fails at the timeout with its last
// error and the replay command. Neither takes real time.
func TestEventuallyInVirtualTime(t *testing.T) {
	tests := []struct {
		name     string
		trueFrom time.Duration // the condition holds from then on; 0 for never
		wantFail bool
		wantWait time.Duration
	}{
		{name: "already true", trueFrom: time.Nanosecond, wantWait: 0},
		{name: "true after five minutes", trueFrom: 5 * time.Minute, wantWait: 5 * time.Minute},
		{name: "never true", wantFail: true, wantWait: 10 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				cond := func() error {
					if tt.trueFrom > 0 && time.Since(start) >= tt.trueFrom-time.Nanosecond {
						return nil
					}
					return fmt.Errorf("replicas: have 2, want 3")
				}
				f := newFake("TestCtl/seed=7")
				f.run(func() { Eventually(f, cond, 10*time.Minute) })
				waited := time.Since(start)
				assert.Equal(t, tt.wantFail, f.Failed())
				if tt.wantFail {
					assert.Contains(t, f.allErrors(), "not true after 10m0s: replicas: have 2, want 3")
					assert.Contains(t, f.allErrors(), "seed 7")
					assert.Contains(t, f.allErrors(), "go test -run '^TestCtl$/^seed=7$' ./plane/planetest/ -miniplane.seed=7")
				}
				assert.GreaterOrEqual(t, waited, tt.wantWait)
				assert.LessOrEqual(t, waited, tt.wantWait+maxInterval(10*time.Minute))
			})
		})
	}
}

// TestEventuallyOnFakeClock waits on a clock.Fake that another goroutine
// steps: the wait ends once the stepped time makes the condition true.
func TestEventuallyOnFakeClock(t *testing.T) {
	clk := clock.NewFake(time.Unix(0, 0))
	start := clk.Now()
	done := make(chan struct{})
	f := newFake("TestFake")
	go func() {
		defer close(done)
		f.run(func() {
			EventuallyOn(f, clk, func() error {
				if clk.Since(start) < time.Second {
					return errors.New("too early")
				}
				return nil
			}, time.Minute)
		})
	}()
	for {
		select {
		case <-done:
			assert.False(t, f.Failed(), f.allErrors())
			assert.GreaterOrEqual(t, clk.Since(start), time.Second)
			return
		default:
			if clk.Waiters() > 0 {
				clk.Step(PollInterval)
			}
			runtimeYield()
		}
	}
}

func TestJudgeReportsAllViolations(t *testing.T) {
	f := newFake("TestCtl/seed=3")
	var j *Judge
	f.run(func() {
		j = NewJudge(f)
		assert.True(t, j.Check("one pod per replica", nil))
		assert.False(t, j.Check("one pod per replica", errors.New("web: 4 pods, want 3")))
		j.Violatef("no orphans", "pod %s has no owner", "web-x")
		j.Report()
		j.Report() // nothing new: reports nothing
		j.Violatef("converged", "still 2 updates pending")
	}) // the cleanup reports the last one
	assert.Equal(t, []Violation{
		{Invariant: "one pod per replica", Detail: "web: 4 pods, want 3"},
		{Invariant: "no orphans", Detail: "pod web-x has no owner"},
		{Invariant: "converged", Detail: "still 2 updates pending"},
	}, j.Violations())
	replay := "go test -run '^TestCtl$/^seed=3$' ./plane/planetest/ -miniplane.seed=3"
	assert.Len(t, f.errors, 2)
	assert.Equal(t, "2 invariant violation(s) with seed 3:\n\tone pod per replica: web: 4 pods, want 3\n\tno orphans: pod web-x has no owner\nreplay it with:\n\t"+replay, f.errors[0])
	assert.Equal(t, "1 invariant violation(s) with seed 3:\n\tconverged: still 2 updates pending\nreplay it with:\n\t"+replay, f.errors[1])
}

func TestJudgeSilentWhenAllHold(t *testing.T) {
	f := newFake("TestCtl")
	f.run(func() {
		j := NewJudge(f)
		j.Check("anything", nil)
	})
	assert.False(t, f.Failed())
}

// runtimeYield lets the waiting goroutine run between steps of the fake
// clock.
func runtimeYield() { runtime.Gosched() }
