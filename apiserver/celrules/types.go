package celrules

import (
	"slices"
	"strings"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	"github.com/miniplane/miniplane/api"
)

// Sizes Kubernetes' cost estimates assume. Kubernetes: k8s.io/apiserver/pkg/cel
// limits.go and k8s.io/apiserver/pkg/apis/cel config.go.
const (
	maxRequestSizeBytes = 3 * 1024 * 1024
	maxDurationSizeJSON = 32
	maxDatetimeSizeJSON = 32
	minDurationSizeJSON = 3
	jsonDateSize        = 12
	minDatetimeSizeJSON = 21
	minStringSize       = 2
	minBoolSize         = 4
	minNumberSize       = 1
)

// kindOf is what a declType is, beyond its CEL type.
type kindOf int

const (
	scalarKind kindOf = iota
	objectKind        // properties: a CEL object type
	mapKind           // additionalProperties: map(string, elem)
	listKind          // items: list(elem)
	dynKind           // int-or-string
)

// declType is the CEL type of one schema node, with the sizes the cost
// estimator needs. Kubernetes: apiservercel.DeclType as SchemaDeclType builds it.
type declType struct {
	kind   kindOf
	cel    *types.Type
	schema *api.JSONSchemaProps
	// fields are an object's, by CEL (escaped) name.
	fields map[string]*declField
	// elem is a list's items or a map's values.
	elem *declType
	// maxElements bounds a string's length, a list's items or a map's entries.
	maxElements int64
	// minSize is the length of the smallest JSON the node can be.
	minSize int64
}

// declField is one field of an object type.
type declField struct {
	jsonName string
	t        *declType
}

// declTypeOf returns the CEL type of schema s named name (objects are named by
// their path from the root's name), registering every object type in objects;
// nil when the node has no CEL type (no type, and not int-or-string). A
// resource root, or an embedded resource, gains apiVersion, kind and metadata
// (name and generateName), as WithTypeAndObjectMeta does.
func declTypeOf(s *api.JSONSchemaProps, name string, resourceRoot bool, objects map[string]*declType) *declType {
	if s == nil {
		return nil
	}
	if s.XIntOrString {
		return &declType{kind: dynKind, cel: types.DynType, schema: s, minSize: 1, maxElements: maxRequestSizeBytes - 2}
	}
	if resourceRoot {
		s = withTypeAndObjectMeta(s)
	}
	switch s.Type {
	case "array":
		items := s.ItemSchema()
		if items == nil {
			return nil
		}
		it := declTypeOf(items, name+".@idx", items.XEmbeddedResource, objects)
		if it == nil {
			return nil
		}
		max := (maxRequestSizeBytes - 2) / (it.minSize + 1)
		if s.MaxItems != nil {
			max = max0(*s.MaxItems)
		}
		return &declType{kind: listKind, cel: types.NewListType(it.cel), schema: s, elem: it, maxElements: max, minSize: 2}
	case "object":
		if ap := s.AdditionalProperties; ap != nil && ap.Schema != nil {
			vt := declTypeOf(ap.Schema, name+".@elem", ap.Schema.XEmbeddedResource, objects)
			if vt == nil {
				return nil
			}
			max := (maxRequestSizeBytes - 2) / (vt.minSize + 6)
			if s.MaxProperties != nil {
				max = max0(*s.MaxProperties)
			}
			return &declType{kind: mapKind, cel: types.NewMapType(types.StringType, vt.cel), schema: s, elem: vt, maxElements: max, minSize: 2}
		}
		t := &declType{kind: objectKind, cel: types.NewObjectType(name), schema: s, fields: map[string]*declField{}, minSize: 2}
		for _, prop := range sortedProps(s) {
			ps := s.Properties[prop]
			ft := declTypeOf(&ps, name+"."+prop, ps.XEmbeddedResource, objects)
			if ft == nil {
				continue
			}
			if esc, ok := escape(prop); ok {
				t.fields[esc] = &declField{jsonName: prop, t: ft}
			}
			if slices.Contains(s.Required, prop) && len(ps.Default) == 0 {
				t.minSize += int64(len(prop)) + ft.minSize + 4
			}
		}
		objects[name] = t
		return t
	case "string":
		return stringDeclType(s)
	case "boolean":
		return &declType{cel: types.BoolType, schema: s, minSize: minBoolSize}
	case "number":
		return &declType{cel: types.DoubleType, schema: s, minSize: minNumberSize}
	case "integer":
		return &declType{cel: types.IntType, schema: s, minSize: minNumberSize}
	}
	return nil // untyped: the field is left out of self, as in Kubernetes
}

func stringDeclType(s *api.JSONSchemaProps) *declType {
	switch s.Format {
	case "byte":
		max := int64(maxRequestSizeBytes - 2)
		if s.MaxLength != nil {
			max = max0(*s.MaxLength)
		}
		return &declType{cel: types.BytesType, schema: s, minSize: minStringSize, maxElements: max}
	case "duration":
		return &declType{cel: types.DurationType, schema: s, minSize: minDurationSizeJSON, maxElements: maxDurationSizeJSON}
	case "date":
		return &declType{cel: types.TimestampType, schema: s, minSize: jsonDateSize, maxElements: jsonDateSize}
	case "date-time":
		return &declType{cel: types.TimestampType, schema: s, minSize: minDatetimeSizeJSON, maxElements: maxDatetimeSizeJSON}
	}
	max := int64(maxRequestSizeBytes - 2)
	switch {
	case s.MaxLength != nil:
		max = max0(*s.MaxLength) * 4 // a character is at most 4 bytes
	case len(s.Enum) > 0:
		max = 0
		for _, e := range s.Enum {
			if n := int64(len(e)) - 2; n > max && len(e) > 0 && e[0] == '"' {
				max = n
			}
		}
	}
	return &declType{cel: types.StringType, schema: s, minSize: minStringSize, maxElements: max}
}

func max0(n int64) int64 { return max(n, 0) }

// withTypeAndObjectMeta returns s with the fields of an object's root
// (apiVersion, kind, and metadata's name and generateName) typed as strings.
func withTypeAndObjectMeta(s *api.JSONSchemaProps) *api.JSONSchemaProps {
	c := *s
	c.Properties = make(map[string]api.JSONSchemaProps, len(s.Properties)+3)
	for k, v := range s.Properties {
		c.Properties[k] = v
	}
	str := api.JSONSchemaProps{Type: "string"}
	c.Properties["apiVersion"] = str
	c.Properties["kind"] = str
	c.Properties["metadata"] = api.JSONSchemaProps{Type: "object", Properties: map[string]api.JSONSchemaProps{"name": str, "generateName": str}}
	return &c
}

func sortedProps(s *api.JSONSchemaProps) []string {
	names := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// celReserved are the words CEL reserves; a property so named is field
// __word__. Kubernetes: apiservercel.Escape.
var celReserved = []string{"true", "false", "null", "in", "as", "break", "const", "continue", "else",
	"for", "function", "if", "import", "let", "loop", "package", "namespace", "return", "var", "void", "while"}

// escape returns the CEL field name of property name, or false when the name
// cannot be one (it starts with a digit or holds a character other than
// letters, digits, '_', '.', '-' and '/'). Kubernetes: apiservercel.Escape.
func escape(name string) (string, bool) {
	if name == "" || ('0' <= name[0] && name[0] <= '9') {
		return "", false
	}
	if slices.Contains(celReserved, name) {
		return "__" + name + "__", true
	}
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_' && i+1 < len(name) && name[i+1] == '_':
			b.WriteString("__underscores__")
			i++
		case c == '.':
			b.WriteString("__dot__")
		case c == '-':
			b.WriteString("__dash__")
		case c == '/':
			b.WriteString("__slash__")
		case c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9':
			b.WriteByte(c)
		default:
			return "", false
		}
	}
	return b.String(), true
}

// provider resolves the object types of one schema for the type checker and
// leaves every other type to the base one. Kubernetes: DeclTypeProvider.
type provider struct {
	types.Provider
	objects map[string]*declType
}

func (p *provider) FindStructType(name string) (*types.Type, bool) {
	if t, ok := p.objects[name]; ok {
		return types.NewTypeTypeWithParam(t.cel), true
	}
	return p.Provider.FindStructType(name)
}

func (p *provider) FindStructFieldNames(name string) ([]string, bool) {
	t, ok := p.objects[name]
	if !ok {
		return p.Provider.FindStructFieldNames(name)
	}
	names := make([]string, 0, len(t.fields))
	for n := range t.fields {
		names = append(names, n)
	}
	slices.Sort(names)
	return names, true
}

func (p *provider) FindStructFieldType(name, field string) (*types.FieldType, bool) {
	t, ok := p.objects[name]
	if !ok {
		return p.Provider.FindStructFieldType(name, field)
	}
	f := t.field(field)
	if f == nil {
		return nil, false
	}
	return &types.FieldType{Type: f.t.cel}, true
}

// field returns an object's field by CEL name; a reserved word names its
// escaped field too (self.namespace is self.__namespace__), as Kubernetes
// v1.31 and later read it.
func (t *declType) field(name string) *declField {
	if f, ok := t.fields[name]; ok {
		return f
	}
	if slices.Contains(celReserved, name) {
		return t.fields["__"+name+"__"]
	}
	return nil
}

// NewValue refuses to build schema objects: a rule reads them, never makes one.
func (p *provider) NewValue(name string, fields map[string]ref.Val) ref.Val {
	if _, ok := p.objects[name]; ok {
		return types.NewErr("cannot construct %s", name)
	}
	return p.Provider.NewValue(name, fields)
}
