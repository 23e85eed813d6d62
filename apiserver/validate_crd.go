package apiserver

// CustomResourceDefinitions: defaulting and validation. Kubernetes:
// k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation
// (ValidateCustomResourceDefinition and its update) and the v1 defaults.

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver/celrules"
)

var crdMeta = metaRules{name: nameIsDNSSubdomain}

// defaultCRD fills what the v1 API defaults: singular and listKind from the kind, the
// conversion strategy None.
func defaultCRD(c *api.CustomResourceDefinition) {
	n := &c.Spec.Names
	if n.Singular == "" {
		n.Singular = strings.ToLower(n.Kind)
	}
	if n.ListKind == "" && n.Kind != "" {
		n.ListKind = n.Kind + "List"
	}
	if c.Spec.Conversion == nil {
		c.Spec.Conversion = &api.CustomResourceConversion{Strategy: "None"}
	}
	for i := range c.Spec.Versions {
		v := &c.Spec.Versions[i]
		for j := range v.AdditionalPrinterColumns {
			if v.AdditionalPrinterColumns[j].Type == "" {
				v.AdditionalPrinterColumns[j].Type = "string"
			}
		}
	}
}

// validateCRD checks a new definition; rules compiles its schemas' CEL rules.
func validateCRD(c *api.CustomResourceDefinition, rules *celrules.Compiler) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &c.Metadata, crdMeta, metadataPath)
	return validateCRDSpec(errs, c, rules)
}

func validateCRDUpdate(c, old *api.CustomResourceDefinition, rules *celrules.Compiler) apierrors.FieldErrors {
	errs := validateObjectMetaUpdate(nil, &c.Metadata, &old.Metadata, metadataPath)
	errs = validateCRDSpec(errs, c, rules)
	if c.Spec.Group != old.Spec.Group {
		errs = append(errs, Invalid(NewPath("spec", "group"), c.Spec.Group, msgImmutable))
	}
	if c.Spec.Names.Plural != old.Spec.Names.Plural && old.Spec.Names.Plural != "" {
		errs = append(errs, Invalid(NewPath("spec", "names", "plural"), c.Spec.Names.Plural, msgImmutable))
	}
	if c.Spec.Scope != old.Spec.Scope {
		errs = append(errs, Invalid(NewPath("spec", "scope"), c.Spec.Scope, msgImmutable))
	}
	return errs
}

func validateCRDSpec(errs apierrors.FieldErrors, c *api.CustomResourceDefinition, rules *celrules.Compiler) apierrors.FieldErrors {
	spec := &c.Spec
	sp := NewPath("spec")
	if c.Metadata.Name != spec.Names.Plural+"."+spec.Group {
		errs = append(errs, Invalid(NewPath("metadata", "name"), c.Metadata.Name, `must be spec.names.plural+"."+spec.group`))
	}
	switch {
	case spec.Group == "":
		errs = append(errs, Required(sp.Child("group"), ""))
	case len(dns1123SubdomainMsgs(spec.Group)) > 0:
		errs = append(errs, Invalid(sp.Child("group"), spec.Group, strings.Join(dns1123SubdomainMsgs(spec.Group), ",")))
	case len(strings.Split(spec.Group, ".")) < 2:
		errs = append(errs, Invalid(sp.Child("group"), spec.Group, "should be a domain with at least one dot"))
	}
	errs = validateCRDNames(errs, &spec.Names, sp.Child("names"))
	switch spec.Scope {
	case "":
		errs = append(errs, Required(sp.Child("scope"), ""))
	case api.ClusterScoped, api.NamespaceScoped:
	default:
		errs = append(errs, NotSupported(sp.Child("scope"), spec.Scope, string(api.ClusterScoped), string(api.NamespaceScoped)))
	}
	if spec.Conversion != nil && spec.Conversion.Strategy != "None" {
		errs = append(errs, NotSupported(sp.Child("conversion").Child("strategy"), spec.Conversion.Strategy, "None"))
	}
	if spec.PreserveUnknownFields {
		errs = append(errs, Invalid(sp.Child("preserveUnknownFields"), true, "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead"))
	}
	vp := sp.Child("versions")
	if len(spec.Versions) == 0 {
		return append(errs, Invalid(vp, spec.Versions, "must have exactly one version marked as storage version"))
	}
	// Identical schemas are one schema, at spec.validation, as the
	// conversion to the internal version moves them there.
	shared := identicalSchemas(spec.Versions)
	if shared {
		errs = validateCRDSchema(errs, spec.Versions[0].Schema.OpenAPIV3Schema, sp.Child("validation").Child("openAPIV3Schema"), rules)
	}
	storage, served := 0, 0
	seen := map[string]bool{}
	for i := range spec.Versions {
		v := &spec.Versions[i]
		p := vp.Index(i)
		if v.Storage {
			storage++
		}
		if v.Served {
			served++
		}
		if seen[v.Name] {
			errs = append(errs, Invalid(p.Child("name"), v.Name, "must appear only once"))
		}
		seen[v.Name] = true
		if v.Name == "" {
			errs = append(errs, Required(p.Child("name"), ""))
		} else if msgs := dns1035LabelMsgs(v.Name); len(msgs) > 0 {
			errs = append(errs, Invalid(p.Child("name"), v.Name, strings.Join(msgs, ",")))
		}
		errs = validateCRDVersion(errs, v, p, shared, rules)
	}
	if storage != 1 {
		errs = append(errs, Invalid(vp, versionNames(spec.Versions), "must have exactly one version marked as storage version"))
	}
	if served == 0 {
		errs = append(errs, Invalid(vp, versionNames(spec.Versions), "must have at least one version marked as served"))
	}
	return errs
}

// versionNames is the bad value of the version-count errors, readable where Kubernetes
// prints the whole list in Go syntax.
func versionNames(vs []api.CustomResourceDefinitionVersion) string {
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = v.Name
	}
	return "[" + strings.Join(names, " ") + "]"
}

func validateCRDNames(errs apierrors.FieldErrors, n *api.CustomResourceDefinitionNames, p Path) apierrors.FieldErrors {
	dns := func(field, value string, prefix string) {
		if value == "" {
			return
		}
		if msgs := dns1035LabelMsgs(strings.ToLower(value)); len(msgs) > 0 || (prefix == "" && value != strings.ToLower(value)) {
			if len(msgs) == 0 {
				msgs = dns1035LabelMsgs(value)
			}
			errs = append(errs, Invalid(p.Child(field), value, prefix+strings.Join(msgs, ",")))
		}
	}
	dns("plural", n.Plural, "")
	dns("singular", n.Singular, "")
	dns("kind", n.Kind, "may have mixed case, but should otherwise match: ")
	dns("listKind", n.ListKind, "may have mixed case, but should otherwise match: ")
	for i, s := range n.ShortNames {
		if msgs := dns1035LabelMsgs(s); len(msgs) > 0 {
			errs = append(errs, Invalid(p.Child("shortNames").Index(i), s, strings.Join(msgs, ",")))
		}
	}
	for i, c := range n.Categories {
		if msgs := dns1035LabelMsgs(c); len(msgs) > 0 {
			errs = append(errs, Invalid(p.Child("categories").Index(i), c, strings.Join(msgs, ",")))
		}
	}
	if n.Plural == "" {
		errs = append(errs, Required(p.Child("plural"), ""))
	}
	if n.Singular == "" {
		errs = append(errs, Required(p.Child("singular"), ""))
	}
	if n.Kind == "" {
		errs = append(errs, Required(p.Child("kind"), ""))
	}
	if n.ListKind == "" {
		errs = append(errs, Required(p.Child("listKind"), ""))
	}
	if n.Kind != "" && n.Kind == n.ListKind {
		errs = append(errs, Invalid(p.Child("listKind"), n.ListKind, "kind and listKind may not be the same"))
	}
	return errs
}

// identicalSchemas reports whether every version has the same schema.
// Kubernetes: hasIdenticalPerVersionSchema.
func identicalSchemas(vs []api.CustomResourceDefinitionVersion) bool {
	for _, v := range vs {
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil || !reflect.DeepEqual(v.Schema, vs[0].Schema) {
			return false
		}
	}
	return len(vs) > 0
}

// validateCRDSchema checks one schema at sp: structural, then its CEL rules
// compile within their cost budget.
func validateCRDSchema(errs apierrors.FieldErrors, root *api.JSONSchemaProps, sp Path, rules *celrules.Compiler) apierrors.FieldErrors {
	before := len(errs)
	if root.Type != "object" {
		errs = append(errs, Invalid(sp.Child("type"), root.Type, "must be object at the root"))
	}
	errs = validateStructural(errs, root, sp, true)
	if hasSchemaURL(root) {
		// Refused by structuralschema.NewStructural, not by a field's rule.
		errs = append(errs, Invalid(sp, "", "OpenAPIV3Schema 'schema' is not supported"))
	}
	if len(errs) > before {
		// Kubernetes compiles rules only against a schema that is sound.
		return errs
	}
	_, ruleErrs := rules.Compile(root, string(sp))
	return append(errs, ruleErrs...)
}

func validateCRDVersion(errs apierrors.FieldErrors, v *api.CustomResourceDefinitionVersion, p Path, shared bool, rules *celrules.Compiler) apierrors.FieldErrors {
	switch {
	case v.Schema == nil || v.Schema.OpenAPIV3Schema == nil:
		errs = append(errs, Required(p.Child("schema").Child("openAPIV3Schema"), "schemas are required"))
	case !shared:
		errs = validateCRDSchema(errs, v.Schema.OpenAPIV3Schema, p.Child("schema").Child("openAPIV3Schema"), rules)
	}
	if v.DeprecationWarning != nil && !v.Deprecated {
		errs = append(errs, Invalid(p.Child("deprecationWarning"), *v.DeprecationWarning, "can only be set for deprecated versions"))
	}
	if sub := v.Subresources; sub != nil && sub.Scale != nil {
		sc := sub.Scale
		sp := p.Child("subresources").Child("scale")
		if !validSpecPath(sc.SpecReplicasPath, ".spec") {
			errs = append(errs, Invalid(sp.Child("specReplicasPath"), sc.SpecReplicasPath, "should be a json path under .spec"))
		}
		if !validSpecPath(sc.StatusReplicasPath, ".status") {
			errs = append(errs, Invalid(sp.Child("statusReplicasPath"), sc.StatusReplicasPath, "should be a json path under .status"))
		}
		if sc.LabelSelectorPath != nil && !validSpecPath(*sc.LabelSelectorPath, ".spec") && !validSpecPath(*sc.LabelSelectorPath, ".status") {
			errs = append(errs, Invalid(sp.Child("labelSelectorPath"), *sc.LabelSelectorPath, "should be a json path under either .spec or .status"))
		}
	}
	cols := map[string]bool{}
	for i, c := range v.AdditionalPrinterColumns {
		cp := p.Child("additionalPrinterColumns").Index(i)
		if c.Name == "" {
			errs = append(errs, Required(cp.Child("name"), ""))
		} else if cols[c.Name] {
			errs = append(errs, Duplicate(cp.Child("name"), c.Name))
		}
		cols[c.Name] = true
		if !slices.Contains([]string{"integer", "number", "string", "boolean", "date"}, c.Type) {
			errs = append(errs, NotSupported(cp.Child("type"), c.Type, "integer", "number", "string", "boolean", "date"))
		}
		if c.JSONPath == "" {
			errs = append(errs, Required(cp.Child("JSONPath"), ""))
		} else if simpleJSONPath(c.JSONPath) == nil {
			errs = append(errs, Invalid(cp.Child("JSONPath"), c.JSONPath, "miniplane understands only field paths such as .spec.replicas"))
		}
	}
	if v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
		errs = validateSelectableFields(errs, v.SelectableFields, v.Schema.OpenAPIV3Schema, p.Child("selectableFields"))
	}
	return errs
}

// maxSelectableFields is how many distinct selectable fields a version
// may have. Kubernetes: validation.MaxSelectableFields.
const maxSelectableFields = 8

// validateSelectableFields checks a version's selectable fields against its
// schema: each a field path without array notation to a string, boolean or
// integer field outside metadata, none twice, at most eight. Kubernetes:
// ValidateCustomResourceSelectableFields.
func validateSelectableFields(errs apierrors.FieldErrors, fields []api.SelectableField, root *api.JSONSchemaProps, p Path) apierrors.FieldErrors {
	seen := map[Path]bool{}
	for i, f := range fields {
		fp := p.Index(i).Child("jsonPath")
		if f.JSONPath == "" {
			errs = append(errs, Required(fp, ""))
			continue
		}
		path, found, err := schemaFieldPath(f.JSONPath, root)
		if err != nil {
			errs = append(errs, Invalid(fp, f.JSONPath, "is an invalid path: "+err.Error()))
			continue
		}
		if path == "metadata" || strings.HasPrefix(string(path), "metadata.") || strings.HasPrefix(string(path), "metadata[") {
			errs = append(errs, Invalid(fp, f.JSONPath, "must not point to fields in metadata"))
		}
		if found == nil || (found.Type != "string" && found.Type != "boolean" && found.Type != "integer") {
			errs = append(errs, Invalid(fp, f.JSONPath, "must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed."))
		}
		if seen[path] {
			errs = append(errs, Duplicate(fp, f.JSONPath))
		}
		seen[path] = true
	}
	if len(seen) > maxSelectableFields {
		errs = append(errs, apierrors.FieldError{Type: api.CauseTypeFieldValueTooMany, Field: string(p), BadValue: len(seen),
			Detail: fmt.Sprintf("must have at most %d items", maxSelectableFields)})
	}
	return errs
}

// schemaFieldPath follows a JSON path of field names (".spec.color") through
// a schema: a name is a property where the schema has properties, else a
// key of its additionalProperties. It returns the path as errors write it
// and the schema it ends at, or an error in Kubernetes' words.
// Kubernetes: cel.ValidFieldPath without array notation.
func schemaFieldPath(jsonPath string, schema *api.JSONSchemaProps) (Path, *api.JSONSchemaProps, error) {
	var path Path
	tokens := fieldPathTokens(jsonPath)
	for i := 0; i < len(tokens); i++ {
		switch tokens[i] {
		case "[":
			return "", nil, errors.New("array notation is not allowed")
		case ".":
			i++
			if i == len(tokens) {
				return "", nil, errors.New("unexpected end of JSON path")
			}
			name := tokens[i]
			switch {
			case schema.Properties != nil:
				next, ok := schema.Properties[name]
				if !ok {
					return "", nil, errors.New("does not refer to a valid field")
				}
				path, schema = path.Child(name), &next
			case schema.AdditionalProperties != nil:
				path, schema = path.Key(name), schema.AdditionalProperties.Schema
				if schema == nil {
					schema = &api.JSONSchemaProps{} // values of any kind: nothing below
				}
			default:
				return "", nil, errors.New("does not refer to a valid field")
			}
		default:
			return "", nil, fmt.Errorf("expected [ or . but got: %s", tokens[i])
		}
	}
	return path, schema, nil
}

// fieldPathTokens splits a JSON path into ".", "[", "]" and the text
// between them, a single-quoted string being one token.
func fieldPathTokens(s string) []string {
	var out []string
	for len(s) > 0 {
		if s[0] == '\'' {
			end := len(s)
			for i := 1; i < len(s); i++ {
				if s[i] == '\'' && s[i-1] != '\\' {
					end = i + 1
					break
				}
			}
			out, s = append(out, s[:end]), s[end:]
			continue
		}
		i := strings.IndexAny(s, ".[]")
		switch {
		case i == 0:
			i = 1
		case i < 0:
			i = len(s)
		}
		out, s = append(out, s[:i]), s[i:]
	}
	return out
}

func validSpecPath(path, under string) bool {
	return strings.HasPrefix(path, under+".") && simpleJSONPath(path) != nil
}

var schemaTypes = []string{"array", "boolean", "integer", "number", "object", "string"}

// validateStructural checks the rules of a structural schema that pruning, defaulting
// and validation rely on: a type everywhere but where x-kubernetes-int-or-string or
// x-kubernetes-preserve-unknown-fields stands in for one, items for arrays, no
// additionalProperties beside properties, list-map keys on list-type map. Kubernetes:
// structuralschema.ValidateStructural, with its messages.
func validateStructural(errs apierrors.FieldErrors, s *api.JSONSchemaProps, p Path, root bool) apierrors.FieldErrors {
	switch {
	case s.Type == "" && !s.XIntOrString && !(s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields) && !root:
		errs = append(errs, Required(p.Child("type"), "must not be empty for specified object fields"))
	case s.Type != "" && !slices.Contains(schemaTypes, s.Type):
		errs = append(errs, NotSupported(p.Child("type"), s.Type, schemaTypes...))
	}
	if s.Type == "array" && s.ItemSchema() == nil {
		errs = append(errs, Required(p.Child("items"), "must be specified"))
	}
	errs = validateUnsupported(errs, s, p)
	errs = forbidRulesIn(errs, s, p)
	if len(s.Properties) > 0 && s.AdditionalProperties != nil && (s.AdditionalProperties.Schema != nil || s.AdditionalProperties.Allows) {
		errs = append(errs, Forbidden(p.Child("additionalProperties"), "additionalProperties and properties are mutual exclusive"))
	}
	if s.UniqueItems {
		errs = append(errs, Forbidden(p.Child("uniqueItems"), "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"))
	}
	if s.Pattern != "" {
		if _, err := compilePattern(s.Pattern); err != nil {
			errs = append(errs, Invalid(p.Child("pattern"), s.Pattern, "must be a valid regular expression, but isn't: "+err.Error()))
		}
	}
	if lt := s.XListType; lt != nil {
		switch *lt {
		case "atomic", "set":
		case "map":
			if len(s.XListMapKeys) == 0 {
				errs = append(errs, Required(p.Child("x-kubernetes-list-map-keys"), "must not be empty if x-kubernetes-list-type is map"))
			}
		default:
			errs = append(errs, NotSupported(p.Child("x-kubernetes-list-type"), *lt, "atomic", "map", "set"))
		}
	}
	for _, name := range sortedKeys(s.Properties) {
		ps := s.Properties[name]
		if root && (name == "metadata") && len(ps.Properties) > 0 {
			for _, f := range sortedKeys(ps.Properties) {
				if f != "name" && f != "generateName" {
					errs = append(errs, Forbidden(p.Child("properties").Key("metadata").Child("properties").Key(f), "must not be specified"))
				}
			}
		}
		errs = validateStructural(errs, &ps, p.Child("properties").Key(name), false)
	}
	if items := s.ItemSchema(); items != nil {
		errs = validateStructural(errs, items, p.Child("items"), false)
	}
	if ap := s.AdditionalProperties; ap != nil && ap.Schema != nil {
		errs = validateStructural(errs, ap.Schema, p.Child("additionalProperties"), false)
	}
	return errs
}

// forbidNestedRules refuses CEL rules in a value validation (allOf, anyOf,
// oneOf, not) and under it, as ValidateStructural does for definitions.
func forbidNestedRules(errs apierrors.FieldErrors, s *api.JSONSchemaProps, p Path) apierrors.FieldErrors {
	if len(s.XValidations) > 0 {
		errs = append(errs, Forbidden(p.Child("x-kubernetes-validations"), "must be empty to be structural"))
	}
	for _, name := range sortedKeys(s.Properties) {
		ps := s.Properties[name]
		errs = forbidNestedRules(errs, &ps, p.Child("properties").Key(name))
	}
	if items := s.ItemSchema(); items != nil {
		errs = forbidNestedRules(errs, items, p.Child("items"))
	}
	if ap := s.AdditionalProperties; ap != nil && ap.Schema != nil {
		errs = forbidNestedRules(errs, ap.Schema, p.Child("additionalProperties"))
	}
	return forbidRulesIn(errs, s, p)
}

// forbidRulesIn refuses CEL rules in s's value validations (allOf, anyOf,
// oneOf, not).
func forbidRulesIn(errs apierrors.FieldErrors, s *api.JSONSchemaProps, p Path) apierrors.FieldErrors {
	for i := range s.AllOf {
		errs = forbidNestedRules(errs, &s.AllOf[i], p.Child("allOf").Index(i))
	}
	for i := range s.AnyOf {
		errs = forbidNestedRules(errs, &s.AnyOf[i], p.Child("anyOf").Index(i))
	}
	for i := range s.OneOf {
		errs = forbidNestedRules(errs, &s.OneOf[i], p.Child("oneOf").Index(i))
	}
	if s.Not != nil {
		errs = forbidNestedRules(errs, s.Not, p.Child("not"))
	}
	return errs
}

// validateUnsupported refuses the JSON Schema a structural schema may not use, with
// apiextensions-apiserver's messages (validation.go, ValidateCustomResourceDefinitionOpenAPISchema).
func validateUnsupported(errs apierrors.FieldErrors, s *api.JSONSchemaProps, p Path) apierrors.FieldErrors {
	if s.ID != "" {
		errs = append(errs, Forbidden(p.Child("id"), "id is not supported"))
	}
	if s.AdditionalItems != nil {
		errs = append(errs, Forbidden(p.Child("additionalItems"), "additionalItems is not supported"))
	}
	if len(s.PatternProperties) != 0 {
		errs = append(errs, Forbidden(p.Child("patternProperties"), "patternProperties is not supported"))
	}
	if len(s.Definitions) != 0 {
		errs = append(errs, Forbidden(p.Child("definitions"), "definitions is not supported"))
	}
	if s.Dependencies != nil {
		errs = append(errs, Forbidden(p.Child("dependencies"), "dependencies is not supported"))
	}
	if s.Ref != nil {
		errs = append(errs, Forbidden(p.Child("$ref"), "$ref is not supported"))
	}
	if s.Items != nil && len(s.Items.JSONSchemas) != 0 {
		errs = append(errs, Forbidden(p.Child("items"), "items must be a schema object and not an array"))
	}
	return errs
}

// hasSchemaURL reports whether s, or a schema validateStructural walks under it, sets
// $schema.
func hasSchemaURL(s *api.JSONSchemaProps) bool {
	if s.Schema != "" {
		return true
	}
	for _, ps := range s.Properties {
		if hasSchemaURL(&ps) {
			return true
		}
	}
	if items := s.ItemSchema(); items != nil && hasSchemaURL(items) {
		return true
	}
	ap := s.AdditionalProperties
	return ap != nil && ap.Schema != nil && hasSchemaURL(ap.Schema)
}
