package scheduler

import (
	"context"
	"time"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/controllers/scheduler/fit"
)

// reasonUnschedulable is the PodScheduled condition's reason on a pod no
// node can take (api/core/v1's PodReasonUnschedulable).
const reasonUnschedulable = "Unschedulable"

// schedule binds a pending pod to a node, or marks it Unschedulable
// (kube-scheduler's ScheduleOne: filter, pick, assume, bind; or the
// failure handler, after the preemption postfilter).
func (c *Controller) schedule(ctx context.Context, key string, pod *api.Pod) error {
	if pod.Metadata.DeletionTimestamp != nil || finished(pod) {
		return nil
	}
	req, ports := fit.PodRequests(&pod.Spec), fit.PodHostPorts(&pod.Spec)
	c.mu.Lock()
	node, ok, why := "", false, ""
	c.ensureLoadLocked() // counts the nodes the heap leaves out, which placedByCount reads
	if claimWhy := c.unboundClaim(pod); claimWhy != "" {
		nodes, _ := c.nodesLocked()
		why = fit.PreFilterMessage(len(nodes), claimWhy)
	} else if ports == nil && c.placedByCount(pod, req) {
		node, ok = c.leastLoadedLocked()
	}
	var preemption *candidate
	if !ok && why == "" {
		fp := &fit.Pod{Spec: &pod.Spec, Requests: req, HostPorts: ports}
		nodes := c.fitNodesLocked()
		if node, ok, why = fit.Schedule(fp, nodes); !ok && len(nodes) > 0 {
			preemption, why = c.failedAllLocked(pod, fp, nodes)
		}
	}
	if ok {
		c.assumeLocked(key, node, req, ports) // counts against the node until the cache shows the binding
		delete(c.unschedulable, key)
	} else {
		c.unschedulable[key] = true
	}
	c.mu.Unlock()

	if !ok {
		nominated := ""
		if preemption != nil {
			if err := c.preempt(ctx, pod, preemption); err != nil {
				return err
			}
			nominated = preemption.node
		}
		return c.unschedulableFound(ctx, key, pod, why, nominated)
	}
	_, err := c.binder.Bind(ctx, pod.Metadata.Namespace, pod.Metadata.Name, node)
	if err != nil {
		c.mu.Lock()
		c.forgetAssumedLocked(key) // a no-op if the handler has seen the binding
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
	c.event(ctx, pod, api.EventTypeNormal, "Scheduled", "Successfully assigned "+key+" to "+node)
	return nil
}

// failedAllLocked runs the preemption postfilter for pod, which fits none
// of nodes: the candidate whose victims to evict, if preemption helps, and
// the FailedScheduling message, kube-scheduler's FitError.
func (c *Controller) failedAllLocked(pod *api.Pod, fp *fit.Pod, nodes []fit.Node) (*candidate, string) {
	statuses := make([]fit.Status, len(nodes))
	for i := range nodes {
		statuses[i] = fit.Filter(fp, &nodes[i])
	}
	cand, post := c.postFilter(pod, fp, nodes, statuses)
	return cand, fit.FitErrorMessage(len(nodes), statuses, post)
}

// unschedulableFound says why no node takes pod: a FailedScheduling event
// and the PodScheduled condition, and the node preemption nominated it to
// if it did ("" if not), unless the status says so already. The pod is
// tried again at any event that may make room or change a node, and,
// failing those, after a while (unschedulableFlush).
func (c *Controller) unschedulableFound(ctx context.Context, key string, pod *api.Pod, why, nominated string) error {
	c.queue.AddAfter(key, unschedulableFlush)
	if cond, has := conditionOf(pod, api.PodScheduled); has && cond.Status == api.ConditionFalse &&
		cond.Reason == reasonUnschedulable && cond.Message == why && (nominated == "" || pod.Status.NominatedNodeName == nominated) {
		return nil // said so already
	}
	c.log.Info("unschedulable", zap.String("pod", key), zap.String("why", why))
	c.event(ctx, pod, api.EventTypeWarning, "FailedScheduling", why)
	np := pod.DeepCopy()
	np.Status.Conditions = setCondition(np.Status.Conditions, api.PodScheduled, api.ConditionFalse, reasonUnschedulable, why, c.clock.Now())
	if nominated != "" {
		np.Status.NominatedNodeName = nominated
	}
	_, err := c.client.UpdateStatus(ctx, np)
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

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

// staticFitNode is the filters' view of a node from the node object alone
// (fit.Node without its pods), made once per node list (nodesLocked).
func (c *Controller) staticFitNode(n *api.Node) fit.Node {
	alloc := n.Status.Allocatable
	if len(alloc) == 0 {
		alloc = n.Status.Capacity
	}
	return fit.Node{
		Name: n.Metadata.Name, Labels: n.Metadata.Labels, Unschedulable: n.Spec.Unschedulable,
		Taints: n.Spec.Taints, Allocatable: fit.ResourceOf(alloc), AllowedPods: c.nodeCapacity(n),
	}
}

// keepsPodsOff reports whether the heap of the fast path leaves a node out:
// it is not ready, cordoned, or has a taint that keeps pods off (NoSchedule
// or NoExecute), so that only a pod with the right toleration may go there.
func keepsPodsOff(n *api.Node) bool {
	if !nodeReady(n) || n.Spec.Unschedulable {
		return true
	}
	for i := range n.Spec.Taints {
		if e := n.Spec.Taints[i].Effect; e == api.TaintEffectNoSchedule || e == api.TaintEffectNoExecute {
			return true
		}
	}
	return false
}

// lifecycleTaint is the taint the node lifecycle controller puts on a node
// that is not ready: unreachable when its Ready condition is Unknown (a
// kubelet that stopped posting), not-ready when it is False.
func lifecycleTaint(n *api.Node) api.Taint {
	key := fit.TaintNodeUnreachable
	for _, cond := range n.Status.Conditions {
		if cond.Type == api.NodeReady && cond.Status == api.ConditionFalse {
			key = fit.TaintNodeNotReady
		}
	}
	return api.Taint{Key: key, Effect: api.TaintEffectNoSchedule}
}

// fitNodesLocked is the scheduler's view of every node, in name order:
// what each is (nodesLocked), what its unfinished pods and the pods
// assumed there request (nodeRec), and the node lifecycle's taint on the
// nodes that are not ready. The slice is reused by the next call.
func (c *Controller) fitNodesLocked() []fit.Node {
	nodes, static := c.nodesLocked()
	out := append(c.fitBuf[:0], static...)
	c.fitBuf = out // fit.Schedule is done with it before mu is let go
	for i, n := range nodes {
		if rec := c.nodeRecs[n.Metadata.Name]; rec != nil {
			out[i].Pods, out[i].Requested, out[i].UsedPorts = rec.pods, rec.requested, rec.ports
		}
		if !nodeReady(n) {
			out[i].Taints = append(append([]api.Taint(nil), n.Spec.Taints...), lifecycleTaint(n))
		}
	}
	return out
}

// placedByCount reports whether where a pod may go depends on nothing but
// the nodes' pod counts, so that the fast path (leastLoadedLocked) may
// place it: it requests nothing (a pod that asks for a host port does not
// come here), has no nodeSelector or required node
// affinity, and tolerates nothing the nodes outside the heap carry (it has
// no tolerations, or every node is in the heap).
func (c *Controller) placedByCount(pod *api.Pod, req *fit.Resource) bool {
	s := &pod.Spec
	return req == nil && len(s.NodeSelector) == 0 &&
		(s.Affinity == nil || s.Affinity.NodeAffinity == nil || s.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil) &&
		(len(s.Tolerations) == 0 || c.loadLeftOut == 0)
}

// conditionOf returns the pod's condition of typ, if it has one.
func conditionOf(pod *api.Pod, typ api.PodConditionType) (api.PodCondition, bool) {
	for _, c := range pod.Status.Conditions {
		if c.Type == typ {
			return c, true
		}
	}
	return api.PodCondition{}, false
}

// setCondition sets the condition of typ in conds, which the caller owns,
// its transition time moved only when its status changes.
func setCondition(conds []api.PodCondition, typ api.PodConditionType, status api.ConditionStatus, reason, message string, now time.Time) []api.PodCondition {
	for i := range conds {
		if conds[i].Type != typ {
			continue
		}
		if conds[i].Status != status {
			conds[i].LastTransitionTime = api.NewTime(now)
		}
		conds[i].Status, conds[i].Reason, conds[i].Message = status, reason, message
		return conds
	}
	return append(conds, api.PodCondition{Type: typ, Status: status, Reason: reason, Message: message, LastTransitionTime: api.NewTime(now)})
}
