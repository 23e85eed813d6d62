package scheduler

import (
	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/controllers/scheduler/fit"
)

// The scheduler counts each node's pods without listing them, as
// kube-scheduler's cache keeps a NodeInfo per node that its pod events
// update. The pod handler keeps each pod's podInfo.bound (the node it is
// bound to, as last delivered); each node's record counts (nodeRec.pods)
// the pods bound there that hold a slot plus the assumed pods
// (podInfo.assumed) not seen bound: what listing the pod cache and adding
// the assumed pods it does not show bound would count. All are guarded by
// mu.

// podInfo is what the scheduler counts of one pod.
type podInfo struct {
	key string
	// bound is the node the pod is bound to, as last delivered; "" if
	// none. holds says it has not finished: it takes one of the node's
	// slots.
	bound string
	holds bool
	// assumed is the node the scheduler bound the pod to while the cache
	// has not shown the binding yet, so that it counts against that
	// node's capacity (kube-scheduler's AssumePod); "" if none.
	assumed string
	// req is what the pod requests (fit.PodRequests), as counted against
	// the node it is counted on; nil when it requests nothing. A pod's
	// requests do not change, so it is worked out when the pod is first
	// counted somewhere.
	req *fit.Resource
	// ports are the host ports it holds (fit.PodHostPorts), worked out
	// with req; nil when none.
	ports []fit.HostPort
}

// empty reports whether p holds nothing but its key: its entry can go.
func (p *podInfo) empty() bool { return p.bound == "" && p.assumed == "" }

// nodeRec is the scheduler's record of one node.
type nodeRec struct {
	name string
	// pods counts the pods bound to the node that have not finished, plus
	// the pods assumed there not seen bound; requested is what they
	// request in all.
	pods      int
	requested fit.Resource
	// ports counts the host ports those pods hold; nil until one does.
	ports map[fit.HostPort]int
	// load is the node's entry in the heap if it has one and the heap is
	// the one built at loadGen (leastloaded.go).
	load    *loadEntry
	loadGen uint64
}

// recLocked returns node's record, making it if there is none.
func (c *Controller) recLocked(node string) *nodeRec {
	r := c.nodeRecs[node]
	if r == nil {
		r = &nodeRec{name: node}
		c.nodeRecs[node] = r
	}
	return r
}

// observe hands what the pod handler delivers to the counts and returns
// the pod's key, and whether the pod waits for a node: it is unbound,
// unfinished and not being deleted.
func (c *Controller) observe(obj api.Object, gone bool) (key string, pending bool) {
	m := obj.GetObjectMeta()
	p, ok := obj.(*api.Pod)
	if !ok || m.Namespace == "" {
		return api.KeyOf(m), false
	}
	if gone {
		p = nil
	}
	// The key is built in a buffer: a pod the scheduler counts has its
	// key made once, and looking it up needs no allocation.
	var buf [128]byte
	k := api.AppendKey(buf[:0], m.Namespace, m.Name)
	c.mu.Lock()
	defer c.mu.Unlock()
	info := c.pods[string(k)]
	if info != nil {
		key = info.key
	} else {
		key = string(k)
	}
	c.observePodLocked(key, info, p)
	return key, p != nil && p.Spec.NodeName == "" && m.DeletionTimestamp == nil && !finished(p)
}

// observePodLocked records the pod under key, whose info is info (nil if it
// has none), as the handler delivers it; p nil means it is gone.
func (c *Controller) observePodLocked(key string, info *podInfo, p *api.Pod) {
	if p == nil || p.Spec.NodeName == "" {
		if info == nil {
			return // nothing counted of it
		}
		if info.bound != "" {
			if info.holds {
				c.addPodsOnLocked(c.recLocked(info.bound), -1, info)
			}
			info.bound, info.holds = "", false
			if info.assumed != "" {
				c.addPodsOnLocked(c.recLocked(info.assumed), 1, info) // counted again, as the cache no longer shows it bound
			}
		}
		if p == nil && info.assumed != "" {
			c.addPodsOnLocked(c.recLocked(info.assumed), -1, info)
			info.assumed = ""
		}
		if info.empty() {
			delete(c.pods, key)
		}
		return
	}
	if info == nil {
		info = &podInfo{key: key}
		c.pods[key] = info
	}
	// The pod is counted against at most one node: where it was assumed
	// if it was not seen bound, else where it was seen bound if it held a
	// slot there. Its count moves only if that node changes, so the
	// deliveries of its status writes, and of the binding the scheduler
	// assumed, leave the counts and the heap alone.
	from := ""
	if info.assumed != "" {
		if info.bound == "" {
			from = info.assumed
		}
		info.assumed = "" // the binding is seen: no longer assumed
	}
	if info.holds {
		from = info.bound
	}
	info.bound, info.holds = p.Spec.NodeName, !finished(p)
	to := ""
	if info.holds {
		to = info.bound
	}
	if from != to {
		if from == "" {
			// First counted: bound by another scheduler, or by its creator.
			info.req, info.ports = fit.PodRequests(&p.Spec), fit.PodHostPorts(&p.Spec)
		}
		if from != "" {
			c.addPodsOnLocked(c.recLocked(from), -1, info)
		}
		if to != "" {
			c.addPodsOnLocked(c.recLocked(to), 1, info)
		}
	}
}

// assumeLocked records that the scheduler bound the pod under key, whose
// requests are req and host ports ports, to node, ahead of the cache.
func (c *Controller) assumeLocked(key, node string, req *fit.Resource, ports []fit.HostPort) {
	info := c.pods[key]
	if info == nil {
		info = &podInfo{key: key}
		c.pods[key] = info
	}
	c.forgetAssumedLocked(key)
	info.assumed = node
	if info.bound == "" {
		info.req, info.ports = req, ports
		c.addPodsOnLocked(c.recLocked(node), 1, info)
	}
}

// forgetAssumedLocked forgets the scheduler's binding of the pod under key,
// if it has one: the binding failed (kube-scheduler's ForgetPod).
func (c *Controller) forgetAssumedLocked(key string) {
	info := c.pods[key]
	if info == nil || info.assumed == "" {
		return
	}
	node := info.assumed
	info.assumed = ""
	if info.bound == "" {
		c.addPodsOnLocked(c.recLocked(node), -1, info)
	}
	if info.empty() {
		delete(c.pods, key)
	}
}

// podsOnLocked is the pod count of node.
func (c *Controller) podsOnLocked(node string) int {
	if r := c.nodeRecs[node]; r != nil {
		return r.pods
	}
	return 0
}

// nodesLocked is the node cache's list, in name order, and the filters'
// view of each node (its pod capacity, allocatable resources, labels and
// taints, without its pods), without sorting the cache for every pod: the
// list is kept until the node handler delivers a change, or the cache's
// size shows one the handler has not delivered yet.
func (c *Controller) nodesLocked() ([]*api.Node, []fit.Node) {
	if c.nodeList == nil || len(c.nodeList) != c.nodeInf.Indexer().Len() {
		c.invalidateLoadLocked()
		c.nodeList = c.nodes.List(api.Selector{})
		c.nodeFits = make([]fit.Node, len(c.nodeList))
		for i, n := range c.nodeList {
			c.nodeFits[i] = c.staticFitNode(n)
		}
	}
	return c.nodeList, c.nodeFits
}

// nodesChanged drops the node list: a node came, changed or went.
func (c *Controller) nodesChanged() {
	c.mu.Lock()
	c.nodeList = nil
	c.invalidateLoadLocked()
	c.mu.Unlock()
}
