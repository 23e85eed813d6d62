package endpointslice

import (
	"sync"

	"github.com/miniplane/miniplane/api"
)

// WriteTracker remembers, per service, the generation of each slice the
// controller last wrote (deletedGeneration for one it deleted), so that a
// sync acting on a cache that does not show those writes yet writes
// nothing: reconciling from it would create slices twice or undo a write.
// Each controller has its own; its methods are safe for concurrent use.
// Kubernetes: EndpointSliceTracker and its StaleSlices.
type WriteTracker struct {
	// mu guards byService: service key → slice UID → generation written.
	mu        sync.Mutex
	byService map[string]map[api.UID]int64
}

const deletedGeneration = -1

// NewWriteTracker returns an empty tracker.
func NewWriteTracker() *WriteTracker {
	return &WriteTracker{byService: map[string]map[api.UID]int64{}}
}

// Wrote records a slice of the service key the controller created or
// updated, as the server returned it.
func (t *WriteTracker) Wrote(key string, m *api.ObjectMeta) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byService[key] == nil {
		t.byService[key] = map[api.UID]int64{}
	}
	t.byService[key][m.UID] = m.Generation
}

// Deleted records a slice of the service key the controller deleted.
func (t *WriteTracker) Deleted(key string, uid api.UID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byService[key] == nil {
		t.byService[key] = map[api.UID]int64{}
	}
	t.byService[key][uid] = deletedGeneration
}

// Gone forgets a slice the cache saw deleted, by whoever deleted it.
func (t *WriteTracker) Gone(m *api.ObjectMeta) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if key := m.Namespace + "/" + m.Labels[LabelServiceName]; t.byService[key] != nil {
		delete(t.byService[key], m.UID)
	}
}

// Forget forgets a service.
func (t *WriteTracker) Forget(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.byService, key)
}

// Stale reports whether the cached slices of a service miss a write of the
// controller: a slice it wrote is absent or older, or one it deleted is
// still there. A deletion the cache shows is forgotten.
func (t *WriteTracker) Stale(key string, cached []*api.EndpointSlice) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	want := t.byService[key]
	present := map[api.UID]bool{}
	for _, s := range cached {
		present[s.Metadata.UID] = true
		if g, ok := want[s.Metadata.UID]; ok && (g == deletedGeneration || g > s.Metadata.Generation) {
			return true
		}
	}
	for uid, g := range want {
		if g == deletedGeneration && !present[uid] {
			delete(want, uid)
			continue
		}
		if !present[uid] {
			return true
		}
	}
	return false
}
