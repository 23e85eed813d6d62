package nodesim

import (
	"fmt"
	"sync"

	"github.com/miniplane/miniplane/api"
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
		if st.empty() {
			c.dropLocked(st)
		}
		return
	}
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

// nodesChanged counts a delivery of the node handler: a node came,
// changed or went (nodeGen).
func (c *Controller) nodesChanged() {
	c.mu.Lock()
	c.nodeGen++
	c.mu.Unlock()
}
