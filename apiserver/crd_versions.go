package apiserver

import (
	"reflect"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver/schema"
	"github.com/miniplane/miniplane/store"
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
	stored.custom.settled = s.storedSettled(crd, stored)
	if !stored.custom.settled {
		stored.fromStored = readStored(stored, stored)
	}
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
		k.fromStored = readStored(k, stored)
		out = append(out, k)
	}
	return out
}

// storedSettled reports whether every stored object of crd's storage kind
// k is as k's schema makes it, so that reads need not look: crd serves its
// storage version alone (an object written in another version is pruned
// and defaulted by that version's schema), and either its kind is new with
// no object stored yet, or the kind it replaces was settled and had the
// same schema — so that every object was written through a kind with this
// schema, a write racing with the replacement included. Once a definition
// changes its storage schema, its reads look at every object (readStored).
// Called with customMu held.
func (s *Server) storedSettled(crd *api.CustomResourceDefinition, k *kind) bool {
	for _, v := range crd.Spec.Versions {
		if v.Served && !v.Storage {
			return false
		}
	}
	if c := s.custom.Load(); c != nil {
		if ks := c.byCRD[crd.Metadata.Name]; len(ks) > 0 {
			prev := ks[0]
			return prev.custom.settled && prev.apiVersion == k.apiVersion && reflect.DeepEqual(prev.custom.schema, k.custom.schema)
		}
	}
	res, err := s.store.List(k.keyPrefix, store.ListOptions{Limit: 1})
	return err == nil && len(res.Records) == 0
}

// readStored returns how k shows an object read from the store, which
// holds storage's version, as kube-apiserver's storage codec decodes one:
// pruned and defaulted by the storage version's schema — so that an object
// stored before its definition gained a default reads with it, and one
// stored before it dropped a field reads without it — then, when k serves
// another version, pruned by k's schema (not defaulted by it: defaults of a
// served version apply to requests). Kubernetes: the codec of
// crdConversionRESTOptionsGetter (schemaCoercingDecoder, then
// unstructuredDefaulter, then schemaCoercingConverter).
//
// An object the schemas leave as it is comes back itself (k is storage,
// and the object was stored in its version) or as a shallow copy for out to
// give k's apiVersion; only one they change is copied deep, and the stored
// object never changes.
func readStored(k, storage *kind) func(api.Object) api.Object {
	stored, served := storage.custom.compiled, k.custom.compiled
	return func(o api.Object) api.Object {
		u := o.(*api.Unstructured)
		same := !schema.HasUnknown(u.Content, stored) && !schema.LacksDefaults(u.Content, stored) &&
			(k == storage || !schema.HasUnknown(u.Content, served))
		switch {
		case same && k == storage && u.APIVersion == k.apiVersion:
			return o
		case same: // out gives the copy k's apiVersion
			return storage.shallowCopy(o)
		}
		c := u.DeepCopy()
		if c.Content == nil {
			c.Content = api.JSONObject{}
		}
		schema.Prune(c.Content, stored)
		schema.Default(c.Content, stored)
		if k != storage {
			schema.Prune(c.Content, served)
		}
		return c
	}
}
