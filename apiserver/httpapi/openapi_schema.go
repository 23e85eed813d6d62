package httpapi

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/miniplane/miniplane/api"
)

// This file builds OpenAPI schemas from package api's Go types by
// reflection, as kube-openapi's generator builds kube-apiserver's from the
// k8s.io/api types: json tags name the properties, a field without
// omitempty that is not a pointer is required, a named struct becomes a
// definition referred to by $ref, and the types with their own JSON
// encoding (timestamps, IntOrString, ResourceList, raw JSON) have the
// shapes Kubernetes gives them. Descriptions come from the doc comments,
// which internal/openapigen copies into openapi_docs.go.

//go:generate go run ../../internal/openapigen ../../api openapi_docs.go

// schema is one OpenAPI schema object: the part of JSON Schema that
// kube-apiserver's documents use, in OpenAPI v3's form. Ref names a
// definition ("io.k8s.api.core.v1.Pod") without the document's prefix:
// v3 and v2 add their own (see openAPIV3 and openAPIV2).
type schema struct {
	Ref         string    `json:"$ref,omitempty"`
	AllOf       []*schema `json:"allOf,omitempty"`
	OneOf       []*schema `json:"oneOf,omitempty"`
	Type        string    `json:"type,omitempty"`
	Format      string    `json:"format,omitempty"`
	Description string    `json:"description,omitempty"`
	// Default is the value a missing field decodes to, as JSON: "{}" for a
	// struct that is not a pointer, the zero value of a required scalar.
	Default              json.RawMessage    `json:"default,omitempty"`
	Items                *schema            `json:"items,omitempty"`
	Properties           map[string]*schema `json:"properties,omitempty"`
	AdditionalProperties *schema            `json:"additionalProperties,omitempty"`
	Required             []string           `json:"required,omitempty"`
	// GVK lists the kinds a definition is the schema of: kubectl finds a
	// kind's schema by it.
	GVK []groupVersionKind `json:"x-kubernetes-group-version-kind,omitempty"`
	// PreserveUnknownFields marks a value whose content has no schema.
	PreserveUnknownFields bool `json:"x-kubernetes-preserve-unknown-fields,omitempty"`

	// What a custom resource's structural schema may say beyond the above,
	// published as kube-apiserver publishes it (its structural schema's
	// ToKubeOpenAPI); the api types' schemas never use them.
	Title            string            `json:"title,omitempty"`
	Nullable         bool              `json:"nullable,omitempty"`
	AnyOf            []*schema         `json:"anyOf,omitempty"`
	Not              *schema           `json:"not,omitempty"`
	Enum             []json.RawMessage `json:"enum,omitempty"`
	Pattern          string            `json:"pattern,omitempty"`
	Maximum          *float64          `json:"maximum,omitempty"`
	ExclusiveMaximum bool              `json:"exclusiveMaximum,omitempty"`
	Minimum          *float64          `json:"minimum,omitempty"`
	ExclusiveMinimum bool              `json:"exclusiveMinimum,omitempty"`
	MultipleOf       *float64          `json:"multipleOf,omitempty"`
	MaxLength        *int64            `json:"maxLength,omitempty"`
	MinLength        *int64            `json:"minLength,omitempty"`
	MaxItems         *int64            `json:"maxItems,omitempty"`
	MinItems         *int64            `json:"minItems,omitempty"`
	UniqueItems      bool              `json:"uniqueItems,omitempty"`
	MaxProperties    *int64            `json:"maxProperties,omitempty"`
	MinProperties    *int64            `json:"minProperties,omitempty"`
	EmbeddedResource bool              `json:"x-kubernetes-embedded-resource,omitempty"`
	IntOrString      bool              `json:"x-kubernetes-int-or-string,omitempty"`
	ListMapKeys      []string          `json:"x-kubernetes-list-map-keys,omitempty"`
	ListType         *string           `json:"x-kubernetes-list-type,omitempty"`
	MapType          *string           `json:"x-kubernetes-map-type,omitempty"`
	Validations      json.RawMessage   `json:"x-kubernetes-validations,omitempty"`

	// v2, on a custom resource's definition, is its form in /openapi/v2,
	// which kube-apiserver builds apart (customV2).
	v2 *schema
}

// quantityDefinition is the definition ResourceList values refer to.
const quantityDefinition = "io.k8s.apimachinery.pkg.api.resource.Quantity"

const quantityDescription = `Quantity is a number with an optional suffix: a binary one ("128Mi"), a decimal one ("500m", "1G") or an exponent ("1e3"). miniplane keeps it as the text the client sent.`

// schemaBuilder turns Go types into schemas and collects the definitions
// they refer to. Build one per document with newSchemaBuilder.
type schemaBuilder struct {
	// docs are the descriptions by "Type" and "Type.Field"; names are the
	// definition names by Go type name; a type without one is named
	// fallback + its Go name.
	docs, names map[string]string
	fallback    string
	// defs are the definitions built so far, by name; from says which Go
	// type each was built from, so that two types never share a name.
	defs map[string]*schema
	from map[string]reflect.Type
}

// newSchemaBuilder returns a builder whose definitions take their
// descriptions from docs and their names from names, or else fallback
// (such as "io.k8s.api.core.v1.") and the Go name.
func newSchemaBuilder(docs, names map[string]string, fallback string) *schemaBuilder {
	return &schemaBuilder{
		docs: docs, names: names, fallback: fallback,
		defs: make(map[string]*schema), from: make(map[string]reflect.Type),
	}
}

// definition builds the definition of struct type t (and of every type it
// refers to) and returns its name.
func (b *schemaBuilder) definition(t reflect.Type) (string, error) {
	if t.Kind() != reflect.Struct || t.Name() == "" {
		return "", fmt.Errorf("%s is not a named struct type", t)
	}
	if shape, ok := specialShape(t); ok {
		return b.special(t, shape)
	}
	name := b.nameOf(t)
	if from, ok := b.from[name]; ok {
		if from != t {
			return "", fmt.Errorf("%s and %s would both be the definition %s", from, t, name)
		}
		return name, nil
	}
	def := &schema{Type: "object", Description: b.docs[t.Name()], Properties: map[string]*schema{}}
	// Registered before the fields are built, so a type that refers to
	// itself ends in a $ref rather than a loop.
	b.defs[name], b.from[name] = def, t
	if err := b.addFields(def, t); err != nil {
		return "", err
	}
	if len(def.Properties) == 0 {
		def.Properties = nil
	}
	return name, nil
}

// nameOf returns the definition name of a named type.
func (b *schemaBuilder) nameOf(t reflect.Type) string {
	if name, ok := b.names[t.Name()]; ok {
		return name
	}
	return b.fallback + t.Name()
}

// addFields adds the JSON properties of struct t to def, flattening
// embedded structs without a json name as encoding/json does.
func (b *schemaBuilder) addFields(def *schema, t reflect.Type) error {
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" && opts == "" {
			continue
		}
		if f.Anonymous && name == "" {
			if f.Type.Kind() != reflect.Struct {
				return fmt.Errorf("%s embeds %s without a json name: only structs are flattened here", t.Name(), f.Type)
			}
			if err := b.addFields(def, f.Type); err != nil {
				return err
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		required := !strings.Contains(","+opts+",", ",omitempty,") && f.Type.Kind() != reflect.Pointer
		prop, err := b.property(f.Type, required)
		if err != nil {
			return fmt.Errorf("%s.%s: %w", t.Name(), f.Name, err)
		}
		if desc := b.docs[t.Name()+"."+f.Name]; desc != "" {
			prop = wrapRef(prop)
			prop.Description = desc
		}
		def.Properties[name] = prop
		if required {
			def.Required = append(def.Required, name)
		}
	}
	return nil
}

// property returns the schema of a field, array item or map value of type
// t, with the default kube-openapi gives it: {} for a struct that is not a
// pointer (encoding/json never leaves one out), and the zero value ("", 0
// or false) for a scalar that is always there: a required field, or an
// item or value that is not a pointer.
func (b *schemaBuilder) property(t reflect.Type, always bool) (*schema, error) {
	s, err := b.schemaOf(t)
	if err != nil {
		return nil, err
	}
	if s.Ref != "" {
		if t.Kind() == reflect.Struct && b.defs[s.Ref].Type == "object" {
			s = wrapRef(s)
			s.Default = json.RawMessage("{}")
		}
		return s, nil
	}
	if !always {
		return s, nil
	}
	switch s.Type {
	case "string":
		s.Default = json.RawMessage(`""`)
	case "integer", "number":
		s.Default = json.RawMessage("0")
	case "boolean":
		s.Default = json.RawMessage("false")
	}
	return s, nil
}

// wrapRef puts a bare $ref in an allOf, so that the schema can carry a
// description and a default of its own: kube-apiserver's v3 form.
func wrapRef(s *schema) *schema {
	if s.Ref == "" {
		return s
	}
	return &schema{AllOf: []*schema{s}}
}

// marshalerType and unmarshalerType mark the types with their own JSON
// encoding: their schema cannot be read off their Go fields.
var (
	marshalerType   = reflect.TypeFor[json.Marshaler]()
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
)

// schemaOf returns the schema of a value of type t: a $ref for a struct,
// the schema itself for anything else.
func (b *schemaBuilder) schemaOf(t reflect.Type) (*schema, error) {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if shape, ok := specialShape(t); ok {
		if shape.definition == "" {
			return shape.schema(b), nil
		}
		name, err := b.special(t, shape)
		return &schema{Ref: name}, err
	}
	if t.Implements(marshalerType) || reflect.PointerTo(t).Implements(unmarshalerType) {
		return nil, fmt.Errorf("%s has its own JSON encoding: give it a shape in specialShape", t)
	}
	switch t.Kind() {
	case reflect.Struct:
		name, err := b.definition(t)
		return &schema{Ref: name}, err
	case reflect.String:
		return &schema{Type: "string"}, nil
	case reflect.Bool:
		return &schema{Type: "boolean"}, nil
	case reflect.Int32, reflect.Int16, reflect.Int8, reflect.Uint16, reflect.Uint8:
		return &schema{Type: "integer", Format: "int32"}, nil
	case reflect.Int64, reflect.Int, reflect.Uint32:
		return &schema{Type: "integer", Format: "int64"}, nil
	case reflect.Float64, reflect.Float32:
		return &schema{Type: "number", Format: "double"}, nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return &schema{Type: "string", Format: "byte"}, nil // encoding/json's base64
		}
		items, err := b.property(t.Elem(), t.Elem().Kind() != reflect.Pointer)
		return &schema{Type: "array", Items: items}, err
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, fmt.Errorf("map key %s is not a string", t.Key())
		}
		values, err := b.property(t.Elem(), t.Elem().Kind() != reflect.Pointer)
		return &schema{Type: "object", AdditionalProperties: values}, err
	case reflect.Interface:
		return &schema{PreserveUnknownFields: true}, nil
	}
	return nil, fmt.Errorf("%s has no JSON schema", t)
}

// shape is how a Go type with its own JSON encoding looks on the wire.
// With a definition name the type is a definition of that name (Time is
// io.k8s.apimachinery.pkg.apis.meta.v1.Time); without, its schema is
// written in place, as Kubernetes writes a ResourceList.
type shape struct {
	definition string
	schema     func(b *schemaBuilder) *schema
}

// specialShape returns the shape of the types whose JSON is not their Go
// fields', and false for every other type.
func specialShape(t reflect.Type) (shape, bool) {
	timestamp := func(b *schemaBuilder) *schema {
		return &schema{Type: "string", Format: "date-time", Description: b.docs[t.Name()]}
	}
	switch t {
	case reflect.TypeFor[api.Time]():
		return shape{"io.k8s.apimachinery.pkg.apis.meta.v1.Time", timestamp}, true
	case reflect.TypeFor[api.MicroTime]():
		return shape{"io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime", timestamp}, true
	case reflect.TypeFor[api.IntOrString]():
		return shape{"io.k8s.apimachinery.pkg.util.intstr.IntOrString", func(b *schemaBuilder) *schema {
			return &schema{
				Format: "int-or-string", Description: b.docs[t.Name()],
				OneOf: []*schema{{Type: "integer"}, {Type: "string"}},
			}
		}}, true
	case reflect.TypeFor[api.ResourceList]():
		return shape{schema: func(b *schemaBuilder) *schema {
			return &schema{Type: "object", AdditionalProperties: b.quantityRef()}
		}}, true
	case reflect.TypeFor[api.Quantity]():
		return shape{schema: (*schemaBuilder).quantityRef}, true
	case reflect.TypeFor[api.JSONSchemaPropsOrBool](), reflect.TypeFor[api.JSONSchemaPropsOrArray](),
		reflect.TypeFor[api.JSONSchemaPropsOrStringArray]():
		// A schema or a boolean, an array of schemas or of strings: free JSON, as
		// JSON values are.
		return shape{schema: func(b *schemaBuilder) *schema {
			return &schema{Type: "object", PreserveUnknownFields: true, Description: b.docs[t.Name()]}
		}}, true
	case reflect.TypeFor[json.RawMessage]():
		return shape{schema: func(*schemaBuilder) *schema {
			return &schema{Type: "object", PreserveUnknownFields: true}
		}}, true
	}
	return shape{}, false
}

// quantityRef adds the Quantity definition that a ResourceList's values
// and a Quantity share, and returns a reference to it.
func (b *schemaBuilder) quantityRef() *schema {
	b.from[quantityDefinition] = reflect.TypeFor[api.Quantity]()
	b.defs[quantityDefinition] = &schema{
		Description: quantityDescription,
		OneOf:       []*schema{{Type: "string"}, {Type: "number"}},
	}
	return &schema{Ref: quantityDefinition}
}

// special adds the definition of a type with a special shape and returns
// its name.
func (b *schemaBuilder) special(t reflect.Type, sh shape) (string, error) {
	if from, ok := b.from[sh.definition]; ok && from != t {
		return "", fmt.Errorf("%s and %s would both be the definition %s", from, t, sh.definition)
	}
	b.defs[sh.definition], b.from[sh.definition] = sh.schema(b), t
	return sh.definition, nil
}
