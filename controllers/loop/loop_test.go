package loop

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/workqueue"
)

var epoch = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// recorder is an Observer that writes down what it is told.
type recorder struct {
	mu     sync.Mutex
	events []string
}

func (r *recorder) ReconcileStarted(info Info) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, fmt.Sprintf("start %s %s #%d", info.Controller, info.Key, info.Seq))
}

func (r *recorder) ReconcileEnded(info Info, err error, took time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, fmt.Sprintf("end %s %s #%d err=%v took=%v", info.Controller, info.Key, info.Seq, err, took))
}

func newQueue(clk clock.Clock) *workqueue.Queue[string] {
	return workqueue.New(workqueue.Config[string]{Name: "test", Clock: clk})
}

// TestSettle checks what the loop tells the queue after each kind of sync
// outcome: the requeue count it leaves and whether the key comes back.
func TestSettle(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name         string
		maxRetries   int
		failedBefore int // failures already counted for the key
		err          error
		wantRequeues int
		wantBack     bool // the key is queued again, after a backoff
	}{
		{name: "success forgets the failures", failedBefore: 3, err: nil, wantRequeues: 0},
		{name: "failure backs off", failedBefore: 0, err: boom, wantRequeues: 1, wantBack: true},
		{name: "no budget retries for ever", failedBefore: 40, err: boom, wantRequeues: 41, wantBack: true},
		{name: "under the budget retries", maxRetries: 3, failedBefore: 2, err: boom, wantRequeues: 3, wantBack: true},
		{name: "past the budget drops", maxRetries: 3, failedBefore: 3, err: boom, wantRequeues: 0},
		{name: "a wait is neither retried nor counted", maxRetries: 3, failedBefore: 2,
			err: fmt.Errorf("cache behind: %w", ErrWait), wantRequeues: 2},
		{name: "a wrapped wait past the budget is still a wait", maxRetries: 1, failedBefore: 5,
			err: fmt.Errorf("x: %w", fmt.Errorf("y: %w", ErrWait)), wantRequeues: 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clock.NewFake(epoch)
			q := newQueue(clk)
			l, err := New(Config{Name: "c", Queue: q, MaxRetries: tt.maxRetries,
				Sync: func(context.Context, string) error { return tt.err }})
			require.NoError(t, err)
			for range tt.failedBefore {
				q.AddRateLimited("k") // counts a failure; the key comes back later
			}
			require.Equal(t, tt.failedBefore, q.NumRequeues("k"))
			// Drain the delayed adds, then queue the key once.
			clk.Step(time.Hour)
			for {
				k, ok, _ := q.TryGet()
				if !ok {
					break
				}
				q.Done(k)
			}
			q.Add("k")
			require.True(t, l.ProcessOne(context.Background()))
			assert.Equal(t, tt.wantRequeues, q.NumRequeues("k"), "requeues")
			_, delayed := q.NextDelayed()
			assert.Equal(t, tt.wantBack, delayed, "the key is waiting for its backoff")
			assert.Zero(t, q.Len(), "nothing is queued at once")
		})
	}
}

// TestStopRule checks that a loop whose context is done starts no sync,
// stepped or run.
func TestStopRule(t *testing.T) {
	clk := clock.NewFake(epoch)
	q := newQueue(clk)
	synced := 0
	l, err := New(Config{Name: "c", Queue: q, Sync: func(context.Context, string) error { synced++; return nil }})
	require.NoError(t, err)
	q.Add("k")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.False(t, l.ProcessOne(ctx), "a done context takes no key")
	assert.Equal(t, 1, q.Len(), "the key is still queued")
	assert.True(t, l.ProcessOne(context.Background()))
	assert.Equal(t, 1, synced)
}

// TestIdentityAndObserver checks the context a sync gets and what an
// observer is told, in order, with durations on the loop's clock.
func TestIdentityAndObserver(t *testing.T) {
	clk := clock.NewFake(epoch)
	q := newQueue(clk)
	obs := &recorder{}
	var seen []Info
	l, err := New(Config{Name: "widgets", Queue: q, Observer: obs, Clock: clk,
		Sync: func(ctx context.Context, key string) error {
			info, ok := FromContext(ctx)
			require.True(t, ok, "a sync's context carries its identity")
			seen = append(seen, info)
			clk.Step(time.Second)
			if key == "b" {
				return errors.New("boom")
			}
			return nil
		}})
	require.NoError(t, err)
	q.Add("a")
	q.Add("b")
	for l.ProcessOne(context.Background()) {
	}
	assert.Equal(t, []Info{{"widgets", "a", 1}, {"widgets", "b", 2}}, seen)
	assert.Equal(t, []string{
		"start widgets a #1", "end widgets a #1 err=<nil> took=1s",
		"start widgets b #2", "end widgets b #2 err=boom took=1s",
	}, obs.events)

	_, ok := FromContext(context.Background())
	assert.False(t, ok, "no identity outside a reconcile")
	got, ok := FromContext(NewContext(context.Background(), Info{"x", "ns/y", 7}))
	require.True(t, ok)
	assert.Equal(t, Info{"x", "ns/y", 7}, got)
}

// TestRun checks the live loop: every queued key is synced by the workers,
// OnSynced runs before them and Alongside next to them, and Run returns,
// with the queue shut down, once ctx is done.
func TestRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue(clock.NewFake(epoch))
		var mu sync.Mutex
		done := map[string]bool{}
		alongsideStopped := false
		l, err := New(Config{Name: "c", Queue: q,
			Sync: func(ctx context.Context, key string) error {
				mu.Lock()
				defer mu.Unlock()
				done[key] = true
				return nil
			},
			OnSynced:  func() { q.Add("from-onsynced") },
			Alongside: func(ctx context.Context) { <-ctx.Done(); alongsideStopped = true },
		})
		require.NoError(t, err)
		for i := range 20 {
			q.Add(fmt.Sprint(i))
		}
		ctx, cancel := context.WithCancel(context.Background())
		ran := make(chan struct{})
		go func() { l.Run(ctx, 3); close(ran) }()
		synctest.Wait()
		mu.Lock()
		assert.Len(t, done, 21)
		assert.True(t, done["from-onsynced"])
		mu.Unlock()
		cancel()
		<-ran
		assert.True(t, q.ShuttingDown())
		assert.True(t, alongsideStopped, "Run waits for Alongside")
	})
}

func TestNewRefuses(t *testing.T) {
	q := newQueue(clock.NewFake(epoch))
	sync := func(context.Context, string) error { return nil }
	for name, cfg := range map[string]Config{
		"no name":                {Queue: q, Sync: sync},
		"no queue":               {Name: "c", Sync: sync},
		"no sync":                {Name: "c", Queue: q},
		"negative budget":        {Name: "c", Queue: q, Sync: sync, MaxRetries: -1},
		"observer without clock": {Name: "c", Queue: q, Sync: sync, Observer: &recorder{}},
	} {
		_, err := New(cfg)
		assert.Error(t, err, name)
	}
}

// TestNoAllocationPerReconcile is the promise the benchmark measures: with
// no observer a reconcile costs the loop no allocation.
func TestNoAllocationPerReconcile(t *testing.T) {
	q := newQueue(clock.NewFake(epoch))
	l, err := New(Config{Name: "c", Queue: q, Sync: func(ctx context.Context, _ string) error {
		if _, ok := FromContext(ctx); !ok {
			return errors.New("no identity")
		}
		return nil
	}})
	require.NoError(t, err)
	ctx := context.Background()
	allocs := testing.AllocsPerRun(1000, func() {
		q.Add("ns/name")
		if !l.ProcessOne(ctx) {
			t.Fatal("no key")
		}
	})
	assert.Zero(t, allocs)
}

func BenchmarkProcessOne(b *testing.B) {
	for _, observed := range []bool{false, true} {
		b.Run(fmt.Sprintf("observer=%v", observed), func(b *testing.B) {
			clk := clock.NewFake(epoch)
			q := newQueue(clk)
			cfg := Config{Name: "c", Queue: q, Clock: clk, Sync: func(context.Context, string) error { return nil }}
			if observed {
				cfg.Observer = nopObserver{}
			}
			l, err := New(cfg)
			require.NoError(b, err)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				q.Add("ns/name")
				l.ProcessOne(ctx)
			}
		})
	}
}

type nopObserver struct{}

func (nopObserver) ReconcileStarted(Info)                     {}
func (nopObserver) ReconcileEnded(Info, error, time.Duration) {}
