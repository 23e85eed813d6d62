package deployment

import (
	"slices"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/informer"
)

// claimableReplicaSets returns, in name order, the cached sets of d's
// namespace that d controls and, withOrphans, the namespace's orphans: the
// sets of the namespace less those another controller owns, which claiming
// ignores.
func (c *Controller) claimableReplicaSets(d *api.Deployment, withOrphans bool) []*api.ReplicaSet {
	out := informer.Controlled[*api.ReplicaSet](c.rsInformer.Indexer(), d.Metadata.Namespace, d.Metadata.UID, withOrphans) // New added the index
	slices.SortFunc(out, func(a, b *api.ReplicaSet) int { return strings.Compare(a.Metadata.Name, b.Metadata.Name) })
	return out
}
