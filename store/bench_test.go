package store_test

// Benchmarks for the store's performance targets. Each one checks that what
// it timed was right (counts, revisions, values), so a fast wrong answer fails.
//
// The real run (about 3 minutes on 2 cores). The write benchmarks run a fixed
// 1M writes each, so the store and the bare btree do the same work through
// the same garbage-collector cycles; the others run by time:
//
//	go test -run='^$' -bench='WriteWithWatcher|BareBTree' -benchtime=1000000x -count=3 ./store/
//	go test -run='^$' -bench='WatchFanout|ListPastRevision|MemoryPerObject' -benchtime=2s -count=3 ./store/
//
// The CI smoke run (every benchmark once, all checks on, under a minute):
//
//	go test -run='^$' -bench=. -benchtime=1x ./store/
//
// Targets (measured on the 2-core reference machine):
//
//	BenchmarkWriteWithWatcher   writes/s ≥ 300,000 and ≥ 70% of BenchmarkBareBTreeInsert
//	BenchmarkWatchFanout        deliveries/s ≥ 1,000,000 (100 watchers)
//	BenchmarkListPastRevision   past/all ms/op < 50 (100,000 objects)
//	BenchmarkMemoryPerObject    B/obj-excl-key < 200
//
// Values are 1 KiB byte slices copied on every write, as the API server makes
// one deep copy of each object it stores; keys look like kube-apiserver's,
// /registry/pods/default/pod-00000042, and are built per write as it builds
// them per request.

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/btree"
	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/store"
)

const (
	benchPrefix    = "/registry/pods/"
	benchKeyPrefix = benchPrefix + "default/pod-"
	benchValueSize = 1024
	// benchPreload is how many objects the write benchmarks start with.
	benchPreload = 1_000_000
	// benchDegree is the node width of the bare btree, the store's own.
	benchDegree = 32
)

// benchHistory is the history window of the write benchmarks: 102,400
// events, kube-apiserver's largest watch cache. The default window (10,000
// events, about 12 ms of writes at full speed here) is shorter than one
// scheduler time slice, and a watcher descheduled for one is ended with
// ErrTooSlow; max-lag-events reports how far behind the watcher fell.
const benchHistory = 102_400

// benchValue is the pod-like value every write copies. Its first byte says
// which generation of a write it is ('a' for the first).
func benchValue(gen byte) []byte {
	v := bytes.Repeat([]byte("x"), benchValueSize)
	v[0] = gen
	return v
}

// appendBenchKey appends the key of object i: benchKeyPrefix and i in eight
// zero-padded digits, as fmt's %08d would but without its cost.
func appendBenchKey(dst []byte, i int) []byte {
	var d [8]byte
	for j := len(d) - 1; j >= 0; j-- {
		d[j] = byte('0' + i%10)
		i /= 10
	}
	dst = append(dst, benchKeyPrefix...)
	return append(dst, d[:]...)
}

// benchKey returns the key of object i in a fresh string, one allocation.
func benchKey(i int) string {
	var buf [64]byte
	return string(appendBenchKey(buf[:0], i))
}

// writeWorkload is the key sequence shared by BenchmarkWriteWithWatcher and
// BenchmarkBareBTreeInsert, so the two do the same writes. The key space has
// 2*preload keys of which the even ones are preloaded: the first pass over it
// alternates updates of preloaded keys with creates of new ones, later passes
// only update.
type writeWorkload struct {
	order   []int32 // key of write j is order[j%len]; nil: j%len(exists), in key order
	exists  []bool  // exists[i]: key i is stored
	creates int     // creates issued by next
}

func newWriteWorkload(preload int, random bool) *writeWorkload {
	w := &writeWorkload{exists: make([]bool, 2*preload)}
	for i := 0; i < len(w.exists); i += 2 {
		w.exists[i] = true
	}
	if random {
		r := rand.New(rand.NewPCG(1, 2))
		w.order = make([]int32, len(w.exists))
		for i := range w.order {
			w.order[i] = int32(i)
		}
		r.Shuffle(len(w.order), func(i, j int) { w.order[i], w.order[j] = w.order[j], w.order[i] })
	}
	return w
}

// next returns the key index of write j and whether it creates the key.
func (w *writeWorkload) next(j int) (idx int, create bool) {
	idx = j % len(w.exists)
	if w.order != nil {
		idx = int(w.order[idx])
	}
	if w.exists[idx] {
		return idx, false
	}
	w.exists[idx] = true
	w.creates++
	return idx, true
}

// benchWatcher runs a live watch loop (Ready, then Poll) on its own goroutine
// and checks what it receives: every revision after its start exactly once,
// in order, each with a whole value.
type benchWatcher struct {
	w      *store.Watcher[[]byte]
	next   int64         // revision of the next event expected; owned by run
	target atomic.Int64  // events to receive before run returns
	finish chan struct{} // closed once target is set
	done   chan struct{} // closed when run returns

	received atomic.Int64 // events received so far
	creates  int          // Created events; read after done
	err      error        // why run stopped early; read after done
}

// startBenchWatcher watches benchPrefix from the next write on.
func startBenchWatcher(b *testing.B, s *store.Store[[]byte]) *benchWatcher {
	b.Helper()
	w, err := s.Watch(benchPrefix, 0)
	if err != nil {
		b.Fatal(err)
	}
	bw := &benchWatcher{w: w, next: s.Rev() + 1, finish: make(chan struct{}), done: make(chan struct{})}
	bw.target.Store(1 << 62)
	b.Cleanup(w.Stop) // ends run if the benchmark fails before wait
	go bw.run()
	return bw
}

func (bw *benchWatcher) run() {
	defer close(bw.done)
	var buf []store.Event[[]byte]
	for {
		select {
		case <-bw.w.Ready():
		case <-bw.finish:
		}
		evs, _, err := bw.w.Poll(buf[:0], 0)
		for i := range evs {
			ev := &evs[i]
			if ev.Rev != bw.next {
				bw.err = fmt.Errorf("watcher got revision %d, want %d", ev.Rev, bw.next)
				return
			}
			if ev.Type != store.Deleted && len(ev.Record.Value) != benchValueSize {
				bw.err = fmt.Errorf("watcher got a %d-byte value at revision %d", len(ev.Record.Value), ev.Rev)
				return
			}
			if ev.Type == store.Created {
				bw.creates++
			}
			bw.next++
		}
		clear(evs) // drop the values so they can be collected
		buf = evs
		got := bw.received.Add(int64(len(evs)))
		if err != nil {
			bw.err = err
			return
		}
		if got >= bw.target.Load() {
			return
		}
	}
}

// wait returns once the watcher has received n events, then stops it.
func (bw *benchWatcher) wait(n int) error {
	bw.target.Store(int64(n))
	close(bw.finish)
	<-bw.done
	bw.w.Stop()
	if bw.err != nil {
		return bw.err
	}
	if got := bw.received.Load(); got != int64(n) {
		return fmt.Errorf("watcher received %d events, want %d", got, n)
	}
	return nil
}

// preloadStore returns a store holding the even keys of a writeWorkload, in
// key order, each with its own copy of the value.
func preloadStore(b *testing.B, preload int) *store.Store[[]byte] {
	b.Helper()
	debug.FreeOSMemory() // start cold, whatever ran before
	s := store.New[[]byte](store.Options{HistoryLimit: benchHistory})
	v := benchValue('a')
	for i := range preload {
		if _, err := s.Create(benchKey(2*i), slices.Clone(v)); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

// BenchmarkWriteWithWatcher writes into a store preloaded with 1M objects
// while one watcher goroutine follows every event live. writes/s counts from
// the first write until the watcher has received the last, so a watcher that
// lags cannot flatter it; watch-lag-ms is how long the watcher needed after
// the last write.
func BenchmarkWriteWithWatcher(b *testing.B) {
	for _, random := range []bool{false, true} {
		b.Run(orderName(random), func(b *testing.B) {
			s := preloadStore(b, benchPreload)
			wl := newWriteWorkload(benchPreload, random)
			bw := startBenchWatcher(b, s)
			startRev := s.Rev()
			v := benchValue('b')
			var buf [64]byte
			n, maxLag := 0, int64(0)
			runtime.GC() // the preload's garbage is not the writes' cost
			b.ReportAllocs()
			start := time.Now()
			for b.Loop() {
				if n%64 == 0 {
					maxLag = max(maxLag, int64(n)-bw.received.Load())
				}
				idx, create := wl.next(n)
				key := string(appendBenchKey(buf[:0], idx))
				var err error
				if create {
					_, err = s.Create(key, slices.Clone(v))
				} else {
					_, err = s.Update(key, slices.Clone(v), 0)
				}
				if err != nil {
					b.Fatal(err)
				}
				n++
			}
			wrote := time.Now()
			if err := bw.wait(n); err != nil {
				b.Fatal(err)
			}
			elapsed := time.Since(start)
			if bw.creates != wl.creates {
				b.Fatalf("watcher saw %d creates, want %d", bw.creates, wl.creates)
			}
			st := s.Stats()
			if st.Rev != startRev+int64(n) || st.Keys != benchPreload+wl.creates {
				b.Fatalf("after %d writes (%d creates): %+v, want rev %d and %d keys", n, wl.creates, st, startRev+int64(n), benchPreload+wl.creates)
			}
			b.ReportMetric(float64(n)/elapsed.Seconds(), "writes/s")
			b.ReportMetric(float64(time.Since(wrote).Microseconds())/1e3, "watch-lag-ms")
			b.ReportMetric(float64(maxLag), "max-lag-events")
		})
	}
}

func orderName(random bool) string {
	if random {
		return "random"
	}
	return "sequential"
}

// bareItem is what the bare btree holds: the key and the value, no revisions.
type bareItem struct {
	key string
	val []byte
}

// BenchmarkBareBTreeInsert is the ceiling for BenchmarkWriteWithWatcher: the
// same preload, keys and value copies into a bare google/btree, with no
// revisions, history, lock or watcher.
func BenchmarkBareBTreeInsert(b *testing.B) {
	for _, random := range []bool{false, true} {
		b.Run(orderName(random), func(b *testing.B) {
			debug.FreeOSMemory() // start cold, whatever ran before
			t := btree.NewG(benchDegree, func(a, b bareItem) bool { return a.key < b.key })
			v := benchValue('a')
			for i := range benchPreload {
				t.ReplaceOrInsert(bareItem{benchKey(2 * i), slices.Clone(v)})
			}
			wl := newWriteWorkload(benchPreload, random)
			v = benchValue('b')
			var buf [64]byte
			n, replaced := 0, 0
			runtime.GC()
			b.ReportAllocs()
			start := time.Now()
			for b.Loop() {
				idx, _ := wl.next(n)
				if _, found := t.ReplaceOrInsert(bareItem{string(appendBenchKey(buf[:0], idx)), slices.Clone(v)}); found {
					replaced++
				}
				n++
			}
			elapsed := time.Since(start)
			if t.Len() != benchPreload+wl.creates || replaced != n-wl.creates {
				b.Fatalf("after %d writes (%d creates): %d keys and %d replaced", n, wl.creates, t.Len(), replaced)
			}
			b.ReportMetric(float64(n)/elapsed.Seconds(), "writes/s")
		})
	}
}

// BenchmarkWatchFanout has 100 watchers follow one prefix, each on its own
// goroutine, while one writer updates 10,000 objects. deliveries/s is the
// events received summed over the watchers per second of wall time, from the
// first write until every watcher has every event.
//
// The writer yields while the slowest watcher is more than half the history
// window behind: the benchmark measures the rate the watchers sustain, not
// how soon an unthrottled writer gets them ended with ErrTooSlow.
func BenchmarkWatchFanout(b *testing.B) {
	const (
		watchers = 100
		objects  = 10_000
		maxLag   = store.DefaultHistoryLimit / 2
	)
	s := store.New[[]byte](store.Options{})
	v := benchValue('a')
	for i := range objects {
		if _, err := s.Create(benchKey(i), slices.Clone(v)); err != nil {
			b.Fatal(err)
		}
	}
	ws := make([]*benchWatcher, watchers)
	for i := range ws {
		ws[i] = startBenchWatcher(b, s)
	}
	slowest := func() int64 {
		m := ws[0].received.Load()
		for _, w := range ws[1:] {
			m = min(m, w.received.Load())
		}
		return m
	}
	v = benchValue('b')
	var buf [64]byte
	n, throttled := 0, 0
	runtime.GC()
	start := time.Now()
	for b.Loop() {
		if n%64 == 0 && int64(n)-slowest() > maxLag {
			throttled++
			for int64(n)-slowest() > maxLag/2 {
				runtime.Gosched()
			}
		}
		if _, err := s.Update(string(appendBenchKey(buf[:0], n%objects)), slices.Clone(v), 0); err != nil {
			b.Fatal(err)
		}
		n++
	}
	for i, w := range ws {
		if err := w.wait(n); err != nil {
			b.Fatalf("watcher %d: %v", i, err)
		}
	}
	elapsed := time.Since(start)
	b.ReportMetric(float64(watchers*n)/elapsed.Seconds(), "deliveries/s")
	b.ReportMetric(float64(n)/elapsed.Seconds(), "writes/s")
	b.ReportMetric(float64(throttled), "throttles")
}

// listFixture is BenchmarkListPastRevision's store: 100,000 objects at
// revision past, then 5,000 writes touching them (3,000 updates, 1,000
// deletes, 1,000 creates of new keys among them).
type listFixture struct {
	s       *store.Store[[]byte]
	past    int64
	objects int
}

func newListFixture(b *testing.B) listFixture {
	b.Helper()
	const objects = 100_000
	s := store.New[[]byte](store.Options{})
	v := benchValue('a')
	for i := range objects {
		if _, err := s.Create(benchKey(2*i), slices.Clone(v)); err != nil {
			b.Fatal(err)
		}
	}
	past := s.Rev()
	v = benchValue('b')
	for i := range objects {
		var err error
		switch i % 100 {
		case 0:
			_, err = s.Delete(benchKey(2*i), 0)
		case 1, 34, 67:
			_, err = s.Update(benchKey(2*i), slices.Clone(v), 0)
		case 50:
			_, err = s.Create(benchKey(2*i+1), slices.Clone(v))
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	if got := s.Rev() - past; got != 5_000 {
		b.Fatalf("%d later writes, want 5000", got)
	}
	return listFixture{s: s, past: past, objects: objects}
}

// checkPast checks that recs is the whole state at f.past: every original
// key, in order, with its original value.
func (f listFixture) checkPast(b *testing.B, recs []store.Record[[]byte]) {
	b.Helper()
	if len(recs) != f.objects {
		b.Fatalf("listed %d records, want %d", len(recs), f.objects)
	}
	for i, r := range recs {
		if r.Key != benchKey(2*i) || r.ModRev > f.past || r.Value[0] != 'a' {
			b.Fatalf("record %d is %s@%d (%c), want %s at or before revision %d", i, r.Key, r.ModRev, r.Value[0], benchKey(2*i), f.past)
		}
	}
}

// checkCurrent checks that recs is the current state: as many keys (1,000
// deleted, 1,000 created), in order, 4,000 of them written after f.past.
func (f listFixture) checkCurrent(b *testing.B, recs []store.Record[[]byte]) {
	b.Helper()
	if len(recs) != f.objects {
		b.Fatalf("listed %d records, want %d", len(recs), f.objects)
	}
	later := 0
	for i, r := range recs {
		if i > 0 && recs[i-1].Key >= r.Key {
			b.Fatalf("records %d and %d out of order: %s, %s", i-1, i, recs[i-1].Key, r.Key)
		}
		if r.ModRev > f.past {
			later++
		}
	}
	if later != 4_000 {
		b.Fatalf("%d records written after revision %d, want 4000", later, f.past)
	}
}

// listAll lists benchPrefix at rev in pages of limit (0: one page), hands
// each page to visit unless it is nil, and returns the number of records and
// of pages.
func listAll(s *store.Store[[]byte], rev int64, limit int, visit func([]store.Record[[]byte])) (n, pages int, err error) {
	opts := store.ListOptions{Rev: rev, Limit: limit}
	for pages = 1; ; pages++ {
		res, err := s.List(benchPrefix, opts)
		if err != nil {
			return n, pages, err
		}
		n += len(res.Records)
		if visit != nil {
			visit(res.Records)
		}
		if !res.More {
			return n, pages, nil
		}
		opts.Rev = res.Rev // every page reads the first page's revision
		opts.After = res.Records[len(res.Records)-1].Key
	}
}

// BenchmarkListPastRevision lists 100,000 objects at the revision before
// 5,000 later writes, whole and in pages of 500 (the API server's default
// chunk), and, for comparison, at the current revision.
func BenchmarkListPastRevision(b *testing.B) {
	f := newListFixture(b)
	cases := []struct {
		name  string
		past  bool
		limit int
	}{
		{"past/all", true, 0},
		{"past/paged500", true, 500},
		{"current/all", false, 0},
		{"current/paged500", false, 500},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			rev, check := int64(0), f.checkCurrent
			if tc.past {
				rev, check = f.past, f.checkPast
			}
			wantPages := 1
			if tc.limit > 0 {
				wantPages = f.objects / tc.limit
			}
			var recs []store.Record[[]byte]
			_, pages, err := listAll(f.s, rev, tc.limit, func(page []store.Record[[]byte]) { recs = append(recs, page...) })
			if err != nil {
				b.Fatal(err)
			}
			check(b, recs)
			if pages != wantPages {
				b.Fatalf("%d pages, want %d", pages, wantPages)
			}
			n := 0
			for b.Loop() {
				got, pages, err := listAll(f.s, rev, tc.limit, nil)
				if err != nil || got != f.objects || pages != wantPages {
					b.Fatalf("listed %d records in %d pages (%v), want %d in %d", got, pages, err, f.objects, wantPages)
				}
				n++
			}
			b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(n), "ms/op")
		})
	}
}

// BenchmarkMemoryPerObject measures the live heap a store of 1M objects
// needs beyond their values: every object shares one value, so value bytes
// do not count. B/obj-incl-key adds the key strings (35 bytes, allocated as
// 48), which the store shares with the caller; B/obj-excl-key is the store's
// own overhead: record, tree item and node slack, history. Each iteration
// builds a fresh store; ns/op is the time to create 1M objects.
func BenchmarkMemoryPerObject(b *testing.B) {
	const objects = 1_000_000
	for _, random := range []bool{false, true} {
		b.Run(orderName(random), func(b *testing.B) {
			var incl, excl float64
			for b.Loop() {
				incl, excl = measureStoreMemory(b, objects, random)
			}
			b.ReportMetric(incl, "B/obj-incl-key")
			b.ReportMetric(excl, "B/obj-excl-key")
		})
	}
}

func measureStoreMemory(b *testing.B, objects int, random bool) (incl, excl float64) {
	order := make([]int, objects)
	for i := range order {
		order[i] = i
	}
	if random {
		rand.New(rand.NewPCG(3, 4)).Shuffle(objects, func(i, j int) { order[i], order[j] = order[j], order[i] })
	}
	keys := make([]string, objects)
	shared := benchValue('a')

	heap := func() uint64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	h0 := heap()
	for i, o := range order {
		keys[i] = benchKey(o)
	}
	h1 := heap()
	s := store.New[[]byte](store.Options{})
	for _, k := range keys {
		if _, err := s.Create(k, shared); err != nil {
			b.Fatal(err)
		}
	}
	h2 := heap()
	if st := s.Stats(); st.Keys != objects {
		b.Fatalf("store holds %d keys, want %d", st.Keys, objects)
	}
	runtime.KeepAlive(s)
	runtime.KeepAlive(keys)
	runtime.KeepAlive(shared)
	keyBytes, storeBytes := float64(h1)-float64(h0), float64(h2)-float64(h1)
	return (keyBytes + storeBytes) / float64(objects), storeBytes / float64(objects)
}

// TestBenchKey pins the benchmarks' key format to the one the issue names.
func TestBenchKey(t *testing.T) {
	for _, i := range []int{0, 7, 42, 12345678} {
		assert.Equal(t, fmt.Sprintf("/registry/pods/default/pod-%08d", i), benchKey(i))
	}
}

// BenchmarkGetThenUpdate is the API server's write of one object: a Get of
// the current record, then an Update conditional on its revision, over a
// store of 100,000 keys under one prefix (the pods of one namespace), keys
// visited at random. Reports ns and allocations per Get+Update.
func BenchmarkGetThenUpdate(b *testing.B) {
	const objects = 100_000
	s := store.New[[]byte](store.Options{HistoryLimit: 100_000})
	keys := make([]string, objects)
	for i := range keys {
		keys[i] = benchKey(i)
		if _, err := s.Create(keys[i], benchValue('a')); err != nil {
			b.Fatal(err)
		}
	}
	order := rand.New(rand.NewPCG(5, 6)).Perm(objects)
	value := benchValue('b')
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		key := keys[order[i%objects]]
		cur, err := s.Get(key, 0)
		if err != nil {
			b.Fatal(err)
		}
		next, err := s.Update(key, value, cur.ModRev)
		if err != nil || next.Version != cur.Version+1 {
			b.Fatalf("update of %s: version %d after %d (%v)", key, next.Version, cur.Version, err)
		}
		i++
	}
}

// scaleWorkload is the store's share of the control-plane benchmark
// (controllers/manager's BenchmarkControlPlaneScale at -rcs=1000): keys and
// calls shaped as the API server makes them for 1,000 replication
// controllers of 100 pods, which end with about 325,000 live keys. Keys are
// built per call from small numbers, as the server builds them per request
// from the object in hand, so the key a call passes is in cache and the
// stored keys it is compared with are not.
type scaleWorkload struct {
	rcs  int
	pods int
}

const scaleReplicas = 100

// scaleMix is a deterministic 64-bit mixer (splitmix64's finaliser): the
// random-looking parts of names, drawn from a pod's number.
func scaleMix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// appendPodName appends pod p's name: app-0001-x7k2p, its RC's name and five
// characters of the name generator's alphabet. Pods are numbered
// round-robin over the RCs, the order the RCs create them in.
func (w scaleWorkload) appendPodName(dst []byte, p int) []byte {
	const alnum = "bcdfghjklmnpqrstvwxz2456789"
	dst = w.appendRCName(dst, p%w.rcs)
	dst = append(dst, '-')
	h := scaleMix(uint64(p))
	for range 3 {
		dst = append(dst, alnum[h%uint64(len(alnum))])
		h /= uint64(len(alnum))
	}
	// The last two say which of its RC's pods it is: names never collide.
	r := p / w.rcs
	return append(dst, alnum[r%len(alnum)], alnum[r/len(alnum)])
}

func (w scaleWorkload) appendRCName(dst []byte, rc int) []byte {
	return append(dst, 'a', 'p', 'p', '-', byte('0'+rc/1000%10), byte('0'+rc/100%10), byte('0'+rc/10%10), byte('0'+rc%10))
}

// podKey returns pod p's key, /registry/pods/default/app-0001-x7k2p.
func (w scaleWorkload) podKey(p int) string {
	var buf [64]byte
	return string(w.appendPodName(append(buf[:0], "/registry/pods/default/"...), p))
}

// eventKey returns the key of pod p's event j,
// /registry/events/default/app-0001-x7k2p.18a3f0c2d4e5f6a7.
func (w scaleWorkload) eventKey(p, j int) string {
	var buf [80]byte
	return string(w.appendHex(append(w.appendPodName(append(buf[:0], "/registry/events/default/"...), p), '.'), uint64(p)<<8|uint64(j)))
}

// rcEventKey returns the key of RC rc's event j, /registry/events/default/app-0001.18a3f0c2d4e5f6a7.
func (w scaleWorkload) rcEventKey(rc, j int) string {
	var buf [80]byte
	return string(w.appendHex(append(w.appendRCName(append(buf[:0], "/registry/events/default/"...), rc), '.'), uint64(rc)<<32|uint64(j)|1<<63))
}

func (w scaleWorkload) appendHex(dst []byte, seed uint64) []byte {
	const digits = "0123456789abcdef"
	h := scaleMix(seed)
	for i := 60; i >= 0; i -= 4 {
		dst = append(dst, digits[h>>i&0xf])
	}
	return dst
}

func scaleCreate(b *testing.B, s *store.Store[[]byte], key string, v []byte) {
	if _, err := s.Create(key, v); err != nil {
		b.Fatal(err)
	}
}

// updateAsServer is the API server's update: read, then write conditional on
// what was read.
func updateAsServer(b *testing.B, s *store.Store[[]byte], key string, v []byte) {
	cur, err := s.Get(key, 0)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.Update(key, v, cur.ModRev); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkScaleMix replays the store's calls of the control-plane
// benchmark's scale-up on a fresh store each iteration: every pod created
// (the RCs create them one by one, round-robin), an event for every four,
// then, pod by pod in a shuffled order, bound, two events created, its status
// written twice — 6.25 writes (the API server's create is one Create, an
// update a Get and an Update) and 3 reads per pod, about 325,000 keys at the
// end. ns/pod and allocs/pod are per pod.
func BenchmarkScaleMix(b *testing.B) {
	w := scaleWorkload{rcs: 1000, pods: 1000 * scaleReplicas}
	order := rand.New(rand.NewPCG(9, 10)).Perm(w.pods)
	v := benchValue('a')
	want := w.pods * 13 / 4 // pods, 2 events each, an RC event per 4
	if got := w.podKey(1001); got != "/registry/pods/default/app-0001-"+got[len(got)-5:] || len(got) != len("/registry/pods/default/app-0001-x7k2p") {
		b.Fatalf("pod key %q is not shaped like the benchmark's", got)
	}
	b.ReportAllocs()
	for b.Loop() {
		s := store.New[[]byte](store.Options{})
		for p := range w.pods {
			scaleCreate(b, s, w.podKey(p), v)
			if p%4 == 0 {
				scaleCreate(b, s, w.rcEventKey(p%w.rcs, p/w.rcs), v)
			}
		}
		for _, p := range order {
			updateAsServer(b, s, w.podKey(p), v) // bound
			scaleCreate(b, s, w.eventKey(p, 0), v)
			scaleCreate(b, s, w.eventKey(p, 1), v)
			updateAsServer(b, s, w.podKey(p), v) // running
			updateAsServer(b, s, w.podKey(p), v) // ready
		}
		if st := s.Stats(); st.Keys != want {
			b.Fatalf("store holds %d keys, want %d", st.Keys, want)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*w.pods), "ns/pod")
}
