package storebench_test

// The side-by-side benchmarks. The real run (README.md has the results):
//
//	go test -run='^$' -bench=. -benchtime=1x -count=3 ./storebench/ | tee storebench.txt
//
// One benchmark op is one round: N puts (-etcd-n for etcd, -store-n for the
// store and the bare btree), or one replay of N events; ns/op is per put or
// per event, and puts/s and events/s are the figures to compare. Add
// -fsync to benchmark etcd with fsync on as well.

import (
	"context"
	"flag"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/interop/storebench"
)

var (
	etcdN  = flag.Int("etcd-n", 20_000, "puts per round for etcd")
	storeN = flag.Int("store-n", 200_000, "puts per round for the store and the bare btree")
	fsync  = flag.Bool("fsync", false, "also benchmark etcd with fsync on")
)

// target is one backend in a benchmark.
type target struct {
	name  string
	n     int // puts per round
	open  func(tb testing.TB) storebench.Backend
	watch bool
}

func openEtcd(fsync bool) func(testing.TB) storebench.Backend {
	return func(tb testing.TB) storebench.Backend {
		tb.Helper()
		e, err := storebench.StartEtcd(tb.TempDir(), fsync)
		require.NoError(tb, err)
		tb.Cleanup(func() { assert.NoError(tb, e.Close()) })
		return e
	}
}

// targets lists the backends. The store's history window holds one round,
// as etcd's uncompacted history does, so the replay finds every event.
func targets() []target {
	ts := []target{{name: "etcd", n: *etcdN, open: openEtcd(false), watch: true}}
	if *fsync {
		ts = append(ts, target{name: "etcd-fsync", n: *etcdN, open: openEtcd(true), watch: true})
	}
	return append(ts,
		target{name: "store", n: *storeN, watch: true, open: func(testing.TB) storebench.Backend {
			return storebench.NewStore(*storeN)
		}},
		target{name: "btree", n: *storeN, open: func(testing.TB) storebench.Backend {
			return storebench.NewBTree()
		}},
	)
}

// putRound puts keys 0..n-1 in order, creating them in round 0 and updating
// them after, and returns when the first put started and the last ended.
func putRound(ctx context.Context, be storebench.Backend, n, round int) (start, end time.Time, err error) {
	v := storebench.Value(byte('a' + round%26))
	start = time.Now()
	for i := range n {
		if _, err := be.Put(ctx, storebench.Key(i), v, round == 0); err != nil {
			return start, time.Now(), err
		}
	}
	return start, time.Now(), nil
}

// checkRev checks that the backend is at revision 1+writes: one revision per
// put, as on a fresh etcd.
func checkRev(b *testing.B, be storebench.Backend, writes int) {
	b.Helper()
	rev, err := be.Rev(b.Context())
	require.NoError(b, err)
	require.Equal(b, int64(1+writes), rev, "revision after %d puts", writes)
}

// awaitWatch waits for a watch's result and checks it saw the round's n
// events: creates in round 0, updates after.
func awaitWatch(b *testing.B, ch <-chan storebench.WatchResult, n, round int) storebench.WatchResult {
	b.Helper()
	timeout := time.NewTimer(10 * time.Minute)
	defer timeout.Stop()
	select {
	case res := <-ch:
		require.NoError(b, res.Err)
		want := storebench.WatchResult{Created: n, Done: res.Done}
		if round > 0 {
			want = storebench.WatchResult{Updated: n, Done: res.Done}
		}
		require.Equal(b, want, res)
		return res
	case <-timeout.C:
		b.Fatal("watch did not get every event within 10 minutes")
	}
	return storebench.WatchResult{}
}

func reportPerOp(b *testing.B, d time.Duration, ops int, unit string) {
	b.ReportMetric(float64(d.Nanoseconds())/float64(ops), "ns/op")
	b.ReportMetric(float64(ops)/d.Seconds(), unit)
}

// BenchmarkSequentialPut is (a): N puts one after the other, nothing
// watching.
func BenchmarkSequentialPut(b *testing.B) {
	for _, tg := range targets() {
		b.Run(tg.name, func(b *testing.B) {
			be := tg.open(b)
			var total time.Duration
			rounds := 0
			for b.Loop() {
				start, end, err := putRound(b.Context(), be, tg.n, rounds)
				require.NoError(b, err)
				total += end.Sub(start)
				rounds++
			}
			checkRev(b, be, rounds*tg.n)
			reportPerOp(b, total, rounds*tg.n, "puts/s")
		})
	}
}

// BenchmarkPutWithWatcher is (b): N puts with one live watcher attached.
// puts/s is the writer's rate; events/s counts from the first put until the
// watcher has the last event, and watch-lag-ms is how long after the last
// put that was.
func BenchmarkPutWithWatcher(b *testing.B) {
	for _, tg := range targets() {
		if !tg.watch {
			continue
		}
		b.Run(tg.name, func(b *testing.B) {
			be := tg.open(b)
			var puts, watched, lag time.Duration
			rounds := 0
			for b.Loop() {
				rev, err := be.Rev(b.Context())
				require.NoError(b, err)
				ch, err := be.Watch(b.Context(), storebench.Prefix, rev+1, tg.n)
				require.NoError(b, err)
				start, end, err := putRound(b.Context(), be, tg.n, rounds)
				require.NoError(b, err)
				res := awaitWatch(b, ch, tg.n, rounds)
				puts += end.Sub(start)
				watched += res.Done.Sub(start)
				lag += res.Done.Sub(end)
				rounds++
			}
			checkRev(b, be, rounds*tg.n)
			reportPerOp(b, puts, rounds*tg.n, "puts/s")
			b.ReportMetric(float64(rounds*tg.n)/watched.Seconds(), "events/s")
			b.ReportMetric(float64(lag.Microseconds())/1e3/float64(rounds), "watch-lag-ms")
		})
	}
}

// BenchmarkWatchReplay is (c2): a watch from a revision in history replays N
// past events; events/s counts from the watch call until it has the last.
func BenchmarkWatchReplay(b *testing.B) {
	for _, tg := range targets() {
		if !tg.watch {
			continue
		}
		b.Run(tg.name, func(b *testing.B) {
			be := tg.open(b)
			from, err := be.Rev(b.Context())
			require.NoError(b, err)
			from++
			_, _, err = putRound(b.Context(), be, tg.n, 0)
			require.NoError(b, err)
			var total time.Duration
			replays := 0
			for b.Loop() {
				start := time.Now()
				ch, err := be.Watch(b.Context(), storebench.Prefix, from, tg.n)
				require.NoError(b, err)
				res := awaitWatch(b, ch, tg.n, 0)
				total += res.Done.Sub(start)
				replays++
			}
			reportPerOp(b, total, replays*tg.n, "events/s")
		})
	}
}

// TestSameWorkloadSameRevisions is the CI smoke test that the comparison is
// apples to apples: the same operations on etcd, the store and the bare btree
// move the revision by the same steps, and etcd's and the store's watches
// see the same events.
func TestSameWorkloadSameRevisions(t *testing.T) {
	type op struct {
		put    bool // else delete
		key    int
		create bool
	}
	var ops []op
	for i := range 100 {
		ops = append(ops, op{put: true, key: i, create: true})
	}
	for i := range 20 {
		ops = append(ops, op{put: true, key: i})
	}
	for i := 90; i < 100; i++ {
		ops = append(ops, op{key: i})
	}
	ops = append(ops, op{key: 1000}) // missing: no revision

	type outcome struct {
		deltas []int64 // each op's revision minus the one before it
		watch  storebench.WatchResult
	}
	run := func(t *testing.T, be storebench.Backend, watch bool) outcome {
		ctx := t.Context()
		rev0, err := be.Rev(ctx)
		require.NoError(t, err)
		var ch <-chan storebench.WatchResult
		if watch {
			ch, err = be.Watch(ctx, storebench.Prefix, rev0+1, 130)
			require.NoError(t, err)
		}
		var out outcome
		last := rev0
		for _, o := range ops {
			var rev int64
			if o.put {
				rev, err = be.Put(ctx, storebench.Key(o.key), storebench.Value('a'), o.create)
			} else {
				rev, _, err = be.Delete(ctx, storebench.Key(o.key))
			}
			require.NoError(t, err)
			out.deltas = append(out.deltas, rev-last)
			last = rev
		}
		if watch {
			select {
			case out.watch = <-ch:
				require.NoError(t, out.watch.Err)
				out.watch.Done = time.Time{}
			case <-time.After(time.Minute):
				t.Fatal("watch did not get every event within a minute")
			}
		}
		return out
	}

	want := outcome{deltas: make([]int64, len(ops)), watch: storebench.WatchResult{Created: 100, Updated: 20, Deleted: 10}}
	for i := range 130 {
		want.deltas[i] = 1
	}

	etcd := run(t, openEtcd(false)(t), true)
	st := run(t, storebench.NewStore(1000), true)
	bt := storebench.NewBTree()
	btOut := run(t, bt, false)

	assert.Equal(t, want, etcd, "etcd")
	assert.Equal(t, etcd, st, "the store moves and watches exactly as etcd")
	assert.Equal(t, etcd.deltas, btOut.deltas, "the bare btree counts the same writes")
	assert.Equal(t, 90, bt.Len())
}
