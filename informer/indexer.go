package informer

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
)

// NamespaceIndex is the index every Indexer has: objects by namespace.
const NamespaceIndex = "namespace"

// IndexFunc returns the values under which an object is indexed. The
// Indexer calls it once for each object stored (not again on the object an
// update replaces, nor on removal) and keeps the slice it returns: it must
// not change the slice afterwards.
type IndexFunc func(obj api.Object) []string

// NamespaceIndexFunc indexes an object by its namespace.
func NamespaceIndexFunc(obj api.Object) []string {
	return []string{obj.GetObjectMeta().Namespace}
}

// Indexer is a thread-safe cache of objects by key ("namespace/name", or
// "name" when cluster-scoped), with named indexes. Listing returns objects
// in key order. Kubernetes: cache.Indexer over cache.ThreadSafeStore.
type Indexer struct {
	// mu guards everything below, and the obj and nsPos of every entry.
	// Invariants: items[k].key is k. For every index name but
	// NamespaceIndex, indices[name][v] holds, sorted by key and each once,
	// exactly the entries of items whose object has v among
	// indexers[name](obj), and no value maps to an empty list.
	// byNamespace[ns] lists, in no order, exactly the entries of items in
	// namespace ns (namespaceOfKey), each once, at the position its nsPos
	// says; no namespace maps to an empty list.
	mu       sync.RWMutex
	items    map[string]*entry
	indexers map[string]IndexFunc
	// indices keeps each value's entries sorted, so that ByIndex, which
	// controllers call on every sync, copies their objects in order
	// without sorting or looking keys up: a controller reads its index far
	// more often than the index changes (an update that keeps an object's
	// values only changes its entry's obj). An insert or removal moves the
	// entries after it, which is cheap for the few hundred a value holds
	// in practice.
	indices map[string]map[string][]*entry
	// extra lists the indexes other than the namespace one, in the order
	// they were added; every entry's vals is aligned with it.
	extra []extraIndex
	// byNamespace is the namespace index. A key's namespace is part of
	// the key, so it never changes while the key is cached, and a list
	// with positions kept in the entries adds and removes a key without
	// hashing it into a per-namespace set: the most common index costs an
	// append. It is not kept sorted: one namespace may hold every object,
	// where a sorted insert would move half of them; listing a whole
	// namespace sorts instead.
	byNamespace map[string][]*entry
}

// entry is a cached object, shared by items and the indexes, and the
// position of its key in its namespace's list.
type entry struct {
	key string
	obj api.Object
	// nsPos is -1 once the entry has left the cache (remove), so that a
	// pointer to it kept elsewhere — a hint the reflector found for an
	// event (heldKeys) — can be told stale without a map lookup: an
	// entry with nsPos >= 0 is items[e.key] (see lookupLocked).
	nsPos int
	// vals[i] is what extra[i]'s function returned for obj: the values
	// the entry is filed under. Keeping them spares an update the call on
	// the old object, and a removal every call; an update whose values
	// are the same (a status write keeps labels, owner and node) changes
	// no index and keeps vals as they are. nil when there are no extra
	// indexes.
	vals [][]string
}

// newEntry returns an entry for key and obj with room for the values of n
// extra indexes in e.vals (len n, all nil; nil when n is 0). For up to three
// indexes the entry and its vals are one allocation: one fewer per cached
// object (the pod informer has three), and vals sits next to the entry,
// which every update reads. The same bytes as two allocations (the block's
// size class is theirs together); e.vals keeps the block alive exactly as
// long as e does.
func newEntry(key string, obj api.Object, n int) *entry {
	switch n {
	case 0:
		return &entry{key: key, obj: obj}
	case 1:
		b := &struct {
			e    entry
			vals [1][]string
		}{e: entry{key: key, obj: obj}}
		b.e.vals = b.vals[:]
		return &b.e
	case 2:
		b := &struct {
			e    entry
			vals [2][]string
		}{e: entry{key: key, obj: obj}}
		b.e.vals = b.vals[:]
		return &b.e
	case 3:
		b := &struct {
			e    entry
			vals [3][]string
		}{e: entry{key: key, obj: obj}}
		b.e.vals = b.vals[:]
		return &b.e
	}
	return &entry{key: key, obj: obj, vals: make([][]string, n)}
}

// extraIndex is an index other than the namespace one: its name, its
// function and its values' sorted entries (the map in indices).
type extraIndex struct {
	name string
	f    IndexFunc
	idx  map[string][]*entry
}

// byKey orders entries by key.
func byKey(a, b *entry) int { return strings.Compare(a.key, b.key) }

// NewIndexer returns an empty cache with the namespace index and the given
// extra indexes.
func NewIndexer(indexers map[string]IndexFunc) *Indexer {
	x := &Indexer{
		items:       make(map[string]*entry),
		indexers:    map[string]IndexFunc{NamespaceIndex: NamespaceIndexFunc},
		indices:     map[string]map[string][]*entry{},
		byNamespace: map[string][]*entry{},
	}
	for _, name := range slices.Sorted(maps.Keys(indexers)) {
		if name == NamespaceIndex {
			continue // built in, and kept as byNamespace
		}
		f := indexers[name]
		idx := make(map[string][]*entry)
		x.indexers[name], x.indices[name] = f, idx
		x.extra = append(x.extra, extraIndex{name: name, f: f, idx: idx})
	}
	return x
}

// KeyOf returns an object's cache key.
func KeyOf(obj api.Object) string { return api.KeyOf(obj.GetObjectMeta()) }

// set stores obj under key (its KeyOf) and returns what it replaced.
func (x *Indexer) set(key string, obj api.Object) (old api.Object, existed bool) {
	old, existed, _ = x.setHinted(key, obj, nil)
	return old, existed
}

// setHinted is set given hint, an entry once found under key or nil (see
// lookupLocked); it also returns key's entry now, a hint for the next
// change to key.
func (x *Indexer) setHinted(key string, obj api.Object, hint *entry) (old api.Object, existed bool, e *entry) {
	x.mu.Lock()
	defer x.mu.Unlock()
	e, existed = x.lookupLocked(key, hint)
	if existed {
		old = e.obj
		x.reindexLocked(e, obj)
		e.obj = obj // every index holding e now lists obj
		return old, true, e
	}
	e = newEntry(key, obj, len(x.extra))
	x.items[key] = e
	ns := namespaceOfKey(key)
	e.nsPos = len(x.byNamespace[ns])
	x.byNamespace[ns] = append(x.byNamespace[ns], e)
	x.indexLocked(e)
	return nil, false, e
}

// lookupLocked returns items[key], using hint if it can. hint is nil or
// an entry that was items[key] at some time: the reflector's heldKeys finds
// the entry of each event it can, and the informer applies the event later,
// after which the entry may have been removed (and key cached again under
// a new one). An entry is in items from its set to its remove, which marks
// it (nsPos -1), and items holds one entry per key, so a hint not marked is
// items[key] and spares the lookup: in a cache of 100,000 objects, a cache
// miss or two per update and deletion.
func (x *Indexer) lookupLocked(key string, hint *entry) (*entry, bool) {
	if hint != nil && hint.nsPos >= 0 {
		return hint, true
	}
	e, ok := x.items[key]
	return e, ok
}

// holds reports whether e, an entry found in the cache earlier, is still
// there. False does not mean that its key is not cached: it may be cached
// again, under a new entry.
func (x *Indexer) holds(e *entry) bool {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return e.nsPos >= 0
}

// reserve makes an empty cache ready to take n objects without growing its
// map step by step (the DeltaFIFO calls it when a list arrives for an empty
// cache). A cache that holds anything is left as it is.
func (x *Indexer) reserve(n int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if len(x.items) == 0 && n > 0 {
		x.items = make(map[string]*entry, n)
	}
}

// remove deletes key and returns what it held.
func (x *Indexer) remove(key string) (old api.Object, existed bool) {
	return x.removeHinted(key, nil)
}

// removeHinted is remove given hint, an entry once found under key or nil
// (see lookupLocked).
func (x *Indexer) removeHinted(key string, hint *entry) (old api.Object, existed bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	e, existed := x.lookupLocked(key, hint)
	if !existed {
		return nil, false
	}
	x.unindexLocked(e)
	delete(x.items, key)
	// Move the namespace's last entry into the removed one's place.
	ns := namespaceOfKey(key)
	list := x.byNamespace[ns]
	last := len(list) - 1
	if moved := list[last]; e.nsPos != last {
		list[e.nsPos] = moved
		moved.nsPos = e.nsPos
	}
	list[last] = nil
	e.nsPos = -1 // gone: a hint to e is stale
	if last == 0 {
		delete(x.byNamespace, ns)
	} else {
		x.byNamespace[ns] = list[:last]
	}
	return e.obj, true
}

// indexLocked files e, new in the cache, under the values of the indexes
// other than the namespace one, and keeps them in e.vals.
func (x *Indexer) indexLocked(e *entry) {
	if len(x.extra) == 0 {
		return
	}
	if e.vals == nil {
		e.vals = make([][]string, len(x.extra))
	}
	for i, ix := range x.extra {
		vals := ix.f(e.obj)
		e.vals[i] = vals
		for _, v := range vals {
			addToIndex(ix.idx, v, e)
		}
	}
}

// reindexLocked moves e, whose object changes to obj, between the values
// of the indexes other than the namespace one: out of the values only its
// old object has (kept in e.vals), into those only obj has. Most updates
// (a status written, a label kept) leave every value as it was and change
// nothing here but a call of each index function.
func (x *Indexer) reindexLocked(e *entry, obj api.Object) {
	for i, ix := range x.extra {
		was, is := e.vals[i], ix.f(obj)
		if slices.Equal(was, is) {
			continue // the common case: keep was, drop is
		}
		for _, v := range was {
			if !slices.Contains(is, v) {
				removeFromIndex(ix.idx, v, e)
			}
		}
		for _, v := range is {
			if !slices.Contains(was, v) {
				addToIndex(ix.idx, v, e)
			}
		}
		e.vals[i] = is
	}
}

// unindexLocked removes e from the indexes other than the namespace one,
// by the values it was filed under.
func (x *Indexer) unindexLocked(e *entry) {
	for i, ix := range x.extra {
		for _, v := range e.vals[i] {
			removeFromIndex(ix.idx, v, e)
		}
	}
}

// namespaceOfKey returns the namespace part of a cache key ("" for a
// cluster-scoped "name"). Reading it from the key rather than the object
// spares a cache miss per object on a large list.
func namespaceOfKey(key string) string {
	ns, _, found := strings.Cut(key, "/")
	if !found {
		return ""
	}
	return ns
}

// addToIndex puts e among value's entries, in key order, unless it is
// there.
func addToIndex(idx map[string][]*entry, value string, e *entry) {
	list := idx[value]
	if i, found := slices.BinarySearchFunc(list, e, byKey); !found {
		idx[value] = slices.Insert(list, i, e)
	}
}

// removeFromIndex takes e out of value's entries, dropping the value when
// it has none left.
func removeFromIndex(idx map[string][]*entry, value string, e *entry) {
	list := idx[value]
	i, found := positionOf(list, e)
	switch {
	case !found:
	case len(list) == 1:
		delete(idx, value)
	default:
		idx[value] = slices.Delete(list, i, i+1)
	}
}

// scanBelow is the length of a value's list under which positionOf looks
// for an entry by comparing pointers from the front rather than by binary
// search on keys. A binary search reads each probed key through its entry:
// two cache misses per step in a large, cold cache (a removal in the scale
// benchmark's scale-down took seven steps in each of three indexes), where
// a scan reads the list itself, which is contiguous and about to be
// rewritten by the removal anyway. Past a few hundred entries the scan's
// length outweighs the misses it saves.
const scanBelow = 256

// positionOf returns e's position in list, sorted by key, and whether it is
// there: the answer of slices.BinarySearchFunc(list, e, byKey) whenever e is
// in list, for a list holds each key once and so the entry with e's key is
// e. (When e is absent the position differs, and the caller uses none.)
func positionOf(list []*entry, e *entry) (int, bool) {
	if len(list) >= scanBelow {
		return slices.BinarySearchFunc(list, e, byKey)
	}
	for i, x := range list {
		if x == e {
			return i, true
		}
	}
	return 0, false
}

// Get returns the object under key.
func (x *Indexer) Get(key string) (api.Object, bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if e, ok := x.items[key]; ok {
		return e.obj, true
	}
	return nil, false
}

// getBytes is Get of a key held in bytes, which the lookup does not copy.
func (x *Indexer) getBytes(key []byte) (api.Object, bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if e, ok := x.items[string(key)]; ok {
		return e.obj, true
	}
	return nil, false
}

// heldKeys sets keys[i], for each MODIFIED or DELETED event i whose object
// is cached, to the key string the cache holds for it, so that the reflector
// need not make a new one per event (see heldKeySink), and ents[i] to its
// entry, a hint that spares the informer the same lookup when it applies
// the event (see lookupLocked). It builds each key in a buffer of its own,
// which the map lookup does not copy, and takes the lock once for the whole
// batch.
func (x *Indexer) heldKeys(evs []client.WatchEvent, keys []string, ents []*entry) {
	var buf [128]byte
	x.mu.RLock()
	defer x.mu.RUnlock()
	for i, ev := range evs {
		if ev.Type != api.WatchModified && ev.Type != api.WatchDeleted {
			continue
		}
		if e, ok := x.items[string(appendKey(buf[:0], ev.Object.GetObjectMeta()))]; ok {
			keys[i], ents[i] = e.key, e
		}
	}
}

// appendKey appends KeyOf the object whose metadata is meta to dst.
func appendKey(dst []byte, meta *api.ObjectMeta) []byte {
	if meta.Namespace == "" {
		return append(dst, meta.Name...)
	}
	dst = append(dst, meta.Namespace...)
	dst = append(dst, '/')
	return append(dst, meta.Name...)
}

// Len returns the number of cached objects.
func (x *Indexer) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.items)
}

// ListKeys returns every key, sorted.
func (x *Indexer) ListKeys() []string {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return slices.Sorted(maps.Keys(x.items))
}

// List returns every object, in key order.
func (x *Indexer) List() []api.Object {
	x.mu.RLock()
	defer x.mu.RUnlock()
	keys := slices.Sorted(maps.Keys(x.items))
	out := make([]api.Object, len(keys))
	for i, k := range keys {
		out[i] = x.items[k].obj
	}
	return out
}

// ByIndex returns the objects whose index name holds value, in key order.
func (x *Indexer) ByIndex(name, value string) ([]api.Object, error) {
	return ByIndexOf[api.Object](x, name, value)
}

// IndexKeys returns the keys whose index name holds value, sorted.
func (x *Indexer) IndexKeys(name, value string) ([]string, error) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	list, err := x.entriesLocked(name, value)
	if err != nil || len(list) == 0 {
		return nil, err
	}
	keys := make([]string, len(list))
	for i, e := range list {
		keys[i] = e.key
	}
	return keys, nil
}

// ByIndexOf is ByIndex for a cache of one type T, as a Lister reads it:
// the objects as T, with no []api.Object in between. The cache holding
// anything but T is a broken invariant. Each call returns a new slice; a
// caller on a hot path reuses one with AppendByIndexOf.
func ByIndexOf[T api.Object](x *Indexer, name, value string) ([]T, error) {
	return appendByIndex[T](nil, x, name, value, true)
}

// AppendByIndexOf is ByIndexOf into a slice the caller owns: it appends the
// objects whose index name holds value to dst, in key order, and returns the
// extended slice. A controller that passes the same buffer each time
// (buf, err = AppendByIndexOf(buf[:0], ...)) reads its index without
// allocating once the buffer is large enough. On error dst is returned as
// it was. The objects are the cache's, shared: do not change them, and clear
// the buffer (clear(buf)) if it outlives its use, so that it does not keep
// deleted objects alive.
func AppendByIndexOf[T api.Object](dst []T, x *Indexer, name, value string) ([]T, error) {
	return appendByIndex(dst, x, name, value, false)
}

// appendByIndex is ByIndexOf and AppendByIndexOf; exact sizes a new slice
// to fit (ByIndexOf's result may be kept long), where appending grows dst
// as append does.
func appendByIndex[T api.Object](dst []T, x *Indexer, name, value string, exact bool) ([]T, error) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if name == NamespaceIndex {
		// The namespace's list is in no order: copy, then sort. Its
		// objects share the namespace, so key order is name order.
		list := x.byNamespace[value]
		if exact && dst == nil {
			dst = make([]T, 0, len(list))
		}
		start := len(dst)
		for _, e := range list {
			dst = append(dst, e.obj.(T))
		}
		slices.SortFunc(dst[start:], func(a, b T) int {
			return strings.Compare(a.GetObjectMeta().Name, b.GetObjectMeta().Name)
		})
		return dst, nil
	}
	idx, ok := x.indices[name]
	if !ok {
		return dst, fmt.Errorf("informer: no index named %q", name)
	}
	list := idx[value]
	if exact && dst == nil {
		dst = make([]T, 0, len(list))
	}
	for _, e := range list {
		dst = append(dst, e.obj.(T))
	}
	return dst, nil
}

// entriesLocked returns the entries under value in index name, in key
// order. The list is the index's own unless the index is the namespace
// one: do not change it.
func (x *Indexer) entriesLocked(name, value string) ([]*entry, error) {
	if name == NamespaceIndex {
		list := slices.Clone(x.byNamespace[value])
		slices.SortFunc(list, byKey)
		return list, nil
	}
	idx, ok := x.indices[name]
	if !ok {
		return nil, fmt.Errorf("informer: no index named %q", name)
	}
	return idx[value], nil
}

// AddIndexers adds indexes, indexing what is already cached. A name that is
// already taken is an error and changes nothing.
func (x *Indexer) AddIndexers(indexers map[string]IndexFunc) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	for name := range indexers {
		if _, taken := x.indexers[name]; taken {
			return fmt.Errorf("informer: index %q already exists", name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(indexers)) {
		f := indexers[name]
		idx := make(map[string][]*entry)
		x.indexers[name], x.indices[name] = f, idx
		x.extra = append(x.extra, extraIndex{name: name, f: f, idx: idx})
		for _, e := range x.items {
			vals := f(e.obj)
			e.vals = append(e.vals, vals)
			for _, v := range vals {
				idx[v] = append(idx[v], e)
			}
		}
		for v, list := range idx {
			slices.SortFunc(list, byKey)
			idx[v] = slices.Compact(list) // an object may give a value twice
		}
	}
	return nil
}
