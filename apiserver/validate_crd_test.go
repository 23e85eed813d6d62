package apiserver

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver/celrules"
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
		}, `spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields`},
		{"patternProperties", func(c *api.CustomResourceDefinition) {
			c.Spec.Versions[0].Schema.OpenAPIV3Schema.PatternProperties = map[string]api.JSONSchemaProps{"^x": {Type: "string"}}
		}, `spec.validation.openAPIV3Schema.patternProperties: Forbidden: patternProperties is not supported`},
		{"$ref", func(c *api.CustomResourceDefinition) {
			c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties = map[string]api.JSONSchemaProps{"spec": {Type: "object", Ref: new("#/x")}}
		}, `spec.validation.openAPIV3Schema.properties[spec].$ref: Forbidden: $ref is not supported`},
		{"items as an array", func(c *api.CustomResourceDefinition) {
			c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties = map[string]api.JSONSchemaProps{"list": {Type: "array",
				Items: &api.JSONSchemaPropsOrArray{JSONSchemas: []api.JSONSchemaProps{{Type: "string"}}}}}
		}, `spec.validation.openAPIV3Schema.properties[list].items: Forbidden: items must be a schema object and not an array`},
		{"$schema", func(c *api.CustomResourceDefinition) {
			c.Spec.Versions[0].Schema.OpenAPIV3Schema.Schema = "http://json-schema.org/draft-04/schema#"
		}, `spec.validation.openAPIV3Schema: Invalid value: "": OpenAPIV3Schema 'schema' is not supported`},
		{"scale path", func(c *api.CustomResourceDefinition) {
			c.Spec.Versions[0].Subresources = &api.CustomResourceSubresources{Scale: &api.CustomResourceSubresourceScale{SpecReplicasPath: ".replicas", StatusReplicasPath: ".status.replicas"}}
		}, `spec.versions[0].subresources.scale.specReplicasPath: Invalid value: ".replicas": should be a json path under .spec`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := validCRD()
			tc.change(c)
			defaultCRD(c)
			errs := validateCRD(c, &celrules.Compiler{})
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

// TestValidateCRDRules checks that a definition's CEL rules are compiled
// when it is written: what does not compile, names a field the schema does
// not have, reads oldSelf where no old value can be matched, or is over the
// cost budget is refused with kube-apiserver's message at the rule's path.
// Kubernetes: the x-kubernetes-validations cases of apiextensions'
// TestValidateCustomResourceDefinitionValidation and TestCostEstimation.
func TestValidateCRDRules(t *testing.T) {
	for _, tc := range []struct {
		name, schema string
		want         []string
	}{
		{"valid", `{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-validations":[{"rule":"self.replicas <= self.max","message":"too many"}],
			"properties":{"replicas":{"type":"integer"},"max":{"type":"integer"}}}}}`, nil},
		{"unknown field", `{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-validations":[{"rule":"self.foo == 1"}],
			"properties":{"replicas":{"type":"integer"}}}}}`,
			[]string{"spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: " +
				`apiextensions.ValidationRule{Rule:"self.foo == 1", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: ` +
				"compilation failed: ERROR: <input>:1:5: undefined field 'foo'\n | self.foo == 1\n | ....^"}},
		{"not a bool", `{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-validations":[{"rule":"self.replicas"}],
			"properties":{"replicas":{"type":"integer"}}}}}`,
			[]string{"spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: " +
				`apiextensions.ValidationRule{Rule:"self.replicas", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: ` +
				"cel expression must evaluate to a bool"}},
		{"rule missing", `{"type":"object","x-kubernetes-validations":[{"rule":" "}]}`,
			[]string{"spec.validation.openAPIV3Schema.x-kubernetes-validations[0].rule: Required value: rule is not specified"}},
		{"multi-line rule without message", `{"type":"object","x-kubernetes-validations":[{"rule":"true &&\ntrue"}]}`,
			[]string{"spec.validation.openAPIV3Schema.x-kubernetes-validations[0].message: Required value: message must be specified if rule contains line breaks"}},
		{"reason", `{"type":"object","x-kubernetes-validations":[{"rule":"true","reason":"Bad"}]}`,
			[]string{`spec.validation.openAPIV3Schema.x-kubernetes-validations[0].reason: Unsupported value: "Bad": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`}},
		{"fieldPath", `{"type":"object","properties":{"a":{"type":"string"}},"x-kubernetes-validations":[{"rule":"true","fieldPath":".b"}]}`,
			[]string{`spec.validation.openAPIV3Schema.x-kubernetes-validations[0].fieldPath: Invalid value: ".b": fieldPath must be a valid path`}},
		{"messageExpression not a string", `{"type":"object","x-kubernetes-validations":[{"rule":"true","messageExpression":"1"}]}`,
			[]string{"spec.validation.openAPIV3Schema.x-kubernetes-validations[0].messageExpression: Invalid value: " +
				`apiextensions.ValidationRule{Rule:"true", Message:"", MessageExpression:"1", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: ` +
				"messageExpression must evaluate to a string"}},
		{"oldSelf in a list item", `{"type":"object","properties":{"value":{"type":"array","items":{"type":"string","maxLength":10,"x-kubernetes-validations":[{"rule":"self == oldSelf"}]}}}}`,
			[]string{`spec.validation.openAPIV3Schema.properties[value].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within spec.validation.openAPIV3Schema.properties[value]`}},
		{"oldSelf in a list-type map item", `{"type":"object","properties":{"value":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k"],
			"items":{"type":"object","required":["k"],"properties":{"k":{"type":"string"}},"x-kubernetes-validations":[{"rule":"self == oldSelf"}]}}}}`, nil},
		{"optionalOldSelf without oldSelf", `{"type":"object","x-kubernetes-validations":[{"rule":"true","optionalOldSelf":true}]}`,
			[]string{"spec.validation.openAPIV3Schema.x-kubernetes-validations[0].optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule"}},
		{"over the cost budget", `{"type":"object","properties":{"list":{"type":"array","items":{"type":"string"},
			"x-kubernetes-validations":[{"rule":"self.all(x, self.all(y, x == y))"}]}}}`,
			[]string{"spec.validation.openAPIV3Schema.properties[list].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
				"spec.validation.openAPIV3Schema.properties[list].x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
				"spec.validation.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"}},
		{"rules in value validations", `{"type":"object","properties":{"a":{"type":"string",
			"allOf":[{"x-kubernetes-validations":[{"rule":"true"}]}],"not":{"x-kubernetes-validations":[{"rule":"true"}]}}}}`,
			[]string{"spec.validation.openAPIV3Schema.properties[a].allOf[0].x-kubernetes-validations: Forbidden: must be empty to be structural",
				"spec.validation.openAPIV3Schema.properties[a].not.x-kubernetes-validations: Forbidden: must be empty to be structural"}},
		{"over the budget for the whole schema", `{"type":"object","properties":{"s0":{"type":"string","maxLength":20000000,"x-kubernetes-validations":[{"rule":"self.contains('a')"}]},"s1":{"type":"string","maxLength":20000000,"x-kubernetes-validations":[{"rule":"self.contains('a')"}]},"s2":{"type":"string","maxLength":20000000,"x-kubernetes-validations":[{"rule":"self.contains('a')"}]},"s3":{"type":"string","maxLength":20000000,"x-kubernetes-validations":[{"rule":"self.contains('a')"}]},"s4":{"type":"string","maxLength":20000000,"x-kubernetes-validations":[{"rule":"self.contains('a')"}]},"s5":{"type":"string","maxLength":20000000,"x-kubernetes-validations":[{"rule":"self.contains('a')"}]},"s6":{"type":"string","maxLength":20000000,"x-kubernetes-validations":[{"rule":"self.contains('a')"}]},"s7":{"type":"string","maxLength":20000000,"x-kubernetes-validations":[{"rule":"self.contains('a')"}]},"s8":{"type":"string","maxLength":20000000,"x-kubernetes-validations":[{"rule":"self.contains('a')"}]},"s9":{"type":"string","maxLength":20000000,"x-kubernetes-validations":[{"rule":"self.contains('a')"}]},"s10":{"type":"string","maxLength":20000000,"x-kubernetes-validations":[{"rule":"self.contains('a')"}]},"s11":{"type":"string","maxLength":20000000,"x-kubernetes-validations":[{"rule":"self.contains('a')"}]},"s12":{"type":"string","maxLength":20000000,"x-kubernetes-validations":[{"rule":"self.contains('a')"}]}}}`,
			[]string{"spec.validation.openAPIV3Schema.properties[s0].x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
				"spec.validation.openAPIV3Schema.properties[s1].x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
				"spec.validation.openAPIV3Schema.properties[s10].x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
				"spec.validation.openAPIV3Schema.properties[s11].x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
				"spec.validation.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of 1.040000x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"}},
		{"bounded by maxItems and maxLength", `{"type":"object","properties":{"list":{"type":"array","maxItems":100,"items":{"type":"string","maxLength":64},
			"x-kubernetes-validations":[{"rule":"self.all(x, self.all(y, x == y))"}]}}}`, nil},
		{"cost of a rule on list items times its occurrences", `{"type":"object","properties":{"list":{"type":"array","items":{"type":"string",
			"x-kubernetes-validations":[{"rule":"self.matches('^a+$')"}]}}}}`,
			[]string{"spec.validation.openAPIV3Schema.properties[list].items.x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
				"spec.validation.openAPIV3Schema.properties[list].items.x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
				"spec.validation.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := validCRD()
			var s api.JSONSchemaProps
			require.NoError(t, json.Unmarshal([]byte(tc.schema), &s))
			c.Spec.Versions[0].Schema.OpenAPIV3Schema = &s
			defaultCRD(c)
			var got []string
			for _, e := range validateCRD(c, &celrules.Compiler{}) {
				got = append(got, e.Error())
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestValidateCRDSelectableFields: a version's selectableFields are field
// paths, without array notation, to a string, boolean or integer field of
// its schema outside metadata, none twice and at most eight, refused in
// apiextensions-apiserver's words. Kubernetes: the selectableFields cases
// of TestValidateCustomResourceDefinition.
func TestValidateCRDSelectableFields(t *testing.T) {
	const schema = `{"type":"object","properties":{
	  "metadata":{"type":"object","properties":{"name":{"type":"string"}}},
	  "spec":{"type":"object","properties":{
	    "color":{"type":"string","enum":["red","blue"]}, "when":{"type":"string","format":"date-time"},
	    "size":{"type":"integer"}, "on":{"type":"boolean"}, "ratio":{"type":"number"},
	    "labels":{"type":"object","additionalProperties":{"type":"string"}},
	    "tags":{"type":"array","items":{"type":"string"}}, "nested":{"type":"object","properties":{"a":{"type":"string"}}},
	    "f0":{"type":"string"},"f1":{"type":"string"},"f2":{"type":"string"},"f3":{"type":"string"},
	    "f4":{"type":"string"},"f5":{"type":"string"},"f6":{"type":"string"},"f7":{"type":"string"},"f8":{"type":"string"}}}}}`
	const p = "spec.versions[0].selectableFields"
	for _, tc := range []struct {
		name  string
		paths []string
		want  []string
	}{
		{"valid", []string{".spec.color", ".spec.when", ".spec.size", ".spec.on", ".spec.labels.app", ".spec.nested.a"}, nil},
		{"empty", []string{""}, []string{p + "[0].jsonPath: Required value"}},
		{"not a field", []string{".spec.shade"}, []string{p + `[0].jsonPath: Invalid value: ".spec.shade": is an invalid path: does not refer to a valid field`}},
		{"no leading dot", []string{"spec.color"}, []string{p + `[0].jsonPath: Invalid value: "spec.color": is an invalid path: expected [ or . but got: spec`}},
		{"trailing dot", []string{".spec."}, []string{p + `[0].jsonPath: Invalid value: ".spec.": is an invalid path: unexpected end of JSON path`}},
		{"array notation", []string{".spec['color']"}, []string{p + `[0].jsonPath: Invalid value: ".spec['color']": is an invalid path: array notation is not allowed`}},
		{"into a list", []string{".spec.tags.x"}, []string{p + `[0].jsonPath: Invalid value: ".spec.tags.x": is an invalid path: does not refer to a valid field`}},
		{"a number", []string{".spec.ratio"}, []string{p + `[0].jsonPath: Invalid value: ".spec.ratio": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.`}},
		{"an object", []string{".spec.nested"}, []string{p + `[0].jsonPath: Invalid value: ".spec.nested": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.`}},
		{"metadata", []string{".metadata.name"}, []string{p + `[0].jsonPath: Invalid value: ".metadata.name": must not point to fields in metadata`}},
		{"duplicate", []string{".spec.color", ".spec.size", ".spec.color"}, []string{p + `[2].jsonPath: Duplicate value: ".spec.color"`}},
		{"eight", []string{".spec.f0", ".spec.f1", ".spec.f2", ".spec.f3", ".spec.f4", ".spec.f5", ".spec.f6", ".spec.f7"}, nil},
		{"nine", []string{".spec.f0", ".spec.f1", ".spec.f2", ".spec.f3", ".spec.f4", ".spec.f5", ".spec.f6", ".spec.f7", ".spec.f8"},
			[]string{p + ": Too many: 9: must have at most 8 items"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := validCRD()
			require.NoError(t, json.Unmarshal([]byte(schema), c.Spec.Versions[0].Schema.OpenAPIV3Schema))
			for _, path := range tc.paths {
				c.Spec.Versions[0].SelectableFields = append(c.Spec.Versions[0].SelectableFields, api.SelectableField{JSONPath: path})
			}
			defaultCRD(c)
			var got []string
			for _, e := range validateCRD(c, &celrules.Compiler{}) {
				got = append(got, e.Error())
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

// FuzzSchemaFieldPath: a selectable field's path, whatever it is, is
// followed or refused without a panic.
func FuzzSchemaFieldPath(f *testing.F) {
	for _, s := range []string{".spec.color", ".spec['a.b']", "spec", ".", "..", ".spec.labels.x", ".'", "[", ".spec.tags[0]"} {
		f.Add(s)
	}
	root := &api.JSONSchemaProps{Type: "object", Properties: map[string]api.JSONSchemaProps{"spec": {Type: "object", Properties: map[string]api.JSONSchemaProps{
		"color":  {Type: "string"},
		"labels": {Type: "object", AdditionalProperties: &api.JSONSchemaPropsOrBool{Allows: true}},
	}}}}
	f.Fuzz(func(t *testing.T, path string) {
		_, _, _ = schemaFieldPath(path, root)
	})
}
