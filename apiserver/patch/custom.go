package patch

import (
	"time"

	"github.com/miniplane/miniplane/api"
)

// Custom describes a custom resource's kind for server-side apply: the
// structural schema of the version applied, whose x-kubernetes-list-type
// says how each list merges, and whether status is a subresource.
type Custom struct {
	Schema    *api.JSONSchemaProps
	HasStatus bool
}

// ServerSideApplyCustom is ServerSideApply of a custom resource: lists of
// type map merge by their first key, sets as sets, and every other list is
// replaced whole (atomic), as kube-apiserver's structured-merge-diff reads
// a CustomResourceDefinition's schema. metadata merges as every kind's.
func ServerSideApplyCustom(c Custom, kind string, live, applied []byte, manager string, force bool, now time.Time) ([]byte, error) {
	s := customFields(c.Schema)
	if s == nil {
		s = object(map[string]*fieldMeta{})
	}
	s.fields["metadata"] = nested(kindSchemas["ConfigMap"].child("metadata"))
	return serverSideApply(s, c.HasStatus, kind, live, applied, manager, force, now)
}

// customFields returns the merge schema of the object p describes, or nil
// when nothing in it merges.
func customFields(p *api.JSONSchemaProps) *schema {
	if p == nil {
		return nil
	}
	fields := map[string]*fieldMeta{}
	for name, prop := range p.Properties {
		if f := customField(&prop); f != nil {
			fields[name] = f
		}
	}
	if len(fields) == 0 {
		return nil
	}
	return object(fields)
}

// customField returns the merge metadata of a value p describes, or nil
// when it has none.
func customField(p *api.JSONSchemaProps) *fieldMeta {
	if p.Type == "array" {
		items := p.ItemSchema()
		switch {
		case p.XListType != nil && *p.XListType == "map" && len(p.XListMapKeys) > 0:
			return mergeBy(p.XListMapKeys[0], customFields(items))
		case p.XListType != nil && *p.XListType == "set":
			return mergeAsSet()
		}
		return nil
	}
	if elem := customFields(p); elem != nil {
		return nested(elem)
	}
	return nil
}
