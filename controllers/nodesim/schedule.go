package nodesim

import (
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/controllers/nodesim/fit"
)

// unschedulableFlush is how long a pod no node could take waits before the
// scheduler tries it again without any event to prompt it: kube-scheduler
// moves a pod that has sat in its unschedulable queue for
// podMaxInUnschedulablePodsDuration (5 minutes) back to be tried.
const unschedulableFlush = 5 * time.Minute

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
// it is down, cordoned, or has a taint that keeps pods off (NoSchedule or
// NoExecute), so that only a pod with the right toleration may go there.
func keepsPodsOff(n *api.Node, down bool) bool {
	if down || n.Spec.Unschedulable {
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
// that is down: unreachable when its Ready condition is Unknown (NodeDown,
// a kubelet that stopped posting), not-ready when it is False.
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
// assumed there request (nodeIPs), and the node lifecycle's taint on the
// nodes that are down. The slice is reused by the next call.
func (c *Controller) fitNodesLocked() []fit.Node {
	nodes, static := c.nodesLocked()
	out := append(c.fitBuf[:0], static...)
	c.fitBuf = out // fit.Schedule is done with it before mu is let go
	for i, n := range nodes {
		if rec := c.ips[n.Metadata.Name]; rec != nil {
			out[i].Pods, out[i].Requested = rec.pods, rec.requested
		}
		if down, _ := c.nodeDownLocked(n); down {
			out[i].Taints = append(append([]api.Taint(nil), n.Spec.Taints...), lifecycleTaint(n))
		}
	}
	return out
}

// placedByCount reports whether where a pod may go depends on nothing but
// the nodes' pod counts, so that the fast path (leastLoadedLocked) may
// place it: it requests nothing, has no nodeSelector or required node
// affinity, and tolerates nothing the nodes outside the heap carry (it has
// no tolerations, or every node is in the heap).
func (c *Controller) placedByCount(pod *api.Pod, req *fit.Resource) bool {
	s := &pod.Spec
	return req == nil && len(s.NodeSelector) == 0 &&
		(s.Affinity == nil || s.Affinity.NodeAffinity == nil || s.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil) &&
		(len(s.Tolerations) == 0 || c.loadLeftOut == 0)
}
