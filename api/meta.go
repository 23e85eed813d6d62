package api

import "encoding/json"

// Object is what every top-level kind implements (*Pod, *ReplicationController, *Service,
// *Endpoints, *Node, *Lease, *Event, *Namespace, *ConfigMap, *Secret, *ServiceAccount and
// *Scale). The store, informers and
// controllers handle objects of any kind through it. It is the small cousin of
// k8s.io/apimachinery's runtime.Object combined with metav1.ObjectMetaAccessor.
//
// The metadata pointers point into the object itself: writing through them changes the
// object, so only do that on an object you own (see the package comment on sharing).
type Object interface {
	// GetObjectMeta returns the object's metadata.
	GetObjectMeta() *ObjectMeta
	// GetTypeMeta returns the object's kind and API version.
	GetTypeMeta() *TypeMeta
	// DeepCopyObject returns a copy that shares nothing mutable with the object.
	DeepCopyObject() Object
}

// UID is the unique identity the apiserver gives an object when it creates it. Two objects
// with the same namespace and name but different UIDs are different objects: one was
// deleted and the other created after it. Kubernetes: k8s.io/apimachinery/pkg/types.UID.
type UID string

// TypeMeta names an object's kind and the API version of its schema; it is embedded inline
// in every kind, so "apiVersion" and "kind" sit at the top level of the JSON object.
// Kubernetes: metav1.TypeMeta.
type TypeMeta struct {
	// APIVersion is "group/version", or just "version" for the core group ("v1").
	APIVersion string `json:"apiVersion,omitempty"`
	// Kind is the object's type in CamelCase, e.g. "Pod".
	Kind string `json:"kind,omitempty"`
}

// GetTypeMeta returns t itself. Every kind embeds TypeMeta, so every kind gets this method.
func (t *TypeMeta) GetTypeMeta() *TypeMeta { return t }

// ObjectMeta is the metadata every persisted object carries: identity (namespace, name,
// UID), version (resourceVersion, generation), lifecycle (creation and deletion timestamps,
// finalizers), labels and annotations, and the owners garbage collection follows.
// Kubernetes: metav1.ObjectMeta.
type ObjectMeta struct {
	// Name is unique among objects of the same kind in the namespace.
	Name string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	// GenerateName asks the apiserver to make Name unique by appending random characters
	// to this prefix, when Name is empty on create.
	GenerateName string `json:"generateName,omitempty" protobuf:"bytes,2,opt,name=generateName"`
	// Namespace is empty for cluster-scoped kinds (Node, Namespace).
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,3,opt,name=namespace"`
	// UID is set by the apiserver on create and never changes.
	UID UID `json:"uid,omitempty" protobuf:"bytes,5,opt,name=uid"`
	// ResourceVersion is the store revision of the object's last write. It is opaque to
	// clients: they send it back on update so that a stale write fails with a Conflict.
	ResourceVersion string `json:"resourceVersion,omitempty" protobuf:"bytes,6,opt,name=resourceVersion"`
	// Generation counts changes to the desired state (spec); the apiserver bumps it, and
	// controllers report the generation they acted on in status.observedGeneration.
	Generation int64 `json:"generation,omitempty" protobuf:"varint,7,opt,name=generation"`
	// CreationTimestamp is a timestamp representing the server time when this object was
	// created: the apiserver sets it on create. Zero encodes as null, as in Kubernetes
	// (omitempty does not omit a struct).
	CreationTimestamp Time `json:"creationTimestamp,omitempty" protobuf:"bytes,8,opt,name=creationTimestamp"`
	// DeletionTimestamp is set when deletion has been requested but the object is still
	// held by finalizers or a graceful termination. Once set it is never unset.
	DeletionTimestamp *Time `json:"deletionTimestamp,omitempty" protobuf:"bytes,9,opt,name=deletionTimestamp"`
	// DeletionGracePeriodSeconds is the grace period granted when DeletionTimestamp was set.
	DeletionGracePeriodSeconds *int64 `json:"deletionGracePeriodSeconds,omitempty" protobuf:"varint,10,opt,name=deletionGracePeriodSeconds"`
	// Labels are identifying key/value pairs that selectors match against.
	Labels map[string]string `json:"labels,omitempty" protobuf:"bytes,11,rep,name=labels" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	// Annotations are non-identifying key/value pairs for tools and controllers.
	Annotations map[string]string `json:"annotations,omitempty" protobuf:"bytes,12,rep,name=annotations" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	// OwnerReferences name the objects this one depends on; when all owners are gone the
	// garbage collector deletes it. At most one of them is the managing controller.
	OwnerReferences []OwnerReference `json:"ownerReferences,omitempty" patchStrategy:"merge" patchMergeKey:"uid" protobuf:"bytes,13,rep,name=ownerReferences"`
	// Finalizers must all be removed before a deleted object is really removed.
	Finalizers []string `json:"finalizers,omitempty" patchStrategy:"merge" protobuf:"bytes,14,rep,name=finalizers"`
	// ManagedFields records which field manager owns which fields, for server-side
	// apply's conflict detection. The apiserver's HTTP front maintains it (package
	// apiserver/patch); kubectl hides it unless asked (--show-managed-fields).
	ManagedFields []ManagedFieldsEntry `json:"managedFields,omitempty" protobuf:"bytes,17,rep,name=managedFields"`
}

// ManagedFieldsEntry is the set of fields one field manager owns through one kind of
// operation: "Apply" for server-side apply, "Update" for every other write.
// Kubernetes: metav1.ManagedFieldsEntry.
type ManagedFieldsEntry struct {
	// Manager names the writer, from the request's fieldManager ("kubectl",
	// "kubectl-client-side-apply", ...).
	Manager string `json:"manager,omitempty" protobuf:"bytes,1,opt,name=manager"`
	// Operation is "Apply" or "Update".
	Operation string `json:"operation,omitempty" protobuf:"bytes,2,opt,name=operation"`
	// APIVersion is the version of the object's schema the fields were written in.
	APIVersion string `json:"apiVersion,omitempty" protobuf:"bytes,3,opt,name=apiVersion"`
	// Time is when the manager last changed its set of fields.
	Time *Time `json:"time,omitempty" protobuf:"bytes,4,opt,name=time"`
	// FieldsType is the encoding of FieldsV1; the only one is "FieldsV1".
	FieldsType string `json:"fieldsType,omitempty" protobuf:"bytes,6,opt,name=fieldsType"`
	// FieldsV1 is the field set as a JSON trie ({"f:spec":{"f:replicas":{}}}), kept
	// as raw JSON: only apiserver/patch reads it.
	FieldsV1 json.RawMessage `json:"fieldsV1,omitempty" protobuf:"bytes,7,opt,name=fieldsV1"`
	// Subresource is the subresource the write went through ("status", "scale"), or
	// empty for the object itself.
	Subresource string `json:"subresource,omitempty" protobuf:"bytes,8,opt,name=subresource"`
}

// OwnerReference points from a dependent object to an owner in the same namespace (or to a
// cluster-scoped owner). Kubernetes: metav1.OwnerReference.
type OwnerReference struct {
	// APIVersion of the owner.
	APIVersion string `json:"apiVersion" protobuf:"bytes,5,opt,name=apiVersion"`
	// Kind of the owner.
	Kind string `json:"kind" protobuf:"bytes,1,opt,name=kind"`
	// Name of the owner.
	Name string `json:"name" protobuf:"bytes,3,opt,name=name"`
	// UID of the owner; a new object with the owner's name is not the owner.
	UID UID `json:"uid" protobuf:"bytes,4,opt,name=uid"`
	// Controller is true on the one reference that names the managing controller.
	Controller *bool `json:"controller,omitempty" protobuf:"varint,6,opt,name=controller"`
	// BlockOwnerDeletion, when true, makes a foreground deletion of the owner wait until
	// this dependent is gone.
	BlockOwnerDeletion *bool `json:"blockOwnerDeletion,omitempty" protobuf:"varint,7,opt,name=blockOwnerDeletion"`
}

// ListMeta is the metadata of a list response. Kubernetes: metav1.ListMeta.
type ListMeta struct {
	// ResourceVersion is the store revision the list was read at; a watch started from it
	// sees every change after the list.
	ResourceVersion string `json:"resourceVersion,omitempty" protobuf:"bytes,2,opt,name=resourceVersion"`
	// Continue is the token for the next page of a paginated list, empty on the last page.
	Continue string `json:"continue,omitempty" protobuf:"bytes,3,opt,name=continue"`
	// RemainingItemCount estimates the items after this page, when known.
	// Its upstream Go tag says "bytes"; the wire type follows generated.proto (int64).
	RemainingItemCount *int64 `json:"remainingItemCount,omitempty" protobuf:"varint,4,opt,name=remainingItemCount"`
}

// ObjectReference points at another object, possibly of another kind and in another
// namespace, and optionally at a field inside it (e.g. "spec.containers{web}").
// Kubernetes: corev1.ObjectReference.
type ObjectReference struct {
	// Kind of the referent.
	Kind string `json:"kind,omitempty" protobuf:"bytes,1,opt,name=kind"`
	// Namespace of the referent, empty for cluster-scoped kinds.
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,2,opt,name=namespace"`
	// Name of the referent.
	Name string `json:"name,omitempty" protobuf:"bytes,3,opt,name=name"`
	// UID of the referent.
	UID UID `json:"uid,omitempty" protobuf:"bytes,4,opt,name=uid"`
	// APIVersion of the referent.
	APIVersion string `json:"apiVersion,omitempty" protobuf:"bytes,5,opt,name=apiVersion"`
	// ResourceVersion of the referent when the reference was made, if it matters.
	ResourceVersion string `json:"resourceVersion,omitempty" protobuf:"bytes,6,opt,name=resourceVersion"`
	// FieldPath names a part of the referent, e.g. "spec.containers{web}" for a container.
	FieldPath string `json:"fieldPath,omitempty" protobuf:"bytes,7,opt,name=fieldPath"`
}
