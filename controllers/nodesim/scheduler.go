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
	if claimWhy := c.unboundClaim(pod); claimWhy != "" {
		nodes, _ := c.nodesLocked()
		why = fit.PreFilterMessage(len(nodes), claimWhy)
	} else if c.placedByCount(pod, req) {
		node, ok = c.leastLoadedLocked()
	}
	if !ok && why == "" {
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
		if apierrors.IsNotFound(err) {
			return nil // gone: the cache will tell
		}
		// Tried again after the queue's backoff, a Conflict too, as
		// kube-scheduler puts a pod whose binding failed back in its
		// queue (handleSchedulingFailure): a Conflict may say another
		// scheduler bound it, and then the retry finds it bound in the
		// cache, but a refused write says nothing, and no delivery would
		// come to wake the pod.
		return err
	}
	if ce := c.log.Check(zap.InfoLevel, "bound"); ce != nil {
		ce.Write(zap.String("pod", key), zap.String("node", node))
	}
	c.eventMessage(ctx, c.rec, pod, api.EventTypeNormal, "Scheduled", "Successfully assigned "+key+" to "+node)
	return nil
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// unboundClaim is why the VolumeBinding plugin's PreFilter turns pod away
// before any node is tried: a claim its volumes name does not exist, or
// is not Bound; "" when every claim is bound. Kubernetes: volumebinding's
// PreFilter and GetPodVolumeClaims (claims of a WaitForFirstConsumer class
// are bound at once here, so none waits for its consumer).
func (c *Controller) unboundClaim(pod *api.Pod) string {
	for _, v := range pod.Spec.Volumes {
		src := v.PersistentVolumeClaim
		if src == nil {
			continue
		}
		claim, err := c.claims.Namespace(pod.Metadata.Namespace).Get(src.ClaimName)
		if err != nil {
			return `persistentvolumeclaim "` + src.ClaimName + `" not found`
		}
		if claim.Metadata.DeletionTimestamp != nil {
			return `persistentvolumeclaim "` + src.ClaimName + `" is being deleted`
		}
		if claim.Status.Phase != api.ClaimBound {
			return fit.ReasonUnboundImmediateClaims
		}
	}
	return ""
}
