package endpoints

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
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
	if apiserver.IsNotFound(err) {
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

	pods := c.selectedPods(ns, svc.Spec.Selector)
	subsets := desiredSubsets(svc, pods)
	// Computed even when nothing is written, so the next write reports
	// only what changed after this sync.
	triggeredAt := c.triggers.compute(key, svc, pods)

	current, err := c.endpoints.Namespace(ns).Get(name) // nil if not found
	if err != nil && !apiserver.IsNotFound(err) {
		return err
	}
	if current != nil && c.stale.isStale(key, current.Metadata.ResourceVersion) {
		return fmt.Errorf("endpoints %s: cache still holds resourceVersion %s, older than this controller's last write",
			key, current.Metadata.ResourceVersion)
	}
	subsets, truncated := truncate(subsets, MaxEndpointsPerObject)
	if current != nil && subsetsEqual(current.Subsets, subsets) &&
		labelsCurrent(current.Metadata.Labels, svc.Metadata.Labels) &&
		overCapacityMarked(current.Metadata.Annotations) == truncated {
		return nil // nothing changed: no write
	}

	return c.write(ctx, key, svc, current, buildEndpoints(svc, current, subsets, truncated, triggeredAt))
}

// serviceGone deletes a deleted service's Endpoints, whoever wrote them,
// and forgets what the controller remembered of the service.
func (c *Controller) serviceGone(ctx context.Context, key, ns, name string) error {
	_, err := c.client.Delete(ctx, apiserver.Endpoints, ns, name, api.DeleteOptions{})
	if err != nil && !apiserver.IsNotFound(err) {
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
// remembers the version an update replaced (staleTracker).
func (c *Controller) write(ctx context.Context, key string, svc *api.Service, current, next *api.Endpoints) error {
	subsets := len(next.Subsets)
	if current == nil {
		if _, err := c.client.Create(ctx, next); err != nil {
			if apiserver.IsForbidden(err) && c.namespaceTerminating(err) {
				// The namespace is going away and takes the service with it.
				return nil
			}
			c.warn(ctx, svc, "FailedToCreateEndpoint", "Failed to create endpoint for service %s: %v", key, err)
			return fmt.Errorf("create endpoints %s: %w", key, err)
		}
		c.log.Info("created endpoints", zap.String("service", key), zap.Int("subsets", subsets))
		return nil
	}
	written, err := c.client.Update(ctx, next)
	if err != nil {
		c.warn(ctx, svc, "FailedToUpdateEndpoint", "Failed to update endpoint %s: %v", key, err)
		return fmt.Errorf("update endpoints %s: %w", key, err)
	}
	if rv := written.GetObjectMeta().ResourceVersion; rv != current.Metadata.ResourceVersion {
		c.stale.remember(key, current.Metadata.ResourceVersion)
	}
	c.log.Info("updated endpoints", zap.String("service", key), zap.Int("subsets", subsets))
	return nil
}

// namespaceTerminating tells a create refused because its namespace is
// being deleted from other Forbidden errors.
func (c *Controller) namespaceTerminating(err error) bool {
	return apiserver.IsForbidden(err) && apiserver.HasCause(err, apiserver.CauseNamespaceTerminating)
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
		// object is never touched, and the Client copies what it is given.
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

// staleTracker remembers, per service key, the resourceVersion an update
// of the controller replaced. A sync that reads that version from the
// cache acts on a view older than its own last write, so it fails and is
// retried once the cache catches up, rather than writing from stale data
// (kubernetes/kubernetes#127370).
type staleTracker struct {
	// mu guards rv: service key → replaced resourceVersion.
	mu sync.Mutex
	rv map[string]string
}

func (t *staleTracker) remember(key, replacedRV string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.rv[key] = replacedRV
}

func (t *staleTracker) isStale(key, rv string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	old, ok := t.rv[key]
	return ok && old == rv
}

func (t *staleTracker) forget(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.rv, key)
}
