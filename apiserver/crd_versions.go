package apiserver

import (
	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver/schema"
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
	stored.fromStored = defaultsOnRead(stored, nil)
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
		k.fromStored = defaultsOnRead(k, stored.shallowCopy)
		out = append(out, k)
	}
	return out
}

// defaultsOnRead returns how k shows a stored object when its schema has
// defaults: a deep copy with them set, as kube-apiserver defaults what it
// reads from storage, so that an object stored before a default was added
// reads with it. Otherwise it returns plain (nil: the stored object itself).
func defaultsOnRead(k *kind, plain func(api.Object) api.Object) func(api.Object) api.Object {
	root := k.custom.schema
	if !hasDefault(root) {
		return plain
	}
	return func(o api.Object) api.Object {
		c := o.DeepCopyObject().(*api.Unstructured)
		if c.Content != nil {
			schema.Default(c.Content, root)
		}
		return c
	}
}

// hasDefault reports whether s or any schema in it has a default.
func hasDefault(s *api.JSONSchemaProps) bool {
	if s == nil {
		return false
	}
	if len(s.Default) > 0 {
		return true
	}
	for _, p := range s.Properties {
		if hasDefault(&p) {
			return true
		}
	}
	if ap := s.AdditionalProperties; ap != nil && hasDefault(ap.Schema) {
		return true
	}
	return hasDefault(s.ItemSchema())
}
