package apiserver

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
)

func validCRD() *api.CustomResourceDefinition {
	return &api.CustomResourceDefinition{
		Metadata: api.ObjectMeta{Name: "widgets.demo.example.com"},
		Spec: api.CustomResourceDefinitionSpec{
			Group: "demo.example.com", Scope: api.NamespaceScoped,
			Names: api.CustomResourceDefinitionNames{Plural: "widgets", Kind: "Widget"},
			Versions: []api.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &api.CustomResourceValidation{OpenAPIV3Schema: &api.JSONSchemaProps{Type: "object"}}}},
		},
	}
}

func TestValidateCRD(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*api.CustomResourceDefinition)
		want   string
	}{
		{"valid", func(*api.CustomResourceDefinition) {}, ""},
		{"name", func(c *api.CustomResourceDefinition) { c.Metadata.Name = "widgets.other.com" },
			`metadata.name: Invalid value: "widgets.other.com": must be spec.names.plural+"."+spec.group`},
		{"group without a dot", func(c *api.CustomResourceDefinition) { c.Spec.Group = "demo"; c.Metadata.Name = "widgets.demo" },
			`spec.group: Invalid value: "demo": should be a domain with at least one dot`},
		{"two storage versions", func(c *api.CustomResourceDefinition) {
			v := c.Spec.Versions[0]
			v.Name = "v2"
			c.Spec.Versions = append(c.Spec.Versions, v)
		}, `spec.versions: Invalid value: "[v1 v2]": must have exactly one version marked as storage version`},
		{"no schema", func(c *api.CustomResourceDefinition) { c.Spec.Versions[0].Schema = nil },
			`spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required`},
		{"scope", func(c *api.CustomResourceDefinition) { c.Spec.Scope = "Global" },
			`spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"`},
		{"plural", func(c *api.CustomResourceDefinition) {
			c.Spec.Names.Plural = "Widgets"
			c.Metadata.Name = "Widgets.demo.example.com"
		},
			`spec.names.plural: Invalid value: "Widgets": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`},
		{"untyped property", func(c *api.CustomResourceDefinition) {
			c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties = map[string]api.JSONSchemaProps{"spec": {}}
		}, `spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields`},
		{"patternProperties", func(c *api.CustomResourceDefinition) {
			c.Spec.Versions[0].Schema.OpenAPIV3Schema.PatternProperties = map[string]api.JSONSchemaProps{"^x": {Type: "string"}}
		}, `spec.versions[0].schema.openAPIV3Schema.patternProperties: Forbidden: patternProperties is not supported`},
		{"$ref", func(c *api.CustomResourceDefinition) {
			c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties = map[string]api.JSONSchemaProps{"spec": {Type: "object", Ref: new("#/x")}}
		}, `spec.versions[0].schema.openAPIV3Schema.properties[spec].$ref: Forbidden: $ref is not supported`},
		{"items as an array", func(c *api.CustomResourceDefinition) {
			c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties = map[string]api.JSONSchemaProps{"list": {Type: "array",
				Items: &api.JSONSchemaPropsOrArray{JSONSchemas: []api.JSONSchemaProps{{Type: "string"}}}}}
		}, `spec.versions[0].schema.openAPIV3Schema.properties[list].items: Forbidden: items must be a schema object and not an array`},
		{"$schema", func(c *api.CustomResourceDefinition) {
			c.Spec.Versions[0].Schema.OpenAPIV3Schema.Schema = "http://json-schema.org/draft-04/schema#"
		}, `spec.versions[0].schema.openAPIV3Schema: Invalid value: "": OpenAPIV3Schema 'schema' is not supported`},
		{"scale path", func(c *api.CustomResourceDefinition) {
			c.Spec.Versions[0].Subresources = &api.CustomResourceSubresources{Scale: &api.CustomResourceSubresourceScale{SpecReplicasPath: ".replicas", StatusReplicasPath: ".status.replicas"}}
		}, `spec.versions[0].subresources.scale.specReplicasPath: Invalid value: ".replicas": should be a json path under .spec`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := validCRD()
			tc.change(c)
			defaultCRD(c)
			errs := validateCRD(c)
			if tc.want == "" {
				assert.Empty(t, errs)
				return
			}
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			assert.Contains(t, got, tc.want)
		})
	}
}
