package deployment

import (
	"fmt"
	"slices"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/informer"
)

// rsControllerIndex is the index New adds to the shared replica set
// informer: sets by the UID of their controller reference, and sets with
// none under their namespace and a "/" (a UID holds no "/"). A sync reads
// its deployment's sets and the namespace's orphans through it, which are
// all that claiming can keep, release or adopt, instead of every set of
// the namespace as Kubernetes lists them: a namespace of a thousand
// deployments holds thousands of sets, and a rollout syncs each deployment
// dozens of times. The name carries the package's name: other controllers
// add indexes to the same informer.
const rsControllerIndex = "deployment/controllerUID"

// rsControllerIndexFunc is rsControllerIndex's function.
func rsControllerIndexFunc(obj api.Object) []string {
	meta := obj.GetObjectMeta()
	for i := range meta.OwnerReferences {
		if ref := &meta.OwnerReferences[i]; ref.Controller != nil && *ref.Controller {
			return []string{string(ref.UID)}
		}
	}
	return []string{orphanIndexValue(meta.Namespace)}
}

// orphanIndexValue is the index value of a namespace's sets without a
// controller.
func orphanIndexValue(namespace string) string { return namespace + "/" }

// addReplicaSetIndex adds rsControllerIndex to x. The index is already
// there when another deployment Controller was built on the same factory:
// the name is this package's, so the index is the same.
func addReplicaSetIndex(x *informer.Indexer) error {
	err := x.AddIndexers(map[string]informer.IndexFunc{rsControllerIndex: rsControllerIndexFunc})
	if err == nil {
		return nil
	}
	if _, missing := x.IndexKeys(rsControllerIndex, ""); missing != nil {
		return fmt.Errorf("deployment: adding the replica set index: %w", err)
	}
	return nil
}

// claimableReplicaSets returns, in name order, the cached sets of d's
// namespace that d controls and, withOrphans, the namespace's orphans: the
// sets of the namespace less those another controller owns, which claiming
// ignores.
func (c *Controller) claimableReplicaSets(d *api.Deployment, withOrphans bool) []*api.ReplicaSet {
	x := c.rsInformer.Indexer()
	out, _ := informer.ByIndexOf[*api.ReplicaSet](x, rsControllerIndex, string(d.Metadata.UID)) // New added the index
	if withOrphans {
		out, _ = informer.AppendByIndexOf(out, x, rsControllerIndex, orphanIndexValue(d.Metadata.Namespace))
	}
	// A UID names one object cluster-wide, but a reference to d's UID from
	// another namespace does not make a set d's.
	out = slices.DeleteFunc(out, func(rs *api.ReplicaSet) bool { return rs.Metadata.Namespace != d.Metadata.Namespace })
	slices.SortFunc(out, func(a, b *api.ReplicaSet) int { return strings.Compare(a.Metadata.Name, b.Metadata.Name) })
	return out
}
