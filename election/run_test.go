package election_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/election"
)

// stepRunUntil moves the fake clock from one of Run's timers to the next
// until cond holds. Run owns the only timer on the clock.
func stepRunUntil(t *testing.T, e *env, cond func() bool) {
	t.Helper()
	for i := 0; !cond(); i++ {
		require.Less(t, i, 1000, "condition never held")
		require.Eventually(t, func() bool { return e.clk.Waiters() == 1 }, 5*time.Second, 100*time.Microsecond, "Run never waited")
		e.clk.StepToNext()
	}
}

// TestRunCallbacksFollowTerms: a term starts OnStartedLeading, losing the
// lease cancels its context, a new term starts it again with a fresh one,
// and ending Run calls OnStoppedLeading once and leaves the lease (no
// release) with the guard closed.
func TestRunCallbacksFollowTerms(t *testing.T) {
	e := newEnv(t)
	started := make(chan context.Context, 4)
	var stoppedCalls, newLeader atomic.Int32
	a := e.elector(t, "a", func(c *election.Config) {
		c.Callbacks = election.Callbacks{
			OnStartedLeading: func(ctx context.Context) {
				started <- ctx
				<-ctx.Done()
			},
			OnStoppedLeading: func() { stoppedCalls.Add(1) },
			OnNewLeader:      func(string) { newLeader.Add(1) },
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); a.Run(ctx) }()

	term1 := <-started
	assert.Equal(t, int64(1), a.Term())
	assert.NoError(t, term1.Err())

	e.client.SetFault(failLeaseWrites)
	stepRunUntil(t, e, func() bool { return term1.Err() != nil })
	assert.False(t, a.IsLeader(), "the term's context ends when leadership is lost")
	assert.False(t, e.clk.Now().Before(epoch.Add(election.DefaultRenewDeadline)))

	e.client.SetFault(nil)
	var term2 context.Context
	stepRunUntil(t, e, func() bool {
		select {
		case term2 = <-started:
			return true
		default:
			return false
		}
	})
	assert.Equal(t, int64(2), a.Term())
	assert.NoError(t, term2.Err())
	assert.Zero(t, stoppedCalls.Load(), "OnStoppedLeading waits for Run to end")

	cancel()
	<-done
	assert.Error(t, term2.Err())
	assert.Equal(t, int32(1), stoppedCalls.Load())
	assert.Equal(t, int32(1), newLeader.Load(), "the holder was a throughout")
	assert.False(t, a.IsLeader())
	assert.ErrorIs(t, a.Guard().Check(), election.ErrNotLeader)
	assert.Equal(t, "a", deref(e.lease(t).Spec.HolderIdentity), "without ReleaseOnCancel the lease is left to expire")
}

func TestRunNeverLeadingSkipsOnStoppedLeading(t *testing.T) {
	e := newEnv(t)
	e.elector(t, "a").Step(context.Background())
	var stopped atomic.Int32
	b := e.elector(t, "b", func(c *election.Config) {
		c.ReleaseOnCancel = true
		c.Callbacks.OnStoppedLeading = func() { stopped.Add(1) }
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); b.Run(ctx) }()
	stepRunUntil(t, e, func() bool { return e.clk.Since(epoch) >= 5*time.Second })
	cancel()
	<-done
	assert.Zero(t, stopped.Load())
	assert.Equal(t, "a", deref(e.lease(t).Spec.HolderIdentity), "b released nothing")
}
