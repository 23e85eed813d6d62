package informer

import (
	"fmt"

	"github.com/miniplane/miniplane/api"
)

// ControllerIndex is an index controllers add to a shared informer: objects
// by the UID of their controller reference, and objects with none under
// their namespace and a "/" (a UID holds no "/"). A controller's sync then
// reads its own objects and its namespace's orphans — all that claiming can
// keep, release or adopt — instead of every object of the namespace, as
// Kubernetes' controllers list them: a namespace of a thousand jobs holds
// ten thousand pods, and each job syncs many times. Kubernetes: the
// controllerUID indexes of pkg/controller (AddPodControllerUIDIndexer).
const ControllerIndex = "controllerUID"

// controllerIndexFunc is ControllerIndex's function.
func controllerIndexFunc(obj api.Object) []string {
	meta := obj.GetObjectMeta()
	for i := range meta.OwnerReferences {
		if ref := &meta.OwnerReferences[i]; ref.Controller != nil && *ref.Controller {
			return []string{string(ref.UID)}
		}
	}
	return []string{meta.Namespace + "/"}
}

// AddControllerIndex adds ControllerIndex to x, unless it is there already
// (another controller on the same factory added it).
func AddControllerIndex(x *Indexer) error {
	if _, missing := x.IndexKeys(ControllerIndex, ""); missing == nil {
		return nil
	}
	if err := x.AddIndexers(map[string]IndexFunc{ControllerIndex: controllerIndexFunc}); err != nil {
		if _, missing := x.IndexKeys(ControllerIndex, ""); missing == nil {
			return nil // added meanwhile
		}
		return fmt.Errorf("adding the %s index: %w", ControllerIndex, err)
	}
	return nil
}

// Controlled returns the objects of x in namespace whose controller
// reference names uid and, withOrphans, the namespace's objects with no
// controller, each part in key order. x must hold ControllerIndex.
func Controlled[T api.Object](x *Indexer, namespace string, uid api.UID, withOrphans bool) []T {
	out, _ := ByIndexOf[T](x, ControllerIndex, string(uid))
	if withOrphans {
		out, _ = AppendByIndexOf(out, x, ControllerIndex, namespace+"/")
	}
	// A UID names one object cluster-wide, but a reference to it from
	// another namespace does not make the object its.
	kept := out[:0]
	for _, o := range out {
		if o.GetObjectMeta().Namespace == namespace {
			kept = append(kept, o)
		}
	}
	return kept
}
