package patch

import (
	"time"

	"github.com/miniplane/miniplane/api"
)

// The operations a managedFields entry records.
const (
	operationApply  = "Apply"
	operationUpdate = "Update"
)

// serverFields are the metadata members the server sets; no manager owns them, an apply
// cannot change them, and they are never conflicts.
var serverFields = map[string]bool{
	"uid": true, "resourceVersion": true, "generation": true, "creationTimestamp": true,
	"deletionTimestamp": true, "deletionGracePeriodSeconds": true, "managedFields": true,
	"selfLink": true,
}

// statusKinds are the kinds whose status is a subresource: a write to the object itself
// leaves status alone, so an apply of the object neither changes nor owns it.
var statusKinds = map[string]bool{
	"Pod": true, "ReplicationController": true, "Service": true, "Node": true, "Namespace": true,
	"PersistentVolume": true, "PersistentVolumeClaim": true, "VolumeAttachment": true,
	"PodDisruptionBudget": true, "ReplicaSet": true, "StatefulSet": true, "Deployment": true, "DaemonSet": true,
	"Job": true, "CronJob": true, "ResourceQuota": true,
	"ValidatingAdmissionPolicy": true,
	"HorizontalPodAutoscaler":   true, "APIService": true,
}

// managedEntry is one element of metadata.managedFields: the fields one manager owns
// through one kind of operation. Kubernetes: metav1.ManagedFieldsEntry.
type managedEntry struct {
	manager     string
	operation   string
	apiVersion  string
	time        string
	subresource string
	fields      *fieldSet
}

// readManagedFields decodes obj's metadata.managedFields. Entries that are not FieldsV1
// or cannot be read are dropped, as kube-apiserver drops managed fields it cannot decode.
func readManagedFields(obj map[string]any) []*managedEntry {
	meta, _ := obj["metadata"].(map[string]any)
	list, _ := meta["managedFields"].([]any)
	var entries []*managedEntry
	for _, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			continue
		}
		str := func(k string) string { s, _ := m[k].(string); return s }
		if str("fieldsType") != "FieldsV1" || str("manager") == "" {
			continue
		}
		fields, err := parseFieldsV1(m["fieldsV1"])
		if err != nil {
			continue
		}
		entries = append(entries, &managedEntry{
			manager:     str("manager"),
			operation:   str("operation"),
			apiVersion:  str("apiVersion"),
			time:        str("time"),
			subresource: str("subresource"),
			fields:      fields,
		})
	}
	return entries
}

// writeManagedFields stores entries in obj's metadata.managedFields, dropping the ones
// that own nothing; with none left, managedFields is removed.
func writeManagedFields(obj map[string]any, entries []*managedEntry) {
	meta, ok := obj["metadata"].(map[string]any)
	if !ok {
		meta = map[string]any{}
		obj["metadata"] = meta
	}
	var list []any
	for _, e := range entries {
		if e.fields.empty() {
			continue
		}
		m := map[string]any{
			"manager":    e.manager,
			"operation":  e.operation,
			"fieldsType": "FieldsV1",
			"fieldsV1":   e.fields.fieldsV1(),
		}
		if e.apiVersion != "" {
			m["apiVersion"] = e.apiVersion
		}
		if e.time != "" {
			m["time"] = e.time
		}
		if e.subresource != "" {
			m["subresource"] = e.subresource
		}
		list = append(list, m)
	}
	if len(list) == 0 {
		delete(meta, "managedFields")
		return
	}
	meta["managedFields"] = list
}

// entryFor returns the entry of manager, operation and subresource, adding an empty one
// at the end when there is none.
func entryFor(entries []*managedEntry, manager, operation, subresource string) ([]*managedEntry, *managedEntry) {
	for _, e := range entries {
		if e.manager == manager && e.operation == operation && e.subresource == subresource {
			return entries, e
		}
	}
	e := &managedEntry{manager: manager, operation: operation, subresource: subresource, fields: newFieldSet()}
	return append(entries, e), e
}

// timestamp is now in managedFields' form: RFC 3339 in UTC, to the second.
func timestamp(now time.Time) string {
	b, _ := api.NewTime(now).MarshalJSON()
	return string(b[1 : len(b)-1])
}

// fieldsOf returns the field set of obj, an object of the kind s describes: every leaf,
// and every element of a keyed list or set. The members the server sets, and status for
// kinds with a status subresource when skipStatus is set, are left out.
func fieldsOf(obj map[string]any, s *schema, kind string, skipStatus bool) *fieldSet {
	set := newFieldSet()
	for k, v := range obj {
		switch {
		case k == "apiVersion" || k == "kind":
			continue
		case k == "status" && skipStatus && statusKinds[kind]:
			continue
		case k == "metadata":
			meta, ok := v.(map[string]any)
			if !ok {
				continue
			}
			ms := s.child("metadata")
			mn := set.child(fieldElement("metadata"))
			for mk, mv := range meta {
				if serverFields[mk] || mk == "name" || mk == "namespace" {
					continue
				}
				addFields(mn, fieldElement(mk), mv, ms.lookup(mk))
			}
			set.dropIfEmpty(fieldElement("metadata"))
		default:
			addFields(set, fieldElement(k), v, s.lookup(k))
		}
	}
	return set
}

// addFields adds the members of v, the value of member el of parent, to parent's
// subtree; f is v's field metadata. A value that adds no member leaves no node behind
// (an empty node would read as a leaf in FieldsV1). The set does not depend on the
// order maps are walked in.
func addFields(parent *fieldSet, el string, v any, f *fieldMeta) {
	var elem *schema
	if f != nil {
		elem = f.elem
	}
	switch v := v.(type) {
	case nil:
	case map[string]any:
		if len(v) == 0 {
			parent.child(el).self = true
			return
		}
		n := parent.child(el)
		for k, x := range v {
			addFields(n, fieldElement(k), x, elem.lookup(k))
		}
		parent.dropIfEmpty(el)
	case []any:
		if f == nil || !f.merge {
			parent.child(el).self = true // an atomic list is one leaf
			return
		}
		n := parent.child(el)
		for _, item := range v {
			if f.mergeKey == "" {
				n.child(valueElement(item)).self = true
				continue
			}
			m, ok := item.(map[string]any)
			if !ok {
				continue
			}
			key, ok := m[f.mergeKey]
			if !ok {
				continue
			}
			it := n.child(keyElement(f.mergeKey, key))
			it.self = true
			for k, x := range m {
				addFields(it, fieldElement(k), x, elem.lookup(k))
			}
		}
		parent.dropIfEmpty(el)
	default:
		parent.child(el).self = true
	}
}
