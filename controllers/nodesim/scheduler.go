package nodesim

import (
	"context"
	"maps"
	"slices"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/controllers/nodesim/fit"
)

// schedule binds a pending pod to a node, or marks it Unschedulable.
// st is the pod's state as sync looked it up (nil if none).
func (c *Controller) schedule(ctx context.Context, key string, st *podState, pod *api.Pod) error {
	if pod.Metadata.DeletionTimestamp != nil || finished(pod) {
		return nil
	}
	req := fit.PodRequests(&pod.Spec)
	c.mu.Lock()
	node, ok, why := "", false, ""
	c.ensureLoadLocked() // counts the nodes the heap leaves out, which placedByCount reads
	if c.placedByCount(pod, req) {
		node, ok = c.leastLoadedLocked()
	}
	if !ok {
		node, ok, why = fit.Schedule(&fit.Pod{Spec: &pod.Spec, Requests: req}, c.fitNodesLocked())
	}
	if ok {
		st = c.liveLocked(key, st)
		c.setAssumedLocked(st, node, req) // counts against the node until the cache shows the binding
		if st.ips == nil {
			// The kubelet's first sync of the pod finds its node's record
			// here rather than by name (nodeLocked checks the name).
			st.ips = c.nodeIPsLocked(node)
		}
		delete(c.unschedulable, key)
	} else {
		c.unschedulable[key] = true
	}
	c.mu.Unlock()

	if !ok {
		// Tried again at any event that may make room or change a node,
		// and, failing those, after a while (unschedulableFlush).
		c.queue.AddAfter(key, unschedulableFlush)
		if cond, has := conditionOf(pod, api.PodScheduled); has && cond.Status == api.ConditionFalse &&
			cond.Reason == reasonUnschedulable && cond.Message == why {
			return nil // said so already
		}
		c.log.Info("unschedulable", zap.String("pod", key), zap.String("why", why))
		c.event(ctx, c.rec, pod, api.EventTypeWarning, "FailedScheduling", "%s", why)
		cr := c.carriers.lend()
		defer c.carriers.giveBack(cr)
		status := cr.buf.publish(&pod.Status, unschedulableStatus(&cr.buf, pod, why, c.clock.Now()))
		_, err := c.client.UpdateStatus(ctx, cr.carry(pod, status), cr.handover()...)
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	}

	_, err := c.binder.Bind(ctx, pod.Metadata.Namespace, pod.Metadata.Name, node)
	if err != nil {
		c.mu.Lock()
		c.deleteAssumedLocked(st) // a no-op if the handler has seen the binding, or forget has run
		c.mu.Unlock()
		if apierrors.IsConflict(err) {
			c.queue.AddAfter(key, conflictRecheck)
		}
		if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
			return nil // gone, or bound by someone else: the cache will tell
		}
		return err
	}
	if ce := c.log.Check(zap.InfoLevel, "bound"); ce != nil {
		ce.Write(zap.String("pod", key), zap.String("node", node))
	}
	c.eventMessage(ctx, c.rec, pod, api.EventTypeNormal, "Scheduled", "Successfully assigned "+key+" to "+node)
	return nil
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
