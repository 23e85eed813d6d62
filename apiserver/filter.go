package apiserver

import (
	"slices"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// filter is a list's or watch's label and field selectors, parsed.
type filter struct {
	k      *kind
	labels api.Selector
	fields api.FieldSelector
}

// newFilter parses the selectors; a bad one, or a field the kind does not
// support, is a BadRequest.
func newFilter(k *kind, labelSelector, fieldSelector string) (filter, error) {
	f := filter{k: k}
	var err error
	if f.labels, err = api.ParseSelector(labelSelector); err != nil {
		return f, apierrors.NewBadRequest(err.Error())
	}
	if f.fields, err = api.ParseFieldSelector(fieldSelector); err != nil {
		return f, apierrors.NewBadRequest(err.Error())
	}
	for _, r := range f.fields.Requirements() {
		if !k.selectable(r.Field) {
			return f, apierrors.NewBadRequest("field label not supported: " + r.Field)
		}
	}
	return f, nil
}

// selectable reports whether a field selector may name field: the name,
// the namespace (of a custom kind, only a namespaced one's, as
// apiextensions-apiserver's ConvertFieldLabel has it) and the kind's own
// fields.
func (k *kind) selectable(field string) bool {
	switch field {
	case "metadata.name":
		return true
	case "metadata.namespace":
		return k.custom == nil || k.namespaced
	}
	return slices.Contains(k.fieldNames, field)
}

// everything reports whether the filter lets every object through.
func (f filter) everything() bool { return f.labels.Empty() && f.fields.Empty() }

// matches reports whether obj passes both selectors.
func (f filter) matches(obj api.Object) bool {
	if f.everything() {
		return true
	}
	m := obj.GetObjectMeta()
	if !f.labels.Matches(m.Labels) {
		return false
	}
	if f.fields.Empty() {
		return true
	}
	fields := map[string]string{}
	if f.k.fields != nil {
		fields = f.k.fields(obj)
	}
	fields["metadata.name"] = m.Name
	fields["metadata.namespace"] = m.Namespace
	return f.fields.Matches(fields)
}
