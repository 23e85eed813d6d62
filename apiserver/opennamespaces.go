package apiserver

import (
	"sync"
	"sync/atomic"
)

// openNamespaces remembers the namespaces a create found open, so that the
// next create in one need not read the namespace from the store: a lookup in
// a map of a few entries instead of a walk of the store's tree, which holds
// every object of the cluster (a tenth of a create's cost at 100,000 pods).
//
// Any write of any namespace — created, updated (as to Terminating) or
// removed — moves epoch on, and an entry counts only at the epoch it was
// recorded at, so a namespace that changed is read from the store again.
// The server moves epoch on after a namespace leaves the store (deleteKey)
// and, for a create or update, from the store's stamp hook, which runs under
// the store's lock before the write is visible: a reader that saw the
// namespace open read epoch before that, and finds its entry stale.
type openNamespaces struct {
	epoch atomic.Int64
	// mu guards open: namespace name → the epoch it was seen open at.
	mu   sync.Mutex
	open map[string]int64
}

// changed forgets every namespace seen open.
func (o *openNamespaces) changed() { o.epoch.Add(1) }

// at returns the current epoch, to pass to saw once the namespace is read.
func (o *openNamespaces) at() int64 { return o.epoch.Load() }

// isOpen reports whether ns was seen open since the last namespace write.
func (o *openNamespaces) isOpen(ns string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	seen, ok := o.open[ns]
	return ok && seen == o.epoch.Load()
}

// saw records that ns was read open at epoch (from at, taken before the read).
func (o *openNamespaces) saw(ns string, epoch int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.open == nil {
		o.open = make(map[string]int64)
	}
	o.open[ns] = epoch
}
