package nodesim

import (
	"github.com/miniplane/miniplane/api"
)

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
