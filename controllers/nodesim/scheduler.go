package nodesim

import (
	"context"
	"maps"
	"slices"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// schedule binds a pending pod to a node, or marks it Unschedulable.
// st is the pod's state as sync looked it up (nil if none).
func (c *Controller) schedule(ctx context.Context, key string, st *podState, pod *api.Pod) error {
	if pod.Metadata.DeletionTimestamp != nil || finished(pod) {
		return nil
	}
	c.mu.Lock()
	node, ok := "", false
	if len(pod.Spec.NodeSelector) == 0 {
		node, ok = c.leastLoadedLocked()
	}
	why := ""
	if !ok {
		node, ok, why = chooseNode(c.nodeSlotsLocked(pod))
	}
	if ok {
		st = c.liveLocked(key, st)
		c.setAssumedLocked(st, node) // counts against the node until the cache shows the binding
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

// nodeSlotsLocked is the scheduler's view of the nodes for pod, in name
// order: how many unfinished pods each has (bindings as the pod handler
// delivered them, plus assumed ones), its capacity, whether it takes pods,
// and whether it fits the pod's nodeSelector. The slice is reused by the
// next call.
func (c *Controller) nodeSlotsLocked(pod *api.Pod) []nodeSlot {
	nodes, caps := c.nodesLocked()
	slots := slices.Grow(c.slotBuf[:0], len(nodes))[:len(nodes)]
	c.slotBuf = slots // chooseNode is done with it before mu is let go
	for i, n := range nodes {
		down, _ := c.nodeDownLocked(n)
		slots[i] = nodeSlot{
			Name: n.Metadata.Name, Pods: c.podsOnLocked(n.Metadata.Name), Capacity: caps[i],
			Ready:    !down,
			Cordoned: n.Spec.Unschedulable,
			Mismatch: !selectorFits(pod.Spec.NodeSelector, n.Metadata.Labels),
		}
	}
	return slots
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
