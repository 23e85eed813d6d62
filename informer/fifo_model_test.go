package informer

// The DeltaFIFO against a naive one: the fast FIFO's three reuse buffers
// (bulk, spare, lent) must not change a single answer. This test is inside
// the package to drive pushEvents and popReusing, the paths the informer
// takes.

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
)

// modelCache is the cache a FIFO feeds, updated from what it pops as the
// informer updates its indexer.
type modelCache map[string]api.Object

func (c modelCache) ListKeys() []string { return slices.Sorted(maps.Keys(c)) }

func (c modelCache) Get(key string) (api.Object, bool) {
	o, ok := c[key]
	return o, ok
}

// apply is what the informer does with a popped key's deltas.
func (c modelCache) apply(key string, ds []Delta, _ *entry) {
	for _, d := range ds {
		if d.Type == Deleted {
			delete(c, key)
		} else {
			c[key] = d.Object.(api.Object)
		}
	}
}

func (c modelCache) contents() map[string]api.Object { return c }

func (c modelCache) known() knownObjects { return c }

// fastCache is the cache the fast FIFO feeds in TestDeltaFIFOAgainstNaive:
// a modelCache, or an Indexer (indexerCache), whose entries the FIFO takes
// as hints.
type fastCache interface {
	// known is what the FIFO is given: the cache itself (an Indexer
	// unwrapped, so that the FIFO takes its entries as hints).
	known() knownObjects
	apply(key string, ds []Delta, hint *entry)
	contents() map[string]api.Object
}

// indexerCache is an Indexer fed as ProcessOne feeds it: by the hint the
// FIFO popped with the key, then by the entry each change returns.
type indexerCache struct{ *Indexer }

func (c indexerCache) apply(key string, ds []Delta, hint *entry) {
	for _, d := range ds {
		if d.Type == Deleted {
			c.removeHinted(key, hint)
			hint = nil
		} else {
			_, _, hint = c.setHinted(key, d.Object.(api.Object), hint)
		}
	}
}

func (c indexerCache) known() knownObjects { return c.Indexer }

func (c indexerCache) contents() map[string]api.Object {
	out := map[string]api.Object{}
	for _, key := range c.ListKeys() {
		out[key], _ = c.Get(key)
	}
	return out
}

// naiveFIFO is DeltaFIFO's contract written as plainly as possible: a map
// of delta lists and a slice of keys, no bulk list, nothing reused.
type naiveFIFO struct {
	known       modelCache
	items       map[string][]Delta
	queue       []string
	replaced    bool
	initialLeft int
}

func (f *naiveFIFO) push(key string, d Delta) {
	old := f.items[key]
	if n := len(old); n > 0 && d.Type == Deleted && old[n-1].Type == Deleted {
		if _, guess := old[n-1].Object.(DeletedFinalStateUnknown); guess {
			old[n-1] = d // two deletions are one; keep the one that is not a guess
		}
		return
	}
	if len(old) == 0 {
		f.queue = append(f.queue, key)
	}
	f.items[key] = append(slices.Clone(old), d)
}

func (f *naiveFIFO) delete(obj api.Object) {
	key := KeyOf(obj)
	_, queued := f.items[key]
	if _, cached := f.known[key]; !queued && !cached {
		return
	}
	f.push(key, Delta{Type: Deleted, Object: obj})
}

func (f *naiveFIFO) replace(list []api.Object) {
	listed := map[string]bool{}
	for _, obj := range list {
		listed[KeyOf(obj)] = true
		f.push(KeyOf(obj), Delta{Type: Replaced, Object: obj})
	}
	for _, key := range slices.Clone(f.queue) {
		ds := f.items[key]
		if last := ds[len(ds)-1]; !listed[key] && last.Type != Deleted {
			listed[key] = true
			f.push(key, Delta{Type: Deleted, Object: DeletedFinalStateUnknown{Key: key, Obj: last.Object.(api.Object)}})
		}
	}
	for _, key := range f.known.ListKeys() {
		if !listed[key] {
			f.push(key, Delta{Type: Deleted, Object: DeletedFinalStateUnknown{Key: key, Obj: f.known[key]}})
		}
	}
	if !f.replaced {
		f.replaced, f.initialLeft = true, len(f.queue)
	}
}

func (f *naiveFIFO) resync() {
	for _, key := range f.known.ListKeys() {
		if len(f.items[key]) == 0 {
			f.push(key, Delta{Type: Sync, Object: f.known[key]})
		}
	}
}

func (f *naiveFIFO) pop() (key string, ds []Delta, initial, synced, ok bool) {
	if len(f.queue) > 0 {
		key, f.queue = f.queue[0], f.queue[1:]
		ds = f.items[key]
		delete(f.items, key)
		ok = true
		if f.initialLeft > 0 {
			f.initialLeft--
			initial = true
		}
	}
	return key, ds, initial, f.replaced && f.initialLeft == 0, ok
}

// TestDeltaFIFOAgainstNaive drives the FIFO and the naive one with the same
// random operations from seeded sources — adds, updates, deletes, batches
// of watch events, relists (into an empty FIFO, the bulk path, and into a
// busy one), resyncs and pops — each feeding its own cache from what it
// pops, and checks that every pop and length agrees. The fast FIFO feeds
// either a plain map or an Indexer; with the Indexer, the batches of watch
// events carry the cache entries heldKeys finds, as the reflector's do, and
// half of them are pushed only after later operations, so that the pops and
// changes in between leave some of those hints stale.
func TestDeltaFIFOAgainstNaive(t *testing.T) {
	names := []string{"a", "b", "c", "d", "e", "f", "g"}
	caches := map[string]func() fastCache{
		"map":     func() fastCache { return modelCache{} },
		"indexer": func() fastCache { return indexerCache{NewIndexer(nil)} },
	}
	for _, cache := range slices.Sorted(maps.Keys(caches)) {
		for seed := range uint64(30) {
			t.Run(fmt.Sprint(cache, "/seed", seed), func(t *testing.T) {
				testDeltaFIFOAgainstNaive(t, seed, names, caches[cache]())
			})
		}
	}
}

// heldBatch is a batch of watch events with their keys and hints, as the
// reflector hands them to pushEvents.
type heldBatch struct {
	evs  []client.WatchEvent
	keys []string
	ents []*entry
}

func testDeltaFIFOAgainstNaive(t *testing.T, seed uint64, names []string, fastKnown fastCache) {
	r := rand.New(rand.NewPCG(seed, 7))
	rv := 0
	object := func() *api.Pod {
		rv++
		return &api.Pod{Metadata: api.ObjectMeta{Namespace: "ns", Name: names[r.IntN(len(names))], ResourceVersion: fmt.Sprint(rv)}}
	}
	fast := NewDeltaFIFO(fastKnown.known())
	naive := &naiveFIFO{known: modelCache{}, items: map[string][]Delta{}}
	var held *heldBatch // made, hints found, not yet pushed
	push := func(b *heldBatch) {
		fast.pushEvents(b.evs, b.keys, b.ents)
		for _, ev := range b.evs {
			switch ev.Type {
			case api.WatchAdded:
				naive.push(KeyOf(ev.Object), Delta{Type: Added, Object: ev.Object})
			case api.WatchModified:
				naive.push(KeyOf(ev.Object), Delta{Type: Updated, Object: ev.Object})
			case api.WatchDeleted:
				naive.delete(ev.Object)
			}
		}
	}
	for op := range 1500 {
		var what string
		switch x := r.IntN(100); {
		case x < 15:
			o := object()
			what = "Add " + KeyOf(o)
			fast.Add(o)
			naive.push(KeyOf(o), Delta{Type: Added, Object: o})
		case x < 25:
			o := object()
			what = "Update " + KeyOf(o)
			fast.Update(o)
			naive.push(KeyOf(o), Delta{Type: Updated, Object: o})
		case x < 33:
			o := object()
			what = "Delete " + KeyOf(o)
			fast.Delete(o)
			naive.delete(o)
		case x < 45:
			b := &heldBatch{}
			for range r.IntN(70) { // past one chunk of the batch path now and then
				ev := client.WatchEvent{Type: []string{api.WatchAdded, api.WatchModified, api.WatchDeleted, api.WatchBookmark}[r.IntN(4)], Object: object()}
				b.evs = append(b.evs, ev)
				b.keys = append(b.keys, KeyOf(ev.Object))
			}
			b.ents = make([]*entry, len(b.evs))
			fast.heldKeys(b.evs, b.keys, b.ents)
			if held == nil && r.IntN(2) == 0 {
				what, held = "hold a batch", b // pushed later
				break
			}
			what = fmt.Sprintf("pushEvents %d", len(b.evs))
			push(b)
		case x < 48 && held != nil:
			what = fmt.Sprintf("pushEvents %d, held", len(held.evs))
			push(held)
			held = nil
		case x < 52:
			seen := map[string]bool{}
			var list []api.Object
			for range r.IntN(len(names) + 1) {
				if o := object(); !seen[KeyOf(o)] { // a list holds each key once
					seen[KeyOf(o)] = true
					list = append(list, o)
				}
			}
			what = fmt.Sprintf("Replace %d", len(list))
			fast.Replace(list)
			naive.replace(list)
		case x < 56:
			what = "Resync"
			fast.Resync()
			naive.resync()
		default:
			what = "pop"
			key, ds, hint, initial, synced, ok := fast.popReusing()
			wKey, wDs, wInitial, wSynced, wOK := naive.pop()
			require.Equal(t, wOK, ok, "op %d: pop ok", op)
			require.Equal(t, wKey, key, "op %d: pop key", op)
			require.Equal(t, wDs, ds, "op %d: deltas of %s", op, key)
			require.Equal(t, wInitial, initial, "op %d: isInInitialList", op)
			require.Equal(t, wSynced, synced, "op %d: synced", op)
			if ok {
				fastKnown.apply(key, ds, hint) // before the next pop takes ds back
				naive.known.apply(wKey, wDs, nil)
			}
		}
		checkFIFOInvariant(t, fast)
		if x, ok := fastKnown.(indexerCache); ok {
			checkIndexInvariant(t, x.Indexer)
		}
		require.Equal(t, len(naive.queue), fast.Len(), "after op %d (%s): Len", op, what)
		require.Equal(t, map[string]api.Object(naive.known), fastKnown.contents(), "after op %d (%s): the caches", op, what)
	}
}

// checkFIFOInvariant checks the DeltaFIFO's layout: every key in
// queue[head:] is there once, with deltas, and items names its position
// (base plus its index); items holds nothing else; popped slots are cleared.
func checkFIFOInvariant(t *testing.T, f *DeltaFIFO) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, q := range f.queue[:f.head] {
		require.Equal(t, fifoEntry{}, q, "popped slot %d is cleared", i)
	}
	for i := f.head; i < len(f.queue); i++ {
		q := f.queue[i]
		require.NotEmpty(t, q.deltas, "queued %s has deltas", q.key)
		pos, ok := f.items[q.key]
		require.True(t, ok, "queued %s is in items", q.key)
		require.Equal(t, f.base+i, pos, "the position items keeps for %s", q.key)
	}
	require.Len(t, f.items, len(f.queue)-f.head, "items holds only the queued keys")
}

// TestDeltaFIFOPositionsSurviveCompaction: a backlog large enough that
// popping moves the rest of the queue to the front of its array (past
// roomBelow, which the random test never reaches), with deltas for keys
// still queued arriving between pops, pops in the naive FIFO's order with
// its deltas.
func TestDeltaFIFOPositionsSurviveCompaction(t *testing.T) {
	const n = 3 * roomBelow
	fast := NewDeltaFIFO(modelCache{})
	naive := &naiveFIFO{known: modelCache{}, items: map[string][]Delta{}}
	pod := func(i, rv int) *api.Pod {
		return &api.Pod{Metadata: api.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("p%05d", i), ResourceVersion: fmt.Sprint(rv)}}
	}
	for i := range n {
		o := pod(i, 1)
		fast.Add(o)
		naive.push(KeyOf(o), Delta{Type: Added, Object: o})
	}
	compacted := false
	for popped := 0; fast.Len() > 0; popped++ {
		if popped%3 == 0 && popped+n/4 < n {
			o := pod(popped+n/4, 2) // a key still queued, behind the head
			fast.Update(o)
			naive.push(KeyOf(o), Delta{Type: Updated, Object: o})
		}
		if popped%5 == 0 {
			o := pod(n+popped, 1) // a new key, at the back
			fast.Add(o)
			naive.push(KeyOf(o), Delta{Type: Added, Object: o})
		}
		before := fast.base
		key, ds, _, _, _, ok := fast.popReusing()
		wKey, wDs, _, _, wOK := naive.pop()
		require.Equal(t, wOK, ok, "pop %d: ok", popped)
		require.Equal(t, wKey, key, "pop %d: key", popped)
		require.Equal(t, wDs, ds, "pop %d: deltas of %s", popped, key)
		if fast.base != before && fast.Len() > 0 {
			compacted = true
		}
		if popped%97 == 0 {
			checkFIFOInvariant(t, fast)
		}
	}
	assert.True(t, compacted, "the queue was moved to the front while keys were queued")
	checkFIFOInvariant(t, fast)
}

// BenchmarkDeltaFIFOPushPop: the informer's steady state — batches of 256
// watch events, a third of them for keys already queued, pushed and then
// popped until the FIFO is empty. Reports ns per event.
func BenchmarkDeltaFIFOPushPop(b *testing.B) {
	const batch, keys = 256, 100_000
	f := NewDeltaFIFO(modelCache{})
	evs := make([]client.WatchEvent, batch)
	ks := make([]string, batch)
	ents := make([]*entry, batch)
	pods := make([]*api.Pod, keys)
	names := make([]string, keys)
	for i := range pods {
		pods[i] = &api.Pod{Metadata: api.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("p%06d", i)}}
		names[i] = KeyOf(pods[i])
	}
	next := 0
	b.ReportAllocs()
	for b.Loop() {
		for i := range evs {
			j := next % keys
			if i%3 == 2 {
				j = (next - 1) % keys // the previous event's key: queued
			} else {
				next++
			}
			evs[i] = client.WatchEvent{Type: api.WatchModified, Object: pods[j]}
			ks[i] = names[j]
		}
		f.pushEvents(evs, ks, ents)
		for {
			if _, _, _, _, _, ok := f.popReusing(); !ok {
				break
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/event")
}
