package informer

import (
	"context"
	"maps"
	"slices"
	"sync"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/clock"
)

// Factory makes one shared informer per resource, so every controller that
// asks for pods shares one reflector, one cache and one watch. Kubernetes:
// informers.SharedInformerFactory.
type Factory struct {
	client    ListWatchClient
	namespace string
	clock     clock.Clock
	log       *zap.Logger

	// mu guards informers and started.
	mu        sync.Mutex
	informers map[string]*Informer
	started   map[string]bool
	wg        sync.WaitGroup
}

// NewFactory returns a factory of informers over client, scoped to one
// namespace ("" for all). It starts nothing.
func NewFactory(client ListWatchClient, namespace string, clk clock.Clock, log *zap.Logger) *Factory {
	if log == nil {
		log = zap.NewNop()
	}
	return &Factory{
		client: client, namespace: namespace, clock: clk, log: log,
		informers: make(map[string]*Informer), started: make(map[string]bool),
	}
}

// ForResource returns the shared informer of a resource ("pods", ...),
// making it on first use.
func (f *Factory) ForResource(resource string) *Informer {
	f.mu.Lock()
	defer f.mu.Unlock()
	if i, ok := f.informers[resource]; ok {
		return i
	}
	i := New(Source{Client: f.client, Resource: resource, Namespace: f.namespace},
		Config{Clock: f.clock, Logger: f.log.Named(resource)})
	f.informers[resource] = i
	return i
}

// Unshared returns a new informer of a resource, with the factory's
// client, namespace, clock and logger, that the factory neither keeps nor
// starts: for a caller that runs it, and stops it, itself (the garbage
// collector's informers of custom resources, which go with their
// definition). Kubernetes' collector makes such monitors too.
func (f *Factory) Unshared(resource string) *Informer {
	return New(Source{Client: f.client, Resource: resource, Namespace: f.namespace},
		Config{Clock: f.clock, Logger: f.log.Named(resource)})
}

// Informers returns the informers made so far, by resource, in name order.
func (f *Factory) Informers() []*Informer {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]*Informer, 0, len(f.informers))
	for _, name := range slices.Sorted(maps.Keys(f.informers)) {
		out = append(out, f.informers[name])
	}
	return out
}

// Resources returns the resources of the informers made so far, in name
// order: the order of Informers.
func (f *Factory) Resources() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Sorted(maps.Keys(f.informers))
}

// Start runs, until ctx is done, every informer asked for so far that is not
// yet running; call it again to start informers asked for later. Shutdown
// waits for them all to stop.
func (f *Factory) Start(ctx context.Context) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, name := range slices.Sorted(maps.Keys(f.informers)) {
		if f.started[name] {
			continue
		}
		f.started[name] = true
		i := f.informers[name]
		f.wg.Go(func() { i.Run(ctx) })
	}
}

// WaitForCacheSync waits until every started informer has synced and every
// handler registered on them has been handed the initial list, or ctx ends.
// It returns, per resource, whether it synced. Unlike client-go's, it waits
// for the handlers, not only the caches.
func (f *Factory) WaitForCacheSync(ctx context.Context) map[string]bool {
	f.mu.Lock()
	started := make(map[string]*Informer)
	for name, ok := range f.started {
		if ok {
			started[name] = f.informers[name]
		}
	}
	f.mu.Unlock()
	out := make(map[string]bool, len(started))
	for _, name := range slices.Sorted(maps.Keys(started)) {
		out[name] = started[name].WaitForHandlers(ctx)
	}
	return out
}

// Shutdown waits until every informer Start started has stopped; cancel
// their context first.
func (f *Factory) Shutdown() { f.wg.Wait() }
