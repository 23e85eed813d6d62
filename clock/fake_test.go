package clock_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/clock"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func TestFakeMovesOnlyWhenTold(t *testing.T) {
	c := clock.NewFake(epoch)
	assert.Equal(t, epoch, c.Now())
	assert.Equal(t, epoch, c.Now(), "reading the clock must not move it")

	c.Step(3 * time.Second)
	assert.Equal(t, epoch.Add(3*time.Second), c.Now())
	assert.Equal(t, 3*time.Second, c.Since(epoch))

	c.SetTime(epoch.Add(time.Hour))
	assert.Equal(t, epoch.Add(time.Hour), c.Now())
}

// TestFakeFiresDueTimersInTimeOrder sets timers out of order and checks that
// each step fires exactly the due ones, earliest first, ties in set order.
func TestFakeFiresDueTimersInTimeOrder(t *testing.T) {
	c := clock.NewFake(epoch)
	var fired []string
	at := func(name string, d time.Duration) {
		c.AfterFunc(d, func() {
			fired = append(fired, name+"@"+c.Since(epoch).String())
		})
	}
	at("c", 3*time.Second)
	at("a", 1*time.Second)
	at("b1", 2*time.Second)
	at("b2", 2*time.Second)
	at("late", time.Minute)
	require.Equal(t, 5, c.Waiters())

	steps := []struct {
		step    time.Duration
		want    []string
		waiters int
	}{
		{step: 500 * time.Millisecond, want: nil, waiters: 5},
		{step: 500 * time.Millisecond, want: []string{"a@1s"}, waiters: 4},
		{step: 5 * time.Second, want: []string{"a@1s", "b1@2s", "b2@2s", "c@3s"}, waiters: 1},
		{step: time.Hour, want: []string{"a@1s", "b1@2s", "b2@2s", "c@3s", "late@1m0s"}, waiters: 0},
	}
	for i, s := range steps {
		c.Step(s.step)
		assert.Equal(t, s.want, fired, "after step %d", i)
		assert.Equal(t, s.waiters, c.Waiters(), "after step %d", i)
	}
}

func TestFakeTimerChannel(t *testing.T) {
	tests := []struct {
		name      string
		run       func(c *clock.Fake, tm clock.Timer)
		wantFired bool
		wantAt    time.Time
	}{
		{
			name:      "fires at its deadline",
			run:       func(c *clock.Fake, _ clock.Timer) { c.Step(2 * time.Second) },
			wantFired: true,
			wantAt:    epoch.Add(time.Second),
		},
		{
			name:      "not before its deadline",
			run:       func(c *clock.Fake, _ clock.Timer) { c.Step(999 * time.Millisecond) },
			wantFired: false,
		},
		{
			name: "stopped timer never fires",
			run: func(c *clock.Fake, tm clock.Timer) {
				assert.True(t, tm.Stop(), "Stop of a pending timer reports true")
				assert.False(t, tm.Stop(), "second Stop reports false")
				c.Step(time.Hour)
			},
			wantFired: false,
		},
		{
			name: "reset moves the deadline",
			run: func(c *clock.Fake, tm clock.Timer) {
				assert.True(t, tm.Reset(5*time.Second))
				c.Step(4 * time.Second)
				assert.Empty(t, tm.C())
				c.Step(time.Second)
			},
			wantFired: true,
			wantAt:    epoch.Add(5 * time.Second),
		},
		{
			name: "reset after firing arms it again",
			run: func(c *clock.Fake, tm clock.Timer) {
				c.Step(time.Second)
				<-tm.C()
				assert.False(t, tm.Reset(time.Second), "a fired timer is not pending")
				c.Step(time.Second)
			},
			wantFired: true,
			wantAt:    epoch.Add(2 * time.Second),
		},
		{
			name:      "zero duration fires on the next move",
			run:       func(c *clock.Fake, tm clock.Timer) { tm.Reset(0); c.Step(0) },
			wantFired: true,
			wantAt:    epoch,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := clock.NewFake(epoch)
			tm := c.NewTimer(time.Second)
			tt.run(c, tm)
			select {
			case at := <-tm.C():
				require.True(t, tt.wantFired, "timer fired at %v but should not have", at)
				assert.Equal(t, tt.wantAt, at)
			default:
				require.False(t, tt.wantFired, "timer did not fire")
			}
		})
	}
}

func TestFakeStepToNext(t *testing.T) {
	c := clock.NewFake(epoch)
	assert.False(t, c.StepToNext(), "no timers: nothing to step to")
	assert.Equal(t, epoch, c.Now())

	a := c.NewTimer(10 * time.Second)
	b := c.NewTimer(3 * time.Second)
	next, ok := c.NextDeadline()
	require.True(t, ok)
	assert.Equal(t, epoch.Add(3*time.Second), next)

	require.True(t, c.StepToNext())
	assert.Equal(t, epoch.Add(3*time.Second), c.Now())
	assert.Len(t, b.C(), 1)
	assert.Empty(t, a.C())

	require.True(t, c.StepToNext())
	assert.Equal(t, epoch.Add(10*time.Second), c.Now())
	assert.Len(t, a.C(), 1)
	assert.Zero(t, c.Waiters())
}

// TestFakeCallbackMaySetTimers checks that an AfterFunc callback can use the
// clock (no deadlock) and that a timer it sets inside the step's window fires
// in the same step.
func TestFakeCallbackMaySetTimers(t *testing.T) {
	c := clock.NewFake(epoch)
	var fired []time.Duration
	c.AfterFunc(time.Second, func() {
		fired = append(fired, c.Since(epoch))
		c.AfterFunc(time.Second, func() { fired = append(fired, c.Since(epoch)) })
	})
	c.Step(5 * time.Second)
	assert.Equal(t, []time.Duration{time.Second, 2 * time.Second}, fired)
	assert.Equal(t, epoch.Add(5*time.Second), c.Now())
}

func TestRealClockMoves(t *testing.T) {
	var c clock.Clock = clock.Real{}
	start := c.Now()
	tm := c.NewTimer(time.Millisecond)
	<-tm.C()
	assert.GreaterOrEqual(t, c.Since(start), time.Millisecond)
}
