package schema

import (
	"regexp"
	"slices"

	"github.com/miniplane/miniplane/api"
)

// Schema is a structural schema made ready to walk: every node's property, item and
// additional-properties schemas by pointer, its default decoded and its pattern compiled,
// so that pruning, defaulting and validating an object copy no schema node and parse
// nothing but the object. Compile one per served version and share it; it never changes.
type Schema struct {
	*api.JSONSchemaProps
	props      map[string]*Schema
	additional *Schema // additionalProperties' schema, nil when it is a bool or absent
	items      *Schema
	allOf      []*Schema
	// def is the decoded default when hasDefault; Default inserts copies of it.
	def        any
	hasDefault bool
	// pattern is nil when the schema has none, or one that does not compile.
	pattern *regexp.Regexp
	// names are props' keys, sorted: Validate's order.
	names []string
	// path is where the node sits when it is reached through properties
	// only from the root ("spec.replicas"), so that Validate builds no path
	// there; static is false under a list's items or additional properties.
	path   string
	static bool
}

// Compile returns s ready to walk. s must not change afterwards: the result shares it.
func Compile(s *api.JSONSchemaProps) *Schema { return compile(s, "", true) }

func compile(s *api.JSONSchemaProps, path string, static bool) *Schema {
	if s == nil {
		return nil
	}
	c := &Schema{JSONSchemaProps: s, path: path, static: static}
	if len(s.Properties) > 0 {
		c.props = make(map[string]*Schema, len(s.Properties))
		for k := range s.Properties {
			ps := s.Properties[k]
			c.props[k] = compile(&ps, join(path, k), static)
			c.names = append(c.names, k)
		}
		slices.Sort(c.names)
	}
	if ap := s.AdditionalProperties; ap != nil {
		c.additional = compile(ap.Schema, "", false)
	}
	c.items = compile(s.ItemSchema(), "", false)
	for i := range s.AllOf {
		c.allOf = append(c.allOf, compile(&s.AllOf[i], path, static))
	}
	if len(s.Default) > 0 {
		if d, err := api.DecodeJSONValue(s.Default); err == nil {
			c.def, c.hasDefault = d, true
		}
	}
	if s.Pattern != "" {
		c.pattern, _ = regexp.Compile(s.Pattern)
	}
	return c
}

// defaultValue returns a copy of s's default, for an object of its own.
func (s *Schema) defaultValue() any { return api.DeepCopyJSONValue(s.def) }
