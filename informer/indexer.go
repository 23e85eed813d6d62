package informer

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/miniplane/miniplane/api"
)

// NamespaceIndex is the index every Indexer has: objects by namespace.
const NamespaceIndex = "namespace"

// IndexFunc returns the values under which an object is indexed.
type IndexFunc func(obj api.Object) []string

// NamespaceIndexFunc indexes an object by its namespace.
func NamespaceIndexFunc(obj api.Object) []string {
	return []string{obj.GetObjectMeta().Namespace}
}

// Indexer is a thread-safe cache of objects by key ("namespace/name", or
// "name" when cluster-scoped), with named indexes. Listing returns objects
// in key order. Kubernetes: cache.Indexer over cache.ThreadSafeStore.
type Indexer struct {
	// mu guards everything below. Invariants: for every index name but
	// NamespaceIndex, indices[name][v] holds, sorted and each once, exactly
	// the keys k of items with v in indexers[name](items[k].obj), and no
	// value maps to an empty list. byNamespace[ns] lists, in no order,
	// exactly the keys of items in namespace ns (namespaceOfKey), each
	// once, at the position its entry's nsPos says; no namespace maps to an
	// empty list.
	mu       sync.RWMutex
	items    map[string]entry
	indexers map[string]IndexFunc
	// indices keeps each value's keys sorted, so that ByIndex, which
	// controllers call on every sync, copies them in order instead of
	// sorting them: a controller reads its index far more often than the
	// index changes (an update that keeps an object's values changes
	// nothing here). An insert or removal moves the keys after it, which
	// is cheap for the few hundred keys a value holds in practice.
	indices map[string]map[string][]string
	// byNamespace is the namespace index. A key's namespace is part of
	// the key, so it never changes while the key is cached, and a list
	// with positions kept in items adds and removes a key without hashing
	// it into a per-namespace set: the most common index costs an append.
	// It is not kept sorted: one namespace may hold every object, where a
	// sorted insert would move half of them; listing a whole namespace
	// sorts its keys instead.
	byNamespace map[string][]string
}

// entry is a cached object and the position of its key in its
// namespace's list.
type entry struct {
	obj   api.Object
	nsPos int
}

// NewIndexer returns an empty cache with the namespace index and the given
// extra indexes.
func NewIndexer(indexers map[string]IndexFunc) *Indexer {
	x := &Indexer{
		items:       make(map[string]entry),
		indexers:    map[string]IndexFunc{NamespaceIndex: NamespaceIndexFunc},
		indices:     map[string]map[string][]string{},
		byNamespace: map[string][]string{},
	}
	for name, f := range indexers {
		if name == NamespaceIndex {
			continue // built in, and kept as byNamespace
		}
		x.indexers[name] = f
		x.indices[name] = make(map[string][]string)
	}
	return x
}

// KeyOf returns an object's cache key.
func KeyOf(obj api.Object) string { return api.KeyOf(obj.GetObjectMeta()) }

// set stores obj under key (its KeyOf) and returns what it replaced.
func (x *Indexer) set(key string, obj api.Object) (old api.Object, existed bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	e, existed := x.items[key]
	if existed {
		x.reindexLocked(key, e.obj, obj)
	} else {
		ns := namespaceOfKey(key)
		e.nsPos = len(x.byNamespace[ns])
		x.byNamespace[ns] = append(x.byNamespace[ns], key)
		x.indexLocked(key, obj)
	}
	x.items[key] = entry{obj: obj, nsPos: e.nsPos}
	return e.obj, existed
}

// reserve makes an empty cache ready to take n objects without growing its
// map step by step (the DeltaFIFO calls it when a list arrives for an empty
// cache). A cache that holds anything is left as it is.
func (x *Indexer) reserve(n int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if len(x.items) == 0 && n > 0 {
		x.items = make(map[string]entry, n)
	}
}

// remove deletes key and returns what it held.
func (x *Indexer) remove(key string) (old api.Object, existed bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	e, existed := x.items[key]
	if !existed {
		return nil, false
	}
	x.unindexLocked(key, e.obj)
	delete(x.items, key)
	// Move the namespace's last key into the removed key's place.
	ns := namespaceOfKey(key)
	keys := x.byNamespace[ns]
	last := len(keys) - 1
	if moved := keys[last]; e.nsPos != last {
		keys[e.nsPos] = moved
		m := x.items[moved]
		m.nsPos = e.nsPos
		x.items[moved] = m
	}
	keys[last] = ""
	if last == 0 {
		delete(x.byNamespace, ns)
	} else {
		x.byNamespace[ns] = keys[:last]
	}
	return e.obj, true
}

// indexLocked adds key to the indexes other than the namespace one.
func (x *Indexer) indexLocked(key string, obj api.Object) {
	for name, idx := range x.indices {
		for _, v := range x.indexers[name](obj) {
			addToIndex(idx, v, key)
		}
	}
}

// reindexLocked moves key, whose object changes from old to obj, between
// the values of the indexes other than the namespace one: out of the values
// only old has, into those only obj has. Most updates (a status written, a
// label kept) leave every value as it was and change nothing.
func (x *Indexer) reindexLocked(key string, old, obj api.Object) {
	for name, idx := range x.indices {
		f := x.indexers[name]
		was, is := f(old), f(obj)
		for _, v := range was {
			if !slices.Contains(is, v) {
				removeFromIndex(idx, v, key)
			}
		}
		for _, v := range is {
			if !slices.Contains(was, v) {
				addToIndex(idx, v, key)
			}
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

// addToIndex puts key among value's keys, in order, unless it is there.
func addToIndex(idx map[string][]string, value, key string) {
	keys := idx[value]
	if i, found := slices.BinarySearch(keys, key); !found {
		idx[value] = slices.Insert(keys, i, key)
	}
}

// unindexLocked removes key from the indexes other than the namespace one.
func (x *Indexer) unindexLocked(key string, obj api.Object) {
	for name, idx := range x.indices {
		for _, v := range x.indexers[name](obj) {
			removeFromIndex(idx, v, key)
		}
	}
}

// removeFromIndex takes key out of value's keys, dropping the value when it
// has none left.
func removeFromIndex(idx map[string][]string, value, key string) {
	keys := idx[value]
	i, found := slices.BinarySearch(keys, key)
	switch {
	case !found:
	case len(keys) == 1:
		delete(idx, value)
	default:
		idx[value] = slices.Delete(keys, i, i+1)
	}
}

// Get returns the object under key.
func (x *Indexer) Get(key string) (api.Object, bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	e, ok := x.items[key]
	return e.obj, ok
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
	return x.objectsLocked(slices.Sorted(maps.Keys(x.items)))
}

// ByIndex returns the objects whose index name holds value, in key order.
func (x *Indexer) ByIndex(name, value string) ([]api.Object, error) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if name == NamespaceIndex {
		return x.objectsLocked(sortedClone(x.byNamespace[value])), nil
	}
	idx, ok := x.indices[name]
	if !ok {
		return nil, errNoIndex(name)
	}
	return x.objectsLocked(idx[value]), nil // sorted already
}

// IndexKeys returns the keys whose index name holds value, sorted.
func (x *Indexer) IndexKeys(name, value string) ([]string, error) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if name == NamespaceIndex {
		return sortedClone(x.byNamespace[value]), nil
	}
	idx, ok := x.indices[name]
	if !ok {
		return nil, errNoIndex(name)
	}
	return slices.Clone(idx[value]), nil
}

// ByIndexOf is ByIndex for a cache of one type T, as a Lister reads it:
// the objects as T, with no []api.Object in between. The cache holding
// anything but T is a broken invariant.
func ByIndexOf[T api.Object](x *Indexer, name, value string) ([]T, error) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	var keys []string
	if name == NamespaceIndex {
		keys = sortedClone(x.byNamespace[value])
	} else {
		idx, ok := x.indices[name]
		if !ok {
			return nil, errNoIndex(name)
		}
		keys = idx[value]
	}
	out := make([]T, len(keys))
	for i, k := range keys {
		out[i] = x.items[k].obj.(T)
	}
	return out, nil
}

func errNoIndex(name string) error { return fmt.Errorf("informer: no index named %q", name) }

// sortedClone returns a sorted copy of keys.
func sortedClone(keys []string) []string {
	keys = slices.Clone(keys)
	slices.Sort(keys)
	return keys
}

func (x *Indexer) objectsLocked(keys []string) []api.Object {
	out := make([]api.Object, len(keys))
	for i, k := range keys {
		out[i] = x.items[k].obj
	}
	return out
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
		idx := make(map[string][]string)
		x.indexers[name], x.indices[name] = f, idx
		for key, e := range x.items {
			for _, v := range f(e.obj) {
				idx[v] = append(idx[v], key)
			}
		}
		for v, keys := range idx {
			slices.Sort(keys)
			idx[v] = slices.Compact(keys) // an object may give a value twice
		}
	}
	return nil
}
