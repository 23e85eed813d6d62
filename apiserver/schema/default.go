package schema

import (
	"github.com/miniplane/miniplane/api"
)

// Default sets, in obj (the top-level fields of a custom resource but apiVersion, kind and
// metadata), every missing field whose schema has a default, and every null one whose
// schema is not nullable, to a copy of the default, at every depth: in objects, list items
// and map values. Kubernetes: structuraldefaulting.Default, which runs after pruning, on
// create, on update and on read.
func Default(obj map[string]any, s *api.JSONSchemaProps) {
	defaultObject(obj, s)
}

func defaultObject(m map[string]any, s *api.JSONSchemaProps) {
	for k, ps := range s.Properties {
		v, ok := m[k]
		if len(ps.Default) > 0 && (!ok || (v == nil && !ps.Nullable)) {
			if d, err := api.DecodeJSONValue(ps.Default); err == nil {
				m[k] = d
			}
		}
	}
	for k, v := range m {
		if ps, ok := s.Properties[k]; ok {
			defaultValue(v, &ps)
		} else if ap := s.AdditionalProperties; ap != nil && ap.Schema != nil {
			defaultValue(v, ap.Schema)
		}
	}
}

func defaultValue(v any, s *api.JSONSchemaProps) {
	switch v := v.(type) {
	case map[string]any:
		defaultObject(v, s)
	case []any:
		items := s.ItemSchema()
		if items == nil {
			return
		}
		for i, e := range v {
			if e == nil && len(items.Default) > 0 && !items.Nullable {
				if d, err := api.DecodeJSONValue(items.Default); err == nil {
					v[i] = d
				}
				continue
			}
			defaultValue(e, items)
		}
	}
}

// LacksDefaults reports whether Default would set anything in obj, without changing it:
// a reader may share an object that has every default already. It may say true of an
// object Default leaves as it is (a default that does not decode), never false of one it
// would change.
func LacksDefaults(obj map[string]any, s *api.JSONSchemaProps) bool {
	return lacksInObject(obj, s)
}

// lacksInObject is defaultObject's question: would it set a field of m, or inside one?
func lacksInObject(m map[string]any, s *api.JSONSchemaProps) bool {
	for k, ps := range s.Properties {
		v, ok := m[k]
		if len(ps.Default) > 0 && (!ok || (v == nil && !ps.Nullable)) {
			return true
		}
	}
	for k, v := range m {
		if ps, ok := s.Properties[k]; ok {
			if lacksIn(v, &ps) {
				return true
			}
		} else if ap := s.AdditionalProperties; ap != nil && ap.Schema != nil && lacksIn(v, ap.Schema) {
			return true
		}
	}
	return false
}

// lacksIn is defaultValue's question.
func lacksIn(v any, s *api.JSONSchemaProps) bool {
	switch v := v.(type) {
	case map[string]any:
		return lacksInObject(v, s)
	case []any:
		items := s.ItemSchema()
		if items == nil {
			return false
		}
		for _, e := range v {
			if e == nil && len(items.Default) > 0 && !items.Nullable {
				return true
			}
			if e != nil && lacksIn(e, items) {
				return true
			}
		}
	}
	return false
}
