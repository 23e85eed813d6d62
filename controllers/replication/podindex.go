package replication

import (
	"cmp"
	"fmt"
	"strings"

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
	// podControllerIndex holds pods by the UID of their controller
	// reference, whatever its kind (claiming compares UIDs only), and pods
	// without a controller reference by "namespace/" (orphanIndexValue),
	// as Kubernetes' index does: a UID names one object cluster-wide and
	// holds no "/", and indexing by it costs a pod event no new string.
	podControllerIndex = "replication/controllerUID"
)

// podIndexers returns the index New adds to the pod informer, whose
// function takes its lists from values.
func podIndexers(values *indexValues) map[string]informer.IndexFunc {
	return map[string]informer.IndexFunc{podControllerIndex: values.podIndexFunc}
}

// addPodIndexes adds podIndexers to the pod cache. The index is already
// there when another replication Controller was built on the same factory:
// the name is this package's, so the index is the same.
func addPodIndexes(x *informer.Indexer, values *indexValues) error {
	err := x.AddIndexers(podIndexers(values))
	if err == nil {
		return nil
	}
	if _, missing := x.IndexKeys(podControllerIndex, ""); missing != nil {
		return fmt.Errorf("replication: adding pod indexes: %w", err)
	}
	return nil
}

// orphanIndexValue is the index value of a namespace's pods without a
// controller. (A UID that a client made up could hold a "/" and land among
// the orphans; claimPods checks every pod's reference anyway.)
func orphanIndexValue(namespace string) string { return namespace + "/" }

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

// claimablePods returns, in key order, the active pods of the namespace of
// the object of meta (rc) that claimPods may keep, release or adopt: those
// whose controller reference has rc's UID, and the orphans. It is the namespace's active
// pods minus other controllers' pods, which claiming leaves alone, read
// through the indexes so that a sync costs O(own pods + orphans). The pods
// are held in s's lists, valid until s is released.
//
// allOwned reports that every pod returned came from rc's UID in the
// index, so that each has a controller reference with rc's UID and claimPods
// need not look: the orphans' list was empty, and rc's UID, made by the
// server, holds no "/" and so is no namespace's orphan value.
func (c *Controller) claimablePods(meta *api.ObjectMeta, s *scratch) (active []*api.Pod, allOwned bool, err error) {
	x := c.podInformer.Indexer()
	ns := meta.Namespace
	uid := string(meta.UID)
	s.own, err = informer.AppendByIndexOf(s.own[:0], x, podControllerIndex, uid)
	if err != nil {
		return nil, false, err
	}
	s.orphans, err = informer.AppendByIndexOf(s.orphans[:0], x, podControllerIndex, orphanIndexValue(ns))
	if err != nil {
		return nil, false, err
	}
	allOwned = len(s.orphans) == 0 && !strings.Contains(uid, "/")
	active, s.merged = mergeActive(s.own, s.orphans, ns, s.merged[:0])
	return active, allOwned, nil
}

// mergeActive merges two lists of pods, each in key order, into one in key
// order, keeping the active pods of namespace ns (a reference to rc's UID
// from another namespace does not make a pod rc's). A pod in both (it
// changed owner between the two reads) is kept once. The lists are the
// caller's own: it filters them in place, and when both keep pods it
// appends their merge to dst. It returns the merged pods and dst, grown if
// the merge needed it, for the caller to pass again next time.
func mergeActive(a, b []*api.Pod, ns string, dst []*api.Pod) (active, merged []*api.Pod) {
	keep := func(p *api.Pod) bool { return p.Metadata.Namespace == ns && api.IsPodActive(p) }
	a, b = filterInPlace(a, keep), filterInPlace(b, keep)
	switch { // one list is usually empty: a controller's pods, or orphans
	case len(b) == 0:
		return a, dst
	case len(a) == 0:
		return b, dst
	}
	// One namespace: key order is name order.
	out := dst
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch cmp.Compare(a[i].Metadata.Name, b[j].Metadata.Name) {
		case -1:
			out = append(out, a[i])
			i++
		case 1:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	out = append(out, a[i:]...)
	out = append(out, b[j:]...)
	return out, out
}

// filterInPlace keeps the pods of ps that keep accepts, in order, in ps's
// array, and clears the rest of it.
func filterInPlace(ps []*api.Pod, keep func(*api.Pod) bool) []*api.Pod {
	out := ps[:0]
	for _, p := range ps {
		if keep(p) {
			out = append(out, p)
		}
	}
	clear(ps[len(out):])
	return out
}

// scratch is one sync's working memory, lent by Controller.scratches, so
// that a sync allocates nothing for what it reads once its lists have
// grown to its controllers' sizes: the pods read from the index, their
// merge (which claimPods then filters into the owned pods), and the
// annotations of an event (the recorder copies them).
type scratch struct {
	own, orphans, merged []*api.Pod
	facts                map[string]string
}

// reset clears what s holds, so that a lent scratch keeps no pod alive,
// and keeps its space.
func (s *scratch) reset() {
	clear(s.own)
	clear(s.orphans)
	clear(s.merged)
	s.own, s.orphans, s.merged = s.own[:0], s.orphans[:0], s.merged[:0]
	clear(s.facts)
}
