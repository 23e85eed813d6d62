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
	// mu guards items, indexers and indices. Invariant: for every index
	// name, indices[name][v] holds exactly the keys k of items with v in
	// indexers[name](items[k]); no value maps to an empty set.
	mu       sync.RWMutex
	items    map[string]api.Object
	indexers map[string]IndexFunc
	indices  map[string]map[string]map[string]struct{}
}

// NewIndexer returns an empty cache with the namespace index and the given
// extra indexes.
func NewIndexer(indexers map[string]IndexFunc) *Indexer {
	x := &Indexer{
		items:    make(map[string]api.Object),
		indexers: map[string]IndexFunc{NamespaceIndex: NamespaceIndexFunc},
		indices:  map[string]map[string]map[string]struct{}{NamespaceIndex: {}},
	}
	for name, f := range indexers {
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
	old, existed = x.items[key]
	if existed {
		x.unindexLocked(key, old)
	}
	x.items[key] = obj
	x.indexLocked(key, obj)
	return old, existed
}

// reserve makes an empty cache ready to take n objects without growing its
// map step by step (the DeltaFIFO calls it when a list arrives for an empty
// cache). A cache that holds anything is left as it is.
func (x *Indexer) reserve(n int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if len(x.items) == 0 && n > 0 {
		x.items = make(map[string]api.Object, n)
	}
}

// remove deletes key and returns what it held.
func (x *Indexer) remove(key string) (old api.Object, existed bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	old, existed = x.items[key]
	if existed {
		x.unindexLocked(key, old)
		delete(x.items, key)
	}
	return old, existed
}

func (x *Indexer) indexLocked(key string, obj api.Object) {
	for name, f := range x.indexers {
		idx := x.indices[name]
		if name == NamespaceIndex {
			addToIndex(idx, namespaceOfKey(key), key) // no slice to allocate, no object to read
			continue
		}
		for _, v := range f(obj) {
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

func (x *Indexer) unindexLocked(key string, obj api.Object) {
	for name, f := range x.indexers {
		idx := x.indices[name]
		if name == NamespaceIndex {
			removeFromIndex(idx, namespaceOfKey(key), key)
			continue
		}
		for _, v := range f(obj) {
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
	obj, ok := x.items[key]
	return obj, ok
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
	idx, ok := x.indices[name]
	if !ok {
		return nil, fmt.Errorf("informer: no index named %q", name)
	}
	return x.objectsLocked(slices.Sorted(maps.Keys(idx[value]))), nil
}

// IndexKeys returns the keys whose index name holds value, sorted.
func (x *Indexer) IndexKeys(name, value string) ([]string, error) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	idx, ok := x.indices[name]
	if !ok {
		return nil, fmt.Errorf("informer: no index named %q", name)
	}
	return slices.Sorted(maps.Keys(idx[value])), nil
}

func (x *Indexer) objectsLocked(keys []string) []api.Object {
	out := make([]api.Object, len(keys))
	for i, k := range keys {
		out[i] = x.items[k]
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
		for key, obj := range x.items {
			for _, v := range f(obj) {
				if idx[v] == nil {
					idx[v] = make(map[string]struct{})
				}
				idx[v][key] = struct{}{}
			}
		}
	}
	return nil
}
