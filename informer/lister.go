package informer

import (
	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// Lister reads one resource's objects of type T from an informer's cache.
// Results are in key order and shared with the cache: do not change them.
// Kubernetes: the generated listers (corev1listers.PodLister, ...).
type Lister[T api.Object] struct {
	indexer *Indexer
	gr      apierrors.GroupResource
}

// NewLister returns a lister over an informer's cache of resource gr.
func NewLister[T api.Object](i *Informer, gr apierrors.GroupResource) Lister[T] {
	return Lister[T]{indexer: i.Indexer(), gr: gr}
}

// List returns the cached objects the selector matches, in all namespaces.
func (l Lister[T]) List(sel api.Selector) []T {
	return filterTyped[T](l.indexer.List(), sel)
}

// Get returns a cluster-scoped object by name, or a NotFound error.
func (l Lister[T]) Get(name string) (T, error) { return l.get(name, name) }

// Namespace returns the lister of one namespace.
func (l Lister[T]) Namespace(ns string) NamespaceLister[T] {
	return NamespaceLister[T]{l: l, ns: ns}
}

func (l Lister[T]) get(key, name string) (T, error) {
	obj, ok := l.indexer.Get(key)
	if !ok {
		var zero T
		return zero, apierrors.NewNotFound(l.gr, name)
	}
	return obj.(T), nil
}

// NamespaceLister reads one namespace's objects from a cache.
type NamespaceLister[T api.Object] struct {
	l  Lister[T]
	ns string
}

// List returns the namespace's cached objects the selector matches, through
// the namespace index.
func (n NamespaceLister[T]) List(sel api.Selector) []T {
	// The index always exists; objs is a new slice, filtered in place.
	objs, _ := ByIndexOf[T](n.l.indexer, NamespaceIndex, n.ns)
	out := objs[:0]
	for _, obj := range objs {
		if sel.Matches(obj.GetObjectMeta().Labels) {
			out = append(out, obj)
		}
	}
	clear(objs[len(out):])
	return out
}

// Get returns the named object, or a NotFound error. The key is built in a
// buffer on the stack: controllers call Get on every sync, and a key made
// only to be looked up need not be allocated.
func (n NamespaceLister[T]) Get(name string) (T, error) {
	var buf [128]byte
	key := api.AppendKey(buf[:0], n.ns, name)
	obj, ok := n.l.indexer.getBytes(key)
	if !ok {
		var zero T
		return zero, apierrors.NewNotFound(n.l.gr, name)
	}
	return obj.(T), nil
}

func filterTyped[T api.Object](objs []api.Object, sel api.Selector) []T {
	out := make([]T, 0, len(objs))
	for _, obj := range objs {
		if sel.Matches(obj.GetObjectMeta().Labels) {
			out = append(out, obj.(T))
		}
	}
	return out
}
