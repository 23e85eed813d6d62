package nodesim

import (
	"fmt"
	"sync"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/controllers/nodesim/fit"
	"github.com/miniplane/miniplane/informer"
)

// nodeNameIndex is this package's index on the shared pod informer: the
// pods bound to a node, by spec.nodeName. The name is the package's own, so
// an index of that name already there was added by another Controller of
// this package on the same factory, with the same function.
const nodeNameIndex = "nodesim/nodeName"

// nodeNameValues makes the values of nodeNameIndex: a pod's node name, in
// a one-element slice. The cache indexes a pod at every change of it, and
// only reads what an IndexFunc returns, so the slice of each node is made
// once and shared. mu guards byNode, which grows by one entry per node name
// ever bound to.
type nodeNameValues struct {
	mu     sync.Mutex
	byNode map[string][]string
}

// podNodeName indexes a pod by the node it is bound to, if any.
func (v *nodeNameValues) podNodeName(obj api.Object) []string {
	p, ok := obj.(*api.Pod)
	if !ok || p.Spec.NodeName == "" {
		return nil
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	vals, ok := v.byNode[p.Spec.NodeName]
	if !ok {
		if v.byNode == nil {
			v.byNode = make(map[string][]string)
		}
		vals = []string{p.Spec.NodeName}
		v.byNode[p.Spec.NodeName] = vals
	}
	return vals
}

// addPodIndex adds nodeNameIndex to the pod informer's cache, unless an
// earlier Controller did.
func addPodIndex(inf *informer.Informer) error {
	x := inf.Indexer()
	err := x.AddIndexers(map[string]informer.IndexFunc{nodeNameIndex: new(nodeNameValues).podNodeName})
	if err == nil {
		return nil
	}
	if _, exists := x.IndexKeys(nodeNameIndex, ""); exists == nil {
		return nil // ours, from another Controller on the same informer
	}
	return fmt.Errorf("nodesim: index pods by node: %w", err)
}

// boundPod is what the pod handler last saw of a pod bound to a node; the
// zero value means it saw the pod unbound, or not at all.
type boundPod struct {
	node  string
	holds bool // not finished: it takes one of the node's slots
}

// The scheduler counts each node's pods without listing them. The pod
// handler keeps each pod's podState.bound (the node it is bound to, as last
// delivered); each node's record counts (nodeIPs.pods) the pods bound there
// that hold a slot plus the assumed pods (podState.assumed) not seen bound:
// what listing the pod cache and adding the assumed pods it does not show
// bound would count. All are guarded by mu.

// observePodLocked records the pod under key, whose state is st (nil if it
// has none), as the handler delivers it; p nil means it is gone.
func (c *Controller) observePodLocked(key string, st *podState, p *api.Pod) {
	if p == nil {
		if st == nil {
			return // nothing kept of it
		}
		st.pod, st.deleted = nil, true
		if st.readRV == rvGone {
			st.readRV = 0 // the handler has caught up with the sync that found it gone
		}
	} else {
		if st == nil {
			st = &podState{key: key}
			c.state[key] = st
		}
		st.pod, st.deleted = p, false
		if st.readRV != 0 {
			if rv := parseRV(p.Metadata.ResourceVersion); rv != rvUnknown && rv >= st.readRV {
				st.readRV = 0 // the kept pod is as new as the last one a sync read
			}
		}
	}
	if p == nil || p.Spec.NodeName == "" {
		if st.bound.node != "" {
			old := st.bound
			st.bound = boundPod{}
			if old.holds {
				c.addPodsOnLocked(c.countedLocked(st, old.node), -1, st.req)
			}
			if st.assumed != "" {
				c.addPodsOnLocked(c.countedLocked(st, st.assumed), 1, st.req) // counted again, as the cache no longer shows it bound
			}
		}
		if st.empty() {
			c.dropLocked(st)
		}
		return
	}
	// The pod is counted against at most one node: where it was assumed
	// if it was not seen bound, else where it was seen bound if it held a
	// slot there. Its count moves only if that node changes, so the
	// deliveries of its status writes, and of the binding the scheduler
	// assumed, leave the counts and the heap alone.
	from := ""
	if st.assumed != "" {
		if st.bound.node == "" {
			from = st.assumed
		}
		st.assumed = "" // the binding is seen: no longer assumed
	}
	if st.bound.holds {
		from = st.bound.node
	}
	st.bound = boundPod{node: p.Spec.NodeName, holds: !finished(p)}
	to := ""
	if st.bound.holds {
		to = st.bound.node
	}
	if from != to {
		if from == "" {
			st.req = fit.PodRequests(&p.Spec) // first counted: bound by another scheduler, or by its creator
		}
		if from != "" {
			c.addPodsOnLocked(c.countedLocked(st, from), -1, st.req)
		}
		if to != "" {
			c.addPodsOnLocked(c.countedLocked(st, to), 1, st.req)
		}
	}
}

// setAssumedLocked records that the scheduler bound the pod, whose state
// is st and whose requests are req, to node, ahead of the cache.
func (c *Controller) setAssumedLocked(st *podState, node string, req *fit.Resource) {
	c.deleteAssumedLocked(st)
	st.assumed = node
	if st.bound.node == "" {
		st.req = req
		c.addPodsOnLocked(c.countedLocked(st, node), 1, req)
	}
}

// deleteAssumedLocked forgets the scheduler's binding of the pod whose
// state is st (nil if it has none).
func (c *Controller) deleteAssumedLocked(st *podState) {
	if st == nil || st.assumed == "" {
		return
	}
	node := st.assumed
	st.assumed = ""
	if st.bound.node == "" {
		c.addPodsOnLocked(c.countedLocked(st, node), -1, st.req)
	}
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

// nodesChanged drops the scheduler's node list: a node came, changed or went.
func (c *Controller) nodesChanged() {
	c.mu.Lock()
	c.nodeList = nil
	c.nodeGen++
	c.invalidateLoadLocked()
	c.mu.Unlock()
}
