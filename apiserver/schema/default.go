package schema

// Default sets, in obj (the top-level fields of a custom resource but apiVersion, kind and
// metadata), every missing field whose schema has a default, and every null one whose
// schema is not nullable, to a copy of the default, at every depth: in objects, list items
// and map values. Kubernetes: structuraldefaulting.Default, which runs after pruning, on
// create, on update and on read.
func Default(obj map[string]any, s *Schema) {
	defaultObject(obj, s)
}

func defaultObject(m map[string]any, s *Schema) {
	for k, ps := range s.props {
		v, ok := m[k]
		if ps.hasDefault && (!ok || (v == nil && !ps.Nullable)) {
			m[k] = ps.defaultValue()
		}
	}
	for k, v := range m {
		if ps, ok := s.props[k]; ok {
			defaultIn(v, ps)
		} else if s.additional != nil {
			defaultIn(v, s.additional)
		}
	}
}

func defaultIn(v any, s *Schema) {
	switch v := v.(type) {
	case map[string]any:
		defaultObject(v, s)
	case []any:
		items := s.items
		if items == nil {
			return
		}
		for i, e := range v {
			if e == nil && items.hasDefault && !items.Nullable {
				v[i] = items.defaultValue()
				continue
			}
			defaultIn(e, items)
		}
	}
}

// LacksDefaults reports whether Default would set anything in obj, without changing it:
// a reader may share an object that has every default already.
func LacksDefaults(obj map[string]any, s *Schema) bool {
	return lacksInObject(obj, s)
}

// lacksInObject is defaultObject's question: would it set a field of m, or inside one?
func lacksInObject(m map[string]any, s *Schema) bool {
	for k, ps := range s.props {
		v, ok := m[k]
		if ps.hasDefault && (!ok || (v == nil && !ps.Nullable)) {
			return true
		}
	}
	for k, v := range m {
		if ps, ok := s.props[k]; ok {
			if lacksIn(v, ps) {
				return true
			}
		} else if s.additional != nil && lacksIn(v, s.additional) {
			return true
		}
	}
	return false
}

// lacksIn is defaultIn's question.
func lacksIn(v any, s *Schema) bool {
	switch v := v.(type) {
	case map[string]any:
		return lacksInObject(v, s)
	case []any:
		items := s.items
		if items == nil {
			return false
		}
		for _, e := range v {
			if e == nil && items.hasDefault && !items.Nullable {
				return true
			}
			if e != nil && lacksIn(e, items) {
				return true
			}
		}
	}
	return false
}
