package replication

import (
	"sync"

	"github.com/miniplane/miniplane/api"
)

// maxInterned bounds each table below: it is emptied when full, so that
// objects that come and go do not grow it for ever. A cluster's
// controllers fit many times over.
const maxInterned = 1 << 14

// indexValues gives the pod index's function (podControllerIndex) its
// one-value lists: every pod of a controller is filed under the same UID,
// and the informer calls the function on every pod event, so the list is
// made once per controller, not once per event, and shared, read only (the
// Indexer only reads the lists it is given). It is safe for concurrent use.
type indexValues struct {
	// mu guards lists.
	mu    sync.Mutex
	lists map[indexValueOf][]string
}

// indexValueOf is what a pod is filed under: its controller's UID, or, for
// an orphan, its namespace.
type indexValueOf struct {
	uid      api.UID
	orphan   bool
	orphanNS string
}

// get returns the one-element list of the index value of v, made on first
// use.
func (t *indexValues) get(v indexValueOf) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	list, ok := t.lists[v]
	if !ok {
		if t.lists == nil || len(t.lists) >= maxInterned {
			t.lists = make(map[indexValueOf][]string)
		}
		value := string(v.uid)
		if v.orphan {
			value = orphanIndexValue(v.orphanNS)
		}
		list = []string{value}[:1:1]
		t.lists[v] = list
	}
	return list
}

// podIndexFunc is podControllerIndex's function.
func (t *indexValues) podIndexFunc(obj api.Object) []string {
	meta := obj.GetObjectMeta()
	if ref := controllerRefOf(meta); ref != nil {
		return t.get(indexValueOf{uid: ref.UID})
	}
	return t.get(indexValueOf{orphan: true, orphanNS: meta.Namespace})
}

// keyTable gives the pod handlers the keys of controllers ("namespace/
// name") without making them on every pod event. A key is kept by the
// controller's UID and checked against the name it is asked for, so a UID
// reused under another name gets its own key. It is safe for concurrent
// use.
type keyTable struct {
	// mu guards keys.
	mu   sync.Mutex
	keys map[api.UID]string
}

// keyOf returns api.KeyOf(m).
func (t *keyTable) keyOf(m *api.ObjectMeta) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if k, ok := t.keys[m.UID]; ok && api.IsKeyOf(k, m) {
		return k
	}
	if t.keys == nil || len(t.keys) >= maxInterned {
		t.keys = make(map[api.UID]string)
	}
	k := api.KeyOf(m)
	t.keys[m.UID] = k
	return k
}
