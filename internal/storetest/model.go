// Package storetest is the store's randomized model test, run against any
// store.Backend: the in-memory store (store's tests) and the etcd backend
// (the etcdtest module). Test scaffolding: only tests import it.
//
// The randomized model test: thousands of seeded operations run against the
// store and against a plain model of it (a map per revision), and every result
// — records, errors, revisions, pages, watch deliveries — must agree. The
// watch checks are the ones etcd's robustness suite applies to every watch
// (tests/robustness/validate/watch.go): Filter, Ordered, Unique, Atomic,
// Bookmarkable, Reliable, Resumable, and correct event types and previous
// values.
//
// A failure names its seed and operation; rerun one seed with
//
//	go test ./store/ -run 'TestModel/seed=7$'
package storetest

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/store"
)

type (
	modelRec   = store.Record[string]
	modelEvent = store.Event[string]
)

// modelConfig is one randomized run.
type modelConfig struct {
	seed         uint64
	ops          int
	historyLimit int // Options.HistoryLimit; 0 means the store's default
	watchers     int // watchers started at random moments (resumed ones come on top)
}

// modelConfigFor derives a run from its seed, so that a seed alone replays it.
// Seeds cycle through history windows of 50 events, the default (10,000, so
// only explicit compactions), 13 and 400.
func modelConfigFor(seed uint64, short bool) modelConfig {
	cfg := modelConfig{seed: seed, ops: 3000, watchers: 30}
	if short {
		cfg.ops = 1200
	}
	cfg.historyLimit = []int{50, 0, 13, 400}[seed%4]
	return cfg
}

// modelSeeds is how many seeds TestModel runs.
func modelSeeds(short bool) uint64 {
	if short {
		return 4
	}
	return 8
}

// NewBackend returns an empty store with the given history window (0: the
// default) for one run of the model; the run's test ends it.
type NewBackend func(t testing.TB, historyLimit int) store.Backend[string]

// Model runs the model test on seeds 1..seeds (0: the default count, fewer
// with -short) against the stores newStore makes.
func Model(t *testing.T, seeds uint64, newStore NewBackend) {
	var mu sync.Mutex
	seen := make(map[string]int) // what the runs exercised, summed over seeds
	// Cleanup runs after the parallel subtests: by then every seed is done.
	t.Cleanup(func() {
		if t.Failed() {
			return
		}
		t.Logf("cases exercised: %v", seen)
		for _, want := range modelMustSee() {
			assert.Positive(t, seen[want], "no seed exercised %q; seen: %v", want, seen)
		}
	})
	if seeds == 0 {
		seeds = modelSeeds(testing.Short())
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		cfg := modelConfigFor(seed, testing.Short())
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			t.Parallel()
			_, runSeen := runModel(t, cfg, newStore)
			mu.Lock()
			defer mu.Unlock()
			for k, n := range runSeen {
				seen[k] += n
			}
		})
	}
}

// modelMustSee lists the cases TestModel's seeds must exercise between them,
// so that a change of weights cannot quietly hollow the test out.
func modelMustSee() []string {
	return []string{
		"create: ok", "create: ErrExists",
		"update: ok", "update: ErrConflict", "update: ErrNotFound",
		"delete: ok", "delete: ErrConflict", "delete: ErrNotFound",
		"compact: ok", "compact: ErrCompacted", "compact: ErrFutureRev",
		"get: ok", "get: ErrNotFound", "get: ErrCompacted", "get: ErrFutureRev", "get at a past revision",
		"list: ok", "list: ErrCompacted", "list: ErrFutureRev",
		"page: ok", "page: ErrCompacted", "paged list complete across writes",
		"watch: ok", "watch: ErrCompacted", "watch from the future delivered",
		"poll: ok", "poll: limit reached", "poll: ErrTooSlow", "poll: ended watcher", "wake-up checked",
		"stop", "resume: ok", "resume: ErrCompacted",
	}
}

// TestModelReplaysSameSeedIdentically runs one seed twice and compares the
// digests of everything that happened: the operations drawn, their results and
// every watch delivery. A different seed must give a different digest.
// ReplaysSameSeedIdentically checks that the model test is deterministic:
// one seed runs the same twice, two seeds differently.
func ReplaysSameSeedIdentically(t *testing.T, newStore NewBackend) {
	cfg := modelConfigFor(5, true) // determinism needs no long run
	first, _ := runModel(t, cfg, newStore)
	second, _ := runModel(t, cfg, newStore)
	assert.Equal(t, first, second, "seed %d ran differently twice", cfg.seed)

	other := cfg
	other.seed = 6
	third, _ := runModel(t, other, newStore)
	assert.NotEqual(t, first, third, "seeds 5 and 6 ran identically")
}

func runModel(t *testing.T, cfg modelConfig, newStore NewBackend) (digest string, seen map[string]int) {
	limit := cfg.historyLimit
	if limit == 0 {
		limit = store.DefaultHistoryLimit
	}
	r := &modelRun{
		t:        t,
		cfg:      cfg,
		rng:      rand.New(rand.NewPCG(cfg.seed, cfg.seed)),
		s:        newStore(t, cfg.historyLimit),
		m:        newModel(limit),
		keys:     modelKeys(),
		prefixes: modelPrefixes(),
		digest:   sha256.New(),
		seen:     make(map[string]int),
		op:       -1,
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("replay: seed=%d (history limit %d, %d ops) failed at op %d: %s",
				cfg.seed, cfg.historyLimit, cfg.ops, r.op, r.desc)
		}
	})
	r.run()
	return hex.EncodeToString(r.digest.Sum(nil)), r.seen
}

// modelKeys is the key space: 3 resources × 2 namespaces × 10 names. Names
// n1 and n10 share a prefix on purpose.
func modelKeys() []string {
	var keys []string
	for _, res := range []string{"pods", "services", "endpoints"} {
		for _, ns := range []string{"ns-a", "ns-b"} {
			for i := 1; i <= 10; i++ {
				keys = append(keys, fmt.Sprintf("/registry/%s/%s/n%d", res, ns, i))
			}
		}
	}
	return keys
}

// modelPrefixes are the prefixes lists and watches use: everything, a
// resource, a namespace, a prefix that is also a key (n1 matches n1 and n10),
// and one that matches nothing.
func modelPrefixes() []string {
	return []string{
		"", "/registry/", "/registry/pods/", "/registry/pods/ns-a/", "/registry/services/",
		"/registry/endpoints/ns-b/", "/registry/pods/ns-a/n1", "/registry/nodes/",
	}
}

// model is the reference: the state at every revision, and the event of
// every revision, kept forever. It follows etcd's semantics (reference §1).
type model struct {
	limit      int   // history window in events
	rev        int64 // current revision
	compactRev int64 // oldest readable revision; 0 before any compaction
	// states[r] is the state at revision r; states[0] is unused and
	// states[1] is the empty store.
	states []map[string]modelRec
	// events[r] is the write of revision r; events[0] and events[1] are
	// unused.
	events []modelEvent
}

func newModel(limit int) *model {
	return &model{
		limit:  limit,
		rev:    1,
		states: []map[string]modelRec{nil, {}},
		events: make([]modelEvent, 2),
	}
}

func (m *model) current() map[string]modelRec { return m.states[m.rev] }

// stateAt returns the state at rev, current for 0.
func (m *model) stateAt(rev int64) map[string]modelRec {
	if rev == 0 {
		return m.current()
	}
	return m.states[rev]
}

// commit appends ev as the next revision, with key set to rec (deleted if rec
// is nil), and compacts the history down to the window.
func (m *model) commit(ev modelEvent, rec *modelRec) {
	next := maps.Clone(m.current())
	if rec == nil {
		delete(next, ev.Key)
	} else {
		next[ev.Key] = *rec
	}
	m.rev++
	m.states = append(m.states, next)
	m.events = append(m.events, ev)
	if m.historyLen() > m.limit {
		m.compactRev = m.rev - int64(m.limit) + 1
	}
}

// historyLen is how many events the window holds: those of revisions
// max(compactRev, 2) through rev (revision 1 is the empty store, no write).
func (m *model) historyLen() int {
	return int(max(0, m.rev-max(m.compactRev, 2)+1))
}

func (m *model) create(key, value string) (modelRec, error) {
	if _, ok := m.current()[key]; ok {
		return modelRec{}, store.ErrExists
	}
	rev := m.rev + 1
	rec := modelRec{Key: key, Value: value, CreateRev: rev, ModRev: rev, Version: 1}
	m.commit(modelEvent{Type: store.Created, Key: key, Rev: rev, Record: rec}, &rec)
	return rec, nil
}

func (m *model) update(key, value string, expected int64) (modelRec, error) {
	old, ok := m.current()[key]
	if !ok {
		return modelRec{}, store.ErrNotFound
	}
	if expected != 0 && expected != old.ModRev {
		return modelRec{}, &store.ConflictError{Key: key, Expected: expected, Actual: old.ModRev}
	}
	rev := m.rev + 1
	rec := modelRec{Key: key, Value: value, CreateRev: old.CreateRev, ModRev: rev, Version: old.Version + 1}
	m.commit(modelEvent{Type: store.Updated, Key: key, Rev: rev, Record: rec, Prev: old}, &rec)
	return rec, nil
}

func (m *model) delete(key string, expected int64) (modelRec, error) {
	old, ok := m.current()[key]
	if !ok {
		return modelRec{}, store.ErrNotFound
	}
	if expected != 0 && expected != old.ModRev {
		return modelRec{}, &store.ConflictError{Key: key, Expected: expected, Actual: old.ModRev}
	}
	m.commit(modelEvent{Type: store.Deleted, Key: key, Rev: m.rev + 1, Prev: old}, nil)
	return old, nil
}

func (m *model) compact(rev int64) error {
	switch {
	case rev <= m.compactRev:
		return &store.CompactedError{Rev: rev, CompactRev: m.compactRev}
	case rev > m.rev:
		return store.ErrFutureRev
	}
	m.compactRev = rev
	return nil
}

// readable returns the error a read at rev must fail with, or nil.
func (m *model) readable(rev int64) error {
	switch {
	case rev == 0:
		return nil
	case rev > m.rev:
		return store.ErrFutureRev
	case rev < m.compactRev:
		return &store.CompactedError{Rev: rev, CompactRev: m.compactRev}
	}
	return nil
}

// watchable returns the error Watch(_, from) must fail with, or nil.
func (m *model) watchable(from int64) error {
	if from != 0 && from < m.compactRev {
		return &store.CompactedError{Rev: from, CompactRev: m.compactRev}
	}
	return nil
}

// list returns the records of state under prefix whose keys sort after
// after, in key order.
func (m *model) list(state map[string]modelRec, prefix, after string) []modelRec {
	var out []modelRec
	for _, k := range slices.Sorted(maps.Keys(state)) {
		if strings.HasPrefix(k, prefix) && k > after {
			out = append(out, state[k])
		}
	}
	return out
}

// eventsUnder returns the events under prefix of revisions from..to.
func (m *model) eventsUnder(prefix string, from, to int64) []modelEvent {
	var out []modelEvent
	for rev := max(from, 2); rev <= min(to, m.rev); rev++ {
		if ev := m.events[rev]; strings.HasPrefix(ev.Key, prefix) {
			out = append(out, ev)
		}
	}
	return out
}

// modelWatcher is one store watcher and what the test knows of it.
type modelWatcher struct {
	id     int
	w      *store.Watcher[string]
	prefix string
	start  int64 // the first revision it must deliver
	// progress is the last progress a successful Poll returned, 0 before one.
	progress  int64
	delivered []modelEvent
	// err is why the watcher ended, once Stop or a Poll said so; nil while
	// the test believes it live.
	err    error
	future bool // it started from a revision not yet written
	// skip is the last revision written outside the prefix while the
	// watcher was parked on Ready: the store moves its cursor past it.
	skip int64
}

// next is the revision of the next event the watcher owes.
func (mw *modelWatcher) next() int64 { return max(mw.start, mw.progress+1, mw.skip+1) }

// lastRev is the revision of the last event delivered, 0 if none.
func (mw *modelWatcher) lastRev() int64 {
	if len(mw.delivered) == 0 {
		return 0
	}
	return mw.delivered[len(mw.delivered)-1].Rev
}

// modelPaging is a paged list in progress: its pages are read one per
// operation, with writes in between, all at the revision of the first.
type modelPaging struct {
	prefix string
	rev    int64 // 0 until the first page fixes it
	limit  int
	// startRev is the store's revision at the first page: writes after it
	// happened between pages.
	startRev int64
	after    string
	got      []modelRec
	pages    int
}

// modelRun is one seeded run.
type modelRun struct {
	t   *testing.T
	cfg modelConfig
	rng *rand.Rand
	s   store.Backend[string]
	m   *model

	op   int    // index of the operation running
	desc string // what it is, for failure messages

	keys, prefixes []string
	watchers       []*modelWatcher
	resumed        int // watchers started by the resume operation
	pagings        []*modelPaging
	// wakeups are Ready channels of caught-up (parked) watchers, taken
	// while no event was pending: the next write under a watcher's prefix
	// must close its channel, and a write elsewhere must leave it open.
	wakeups []modelWakeup

	digest hash.Hash      // of every operation and its results
	seen   map[string]int // how often each case happened
}

// at is a failure message for testify saying where the failure happened, so
// that it replays. testify formats it only on failure: the checks run far too
// often to format eagerly.
func (r *modelRun) at(format string, args ...any) []any {
	return append([]any{"seed=%d op=%d (%s): " + format, r.cfg.seed, r.op, r.desc}, args...)
}

// logf adds a line to the run's digest.
func (r *modelRun) logf(format string, args ...any) {
	fmt.Fprintf(r.digest, "%d ", r.op)
	fmt.Fprintf(r.digest, format, args...)
	fmt.Fprintln(r.digest)
}

// modelOp is one kind of random operation and how often it is drawn.
type modelOp struct {
	name   string
	weight int
	run    func(r *modelRun) (key string) // the key it touched, if any, for the after-op checks
}

func modelOps() []modelOp {
	return []modelOp{
		{"create", 14, (*modelRun).opCreate},
		{"update", 18, (*modelRun).opUpdate},
		{"delete", 14, (*modelRun).opDelete},
		{"get", 10, (*modelRun).opGet},
		{"list", 4, (*modelRun).opList},
		{"page", 8, (*modelRun).opPage},
		{"poll", 22, (*modelRun).opPoll},
		{"stop", 2, (*modelRun).opStop},
		{"resume", 2, (*modelRun).opResume},
		{"compact", 1, (*modelRun).opCompact},
	}
}

func (r *modelRun) run() {
	ops := modelOps()
	total := 0
	for _, op := range ops {
		total += op.weight
	}
	// Watchers start at random moments, drawn up front.
	starts := make(map[int]bool)
	for len(starts) < r.cfg.watchers {
		starts[r.rng.IntN(r.cfg.ops)] = true
	}
	for r.op = 0; r.op < r.cfg.ops; r.op++ {
		rev := r.m.rev
		var key string
		if starts[r.op] {
			r.desc = "watch"
			r.opWatch()
		} else {
			n := r.rng.IntN(total)
			for _, op := range ops {
				if n < op.weight {
					r.desc = op.name
					key = op.run(r)
					break
				}
				n -= op.weight
			}
		}
		if r.m.rev != rev {
			r.checkWakeups(key)
		}
		r.checkAfterOp(key)
	}
	r.op, r.desc = r.cfg.ops, "final checks"
	r.finish()
}

func (r *modelRun) randKey() string { return r.keys[r.rng.IntN(len(r.keys))] }

func (r *modelRun) randPrefix() string { return r.prefixes[r.rng.IntN(len(r.prefixes))] }

// randExpected draws the expected revision of a conditional write on key:
// 0 (unconditional), the key's ModRev, or a stale or made-up one.
func (r *modelRun) randExpected(key string) (expected int64, kind string) {
	old, ok := r.m.current()[key]
	switch n := r.rng.IntN(6); {
	case n < 2:
		return 0, "unconditional"
	case n < 4 && ok:
		return old.ModRev, "current"
	case ok && old.ModRev > 2 && n == 4:
		return old.ModRev - 1 - r.rng.Int64N(min(old.ModRev-2, 5)), "stale"
	case ok:
		return old.ModRev + 1 + r.rng.Int64N(3), "future"
	default:
		return 1 + r.rng.Int64N(r.m.rev), "on missing key"
	}
}

// randReadRev draws a revision to read at: current (0 or explicit), any
// readable past one, the oldest readable, a compacted one or a future one.
func (r *modelRun) randReadRev() int64 {
	m := r.m
	oldest := max(m.compactRev, 1)
	switch r.rng.IntN(9) {
	case 0, 1:
		return 0
	case 2:
		return m.rev
	case 3, 4, 5:
		return oldest + r.rng.Int64N(m.rev-oldest+1)
	case 6:
		return oldest
	case 7:
		if m.compactRev > 1 {
			return 1 + r.rng.Int64N(m.compactRev-1)
		}
	}
	return m.rev + 1 + r.rng.Int64N(3)
}

// requireErr checks that got is the error the model wants: nil, the same
// sentinel, or an equal *ConflictError or *CompactedError; and that it matches
// no other sentinel. what and args say which call it was.
func (r *modelRun) requireErr(want, got error, what string, args ...any) {
	t := r.t
	op, _, _ := strings.Cut(what, " ")
	r.seen[op+": "+modelErrName(want)]++
	msg := func(detail string, more ...any) []any {
		return r.at(what+": "+detail, append(slices.Clip(args), more...)...)
	}
	if want == nil {
		require.NoError(t, got, msg("unexpected error")...)
		return
	}
	require.Error(t, got, msg("want %v", want)...)
	switch w := want.(type) {
	case *store.ConflictError:
		var ce *store.ConflictError
		require.ErrorAs(t, got, &ce, msg("want a *ConflictError")...)
		require.Equal(t, *w, *ce, msg("conflict details")...)
	case *store.CompactedError:
		var ce *store.CompactedError
		require.ErrorAs(t, got, &ce, msg("want a *CompactedError")...)
		require.Equal(t, *w, *ce, msg("compaction details")...)
	}
	for _, sentinel := range []error{
		store.ErrNotFound, store.ErrExists, store.ErrConflict, store.ErrCompacted,
		store.ErrFutureRev, store.ErrTooSlow, store.ErrStopped,
	} {
		if errors.Is(want, sentinel) != errors.Is(got, sentinel) {
			require.Fail(t, "wrong sentinel", msg("errors.Is(%v, %v) is %v", got, sentinel, !errors.Is(want, sentinel))...)
		}
	}
}

// modelErrName names the sentinel err matches, for the seen counts.
func modelErrName(err error) string {
	for _, s := range []struct {
		err  error
		name string
	}{
		{store.ErrNotFound, "ErrNotFound"}, {store.ErrExists, "ErrExists"}, {store.ErrConflict, "ErrConflict"},
		{store.ErrTooSlow, "ErrTooSlow"}, {store.ErrCompacted, "ErrCompacted"}, {store.ErrFutureRev, "ErrFutureRev"},
		{store.ErrStopped, "ErrStopped"},
	} {
		if errors.Is(err, s.err) {
			return s.name
		}
	}
	if err != nil {
		return "unknown error"
	}
	return "ok"
}

func (r *modelRun) opCreate() string {
	key, value := r.randKey(), fmt.Sprintf("v%d", r.op)
	r.desc = fmt.Sprintf("create %s=%s", key, value)
	wantRec, wantErr := r.m.create(key, value)
	got, err := r.s.Create(key, value)
	r.logf("%s -> %+v %v", r.desc, got, err)
	r.requireErr(wantErr, err, "create")
	if wantErr == nil {
		require.Equal(r.t, wantRec, got, r.at("created record")...)
	}
	return key
}

func (r *modelRun) opUpdate() string {
	key, value := r.randKey(), fmt.Sprintf("v%d", r.op)
	expected, kind := r.randExpected(key)
	r.desc = fmt.Sprintf("update %s=%s expecting %d (%s)", key, value, expected, kind)
	wantRec, wantErr := r.m.update(key, value, expected)
	got, err := r.s.Update(key, value, expected)
	r.logf("%s -> %+v %v", r.desc, got, err)
	r.requireErr(wantErr, err, "update")
	if wantErr == nil {
		require.Equal(r.t, wantRec, got, r.at("updated record")...)
	}
	return key
}

func (r *modelRun) opDelete() string {
	key := r.randKey()
	expected, kind := r.randExpected(key)
	r.desc = fmt.Sprintf("delete %s expecting %d (%s)", key, expected, kind)
	wantRec, wantErr := r.m.delete(key, expected)
	got, err := r.s.Delete(key, expected)
	r.logf("%s -> %+v %v", r.desc, got, err)
	r.requireErr(wantErr, err, "delete")
	if wantErr == nil {
		require.Equal(r.t, wantRec, got, r.at("delete returns the record it removed")...)
	}
	return key
}

func (r *modelRun) opCompact() string {
	m := r.m
	var rev int64
	switch n := r.rng.IntN(4); {
	case n < 2 && m.compactRev < m.rev:
		// Valid: keep at least two thirds of the window most of the time,
		// and now and then compact everything up to now.
		rev = m.compactRev + 1 + r.rng.Int64N(max(1, (m.rev-m.compactRev)/3))
		if r.rng.IntN(5) == 0 {
			rev = m.rev
		}
	case n == 2:
		rev = r.rng.Int64N(m.compactRev + 1) // at or below the compaction revision
	default:
		rev = m.rev + 1 + r.rng.Int64N(3)
	}
	r.desc = fmt.Sprintf("compact %d (compactRev %d, rev %d)", rev, m.compactRev, m.rev)
	wantErr := m.compact(rev)
	err := r.s.Compact(rev)
	r.logf("%s -> %v", r.desc, err)
	r.requireErr(wantErr, err, "compact")
	if wantErr == nil {
		// A compaction wakes every parked watcher.
		for _, wk := range r.wakeups {
			require.True(r.t, IsClosed(wk.ready), r.at("a compaction did not close watcher %d's Ready channel", wk.mw.id)...)
		}
		r.wakeups = r.wakeups[:0]
	}
	return ""
}

func (r *modelRun) opGet() string {
	key, rev := r.randKey(), r.randReadRev()
	r.desc = fmt.Sprintf("get %s at %d", key, rev)
	got, err := r.s.Get(key, rev)
	r.logf("%s -> %+v %v", r.desc, got, err)
	r.requireGet(key, rev, got, err)
	return ""
}

// requireGet checks a Get of key at rev against the model.
func (r *modelRun) requireGet(key string, rev int64, got modelRec, err error) {
	wantErr := r.m.readable(rev)
	if wantErr == nil {
		want, ok := r.m.stateAt(rev)[key]
		if !ok {
			wantErr = store.ErrNotFound
		} else {
			require.NoError(r.t, err, r.at("get %s at %d", key, rev)...)
			require.Equal(r.t, want, got, r.at("get %s at %d", key, rev)...)
			r.seen["get: ok"]++
			if rev != 0 && rev < r.m.rev {
				r.seen["get at a past revision"]++
			}
			return
		}
	}
	r.requireErr(wantErr, err, "get %s at %d", key, rev)
}

// opList lists a random prefix at a random revision; now and then one page
// of it, after a random key or prefix (under the prefix or not).
func (r *modelRun) opList() string {
	prefix, opts := r.randPrefix(), store.ListOptions{Rev: r.randReadRev()}
	if r.rng.IntN(3) == 0 {
		opts.Limit = r.rng.IntN(8)
		afters := []string{"", r.randKey(), r.randPrefix(), r.randKey() + "0", "/registry/pods/ns-b"}
		opts.After = afters[r.rng.IntN(len(afters))]
	}
	r.desc = fmt.Sprintf("list %q %+v", prefix, opts)
	res, err := r.s.List(prefix, opts)
	r.logf("%s -> %+v %v", r.desc, res, err)
	r.requireList(prefix, opts, res, err)
	return ""
}

// requireList checks a List of prefix with opts against the model.
func (r *modelRun) requireList(prefix string, opts store.ListOptions, res store.ListResult[string], err error) {
	wantErr := r.m.readable(opts.Rev)
	r.requireErr(wantErr, err, "list %q %+v", prefix, opts)
	if wantErr != nil {
		return
	}
	want := store.ListResult[string]{Records: r.m.list(r.m.stateAt(opts.Rev), prefix, opts.After), Rev: opts.Rev}
	if opts.Rev == 0 {
		want.Rev = r.m.rev
	}
	if opts.Limit > 0 && len(want.Records) > opts.Limit {
		want.Records, want.More = want.Records[:opts.Limit], true
	}
	require.Equal(r.t, want, res, r.at("list %q %+v", prefix, opts)...)
}

// opPage reads the next page of a paged list in progress, or starts one.
func (r *modelRun) opPage() string {
	if len(r.pagings) < 3 && (len(r.pagings) == 0 || r.rng.IntN(3) == 0) {
		p := &modelPaging{prefix: r.randPrefix(), limit: 1 + r.rng.IntN(7)}
		if r.rng.IntN(3) == 0 {
			oldest := max(r.m.compactRev, 1)
			p.rev = oldest + r.rng.Int64N(r.m.rev-oldest+1)
		}
		r.pagings = append(r.pagings, p)
	}
	i := r.rng.IntN(len(r.pagings))
	p := r.pagings[i]
	opts := store.ListOptions{Rev: p.rev, Limit: p.limit, After: p.after}
	r.desc = fmt.Sprintf("page %d of list %q %+v", p.pages+1, p.prefix, opts)
	res, err := r.s.List(p.prefix, opts)
	r.logf("%s -> %+v %v", r.desc, res, err)
	p.pages++

	wantErr := r.m.readable(p.rev)
	r.requireErr(wantErr, err, "page")
	if wantErr != nil {
		// Compacted between pages: the client must start over.
		r.pagings = slices.Delete(r.pagings, i, i+1)
		return ""
	}
	rev := p.rev
	if rev == 0 {
		rev = r.m.rev
	}
	rest := r.m.list(r.m.stateAt(rev), p.prefix, p.after)
	want := store.ListResult[string]{Records: rest[:min(len(rest), p.limit)], Rev: rev, More: len(rest) > p.limit}
	require.Equal(r.t, want, res, r.at("page")...)
	if p.pages == 1 {
		p.startRev = r.m.rev
	}
	p.rev, p.got = rev, append(p.got, res.Records...)
	if res.More {
		p.after = res.Records[len(res.Records)-1].Key
		return ""
	}
	require.Equal(r.t, r.m.list(r.m.stateAt(rev), p.prefix, ""), p.got,
		r.at("%d pages of limit %d concatenate to the full list at %d", p.pages, p.limit, rev)...)
	if p.pages > 1 && r.m.rev > p.startRev {
		r.seen["paged list complete across writes"]++
	}
	r.pagings = slices.Delete(r.pagings, i, i+1)
	return ""
}

// opWatch starts a watcher on a random prefix from a random revision: now,
// an old one in the window, the oldest kept, a compacted one, the next one or
// one further in the future.
func (r *modelRun) opWatch() {
	m := r.m
	oldest := max(m.compactRev, 1)
	var from int64
	switch r.rng.IntN(7) {
	case 0, 1:
		from = 0
	case 2, 3:
		from = oldest + r.rng.Int64N(m.rev-oldest+1)
	case 4:
		from = oldest
	case 5:
		if m.compactRev > 1 {
			from = 1 + r.rng.Int64N(m.compactRev-1)
			break
		}
		from = m.rev + 1
	default:
		from = m.rev + 1 + r.rng.Int64N(20)
	}
	r.startWatcher(r.randPrefix(), from)
}

// startWatcher starts a watcher on prefix from rev and tracks it, or checks
// that it fails as it must.
func (r *modelRun) startWatcher(prefix string, from int64) *modelWatcher {
	r.desc = fmt.Sprintf("watch %q from %d (compactRev %d, rev %d)", prefix, from, r.m.compactRev, r.m.rev)
	w, err := r.s.Watch(prefix, from)
	r.logf("%s -> %v", r.desc, err)
	wantErr := r.m.watchable(from)
	r.requireErr(wantErr, err, "watch")
	if wantErr != nil {
		require.Nil(r.t, w, r.at("a failed Watch returns no watcher")...)
		return nil
	}
	start := from
	if from == 0 {
		start = r.m.rev + 1
	}
	mw := &modelWatcher{id: len(r.watchers), w: w, prefix: prefix, start: start, future: start > r.m.rev+1}
	r.watchers = append(r.watchers, mw)
	r.desc += fmt.Sprintf(" = watcher %d", mw.id)
	return mw
}

// opPoll polls a random watcher (now and then an ended one) with a random
// limit.
func (r *modelRun) opPoll() string {
	if len(r.watchers) == 0 {
		return ""
	}
	mw := r.watchers[r.rng.IntN(len(r.watchers))]
	if mw.err != nil && r.rng.IntN(4) != 0 {
		if live := r.liveWatchers(); len(live) > 0 {
			mw = live[r.rng.IntN(len(live))]
		}
	}
	limits := []int{0, -1, 1, 1, 2, 3, 5, 8, 100}
	r.poll(mw, limits[r.rng.IntN(len(limits))])
	return ""
}

func (r *modelRun) liveWatchers() []*modelWatcher {
	var live []*modelWatcher
	for _, mw := range r.watchers {
		if mw.err == nil {
			live = append(live, mw)
		}
	}
	return live
}

// poll polls mw once and checks the delivery.
func (r *modelRun) poll(mw *modelWatcher, limit int) {
	t := r.t
	next := mw.next()
	r.desc = fmt.Sprintf("poll watcher %d %q from %d (next %d, limit %d, compactRev %d, rev %d)",
		mw.id, mw.prefix, mw.start, next, limit, r.m.compactRev, r.m.rev)
	r.checkChannels(mw)

	// Poll appends to dst: give it something to keep now and then.
	var dst []modelEvent
	if r.rng.IntN(4) == 0 {
		dst = []modelEvent{{Key: "keep me"}}
	}
	got, progress, err := mw.w.Poll(dst, limit)
	require.GreaterOrEqual(t, len(got), len(dst), r.at("Poll dropped what dst held")...)
	if len(dst) > 0 {
		require.Equal(t, dst, got[:len(dst)], r.at("Poll changed what dst held")...)
	}
	batch := got[len(dst):]
	if len(batch) == 0 {
		batch = nil // compare with the model's nil
	}
	r.logf("%s -> %+v %d %v", r.desc, batch, progress, err)

	if mw.err != nil {
		r.seen["poll: ended watcher"]++
		require.Equal(t, mw.err, err, r.at("an ended watcher keeps its error")...)
		require.Empty(t, batch, r.at("an ended watcher delivers nothing")...)
		require.GreaterOrEqual(t, progress, max(mw.progress, mw.lastRev()),
			r.at("Bookmarkable: an ended watcher's progress went back")...)
		require.LessOrEqual(t, progress, r.m.rev, r.at("Bookmarkable: an ended watcher's progress beyond the store's revision")...)
		return
	}
	if err != nil {
		r.requireTooSlow(mw, batch, progress, err)
		return
	}
	require.GreaterOrEqual(t, next, r.m.compactRev,
		r.at("the watcher's next revision %d was compacted (at %d) but Poll did not end it", next, r.m.compactRev)...)
	if limit > 0 {
		require.LessOrEqual(t, len(batch), limit, r.at("Poll returned more than its limit")...)
	}
	require.GreaterOrEqual(t, progress, mw.progress, r.at("Bookmarkable: progress went back")...)
	require.LessOrEqual(t, progress, r.m.rev, r.at("Bookmarkable: progress beyond the store's revision")...)
	r.requireBatch(mw, batch, next, progress)
	if limit <= 0 || len(batch) < limit {
		require.Equal(t, r.m.rev, progress,
			r.at("Poll returned fewer events than its limit (%d), so it must have caught up", len(batch))...)
	}
	mw.progress = progress
	mw.delivered = append(mw.delivered, batch...)
	r.seen["poll: ok"]++
	if limit > 0 && len(batch) == limit {
		r.seen["poll: limit reached"]++
	}
	if mw.future && len(batch) > 0 {
		r.seen["watch from the future delivered"]++
	}
}

// requireTooSlow checks a live watcher's Poll that ended it: only falling
// behind the window ends a watcher that was not stopped, and no event before
// its next revision may be missing.
func (r *modelRun) requireTooSlow(mw *modelWatcher, batch []modelEvent, progress int64, err error) {
	t := r.t
	next := mw.next()
	require.ErrorIs(t, err, store.ErrTooSlow, r.at("a live watcher's Poll failed")...)
	require.ErrorIs(t, err, store.ErrCompacted, r.at("ErrTooSlow matches ErrCompacted")...)
	var ce *store.CompactedError
	require.ErrorAs(t, err, &ce, r.at("ErrTooSlow is a *CompactedError")...)
	require.True(t, ce.Watching, r.at("a watcher's CompactedError says Watching")...)
	require.Equal(t, r.m.compactRev, ce.CompactRev, r.at("CompactedError.CompactRev")...)
	require.Less(t, ce.Rev, r.m.compactRev, r.at("ErrTooSlow names a revision that is not compacted")...)
	// The events returned with the error are all there were before it.
	require.GreaterOrEqual(t, ce.Rev, next, r.at("ErrTooSlow names a revision the watcher had delivered")...)
	r.requireBatch(mw, batch, next, ce.Rev-1)
	require.GreaterOrEqual(t, progress, mw.lastRev(), r.at("Bookmarkable: progress below the last event")...)
	require.Less(t, progress, ce.Rev, r.at("Bookmarkable: progress covers the revision it failed on")...)
	require.Equal(t, next, ce.Rev, r.at("ErrTooSlow names the watcher's next revision")...)

	mw.delivered = append(mw.delivered, batch...)
	mw.err = err
	r.seen["poll: ErrTooSlow"]++
	r.requireEnded(mw, err)
	// Reliable up to the error: everything before the next revision arrived.
	require.Equal(t, r.m.eventsUnder(mw.prefix, mw.start, ce.Rev-1), mw.delivered,
		r.at("Reliable: a watcher ended by ErrTooSlow missed events before revision %d", ce.Rev)...)
}

// requireBatch checks one delivery of mw, events under its prefix of
// revisions from..to (to is the progress the poll reported), against the
// model. The named checks come first for clear failures; the final equality
// is the whole truth.
func (r *modelRun) requireBatch(mw *modelWatcher, batch []modelEvent, from, to int64) {
	t := r.t
	last := mw.lastRev()
	for i, ev := range batch {
		at := func(what string) []any { return r.at("event %d (%v %s@%d): %s", i, ev.Type, ev.Key, ev.Rev, what) }
		require.True(t, strings.HasPrefix(ev.Key, mw.prefix), at("Filter: key not under the prefix")...)
		require.Greater(t, ev.Rev, last, at("Ordered/Unique: revision not above the previous event's")...)
		require.GreaterOrEqual(t, ev.Rev, mw.start, at("event before the watch's start revision")...)
		require.LessOrEqual(t, ev.Rev, to, at("Bookmarkable: event beyond the reported progress")...)
		last = ev.Rev

		prev, existed := r.m.states[ev.Rev-1][ev.Key]
		require.Equal(t, prev, ev.Prev, at("Prev is not the state at rev-1")...)
		switch ev.Type {
		case store.Created:
			require.False(t, existed, at("Created, but the key existed at rev-1")...)
		case store.Updated:
			require.True(t, existed, at("Updated, but the key did not exist at rev-1")...)
		case store.Deleted:
			require.True(t, existed, at("Deleted, but the key did not exist at rev-1")...)
			require.Zero(t, ev.Record, at("a Deleted event's Record is zero")...)
		default:
			require.Fail(t, "unknown event type", at("unknown event type")...)
		}
		if ev.Type != store.Deleted {
			require.Equal(t, ev.Rev, ev.Record.ModRev, at("Atomic: Record.ModRev is not the event's revision")...)
			require.Equal(t, r.m.states[ev.Rev][ev.Key], ev.Record, at("Record is not the state at rev")...)
		}
	}
	require.Equal(t, r.m.eventsUnder(mw.prefix, from, to), batch,
		r.at("Reliable: delivery of revisions %d..%d is not the model's history under %q", from, to, mw.prefix)...)
}

// checkChannels checks mw's Ready and Done before a poll: Done is closed
// exactly when the watcher has ended; Ready is closed when an event at or
// after its next revision exists (or it ended) and open otherwise, in which
// case the next write must close it.
func (r *modelRun) checkChannels(mw *modelWatcher) {
	t := r.t
	require.Equal(t, mw.err != nil, IsClosed(mw.w.Done()), r.at("Done is closed iff the watcher ended")...)
	if mw.err != nil {
		require.True(t, IsClosed(mw.w.Ready()), r.at("Ready of an ended watcher must not block")...)
		return
	}
	ready := mw.w.Ready()
	pending := mw.next() <= r.m.rev
	require.Equal(t, pending, IsClosed(ready),
		r.at("Ready is closed iff revisions at or after next (%d) exist (rev %d)", mw.next(), r.m.rev)...)
	if !pending {
		r.park(mw, ready)
	}
	require.NoError(t, mw.w.Err(), r.at("Err of a live watcher")...)
}

// modelWakeup is a parked watcher and the Ready channel it was handed.
type modelWakeup struct {
	mw    *modelWatcher
	ready <-chan struct{}
}

// park records that mw is caught up and waits on ready; a watcher asking
// again while parked must be handed the same channel.
func (r *modelRun) park(mw *modelWatcher, ready <-chan struct{}) {
	for _, wk := range r.wakeups {
		if wk.mw == mw {
			require.Equal(r.t, wk.ready, ready, r.at("a parked watcher got a new Ready channel")...)
			return
		}
	}
	r.wakeups = append(r.wakeups, modelWakeup{mw, ready})
}

// checkWakeups runs after every write of key: it must have woken the
// parked watchers whose prefix holds key, and those already ended, and
// left the others parked with their cursor past the write.
func (r *modelRun) checkWakeups(key string) {
	kept := r.wakeups[:0]
	for _, wk := range r.wakeups {
		if wk.mw.err != nil || strings.HasPrefix(key, wk.mw.prefix) {
			r.seen["wake-up checked"]++
			require.True(r.t, IsClosed(wk.ready), r.at("a write under %q did not close watcher %d's Ready channel", wk.mw.prefix, wk.mw.id)...)
			continue
		}
		r.seen["no wake-up for another prefix"]++
		require.False(r.t, IsClosed(wk.ready), r.at("a write outside %q woke watcher %d", wk.mw.prefix, wk.mw.id)...)
		wk.mw.skip = r.m.rev
		kept = append(kept, wk)
	}
	clear(r.wakeups[len(kept):])
	r.wakeups = kept
}

// IsClosed says whether ch is closed, without waiting.
func IsClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// requireEnded checks an ended watcher: Done closed, Ready never blocks, Err
// and every later Poll say why.
func (r *modelRun) requireEnded(mw *modelWatcher, why error) {
	t := r.t
	require.True(t, IsClosed(mw.w.Done()), r.at("Done of an ended watcher")...)
	require.True(t, IsClosed(mw.w.Ready()), r.at("Ready of an ended watcher")...)
	require.Equal(t, why, mw.w.Err(), r.at("Err of an ended watcher")...)
	evs, _, err := mw.w.Poll(nil, 0)
	require.Empty(t, evs, r.at("Poll of an ended watcher delivered")...)
	require.Equal(t, why, err, r.at("Poll of an ended watcher")...)
}

// opStop stops a random live watcher (twice now and then), unless only a
// few are left.
func (r *modelRun) opStop() string {
	live := r.liveWatchers()
	if len(live) <= 4 {
		return ""
	}
	mw := live[r.rng.IntN(len(live))]
	r.desc = fmt.Sprintf("stop watcher %d", mw.id)
	r.seen["stop"]++
	r.logf("%s", r.desc)
	mw.w.Stop()
	if r.rng.IntN(2) == 0 {
		mw.w.Stop()
	}
	require.ErrorIs(r.t, mw.w.Err(), store.ErrStopped, r.at("Err after Stop")...)
	mw.err = mw.w.Err()
	r.requireEnded(mw, mw.err)
	r.requireReliable(mw)
	return ""
}

// opResume starts a new watcher where a polled one left off — after its last
// event, or after its last progress — as a client does after a watch ends
// (Resumable). Compacted resume points must fail with ErrCompacted; the new
// watcher is checked like any other, so it must continue with exactly the
// model's next events.
func (r *modelRun) opResume() string {
	var polled []*modelWatcher
	for _, mw := range r.watchers {
		if mw.progress > 0 {
			polled = append(polled, mw)
		}
	}
	if len(polled) == 0 || r.resumed >= r.cfg.watchers {
		return ""
	}
	src := polled[r.rng.IntN(len(polled))]
	from := max(src.lastRev()+1, src.start)
	if r.rng.IntN(2) == 0 {
		from = src.next()
	}
	r.resumed++
	mw := r.startWatcher(src.prefix, from)
	if mw == nil {
		r.seen["resume: ErrCompacted"]++
		return ""
	}
	r.seen["resume: ok"]++
	r.poll(mw, 0) // checked like any watcher: it must continue exactly
	return ""
}

// checkAfterOp runs after every operation: revision, counters and the
// touched key agree with the model; every 50 operations, whole lists too.
func (r *modelRun) checkAfterOp(key string) {
	t, m := r.t, r.m
	require.Equal(t, m.rev, r.s.Rev(), r.at("Rev")...)
	require.Equal(t, store.Stats{
		Rev:        m.rev,
		CompactRev: m.compactRev,
		Keys:       len(m.current()),
		History:    m.historyLen(),
		Watchers:   len(r.liveWatchers()),
	}, r.s.Stats(), r.at("Stats")...)
	for _, k := range []string{key, r.randKey()} {
		if k == "" {
			continue
		}
		got, err := r.s.Get(k, 0)
		r.requireGet(k, 0, got, err)
	}
	if r.op%50 != 0 {
		return
	}
	for _, rev := range []int64{0, max(m.compactRev, 1) + r.rng.Int64N(m.rev-max(m.compactRev, 1)+1)} {
		for _, prefix := range []string{"", r.randPrefix()} {
			opts := store.ListOptions{Rev: rev}
			res, err := r.s.List(prefix, opts)
			r.requireList(prefix, opts, res, err)
		}
	}
}

// requireReliable checks everything mw delivered: exactly the model's events
// under its prefix from its start through its last progress.
func (r *modelRun) requireReliable(mw *modelWatcher) {
	require.Equal(r.t, r.m.eventsUnder(mw.prefix, mw.start, mw.progress), mw.delivered,
		r.at("Reliable: watcher %d on %q from %d through %d", mw.id, mw.prefix, mw.start, mw.progress)...)
}

// finish drains every live watcher, checks each whole stream, checks that
// every watcher could be resumed where it stopped, reads every key at a few
// past revisions, and stops everything.
func (r *modelRun) finish() {
	t, m := r.t, r.m
	for _, mw := range r.liveWatchers() {
		r.poll(mw, 0)
	}
	for _, mw := range r.watchers {
		r.desc = fmt.Sprintf("final check of watcher %d %q from %d", mw.id, mw.prefix, mw.start)
		if mw.err == nil {
			require.Equal(t, m.rev, mw.progress, r.at("a drained watcher has caught up")...)
			r.requireReliable(mw)
		}
		// Resumable: a new watcher from the revision after the last event
		// delivers exactly the rest.
		from := max(mw.lastRev()+1, mw.start)
		w, err := r.s.Watch(mw.prefix, from)
		r.requireErr(m.watchable(from), err, "resume")
		if err != nil {
			continue
		}
		evs, progress, err := w.Poll(nil, 0)
		require.NoError(t, err, r.at("resumed watcher")...)
		require.Equal(t, m.rev, progress, r.at("resumed watcher's progress")...)
		require.Equal(t, m.eventsUnder(mw.prefix, from, m.rev), evs, r.at("Resumable from %d", from)...)
		r.logf("%s resumed from %d -> %+v", r.desc, from, evs)
		w.Stop()
	}
	r.desc = "final reads"
	oldest := max(m.compactRev, 1)
	for _, rev := range []int64{0, oldest, oldest + r.rng.Int64N(m.rev-oldest+1), m.rev} {
		for _, key := range r.keys {
			got, err := r.s.Get(key, rev)
			r.requireGet(key, rev, got, err)
		}
	}
	for _, mw := range r.liveWatchers() {
		mw.w.Stop()
		mw.err = store.ErrStopped
	}
	require.Zero(t, r.s.Stats().Watchers, r.at("watchers left after stopping all")...)
	r.logf("end rev=%d compactRev=%d", m.rev, m.compactRev)
}
