package informer_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/informer"
	"github.com/miniplane/miniplane/internal/testenv"
)

// errDown is what a failing API server answers.
var errDown = apierrors.NewInternalError(errors.New("etcd is down"))

func mustRev(t *testing.T, rv string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(rv, 10, 64)
	require.NoError(t, err)
	return n
}

func TestReflectorListsThenWatches(t *testing.T) {
	e := newEnv(t, apiserver.Config{})
	a := e.createPod("default", "a", nil)
	b := e.createPod("default", "b", nil)
	listRV := e.rev()
	h := &recorder{}
	reg := e.inf.AddEventHandler(h, 0)
	r := e.inf.Reflector()

	e.pump(reg)
	assert.Equal(t, lines(added(a, true), added(b, true)), h.Take(), "the list, as initial adds")
	assert.Equal(t, listRV, r.LastSyncResourceVersion())
	assert.Equal(t, []client.ListOptions{{}}, e.lw.Lists(), "the first list reads the latest state")
	assert.Equal(t, []client.ListOptions{{ResourceVersion: listRV, AllowWatchBookmarks: true}}, e.lw.Watches(),
		"the watch starts at the list's revision")
	assert.True(t, e.inf.HasSynced())
	assert.True(t, reg.HasSynced())

	c := e.createPod("default", "c", nil)
	a2 := e.updatePod(a, "v", "2")
	bGone := e.deletePod(b)
	e.pump(reg)
	assert.Equal(t, lines(added(c, false), updated(a, a2), deleted(b, bGone)), h.Take(), "then the watch's events")
	assert.Equal(t, e.rev(), r.LastSyncResourceVersion())
	assert.Equal(t, []string{"default/a", "default/c"}, e.inf.Indexer().ListKeys())
	assert.Equal(t, 1, r.Stats().Lists)
	assert.Equal(t, 1, r.Stats().Watches)
}

// TestReflectorRewatchesAfterTheWatchCloses: a watch the server closes is
// reopened from the last resourceVersion applied, with no relist, and no
// event is lost or delivered twice.
func TestReflectorRewatchesAfterTheWatchCloses(t *testing.T) {
	tests := []struct {
		name string
		// run writes and closes watches after the informer has synced on
		// pod a; it returns the events the handler must then see, and the
		// resourceVersion each re-watch must start from.
		run func(e *env, pump func()) (want, rewatchFrom []string)
	}{
		{
			name: "closed with events not yet delivered",
			run: func(e *env, pump func()) ([]string, []string) {
				synced := e.rev()
				c := e.createPod("default", "c", nil)
				e.lw.CloseWatch()
				d := e.createPod("default", "d", nil)
				pump()
				return lines(added(c, false), added(d, false)), []string{synced}
			},
		},
		{
			name: "closed after delivering everything",
			run: func(e *env, pump func()) ([]string, []string) {
				c := e.createPod("default", "c", nil)
				pump()
				e.lw.CloseWatch()
				d := e.createPod("default", "d", nil)
				pump()
				return lines(added(c, false), added(d, false)), []string{c.Metadata.ResourceVersion}
			},
		},
		{
			name: "closed again right after re-watching",
			run: func(e *env, pump func()) ([]string, []string) {
				c := e.createPod("default", "c", nil)
				pump()
				e.lw.CloseWatch()
				pump()
				e.lw.CloseWatch()
				d := e.createPod("default", "d", nil)
				c2 := e.updatePod(c, "v", "2")
				pump()
				return lines(added(c, false), added(d, false), updated(c, c2)),
					[]string{c.Metadata.ResourceVersion, c.Metadata.ResourceVersion}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, apiserver.Config{})
			a := e.createPod("default", "a", nil)
			h := &recorder{}
			reg := e.inf.AddEventHandler(h, 0)
			e.pump(reg)
			require.Equal(t, lines(added(a, true)), h.Take())

			want, rewatchFrom := tt.run(e, func() { e.pump(reg) })

			assert.Equal(t, want, h.Take(), "every event once, in order")
			r := e.inf.Reflector()
			assert.Equal(t, 1, r.Stats().Lists, "no relist")
			assert.Equal(t, 1+len(rewatchFrom), r.Stats().Watches)
			var got []string
			for _, w := range e.lw.Watches()[1:] {
				got = append(got, w.ResourceVersion)
			}
			assert.Equal(t, rewatchFrom, got, "each re-watch starts at the last resourceVersion applied")
			assert.Equal(t, e.rev(), r.LastSyncResourceVersion())
		})
	}
}

// TestReflectorRelistsAfterTheWatchFallsOutOfHistory: writes the informer is
// not pumped for push its watch out of the server's history window; the
// watch ends with 410 Expired and the reflector relists after 800 ms, not
// before, and the deletion it missed comes out as a tombstone.
func TestReflectorRelistsAfterTheWatchFallsOutOfHistory(t *testing.T) {
	const history = 4
	e := newEnv(t, apiserver.Config{HistoryLimit: history})
	a := e.createPod("default", "a", nil)
	b := e.createPod("default", "b", nil)
	c := e.createPod("default", "c", nil)
	h := &recorder{}
	reg := e.inf.AddEventHandler(h, 0)
	e.pump(reg)
	h.Take()
	synced := e.rev()
	r := e.inf.Reflector()

	// More writes than the history holds, while nothing is pumped.
	a2 := e.updatePod(a, "v", "2")
	e.deletePod(b)
	d := e.createPod("default", "d", nil)
	d2 := e.updatePod(d, "v", "2")
	x := e.createPod("default", "x", nil)
	require.Greater(t, e.srv.Store().Rev()-mustRev(t, synced), int64(history))

	require.True(t, r.Step(ctx), "the watch ends")
	errs := e.lw.WatchErrors()
	require.Len(t, errs, 1)
	assert.Equal(t, int32(410), errs[0].Code)
	assert.Equal(t, api.StatusReasonExpired, errs[0].Reason)

	wake, backingOff := r.NextWake()
	require.True(t, backingOff)
	assert.Equal(t, 800*time.Millisecond, wake.Sub(e.clk.Now()))
	assert.False(t, r.Step(ctx), "no relist at once")
	e.clk.Step(799 * time.Millisecond)
	assert.False(t, r.Step(ctx), "no relist a millisecond before the backoff ends")
	assert.Equal(t, 1, r.Stats().Lists)
	assert.Equal(t, 0, e.inf.FIFO().Len(), "nothing queued meanwhile")

	e.clk.Step(time.Millisecond)
	require.True(t, r.Step(ctx), "relist")
	assert.Equal(t, 2, r.Stats().Lists)
	assert.Equal(t, client.ListOptions{ResourceVersion: synced}, e.lw.Lists()[1], "the relist asks for a state no older than the last seen")
	e.pump(reg)

	assert.Equal(t, lines(
		updated(a, a2),
		updated(c, c), // unchanged: delivered, resync or not (client-go#1312)
		added(d2, false),
		added(x, false),
		lost(b),
	), h.Take())
	assert.Equal(t, []string{"default/a", "default/c", "default/d", "default/x"}, e.inf.Indexer().ListKeys())
	assert.Equal(t, e.rev(), r.LastSyncResourceVersion())

	y := e.createPod("default", "y", nil)
	e.pump(reg)
	assert.Equal(t, lines(added(y, false)), h.Take(), "the new watch carries on")
}

func TestReflectorBackoffDoublesUpTo30s(t *testing.T) {
	e := newEnv(t, apiserver.Config{})
	e.createPod("default", "a", nil)
	e.lw.FailLists(8, errDown)
	r := e.inf.Reflector()

	for i, backoff := range []time.Duration{
		800 * time.Millisecond, 1600 * time.Millisecond, 3200 * time.Millisecond, 6400 * time.Millisecond,
		12800 * time.Millisecond, 25600 * time.Millisecond, 30 * time.Second, 30 * time.Second,
	} {
		require.True(t, r.Step(ctx), "list %d is tried", i+1)
		require.Equal(t, i+1, r.Stats().Lists)
		wake, ok := r.NextWake()
		require.True(t, ok, "backing off after failure %d", i+1)
		assert.Equal(t, backoff, wake.Sub(e.clk.Now()), "backoff after failure %d", i+1)
		e.clk.Step(backoff - time.Millisecond)
		assert.False(t, r.Step(ctx), "nothing a millisecond before backoff %d ends", i+1)
		e.clk.Step(time.Millisecond)
	}
	require.True(t, r.Step(ctx))
	assert.Equal(t, 9, r.Stats().Lists, "the ninth list succeeds")
	_, backingOff := r.NextWake()
	assert.False(t, backingOff)
	e.pump()
	assert.True(t, e.inf.HasSynced())
}

func TestReflectorBackoffResetsAfterTwoQuietMinutes(t *testing.T) {
	tests := []struct {
		name  string
		quiet time.Duration // after recovering from the first failure
		want  time.Duration // the backoff after the second
	}{
		{"a failure within two minutes of the last doubles the backoff", time.Minute, 1600 * time.Millisecond},
		{"a failure after two minutes without one starts over", 2*time.Minute + time.Second, 800 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, apiserver.Config{})
			e.createPod("default", "a", nil)
			r := e.inf.Reflector()
			e.lw.FailLists(1, errDown)
			require.True(t, r.Step(ctx))
			e.clk.Step(800 * time.Millisecond)
			e.pump()
			require.True(t, e.inf.HasSynced())
			require.Equal(t, 2, r.Stats().Lists)

			e.clk.Step(tt.quiet)
			e.lw.CloseWatch()
			e.lw.FailWatches(1, errDown)
			require.True(t, r.Step(ctx), "the watch closes")
			require.True(t, r.Step(ctx), "re-watching fails")

			wake, ok := r.NextWake()
			require.True(t, ok)
			assert.Equal(t, tt.want, wake.Sub(e.clk.Now()))
			e.clk.Step(tt.want)
			require.True(t, r.Step(ctx))
			assert.Equal(t, 3, r.Stats().Lists, "a failed watch leads to a relist")
		})
	}
}

func TestReflectorDeliversDeletesMissedWhileNotWatchingAsTombstones(t *testing.T) {
	e := newEnv(t, apiserver.Config{})
	a := e.createPod("default", "a", nil)
	b := e.createPod("default", "b", nil)
	c := e.createPod("default", "c", nil)
	h := &recorder{}
	reg := e.inf.AddEventHandler(h, 0)
	e.pump(reg)
	h.Take()
	cachedB, _ := e.inf.Indexer().Get("default/b")
	cachedC, _ := e.inf.Indexer().Get("default/c")
	r := e.inf.Reflector()

	// The watch ends and cannot be reopened: the reflector will relist.
	e.lw.CloseWatch()
	e.lw.FailWatches(1, errDown)
	require.True(t, r.Step(ctx))
	require.True(t, r.Step(ctx))
	b2 := e.updatePod(b, "v", "2") // never seen: the tombstone has the older b
	e.deletePod(b2)
	e.deletePod(c)

	e.clk.Step(800 * time.Millisecond)
	e.pump(reg)
	assert.Equal(t, lines(updated(a, a), lost(b), lost(c)), h.Take())
	require.Len(t, h.tombstones, 2)
	assert.Equal(t, "default/b", h.tombstones[0].Key)
	assert.Same(t, cachedB, h.tombstones[0].Obj, "the last known state of b")
	assert.Equal(t, "default/c", h.tombstones[1].Key)
	assert.Same(t, cachedC, h.tombstones[1].Obj)
	assert.Equal(t, []string{"default/a"}, e.inf.Indexer().ListKeys())
	assert.Equal(t, 2, r.Stats().Lists)
}

// TestReflectorLosesNoDeleteBetweenListAndWatch: writes between the list and
// the start of the watch, a delete among them, arrive as watch events. The
// deletion is a real one, not a tombstone, and needs no relist
// (kubernetes/kubernetes#141528).
func TestReflectorLosesNoDeleteBetweenListAndWatch(t *testing.T) {
	e := newEnv(t, apiserver.Config{})
	a := e.createPod("default", "a", nil)
	b := e.createPod("default", "b", nil)
	var bGone string
	var a2, c *api.Pod
	e.lw.AfterList(func() {
		e.lw.AfterList(nil)
		bGone = e.deletePod(b)
		c = e.createPod("default", "c", nil)
		a2 = e.updatePod(a, "v", "2")
	})
	h := &recorder{}
	reg := e.inf.AddEventHandler(h, 0)
	e.pump(reg)

	assert.Equal(t, lines(
		added(a, true), updated(a, a2),
		added(b, true), deleted(b, bGone),
		added(c, false),
	), h.Take())
	assert.Empty(t, h.tombstones)
	assert.Equal(t, []string{"default/a", "default/c"}, e.inf.Indexer().ListKeys())
	assert.Equal(t, 1, e.inf.Reflector().Stats().Lists)
}

func TestReflectorBookmarksAdvanceTheResourceVersion(t *testing.T) {
	tests := []struct {
		name     string
		wait     time.Duration
		advances bool
	}{
		{"a bookmark after the interval advances it", time.Minute, true},
		{"no bookmark before the interval", 30 * time.Second, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, apiserver.Config{BookmarkInterval: time.Minute})
			e.createPod("default", "a", nil)
			h := &recorder{}
			reg := e.inf.AddEventHandler(h, 0)
			e.pump(reg)
			h.Take()
			r := e.inf.Reflector()
			synced := r.LastSyncResourceVersion()

			// A write elsewhere: the pod watch progresses with no pod event.
			_, err := client.For[*api.Namespace](e.srv).Create(ctx, &api.Namespace{Metadata: api.ObjectMeta{Name: "elsewhere"}})
			require.NoError(t, err)
			e.clk.Step(tt.wait)
			e.pump(reg)

			want := synced
			if tt.advances {
				want = e.rev()
			}
			assert.Equal(t, want, r.LastSyncResourceVersion())
			assert.Empty(t, h.Take(), "a bookmark is no notification")
			assert.Equal(t, []string{"default/a"}, e.inf.Indexer().ListKeys())

			e.lw.CloseWatch()
			e.pump(reg)
			assert.Equal(t, want, e.lw.Watches()[1].ResourceVersion, "a re-watch starts from there")
			assert.Equal(t, 1, r.Stats().Lists)
		})
	}
}

// TestReflectorPendingSaysWhenStepHasWork: Pending is true before the first
// list, false once the watch has delivered everything, true again after a
// write, and false while a failed reflector backs off.
func TestReflectorPendingSaysWhenStepHasWork(t *testing.T) {
	const history = 2
	e := newEnv(t, apiserver.Config{HistoryLimit: history})
	reg := e.inf.AddEventHandler(&recorder{}, 0)
	r := e.inf.Reflector()
	assert.Equal(t, []*informer.Registration{reg}, e.inf.Registrations())

	assert.True(t, r.Pending(), "the first list is due")
	e.pump(reg)
	assert.False(t, r.Pending(), "everything delivered")
	assert.False(t, r.Step(ctx), "and Step agrees")

	a := e.createPod("default", "a", nil)
	assert.True(t, r.Pending(), "a write wakes the watch")
	e.pump(reg)
	assert.False(t, r.Pending())

	for i := range 2 * history {
		a = e.updatePod(a, "v", strconv.Itoa(i))
	}
	require.NoError(t, e.srv.Compact(e.srv.Store().Rev()))
	require.True(t, r.Step(ctx), "the watch ends with 410")
	assert.False(t, r.Pending(), "backing off")
	e.clk.Step(800 * time.Millisecond)
	assert.True(t, r.Pending(), "the relist is due")
}

// fullSink is a reflector's sink that counts adds and, once it has fullAt,
// reports itself Full until the test opens room: it records how many adds
// it had when a caller was told to wait (closing waiting).
type fullSink struct {
	mu       sync.Mutex
	adds     int
	fullAt   int
	atWait   int
	told     bool
	waiting  chan struct{}
	room     chan struct{}
	roomOpen bool
}

func (s *fullSink) Add(api.Object)       { s.mu.Lock(); s.adds++; s.mu.Unlock() }
func (s *fullSink) Update(api.Object)    { panic("unexpected update") }
func (s *fullSink) Delete(api.Object)    { panic("unexpected delete") }
func (s *fullSink) Replace([]api.Object) {}

func (s *fullSink) Full() (<-chan struct{}, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.roomOpen || s.adds < s.fullAt {
		return nil, false
	}
	if !s.told {
		s.told, s.atWait = true, s.adds
		close(s.waiting)
	}
	return s.room, true
}

func (s *fullSink) count() int { s.mu.Lock(); defer s.mu.Unlock(); return s.adds }

// TestReflectorRunWaitsWhileTheSinkIsFull: Run does not step while its sink
// reports itself Full — the events wait in the watch — and carries on,
// losing nothing, once the sink has room.
func TestReflectorRunWaitsWhileTheSinkIsFull(t *testing.T) {
	const n = 1000
	e := newEnv(t, apiserver.Config{})
	before := e.rev()
	for i := range n {
		e.createPod("default", fmt.Sprintf("p%04d", i), nil)
	}
	// List nothing, at the revision before the creates: the watch replays
	// all n of them, up to 256 per step.
	lw := replayLW{ListerWatcher: e.lw, rv: before}
	sink := &fullSink{fullAt: 300, waiting: make(chan struct{}), room: make(chan struct{})}
	r := informer.NewReflector(lw, sink, e.clk, testenv.Logger(t))
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	go func() { defer close(done); r.Run(runCtx) }()

	waitClosed(t, sink.waiting, "the reflector is told to wait")
	atWait := sink.atWait
	assert.GreaterOrEqual(t, atWait, 300)
	assert.Less(t, atWait, n, "events are left in the watch")
	// Run checks Full before every step, so nothing more arrives until
	// the room channel closes.
	assert.Equal(t, atWait, sink.count())
	assert.Equal(t, informer.ReflectorStats{Lists: 1, Watches: 1}, r.Stats(), "Stats of a running reflector")

	sink.mu.Lock()
	sink.roomOpen = true
	close(sink.room)
	sink.mu.Unlock()
	require.Eventually(t, func() bool { return sink.count() == n }, eventually, tick)
	cancel()
	<-done
	assert.Equal(t, n, sink.count(), "every event once")
}

// replayLW lists nothing at rv, so that its watch replays everything after.
type replayLW struct {
	informer.ListerWatcher
	rv string
}

func (l replayLW) List(context.Context, client.ListOptions) (*client.List, error) {
	return &client.List{Metadata: api.ListMeta{ResourceVersion: l.rv}}, nil
}
