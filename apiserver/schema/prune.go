package schema

import (
	"slices"

	"github.com/miniplane/miniplane/api"
)

// Prune removes from obj, the top-level fields of a custom resource other than apiVersion,
// kind and metadata, every field the schema s (the whole object's) does not specify,
// unless x-kubernetes-preserve-unknown-fields keeps it, and returns the paths of the
// fields removed ("spec.foo"), sorted. Kubernetes: structuralpruning.Prune with
// isResourceRoot.
func Prune(obj map[string]any, s *api.JSONSchemaProps) []string {
	var pruned []string
	pruneObject(obj, s, "", true, &pruned)
	slices.Sort(pruned)
	return pruned
}

// UnknownFields returns the fields Prune would remove, without removing them.
func UnknownFields(obj map[string]any, s *api.JSONSchemaProps) []string {
	return Prune(api.JSONObject(obj).DeepCopy(), s)
}

func preserves(s *api.JSONSchemaProps) bool {
	return s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields
}

// pruneObject prunes the fields of object m at path p. At the resource root (or in an
// embedded resource) apiVersion, kind and metadata are never pruned here.
func pruneObject(m map[string]any, s *api.JSONSchemaProps, p string, root bool, pruned *[]string) {
	for k, v := range m {
		if (root || s.XEmbeddedResource) && (k == "apiVersion" || k == "kind" || k == "metadata") {
			if k == "metadata" && !root {
				continue // an embedded object's metadata is kept as is
			}
			continue
		}
		if ps, ok := s.Properties[k]; ok {
			prune(v, &ps, join(p, k), pruned)
			continue
		}
		if ap := s.AdditionalProperties; ap != nil && ap.Schema != nil {
			prune(v, ap.Schema, join(p, k), pruned)
			continue
		}
		if preserves(s) || (s.AdditionalProperties != nil && s.AdditionalProperties.Allows) {
			continue
		}
		delete(m, k)
		*pruned = append(*pruned, join(p, k))
	}
}

// prune prunes value v of schema s at path p.
func prune(v any, s *api.JSONSchemaProps, p string, pruned *[]string) {
	switch v := v.(type) {
	case map[string]any:
		if s.Type == "object" || len(s.Properties) > 0 || s.AdditionalProperties != nil {
			pruneObject(v, s, p, false, pruned)
		}
	case []any:
		if items := s.ItemSchema(); items != nil {
			for i, e := range v {
				prune(e, items, index(p, i), pruned)
			}
		}
	}
}

func join(p, k string) string {
	if p == "" {
		return k
	}
	return p + "." + k
}

func index(p string, i int) string { return p + "[" + itoa(i) + "]" }

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b [20]byte
	n := len(b)
	neg := i < 0
	if neg {
		i = -i
	}
	for i > 0 {
		n--
		b[n] = byte('0' + i%10)
		i /= 10
	}
	if neg {
		n--
		b[n] = '-'
	}
	return string(b[n:])
}

// HasUnknown reports whether Prune would remove anything from obj, without changing it:
// a reader may share an object that has nothing to prune.
func HasUnknown(obj map[string]any, s *api.JSONSchemaProps) bool {
	return unknownInObject(obj, s, true)
}

// unknownInObject is pruneObject's question: would it delete a field of m?
func unknownInObject(m map[string]any, s *api.JSONSchemaProps, root bool) bool {
	for k, v := range m {
		if (root || s.XEmbeddedResource) && (k == "apiVersion" || k == "kind" || k == "metadata") {
			continue
		}
		if ps, ok := s.Properties[k]; ok {
			if unknownIn(v, &ps) {
				return true
			}
			continue
		}
		if ap := s.AdditionalProperties; ap != nil && ap.Schema != nil {
			if unknownIn(v, ap.Schema) {
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

// unknownIn is prune's question: would it delete a field inside v?
func unknownIn(v any, s *api.JSONSchemaProps) bool {
	switch v := v.(type) {
	case map[string]any:
		if s.Type == "object" || len(s.Properties) > 0 || s.AdditionalProperties != nil {
			return unknownInObject(v, s, false)
		}
	case []any:
		if items := s.ItemSchema(); items != nil {
			for _, e := range v {
				if unknownIn(e, items) {
					return true
				}
			}
		}
	}
	return false
}
