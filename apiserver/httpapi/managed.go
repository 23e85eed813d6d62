package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/apiserver/patch"
)

// maxManagerLength is the longest field manager name Kubernetes takes.
const maxManagerLength = 128

// managerOf returns the field manager a write is recorded under: the
// fieldManager query parameter, or else, as kube-apiserver does, the
// User-Agent up to its first "/" ("kubectl"), or "" when neither names a
// usable manager. An explicit fieldManager is returned as given, so that
// a bad one is refused rather than ignored.
func managerOf(r *http.Request) string {
	if m := queryOf(r).Get("fieldManager"); m != "" {
		return m
	}
	name, _, _ := strings.Cut(r.Header.Get("User-Agent"), "/")
	for len(name) > maxManagerLength || !utf8.ValidString(name) {
		name = name[:min(len(name), maxManagerLength)-1]
	}
	if strings.IndexFunc(name, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return ""
	}
	return name
}

// trackUpdate records an update (or, with old nil, a create) of obj by
// manager in obj's managedFields, as kube-apiserver's field manager does
// for every write that is not an apply: the manager's "Update" entry gains
// the fields it set or changed, and other managers lose them. Without a
// manager obj is returned as it is. A create (old nil) sets the entry on obj
// itself and returns it: obj must be the request's own, decoded for it; an
// update returns a new object.
func (h *Handler) trackUpdate(info apiserver.ResourceInfo, old, obj api.Object, manager string) (api.Object, error) {
	if manager == "" {
		return obj, nil
	}
	if old == nil {
		// A create: only the new entry is computed, straight from the typed
		// object; obj, decoded from this request and owned by it, takes it in
		// place of whatever managedFields the client sent.
		entries, err := h.fields.TrackCreate(info.Kind, obj, manager, h.clock.Now())
		var pe *patch.Error
		switch {
		case errors.As(err, &pe):
			return nil, patchStatus(err, info, obj.GetObjectMeta().Name)
		case err != nil:
			return nil, apierrors.NewInternalError(err)
		}
		obj.GetObjectMeta().ManagedFields = entries
		return obj, nil
	}
	// An update: the entries come from the typed objects; the object is
	// still taken through JSON once, which the stored object has always been
	// (an empty list or map the JSON leaves out is stored as none, so that a
	// PUT of what was read changes nothing).
	entries, err := h.fields.TrackUpdate(info.Kind, old, obj, manager, h.clock.Now())
	var pe *patch.Error
	switch {
	case errors.As(err, &pe):
		return nil, patchStatus(err, info, obj.GetObjectMeta().Name)
	case err != nil:
		return nil, apierrors.NewInternalError(err)
	}
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	out := info.New()
	if err := json.Unmarshal(raw, out); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	out.GetObjectMeta().ManagedFields = entries
	return out, nil
}

// trackSubresource returns the managedFields of cur after manager wrote
// changed (the whole object as the write leaves it) through the status or
// scale subresource, for WriteOptions.ManagedFields; nil without a
// manager, which leaves them as stored.
func (h *Handler) trackSubresource(info apiserver.ResourceInfo, sub string, cur, changed api.Object, manager string) ([]api.ManagedFieldsEntry, error) {
	if manager == "" {
		return nil, nil
	}
	oldJSON, err := json.Marshal(cur)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	newJSON, err := json.Marshal(changed)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	tracked, err := patch.TrackSubresourceUpdate(info.Kind, sub, oldJSON, newJSON, manager, h.clock.Now())
	if err != nil {
		return nil, patchStatus(err, info, cur.GetObjectMeta().Name)
	}
	var out struct {
		Metadata struct {
			ManagedFields []api.ManagedFieldsEntry `json:"managedFields"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(tracked, &out); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	if out.Metadata.ManagedFields == nil {
		return []api.ManagedFieldsEntry{}, nil // none left: store none
	}
	return out.Metadata.ManagedFields, nil
}

// withStatusOf returns a copy of cur with obj's status: what a status
// update leaves stored. A custom resource's status is its top-level
// "status" field, as it is to the Server.
func withStatusOf(cur, obj api.Object) api.Object {
	c := cur.DeepCopyObject()
	if u, ok := c.(*api.Unstructured); ok {
		st, ok := obj.(*api.Unstructured).Content["status"]
		switch {
		case !ok:
			delete(u.Content, "status")
		case u.Content == nil:
			u.Content = api.JSONObject{"status": st}
		default:
			u.Content["status"] = st
		}
		return u
	}
	reflect.ValueOf(c).Elem().FieldByName("Status").Set(reflect.ValueOf(obj).Elem().FieldByName("Status"))
	return c
}

// withSubresourceOf returns a copy of cur with what a write through sub
// takes from obj: a pod's ephemeral containers for "ephemeralcontainers",
// else the status.
func withSubresourceOf(sub string, cur, obj api.Object) api.Object {
	if sub != "ephemeralcontainers" {
		return withStatusOf(cur, obj)
	}
	c := cur.DeepCopyObject().(*api.Pod)
	c.Spec.EphemeralContainers = obj.(*api.Pod).Spec.EphemeralContainers
	return c
}

// withReplicas returns a copy of an object with a scale subresource
// (replication controller, replica set, stateful set) with its desired
// replicas, spec.replicas, set: what a scale update leaves stored.
func withReplicas(cur api.Object, replicas int32) api.Object {
	c := cur.DeepCopyObject()
	reflect.ValueOf(c).Elem().FieldByName("Spec").FieldByName("Replicas").Set(reflect.ValueOf(&replicas))
	return c
}
