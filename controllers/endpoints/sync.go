package endpoints

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/controllers/loop"
)

// sync reconciles one service's Endpoints: observe (service, selected pods
// and current Endpoints from the caches), decide (desiredSubsets), act
// (create, update or delete through the Client, or nothing). Kubernetes:
// syncService.
func (c *Controller) sync(ctx context.Context, key string) error {
	ns, name, err := api.SplitKey(key)
	if err != nil {
		c.log.Error("dropping malformed key", zap.String("key", key), zap.Error(err))
		return nil
	}
	svc, err := c.services.Namespace(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return c.serviceGone(ctx, key, ns, name)
	}
	if err != nil {
		return err
	}
	// An ExternalName service is a DNS alias and has no endpoints; a
	// service without a selector has Endpoints written by hand, which the
	// controller leaves alone.
	if svc.Spec.Type == api.ServiceTypeExternalName || svc.Spec.Selector == nil {
		return nil
	}

	p := c.packers.Get().(*packer)
	defer func() {
		p.reset()
		c.packers.Put(p)
	}()
	pods := c.selectedPods(ns, svc.Spec.Selector, &p.selected)
	// Computed even when nothing is written, so the next write reports
	// only what changed after this sync.
	triggeredAt, tracked := c.triggers.compute(key, svc, pods)

	current, err := c.endpoints.Namespace(ns).Get(name) // nil if not found
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	if current != nil {
		if stale, caughtUp := c.stale.check(key, current.Metadata.ResourceVersion); stale {
			if caughtUp {
				// The cache moved on after the read above, and its handler
				// found no sync waiting: queue the key again (it is in
				// flight, so Done hands it out once more).
				c.queue.Add(key)
			}
			return fmt.Errorf("%w: endpoints %s: cache still holds resourceVersion %s, which this controller's last write replaced",
				errStaleCache, key, current.Metadata.ResourceVersion)
		}
	}
	if tracked.unchanged(current) {
		// An earlier sync found these Endpoints right for this service,
		// and no pod that may serve it has moved since: nothing to
		// compute. Most syncs are so: a pod that came, went or changed
		// without an address (created, deleted after it terminated).
		if c.checkUnchanged != nil {
			c.checkUnchanged(svc, pods, current)
		}
		return nil
	}
	// desiredSubsets, before packing: after the stale check, which a
	// sync soon after a write may stop at (6 % of the syncs of the scale
	// benchmark), as collect is pure and its result is only read below.
	p.collect(svc, pods)
	if current != nil {
		// Most syncs find the Endpoints right: compare before making
		// the subsets, which costs allocations per address.
		if p.count() <= MaxEndpointsPerObject && p.equal(current.Subsets) &&
			labelsCurrent(current.Metadata.Labels, svc.Metadata.Labels) && !overCapacityMarked(current.Metadata.Annotations) {
			tracked.verified = current
			return nil // nothing changed: no write
		}
	}
	var prev []api.EndpointSubset
	if current != nil {
		prev = current.Subsets
	}
	tracked.forgetVerified() // what follows writes, or finds current wrong
	subsets, truncated := truncate(p.pack(prev), MaxEndpointsPerObject)
	// Untruncated, the packing is what the check above compared (equal
	// is subsetsEqual of pack, TestPackerEqualIsSubsetsEqual), and found
	// wrong: only a truncated one is compared again, as it may now hold
	// what current holds.
	if current != nil && truncated && subsetsEqual(current.Subsets, subsets) &&
		labelsCurrent(current.Metadata.Labels, svc.Metadata.Labels) &&
		overCapacityMarked(current.Metadata.Annotations) == truncated {
		tracked.verified = current
		return nil // nothing changed: no write
	}

	written, err := c.write(ctx, key, svc, current, buildEndpoints(svc, current, subsets, truncated, triggeredAt))
	if err == nil {
		// What the server stored is what this sync computed for the
		// pods it read: the server's defaults fill in only a port's
		// protocol, which endpointPort has set. A later sync that finds
		// that version in the cache, nothing moved, need not compute it
		// again (trackedService.written).
		tracked.written = versionOf(written)
	}
	return err
}

// serviceGone deletes a deleted service's Endpoints, whoever wrote them,
// and forgets what the controller remembered of the service.
func (c *Controller) serviceGone(ctx context.Context, key, ns, name string) error {
	_, err := c.client.Delete(ctx, client.Endpoints, ns, name, api.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete endpoints %s: %w", key, err)
	}
	if err == nil {
		c.log.Info("deleted endpoints of a deleted service", zap.String("service", key))
	}
	c.stale.forget(key)
	c.triggers.forget(key)
	return nil
}

// write creates next (current nil) or updates current to next, and
// remembers the version an update replaced (staleTracker). It returns
// the Endpoints as the server wrote them, or nil if it wrote none. next is handed
// over to the Client (client.Handover): it is built for this write
// (buildEndpoints, packer.pack), and neither the caller nor the controller
// keeps, reuses or changes any of it afterwards, so the server stores it
// rather than a copy of every address.
func (c *Controller) write(ctx context.Context, key string, svc *api.Service, current, next *api.Endpoints) (*api.Endpoints, error) {
	subsets := len(next.Subsets)
	if current == nil {
		created, err := c.client.Create(ctx, next, client.Handover())
		if err != nil {
			if apierrors.IsForbidden(err) && c.namespaceTerminating(err) {
				// The namespace is going away and takes the service with it.
				return nil, nil
			}
			c.warn(ctx, svc, "FailedToCreateEndpoint", "Failed to create endpoint for service %s: %v", key, err)
			return nil, fmt.Errorf("create endpoints %s: %w", key, err)
		}
		c.log.Info("created endpoints", zap.String("service", key), zap.Int("subsets", subsets))
		ep, _ := created.(*api.Endpoints)
		return ep, nil
	}
	written, err := c.client.Update(ctx, next, client.Handover())
	if err != nil {
		c.warn(ctx, svc, "FailedToUpdateEndpoint", "Failed to update endpoint %s: %v", key, err)
		return nil, fmt.Errorf("update endpoints %s: %w", key, err)
	}
	if rv := written.GetObjectMeta().ResourceVersion; rv != current.Metadata.ResourceVersion {
		c.stale.remember(key, current.Metadata.ResourceVersion)
	}
	c.log.Info("updated endpoints", zap.String("service", key), zap.Int("subsets", subsets))
	ep, _ := written.(*api.Endpoints)
	return ep, nil
}

// namespaceTerminating tells a create refused because its namespace is
// being deleted from other Forbidden errors.
func (c *Controller) namespaceTerminating(err error) bool {
	return apierrors.IsForbidden(err) && apierrors.HasStatusCause(err, api.NamespaceTerminatingCause)
}

// warn records a Warning event on the service, if there is a recorder.
func (c *Controller) warn(ctx context.Context, svc *api.Service, reason, format string, args ...any) {
	if c.recorder == nil {
		return
	}
	if err := c.recorder.Eventf(ctx, svc, api.EventTypeWarning, reason, format, args...); err != nil {
		c.log.Debug("recording event failed", zap.String("reason", reason), zap.Error(err))
	}
}

// buildEndpoints returns the Endpoints to write: current's identity and
// annotations (or a new object named after the service), with the desired
// subsets and labels, and the trigger-time and over-capacity annotations
// set or cleared.
func buildEndpoints(svc *api.Service, current *api.Endpoints, subsets []api.EndpointSubset, truncated bool, triggeredAt time.Time) *api.Endpoints {
	var ep *api.Endpoints
	if current != nil {
		// A shallow copy: every field changed below is replaced, not
		// modified in place (annotations are cloned first), so the cached
		// object is never touched. What the copy shares with it (owner
		// references, finalizers, managedFields) is shared with a stored
		// object, which the server, given the copy (client.Handover),
		// neither changes nor needs to copy: it replaces only the copy's
		// top-level and single-valued metadata fields.
		cp := *current
		ep = &cp
	} else {
		ep = &api.Endpoints{Metadata: api.ObjectMeta{Namespace: svc.Metadata.Namespace, Name: svc.Metadata.Name}}
	}
	ep.Subsets = subsets
	ep.Metadata.Labels = desiredLabels(svc)
	annotations := maps.Clone(ep.Metadata.Annotations)
	if annotations == nil {
		annotations = map[string]string{}
	}
	delete(annotations, AnnotationOverCapacity)
	if truncated {
		annotations[AnnotationOverCapacity] = "truncated"
	}
	delete(annotations, AnnotationLastChangeTriggerTime)
	if !triggeredAt.IsZero() {
		annotations[AnnotationLastChangeTriggerTime] = triggeredAt.UTC().Format(time.RFC3339Nano)
	}
	if len(annotations) == 0 {
		annotations = nil
	}
	ep.Metadata.Annotations = annotations
	return ep
}

func overCapacityMarked(annotations map[string]string) bool {
	_, ok := annotations[AnnotationOverCapacity]
	return ok
}

// errStaleCache is what sync returns when the endpoints cache still holds
// the version the controller's own last update replaced. It is a wait for
// the cache, not a failure: it wraps loop.ErrWait, so the loop neither
// retries nor counts it, since the cache catching up queues the service
// again (staleTracker).
var errStaleCache = fmt.Errorf("endpoints cache is out of date (%w)", loop.ErrWait)

// staleTracker remembers, per service key, the resourceVersion an update
// of the controller replaced. A sync that reads that version from the
// cache acts on a view older than its own last write, so it writes nothing
// and waits for the cache to catch up (kubernetes/kubernetes#127370), and
// the Endpoints handler queues the service once it has.
//
// The wait is a handshake, so that it cannot miss the cache catching up
// between a sync's read and its check: check marks a stale sync as
// waiting, unless the cache has already moved on since, and cacheMoved,
// called by the update handler after the cache has changed, marks the
// move and reports whether a sync was waiting for it. The cache moves off
// a version once, and the handler hears of it only after the cache has
// changed, so a sync that checks the replaced version after cacheMoved
// read it before the move: one requeue settles it, and check consumes
// the move so that no mistake here can turn into a busy loop.
type staleTracker struct {
	// mu guards entries: service key → what the last update replaced.
	mu      sync.Mutex
	entries map[string]*staleEntry
}

type staleEntry struct {
	replaced string // the resourceVersion the controller's update replaced
	waiting  bool   // a sync found the cache at replaced and wants a wake-up
	moved    bool   // the cache has since moved off replaced
}

// remember records that the controller's update replaced replacedRV,
// dropping what was remembered of an earlier update.
func (t *staleTracker) remember(key, replacedRV string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.entries[key] = &staleEntry{replaced: replacedRV}
}

// check reports whether rv, read from the cache, is the version the
// controller's last update replaced (stale). If it is, and the cache has
// already moved off it (caughtUp), the caller must queue the key again
// itself; otherwise the sync is marked waiting, for cacheMoved to wake.
func (t *staleTracker) check(key, rv string) (stale, caughtUp bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.entries[key]
	if !ok || e.replaced != rv {
		return false, false
	}
	if e.moved {
		e.moved = false
		return true, true
	}
	e.waiting = true
	return true, false
}

// cacheMoved records that the cache's Endpoints for key changed from
// fromRV to toRV, and reports whether a stale sync was waiting for that:
// the cache held the replaced version and now holds another one. Only
// the old version tells the catch-up from a late notification of an
// earlier change. It wakes a waiting sync only once.
func (t *staleTracker) cacheMoved(key, fromRV, toRV string) (wake bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.entries[key]
	if !ok || fromRV != e.replaced || toRV == e.replaced {
		return false
	}
	e.moved = true
	wake, e.waiting = e.waiting, false
	return wake
}

func (t *staleTracker) forget(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.entries, key)
}
