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
	"PodDisruptionBudget": true, "ReplicaSet": true, "StatefulSet": true,
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
	for _, k := range sortedKeys(obj) {
		switch {
		case k == "apiVersion" || k == "kind":
			continue
		case k == "status" && skipStatus && statusKinds[kind]:
			continue
		case k == "metadata":
			meta, ok := obj[k].(map[string]any)
			if !ok {
				continue
			}
			ms := s.child("metadata")
			for _, mk := range sortedKeys(meta) {
				if serverFields[mk] || mk == "name" || mk == "namespace" {
					continue
				}
				addFields(set, []string{fieldElement("metadata"), fieldElement(mk)}, meta[mk], ms.lookup(mk))
			}
		default:
			addFields(set, []string{fieldElement(k)}, obj[k], s.lookup(k))
		}
	}
	return set
}

// addFields adds the members of v, found at path, to set; f is v's field metadata.
func addFields(set *fieldSet, path []string, v any, f *fieldMeta) {
	var elem *schema
	if f != nil {
		elem = f.elem
	}
	switch v := v.(type) {
	case nil:
	case map[string]any:
		if len(v) == 0 {
			set.insert(path)
			return
		}
		for _, k := range sortedKeys(v) {
			addFields(set, append(path[:len(path):len(path)], fieldElement(k)), v[k], elem.lookup(k))
		}
	case []any:
		if f == nil || !f.merge {
			set.insert(path) // an atomic list is one leaf
			return
		}
		for _, item := range v {
			if f.mergeKey == "" {
				set.insert(append(path[:len(path):len(path)], valueElement(item)))
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
			itemPath := append(path[:len(path):len(path)], keyElement(f.mergeKey, key))
			set.insert(itemPath)
			for _, k := range sortedKeys(m) {
				addFields(set, append(itemPath[:len(itemPath):len(itemPath)], fieldElement(k)), m[k], elem.lookup(k))
			}
		}
	default:
		set.insert(path)
	}
}
