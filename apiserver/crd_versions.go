package apiserver

import (
	"github.com/miniplane/miniplane/api"
)

// versionKinds returns the kinds that serve crd: its storage version's
// first, then one per other served version. Every version's objects are
// the storage version's stored objects with their apiVersion rewritten, as
// kube-apiserver converts them when the definition's conversion strategy is
// None; each version defaults, prunes and validates with its own schema.
// Kubernetes: the customresource_handler's crdInfo, one storage per
// served version over one store, and the nopConverter.
func (s *Server) versionKinds(crd *api.CustomResourceDefinition) []*kind {
	storage := storageVersion(crd)
	stored := s.customKind(crd, storage)
	out := []*kind{stored}
	for i := range crd.Spec.Versions {
		v := &crd.Spec.Versions[i]
		if !v.Served || v.Name == storage.Name {
			continue
		}
		k := s.customKind(crd, v)
		k.storage = stored
		k.toStored = func(o api.Object) api.Object {
			c := o.DeepCopyObject()
			c.GetTypeMeta().APIVersion = stored.apiVersion
			return c
		}
		// out sets the served apiVersion on the copy; the stored
		// object's content is shared, never changed.
		k.fromStored = stored.shallowCopy
		out = append(out, k)
	}
	return out
}
