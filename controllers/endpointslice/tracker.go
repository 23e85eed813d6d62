package endpointslice

import (
	"context"
	"fmt"
	"sync"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
)

// Writes are the slice writes a reconcile decided for one owner.
type Writes struct {
	Create, Update, Delete []*api.EndpointSlice
	// NoCreates skips the creates: the owner is being deleted, and slices
	// created now would race the garbage collector.
	NoCreates bool
}

// Apply makes w through c — creates, updates, deletes, in that order —
// recording each in the tracker under key; owner names the object in
// errors ("Service ns/name"). It stops at the first failure. A create
// refused because the namespace is terminating ends it without error.
// Kubernetes: the finalize of both reconcilers.
func (t *WriteTracker) Apply(ctx context.Context, c Client, log *zap.Logger, owner, key string, w Writes) error {
	if !w.NoCreates {
		for _, s := range w.Create {
			created, err := c.Create(ctx, s, client.Handover())
			if err != nil {
				if apierrors.HasStatusCause(err, api.NamespaceTerminatingCause) {
					return nil // the namespace takes the owner with it
				}
				return fmt.Errorf("failed to create EndpointSlice for %s: %w", owner, err)
			}
			t.Wrote(key, created.GetObjectMeta())
			log.Info("created endpointslice", zap.String("for", owner), zap.String("slice", created.GetObjectMeta().Name))
		}
	}
	for _, s := range w.Update {
		updated, err := c.Update(ctx, s, client.Handover())
		if err != nil {
			return fmt.Errorf("failed to update %s EndpointSlice for %s: %w", s.Metadata.Name, owner, err)
		}
		t.Wrote(key, updated.GetObjectMeta())
		log.Info("updated endpointslice", zap.String("for", owner), zap.String("slice", s.Metadata.Name))
	}
	for _, s := range w.Delete {
		_, err := c.Delete(ctx, client.EndpointSlices, s.Metadata.Namespace, s.Metadata.Name, api.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("failed to delete %s EndpointSlice for %s: %w", s.Metadata.Name, owner, err)
		}
		t.Deleted(key, s.Metadata.UID)
		log.Info("deleted endpointslice", zap.String("for", owner), zap.String("slice", s.Metadata.Name))
	}
	return nil
}

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
