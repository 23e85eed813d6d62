package store_test

// Concurrency tests, meant for go test -race: writers, live watchers and a
// paging lister run at once; afterwards every watcher must have received
// exactly the history the writers' own results imply. Nothing waits on time:
// goroutines hand over through channels and WaitGroups, and live watchers
// wait on Ready and Done as a real informer would.

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/internal/storetest"
	"github.com/miniplane/miniplane/store"
)

// concWrite is one successful write as its writer saw it.
type concWrite struct {
	typ store.EventType
	key string
	// rec is the record the write returned: the new one for a create or an
	// update, the removed one for a delete.
	rec store.Record[string]
	// prevModRev is, for an update, the ModRev it replaced (the expected
	// revision it succeeded with).
	prevModRev int64
}

// concWriter writes random creates, conditional updates (retried on
// conflict) and deletes on its own keys and on keys all writers share, and
// logs every write that succeeded.
type concWriter struct {
	id        int
	s         *store.Store[string]
	rng       *rand.Rand
	log       []concWrite
	conflicts int
}

func (cw *concWriter) ownKey(i int) string { return fmt.Sprintf("/registry/pods/w%d/k%d", cw.id, i) }

func concSharedKey(i int) string { return fmt.Sprintf("/registry/services/shared/k%d", i) }

// run performs ops writes; it reports failures with assert, which is safe
// from any goroutine, and stops at the first.
func (cw *concWriter) run(t *testing.T, ops int) {
	for op := range ops {
		own := cw.rng.IntN(2) == 0
		key := concSharedKey(cw.rng.IntN(4))
		if own {
			key = cw.ownKey(cw.rng.IntN(5))
		}
		value := fmt.Sprintf("w%d-%d", cw.id, op)
		var ok bool
		switch n := cw.rng.IntN(10); {
		case n < 4:
			ok = cw.create(t, key, value)
		case n < 8:
			ok = cw.update(t, key, value)
		default:
			ok = cw.delete(t, key, n == 8)
		}
		if !ok {
			return
		}
		if own {
			// Nobody else writes this key: a read sees this writer's last
			// write (read-your-writes).
			if !cw.checkOwn(t, key) {
				return
			}
		}
	}
}

func (cw *concWriter) create(t *testing.T, key, value string) bool {
	rec, err := cw.s.Create(key, value)
	if errors.Is(err, store.ErrExists) {
		return true
	}
	if !assert.NoError(t, err, "writer %d: create %s", cw.id, key) {
		return false
	}
	cw.log = append(cw.log, concWrite{typ: store.Created, key: key, rec: rec})
	return assert.Equal(t, store.Record[string]{Key: key, Value: value, CreateRev: rec.ModRev, ModRev: rec.ModRev, Version: 1}, rec,
		"writer %d: created record", cw.id)
}

// update reads the key and updates it expecting the ModRev it read,
// rereading and retrying on conflict, as the API server's GuaranteedUpdate
// does.
func (cw *concWriter) update(t *testing.T, key, value string) bool {
	for {
		cur, err := cw.s.Get(key, 0)
		if errors.Is(err, store.ErrNotFound) {
			return true
		}
		if !assert.NoError(t, err, "writer %d: get %s", cw.id, key) {
			return false
		}
		runtime.Gosched() // widen the read-modify-write window, as a client's would be
		rec, err := cw.s.Update(key, value, cur.ModRev)
		switch {
		case errors.Is(err, store.ErrConflict):
			cw.conflicts++
			continue
		case errors.Is(err, store.ErrNotFound):
			return true // deleted since the read
		case !assert.NoError(t, err, "writer %d: update %s", cw.id, key):
			return false
		}
		cw.log = append(cw.log, concWrite{typ: store.Updated, key: key, rec: rec, prevModRev: cur.ModRev})
		return assert.Equal(t, store.Record[string]{
			Key: key, Value: value, CreateRev: cur.CreateRev, ModRev: rec.ModRev, Version: cur.Version + 1,
		}, rec, "writer %d: updated record", cw.id) &&
			assert.Greater(t, rec.ModRev, cur.ModRev, "writer %d: update went back in revision", cw.id)
	}
}

// delete removes the key, unconditionally or expecting the ModRev it read
// (retried on conflict).
func (cw *concWriter) delete(t *testing.T, key string, conditional bool) bool {
	for {
		var expected int64
		if conditional {
			cur, err := cw.s.Get(key, 0)
			if errors.Is(err, store.ErrNotFound) {
				return true
			}
			if !assert.NoError(t, err, "writer %d: get %s", cw.id, key) {
				return false
			}
			expected = cur.ModRev
			runtime.Gosched()
		}
		rec, err := cw.s.Delete(key, expected)
		switch {
		case errors.Is(err, store.ErrConflict):
			cw.conflicts++
			continue
		case errors.Is(err, store.ErrNotFound):
			return true
		case !assert.NoError(t, err, "writer %d: delete %s", cw.id, key):
			return false
		}
		cw.log = append(cw.log, concWrite{typ: store.Deleted, key: key, rec: rec})
		return expected == 0 || assert.Equal(t, expected, rec.ModRev, "writer %d: deleted record", cw.id)
	}
}

// checkOwn checks that the store holds this writer's last write to key.
func (cw *concWriter) checkOwn(t *testing.T, key string) bool {
	var last *concWrite
	for i := len(cw.log) - 1; i >= 0; i-- {
		if cw.log[i].key == key {
			last = &cw.log[i]
			break
		}
	}
	got, err := cw.s.Get(key, 0)
	if last == nil || last.typ == store.Deleted {
		return assert.ErrorIs(t, err, store.ErrNotFound, "writer %d: own key %s", cw.id, key)
	}
	return assert.NoError(t, err, "writer %d: own key %s", cw.id, key) &&
		assert.Equal(t, last.rec, got, "writer %d: own key %s does not hold the last write", cw.id, key)
}

// concWatch is a live watch loop, as an informer's reflector runs one.
type concWatch struct {
	name   string
	prefix string
	start  int64 // first revision it must deliver
	limit  int   // per Poll
	w      *store.Watcher[string]

	// Written by the loop only, read after it returned.
	events   []store.Event[string]
	progress int64 // last progress of a successful Poll
	err      error // why the loop ended early, if it did
	problems []string
	// livePolls counts the polls that delivered while writers still ran:
	// it shows the loop ran concurrently with them.
	livePolls int
}

// run waits for news on Ready (or Done), polls, and returns once the writers
// are done and it has caught up with the store, or when the watcher ends.
func (cw *concWatch) run(s *store.Store[string], writersDone <-chan struct{}) {
	for {
		select {
		case <-cw.w.Ready():
		case <-cw.w.Done():
		case <-writersDone:
		}
		before := len(cw.events)
		evs, progress, err := cw.w.Poll(cw.events, cw.limit)
		cw.events = evs
		for i := max(before, 1); i < len(evs); i++ {
			if evs[i].Rev <= evs[i-1].Rev {
				// Checked here, not only afterwards: a watcher that
				// repeats events might never catch up.
				cw.problems = append(cw.problems, fmt.Sprintf("event at %d after one at %d", evs[i].Rev, evs[i-1].Rev))
				return
			}
		}
		if err != nil {
			cw.err = err
			return
		}
		if progress < cw.progress {
			cw.problems = append(cw.problems, fmt.Sprintf("progress went back from %d to %d", cw.progress, progress))
		}
		stalled := progress == cw.progress && len(evs) == before
		cw.progress = progress
		if !storetest.IsClosed(writersDone) {
			cw.livePolls++
			continue
		}
		if progress == s.Rev() {
			return
		}
		if stalled {
			// Nothing is written any more, so a Poll that neither delivers
			// nor advances while behind will never catch up.
			cw.problems = append(cw.problems, fmt.Sprintf("stalled at progress %d of %d", progress, s.Rev()))
			return
		}
	}
}

// concPage is one complete paged list the lister read.
type concPage struct {
	prefix  string
	rev     int64
	limit   int
	records []store.Record[string]
}

// concLister pages through lists while the writers run, and keeps a cache in
// the way an informer does: one list, then a watch from the list's revision +
// 1, applied event by event.
type concLister struct {
	s     *store.Store[string]
	rng   *rand.Rand
	lists []concPage
	// cache is the informer-style cache under "/registry/", kept by watch.
	cache    map[string]store.Record[string]
	w        *store.Watcher[string]
	progress int64
	problems []string
}

func (cl *concLister) problemf(format string, args ...any) {
	cl.problems = append(cl.problems, fmt.Sprintf(format, args...))
}

// run keeps the cache with list-then-watch and, on every wake-up of its
// watcher while the writers run, reads one paged list of a random prefix.
func (cl *concLister) run(writersDone <-chan struct{}) {
	// The informer pattern: list, then watch from the list's revision + 1,
	// and never miss or repeat an event.
	list, err := cl.s.List("/registry/", store.ListOptions{})
	if err != nil {
		cl.problemf("list: %v", err)
		return
	}
	cl.cache = make(map[string]store.Record[string])
	for _, r := range list.Records {
		cl.cache[r.Key] = r
	}
	if cl.w, err = cl.s.Watch("/registry/", list.Rev+1); err != nil {
		cl.problemf("watch: %v", err)
		return
	}
	defer cl.w.Stop()
	cl.progress = list.Rev

	prefixes := []string{"", "/registry/", "/registry/pods/", "/registry/services/shared/", "/registry/pods/w1/"}
	for !storetest.IsClosed(writersDone) {
		select {
		case <-cl.w.Ready():
		case <-writersDone:
		}
		if !cl.pollCache() {
			return
		}
		page, ok, err := cl.pagedList(prefixes[cl.rng.IntN(len(prefixes))], 0, 1+cl.rng.IntN(7))
		if err != nil {
			cl.problemf("paged list: %v", err)
		}
		if !ok {
			return
		}
		cl.lists = append(cl.lists, page)
	}
	// Catch up: the writers are done, so one Poll without a limit must
	// reach the store.
	if !cl.pollCache() {
		return
	}
	if rev := cl.s.Rev(); cl.progress != rev {
		cl.problemf("list-watch caught up to %d, not %d", cl.progress, rev)
	}
}

// pagedList reads all of prefix at rev (0: current) in pages of limit (0:
// one page), all at the first page's revision, checking the pages as it
// goes. ok is false after an error from List (returned) or a bad page
// (recorded as a problem).
func (cl *concLister) pagedList(prefix string, rev int64, limit int) (page concPage, ok bool, err error) {
	page = concPage{prefix: prefix, limit: limit}
	opts := store.ListOptions{Rev: rev, Limit: limit}
	for {
		res, err := cl.s.List(prefix, opts)
		if err != nil {
			return page, false, fmt.Errorf("page of %q %+v: %w", prefix, opts, err)
		}
		if opts.Rev != 0 && res.Rev != opts.Rev {
			cl.problemf("page of %q %+v read revision %d", prefix, opts, res.Rev)
		}
		if limit > 0 && (len(res.Records) > limit || (res.More && len(res.Records) < limit)) || limit == 0 && res.More {
			cl.problemf("page of %q %+v: %d records, more=%v", prefix, opts, len(res.Records), res.More)
			return page, false, nil
		}
		last := opts.After
		for _, r := range res.Records {
			if r.Key <= last {
				// Keys must move forward, or paging might never end.
				cl.problemf("page of %q %+v: key %q after %q", prefix, opts, r.Key, last)
				return page, false, nil
			}
			last = r.Key
		}
		page.rev, page.records = res.Rev, append(page.records, res.Records...)
		if !res.More {
			return page, true, nil
		}
		opts.Rev, opts.After = res.Rev, res.Records[len(res.Records)-1].Key
	}
}

// pollCache applies the pending watch events to the cache.
func (cl *concLister) pollCache() bool {
	evs, progress, err := cl.w.Poll(nil, 0)
	if err != nil {
		cl.problemf("list-watch poll: %v", err)
		return false
	}
	for _, ev := range evs {
		if ev.Rev <= cl.progress {
			cl.problemf("event %s@%d at or before the progress %d", ev.Key, ev.Rev, cl.progress)
		}
		if ev.Type == store.Deleted {
			delete(cl.cache, ev.Key)
		} else {
			cl.cache[ev.Key] = ev.Record
		}
	}
	cl.progress = progress
	return true
}

// TestConcurrentWritesWatchesAndLists runs writers, live watchers and a
// paging lister at once. Afterwards the full-history watcher's stream must be
// exactly the writers' logged writes, one per revision, and every other
// watcher, page and cache must agree with it.
func TestConcurrentWritesWatchesAndLists(t *testing.T) {
	const writers = 4
	ops := 1000
	if testing.Short() {
		ops = 250
	}
	s := store.New[string](store.Options{HistoryLimit: 100_000})

	watches := []*concWatch{
		{name: "everything from 1", prefix: "", start: 1},
		{name: "everything from 1, one event per poll", prefix: "", start: 1, limit: 1},
		{name: "pods from now", prefix: "/registry/pods/"},
		{name: "shared services from 1, in threes", prefix: "/registry/services/shared/", start: 1, limit: 3},
		{name: "writer 1's pods from now", prefix: "/registry/pods/w1/"},
		{name: "a key prefix, not a directory", prefix: "/registry/pods/w1/k1"},
		{name: "nothing matches", prefix: "/registry/nodes/"},
		{name: "stopped when writer 0 is done", prefix: "", start: 1, limit: 2},
	}
	stopped := watches[len(watches)-1]
	for _, cw := range watches {
		w, err := s.Watch(cw.prefix, cw.start)
		require.NoError(t, err, cw.name)
		cw.w = w
		if cw.start == 0 {
			cw.start = s.Rev() + 1
		}
	}

	writersDone := make(chan struct{})
	var readers sync.WaitGroup
	for _, cw := range watches {
		readers.Go(func() { cw.run(s, writersDone) })
	}
	lister := &concLister{s: s, rng: rand.New(rand.NewPCG(99, 99))}
	readers.Go(func() { lister.run(writersDone) })

	ws := make([]*concWriter, writers)
	writer0Done := make(chan struct{})
	var wg sync.WaitGroup
	for i := range ws {
		ws[i] = &concWriter{id: i, s: s, rng: rand.New(rand.NewPCG(1, uint64(i)))}
		wg.Go(func() {
			ws[i].run(t, ops)
			if i == 0 {
				close(writer0Done)
			}
		})
	}
	// Stop one watcher from outside its loop while everything runs.
	<-writer0Done
	stopped.w.Stop()
	wg.Wait()
	close(writersDone)
	readers.Wait()
	require.False(t, t.Failed(), "a writer failed")

	final := s.Rev()
	var log []concWrite
	conflicts := 0
	for _, w := range ws {
		log = append(log, w.log...)
		conflicts += w.conflicts
	}
	t.Logf("%d writes, %d conflicts retried, final revision %d, %d paged lists", len(log), conflicts, final, len(lister.lists))
	livePolls := make([]int, len(watches))
	for i, cw := range watches {
		livePolls[i] = cw.livePolls
	}
	t.Logf("polls per watcher while the writers ran: %v", livePolls)
	require.Equal(t, int64(len(log))+1, final, "every successful write adds exactly one revision")

	// The full-history stream, checked against the writers' logs.
	all := watches[0]
	require.NoError(t, all.err)
	require.Empty(t, all.problems)
	require.Equal(t, final, all.progress)
	history := concCheckHistory(t, all.events, log, final)

	for _, cw := range watches[1:] {
		t.Run(cw.name, func(t *testing.T) {
			assert.Empty(t, cw.problems)
			if cw == stopped {
				require.ErrorIs(t, cw.err, store.ErrStopped)
			} else {
				require.NoError(t, cw.err)
				require.Equal(t, final, cw.progress, "caught up with the store")
			}
			// Exactly the history under the prefix from its start through
			// its last progress: nothing missing, repeated or out of order.
			assert.Equal(t, concFilter(history, cw.prefix, cw.start, cw.progress), cw.events)
		})
	}

	t.Run("paged lists", func(t *testing.T) {
		assert.Empty(t, lister.problems)
		require.NotEmpty(t, lister.lists)
		concCheckLists(t, history, lister.lists)
	})
	t.Run("list then watch keeps a cache equal to the store", func(t *testing.T) {
		require.Equal(t, final, lister.progress)
		list, err := s.List("/registry/", store.ListOptions{})
		require.NoError(t, err)
		want := make(map[string]store.Record[string])
		for _, r := range list.Records {
			want[r.Key] = r
		}
		assert.Equal(t, want, lister.cache)
	})
	for _, cw := range watches {
		cw.w.Stop()
	}
	assert.Zero(t, s.Stats().Watchers, "watchers still counted after all were stopped")
}

// concCheckHistory checks the full-history stream events against the
// writers' logs and returns it indexed by revision (history[rev]).
//
// Creates and updates return their revision; a delete returns the record it
// removed, not the revision of the delete, so a Deleted event is matched to a
// logged delete by key and the removed record's ModRev, which is unique.
func concCheckHistory(t *testing.T, events []store.Event[string], log []concWrite, final int64) []store.Event[string] {
	t.Helper()
	require.Len(t, events, int(final-1), "one event per revision 2..%d", final)
	history := make([]store.Event[string], final+1)
	for i, ev := range events {
		require.Equal(t, int64(i+2), ev.Rev, "events are in revision order without gaps")
		history[ev.Rev] = ev
	}

	type deleteKey struct {
		key    string
		modRev int64
	}
	byRev := make(map[int64]concWrite)
	deletes := make(map[deleteKey]concWrite)
	for _, w := range log {
		if w.typ == store.Deleted {
			k := deleteKey{w.key, w.rec.ModRev}
			require.NotContains(t, deletes, k, "the record %s@%d was deleted twice", w.key, w.rec.ModRev)
			deletes[k] = w
			continue
		}
		require.NotContains(t, byRev, w.rec.ModRev, "two writes returned revision %d", w.rec.ModRev)
		byRev[w.rec.ModRev] = w
	}

	last := make(map[string]store.Record[string]) // each key's state as the stream goes
	for _, ev := range events {
		require.Equal(t, last[ev.Key], ev.Prev, "Prev of %s@%d is the key's previous state", ev.Key, ev.Rev)
		if ev.Type == store.Deleted {
			w, ok := deletes[deleteKey{ev.Key, ev.Prev.ModRev}]
			require.True(t, ok, "Deleted %s@%d matches no logged delete", ev.Key, ev.Rev)
			require.Equal(t, w.rec, ev.Prev, "Deleted %s@%d removed another record", ev.Key, ev.Rev)
			require.Zero(t, ev.Record)
			delete(deletes, deleteKey{ev.Key, ev.Prev.ModRev})
			delete(last, ev.Key)
			continue
		}
		w, ok := byRev[ev.Rev]
		require.True(t, ok, "%s %s@%d matches no logged write", ev.Type, ev.Key, ev.Rev)
		require.Equal(t, w.typ, ev.Type, "event type at %d", ev.Rev)
		require.Equal(t, w.key, ev.Key, "key at %d", ev.Rev)
		require.Equal(t, w.rec, ev.Record, "record at %d", ev.Rev)
		if w.typ == store.Updated {
			require.Equal(t, w.prevModRev, ev.Prev.ModRev, "update at %d replaced the revision it expected", ev.Rev)
		}
		delete(byRev, ev.Rev)
		last[ev.Key] = ev.Record
	}
	require.Empty(t, byRev, "logged creates and updates missing from the stream")
	require.Empty(t, deletes, "logged deletes missing from the stream")
	return history
}

// concCheckLists checks each list against the state at its revision,
// replaying history once.
func concCheckLists(t *testing.T, history []store.Event[string], lists []concPage) {
	t.Helper()
	pages := slices.SortedFunc(slices.Values(lists), func(a, b concPage) int { return cmp.Compare(a.rev, b.rev) })
	state := make(map[string]store.Record[string])
	rev := int64(1)
	for _, page := range pages {
		for ; rev < page.rev; rev++ {
			if ev := history[rev+1]; ev.Type == store.Deleted {
				delete(state, ev.Key)
			} else {
				state[ev.Key] = ev.Record
			}
		}
		var want []store.Record[string]
		for _, k := range slices.Sorted(maps.Keys(state)) {
			if strings.HasPrefix(k, page.prefix) {
				want = append(want, state[k])
			}
		}
		assert.Equal(t, want, page.records, "pages of %d of %q at %d", page.limit, page.prefix, page.rev)
	}
}

// concFilter returns the events of history under prefix of revisions
// from..to.
func concFilter(history []store.Event[string], prefix string, from, to int64) []store.Event[string] {
	var out []store.Event[string]
	for rev := max(from, 2); rev <= to && rev < int64(len(history)); rev++ {
		if strings.HasPrefix(history[rev].Key, prefix) {
			out = append(out, history[rev])
		}
	}
	return out
}

// TestUnpolledWatcherEndsTooSlowWithoutBlockingWriters leaves one watcher
// unpolled while concurrent writers overrun a small history window. The
// writers finish (the watcher never held them up), history stays within the
// window, the watcher's Ready says it has news, and its next Poll ends it with
// ErrTooSlow, closing Done.
func TestUnpolledWatcherEndsTooSlowWithoutBlockingWriters(t *testing.T) {
	const (
		limit   = 32
		writers = 4
		ops     = 200
	)
	s := store.New[string](store.Options{HistoryLimit: limit})
	slow, err := s.Watch("", 0)
	require.NoError(t, err)
	start := s.Rev() + 1
	ready := slow.Ready()
	require.False(t, storetest.IsClosed(ready), "nothing written yet")

	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() {
			for op := range ops {
				key := fmt.Sprintf("/registry/pods/w%d/k%d", i, op%7)
				var err error
				switch op % 3 {
				case 0:
					_, err = s.Create(key, "v")
					if errors.Is(err, store.ErrExists) {
						err = nil
					}
				case 1:
					_, err = s.Update(key, "v2", 0)
				default:
					_, err = s.Delete(key, 0)
				}
				if errors.Is(err, store.ErrNotFound) {
					err = nil
				}
				if !assert.NoError(t, err) {
					return
				}
			}
		})
	}
	wg.Wait() // returns only because the unpolled watcher blocks no writer
	require.False(t, t.Failed())

	st := s.Stats()
	require.Greater(t, st.Rev, int64(limit), "the writes overran the window")
	assert.Equal(t, limit, st.History, "history holds the window, no more")
	assert.Equal(t, 1, st.Watchers, "the slow watcher has not been told yet")
	assert.True(t, storetest.IsClosed(ready), "the first write woke the waiter")
	assert.True(t, storetest.IsClosed(slow.Ready()), "Ready says there is news: the end")

	evs, progress, err := slow.Poll(nil, 0)
	assert.Empty(t, evs)
	assert.Equal(t, start-1, progress, "it saw nothing after its start")
	require.ErrorIs(t, err, store.ErrTooSlow)
	require.ErrorIs(t, err, store.ErrCompacted)
	var ce *store.CompactedError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, store.CompactedError{Rev: start, CompactRev: st.CompactRev, Watching: true}, *ce)
	assert.True(t, storetest.IsClosed(slow.Done()), "Done closes when the watcher ends")
	assert.Equal(t, err, slow.Err())
	assert.Zero(t, s.Stats().Watchers)

	// A relist and a new watch from the list's revision work again.
	list, err := s.List("", store.ListOptions{})
	require.NoError(t, err)
	w, err := s.Watch("", list.Rev+1)
	require.NoError(t, err)
	w.Stop()
}

// TestLiveWatchersRaceCompaction runs live watchers against writers that
// overrun a small history window while a compactor compacts behind them. Each
// watcher must either catch up with exactly the history under its prefix, or
// end with ErrTooSlow having delivered exactly the history before the
// revision it names: never a gap, a repeat or a silent stall. Writers only
// create and update, so every event's revision is known from the writers'
// own results.
func TestLiveWatchersRaceCompaction(t *testing.T) {
	const (
		limit   = 64
		writers = 3
	)
	ops := 400
	if testing.Short() {
		ops = 150
	}
	s := store.New[string](store.Options{HistoryLimit: limit})
	watches := []*concWatch{
		{name: "everything", prefix: "", limit: 0},
		{name: "everything, one event per poll", prefix: "", limit: 1},
		{name: "writer 0", prefix: "/registry/pods/w0/", limit: 2},
		{name: "shared", prefix: "/registry/services/", limit: 0},
		{name: "nothing matches", prefix: "/registry/nodes/", limit: 0},
	}
	for _, cw := range watches {
		w, err := s.Watch(cw.prefix, 0)
		require.NoError(t, err)
		cw.w, cw.start = w, s.Rev()+1
	}

	writersDone := make(chan struct{})
	var readers sync.WaitGroup
	for _, cw := range watches {
		readers.Go(func() { cw.run(s, writersDone) })
	}
	compactions := 0
	readers.Go(func() { compactions = concCompactor(t, s, limit/2, writersDone) })
	// A lister reads at the oldest readable revision, or a little behind
	// the head, where compaction strikes: each list is either whole and
	// right, or fails with ErrCompacted.
	lister := &concLister{s: s, rng: rand.New(rand.NewPCG(3, 3))}
	compactedLists := 0
	readers.Go(func() {
		// Bounded, so that it cannot starve the writers on one CPU.
		for i := 0; i < 4*ops && !storetest.IsClosed(writersDone); i++ {
			rev := max(1, s.Stats().CompactRev)
			if lister.rng.IntN(2) == 0 {
				rev = max(1, s.Rev()-lister.rng.Int64N(limit/2))
			}
			page, ok, err := lister.pagedList("", rev, lister.rng.IntN(5))
			switch {
			case errors.Is(err, store.ErrCompacted):
				compactedLists++
				continue
			case err != nil:
				lister.problemf("%v", err)
			}
			if !ok {
				return
			}
			lister.lists = append(lister.lists, page)
		}
	})

	logs := make([][]concWrite, writers)
	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() { logs[i] = concCreateUpdate(t, s, i, ops) })
	}
	wg.Wait()
	close(writersDone)
	readers.Wait()
	require.False(t, t.Failed(), "a writer or the compactor failed")

	// Every event, from the writers' results.
	final := s.Rev()
	byRev := make(map[int64]concWrite)
	for _, log := range logs {
		for _, w := range log {
			require.NotContains(t, byRev, w.rec.ModRev, "two writes returned revision %d", w.rec.ModRev)
			byRev[w.rec.ModRev] = w
		}
	}
	require.Len(t, byRev, int(final-1), "one write per revision 2..%d", final)
	history := make([]store.Event[string], final+1)
	for rev := int64(2); rev <= final; rev++ {
		w := byRev[rev]
		ev := store.Event[string]{Type: w.typ, Key: w.key, Rev: rev, Record: w.rec}
		if w.typ == store.Updated {
			ev.Prev = byRev[w.prevModRev].rec
		}
		history[rev] = ev
	}

	ended := 0
	for _, cw := range watches {
		t.Run(cw.name, func(t *testing.T) {
			assert.Empty(t, cw.problems)
			if cw.err == nil {
				assert.Equal(t, final, cw.progress, "caught up with the store")
				assert.Equal(t, concFilter(history, cw.prefix, cw.start, final), cw.events)
				return
			}
			ended++
			require.ErrorIs(t, cw.err, store.ErrTooSlow)
			var ce *store.CompactedError
			require.ErrorAs(t, cw.err, &ce)
			assert.Less(t, ce.Rev, ce.CompactRev, "ErrTooSlow names a compacted revision")
			assert.Equal(t, concFilter(history, cw.prefix, cw.start, ce.Rev-1), cw.events,
				"everything before revision %d was delivered, and nothing else", ce.Rev)
			assert.True(t, storetest.IsClosed(cw.w.Done()))
		})
	}
	t.Run("lists", func(t *testing.T) {
		assert.Empty(t, lister.problems)
		concCheckLists(t, history, lister.lists)
	})
	t.Logf("%d revisions, %d explicit compactions, %d of %d watchers ended too slow, %d lists read and %d compacted under them",
		final, compactions, ended, len(watches), len(lister.lists), compactedLists)
	for _, cw := range watches {
		cw.w.Stop()
	}
	assert.Zero(t, s.Stats().Watchers)
}

// concCreateUpdate creates and conditionally updates writer id's own keys and
// the shared ones, retrying conflicts, and returns its successful writes.
func concCreateUpdate(t *testing.T, s *store.Store[string], id, ops int) []concWrite {
	rng := rand.New(rand.NewPCG(2, uint64(id)))
	var log []concWrite
	for op := range ops {
		key := fmt.Sprintf("/registry/pods/w%d/k%d", id, rng.IntN(5))
		if rng.IntN(3) == 0 {
			key = concSharedKey(rng.IntN(3))
		}
		value := fmt.Sprintf("w%d-%d", id, op)
		for {
			cur, err := s.Get(key, 0)
			if errors.Is(err, store.ErrNotFound) {
				rec, err := s.Create(key, value)
				if errors.Is(err, store.ErrExists) {
					continue // created meanwhile: update it instead
				}
				if !assert.NoError(t, err) {
					return log
				}
				log = append(log, concWrite{typ: store.Created, key: key, rec: rec})
				break
			}
			if !assert.NoError(t, err) {
				return log
			}
			runtime.Gosched()
			rec, err := s.Update(key, value, cur.ModRev)
			if errors.Is(err, store.ErrConflict) {
				continue
			}
			if !assert.NoError(t, err) {
				return log
			}
			log = append(log, concWrite{typ: store.Updated, key: key, rec: rec, prevModRev: cur.ModRev})
			break
		}
	}
	return log
}

// concCompactor wakes on every write (through a watcher of its own, as a live
// loop would) and compacts to keep revisions behind the head, until the
// writers are done. It returns how many compactions succeeded.
func concCompactor(t *testing.T, s *store.Store[string], keep int64, writersDone <-chan struct{}) int {
	w, err := s.Watch("", 0)
	if !assert.NoError(t, err) {
		return 0
	}
	defer func() { w.Stop() }()
	compactions := 0
	for !storetest.IsClosed(writersDone) {
		select {
		case <-w.Ready():
		case <-writersDone:
			return compactions
		}
		if _, _, err := w.Poll(nil, 0); err != nil {
			// It fell behind its own compactions: watch again from now.
			if w, err = s.Watch("", 0); !assert.NoError(t, err) {
				return compactions
			}
			continue
		}
		err := s.Compact(s.Rev() - keep)
		switch {
		case err == nil:
			compactions++
		case errors.Is(err, store.ErrCompacted), errors.Is(err, store.ErrFutureRev):
			// Auto-compaction or another write got there first.
		default:
			assert.NoError(t, err)
			return compactions
		}
	}
	return compactions
}
