package informer_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/informer"
	"github.com/miniplane/miniplane/internal/testenv"
)

// Live tests poll a condition for at most this long; a correct run takes
// milliseconds.
const (
	eventually = 10 * time.Second
	tick       = time.Millisecond
)

// TestInformerDeliversUpdatesWithAnUnchangedResourceVersion: an update whose
// object has the same resourceVersion as the cached one reaches a handler
// with no resync, even after a resync has run. client-go treats it as a
// resync and drops it for such handlers (kubernetes/client-go#1312).
func TestInformerDeliversUpdatesWithAnUnchangedResourceVersion(t *testing.T) {
	tests := []struct {
		name string
		// update makes the informer see pods a and b again, unchanged, and
		// returns the notifications every handler must get.
		update func(e *env, a, b *api.Pod) []string
	}{
		{
			name: "an Update delta of the cached object",
			update: func(e *env, a, _ *api.Pod) []string {
				cur, ok := e.inf.Indexer().Get("default/a")
				require.True(e.t, ok)
				e.inf.FIFO().Update(cur)
				return lines(updated(a, a))
			},
		},
		{
			name: "a relist of unchanged objects",
			update: func(e *env, a, b *api.Pod) []string {
				e.lw.CloseWatch()
				e.lw.FailWatches(1, errDown)
				e.pump()
				e.clk.Step(800 * time.Millisecond)
				return lines(updated(a, a), updated(b, b))
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, apiserver.Config{})
			a := e.createPod("default", "a", nil)
			b := e.createPod("default", "b", nil)
			h0, h5 := &recorder{}, &recorder{}
			reg0 := e.inf.AddEventHandler(h0, 0)
			reg5 := e.inf.AddEventHandler(h5, 5*time.Second)
			e.pump(reg0, reg5)
			h0.Take()
			h5.Take()

			// A resync has run: client-go would now flag h0 as not syncing.
			e.clk.Step(5 * time.Second)
			e.inf.Resync()
			e.pump(reg0, reg5)
			require.Empty(t, h0.Take())
			require.Len(t, h5.Take(), 2)

			want := tt.update(e, a, b)
			e.pump(reg0, reg5)
			assert.Equal(t, want, h0.Take(), "the handler without resync")
			assert.Equal(t, want, h5.Take(), "the handler with resync")
		})
	}
}

func TestHandlersEachGetEveryNotificationInOrder(t *testing.T) {
	e := newEnv(t, apiserver.Config{})
	a := e.createPod("default", "a", nil)
	hs := []*recorder{{}, {}, {}}
	var regs []*informer.Registration
	for _, h := range hs {
		regs = append(regs, e.inf.AddEventHandler(h, 0))
	}
	e.pump(regs...)
	b := e.createPod("default", "b", nil)
	a2 := e.updatePod(a, "v", "2")
	e.pump(regs...)
	a3 := e.updatePod(a2, "v", "3")
	bGone := e.deletePod(b)
	c := e.createPod("default", "c", nil)
	e.pump(regs...)

	want := lines(
		added(a, true),
		added(b, false), updated(a, a2),
		updated(a2, a3), deleted(b, bGone), added(c, false),
	)
	for i, h := range hs {
		assert.Equal(t, want, h.Events(), "handler %d", i)
	}
}

// TestSlowHandlerDelaysOnlyItself: a handler that is not dispatched holds
// back neither the cache nor another handler.
func TestSlowHandlerDelaysOnlyItself(t *testing.T) {
	e := newEnv(t, apiserver.Config{})
	a := e.createPod("default", "a", nil)
	b := e.createPod("default", "b", nil)
	fast, slow := &recorder{}, &recorder{}
	fastReg := e.inf.AddEventHandler(fast, 0)
	slowReg := e.inf.AddEventHandler(slow, 0)

	e.pump(fastReg) // slowReg is never dispatched
	c := e.createPod("default", "c", nil)
	a2 := e.updatePod(a, "v", "2")
	bGone := e.deletePod(b)
	e.pump(fastReg)

	want := lines(added(a, true), added(b, true), added(c, false), updated(a, a2), deleted(b, bGone))
	assert.Equal(t, want, fast.Events(), "the fast handler is up to date")
	assert.Equal(t, []string{"default/a", "default/c"}, e.inf.Indexer().ListKeys(), "the cache is up to date")
	cur, _ := e.inf.Indexer().Get("default/a")
	assert.Equal(t, a2.Metadata.ResourceVersion, cur.GetObjectMeta().ResourceVersion)
	assert.True(t, fastReg.HasSynced())

	assert.Empty(t, slow.Events())
	assert.Equal(t, len(want), slowReg.Pending())
	assert.False(t, slowReg.HasSynced(), "the slow handler has not been handed the initial list")
	assert.True(t, isClosed(slowReg.Ready()))

	drain(slowReg)
	assert.Equal(t, want, slow.Events(), "the slow handler gets the same, in order")
	assert.Equal(t, 0, slowReg.Pending())
	assert.True(t, slowReg.HasSynced())
	assert.False(t, isClosed(slowReg.Ready()))
}

func TestSlowHandlerBacklogIsReported(t *testing.T) {
	tests := []struct {
		name     string
		backlog  int
		warnings []int64 // the backlog each warning reports
	}{
		{"below 1024: no warning", 1023, nil},
		{"at 1024: a warning", 1024, []int64{1024}},
		{"a warning each time the backlog doubles", 4096, []int64{1024, 2048, 4096}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			core, logs := observer.New(zap.WarnLevel)
			e := newEnv(t, apiserver.Config{})
			inf := informer.New(e.lw, informer.Config{Clock: e.clk, Logger: zap.New(core)})
			reg := inf.AddEventHandler(&recorder{}, 0)
			for i := range tt.backlog {
				inf.FIFO().Add(pod("default", fmt.Sprintf("p-%05d", i), nil))
			}
			for inf.ProcessOne() {
			}
			require.Equal(t, tt.backlog, reg.Pending())

			var got []int64
			for _, entry := range logs.FilterMessageSnippet("slow event handler").All() {
				got = append(got, entry.ContextMap()["pending"].(int64))
			}
			assert.Equal(t, tt.warnings, got)
		})
	}
}

// TestLateHandlerGetsTheCacheFirst: a handler added after the informer has
// synced is handed an add for every cached object, flagged initial, before
// any live notification, and its registration syncs only once it has had
// them all, while the first registration is synced all along.
func TestLateHandlerGetsTheCacheFirst(t *testing.T) {
	e := newEnv(t, apiserver.Config{})
	a := e.createPod("default", "a", nil)
	b := e.createPod("default", "b", nil)
	first := &recorder{}
	firstReg := e.inf.AddEventHandler(first, 0)
	e.pump(firstReg)
	require.True(t, firstReg.HasSynced())

	late := &recorder{}
	lateReg := e.inf.AddEventHandler(late, 0)
	assert.Equal(t, 2, lateReg.Pending(), "an add per cached object")
	assert.False(t, lateReg.HasSynced())
	assert.True(t, firstReg.HasSynced())

	c := e.createPod("default", "c", nil)
	e.pump(firstReg) // the late handler is not dispatched yet
	assert.Equal(t, 3, lateReg.Pending(), "the live add queues behind the synthetic ones")

	var syncedAfter []bool
	for lateReg.DispatchOne() {
		syncedAfter = append(syncedAfter, lateReg.HasSynced())
	}
	assert.Equal(t, lines(added(a, true), added(b, true), added(c, false)), late.Events())
	assert.Equal(t, []bool{false, true, true}, syncedAfter, "synced once both synthetic adds are dispatched")
	assert.Equal(t, lines(added(a, true), added(b, true), added(c, false)), first.Events())
	assert.True(t, firstReg.HasSynced())
}

// TestLateHandlerOnAnEmptyCacheIsSyncedAtOnce: nothing cached, nothing to
// hand over.
func TestLateHandlerOnAnEmptyCacheIsSyncedAtOnce(t *testing.T) {
	e := newEnv(t, apiserver.Config{})
	a := e.createPod("default", "a", nil)
	reg := e.inf.AddEventHandler(&recorder{}, 0)
	e.pump(reg)
	e.deletePod(a)
	e.pump(reg)
	require.Equal(t, 0, e.inf.Indexer().Len())

	late := e.inf.AddEventHandler(&recorder{}, 0)
	assert.Equal(t, 0, late.Pending())
	assert.True(t, late.HasSynced())
}

// TestInformerSyncsOnAnEmptyInitialList: a resource with no objects lists
// empty; the informer and its handlers have then seen the whole initial list.
func TestInformerSyncsOnAnEmptyInitialList(t *testing.T) {
	e := newEnv(t, apiserver.Config{})
	reg := e.inf.AddEventHandler(&recorder{}, 0)
	e.pump(reg)

	require.Equal(t, 1, e.inf.Reflector().Stats().Lists)
	require.True(t, e.inf.FIFO().HasSynced(), "the FIFO has synced")
	assert.True(t, e.inf.HasSynced(), "the informer has synced")
	assert.True(t, isClosed(e.inf.Synced()), "Synced is closed")
	assert.True(t, reg.HasSynced(), "the registration has synced")
}

func TestResyncGoesOnlyToHandlersThatAskForIt(t *testing.T) {
	tests := []struct {
		name   string
		resync time.Duration
		// The handler gets nothing at before, and a resync at before+rest.
		before, rest time.Duration
		resyncs      bool
	}{
		{"a 5 s handler is resynced at 5 s, not before", 5 * time.Second, 5*time.Second - time.Millisecond, time.Millisecond, true},
		{"a period under a second is a second", 100 * time.Millisecond, time.Second - time.Millisecond, time.Millisecond, true},
		{"a handler with resync 0 is never resynced", 0, time.Hour, time.Hour, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, apiserver.Config{})
			a := e.createPod("default", "a", nil)
			b := e.createPod("default", "b", nil)
			h, bystander := &recorder{}, &recorder{}
			reg := e.inf.AddEventHandler(h, tt.resync)
			other := e.inf.AddEventHandler(bystander, 0)
			e.pump(reg, other)
			h.Take()
			bystander.Take()

			e.clk.Step(tt.before)
			e.inf.Resync()
			assert.Equal(t, 0, e.inf.FIFO().Len(), "nothing due yet")
			e.pump(reg, other)
			require.Empty(t, h.Take())

			e.clk.Step(tt.rest)
			next := e.inf.Resync()
			e.pump(reg, other)
			assert.Empty(t, bystander.Take(), "a resync is only for the handlers that asked")
			if !tt.resyncs {
				assert.Empty(t, h.Take())
				assert.True(t, next.IsZero(), "no resync is ever due")
				return
			}
			assert.Equal(t, lines(updated(a, a), updated(b, b)), h.Take())
			for _, u := range h.updates {
				assert.Same(t, u[0], u[1], "OnUpdate(obj, obj)")
				cur, _ := e.inf.Indexer().Get(informer.KeyOf(u[1]))
				assert.Same(t, cur, u[1], "the cached object")
			}
			assert.Equal(t, e.clk.Now().Add(max(tt.resync, time.Second)), next, "the next resync is a period away")
		})
	}
}

// TestResyncQueuedIsNotLostToALaterResyncCall: Resync is a step that may run
// again before the resync it queued is processed (Run calls it again when a
// handler is added; a simulator may call it at any time). The handler the
// queued resync was for must still get it.
func TestResyncQueuedIsNotLostToALaterResyncCall(t *testing.T) {
	e := newEnv(t, apiserver.Config{})
	a := e.createPod("default", "a", nil)
	h := &recorder{}
	reg := e.inf.AddEventHandler(h, 5*time.Second)
	e.pump(reg)
	h.Take()

	e.clk.Step(5 * time.Second)
	e.inf.Resync() // queues a Sync for default/a, for h
	e.inf.Resync() // nothing new is due
	e.pump(reg)
	assert.Equal(t, lines(updated(a, a)), h.Take(), "the resync due at 5 s")
}

func TestRemoveEventHandlerStopsNotifications(t *testing.T) {
	e := newEnv(t, apiserver.Config{})
	a := e.createPod("default", "a", nil)
	gone, kept := &recorder{}, &recorder{}
	goneReg := e.inf.AddEventHandler(gone, 0)
	keptReg := e.inf.AddEventHandler(kept, 0)
	e.pump(goneReg, keptReg)

	b := e.createPod("default", "b", nil)
	e.pump() // queued for both, dispatched to neither
	require.Equal(t, 1, goneReg.Pending())

	e.inf.RemoveEventHandler(goneReg)
	assert.Equal(t, 0, goneReg.Pending(), "what was pending is dropped")
	c := e.createPod("default", "c", nil)
	e.pump(goneReg, keptReg)

	assert.Equal(t, lines(added(a, true)), gone.Events())
	assert.False(t, goneReg.DispatchOne())
	assert.Equal(t, lines(added(a, true), added(b, false), added(c, false)), kept.Events())
}

// byKey groups a recorder's lines by object key, keeping their order: across
// objects a live run's order depends on goroutine timing, per object it
// does not.
func byKey(events []string) map[string][]string {
	out := map[string][]string{}
	for _, ev := range events {
		f := strings.Fields(ev)
		key, _, _ := strings.Cut(f[1], "@")
		out[key] = append(out[key], ev)
	}
	return out
}

// runLive starts inf.Run and returns a function that stops it and waits
// until Run has returned.
func runLive(t *testing.T, inf *informer.Informer) (stop func()) {
	t.Helper()
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		inf.Run(runCtx)
	}()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case <-done:
		case <-time.After(eventually):
			t.Fatal("Run did not return after its context was cancelled")
		}
	}
	t.Cleanup(stop)
	return stop
}

// goroutines counts the goroutines as a require.Eventually condition sees
// them (Eventually runs its condition on a goroutine of its own).
func goroutines(t *testing.T) (n int) {
	require.Eventually(t, func() bool { n = runtime.NumGoroutine(); return true }, eventually, tick)
	return n
}

// TestRunLive drives the informer with Run on a fake clock that never moves:
// nothing in it needs time to pass.
func TestRunLive(t *testing.T) {
	before := goroutines(t)
	e := newEnv(t, apiserver.Config{})
	a := e.createPod("default", "a", nil)
	h := &recorder{}
	reg := e.inf.AddEventHandler(h, 0)
	stop := runLive(t, e.inf)
	require.Eventually(t, reg.HasSynced, eventually, tick)

	b := e.createPod("default", "b", nil)
	c := e.createPod("default", "c", nil)
	b2 := e.updatePod(b, "v", "2")
	aGone := e.deletePod(a)
	require.Eventually(t, func() bool { return h.Len() == 5 }, eventually, tick)
	assert.Equal(t, map[string][]string{
		"default/a": {added(a, true), deleted(a, aGone)},
		"default/b": {added(b, false), updated(b, b2)},
		"default/c": {added(c, false)},
	}, byKey(h.Events()))

	late := &recorder{}
	lateReg := e.inf.AddEventHandler(late, 0)
	require.Eventually(t, lateReg.HasSynced, eventually, tick)
	assert.Equal(t, lines(added(b2, true), added(c, true)), late.Events())

	stop()
	assert.Equal(t, []string{"default/b", "default/c"}, e.inf.Indexer().ListKeys())
	require.Eventually(t, func() bool { return runtime.NumGoroutine() <= before }, eventually, tick,
		"every goroutine Run started has exited")
}

// TestRunLiveRelistsAfterTheWatchFallsOutOfHistory: Run waits for the
// reflector's backoff on the injected clock, and relists when it passes.
func TestRunLiveRelistsAfterTheWatchFallsOutOfHistory(t *testing.T) {
	e := newEnv(t, apiserver.Config{HistoryLimit: 4})
	a := e.createPod("default", "a", nil)
	b := e.createPod("default", "b", nil)
	h := &recorder{}
	reg := e.inf.AddEventHandler(h, 0)
	stop := runLive(t, e.inf)
	require.Eventually(t, reg.HasSynced, eventually, tick)

	e.lw.Hold()
	e.deletePod(b)
	c := e.createPod("default", "c", nil)
	a2 := e.updatePod(a, "v", "2")
	d := e.createPod("default", "d", nil)
	x := e.createPod("default", "x", nil)
	e.lw.Release()

	// The watch ends with 410; the reflector waits 800 ms on the fake clock.
	require.Eventually(t, func() bool { return e.clk.Waiters() == 1 }, eventually, tick)
	errs := e.lw.WatchErrors()
	require.Len(t, errs, 1)
	assert.Equal(t, int32(410), errs[0].Code)
	assert.Equal(t, lines(added(a, true), added(b, true)), h.Events(), "nothing before the relist")

	e.clk.Step(800 * time.Millisecond)
	want := map[string][]string{
		"default/a": {added(a, true), updated(a, a2)},
		"default/b": {added(b, true), lost(b)},
		"default/c": {added(c, false)},
		"default/d": {added(d, false)},
		"default/x": {added(x, false)},
	}
	require.Eventually(t, func() bool { return h.Len() == 7 }, eventually, tick)
	assert.Equal(t, want, byKey(h.Events()))
	stop()
	assert.Equal(t, 2, e.inf.Reflector().Stats().Lists)
}

// TestRunLiveSyncsOnAnEmptyInitialList: under Run too, an empty resource
// syncs; nothing will ever be popped to wake the processing loop.
func TestRunLiveSyncsOnAnEmptyInitialList(t *testing.T) {
	e := newEnv(t, apiserver.Config{})
	reg := e.inf.AddEventHandler(&recorder{}, 0)
	runLive(t, e.inf)
	waitClosed(t, e.inf.Synced(), "the informer syncs on an empty list")
	assert.True(t, reg.HasSynced())
}

// TestRunLiveResyncsOnTheClock: Run sets a timer on the injected clock for
// the next resync and resyncs when it fires.
func TestRunLiveResyncsOnTheClock(t *testing.T) {
	e := newEnv(t, apiserver.Config{})
	a := e.createPod("default", "a", nil)
	h, bystander := &recorder{}, &recorder{}
	reg := e.inf.AddEventHandler(h, 5*time.Second)
	other := e.inf.AddEventHandler(bystander, 0)
	stop := runLive(t, e.inf)
	require.Eventually(t, func() bool { return reg.HasSynced() && other.HasSynced() }, eventually, tick)
	require.Eventually(t, func() bool { return e.clk.Waiters() == 1 }, eventually, tick, "the resync timer is set")
	next, _ := e.clk.NextDeadline()
	assert.Equal(t, testenv.Epoch().Add(5*time.Second), next)

	e.clk.Step(5 * time.Second)
	require.Eventually(t, func() bool { return h.Len() == 2 }, eventually, tick)
	assert.Equal(t, lines(added(a, true), updated(a, a)), h.Events())
	stop()
	assert.Equal(t, lines(added(a, true)), bystander.Events())
}
