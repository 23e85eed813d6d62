package replication

import (
	"cmp"
	"fmt"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/informer"
)

// The index this package adds to the shared pod informer, so that a sync
// reads its own pods and the namespace's orphans instead of every pod of
// the namespace (Kubernetes: the ReplicaSet controller's
// controllerUIDIndex, which also files orphans under an empty UID). The
// name carries the package's name because other controllers add indexes
// to the same informer. One index serves both lookups: every index adds to
// the cost of each pod event in the informer.
const (
	// podControllerIndex holds pods by "namespace/UID" of their controller
	// reference, whatever its kind (claiming compares UIDs only), and pods
	// without a controller reference by "namespace/" (orphanIndexValue).
	podControllerIndex = "replication/controllerUID"
)

// podIndexers returns the index New adds to the pod informer.
func podIndexers() map[string]informer.IndexFunc {
	return map[string]informer.IndexFunc{
		podControllerIndex: func(obj api.Object) []string {
			meta := obj.GetObjectMeta()
			if ref := controllerRefOf(meta); ref != nil {
				return []string{controllerIndexValue(meta.Namespace, ref.UID)}
			}
			return []string{orphanIndexValue(meta.Namespace)}
		},
	}
}

// addPodIndexes adds podIndexers to the pod cache. The index is already
// there when another replication Controller was built on the same factory:
// the name is this package's, so the index is the same.
func addPodIndexes(x *informer.Indexer) error {
	err := x.AddIndexers(podIndexers())
	if err == nil {
		return nil
	}
	if _, missing := x.IndexKeys(podControllerIndex, ""); missing != nil {
		return fmt.Errorf("replication: adding pod indexes: %w", err)
	}
	return nil
}

func controllerIndexValue(namespace string, uid api.UID) string {
	return namespace + "/" + string(uid)
}

// orphanIndexValue is the index value of a namespace's pods without a
// controller: a UID is never empty, so it is no controller's value.
func orphanIndexValue(namespace string) string { return controllerIndexValue(namespace, "") }

// controllerRefOf is api.GetControllerOf without the copy: index functions
// run on every pod event.
func controllerRefOf(meta *api.ObjectMeta) *api.OwnerReference {
	for i := range meta.OwnerReferences {
		if ref := &meta.OwnerReferences[i]; ref.Controller != nil && *ref.Controller {
			return ref
		}
	}
	return nil
}

// claimablePods returns, in key order, the active pods of rc's namespace
// that claimPods may keep, release or adopt: those whose controller
// reference has rc's UID, and the orphans. It is the namespace's active
// pods minus other controllers' pods, which claiming leaves alone, read
// through the indexes so that a sync costs O(own pods + orphans).
func (c *Controller) claimablePods(rc *api.ReplicationController) ([]*api.Pod, error) {
	x := c.podInformer.Indexer()
	ns := rc.Metadata.Namespace
	own, err := x.ByIndex(podControllerIndex, controllerIndexValue(ns, rc.Metadata.UID))
	if err != nil {
		return nil, err
	}
	orphans, err := x.ByIndex(podControllerIndex, orphanIndexValue(ns))
	if err != nil {
		return nil, err
	}
	return mergeActive(own, orphans), nil
}

// mergeActive merges two lists of one namespace's pods, each in key (that
// is, name) order, into one in key order, keeping the active pods. A pod in
// both (it changed owner between the two reads) is kept once.
func mergeActive(a, b []api.Object) []*api.Pod {
	out := make([]*api.Pod, 0, len(a)+len(b))
	keep := func(obj api.Object) {
		if p := obj.(*api.Pod); api.IsPodActive(p) {
			out = append(out, p)
		}
	}
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch cmp.Compare(a[i].GetObjectMeta().Name, b[j].GetObjectMeta().Name) {
		case -1:
			keep(a[i])
			i++
		case 1:
			keep(b[j])
			j++
		default:
			keep(a[i])
			i++
			j++
		}
	}
	for ; i < len(a); i++ {
		keep(a[i])
	}
	for ; j < len(b); j++ {
		keep(b[j])
	}
	return out
}
