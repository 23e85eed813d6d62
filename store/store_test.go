package store_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/internal/storetest"
	"github.com/miniplane/miniplane/store"
)

// newStore returns a store holding, at revisions 2..4, a=a1, b=b1, then a=a2.
func newStore(t *testing.T, opts store.Options) *store.Store[string] {
	t.Helper()
	s := store.New[string](opts)
	_, err := s.Create("a", "a1")
	require.NoError(t, err)
	_, err = s.Create("b", "b1")
	require.NoError(t, err)
	_, err = s.Update("a", "a2", 2)
	require.NoError(t, err)
	require.Equal(t, int64(4), s.Rev())
	return s
}

func TestNewStoreIsEmptyAtRevisionOne(t *testing.T) {
	s := store.New[string](store.Options{})
	assert.Equal(t, int64(1), s.Rev())
	assert.Equal(t, store.Stats{Rev: 1}, s.Stats())
	res, err := s.List("", store.ListOptions{})
	require.NoError(t, err)
	assert.Empty(t, res.Records)
	assert.Equal(t, int64(1), res.Rev)
}

// TestWrites checks each write's result, error and effect on the revision:
// a successful write adds exactly one, a failed one nothing.
func TestWrites(t *testing.T) {
	tests := []struct {
		name    string
		write   func(s *store.Store[string]) (store.Record[string], error)
		want    store.Record[string]
		wantErr error
		wantRev int64
	}{
		{
			name:    "create new key",
			write:   func(s *store.Store[string]) (store.Record[string], error) { return s.Create("c", "c1") },
			want:    store.Record[string]{Key: "c", Value: "c1", CreateRev: 5, ModRev: 5, Version: 1},
			wantRev: 5,
		},
		{
			name:    "create existing key",
			write:   func(s *store.Store[string]) (store.Record[string], error) { return s.Create("a", "x") },
			wantErr: store.ErrExists,
			wantRev: 4,
		},
		{
			name:    "update unconditionally",
			write:   func(s *store.Store[string]) (store.Record[string], error) { return s.Update("a", "a3", 0) },
			want:    store.Record[string]{Key: "a", Value: "a3", CreateRev: 2, ModRev: 5, Version: 3},
			wantRev: 5,
		},
		{
			name:    "update at the current revision",
			write:   func(s *store.Store[string]) (store.Record[string], error) { return s.Update("b", "b2", 3) },
			want:    store.Record[string]{Key: "b", Value: "b2", CreateRev: 3, ModRev: 5, Version: 2},
			wantRev: 5,
		},
		{
			name:    "update at a stale revision",
			write:   func(s *store.Store[string]) (store.Record[string], error) { return s.Update("a", "x", 2) },
			wantErr: store.ErrConflict,
			wantRev: 4,
		},
		{
			name:    "update missing key",
			write:   func(s *store.Store[string]) (store.Record[string], error) { return s.Update("zz", "x", 0) },
			wantErr: store.ErrNotFound,
			wantRev: 4,
		},
		{
			name:    "delete returns the last state",
			write:   func(s *store.Store[string]) (store.Record[string], error) { return s.Delete("a", 4) },
			want:    store.Record[string]{Key: "a", Value: "a2", CreateRev: 2, ModRev: 4, Version: 2},
			wantRev: 5,
		},
		{
			name:    "delete at a stale revision",
			write:   func(s *store.Store[string]) (store.Record[string], error) { return s.Delete("a", 2) },
			wantErr: store.ErrConflict,
			wantRev: 4,
		},
		{
			name:    "delete missing key does not advance the revision",
			write:   func(s *store.Store[string]) (store.Record[string], error) { return s.Delete("zz", 0) },
			wantErr: store.ErrNotFound,
			wantRev: 4,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t, store.Options{})
			before, err := s.List("", store.ListOptions{})
			require.NoError(t, err)

			got, err := tt.write(s)
			assert.Equal(t, tt.wantRev, s.Rev())
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				after, err := s.List("", store.ListOptions{})
				require.NoError(t, err)
				assert.Equal(t, before.Records, after.Records, "a failed write changes nothing")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestConflictErrorSaysWhatWasExpected(t *testing.T) {
	s := newStore(t, store.Options{})
	_, err := s.Update("a", "x", 2)
	var ce *store.ConflictError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, &store.ConflictError{Key: "a", Expected: 2, Actual: 4}, ce)
	assert.Contains(t, err.Error(), `"a": expected revision 2, current is 4`)
}

// TestRecreateResetsCreateRevAndVersion follows etcd's worked example: a key
// deleted and created again is a new incarnation.
func TestRecreateResetsCreateRevAndVersion(t *testing.T) {
	s := newStore(t, store.Options{})
	_, err := s.Delete("a", 0)
	require.NoError(t, err)
	got, err := s.Create("a", "again")
	require.NoError(t, err)
	assert.Equal(t, store.Record[string]{Key: "a", Value: "again", CreateRev: 6, ModRev: 6, Version: 1}, got)
}

func TestGet(t *testing.T) {
	s := newStore(t, store.Options{HistoryLimit: 4})
	_, err := s.Delete("b", 0) // rev 5
	require.NoError(t, err)
	_, err = s.Create("c", "c1") // rev 6; history now holds revisions 3..6
	require.NoError(t, err)

	tests := []struct {
		name    string
		key     string
		rev     int64
		want    store.Record[string]
		wantErr error
	}{
		{name: "current", key: "a", want: store.Record[string]{Key: "a", Value: "a2", CreateRev: 2, ModRev: 4, Version: 2}},
		{name: "past revision before an update", key: "a", rev: 3, want: store.Record[string]{Key: "a", Value: "a1", CreateRev: 2, ModRev: 2, Version: 1}},
		{name: "past revision before a delete", key: "b", rev: 4, want: store.Record[string]{Key: "b", Value: "b1", CreateRev: 3, ModRev: 3, Version: 1}},
		{name: "deleted key now", key: "b", wantErr: store.ErrNotFound},
		{name: "past revision before the key existed", key: "c", rev: 5, wantErr: store.ErrNotFound},
		{name: "the current revision given explicitly", key: "c", rev: 6, want: store.Record[string]{Key: "c", Value: "c1", CreateRev: 6, ModRev: 6, Version: 1}},
		{name: "the oldest revision in the window", key: "b", rev: 3, want: store.Record[string]{Key: "b", Value: "b1", CreateRev: 3, ModRev: 3, Version: 1}},
		{name: "compacted revision", key: "a", rev: 2, wantErr: store.ErrCompacted},
		{name: "future revision", key: "a", rev: 7, wantErr: store.ErrFutureRev},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Get(tt.key, tt.rev)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func keysOf(recs []store.Record[string]) []string {
	keys := make([]string, 0, len(recs))
	for _, r := range recs {
		keys = append(keys, r.Key+"="+r.Value)
	}
	return keys
}

func TestList(t *testing.T) {
	s := store.New[string](store.Options{})
	for _, k := range []string{"/pods/a", "/pods/b", "/pods/c", "/pods/d", "/rcs/a"} {
		_, err := s.Create(k, "1")
		require.NoError(t, err)
	}
	// rev 6: all five exist at version 1.
	_, err := s.Update("/pods/b", "2", 0) // 7
	require.NoError(t, err)
	_, err = s.Delete("/pods/c", 0) // 8
	require.NoError(t, err)
	_, err = s.Create("/pods/bb", "1") // 9
	require.NoError(t, err)
	_, err = s.Delete("/pods/a", 0) // 10
	require.NoError(t, err)

	tests := []struct {
		name     string
		prefix   string
		opts     store.ListOptions
		want     []string
		wantMore bool
		wantRev  int64
		wantErr  error
	}{
		{name: "current, one prefix", prefix: "/pods/", want: []string{"/pods/b=2", "/pods/bb=1", "/pods/d=1"}, wantRev: 10},
		{name: "everything", want: []string{"/pods/b=2", "/pods/bb=1", "/pods/d=1", "/rcs/a=1"}, wantRev: 10},
		{name: "past revision restores updated, deleted and not-yet-created keys", prefix: "/pods/", opts: store.ListOptions{Rev: 6}, want: []string{"/pods/a=1", "/pods/b=1", "/pods/c=1", "/pods/d=1"}, wantRev: 6},
		{name: "past revision in the middle", prefix: "/pods/", opts: store.ListOptions{Rev: 8}, want: []string{"/pods/a=1", "/pods/b=2", "/pods/d=1"}, wantRev: 8},
		{name: "limit", prefix: "/pods/", opts: store.ListOptions{Limit: 2}, want: []string{"/pods/b=2", "/pods/bb=1"}, wantMore: true, wantRev: 10},
		{name: "limit equal to the count", prefix: "/pods/", opts: store.ListOptions{Limit: 3}, want: []string{"/pods/b=2", "/pods/bb=1", "/pods/d=1"}, wantRev: 10},
		{name: "continue after a key at a past revision", prefix: "/pods/", opts: store.ListOptions{Rev: 6, After: "/pods/b", Limit: 1}, want: []string{"/pods/c=1"}, wantMore: true, wantRev: 6},
		{name: "continue after the last key", prefix: "/pods/", opts: store.ListOptions{After: "/pods/d"}, want: nil, wantRev: 10},
		{name: "empty prefix range", prefix: "/nodes/", want: nil, wantRev: 10},
		{name: "future revision", opts: store.ListOptions{Rev: 11}, wantErr: store.ErrFutureRev},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := s.List(tt.prefix, tt.opts)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			if tt.want == nil {
				assert.Empty(t, res.Records)
			} else {
				assert.Equal(t, tt.want, keysOf(res.Records))
			}
			assert.Equal(t, tt.wantMore, res.More)
			assert.Equal(t, tt.wantRev, res.Rev)
		})
	}
}

// TestPagedListReadsOneRevision pages through a list while writes land
// between the pages; every page must read the first page's revision.
func TestPagedListReadsOneRevision(t *testing.T) {
	s := store.New[string](store.Options{})
	for i := range 10 {
		_, err := s.Create(fmt.Sprintf("k%02d", i), "v1")
		require.NoError(t, err)
	}
	full, err := s.List("", store.ListOptions{})
	require.NoError(t, err)

	var got []store.Record[string]
	opts := store.ListOptions{Limit: 3}
	for page := 0; ; page++ {
		res, err := s.List("", opts)
		require.NoError(t, err)
		got = append(got, res.Records...)
		if !res.More {
			break
		}
		// Writes between pages: change, delete and add keys on both sides
		// of the page boundary.
		_, err = s.Update(fmt.Sprintf("k%02d", page), "changed", 0)
		require.NoError(t, err)
		_, err = s.Delete(fmt.Sprintf("k%02d", 9-page), 0)
		require.NoError(t, err)
		_, err = s.Create(fmt.Sprintf("k%02d-new", page+4), "new")
		require.NoError(t, err)
		opts = store.ListOptions{Rev: res.Rev, Limit: 3, After: res.Records[len(res.Records)-1].Key}
	}
	assert.Equal(t, full.Records, got)
}

func TestCompact(t *testing.T) {
	tests := []struct {
		name    string
		rev     int64
		wantErr error
	}{
		{name: "to a past revision", rev: 3},
		{name: "to the current revision", rev: 4},
		{name: "to a future revision", rev: 5, wantErr: store.ErrFutureRev},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t, store.Options{})
			err := s.Compact(tt.rev)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				assert.Zero(t, s.Stats().CompactRev)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.rev, s.Stats().CompactRev)

			_, err = s.List("", store.ListOptions{Rev: tt.rev})
			assert.NoError(t, err, "the compaction revision itself stays readable")
			_, err = s.List("", store.ListOptions{Rev: tt.rev - 1})
			var ce *store.CompactedError
			require.ErrorAs(t, err, &ce, "a revision before it does not")
			assert.Equal(t, &store.CompactedError{Rev: tt.rev - 1, CompactRev: tt.rev}, ce)
			_, err = s.Watch("", tt.rev-1)
			assert.ErrorIs(t, err, store.ErrCompacted)

			err = s.Compact(tt.rev)
			assert.ErrorIs(t, err, store.ErrCompacted, "compacting again at the same revision")
		})
	}
}

func TestHistoryLimitCompactsAutomatically(t *testing.T) {
	s := store.New[string](store.Options{HistoryLimit: 3})
	for i := range 10 {
		_, err := s.Create(fmt.Sprintf("k%d", i), "v")
		require.NoError(t, err)
	}
	st := s.Stats()
	assert.Equal(t, store.Stats{Rev: 11, CompactRev: 9, Keys: 10, History: 3}, st)
	_, err := s.List("", store.ListOptions{Rev: 8})
	assert.ErrorIs(t, err, store.ErrCompacted)
	res, err := s.List("", store.ListOptions{Rev: 9})
	require.NoError(t, err)
	assert.Len(t, res.Records, 8)
}

// poll drains w and returns its events as "Type key@rev=value" strings.
func poll(t *testing.T, w *store.Watcher[string], limit int) ([]string, int64, error) {
	t.Helper()
	evs, progress, err := w.Poll(nil, limit)
	var out []string
	for _, ev := range evs {
		s := fmt.Sprintf("%s %s@%d", ev.Type, ev.Key, ev.Rev)
		if ev.Type != store.Deleted {
			s += "=" + ev.Record.Value
		}
		if ev.Type != store.Created {
			s += " prev=" + ev.Prev.Value
		}
		out = append(out, s)
	}
	return out, progress, err
}

func TestWatch(t *testing.T) {
	tests := []struct {
		name         string
		prefix       string
		from         int64
		limit        int
		want         []string
		wantProgress int64
		wantErr      error
	}{
		{name: "from now sees only later writes", from: 0, want: []string{"Updated b@5=b2 prev=b1", "Deleted a@6 prev=a2", "Created c@7=c1"}, wantProgress: 7},
		{name: "from a past revision replays history", from: 3, want: []string{"Created b@3=b1", "Updated a@4=a2 prev=a1", "Updated b@5=b2 prev=b1", "Deleted a@6 prev=a2", "Created c@7=c1"}, wantProgress: 7},
		{name: "from revision 1 replays everything", from: 1, want: []string{"Created a@2=a1", "Created b@3=b1", "Updated a@4=a2 prev=a1", "Updated b@5=b2 prev=b1", "Deleted a@6 prev=a2", "Created c@7=c1"}, wantProgress: 7},
		{name: "prefix filters", prefix: "a", from: 1, want: []string{"Created a@2=a1", "Updated a@4=a2 prev=a1", "Deleted a@6 prev=a2"}, wantProgress: 7},
		{name: "limit stops early with matching progress", from: 1, limit: 2, want: []string{"Created a@2=a1", "Created b@3=b1"}, wantProgress: 3},
		{name: "future revision waits for it", from: 7, want: []string{"Created c@7=c1"}, wantProgress: 7},
		{name: "far future revision delivers nothing yet", from: 100, want: nil, wantProgress: 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t, store.Options{})
			w, err := s.Watch(tt.prefix, tt.from)
			require.NoError(t, err)
			defer w.Stop()
			_, err = s.Update("b", "b2", 0) // 5
			require.NoError(t, err)
			_, err = s.Delete("a", 0) // 6
			require.NoError(t, err)
			_, err = s.Create("c", "c1") // 7
			require.NoError(t, err)

			got, progress, err := poll(t, w, tt.limit)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.wantProgress, progress)
		})
	}
}

// TestWatchResumesWhereItLeftOff polls in small steps and checks that the
// steps add up to the whole history, each event once.
func TestWatchResumesWhereItLeftOff(t *testing.T) {
	s := store.New[string](store.Options{})
	w, err := s.Watch("", 1)
	require.NoError(t, err)
	var all []string
	for i := range 7 {
		_, err := s.Create(fmt.Sprintf("k%d", i), "v")
		require.NoError(t, err)
		if i%3 == 0 {
			got, _, err := poll(t, w, 2)
			require.NoError(t, err)
			all = append(all, got...)
		}
	}
	got, progress, err := poll(t, w, 0)
	require.NoError(t, err)
	all = append(all, got...)
	assert.Equal(t, int64(8), progress)
	want := make([]string, 7)
	for i := range want {
		want[i] = fmt.Sprintf("Created k%d@%d=v", i, i+2)
	}
	assert.Equal(t, want, all)

	got, progress, err = poll(t, w, 0)
	require.NoError(t, err)
	assert.Empty(t, got, "nothing is delivered twice")
	assert.Equal(t, int64(8), progress)
}

// TestSlowWatcherEndsTooSlow leaves one watcher unpolled while writes overrun
// the history window: writers are not held up, the watcher ends with
// ErrTooSlow (and ErrCompacted) after delivering everything it could, and a
// watcher that kept up is unaffected.
func TestSlowWatcherEndsTooSlow(t *testing.T) {
	s := store.New[string](store.Options{HistoryLimit: 4})
	slow, err := s.Watch("", 0)
	require.NoError(t, err)
	fast, err := s.Watch("", 0)
	require.NoError(t, err)

	_, err = s.Create("k0", "v")
	require.NoError(t, err)
	got, _, err := poll(t, slow, 0)
	require.NoError(t, err)
	assert.Equal(t, []string{"Created k0@2=v"}, got)

	for i := 1; i < 10; i++ {
		_, err := s.Create(fmt.Sprintf("k%d", i), "v")
		require.NoError(t, err)
		_, _, err = fast.Poll(nil, 0)
		require.NoError(t, err)
	}
	assert.Equal(t, 2, s.Stats().Watchers)

	got, progress, err := poll(t, slow, 0)
	assert.Empty(t, got)
	assert.Equal(t, int64(2), progress, "it saw everything through revision 2")
	require.ErrorIs(t, err, store.ErrTooSlow)
	require.ErrorIs(t, err, store.ErrCompacted)
	var ce *store.CompactedError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, &store.CompactedError{Rev: 3, CompactRev: 8, Watching: true}, ce)
	assert.Equal(t, err, slow.Err())
	select {
	case <-slow.Done():
	default:
		t.Fatal("Done is not closed after the watcher ended")
	}
	_, _, again := slow.Poll(nil, 0)
	assert.Equal(t, err, again, "an ended watcher keeps its error")
	assert.Equal(t, 1, s.Stats().Watchers)
	assert.NoError(t, fast.Err())
}

func TestWatcherStop(t *testing.T) {
	s := newStore(t, store.Options{})
	w, err := s.Watch("", 1)
	require.NoError(t, err)
	w.Stop()
	w.Stop() // twice is fine
	_, _, err = w.Poll(nil, 0)
	assert.ErrorIs(t, err, store.ErrStopped)
	assert.Zero(t, s.Stats().Watchers)
	select {
	case <-w.Ready():
	default:
		t.Fatal("Ready of a stopped watcher must not block")
	}
}

// TestWatcherReady checks the live-loop signal: not ready when caught up,
// ready after a write, after a compaction, and once ended.
func TestWatcherReady(t *testing.T) {
	isReady := func(w *store.Watcher[string]) bool {
		select {
		case <-w.Ready():
			return true
		default:
			return false
		}
	}
	s := newStore(t, store.Options{})
	w, err := s.Watch("b", 0)
	require.NoError(t, err)
	assert.False(t, isReady(w), "caught up")

	ready := w.Ready()
	_, err = s.Update("a", "x", 0) // not under the prefix: no wake-up
	require.NoError(t, err)
	select {
	case <-ready:
		t.Fatal("a write outside the prefix woke a parked watcher")
	default:
	}
	assert.False(t, isReady(w), "the write outside the prefix is skipped, not pending")
	assert.Equal(t, ready, w.Ready(), "a parked watcher keeps its channel")

	_, err = s.Create("b1", "y")
	require.NoError(t, err)
	select {
	case <-ready:
	default:
		t.Fatal("a write under the prefix must close the channel a waiter holds")
	}
	assert.True(t, isReady(w))
	got, progress, err := poll(t, w, 0)
	require.NoError(t, err)
	assert.Equal(t, []string{"Created b1@6=y"}, got)
	assert.Equal(t, s.Rev(), progress)
	assert.False(t, isReady(w), "caught up again after the poll")

	// An idle watcher is not left behind by writes elsewhere: the window
	// moves past them, and its cursor with it.
	small := newStore(t, store.Options{HistoryLimit: 2})
	idle, err := small.Watch("b", 0)
	require.NoError(t, err)
	ready = idle.Ready()
	for i := range 5 {
		_, err := small.Create(fmt.Sprintf("a%d", i), "x")
		require.NoError(t, err)
	}
	assert.False(t, isReady(idle))
	got, progress, err = poll(t, idle, 0)
	require.NoError(t, err, "the compacted writes were none of its business")
	assert.Empty(t, got)
	assert.Equal(t, small.Rev(), progress)
	_, err = small.Create("b2", "z")
	require.NoError(t, err)
	assert.True(t, storetest.IsClosed(ready))
	got, _, err = poll(t, idle, 0)
	require.NoError(t, err)
	assert.Equal(t, []string{"Created b2@10=z"}, got)

	ready = w.Ready()
	require.NoError(t, s.Compact(3))
	select {
	case <-ready:
	default:
		t.Fatal("a compaction must wake waiting watchers")
	}
}

func TestCompactedErrorMessages(t *testing.T) {
	tests := []struct {
		err  error
		want string
		is   []error
		not  []error
	}{
		{
			err:  &store.CompactedError{Rev: 3, CompactRev: 9},
			want: "store: required revision 3 has been compacted, oldest kept is 9",
			is:   []error{store.ErrCompacted},
			not:  []error{store.ErrTooSlow},
		},
		{
			err:  &store.CompactedError{Rev: 3, CompactRev: 9, Watching: true},
			want: "store: watcher fell behind the history window: next revision 3 is compacted, oldest kept is 9",
			is:   []error{store.ErrCompacted, store.ErrTooSlow},
		},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			assert.EqualError(t, tt.err, tt.want)
			for _, target := range tt.is {
				assert.True(t, errors.Is(tt.err, target), "is %v", target)
			}
			for _, target := range tt.not {
				assert.False(t, errors.Is(tt.err, target), "is not %v", target)
			}
		})
	}
}

// TestStampSeesTheRevisionBeforeReaders checks that a stamped store hands each
// created or updated value its revision before the write is visible, and not
// for failed writes or deletes.
func TestStampSeesTheRevisionBeforeReaders(t *testing.T) {
	type obj struct{ rv int64 }
	var stamped []int64
	s := store.NewStamped(store.Options{}, func(o *obj, rev int64) {
		o.rv = rev
		stamped = append(stamped, rev)
	})
	w, err := s.Watch("", 0)
	require.NoError(t, err)

	created, err := s.Create("k", &obj{})
	require.NoError(t, err)
	assert.Equal(t, int64(2), created.Value.rv)
	_, err = s.Create("k", &obj{})
	require.ErrorIs(t, err, store.ErrExists)
	updated, err := s.Update("k", &obj{}, 2)
	require.NoError(t, err)
	assert.Equal(t, int64(3), updated.Value.rv)
	_, err = s.Update("k", &obj{}, 2)
	require.ErrorIs(t, err, store.ErrConflict)
	_, err = s.Delete("k", 0)
	require.NoError(t, err)

	assert.Equal(t, []int64{2, 3}, stamped, "only successful creates and updates are stamped")
	evs, _, err := w.Poll(nil, 0)
	require.NoError(t, err)
	require.Len(t, evs, 3)
	assert.Equal(t, int64(2), evs[0].Record.Value.rv)
	assert.Equal(t, int64(3), evs[1].Record.Value.rv)
	assert.Equal(t, int64(3), evs[2].Prev.Value.rv, "a delete's previous state keeps its last revision")
}

// TestRangeIsASnapshotWhileItsCallbackWrites checks that a Range walks the
// state of the revision it read even when its callback writes the keys it has
// not reached yet: updates (two, so that a store that changed a record in
// place once a key had been rewritten would show it), a delete, a delete and
// re-create, and a create of a new key ahead of the walk.
func TestRangeIsASnapshotWhileItsCallbackWrites(t *testing.T) {
	tests := []struct {
		name  string
		write func(t *testing.T, s *store.Store[string], ahead string)
	}{
		{"update twice", func(t *testing.T, s *store.Store[string], ahead string) {
			_, err := s.Update(ahead, "x", 0)
			require.NoError(t, err)
			_, err = s.Update(ahead, "y", 0)
			require.NoError(t, err)
		}},
		{"delete", func(t *testing.T, s *store.Store[string], ahead string) {
			_, err := s.Delete(ahead, 0)
			require.NoError(t, err)
		}},
		{"delete and create", func(t *testing.T, s *store.Store[string], ahead string) {
			_, err := s.Delete(ahead, 0)
			require.NoError(t, err)
			_, err = s.Create(ahead, "z")
			require.NoError(t, err)
			_, err = s.Create(ahead+"-new", "z")
			require.NoError(t, err)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := store.New[string](store.Options{})
			keys := []string{"k0", "k1", "k2", "k3", "k4"}
			for _, k := range keys {
				_, err := s.Create(k, k+"-v1")
				require.NoError(t, err)
				_, err = s.Update(k, k+"-v2", 0)
				require.NoError(t, err)
			}
			before, err := s.List("", store.ListOptions{})
			require.NoError(t, err)
			var seen []store.Record[string]
			rev, _, err := s.Range("", store.ListOptions{}, func(r store.Record[string]) bool {
				seen = append(seen, r)
				if i := len(seen); i < len(keys) {
					tc.write(t, s, keys[i])
				}
				return true
			})
			require.NoError(t, err)
			assert.Equal(t, before.Rev, rev)
			assert.Equal(t, before.Records, seen, "the walk saw its callback's writes")
			after, err := s.List("", store.ListOptions{Rev: rev})
			require.NoError(t, err)
			assert.Equal(t, before.Records, after.Records, "a list at the same revision after the writes")
		})
	}
}

// TestResetEndsWatchersThatMissedTheGap: Reset, a cache's relist, replaces
// the state with a snapshot at a later revision; a watcher that had not seen
// every revision up to the snapshot's ends with ErrCompacted (410 Expired at
// the API), one waiting for revisions after it goes on, and reads and
// watches before the snapshot's revision are compacted.
func TestResetEndsWatchersThatMissedTheGap(t *testing.T) {
	tests := []struct {
		name    string
		from    int64 // the watcher's start revision; the store is at 4
		wantErr bool
	}{
		{name: "behind", from: 3, wantErr: true},
		{name: "caught up", from: 5, wantErr: true},
		{name: "waiting inside the gap", from: 7, wantErr: true},
		{name: "waiting for the snapshot's revision", from: 10, wantErr: true},
		{name: "waiting for the first revision after it", from: 11},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t, store.Options{})
			w, err := s.Watch("", tt.from)
			require.NoError(t, err)
			if tt.from <= 4 {
				_, _, err := w.Poll(nil, 0)
				require.NoError(t, err)
			}
			ready := w.Ready()

			s.Reset(10, []store.Record[string]{
				{Key: "a", Value: "a3", CreateRev: 2, ModRev: 9, Version: 3},
				{Key: "c", Value: "c1", CreateRev: 8, ModRev: 8, Version: 1},
			})
			_, err = s.Create("d", "d1")
			require.NoError(t, err)
			<-ready

			evs, _, err := w.Poll(nil, 0)
			if tt.wantErr {
				require.ErrorIs(t, err, store.ErrCompacted)
				assert.Empty(t, evs)
			} else {
				require.NoError(t, err)
				require.Len(t, evs, 1)
				assert.Equal(t, int64(11), evs[0].Rev)
			}

			list, err := s.List("", store.ListOptions{Rev: 10})
			require.NoError(t, err)
			var keys []string
			for _, r := range list.Records {
				keys = append(keys, r.Key+"="+r.Value)
			}
			assert.Equal(t, []string{"a=a3", "c=c1"}, keys)
			_, err = s.Get("a", 9)
			assert.ErrorIs(t, err, store.ErrCompacted)
			_, err = s.Watch("", 10)
			assert.ErrorIs(t, err, store.ErrCompacted)
			_, err = s.Watch("", 11)
			assert.NoError(t, err)
		})
	}
}
