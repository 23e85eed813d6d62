package election_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/election"
	"github.com/miniplane/miniplane/election/electiontest"
)

func TestNewValidatesConfig(t *testing.T) {
	e := newEnv(t)
	valid := func() election.Config {
		return election.Config{Client: e.client, Clock: e.clk, Identity: "a"}
	}
	tests := []struct {
		name    string
		mod     func(*election.Config)
		wantErr string // "" for valid
	}{
		{"defaults are valid", func(*election.Config) {}, ""},
		{"fast settings are valid", func(c *election.Config) {
			c.LeaseDuration, c.RenewDeadline, c.RetryPeriod = 2*time.Second, 1500*time.Millisecond, 500*time.Millisecond
		}, ""},
		{"no client", func(c *election.Config) { c.Client = nil }, "Client is required"},
		{"no clock", func(c *election.Config) { c.Clock = nil }, "Clock is required"},
		{"no identity", func(c *election.Config) { c.Identity = "" }, "Identity is required"},
		{"negative lease duration", func(c *election.Config) { c.LeaseDuration = -time.Second }, "LeaseDuration must be greater than zero"},
		{"negative renew deadline", func(c *election.Config) { c.RenewDeadline = -time.Second }, "RenewDeadline must be greater than zero"},
		{"negative retry period", func(c *election.Config) { c.RetryPeriod = -time.Second }, "RetryPeriod must be greater than zero"},
		{"lease duration equal to renew deadline", func(c *election.Config) { c.LeaseDuration = 10 * time.Second }, "LeaseDuration (10s) must be greater than RenewDeadline (10s)"},
		{"lease duration below the default renew deadline", func(c *election.Config) { c.LeaseDuration = 5 * time.Second }, "must be greater than RenewDeadline"},
		{"renew deadline not above jitter times retry", func(c *election.Config) {
			c.RenewDeadline, c.RetryPeriod = 6*time.Second, 5*time.Second
		}, "RenewDeadline (6s) must be greater than 1.2 × RetryPeriod (5s)"},
		{"renew deadline just above jitter times retry", func(c *election.Config) {
			c.RenewDeadline, c.RetryPeriod = 6*time.Second+time.Nanosecond, 5*time.Second
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := valid()
			tt.mod(&cfg)
			el, err := election.New(cfg)
			if tt.wantErr == "" {
				require.NoError(t, err)
				assert.NotNil(t, el)
				return
			}
			require.Error(t, err)
			assert.ErrorIs(t, err, election.ErrInvalidConfig)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}

func TestSingleInstanceAcquiresAtOnce(t *testing.T) {
	e := newEnv(t)
	var seen []string
	a := e.elector(t, "a", func(c *election.Config) {
		c.Callbacks.OnNewLeader = func(id string) { seen = append(seen, id) }
	})
	assert.False(t, a.IsLeader(), "a new elector leads nothing")
	assert.Zero(t, a.Term())

	next := a.Step(context.Background())

	assert.True(t, a.IsLeader())
	assert.Equal(t, "a", a.Leader())
	assert.Equal(t, int64(1), a.Term())
	assert.Equal(t, epoch.Add(election.DefaultRetryPeriod), next, "a leader renews every retry period")
	assert.NoError(t, a.Guard().Check())
	assert.Equal(t, epoch.Add(election.DefaultRenewDeadline), a.Guard().Until())
	assert.Equal(t, []string{"a"}, seen)

	l := e.lease(t)
	assert.Equal(t, "a", deref(l.Spec.HolderIdentity))
	assert.Equal(t, int32(15), deref(l.Spec.LeaseDurationSeconds))
	assert.Equal(t, int32(0), deref(l.Spec.LeaseTransitions))
	assert.Equal(t, api.NewMicroTime(epoch), deref(l.Spec.AcquireTime))
	assert.Equal(t, api.NewMicroTime(epoch), deref(l.Spec.RenewTime))

	// A renewal moves renewTime and the guard, and keeps the term.
	e.stepAt(a, next)
	l = e.lease(t)
	assert.Equal(t, api.NewMicroTime(epoch), deref(l.Spec.AcquireTime))
	assert.Equal(t, api.NewMicroTime(next), deref(l.Spec.RenewTime))
	assert.Equal(t, int64(1), a.Term())
	assert.Equal(t, next.Add(election.DefaultRenewDeadline), a.Guard().Until())
	assert.Equal(t, []string{"a"}, seen, "a renewal is not a new leader")
}

func TestSecondCandidateWaits(t *testing.T) {
	e := newEnv(t)
	a, b := e.elector(t, "a"), e.elector(t, "b")
	next := a.Step(context.Background())
	require.True(t, a.IsLeader())

	// a renews on time for a minute; b tries every retry period and never leads.
	bNext := b.Step(context.Background())
	for now := epoch; now.Before(epoch.Add(time.Minute)); {
		switch {
		case !next.After(bNext):
			next = e.stepAt(a, next)
		default:
			bNext = e.stepAt(b, bNext)
		}
		now = e.clk.Now()
		require.True(t, a.IsLeader(), "at %s", now)
		require.False(t, b.IsLeader(), "at %s", now)
	}
	assert.Equal(t, "a", b.Leader())
	assert.ErrorIs(t, b.Guard().Check(), election.ErrNotLeader)
	assert.Zero(t, b.Term())
}

// TestTakeoverWaitsOneLeaseDurationAfterLastObservedRenewal stops the leader
// at different points and checks that the other candidate takes over no
// sooner than LeaseDuration after it observed the last renewal, and no later
// than one retry period after that.
func TestTakeoverWaitsOneLeaseDurationAfterLastObservedRenewal(t *testing.T) {
	tests := []struct {
		name     string
		renewals int           // a's renewals after acquiring
		bOffset  time.Duration // when b starts trying, after a acquired
	}{
		{"leader dies at once", 0, time.Second},
		{"leader dies after renewing", 5, 300 * time.Millisecond},
		{"candidate starts late", 2, 30 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			a, b := e.elector(t, "a"), e.elector(t, "b")
			aNext := a.Step(context.Background())
			renewals := 0
			bNext := epoch.Add(tt.bOffset)
			var lastRenewal, observed time.Time = epoch, time.Time{}
			for !b.IsLeader() {
				if renewals < tt.renewals && !aNext.After(bNext) {
					lastRenewal = aNext
					aNext = e.stepAt(a, aNext)
					renewals++
					continue
				}
				at := bNext
				bNext = e.stepAt(b, bNext)
				if observed.IsZero() || observed.Before(lastRenewal) {
					observed = at // b's first look at the last renewal
				}
				require.Less(t, e.clk.Since(epoch), 10*time.Minute, "b never took over")
			}
			took := e.clk.Now()
			assert.False(t, took.Before(observed.Add(election.DefaultLeaseDuration)),
				"b took over at %s, before %s + lease duration", took, observed)
			assert.False(t, took.After(observed.Add(election.DefaultLeaseDuration+election.DefaultRetryPeriod)),
				"b took over at %s, more than a retry period late", took)
			assert.Equal(t, int64(2), b.Term())
			l := e.lease(t)
			assert.Equal(t, "b", deref(l.Spec.HolderIdentity))
			assert.Equal(t, int32(1), deref(l.Spec.LeaseTransitions))
			assert.Equal(t, api.NewMicroTime(took), deref(l.Spec.AcquireTime))

			// a comes back: it finds b holding the lease and steps down.
			assert.False(t, a.IsLeader(), "a's guard closed by time")
			a.Step(context.Background())
			assert.False(t, a.IsLeader())
			assert.Equal(t, "b", a.Leader())
		})
	}
}

// TestReleaseHandsOverWithinOneRetryPeriod releases through Run's
// ReleaseOnCancel: the waiting candidate leads at its very next attempt.
func TestReleaseHandsOverWithinOneRetryPeriod(t *testing.T) {
	e := newEnv(t)
	stopped := make(chan struct{})
	a := e.elector(t, "a", func(c *election.Config) {
		c.ReleaseOnCancel = true
		c.Callbacks.OnStoppedLeading = func() { close(stopped) }
	})
	b := e.elector(t, "b")

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); a.Run(ctx) }()
	require.Eventually(t, func() bool { return a.IsLeader() && e.clk.Waiters() > 0 }, 5*time.Second, time.Millisecond)

	e.clk.Step(time.Second)
	bNext := b.Step(context.Background())
	require.False(t, b.IsLeader())
	cancel()
	<-done
	<-stopped

	assert.False(t, a.IsLeader())
	l := e.lease(t)
	assert.Empty(t, deref(l.Spec.HolderIdentity), "released lease has no holder")
	assert.Equal(t, int32(1), deref(l.Spec.LeaseDurationSeconds))
	assert.Equal(t, int32(0), deref(l.Spec.LeaseTransitions), "release keeps transitions")
	assert.ErrorIs(t, a.Guard().Check(), election.ErrNotLeader)

	e.stepAt(b, bNext)
	assert.True(t, b.IsLeader(), "b leads at its next attempt, one retry period after its last")
	assert.Equal(t, int64(2), b.Term())
	assert.Equal(t, bNext.Sub(epoch.Add(time.Second)), election.DefaultRetryPeriod)
}

func TestReleaseWithoutLeadingDoesNothing(t *testing.T) {
	e := newEnv(t)
	a, b := e.elector(t, "a"), e.elector(t, "b")
	a.Step(context.Background())
	b.Step(context.Background())
	require.NoError(t, b.Release(context.Background()))
	assert.Equal(t, "a", deref(e.lease(t).Spec.HolderIdentity))
	assert.True(t, a.IsLeader())
}

// TestConflictingAcquiresYieldOneLeader interleaves two candidates' attempts
// so that both read the same state and both write: optimistic concurrency
// lets exactly one write win.
func TestConflictingAcquiresYieldOneLeader(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, e *env) // leaves the lease free to take
		verb  string                     // a's write that b races
	}{
		{"both create", func(*testing.T, *env) {}, "create"},
		{"both take a released lease", func(t *testing.T, e *env) {
			c := e.elector(t, "c")
			c.Step(context.Background())
			require.NoError(t, c.Release(context.Background()))
		}, "update"},
		{"both take an expired lease", func(t *testing.T, e *env) {
			c := e.elector(t, "c")
			c.Step(context.Background())
			e.clk.Step(time.Second)
		}, "update"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			tt.setup(t, e)
			a, b := e.elector(t, "a"), e.elector(t, "b")
			if tt.verb == "update" {
				// Both observe the lease now; it expires for both after a lease duration.
				a.Step(context.Background())
				b.Step(context.Background())
				e.clk.Step(election.DefaultLeaseDuration)
			}
			raced := false
			e.client.SetFault(func(op electiontest.Op) error {
				if op.Verb == tt.verb && op.Resource == client.Leases && !raced {
					raced = true
					e.client.SetFault(nil)
					b.Step(context.Background()) // b's whole attempt lands inside a's
				}
				return nil
			})
			a.Step(context.Background())
			require.True(t, raced)
			assert.True(t, a.IsLeader() != b.IsLeader(), "exactly one leader: a=%v b=%v", a.IsLeader(), b.IsLeader())
			assert.True(t, b.IsLeader(), "b's write landed first")
			assert.Equal(t, "b", deref(e.lease(t).Spec.HolderIdentity))
		})
	}
}

// TestConcurrentCandidatesYieldOneLeader runs many candidates' attempts at
// once, from goroutines, on a free lease.
func TestConcurrentCandidatesYieldOneLeader(t *testing.T) {
	for round := range 20 {
		e := newEnv(t)
		var els []*election.Elector
		for i := range 8 {
			els = append(els, e.elector(t, string(rune('a'+i))))
		}
		var wg sync.WaitGroup
		for _, el := range els {
			wg.Go(func() { el.Step(context.Background()) })
		}
		wg.Wait()
		leaders := 0
		for _, el := range els {
			if el.IsLeader() {
				leaders++
				assert.Equal(t, el.Identity(), deref(e.lease(t).Spec.HolderIdentity))
			}
		}
		assert.Equal(t, 1, leaders, "round %d", round)
	}
}

// TestSkewedClocksCannotShortenALease gives the waiting candidate a clock
// offset from the leader's: expiry is judged from when it observed the
// lease, on its own clock, so no offset lets it take over early.
func TestSkewedClocksCannotShortenALease(t *testing.T) {
	tests := []struct {
		name  string
		aSkew time.Duration
		bSkew time.Duration
	}{
		{"candidate an hour ahead", 0, time.Hour},
		{"candidate an hour behind", 0, -time.Hour},
		{"leader a day behind", -24 * time.Hour, 0},
		{"candidate ahead by exactly a lease duration", 0, election.DefaultLeaseDuration},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			a := e.elector(t, "a", func(c *election.Config) { c.Clock = electiontest.SkewedClock{Base: e.clk, Offset: tt.aSkew} })
			b := e.elector(t, "b", func(c *election.Config) { c.Clock = electiontest.SkewedClock{Base: e.clk, Offset: tt.bSkew} })
			a.Step(context.Background())
			require.True(t, a.IsLeader())
			e.clk.Step(time.Second)
			// a renews once at base epoch+2s, then dies; b polls every 100ms.
			e.clk.SetTime(epoch.Add(2 * time.Second))
			a.Step(context.Background())
			lastRenewal := e.clk.Now()
			var took time.Time
			for e.clk.Since(epoch) < time.Minute {
				e.clk.Step(100 * time.Millisecond)
				b.Step(context.Background())
				if b.IsLeader() {
					took = e.clk.Now()
					break
				}
			}
			require.False(t, took.IsZero(), "b never took over")
			assert.False(t, took.Before(lastRenewal.Add(election.DefaultLeaseDuration)),
				"b took over at base %s, less than a lease duration after a's renewal at %s", took, lastRenewal)
			// The deposed leader's guard, on its own clock, closed before that.
			assert.False(t, lastRenewal.Add(election.DefaultRenewDeadline).After(took))
			assert.ErrorIs(t, a.Guard().Check(), election.ErrNotLeader)
		})
	}
}

// TestRenewFailuresUntilDeadline makes the API server refuse every lease
// write: the leader keeps its guard until RenewDeadline after its last
// renewal, then steps down, and its guard is closed.
func TestRenewFailuresUntilDeadline(t *testing.T) {
	e := newEnv(t)
	a := e.elector(t, "a")
	next := a.Step(context.Background())
	renewed := epoch
	e.client.SetFault(failLeaseWrites)
	deadline := renewed.Add(election.DefaultRenewDeadline)
	for i := 0; e.clk.Now().Before(deadline); i++ {
		require.Less(t, i, 100)
		require.True(t, a.IsLeader(), "still leading at %s", e.clk.Now())
		require.NoError(t, a.Guard().Check())
		next = e.stepAt(a, next)
		if a.IsLeader() {
			assert.False(t, next.After(deadline), "a leader retries no later than its deadline")
		}
	}
	assert.Equal(t, deadline, e.clk.Now(), "the last attempt was at the deadline")
	assert.False(t, a.IsLeader())
	assert.Zero(t, a.Guard().Until(), "stepping down closes the guard")
	err := a.Guard().Check()
	assert.ErrorIs(t, err, election.ErrNotLeader)
	assert.Contains(t, err.Error(), "guard closed")

	// Healed, a is a candidate like any other: the lease still names it
	// with the old term, so it waits out the lease and takes a new term.
	e.client.SetFault(nil)
	next = e.stepAt(a, next)
	assert.False(t, a.IsLeader())
	for !a.IsLeader() {
		require.Less(t, e.clk.Since(epoch), time.Minute)
		next = e.stepAt(a, next)
	}
	assert.Equal(t, int64(2), a.Term(), "a new term after stepping down")
}

// TestFailedRenewDoesNotExtendTheGuard: a renewal that the server refused
// leaves the guard where the last successful one put it.
func TestFailedRenewDoesNotExtendTheGuard(t *testing.T) {
	e := newEnv(t)
	a := e.elector(t, "a")
	next := a.Step(context.Background())
	until := a.Guard().Until()
	e.client.SetFault(failLeaseWrites)
	e.stepAt(a, next)
	assert.Equal(t, until, a.Guard().Until())
	e.client.SetFault(func(op electiontest.Op) error {
		if op.Verb == "get" {
			return apierrors.NewInternalError(errors.New("unavailable"))
		}
		return nil
	})
	e.stepAt(a, next.Add(time.Second))
	assert.Equal(t, until, a.Guard().Until())
}

// TestPausedLeaderGuardClosesByTimeAlone: the elector stops stepping, the
// controllers keep writing; the guard closes at the renew deadline with no
// Step, and the deposed leader's writes stop there, before anyone can lead.
func TestPausedLeaderGuardClosesByTimeAlone(t *testing.T) {
	e := newEnv(t)
	a, b := e.elector(t, "a"), e.elector(t, "b")
	aWrites := a.Guard().Client(e.client)
	a.Step(context.Background())
	bNext := b.Step(context.Background())
	ctx := context.Background()

	pod := func(name string) *api.Pod {
		return &api.Pod{Metadata: api.ObjectMeta{Namespace: "default", Name: name},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}}
	}
	// a's controllers write every 500ms while b tries to take over.
	var lastAllowed, firstRefused time.Time
	for i := 0; !b.IsLeader(); i++ {
		require.Less(t, i, 1000)
		e.clk.Step(500 * time.Millisecond)
		if !e.clk.Now().Before(bNext) {
			bNext = b.Step(ctx)
		}
		_, err := aWrites.Create(ctx, pod(fmt.Sprintf("p%d", i)))
		if err == nil {
			lastAllowed = e.clk.Now()
			require.True(t, firstRefused.IsZero(), "a write was allowed after one was refused")
			continue
		}
		require.ErrorIs(t, err, election.ErrNotLeader)
		if firstRefused.IsZero() {
			firstRefused = e.clk.Now()
		}
	}
	took := e.clk.Now()
	assert.Equal(t, epoch.Add(election.DefaultRenewDeadline), firstRefused, "the guard closed at the renew deadline")
	assert.True(t, lastAllowed.Before(took), "every write of the deposed leader came before the new leader's term")

	// Every guarded verb is refused and reaches no server; reads still pass.
	before := e.srv.Store().Rev()
	_, err := aWrites.Create(ctx, pod("late"))
	assert.ErrorIs(t, err, election.ErrNotLeader)
	_, err = aWrites.Update(ctx, pod("p0"))
	assert.ErrorIs(t, err, election.ErrNotLeader)
	_, err = aWrites.UpdateStatus(ctx, pod("p0"))
	assert.ErrorIs(t, err, election.ErrNotLeader)
	_, err = aWrites.Delete(ctx, client.Pods, "default", "p0", api.DeleteOptions{})
	assert.ErrorIs(t, err, election.ErrNotLeader)
	assert.Equal(t, before, e.srv.Store().Rev(), "refused writes changed nothing")
	_, err = aWrites.Get(ctx, client.Pods, "default", "p0", client.GetOptions{})
	assert.NoError(t, err, "reads pass a closed guard")

	for _, w := range e.client.Writes() {
		if w.Resource == client.Pods {
			assert.True(t, w.At.Before(took), "pod write %v at %s after the new term began at %s", w.Op, w.At, took)
		}
	}
	_, err = b.Guard().Client(e.client).Create(ctx, pod("from-b"))
	assert.NoError(t, err, "the new leader writes")
}

// TestRestartedIncarnationWaits: an elector that finds the lease held under
// its own identity, from an earlier incarnation, does not resume that term:
// it waits the lease out and starts a new one.
func TestRestartedIncarnationWaits(t *testing.T) {
	e := newEnv(t)
	old := e.elector(t, "a")
	old.Step(context.Background())
	fresh := e.elector(t, "a")
	next := fresh.Step(context.Background())
	assert.False(t, fresh.IsLeader())
	for !fresh.IsLeader() {
		require.Less(t, e.clk.Since(epoch), time.Minute)
		next = e.stepAt(fresh, next)
	}
	assert.False(t, e.clk.Now().Before(epoch.Add(election.DefaultLeaseDuration)))
	assert.Equal(t, int64(2), fresh.Term())
	old.Step(context.Background())
	assert.False(t, old.IsLeader(), "the old incarnation sees a new term and steps down")
}

var _ clock.Clock = electiontest.SkewedClock{}

// TestJitterSpreadsAttemptsToAcquire: with a Rand, a waiting candidate's
// next attempt is between one and 1+JitterFactor retry periods away, and a
// leader's renewals stay unjittered.
func TestJitterSpreadsAttemptsToAcquire(t *testing.T) {
	e := newEnv(t)
	withRand := func(c *election.Config) { c.Rand = rand.New(rand.NewPCG(7, 7)) }
	a, b := e.elector(t, "a", withRand), e.elector(t, "b", withRand)
	assert.Equal(t, epoch.Add(election.DefaultRetryPeriod), a.Step(context.Background()))
	distinct := map[time.Duration]bool{}
	for range 50 {
		d := b.Step(context.Background()).Sub(e.clk.Now())
		require.GreaterOrEqual(t, d, election.DefaultRetryPeriod)
		require.Less(t, d, time.Duration(float64(election.DefaultRetryPeriod)*(1+election.JitterFactor)))
		distinct[d] = true
	}
	assert.Greater(t, len(distinct), 1, "waits vary")
}

// TestOnNewLeaderReportsChanges: each change of holder is reported once,
// a free lease is not, and a holder that comes back is reported again.
func TestOnNewLeaderReportsChanges(t *testing.T) {
	e := newEnv(t)
	var seen []string
	a := e.elector(t, "a")
	b := e.elector(t, "b", func(c *election.Config) {
		c.Callbacks.OnNewLeader = func(id string) { seen = append(seen, id) }
	})
	a.Step(context.Background())
	b.Step(context.Background())
	b.Step(context.Background())
	require.NoError(t, a.Release(context.Background()))
	b.Step(context.Background()) // b takes the free lease
	require.NoError(t, b.Release(context.Background()))
	a.Step(context.Background())
	b.Step(context.Background())
	assert.Equal(t, []string{"a", "b", "a"}, seen)
}
