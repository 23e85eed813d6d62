package scheduler

import "github.com/miniplane/miniplane/controllers/scheduler/fit"

// The scheduler's fast path. chooseNode looks at every node, which for a
// pod without a nodeSelector means O(nodes) work per pod under the
// controller's mutex: at 1,000 nodes and 100,000 pods, the scheduler alone
// would serialize the kubelets behind it. For such a pod the answer is the
// ready node with the fewest pods, ties by name, provided it has room; a
// heap of the ready, uncordoned and untainted nodes ordered that way gives it in O(1), and a change
// of one node's count costs O(log nodes). When the least loaded node is
// full (the cluster is full, or capacities differ) or the pod has a
// nodeSelector, the scheduler falls back to chooseNode, which also says
// why nothing fits. Both paths choose the same node.

// loadEntry is one ready node in the heap.
type loadEntry struct {
	name string
	// rank is the node's place in the node list, which is in name order
	// (nodesLocked): comparing ranks orders entries as comparing names
	// does, without reading the names. Almost every comparison is a tie
	// of counts, as the scheduler spreads pods evenly.
	rank     int
	pods     int // the node's pod count (nodeRec.pods)
	capacity int
	index    int // its place in the heap
}

// loadHeap orders ready nodes by pod count, then name (rank). It keeps the
// heap property of container/heap, with its own sifts: a change of count
// is a few comparisons of two ints, which calls through heap.Interface
// would double.
type loadHeap []*loadEntry

func (h loadHeap) less(i, j int) bool {
	if h[i].pods != h[j].pods {
		return h[i].pods < h[j].pods
	}
	return h[i].rank < h[j].rank
}

func (h loadHeap) swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}

// init orders the whole heap, as heap.Init.
func (h loadHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

// fix restores the order after entry i's count changed, as heap.Fix.
func (h loadHeap) fix(i int) {
	if !h.down(i) {
		h.up(i)
	}
}

func (h loadHeap) up(j int) {
	for j > 0 {
		i := (j - 1) / 2 // parent
		if !h.less(j, i) {
			break
		}
		h.swap(i, j)
		j = i
	}
}

// down sifts entry i down and reports whether it moved.
func (h loadHeap) down(i0 int) bool {
	i := i0
	for {
		j := 2*i + 1
		if j >= len(h) {
			break
		}
		if r := j + 1; r < len(h) && h.less(r, j) {
			j = r // the lesser child
		}
		if !h.less(j, i) {
			break
		}
		h.swap(i, j)
		i = j
	}
	return i > i0
}

// leastLoadedLocked returns the ready node with the fewest pods, ties by
// name, if it has room; ok is false when there is no ready node or that one
// is full, and the caller must look at every node.
func (c *Controller) leastLoadedLocked() (name string, ok bool) {
	c.ensureLoadLocked()
	if len(c.load) == 0 {
		return "", false
	}
	top := c.load[0]
	if top.pods >= top.capacity {
		return "", false
	}
	return top.name, true
}

// ensureLoadLocked rebuilds the heap if a node event invalidated it.
func (c *Controller) ensureLoadLocked() {
	if c.loadOK {
		return
	}
	nodes, static := c.nodesLocked()
	c.load = c.load[:0]
	c.loadOK = true
	c.loadGen++
	c.loadLeftOut = 0
	for i, n := range nodes {
		if keepsPodsOff(n) {
			c.loadLeftOut++
			continue
		}
		rec := c.recLocked(n.Metadata.Name)
		e := &loadEntry{name: n.Metadata.Name, rank: i, pods: rec.pods, capacity: static[i].AllowedPods}
		rec.load, rec.loadGen = e, c.loadGen
		c.load = append(c.load, e)
	}
	for i, e := range c.load {
		e.index = i
	}
	c.load.init()
}

// invalidateLoadLocked drops the heap: which nodes are ready, or their
// capacities, may have changed.
func (c *Controller) invalidateLoadLocked() { c.loadOK = false }

// addPodsOnLocked changes the pod count of rec's node by delta (+1 or -1;
// never below 0), and what its pods request and the host ports they hold
// by info's (nil: nothing), keeping the heap in order.
func (c *Controller) addPodsOnLocked(rec *nodeRec, delta int, info *podInfo) {
	rec.pods = max(rec.pods+delta, 0)
	var req *fit.Resource
	var ports []fit.HostPort
	if info != nil {
		req, ports = info.req, info.ports
	}
	if req != nil {
		if delta > 0 {
			rec.requested.Add(req)
		} else {
			rec.requested.Sub(req)
		}
	}
	for _, p := range ports {
		if rec.ports == nil {
			rec.ports = make(map[fit.HostPort]int)
		}
		if rec.ports[p] += delta; rec.ports[p] <= 0 {
			delete(rec.ports, p)
		}
	}
	if e := rec.load; e != nil && c.loadOK && rec.loadGen == c.loadGen {
		e.pods = rec.pods
		c.load.fix(e.index)
	}
}
