package schema

import (
	"slices"
	"strconv"
	"strings"

	"github.com/miniplane/miniplane/api"
)

// Prune removes from obj, the top-level fields of a custom resource other than apiVersion,
// kind and metadata, every field the schema s (the whole object's) does not specify,
// unless x-kubernetes-preserve-unknown-fields keeps it, and returns the paths of the
// fields removed ("spec.foo"), sorted. Kubernetes: structuralpruning.Prune with
// isResourceRoot.
func Prune(obj map[string]any, s *Schema) []string {
	p := pruner{steps: make([]step, 0, 8)}
	p.object(obj, s, true)
	slices.Sort(p.pruned)
	return p.pruned
}

// UnknownFields returns the fields Prune would remove, without removing them.
func UnknownFields(obj map[string]any, s *Schema) []string {
	return Prune(api.JSONObject(obj).DeepCopy(), s)
}

func preserves(s *Schema) bool {
	return s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields
}

// pruner is one Prune's walk. The path of a removed field is written only when one is:
// steps is where the walk is.
type pruner struct {
	steps  []step
	pruned []string
}

// step is one step of a path: a field's name, or a list's index when index >= 0.
type step struct {
	key   string
	index int
}

// removed records the path of field k of the object the walk is at.
func (p *pruner) removed(k string) {
	var b strings.Builder
	for _, st := range p.steps {
		if st.index >= 0 {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(st.index))
			b.WriteByte(']')
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(st.key)
	}
	if b.Len() > 0 {
		b.WriteByte('.')
	}
	b.WriteString(k)
	p.pruned = append(p.pruned, b.String())
}

// object prunes the fields of object m. At the resource root (or in an embedded
// resource) apiVersion, kind and metadata are never pruned here.
func (p *pruner) object(m map[string]any, s *Schema, root bool) {
	for k, v := range m {
		if (root || s.XEmbeddedResource) && (k == "apiVersion" || k == "kind" || k == "metadata") {
			continue // an embedded object's metadata is kept as is
		}
		ps, ok := s.props[k]
		if !ok {
			ps = s.additional
		}
		if ps != nil {
			p.steps = append(p.steps, step{key: k, index: -1})
			p.value(v, ps)
			p.steps = p.steps[:len(p.steps)-1]
			continue
		}
		if preserves(s) || (s.AdditionalProperties != nil && s.AdditionalProperties.Allows) {
			continue
		}
		delete(m, k)
		p.removed(k)
	}
}

// value prunes value v of schema s.
func (p *pruner) value(v any, s *Schema) {
	switch v := v.(type) {
	case map[string]any:
		if s.Type == "object" || len(s.props) > 0 || s.AdditionalProperties != nil {
			p.object(v, s, false)
		}
	case []any:
		if s.items != nil {
			for i, e := range v {
				p.steps = append(p.steps, step{index: i})
				p.value(e, s.items)
				p.steps = p.steps[:len(p.steps)-1]
			}
		}
	}
}

// HasUnknown reports whether Prune would remove anything from obj, without changing it:
// a reader may share an object that has nothing to prune.
func HasUnknown(obj map[string]any, s *Schema) bool {
	return unknownInObject(obj, s, true)
}

// unknownInObject is pruner.object's question: would it delete a field of m?
func unknownInObject(m map[string]any, s *Schema, root bool) bool {
	for k, v := range m {
		if (root || s.XEmbeddedResource) && (k == "apiVersion" || k == "kind" || k == "metadata") {
			continue
		}
		ps, ok := s.props[k]
		if !ok {
			ps = s.additional
		}
		if ps != nil {
			if unknownIn(v, ps) {
				return true
			}
			continue
		}
		if !preserves(s) && (s.AdditionalProperties == nil || !s.AdditionalProperties.Allows) {
			return true
		}
	}
	return false
}

// unknownIn is pruner.value's question: would it delete a field inside v?
func unknownIn(v any, s *Schema) bool {
	switch v := v.(type) {
	case map[string]any:
		if s.Type == "object" || len(s.props) > 0 || s.AdditionalProperties != nil {
			return unknownInObject(v, s, false)
		}
	case []any:
		if items := s.items; items != nil {
			for _, e := range v {
				if unknownIn(e, items) {
					return true
				}
			}
		}
	}
	return false
}
