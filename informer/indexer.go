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
	// NamespaceIndex, indices[name][v] holds exactly the keys k of items
	// with v in indexers[name](items[k].obj), and no value maps to an
	// empty set. byNamespace[ns] lists, in no order, exactly the keys of
	// items in namespace ns (namespaceOfKey), each once, at the position
	// its entry's nsPos says; no namespace maps to an empty list.
	mu       sync.RWMutex
	items    map[string]entry
	indexers map[string]IndexFunc
	indices  map[string]map[string]map[string]struct{}
	// byNamespace is the namespace index. A key's namespace is part of
	// the key, so it never changes while the key is cached, and a list
	// with positions kept in items adds and removes a key without hashing
	// it into a per-namespace set: the most common index costs an append.
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
		indices:     map[string]map[string]map[string]struct{}{},
		byNamespace: map[string][]string{},
	}
	for name, f := range indexers {
		if name == NamespaceIndex {
			continue // built in, and kept as byNamespace
		}
		x.indexers[name] = f
		x.indices[name] = make(map[string]map[string]struct{})
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
		x.unindexLocked(key, e.obj)
	} else {
		ns := namespaceOfKey(key)
		e.nsPos = len(x.byNamespace[ns])
		x.byNamespace[ns] = append(x.byNamespace[ns], key)
	}
	x.items[key] = entry{obj: obj, nsPos: e.nsPos}
	x.indexLocked(key, obj)
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

func addToIndex(idx map[string]map[string]struct{}, value, key string) {
	set := idx[value]
	if set == nil {
		set = make(map[string]struct{})
		idx[value] = set
	}
	set[key] = struct{}{}
}

// unindexLocked removes key from the indexes other than the namespace one.
func (x *Indexer) unindexLocked(key string, obj api.Object) {
	for name, idx := range x.indices {
		for _, v := range x.indexers[name](obj) {
			removeFromIndex(idx, v, key)
		}
	}
}

func removeFromIndex(idx map[string]map[string]struct{}, value, key string) {
	delete(idx[value], key)
	if len(idx[value]) == 0 {
		delete(idx, value)
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
	keys, err := x.indexKeysLocked(name, value)
	if err != nil {
		return nil, err
	}
	return x.objectsLocked(keys), nil
}

// IndexKeys returns the keys whose index name holds value, sorted.
func (x *Indexer) IndexKeys(name, value string) ([]string, error) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.indexKeysLocked(name, value)
}

// indexKeysLocked returns a sorted copy of the keys under value in index
// name.
func (x *Indexer) indexKeysLocked(name, value string) ([]string, error) {
	if name == NamespaceIndex {
		keys := slices.Clone(x.byNamespace[value])
		slices.Sort(keys)
		return keys, nil
	}
	idx, ok := x.indices[name]
	if !ok {
		return nil, fmt.Errorf("informer: no index named %q", name)
	}
	return slices.Sorted(maps.Keys(idx[value])), nil
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
		idx := make(map[string]map[string]struct{})
		x.indexers[name], x.indices[name] = f, idx
		for key, e := range x.items {
			for _, v := range f(e.obj) {
				if idx[v] == nil {
					idx[v] = make(map[string]struct{})
				}
				idx[v][key] = struct{}{}
			}
		}
	}
	return nil
}
