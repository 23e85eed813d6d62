package informer_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/informer"
)

// cache is a fake of the cache a DeltaFIFO feeds: the FIFO only asks it which
// keys it holds and what is under each.
type cache map[string]api.Object

func (c cache) ListKeys() []string { return slices.Sorted(maps.Keys(c)) }

func (c cache) Get(key string) (api.Object, bool) {
	o, ok := c[key]
	return o, ok
}

// cached returns a cache holding objs.
func cached(objs ...api.Object) cache {
	c := cache{}
	for _, o := range objs {
		c[informer.KeyOf(o)] = o
	}
	return c
}

// obj returns a pod in namespace "ns" at resourceVersion rv.
func obj(name, rv string) *api.Pod {
	return &api.Pod{Metadata: api.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
}

// describeDeltas writes a key's deltas as "ns/a: Added@1 Deleted@2?" where
// "?" marks a DeletedFinalStateUnknown (whose @N is its last known state).
func describeDeltas(ds []informer.Delta) string {
	key := ""
	parts := make([]string, 0, len(ds))
	for _, d := range ds {
		o, unknown := informer.DeletedObject(d.Object) // any delta's object
		k := informer.KeyOf(o)
		if unknown {
			if ts := d.Object.(informer.DeletedFinalStateUnknown); ts.Key != k {
				k = "tombstone key " + ts.Key + " for " + k
			}
		}
		if key == "" {
			key = k
		} else if key != k {
			key += ", " + k // deltas of two keys under one: a bug
		}
		s := string(d.Type) + "@" + o.GetObjectMeta().ResourceVersion
		if unknown {
			s += "?"
		}
		parts = append(parts, s)
	}
	return key + ": " + strings.Join(parts, " ")
}

// popAll pops everything and describes it, one line per key.
func popAll(f *informer.DeltaFIFO) []string {
	var out []string
	for {
		_, ds, _, ok := f.Pop()
		if !ok {
			return out
		}
		out = append(out, describeDeltas(ds))
	}
}

func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

func TestDeltaFIFOQueuesPerKeyInOrderOfFirstChange(t *testing.T) {
	tests := []struct {
		name string
		ops  func(f *informer.DeltaFIFO)
		want []string
	}{
		{
			name: "one key accumulates every change, oldest first",
			ops: func(f *informer.DeltaFIFO) {
				f.Add(obj("a", "1"))
				f.Update(obj("a", "2"))
				f.Update(obj("a", "3"))
			},
			want: []string{"ns/a: Added@1 Updated@2 Updated@3"},
		},
		{
			name: "keys pop in the order they first changed, not last",
			ops: func(f *informer.DeltaFIFO) {
				f.Add(obj("b", "1"))
				f.Add(obj("a", "2"))
				f.Update(obj("b", "3"))
				f.Add(obj("c", "4"))
				f.Update(obj("a", "5"))
			},
			want: []string{
				"ns/b: Added@1 Updated@3",
				"ns/a: Added@2 Updated@5",
				"ns/c: Added@4",
			},
		},
		{
			name: "a popped key that changes again queues at the back",
			ops: func(f *informer.DeltaFIFO) {
				f.Add(obj("a", "1"))
				f.Add(obj("b", "2"))
				_, _, _, _ = f.Pop() // ns/a
				f.Update(obj("a", "3"))
			},
			want: []string{"ns/b: Added@2", "ns/a: Updated@3"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := informer.NewDeltaFIFO(cache{})
			tt.ops(f)
			assert.Equal(t, len(tt.want), f.Len(), "Len counts keys")
			assert.Equal(t, tt.want, popAll(f))
		})
	}
}

func TestDeltaFIFOCollapsesConsecutiveDeletes(t *testing.T) {
	tests := []struct {
		name string
		ops  func(f *informer.DeltaFIFO)
		want []string
	}{
		{
			name: "two real deletes keep the first",
			ops: func(f *informer.DeltaFIFO) {
				f.Delete(obj("a", "5"))
				f.Delete(obj("a", "6"))
			},
			want: []string{"ns/a: Deleted@5"},
		},
		{
			name: "a real delete replaces the tombstone before it",
			ops: func(f *informer.DeltaFIFO) {
				f.Replace(nil) // ns/a is cached, not listed: a tombstone
				f.Delete(obj("a", "6"))
			},
			want: []string{"ns/a: Deleted@6"},
		},
		{
			name: "a tombstone after a real delete is dropped",
			ops: func(f *informer.DeltaFIFO) {
				f.Delete(obj("a", "5"))
				f.Replace(nil)
			},
			want: []string{"ns/a: Deleted@5"},
		},
		{
			name: "deletes that are not consecutive are both kept",
			ops: func(f *informer.DeltaFIFO) {
				f.Delete(obj("a", "5"))
				f.Add(obj("a", "6"))
				f.Delete(obj("a", "7"))
			},
			want: []string{"ns/a: Deleted@5 Added@6 Deleted@7"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := informer.NewDeltaFIFO(cached(obj("a", "1")))
			tt.ops(f)
			assert.Equal(t, tt.want, popAll(f))
		})
	}
}

func TestDeltaFIFODeleteOfUnknownKey(t *testing.T) {
	tests := []struct {
		name  string
		known cache
		ops   func(f *informer.DeltaFIFO)
		want  []string
	}{
		{
			name:  "neither queued nor cached: ignored",
			known: cache{},
			ops:   func(f *informer.DeltaFIFO) { f.Delete(obj("a", "2")) },
			want:  nil,
		},
		{
			name:  "queued but not cached: queued after the add",
			known: cache{},
			ops: func(f *informer.DeltaFIFO) {
				f.Add(obj("a", "1"))
				f.Delete(obj("a", "2"))
			},
			want: []string{"ns/a: Added@1 Deleted@2"},
		},
		{
			name:  "cached but not queued: queued",
			known: cached(obj("a", "1")),
			ops:   func(f *informer.DeltaFIFO) { f.Delete(obj("a", "2")) },
			want:  []string{"ns/a: Deleted@2"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := informer.NewDeltaFIFO(tt.known)
			tt.ops(f)
			assert.Equal(t, len(tt.want) > 0, isClosed(f.Ready()), "Ready")
			assert.Equal(t, tt.want, popAll(f))
		})
	}
}

func TestDeltaFIFOReplace(t *testing.T) {
	tests := []struct {
		name  string
		known cache
		ops   func(f *informer.DeltaFIFO) // before the Replace
		list  []api.Object
		want  []string
	}{
		{
			name: "listed objects are Replaced, in list order",
			list: []api.Object{obj("b", "1"), obj("a", "2")},
			want: []string{"ns/b: Replaced@1", "ns/a: Replaced@2"},
		},
		{
			name:  "cached but not listed: a tombstone holding the cached object",
			known: cached(obj("a", "1"), obj("b", "1")),
			list:  []api.Object{obj("a", "2")},
			want:  []string{"ns/a: Replaced@2", "ns/b: Deleted@1?"},
		},
		{
			name: "queued but not listed: a tombstone holding the newest queued object",
			ops: func(f *informer.DeltaFIFO) {
				f.Add(obj("c", "2"))
				f.Update(obj("c", "3"))
			},
			want: []string{"ns/c: Added@2 Updated@3 Deleted@3?"},
		},
		{
			name:  "cached and queued but not listed: the queued object is the newer guess",
			known: cached(obj("e", "1")),
			ops:   func(f *informer.DeltaFIFO) { f.Update(obj("e", "2")) },
			want:  []string{"ns/e: Updated@2 Deleted@2?"},
		},
		{
			name:  "a queued delete that is not listed gets no tombstone",
			known: cached(obj("d", "1")),
			ops:   func(f *informer.DeltaFIFO) { f.Delete(obj("d", "4")) },
			want:  []string{"ns/d: Deleted@4"},
		},
		{
			name: "queued and listed: Replaced after the queued deltas",
			ops:  func(f *informer.DeltaFIFO) { f.Add(obj("d", "3")) },
			list: []api.Object{obj("d", "4")},
			want: []string{"ns/d: Added@3 Replaced@4"},
		},
		{
			name:  "queued keys first, then listed, then cached-only, each once",
			known: cached(obj("a", "1"), obj("b", "1")),
			ops: func(f *informer.DeltaFIFO) {
				f.Add(obj("c", "2"))
				f.Add(obj("d", "3"))
			},
			list: []api.Object{obj("a", "5"), obj("d", "5")},
			want: []string{
				"ns/c: Added@2 Deleted@2?",
				"ns/d: Added@3 Replaced@5",
				"ns/a: Replaced@5",
				"ns/b: Deleted@1?",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			known := tt.known
			if known == nil {
				known = cache{}
			}
			f := informer.NewDeltaFIFO(known)
			if tt.ops != nil {
				tt.ops(f)
			}
			f.Replace(tt.list)
			assert.Equal(t, tt.want, popAll(f))
		})
	}
}

// TestDeltaFIFOTombstoneHoldsTheLastKnownObject checks the tombstone carries
// the very object last known, not a copy or a newer one.
func TestDeltaFIFOTombstoneHoldsTheLastKnownObject(t *testing.T) {
	inCache, queued := obj("a", "1"), obj("b", "2")
	f := informer.NewDeltaFIFO(cached(inCache))
	f.Add(queued)
	f.Replace(nil)

	var got []informer.DeletedFinalStateUnknown
	for {
		_, ds, _, ok := f.Pop()
		if !ok {
			break
		}
		last := ds[len(ds)-1]
		require.Equal(t, informer.Deleted, last.Type)
		got = append(got, last.Object.(informer.DeletedFinalStateUnknown))
	}
	require.Len(t, got, 2)
	assert.Equal(t, "ns/b", got[0].Key)
	assert.Same(t, queued, got[0].Obj)
	assert.Equal(t, "ns/a", got[1].Key)
	assert.Same(t, inCache, got[1].Obj)
}

func TestDeltaFIFOResync(t *testing.T) {
	tests := []struct {
		name  string
		known cache
		ops   func(f *informer.DeltaFIFO) // before the Resync
		want  []string
	}{
		{
			name:  "every cached object gets a Sync",
			known: cached(obj("a", "1"), obj("b", "1")),
			want:  []string{"ns/a: Sync@1", "ns/b: Sync@1"},
		},
		{
			name:  "a key with pending deltas is skipped",
			known: cached(obj("a", "1"), obj("b", "1")),
			ops:   func(f *informer.DeltaFIFO) { f.Update(obj("a", "2")) },
			want:  []string{"ns/a: Updated@2", "ns/b: Sync@1"},
		},
		{
			name:  "a key with a pending delete is skipped",
			known: cached(obj("a", "1")),
			ops:   func(f *informer.DeltaFIFO) { f.Delete(obj("a", "2")) },
			want:  []string{"ns/a: Deleted@2"},
		},
		{
			name:  "nothing cached: nothing queued",
			known: cache{},
			want:  nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := informer.NewDeltaFIFO(tt.known)
			if tt.ops != nil {
				tt.ops(f)
			}
			f.Resync()
			assert.Equal(t, tt.want, popAll(f))
		})
	}
}

func TestDeltaFIFOInitialListAndHasSynced(t *testing.T) {
	type pop struct {
		key         string
		initial     bool
		syncedAfter bool
	}
	tests := []struct {
		name         string
		known        cache
		ops          func(f *informer.DeltaFIFO) // ends with the first Replace
		syncedBefore bool                        // HasSynced before the first Pop
		pops         []pop
	}{
		{
			name: "synced once the first list is fully popped; later keys are not initial",
			ops: func(f *informer.DeltaFIFO) {
				f.Replace([]api.Object{obj("a", "1"), obj("b", "1")})
				f.Add(obj("c", "2"))
			},
			pops: []pop{{"ns/a", true, false}, {"ns/b", true, true}, {"ns/c", false, true}},
		},
		{
			name: "keys queued before the first Replace count as initial",
			ops: func(f *informer.DeltaFIFO) {
				f.Add(obj("z", "1"))
				f.Replace([]api.Object{obj("a", "2")})
			},
			pops: []pop{{"ns/z", true, false}, {"ns/a", true, true}},
		},
		{
			name:  "the first Replace's tombstones count as initial",
			known: cached(obj("b", "1")),
			ops:   func(f *informer.DeltaFIFO) { f.Replace([]api.Object{obj("a", "1")}) },
			pops:  []pop{{"ns/a", true, false}, {"ns/b", true, true}},
		},
		{
			name: "a second Replace is not initial and does not unsync",
			ops: func(f *informer.DeltaFIFO) {
				f.Replace([]api.Object{obj("a", "1")})
				_, _, _, _ = f.Pop()
				f.Replace([]api.Object{obj("a", "2")})
			},
			syncedBefore: true,
			pops:         []pop{{"ns/a", false, true}},
		},
		{
			name:         "an empty first Replace syncs at once",
			ops:          func(f *informer.DeltaFIFO) { f.Replace(nil) },
			syncedBefore: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			known := tt.known
			if known == nil {
				known = cache{}
			}
			f := informer.NewDeltaFIFO(known)
			assert.False(t, f.HasSynced(), "before any Replace")
			tt.ops(f)
			assert.Equal(t, tt.syncedBefore, f.HasSynced(), "HasSynced before popping")
			for _, want := range tt.pops {
				_, ds, initial, ok := f.Pop()
				require.True(t, ok)
				assert.Equal(t, want.key, strings.SplitN(describeDeltas(ds), ":", 2)[0])
				assert.Equal(t, want.initial, initial, "isInInitialList of %s", want.key)
				assert.Equal(t, want.syncedAfter, f.HasSynced(), "HasSynced after popping %s", want.key)
			}
			_, _, _, ok := f.Pop()
			assert.False(t, ok, "nothing else queued")
		})
	}
}

func TestDeltaFIFOReadyIsClosedWhileSomethingIsQueued(t *testing.T) {
	f := informer.NewDeltaFIFO(cache{})
	assert.False(t, isClosed(f.Ready()), "empty")
	_, _, _, ok := f.Pop()
	assert.False(t, ok, "Pop on an empty FIFO returns at once with nothing")

	f.Add(obj("a", "1"))
	ready := f.Ready()
	assert.True(t, isClosed(ready), "after an add")
	f.Add(obj("b", "1"))
	assert.True(t, isClosed(f.Ready()), "after a second add")

	_, _, _, _ = f.Pop()
	assert.True(t, isClosed(f.Ready()), "one key still queued")
	_, _, _, _ = f.Pop()
	assert.False(t, isClosed(f.Ready()), "emptied")

	f.Update(obj("a", "2"))
	assert.True(t, isClosed(f.Ready()), "queued again")
	_, _, _, _ = f.Pop()

	f.Close()
	assert.True(t, isClosed(f.Ready()), "closed while empty")
	f.Add(obj("c", "1"))
	_, _, _, _ = f.Pop()
	assert.True(t, isClosed(f.Ready()), "a closed FIFO stays ready after it empties")
	assert.Equal(t, 0, f.Len())
}

// TestDeltaFIFOChangesWhileAListIsPending: a list that arrives while
// nothing is queued is held as it came until popped; anything that happens
// to its keys meanwhile merges with them, in order, as if every listed key
// had been queued at once.
func TestDeltaFIFOChangesWhileAListIsPending(t *testing.T) {
	tests := []struct {
		name  string
		known cache
		ops   func(f *informer.DeltaFIFO) // after Replace(a@1, b@1, c@1) and one Pop
		want  []string
	}{
		{
			name: "nothing else: the rest of the list in order",
			ops:  func(*informer.DeltaFIFO) {},
			want: []string{"ns/b: Replaced@1", "ns/c: Replaced@1"},
		},
		{
			name: "an update of a listed key joins its deltas; a new key queues after the list",
			ops: func(f *informer.DeltaFIFO) {
				f.Update(obj("c", "2"))
				f.Add(obj("d", "2"))
			},
			want: []string{"ns/b: Replaced@1", "ns/c: Replaced@1 Updated@2", "ns/d: Added@2"},
		},
		{
			name: "a delete of a listed key joins its deltas",
			ops:  func(f *informer.DeltaFIFO) { f.Delete(obj("b", "3")) },
			want: []string{"ns/b: Replaced@1 Deleted@3", "ns/c: Replaced@1"},
		},
		{
			name: "a second list: pending keys it lacks get a tombstone of their listed state",
			ops:  func(f *informer.DeltaFIFO) { f.Replace([]api.Object{obj("c", "4")}) },
			want: []string{"ns/b: Replaced@1 Deleted@1?", "ns/c: Replaced@1 Replaced@4"},
		},
		{
			name:  "a resync skips the keys the list still holds",
			known: cached(obj("b", "0"), obj("z", "0")),
			ops:   func(f *informer.DeltaFIFO) { f.Resync() },
			want:  []string{"ns/b: Replaced@1", "ns/c: Replaced@1", "ns/z: Deleted@0?"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			known := tt.known
			if known == nil {
				known = cache{}
			}
			f := informer.NewDeltaFIFO(known)
			f.Replace([]api.Object{obj("a", "1"), obj("b", "1"), obj("c", "1")})
			key, ds, initial, ok := f.Pop()
			require.True(t, ok)
			assert.Equal(t, "ns/a", key)
			assert.True(t, initial)
			assert.Equal(t, "ns/a: Replaced@1", describeDeltas(ds))
			tt.ops(f)
			assert.Equal(t, tt.want, popAll(f))
			assert.True(t, f.HasSynced())
		})
	}
}

// TestDeltaFIFOIsFullPast1024Keys: Full reports a backlog of more than
// 1024 keys, and its channel closes once popping brings it down to 1024 —
// whether the keys came from a list or one by one — or the FIFO closes.
func TestDeltaFIFOIsFullPast1024Keys(t *testing.T) {
	const limit = 1024
	many := func(n int) []api.Object {
		objs := make([]api.Object, n)
		for i := range objs {
			objs[i] = obj(fmt.Sprintf("p%04d", i), "1")
		}
		return objs
	}
	tests := []struct {
		name string
		fill func(f *informer.DeltaFIFO, objs []api.Object)
	}{
		{"a list", func(f *informer.DeltaFIFO, objs []api.Object) { f.Replace(objs) }},
		{"adds", func(f *informer.DeltaFIFO, objs []api.Object) {
			for _, o := range objs {
				f.Add(o)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := informer.NewDeltaFIFO(cache{})
			tt.fill(f, many(limit))
			_, full := f.Full()
			require.False(t, full, "1024 keys")
			f.Add(obj("extra", "1"))
			room, full := f.Full()
			require.True(t, full, "1025 keys")
			assert.False(t, isClosed(room))
			_, _, _, ok := f.Pop()
			require.True(t, ok)
			assert.True(t, isClosed(room), "back to 1024")
			_, full = f.Full()
			assert.False(t, full)
		})
	}
	t.Run("closing ends the wait", func(t *testing.T) {
		f := informer.NewDeltaFIFO(cache{})
		f.Replace(many(limit + 1))
		room, full := f.Full()
		require.True(t, full)
		f.Close()
		assert.True(t, isClosed(room))
		_, full = f.Full()
		assert.False(t, full)
	})
}

// TestDeltaFIFOLongBacklogKeepsOrder: a backlog well past 1024 keys, popped
// and added to in turns (the FIFO moves what is left of a mostly popped
// queue to the front of its array), hands every key out once, in the order
// it was first queued, with its deltas merged.
func TestDeltaFIFOLongBacklogKeepsOrder(t *testing.T) {
	f := informer.NewDeltaFIFO(cached())
	var want []string
	next := 0
	add := func(n int) {
		for range n {
			name := fmt.Sprintf("p%05d", next)
			f.Add(obj(name, "1"))
			want = append(want, "ns/"+name+": Added@1")
			next++
		}
	}
	var got []string
	pop := func(n int) {
		for range n {
			key, ds, _, ok := f.Pop()
			require.True(t, ok, "pop %d", len(got))
			if strings.HasSuffix(key, "0") {
				f.Update(obj(strings.TrimPrefix(key, "ns/"), "2")) // queued again, at the back
				want = append(want, key+": Updated@2")
			}
			got = append(got, describeDeltas(ds))
		}
	}
	add(3000)
	pop(2500) // past half of a 3000-key array: what is left moves to the front
	add(1000)
	f.Update(obj("p03999", "3")) // merges with its queued Added
	want[slices.Index(want, "ns/p03999: Added@1")] = "ns/p03999: Added@1 Updated@3"
	pop(1000)
	got = append(got, popAll(f)...)
	assert.Equal(t, want, got)
	assert.Zero(t, f.Len())
}
