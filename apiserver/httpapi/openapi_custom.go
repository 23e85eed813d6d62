package httpapi

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
)

// The OpenAPI definitions of custom resources, as kube-apiserver publishes
// a CustomResourceDefinition's version (k8s.io/apiextensions-apiserver's
// controller/openapi/builder): the structural schema with apiVersion, kind
// and metadata added at the root and in every embedded resource, named by
// the group reversed, the version and the kind
// ("com.example.demo.v1.Widget"). The /openapi/v2 form differs: a root that
// keeps unknown fields is published as a bare object, and what Swagger 2.0
// cannot say is left out (openapiv2.ToStructuralOpenAPIV2).

// The descriptions kube-apiserver gives the properties it adds.
const (
	customAPIVersionDoc = "APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"
	customKindDoc       = "Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"
	customMetadataDoc   = "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
)

// customDefinition adds the definition of a custom resource, from its
// CustomResourceDefinition's schema, and returns its name.
func (b *schemaBuilder) customDefinition(r apiserver.ResourceInfo) (string, error) {
	labels := strings.Split(r.Group, ".")
	slices.Reverse(labels)
	name := strings.Join(labels, ".") + "." + r.Version + "." + r.Kind
	meta, err := b.definition(reflect.TypeFor[api.ObjectMeta]())
	if err != nil {
		return "", err
	}
	gvk := []groupVersionKind{{Group: r.Group, Version: r.Version, Kind: r.Kind}}
	def := customSchema(r.Schema)
	addTypeAndObjectMeta(def, meta, false)
	addEmbeddedMeta(def, meta, false)
	def.GVK = gvk
	def.v2 = customV2(r.Schema, meta)
	def.v2.GVK = gvk
	b.defs[name] = def
	return name, nil
}

// customV2 is a custom resource's definition in /openapi/v2. A root that
// keeps unknown fields is a bare object: properties would make kubectl's
// client-side validation refuse every field they do not name.
func customV2(s *api.JSONSchemaProps, meta string) *schema {
	if s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields {
		return &schema{Type: "object"}
	}
	def := toV2(customSchema(s))
	addTypeAndObjectMeta(def, meta, true)
	addEmbeddedMeta(def, meta, true)
	return def
}

// addTypeAndObjectMeta adds apiVersion, kind and metadata to an object's
// schema. Kubernetes: addTypeMetaProperties and the builder's metadata.
func addTypeAndObjectMeta(s *schema, meta string, v2 bool) {
	if s.Properties == nil {
		s.Properties = map[string]*schema{}
	}
	s.Properties["apiVersion"] = &schema{Type: "string", Description: customAPIVersionDoc}
	s.Properties["kind"] = &schema{Type: "string", Description: customKindDoc}
	if v2 {
		s.Properties["metadata"] = &schema{Ref: meta, Description: customMetadataDoc}
	} else {
		s.Properties["metadata"] = &schema{AllOf: []*schema{{Ref: meta}}, Description: customMetadataDoc}
	}
}

// addEmbeddedMeta adds apiVersion, kind and metadata to every embedded
// resource below s, and requires apiVersion and kind; in v2, not to one
// that keeps unknown fields. Kubernetes: addEmbeddedProperties.
func addEmbeddedMeta(s *schema, meta string, v2 bool) {
	if s == nil {
		return
	}
	for _, p := range s.Properties {
		addEmbeddedMeta(p, meta, v2)
	}
	addEmbeddedMeta(s.Items, meta, v2)
	addEmbeddedMeta(s.AdditionalProperties, meta, v2)
	if !s.EmbeddedResource || (v2 && s.PreserveUnknownFields) {
		return
	}
	addTypeAndObjectMeta(s, meta, v2)
	for _, req := range []string{"kind", "apiVersion"} {
		if !slices.Contains(s.Required, req) {
			s.Required = append(s.Required, req)
		}
	}
}

// customSchema is a structural schema as an OpenAPI schema: what
// kube-apiserver's structural schema keeps of it (not example, not
// externalDocs).
func customSchema(s *api.JSONSchemaProps) *schema {
	if s == nil {
		return nil
	}
	out := &schema{
		Type: s.Type, Format: s.Format, Title: s.Title, Description: s.Description,
		Required: slices.Clone(s.Required), Nullable: s.Nullable,
		PreserveUnknownFields: s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields,
		Pattern:               s.Pattern, Maximum: s.Maximum, ExclusiveMaximum: s.ExclusiveMaximum,
		Minimum: s.Minimum, ExclusiveMinimum: s.ExclusiveMinimum, MultipleOf: s.MultipleOf,
		MaxLength: s.MaxLength, MinLength: s.MinLength, MaxItems: s.MaxItems, MinItems: s.MinItems,
		UniqueItems: s.UniqueItems, MaxProperties: s.MaxProperties, MinProperties: s.MinProperties,
		EmbeddedResource: s.XEmbeddedResource, IntOrString: s.XIntOrString,
		ListMapKeys: slices.Clone(s.XListMapKeys), ListType: s.XListType, MapType: s.XMapType,
		Not: customSchema(s.Not),
	}
	if len(s.Default) > 0 {
		out.Default = slices.Clone(s.Default)
	}
	for _, e := range s.Enum {
		out.Enum = append(out.Enum, slices.Clone(e))
	}
	if len(s.XValidations) > 0 {
		out.Validations, _ = json.Marshal(s.XValidations) // plain strings and numbers: cannot fail
	}
	if len(s.Properties) > 0 {
		out.Properties = make(map[string]*schema, len(s.Properties))
		for k, p := range s.Properties {
			out.Properties[k] = customSchema(&p)
		}
	}
	if items := s.ItemSchema(); items != nil {
		out.Items = customSchema(items)
	}
	if ap := s.AdditionalProperties; ap != nil && ap.Schema != nil {
		out.AdditionalProperties = customSchema(ap.Schema)
	}
	for _, list := range []struct {
		in  []api.JSONSchemaProps
		out *[]*schema
	}{{s.AllOf, &out.AllOf}, {s.AnyOf, &out.AnyOf}, {s.OneOf, &out.OneOf}} {
		for i := range list.in {
			*list.out = append(*list.out, customSchema(&list.in[i]))
		}
	}
	return out
}

// toV2 changes s, and every schema in it, to what Swagger 2.0 and kubectl
// cope with: no allOf, anyOf, oneOf or not; a nullable value untyped and
// not required; a value keeping unknown fields without properties or items;
// an array without items untyped. Kubernetes: ToStructuralOpenAPIV2.
func toV2(s *schema) *schema {
	if s == nil {
		return nil
	}
	s.AllOf, s.AnyOf, s.OneOf, s.Not = nil, nil, nil, nil
	if s.Nullable {
		s.Type, s.Nullable, s.Items, s.Properties = "", false, nil, nil
	}
	if s.PreserveUnknownFields {
		s.Items, s.Properties = nil, nil
	}
	if s.Items == nil && s.Type == "array" {
		s.Type = ""
	}
	for name, p := range s.Properties {
		if p.Nullable {
			s.Required = slices.DeleteFunc(s.Required, func(r string) bool { return r == name })
		}
		toV2(p)
	}
	if len(s.Required) == 0 {
		s.Required = nil
	}
	if ap := s.AdditionalProperties; ap != nil && ap.Nullable {
		s.Required = nil
	}
	toV2(s.Items)
	toV2(s.AdditionalProperties)
	return s
}
