package informer

// The indexer's writes (set, remove) are the informer's alone, so these tests
// are inside the package.

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
)

func ixPod(ns, name string, labels map[string]string) *api.Pod {
	return &api.Pod{Metadata: api.ObjectMeta{Namespace: ns, Name: name, Labels: labels}}
}

// byApp indexes by the "app" label; objects without one are not indexed.
func byApp(obj api.Object) []string {
	if v, ok := obj.GetObjectMeta().Labels["app"]; ok {
		return []string{v}
	}
	return nil
}

// byLabelKey indexes by every label key: several values per object.
func byLabelKey(obj api.Object) []string {
	return slices.Sorted(maps.Keys(obj.GetObjectMeta().Labels))
}

// reversedTwice indexes by every label key, in reverse order, and by
// "twice" twice when the pod has that label: an index function's values
// need not be sorted or distinct.
func reversedTwice(obj api.Object) []string {
	keys := byLabelKey(obj)
	slices.Reverse(keys)
	if _, ok := obj.GetObjectMeta().Labels["twice"]; ok {
		keys = append(keys, "twice")
	}
	return keys
}

// checkIndexInvariant recomputes every index from the items and compares:
// every entry is filed under its own key; indices[name][v] holds, sorted by
// key and each once, exactly the entries whose object has v, and no value
// maps to an empty list; byNamespace lists each namespace's entries once,
// at the positions the entries record, and no namespace maps to an empty
// list.
func checkIndexInvariant(t *testing.T, x *Indexer) {
	t.Helper()
	x.mu.RLock()
	defer x.mu.RUnlock()
	for key, e := range x.items {
		assert.Equal(t, key, e.key, "the entry filed under %s", key)
		if assert.Len(t, e.vals, len(x.extra), "the values kept for %s", key) {
			for i, ix := range x.extra {
				assert.Equal(t, ix.f(e.obj), e.vals[i], "the values kept for %s in index %s", key, ix.name)
			}
		}
	}
	require.Len(t, x.extra, len(x.indices), "every index but the namespace one is in extra")
	for _, ix := range x.extra {
		assert.Equal(t, reflect.ValueOf(x.indices[ix.name]).Pointer(), reflect.ValueOf(ix.idx).Pointer(), "extra's map of %s is the one in indices", ix.name)
	}
	want := map[string]map[string][]string{}
	for name, f := range x.indexers {
		if name == NamespaceIndex {
			continue
		}
		idx := map[string][]string{}
		for key, e := range x.items {
			for _, v := range f(e.obj) {
				if !slices.Contains(idx[v], key) {
					idx[v] = append(idx[v], key)
				}
			}
		}
		for _, keys := range idx {
			slices.Sort(keys)
		}
		want[name] = idx
	}
	got := map[string]map[string][]string{}
	for name, idx := range x.indices {
		got[name] = map[string][]string{}
		for v, list := range idx {
			for _, e := range list {
				assert.Same(t, x.items[e.key], e, "index %s value %s holds the cached entry of %s", name, v, e.key)
				got[name][v] = append(got[name][v], e.key)
			}
		}
	}
	assert.Equal(t, want, got, "indices match the items")

	wantNS := map[string][]string{}
	for key, e := range x.items {
		ns := NamespaceIndexFunc(e.obj)[0]
		wantNS[ns] = append(wantNS[ns], key)
		if list := x.byNamespace[ns]; assert.Less(t, e.nsPos, len(list), "position of %s", key) {
			assert.Same(t, e, list[e.nsPos], "position of %s", key)
		}
	}
	gotNS := map[string][]string{}
	for ns, list := range x.byNamespace {
		for _, e := range list {
			gotNS[ns] = append(gotNS[ns], e.key)
		}
		slices.Sort(gotNS[ns])
	}
	for ns := range wantNS {
		slices.Sort(wantNS[ns])
	}
	assert.Equal(t, wantNS, gotNS, "the namespace index matches the items")
}

// keysOf returns the objects' keys; nil for none.
func keysOf(objs []api.Object) []string {
	var out []string
	for _, o := range objs {
		out = append(out, KeyOf(o))
	}
	return out
}

func TestIndexerGetAndListInKeyOrder(t *testing.T) {
	x := NewIndexer(nil)
	objs := []api.Object{
		ixPod("ns-b", "x", nil),
		ixPod("ns-a", "z", nil),
		&api.Node{Metadata: api.ObjectMeta{Name: "n1"}}, // cluster-scoped: key is the name
		ixPod("ns-a", "b", nil),
	}
	for _, o := range objs {
		set(x, o)
	}

	wantKeys := []string{"n1", "ns-a/b", "ns-a/z", "ns-b/x"}
	assert.Equal(t, wantKeys, x.ListKeys())
	assert.Equal(t, wantKeys, keysOf(x.List()))
	assert.Equal(t, 4, x.Len())

	got, ok := x.Get("ns-a/z")
	require.True(t, ok)
	assert.Same(t, objs[1], got, "Get returns the stored object itself")
	_, ok = x.Get("ns-a/missing")
	assert.False(t, ok)
	checkIndexInvariant(t, x)
}

func TestIndexerSetAndRemoveReturnWhatTheyReplaced(t *testing.T) {
	x := NewIndexer(nil)
	v1, v2 := ixPod("ns", "a", nil), ixPod("ns", "a", map[string]string{"v": "2"})

	old, existed := set(x, v1)
	assert.False(t, existed, "first set")
	assert.Nil(t, old)

	old, existed = set(x, v2)
	assert.True(t, existed, "second set")
	assert.Same(t, v1, old)
	got, _ := x.Get("ns/a")
	assert.Same(t, v2, got)

	old, existed = x.remove("ns/a")
	assert.True(t, existed, "remove")
	assert.Same(t, v2, old)
	assert.Equal(t, 0, x.Len())

	old, existed = x.remove("ns/a")
	assert.False(t, existed, "remove of a missing key")
	assert.Nil(t, old)
	checkIndexInvariant(t, x)
}

func TestIndexerIndexesStayConsistent(t *testing.T) {
	type query struct {
		index, value string
		want         []string
	}
	tests := []struct {
		name    string
		ops     func(x *Indexer)
		queries []query
	}{
		{
			name: "the namespace index groups keys by namespace, in key order",
			ops: func(x *Indexer) {
				set(x, ixPod("b", "2", nil))
				set(x, ixPod("a", "9", nil))
				set(x, ixPod("b", "1", nil))
			},
			queries: []query{
				{NamespaceIndex, "a", []string{"a/9"}},
				{NamespaceIndex, "b", []string{"b/1", "b/2"}},
				{NamespaceIndex, "c", nil},
			},
		},
		{
			name: "a custom index groups keys by its values",
			ops: func(x *Indexer) {
				set(x, ixPod("a", "web-1", map[string]string{"app": "web"}))
				set(x, ixPod("b", "web-2", map[string]string{"app": "web"}))
				set(x, ixPod("a", "db-1", map[string]string{"app": "db"}))
				set(x, ixPod("a", "bare", nil))
			},
			queries: []query{
				{"app", "web", []string{"a/web-1", "b/web-2"}},
				{"app", "db", []string{"a/db-1"}},
				{"app", "", nil},
			},
		},
		{
			name: "an update that changes the value moves the key",
			ops: func(x *Indexer) {
				set(x, ixPod("a", "p", map[string]string{"app": "web"}))
				set(x, ixPod("a", "q", map[string]string{"app": "web"}))
				set(x, ixPod("a", "p", map[string]string{"app": "db"}))
			},
			queries: []query{
				{"app", "web", []string{"a/q"}},
				{"app", "db", []string{"a/p"}},
			},
		},
		{
			name: "an update that loses the value unindexes the key",
			ops: func(x *Indexer) {
				set(x, ixPod("a", "p", map[string]string{"app": "web"}))
				set(x, ixPod("a", "p", nil))
			},
			queries: []query{
				{"app", "web", nil},
				{NamespaceIndex, "a", []string{"a/p"}},
			},
		},
		{
			name: "a remove drops the key from every index",
			ops: func(x *Indexer) {
				set(x, ixPod("a", "p", map[string]string{"app": "web", "tier": "front"}))
				set(x, ixPod("a", "q", map[string]string{"app": "web"}))
				x.remove("a/p")
			},
			queries: []query{
				{"app", "web", []string{"a/q"}},
				{"labelKey", "tier", nil},
				{"labelKey", "app", []string{"a/q"}},
				{NamespaceIndex, "a", []string{"a/q"}},
			},
		},
		{
			name: "removes from the middle, the end and the last of a namespace",
			ops: func(x *Indexer) {
				for _, name := range []string{"p", "q", "r", "s"} {
					set(x, ixPod("a", name, nil))
				}
				set(x, ixPod("b", "only", nil))
				set(x, ixPod("", "node-1", nil)) // cluster-scoped: namespace ""
				x.remove("a/q")                  // the middle: the last key moves into its place
				x.remove("a/s")                  // now the last
				x.remove("b/only")               // the namespace empties
				set(x, ixPod("a", "t", nil))
			},
			queries: []query{
				{NamespaceIndex, "a", []string{"a/p", "a/r", "a/t"}},
				{NamespaceIndex, "b", nil},
				{NamespaceIndex, "", []string{"node-1"}},
			},
		},
		{
			name: "a multi-valued index lists the key under each value",
			ops: func(x *Indexer) {
				set(x, ixPod("a", "p", map[string]string{"app": "web", "tier": "front"}))
				set(x, ixPod("a", "q", map[string]string{"tier": "back"}))
			},
			queries: []query{
				{"labelKey", "app", []string{"a/p"}},
				{"labelKey", "tier", []string{"a/p", "a/q"}},
			},
		},
		{
			name: "an update that keeps its values keeps the key in place",
			ops: func(x *Indexer) {
				set(x, ixPod("a", "p", map[string]string{"app": "web", "tier": "front"}))
				set(x, ixPod("a", "o", map[string]string{"app": "web"}))
				set(x, ixPod("a", "p", map[string]string{"app": "web", "tier": "front", "v": "2"}))
			},
			queries: []query{
				{"app", "web", []string{"a/o", "a/p"}},
				{"labelKey", "tier", []string{"a/p"}},
				{"labelKey", "v", []string{"a/p"}},
			},
		},
		{
			name: "values given in another order, or twice, are the same values",
			ops: func(x *Indexer) {
				set(x, ixPod("a", "p", map[string]string{"app": "web", "tier": "front"}))
				set(x, ixPod("a", "p", map[string]string{"app": "web", "tier": "front", "twice": "yes"}))
				set(x, ixPod("a", "p", map[string]string{"app": "web", "tier": "front"}))
			},
			queries: []query{
				{"labelKey", "app", []string{"a/p"}},
				{"labelKey", "tier", []string{"a/p"}},
				{"labelKey", "twice", nil},
				{"reversed", "app", []string{"a/p"}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := NewIndexer(map[string]IndexFunc{"app": byApp, "labelKey": byLabelKey, "reversed": reversedTwice})
			tt.ops(x)
			for _, q := range tt.queries {
				keys, err := x.IndexKeys(q.index, q.value)
				require.NoError(t, err)
				assert.Equal(t, q.want, keys, "IndexKeys(%q, %q)", q.index, q.value)
				objs, err := x.ByIndex(q.index, q.value)
				require.NoError(t, err)
				assert.Equal(t, q.want, keysOf(objs), "ByIndex(%q, %q)", q.index, q.value)
				for _, o := range objs {
					stored, _ := x.Get(KeyOf(o))
					assert.Same(t, stored, o, "ByIndex returns the stored objects")
				}
				pods, err := ByIndexOf[*api.Pod](x, q.index, q.value)
				require.NoError(t, err)
				require.Len(t, pods, len(objs))
				for i, p := range pods {
					assert.Same(t, objs[i], p, "ByIndexOf(%q, %q) returns what ByIndex does", q.index, q.value)
				}
			}
			checkIndexInvariant(t, x)
		})
	}
}

func TestIndexerUnknownIndexIsAnError(t *testing.T) {
	x := NewIndexer(nil)
	_, err := x.ByIndex("app", "web")
	assert.ErrorContains(t, err, `no index named "app"`)
	_, err = x.IndexKeys("app", "web")
	assert.ErrorContains(t, err, `no index named "app"`)
	_, err = ByIndexOf[*api.Pod](x, "app", "web")
	assert.ErrorContains(t, err, `no index named "app"`)
}

func TestIndexerAddIndexersOnAPopulatedCache(t *testing.T) {
	x := NewIndexer(nil)
	set(x, ixPod("a", "web-1", map[string]string{"app": "web"}))
	set(x, ixPod("b", "web-2", map[string]string{"app": "web"}))
	set(x, ixPod("a", "db-1", map[string]string{"app": "db"}))

	require.NoError(t, x.AddIndexers(map[string]IndexFunc{"app": byApp}))
	keys, err := x.IndexKeys("app", "web")
	require.NoError(t, err)
	assert.Equal(t, []string{"a/web-1", "b/web-2"}, keys, "what was cached is indexed")
	checkIndexInvariant(t, x)

	set(x, ixPod("a", "web-1", map[string]string{"app": "db"}))
	set(x, ixPod("c", "web-3", map[string]string{"app": "web"}))
	keys, _ = x.IndexKeys("app", "web")
	assert.Equal(t, []string{"b/web-2", "c/web-3"}, keys, "later writes keep the new index up to date")
	keys, _ = x.IndexKeys("app", "db")
	assert.Equal(t, []string{"a/db-1", "a/web-1"}, keys)
	checkIndexInvariant(t, x)
}

func TestIndexerAddIndexersRejectsATakenName(t *testing.T) {
	tests := []struct {
		name  string
		add   map[string]IndexFunc
		error string
	}{
		{
			name:  "the namespace index is always taken",
			add:   map[string]IndexFunc{NamespaceIndex: byApp},
			error: `index "namespace" already exists`,
		},
		{
			name:  "an index given to NewIndexer is taken",
			add:   map[string]IndexFunc{"app": byLabelKey},
			error: `index "app" already exists`,
		},
		{
			name:  "one taken name rejects them all",
			add:   map[string]IndexFunc{"app": byLabelKey, "fresh": byLabelKey},
			error: `index "app" already exists`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := NewIndexer(map[string]IndexFunc{"app": byApp})
			set(x, ixPod("a", "p", map[string]string{"app": "web"}))

			err := x.AddIndexers(tt.add)
			assert.ErrorContains(t, err, tt.error)

			_, err = x.IndexKeys("fresh", "app")
			assert.Error(t, err, "nothing was added")
			keys, err := x.IndexKeys("app", "web")
			require.NoError(t, err)
			assert.Equal(t, []string{"a/p"}, keys, "the existing index is unchanged")
			checkIndexInvariant(t, x)
		})
	}
}

// set stores o under its own key.
func set(x *Indexer, o api.Object) (api.Object, bool) { return x.set(KeyOf(o), o) }

// TestIndexerRandomWritesKeepTheInvariant applies a long random sequence of
// sets and removes, labels coming and going, and checks the indexes against
// the items after each step.
func TestIndexerRandomWritesKeepTheInvariant(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	x := NewIndexer(map[string]IndexFunc{"app": byApp, "labelKey": byLabelKey, "reversed": reversedTwice})
	labelSets := []map[string]string{
		nil,
		{"app": "web"},
		{"app": "db", "tier": "back"},
		{"app": "web", "tier": "front", "twice": "yes"},
		{"tier": "front"},
	}
	for step := range 2000 {
		key := fmt.Sprintf("p%02d", rng.IntN(40))
		ns := []string{"a", "b"}[rng.IntN(2)]
		if rng.IntN(4) == 0 {
			x.remove(ns + "/" + key)
		} else {
			set(x, ixPod(ns, key, labelSets[rng.IntN(len(labelSets))]))
		}
		if step%50 == 0 || step == 1999 {
			checkIndexInvariant(t, x)
		}
	}
}

// TestPositionOfAgreesWithBinarySearch: positionOf, which scans short lists
// for the pointer instead of searching by key, finds every entry where the
// binary search on keys does, on both sides of scanBelow, and finds no entry
// that is not in the list.
func TestPositionOfAgreesWithBinarySearch(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, scanBelow - 1, scanBelow, scanBelow + 1, 2*scanBelow + 3} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			list := make([]*entry, n)
			for i := range list {
				list[i] = &entry{key: fmt.Sprintf("ns/p%05d", 2*i+1)}
			}
			for i, e := range list {
				wantPos, wantFound := slices.BinarySearchFunc(list, e, byKey)
				require.True(t, wantFound, "the reference finds %s", e.key)
				pos, found := positionOf(list, e)
				assert.True(t, found, "%s is found", e.key)
				assert.Equal(t, wantPos, pos, "the position of %s", e.key)
				assert.Equal(t, i, pos, "the position of %s", e.key)
			}
			for i := range n + 1 {
				absent := &entry{key: fmt.Sprintf("ns/p%05d", 2*i)}
				_, found := positionOf(list, absent)
				assert.False(t, found, "%s is not in the list", absent.key)
			}
		})
	}
}

// TestHeldKeysAreTheKeysOfTheEvents: heldKeys fills in exactly the keys of
// the updates and deletions of cached objects, each the cache's own string
// and equal to KeyOf (what the reflector would make instead), and leaves
// adds, bookmarks and objects not cached to the reflector.
func TestHeldKeysAreTheKeysOfTheEvents(t *testing.T) {
	x := NewIndexer(nil)
	cachedPod := ixPod("ns", "cached", nil)
	cachedNode := &api.Node{Metadata: api.ObjectMeta{Name: "n1"}}
	long := ixPod("ns", strings.Repeat("x", 300), nil) // longer than heldKeys' buffer
	for _, o := range []api.Object{cachedPod, cachedNode, long} {
		set(x, o)
	}
	other := ixPod("ns", "other", nil)
	tests := []struct {
		name string
		ev   client.WatchEvent
		held bool
	}{
		{"update of a cached pod", client.WatchEvent{Type: api.WatchModified, Object: cachedPod}, true},
		{"deletion of a cached pod", client.WatchEvent{Type: api.WatchDeleted, Object: cachedPod}, true},
		{"update of a cached node (no namespace)", client.WatchEvent{Type: api.WatchModified, Object: cachedNode}, true},
		{"update with a key past the buffer", client.WatchEvent{Type: api.WatchModified, Object: long}, true},
		{"add of a cached pod", client.WatchEvent{Type: api.WatchAdded, Object: cachedPod}, false},
		{"bookmark", client.WatchEvent{Type: api.WatchBookmark, Object: cachedPod}, false},
		{"update of a pod not cached", client.WatchEvent{Type: api.WatchModified, Object: other}, false},
		{"deletion of a pod not cached", client.WatchEvent{Type: api.WatchDeleted, Object: other}, false},
	}
	evs := make([]client.WatchEvent, len(tests))
	for i, tt := range tests {
		evs[i] = tt.ev
	}
	keys := make([]string, len(evs))
	ents := make([]*entry, len(evs))
	x.heldKeys(evs, keys, ents)
	for i, tt := range tests {
		if !tt.held {
			assert.Empty(t, keys[i], tt.name)
			assert.Nil(t, ents[i], "%s: no entry", tt.name)
			continue
		}
		assert.Equal(t, KeyOf(tt.ev.Object), keys[i], tt.name)
		held := x.items[keys[i]].key
		assert.Equal(t, unsafe.StringData(held), unsafe.StringData(keys[i]), "%s: the cache's own string", tt.name)
		assert.Same(t, x.items[keys[i]], ents[i], "%s: the cache's entry", tt.name)
	}
}

// TestNewEntryIsAPlainEntry: whatever the number of extra indexes, newEntry
// gives what &entry{key, obj, make([][]string, n)} would — its own vals, n
// of them, all nil, shared with no other entry — in one allocation for up
// to three indexes.
func TestNewEntryIsAPlainEntry(t *testing.T) {
	obj := ixPod("ns", "p", nil)
	for n := range 6 {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			e, other := newEntry("ns/p", obj, n), newEntry("ns/q", obj, n)
			want := &entry{key: "ns/p", obj: obj}
			if n > 0 {
				want.vals = make([][]string, n)
			}
			assert.Equal(t, want, e)
			if n > 0 {
				e.vals[0] = []string{"v"}
				assert.Nil(t, other.vals[0], "another entry's vals are its own")
			}
			if n <= 3 {
				allocs := testing.AllocsPerRun(100, func() { newEntry("ns/p", obj, n) })
				assert.Equal(t, 1.0, allocs, "one allocation")
			}
		})
	}
}

// TestIndexerCallsEachIndexFunctionOncePerWrite: the values an object was
// filed under are kept, so an update calls each index function on the new
// object only, and a removal calls none; an update that keeps the values
// leaves the index as it was, and one that changes them moves the entry.
func TestIndexerCallsEachIndexFunctionOncePerWrite(t *testing.T) {
	calls := 0
	counted := func(obj api.Object) []string { calls++; return byApp(obj) }
	tests := []struct {
		name      string
		write     func(x *Indexer)
		wantCalls int
		wantWeb   []string
		wantDB    []string
	}{
		{"a create", func(x *Indexer) { set(x, ixPod("a", "q", map[string]string{"app": "web"})) }, 1, []string{"a/p", "a/q"}, nil},
		{"an update keeping the values", func(x *Indexer) { set(x, ixPod("a", "p", map[string]string{"app": "web", "v": "2"})) }, 1, []string{"a/p"}, nil},
		{"an update changing them", func(x *Indexer) { set(x, ixPod("a", "p", map[string]string{"app": "db"})) }, 1, nil, []string{"a/p"}},
		{"a removal", func(x *Indexer) { x.remove("a/p") }, 0, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := NewIndexer(map[string]IndexFunc{"app": counted})
			set(x, ixPod("a", "p", map[string]string{"app": "web"}))
			calls = 0
			tt.write(x)
			assert.Equal(t, tt.wantCalls, calls, "index function calls")
			web, err := x.IndexKeys("app", "web")
			require.NoError(t, err)
			assert.Equal(t, tt.wantWeb, web)
			db, _ := x.IndexKeys("app", "db")
			assert.Equal(t, tt.wantDB, db)
			checkIndexInvariant(t, x)
		})
	}
}

// BenchmarkIndexerStatusUpdate: a cache of pods with three extra indexes,
// as the shared pod informer of the controller manager has (controller
// UID, labels, node); each op replaces one pod by a copy with the same
// labels, owner and node, as a status write does.
func BenchmarkIndexerStatusUpdate(b *testing.B) {
	const n = 10_000
	byOwner := func(obj api.Object) []string {
		if refs := obj.GetObjectMeta().OwnerReferences; len(refs) > 0 {
			return []string{string(refs[0].UID)}
		}
		return []string{obj.GetObjectMeta().Namespace + "/"}
	}
	byLabel := func(obj api.Object) []string {
		meta := obj.GetObjectMeta()
		out := make([]string, 0, len(meta.Labels))
		for k, v := range meta.Labels {
			out = append(out, meta.Namespace+"\x00"+k+"="+v)
		}
		return out
	}
	byNode := func(obj api.Object) []string {
		if p := obj.(*api.Pod); p.Spec.NodeName != "" {
			return []string{p.Spec.NodeName}
		}
		return nil
	}
	x := NewIndexer(map[string]IndexFunc{"owner": byOwner, "label": byLabel, "node": byNode})
	pods := make([]*api.Pod, n)
	for i := range pods {
		p := ixPod("default", fmt.Sprintf("app-%03d-%05d", i/100, i), map[string]string{"app": fmt.Sprintf("app-%03d", i/100)})
		p.Metadata.OwnerReferences = []api.OwnerReference{{UID: api.UID(fmt.Sprintf("uid-%03d", i/100))}}
		p.Spec.NodeName = fmt.Sprintf("node-%03d", i%100)
		pods[i] = p
		set(x, p)
	}
	keys := make([]string, n)
	running := make([]*api.Pod, n) // the status writes: made before the clock runs
	for i, p := range pods {
		keys[i] = KeyOf(p)
		q := *p
		q.Status.Phase = api.PodRunning
		running[i] = &q
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i/n%2 == 0 {
			x.set(keys[i%n], running[i%n])
		} else {
			x.set(keys[i%n], pods[i%n])
		}
		i++
	}
}

// BenchmarkByIndex reads one value's objects, as a controller's sync reads
// its pods: 100,000 pods, 100 under each of 1,000 owners, cached in an order
// unrelated to the owners (as pods of many controllers arrive interleaved),
// read for owners taken at random by ByIndexOf (a new slice per call) and by
// AppendByIndexOf into one reused buffer. Reports ns per object read.
func BenchmarkByIndex(b *testing.B) {
	const owners, perOwner = 1000, 100
	byOwner := func(obj api.Object) []string {
		return []string{string(obj.GetObjectMeta().OwnerReferences[0].UID)}
	}
	x := NewIndexer(map[string]IndexFunc{"owner": byOwner})
	rng := rand.New(rand.NewPCG(1, 8))
	for _, i := range rng.Perm(owners * perOwner) {
		p := ixPod("default", fmt.Sprintf("app-%04d-%05d", i/perOwner, i), nil)
		p.Metadata.OwnerReferences = []api.OwnerReference{{UID: api.UID(fmt.Sprintf("uid-%04d", i/perOwner))}}
		set(x, p)
	}
	uids := make([]string, owners)
	for i := range uids {
		uids[i] = fmt.Sprintf("uid-%04d", rng.IntN(owners))
	}
	for _, reuse := range []bool{false, true} {
		b.Run(fmt.Sprintf("reuse=%t", reuse), func(b *testing.B) {
			b.ReportAllocs()
			var buf []*api.Pod
			n := 0
			for b.Loop() {
				var pods []*api.Pod
				var err error
				if reuse {
					buf, err = AppendByIndexOf(buf[:0], x, "owner", uids[n%owners])
					pods = buf
				} else {
					pods, err = ByIndexOf[*api.Pod](x, "owner", uids[n%owners])
				}
				if err != nil || len(pods) != perOwner {
					b.Fatalf("read %d pods (%v), want %d", len(pods), err, perOwner)
				}
				n++
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n*perOwner), "ns/object")
		})
	}
}

// BenchmarkIndexerRemove: a cache of pods with three extra indexes (owner,
// label, node), 100,000 pods of which half are cached at any time, about 50
// per value, as the controller manager's pod informer has during the scale
// benchmark's scale-down; each op removes a cached pod taken at random and
// adds one that is not, each in lists no recent op touched.
func BenchmarkIndexerRemove(b *testing.B) {
	const n, per = 100_000, 100
	byOwner := func(obj api.Object) []string {
		return []string{string(obj.GetObjectMeta().OwnerReferences[0].UID)}
	}
	byLabel := func(obj api.Object) []string { return []string{obj.GetObjectMeta().Labels["app"]} }
	byNode := func(obj api.Object) []string { return []string{obj.(*api.Pod).Spec.NodeName} }
	x := NewIndexer(map[string]IndexFunc{"owner": byOwner, "label": byLabel, "node": byNode})
	rng := rand.New(rand.NewPCG(3, 9))
	pods := make([]*api.Pod, n)
	keys := make([]string, n)
	for i := range pods {
		p := ixPod("default", fmt.Sprintf("app-%04d-%05d", i/per, i), map[string]string{"app": fmt.Sprintf("app-%04d", i/per)})
		p.Metadata.OwnerReferences = []api.OwnerReference{{UID: api.UID(fmt.Sprintf("uid-%04d", i/per))}}
		p.Spec.NodeName = fmt.Sprintf("node-%04d", rng.IntN(n/per))
		pods[i], keys[i] = p, KeyOf(p)
	}
	// Before op i, the pods cached are order[i:i+n/2] (mod n): op i
	// removes order[i] and adds order[i+n/2].
	order := rng.Perm(n)
	for _, j := range order[:n/2] {
		set(x, pods[j])
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		out, in := order[i%n], order[(i+n/2)%n]
		if _, ok := x.remove(keys[out]); !ok {
			b.Fatalf("%s was not cached", keys[out])
		}
		x.set(keys[in], pods[in])
		i++
	}
}
