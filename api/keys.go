package api

import (
	"fmt"
	"strings"
)

// KeyOf returns the key caches and workqueues use for an object: "namespace/name", or just
// "name" for a cluster-scoped object. Kubernetes: client-go's
// cache.MetaNamespaceKeyFunc.
func KeyOf(meta *ObjectMeta) string {
	if meta.Namespace == "" {
		return meta.Name
	}
	return meta.Namespace + "/" + meta.Name
}

// AppendKey appends the key of the object named name in namespace, as KeyOf
// makes it, to b and returns the extended slice. Into a buffer on the stack
// (AppendKey(buf[:0], ns, name)) it makes a key that a map lookup,
// m[string(key)], reads without allocating: for hot paths that look an
// object up on every event.
func AppendKey(b []byte, namespace, name string) []byte {
	if namespace == "" {
		return append(b, name...)
	}
	return append(append(append(b, namespace...), '/'), name...)
}

// IsKeyOf reports whether key is KeyOf(meta), without making the key.
func IsKeyOf(key string, meta *ObjectMeta) bool {
	if meta.Namespace == "" {
		return key == meta.Name
	}
	ns, name := meta.Namespace, meta.Name
	return len(key) == len(ns)+1+len(name) && key[:len(ns)] == ns && key[len(ns)] == '/' && key[len(ns)+1:] == name
}

// SplitKey is the inverse of [KeyOf]: it splits "namespace/name" or "name" into its parts.
// A key with more than one '/', or an empty name, is an error. Kubernetes: client-go's
// cache.SplitMetaNamespaceKey.
func SplitKey(key string) (namespace, name string, err error) {
	namespace, name, found := strings.Cut(key, "/")
	if !found {
		namespace, name = "", key
	}
	if name == "" || strings.Contains(name, "/") {
		return "", "", fmt.Errorf("api: unexpected key format %q: want \"namespace/name\" or \"name\"", key)
	}
	return namespace, name, nil
}

// GetControllerOf returns a copy of the owner reference that names the object's managing
// controller (the one with controller: true), or nil if it has none. Kubernetes:
// metav1.GetControllerOf.
func GetControllerOf(meta *ObjectMeta) *OwnerReference {
	for i := range meta.OwnerReferences {
		ref := &meta.OwnerReferences[i]
		if ref.Controller != nil && *ref.Controller {
			return ref.DeepCopy()
		}
	}
	return nil
}
