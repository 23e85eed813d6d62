package api

import (
	"encoding/json"
	"errors"
)

// CustomResourceDefinition adds a kind to the API at run time: its group, names, scope and
// versions, each version with the structural schema its objects are validated, pruned and
// defaulted against. The server serves the kind (as custom resources, [Unstructured]
// objects) once the definition is Established, and stops when it is deleted, deleting the
// objects with it. Kubernetes: apiextensionsv1.CustomResourceDefinition. It is served in
// JSON and in protobuf, as apiextensions-apiserver's generated.proto lays it out (its
// custom resources are JSON only).
type CustomResourceDefinition struct {
	TypeMeta `json:",inline"`
	// Metadata is the definition's identity; its name is spec.names.plural + "." + spec.group.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec describes the kind.
	Spec CustomResourceDefinitionSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	// Status says whether the kind is served, and under which names.
	Status CustomResourceDefinitionStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// GetObjectMeta returns the definition's metadata.
func (c *CustomResourceDefinition) GetObjectMeta() *ObjectMeta { return &c.Metadata }

// CustomResourceDefinitionList is a list of definitions. Kubernetes:
// apiextensionsv1.CustomResourceDefinitionList.
type CustomResourceDefinitionList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the definitions.
	Items []CustomResourceDefinition `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// Scopes of a custom resource.
const (
	// ClusterScoped objects live outside namespaces.
	ClusterScoped ResourceScope = "Cluster"
	// NamespaceScoped objects live in a namespace.
	NamespaceScoped ResourceScope = "Namespaced"
)

// ResourceScope is Namespaced or Cluster. Kubernetes: apiextensionsv1.ResourceScope.
type ResourceScope string

// CustomResourceDefinitionSpec describes a custom kind. Kubernetes:
// apiextensionsv1.CustomResourceDefinitionSpec.
type CustomResourceDefinitionSpec struct {
	// Group is the API group of the kind, a DNS subdomain with at least one dot
	// ("demo.example.com").
	Group string `json:"group" protobuf:"bytes,1,opt,name=group"`
	// Names are the kind's names in paths, discovery and kubectl.
	Names CustomResourceDefinitionNames `json:"names" protobuf:"bytes,3,opt,name=names"`
	// Scope is Namespaced or Cluster.
	Scope ResourceScope `json:"scope" protobuf:"bytes,4,opt,name=scope"`
	// Versions are the served versions; exactly one is the storage version.
	Versions []CustomResourceDefinitionVersion `json:"versions" protobuf:"bytes,7,rep,name=versions"`
	// Conversion says how objects convert between versions; only None is served.
	Conversion *CustomResourceConversion `json:"conversion,omitempty" protobuf:"bytes,9,opt,name=conversion"`
	// PreserveUnknownFields is deprecated and must be false in v1.
	PreserveUnknownFields bool `json:"preserveUnknownFields,omitempty" protobuf:"varint,10,opt,name=preserveUnknownFields"`
}

// CustomResourceConversion says how objects convert between versions. Kubernetes:
// apiextensionsv1.CustomResourceConversion.
type CustomResourceConversion struct {
	// Strategy is None (only apiVersion changes) or Webhook (not served here).
	Strategy string `json:"strategy" protobuf:"bytes,1,opt,name=strategy"`
}

// CustomResourceDefinitionNames are a custom kind's names. Kubernetes:
// apiextensionsv1.CustomResourceDefinitionNames.
type CustomResourceDefinitionNames struct {
	// Plural is the lower-case name in paths: "widgets".
	Plural string `json:"plural" protobuf:"bytes,1,opt,name=plural"`
	// Singular is the lower-case singular: "widget"; empty means the kind in lower case.
	Singular string `json:"singular,omitempty" protobuf:"bytes,2,opt,name=singular"`
	// ShortNames are kubectl's abbreviations.
	ShortNames []string `json:"shortNames,omitempty" protobuf:"bytes,3,rep,name=shortNames"`
	// Kind is the objects' kind in CamelCase: "Widget".
	Kind string `json:"kind" protobuf:"bytes,4,opt,name=kind"`
	// ListKind is the kind of a list: "WidgetList" when empty.
	ListKind string `json:"listKind,omitempty" protobuf:"bytes,5,opt,name=listKind"`
	// Categories group resources for `kubectl get all` and the like.
	Categories []string `json:"categories,omitempty" protobuf:"bytes,6,rep,name=categories"`
}

// CustomResourceDefinitionVersion is one version of a custom kind. Kubernetes:
// apiextensionsv1.CustomResourceDefinitionVersion.
type CustomResourceDefinitionVersion struct {
	// Name is the version in paths: "v1", "v1alpha1".
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// Served says whether the version is served.
	Served bool `json:"served" protobuf:"varint,2,opt,name=served"`
	// Storage says this is the version objects are stored in; exactly one has it.
	Storage bool `json:"storage" protobuf:"varint,3,opt,name=storage"`
	// Deprecated makes every request of the version carry a warning.
	Deprecated bool `json:"deprecated,omitempty" protobuf:"varint,7,opt,name=deprecated"`
	// DeprecationWarning replaces the default warning of a deprecated version.
	DeprecationWarning *string `json:"deprecationWarning,omitempty" protobuf:"bytes,8,opt,name=deprecationWarning"`
	// Schema is the version's structural schema.
	Schema *CustomResourceValidation `json:"schema,omitempty" protobuf:"bytes,4,opt,name=schema"`
	// Subresources are the status and scale subresources of the version.
	Subresources *CustomResourceSubresources `json:"subresources,omitempty" protobuf:"bytes,5,opt,name=subresources"`
	// AdditionalPrinterColumns are the columns `kubectl get` prints, between Name and Age.
	AdditionalPrinterColumns []CustomResourceColumnDefinition `json:"additionalPrinterColumns,omitempty" protobuf:"bytes,6,rep,name=additionalPrinterColumns"`
	// SelectableFields are extra field-selector fields, by JSON path.
	SelectableFields []SelectableField `json:"selectableFields,omitempty" protobuf:"bytes,9,rep,name=selectableFields"`
}

// CustomResourceValidation holds a version's schema. Kubernetes:
// apiextensionsv1.CustomResourceValidation.
type CustomResourceValidation struct {
	// OpenAPIV3Schema is the schema of the whole object.
	OpenAPIV3Schema *JSONSchemaProps `json:"openAPIV3Schema,omitempty" protobuf:"bytes,1,opt,name=openAPIV3Schema"`
}

// CustomResourceSubresources are a version's subresources. Kubernetes:
// apiextensionsv1.CustomResourceSubresources.
type CustomResourceSubresources struct {
	// Status, when set, serves /status: main writes ignore .status, status writes all else.
	Status *CustomResourceSubresourceStatus `json:"status,omitempty" protobuf:"bytes,1,opt,name=status"`
	// Scale, when set, serves /scale over the given paths.
	Scale *CustomResourceSubresourceScale `json:"scale,omitempty" protobuf:"bytes,2,opt,name=scale"`
}

// CustomResourceSubresourceStatus is empty: its presence turns the status subresource on.
// Kubernetes: apiextensionsv1.CustomResourceSubresourceStatus.
type CustomResourceSubresourceStatus struct{}

// CustomResourceSubresourceScale says where an object keeps what autoscaling/v1 Scale shows.
// Kubernetes: apiextensionsv1.CustomResourceSubresourceScale.
type CustomResourceSubresourceScale struct {
	// SpecReplicasPath is the JSON path of the desired replicas: ".spec.replicas".
	SpecReplicasPath string `json:"specReplicasPath" protobuf:"bytes,1,opt,name=specReplicasPath"`
	// StatusReplicasPath is the JSON path of the observed replicas: ".status.replicas".
	StatusReplicasPath string `json:"statusReplicasPath" protobuf:"bytes,2,opt,name=statusReplicasPath"`
	// LabelSelectorPath is the JSON path of the selector in string form, if any.
	LabelSelectorPath *string `json:"labelSelectorPath,omitempty" protobuf:"bytes,3,opt,name=labelSelectorPath"`
}

// CustomResourceColumnDefinition is one printer column. Kubernetes:
// apiextensionsv1.CustomResourceColumnDefinition.
type CustomResourceColumnDefinition struct {
	// Name is the column's header.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// Type is integer, number, string, boolean or date.
	Type string `json:"type" protobuf:"bytes,2,opt,name=type"`
	// Format is an OpenAPI format of the type, optional.
	Format string `json:"format,omitempty" protobuf:"bytes,3,opt,name=format"`
	// Description is the column's help text.
	Description string `json:"description,omitempty" protobuf:"bytes,4,opt,name=description"`
	// Priority 0 shows always; more only with -o wide.
	Priority int32 `json:"priority,omitempty" protobuf:"varint,5,opt,name=priority"`
	// JSONPath is the simple JSON path of the value: ".spec.replicas".
	JSONPath string `json:"jsonPath" protobuf:"bytes,6,opt,name=jsonPath"`
}

// SelectableField is one extra field-selector field. Kubernetes:
// apiextensionsv1.SelectableField.
type SelectableField struct {
	// JSONPath is the simple JSON path of a string, integer or boolean field.
	JSONPath string `json:"jsonPath" protobuf:"bytes,1,opt,name=jsonPath"`
}

// JSONSchemaProps is a structural OpenAPI v3 schema. Free JSON values (default, enum,
// example) are kept as raw JSON; on the protobuf wire each is a JSON message {bytes raw = 1},
// and numbers are doubles and int64s, as in generated.proto. ID, Schema, Ref,
// PatternProperties, Dependencies, AdditionalItems and Definitions are JSON Schema that a
// structural schema may not use: they are carried so that a definition reads back as it
// was sent, and validation refuses them as apiextensions-apiserver does. Kubernetes:
// apiextensionsv1.JSONSchemaProps.
type JSONSchemaProps struct {
	// ID is not supported in a structural schema.
	ID string `json:"id,omitempty" protobuf:"bytes,1,opt,name=id"`
	// Schema ($schema) is not supported in a structural schema.
	Schema string `json:"$schema,omitempty" protobuf:"bytes,2,opt,name=schema"`
	// Ref ($ref) is not supported in a structural schema.
	Ref *string `json:"$ref,omitempty" protobuf:"bytes,3,opt,name=ref"`
	// Description is the field's documentation (kubectl explain prints it).
	Description string `json:"description,omitempty" protobuf:"bytes,4,opt,name=description"`
	// Type is object, array, string, integer, number or boolean.
	Type string `json:"type,omitempty" protobuf:"bytes,5,opt,name=type"`
	// Format refines the type: int32, int64, date-time, ...
	Format string `json:"format,omitempty" protobuf:"bytes,6,opt,name=format"`
	// Title is a short description.
	Title string `json:"title,omitempty" protobuf:"bytes,7,opt,name=title"`
	// Default is the value a missing field takes.
	Default json.RawMessage `json:"default,omitempty" protobuf:"bytes,8,opt,name=default"`
	// Maximum bounds a number from above (exclusively with ExclusiveMaximum).
	Maximum *float64 `json:"maximum,omitempty" protobuf:"fixed64,9,opt,name=maximum"`
	// ExclusiveMaximum makes Maximum exclusive.
	ExclusiveMaximum bool `json:"exclusiveMaximum,omitempty" protobuf:"varint,10,opt,name=exclusiveMaximum"`
	// Minimum bounds a number from below (exclusively with ExclusiveMinimum).
	Minimum *float64 `json:"minimum,omitempty" protobuf:"fixed64,11,opt,name=minimum"`
	// ExclusiveMinimum makes Minimum exclusive.
	ExclusiveMinimum bool `json:"exclusiveMinimum,omitempty" protobuf:"varint,12,opt,name=exclusiveMinimum"`
	// MaxLength bounds a string's length in characters.
	MaxLength *int64 `json:"maxLength,omitempty" protobuf:"varint,13,opt,name=maxLength"`
	// MinLength bounds a string's length in characters.
	MinLength *int64 `json:"minLength,omitempty" protobuf:"varint,14,opt,name=minLength"`
	// Pattern is a regular expression a string must match.
	Pattern string `json:"pattern,omitempty" protobuf:"bytes,15,opt,name=pattern"`
	// MaxItems bounds an array's length.
	MaxItems *int64 `json:"maxItems,omitempty" protobuf:"varint,16,opt,name=maxItems"`
	// MinItems bounds an array's length.
	MinItems *int64 `json:"minItems,omitempty" protobuf:"varint,17,opt,name=minItems"`
	// UniqueItems must be false in a structural schema (use x-kubernetes-list-type: set).
	UniqueItems bool `json:"uniqueItems,omitempty" protobuf:"varint,18,opt,name=uniqueItems"`
	// MultipleOf makes a number a multiple of it.
	MultipleOf *float64 `json:"multipleOf,omitempty" protobuf:"fixed64,19,opt,name=multipleOf"`
	// Enum lists the values allowed.
	Enum []json.RawMessage `json:"enum,omitempty" protobuf:"bytes,20,rep,name=enum"`
	// MaxProperties bounds an object's number of properties.
	MaxProperties *int64 `json:"maxProperties,omitempty" protobuf:"varint,21,opt,name=maxProperties"`
	// MinProperties bounds an object's number of properties.
	MinProperties *int64 `json:"minProperties,omitempty" protobuf:"varint,22,opt,name=minProperties"`
	// Required lists the properties an object must have.
	Required []string `json:"required,omitempty" protobuf:"bytes,23,rep,name=required"`
	// Items is the schema of an array's elements (the array form is not structural).
	Items *JSONSchemaPropsOrArray `json:"items,omitempty" protobuf:"bytes,24,opt,name=items"`
	// AllOf is value validations every one of which must hold (no types or defaults in them).
	AllOf []JSONSchemaProps `json:"allOf,omitempty" protobuf:"bytes,25,rep,name=allOf"`
	// OneOf is value validations exactly one of which must hold.
	OneOf []JSONSchemaProps `json:"oneOf,omitempty" protobuf:"bytes,26,rep,name=oneOf"`
	// AnyOf is value validations one of which must hold.
	AnyOf []JSONSchemaProps `json:"anyOf,omitempty" protobuf:"bytes,27,rep,name=anyOf"`
	// Not is a value validation that must not hold.
	Not *JSONSchemaProps `json:"not,omitempty" protobuf:"bytes,28,opt,name=not"`
	// Properties are an object's fields by name.
	Properties map[string]JSONSchemaProps `json:"properties,omitempty" protobuf:"bytes,29,rep,name=properties" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	// AdditionalProperties is the schema of a map's values, or whether any are allowed.
	AdditionalProperties *JSONSchemaPropsOrBool `json:"additionalProperties,omitempty" protobuf:"bytes,30,opt,name=additionalProperties"`
	// PatternProperties is not supported in a structural schema.
	PatternProperties map[string]JSONSchemaProps `json:"patternProperties,omitempty" protobuf:"bytes,31,rep,name=patternProperties" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	// Dependencies is not supported in a structural schema.
	Dependencies map[string]JSONSchemaPropsOrStringArray `json:"dependencies,omitempty" protobuf:"bytes,32,rep,name=dependencies" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	// AdditionalItems is not supported in a structural schema.
	AdditionalItems *JSONSchemaPropsOrBool `json:"additionalItems,omitempty" protobuf:"bytes,33,opt,name=additionalItems"`
	// Definitions is not supported in a structural schema.
	Definitions map[string]JSONSchemaProps `json:"definitions,omitempty" protobuf:"bytes,34,rep,name=definitions" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
	// ExternalDocs points to more documentation.
	ExternalDocs *ExternalDocumentation `json:"externalDocs,omitempty" protobuf:"bytes,35,opt,name=externalDocs"`
	// Example is an example value.
	Example json.RawMessage `json:"example,omitempty" protobuf:"bytes,36,opt,name=example"`
	// Nullable allows null, which is otherwise pruned... or refused.
	Nullable bool `json:"nullable,omitempty" protobuf:"varint,37,opt,name=nullable"`
	// XPreserveUnknownFields keeps fields the schema does not name.
	XPreserveUnknownFields *bool `json:"x-kubernetes-preserve-unknown-fields,omitempty" protobuf:"varint,38,opt,name=xKubernetesPreserveUnknownFields"`
	// XEmbeddedResource says the value is a whole object (apiVersion, kind, metadata).
	XEmbeddedResource bool `json:"x-kubernetes-embedded-resource,omitempty" protobuf:"varint,39,opt,name=xKubernetesEmbeddedResource"`
	// XIntOrString allows an integer or a string.
	XIntOrString bool `json:"x-kubernetes-int-or-string,omitempty" protobuf:"varint,40,opt,name=xKubernetesIntOrString"`
	// XListMapKeys are the keys of a list of type map.
	XListMapKeys []string `json:"x-kubernetes-list-map-keys,omitempty" protobuf:"bytes,41,rep,name=xKubernetesListMapKeys"`
	// XListType is atomic, set or map.
	XListType *string `json:"x-kubernetes-list-type,omitempty" protobuf:"bytes,42,opt,name=xKubernetesListType"`
	// XMapType is granular or atomic.
	XMapType *string `json:"x-kubernetes-map-type,omitempty" protobuf:"bytes,43,opt,name=xKubernetesMapType"`
	// XValidations are CEL rules the value must keep.
	XValidations []ValidationRule `json:"x-kubernetes-validations,omitempty" patchStrategy:"merge" patchMergeKey:"rule" protobuf:"bytes,44,rep,name=xKubernetesValidations"`
}

// ItemSchema returns the schema of an array's elements: the schema form of Items, or nil
// when there is none (no items, or the array form, which validation refuses).
func (s *JSONSchemaProps) ItemSchema() *JSONSchemaProps {
	if s.Items == nil {
		return nil
	}
	return s.Items.Schema
}

// ExternalDocumentation points to documentation outside the schema. Kubernetes:
// apiextensionsv1.ExternalDocumentation.
type ExternalDocumentation struct {
	// Description says what is there.
	Description string `json:"description,omitempty" protobuf:"bytes,1,opt,name=description"`
	// URL is where it is.
	URL string `json:"url,omitempty" protobuf:"bytes,2,opt,name=url"`
}

// JSONSchemaPropsOrArray is a schema or an array of schemas (items of a tuple). In JSON it
// is the one or the other; in protobuf a message {schema = 1; repeated jSONSchemas = 2}.
// Only the schema form is structural. Kubernetes: apiextensionsv1.JSONSchemaPropsOrArray.
type JSONSchemaPropsOrArray struct {
	// Schema is the schema form.
	Schema *JSONSchemaProps `protobuf:"bytes,1,opt,name=schema"`
	// JSONSchemas is the array form; when set, it is what JSON shows.
	JSONSchemas []JSONSchemaProps `protobuf:"bytes,2,rep,name=jSONSchemas"`
}

// MarshalJSON writes the array when there is one, else the schema (null when neither).
func (s JSONSchemaPropsOrArray) MarshalJSON() ([]byte, error) {
	if len(s.JSONSchemas) > 0 {
		return json.Marshal(s.JSONSchemas)
	}
	return json.Marshal(s.Schema)
}

// UnmarshalJSON reads a schema or an array of schemas.
func (s *JSONSchemaPropsOrArray) UnmarshalJSON(b []byte) error {
	var nw JSONSchemaPropsOrArray
	switch jsonFirstByte(b) {
	case '{':
		nw.Schema = new(JSONSchemaProps)
		if err := json.Unmarshal(b, nw.Schema); err != nil {
			return err
		}
	case '[':
		if err := json.Unmarshal(b, &nw.JSONSchemas); err != nil {
			return err
		}
	case 'n':
	default:
		return errors.New("a JSON schema or an array of them expected")
	}
	*s = nw
	return nil
}

// JSONSchemaPropsOrBool is a schema, or true or false (any or no additional properties).
// In protobuf it is a message {bool allows = 1; schema = 2}. Kubernetes:
// apiextensionsv1.JSONSchemaPropsOrBool.
type JSONSchemaPropsOrBool struct {
	// Allows is the boolean form; with a Schema it is true.
	Allows bool `protobuf:"varint,1,opt,name=allows"`
	// Schema is the schema form.
	Schema *JSONSchemaProps `protobuf:"bytes,2,opt,name=schema"`
}

// MarshalJSON writes the schema, or the boolean when there is none.
func (s JSONSchemaPropsOrBool) MarshalJSON() ([]byte, error) {
	if s.Schema != nil {
		return json.Marshal(s.Schema)
	}
	return json.Marshal(s.Allows)
}

// UnmarshalJSON reads a schema or a boolean.
func (s *JSONSchemaPropsOrBool) UnmarshalJSON(b []byte) error {
	var allows bool
	if err := json.Unmarshal(b, &allows); err == nil {
		*s = JSONSchemaPropsOrBool{Allows: allows}
		return nil
	}
	var sch JSONSchemaProps
	if err := json.Unmarshal(b, &sch); err != nil {
		return err
	}
	*s = JSONSchemaPropsOrBool{Allows: true, Schema: &sch}
	return nil
}

// JSONSchemaPropsOrStringArray is a schema or a list of property names (a dependency). In
// protobuf it is a message {schema = 1; repeated string property = 2}. Kubernetes:
// apiextensionsv1.JSONSchemaPropsOrStringArray.
type JSONSchemaPropsOrStringArray struct {
	// Schema is the schema form.
	Schema *JSONSchemaProps `protobuf:"bytes,1,opt,name=schema"`
	// Property is the list form; when set, it is what JSON shows.
	Property []string `protobuf:"bytes,2,rep,name=property"`
}

// MarshalJSON writes the list when there is one, else the schema (null when neither).
func (s JSONSchemaPropsOrStringArray) MarshalJSON() ([]byte, error) {
	if len(s.Property) > 0 {
		return json.Marshal(s.Property)
	}
	return json.Marshal(s.Schema)
}

// UnmarshalJSON reads a schema or a list of property names.
func (s *JSONSchemaPropsOrStringArray) UnmarshalJSON(b []byte) error {
	var nw JSONSchemaPropsOrStringArray
	switch jsonFirstByte(b) {
	case '{':
		nw.Schema = new(JSONSchemaProps)
		if err := json.Unmarshal(b, nw.Schema); err != nil {
			return err
		}
	case '[':
		if err := json.Unmarshal(b, &nw.Property); err != nil {
			return err
		}
	case 'n':
	default:
		return errors.New("a JSON schema or an array of property names expected")
	}
	*s = nw
	return nil
}

// jsonFirstByte returns the first byte of a JSON value, which encoding/json hands over without
// leading space; 0 for none.
func jsonFirstByte(b []byte) byte {
	if len(b) == 0 {
		return 0
	}
	return b[0]
}

// ValidationRule is one CEL rule of x-kubernetes-validations. Kubernetes:
// apiextensionsv1.ValidationRule.
type ValidationRule struct {
	// Rule is the CEL expression; self is the value, oldSelf the old one on update.
	Rule string `json:"rule" protobuf:"bytes,1,opt,name=rule"`
	// Message is the error when the rule is false.
	Message string `json:"message,omitempty" protobuf:"bytes,2,opt,name=message"`
	// MessageExpression is a CEL expression giving the message.
	MessageExpression string `json:"messageExpression,omitempty" protobuf:"bytes,3,opt,name=messageExpression"`
	// Reason is FieldValueInvalid (default), FieldValueForbidden, FieldValueRequired or
	// FieldValueDuplicate.
	Reason *string `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	// FieldPath is the path, relative to the value, that the error names.
	FieldPath string `json:"fieldPath,omitempty" protobuf:"bytes,5,opt,name=fieldPath"`
	// OptionalOldSelf runs a transition rule on create too, with oldSelf unset.
	OptionalOldSelf *bool `json:"optionalOldSelf,omitempty" protobuf:"varint,6,opt,name=optionalOldSelf"`
}

// CustomResourceDefinitionStatus says whether the kind is served. Kubernetes:
// apiextensionsv1.CustomResourceDefinitionStatus.
type CustomResourceDefinitionStatus struct {
	// Conditions are NamesAccepted and Established.
	Conditions []CustomResourceDefinitionCondition `json:"conditions" protobuf:"bytes,1,rep,name=conditions"`
	// AcceptedNames are the names the kind is served under.
	AcceptedNames CustomResourceDefinitionNames `json:"acceptedNames" protobuf:"bytes,2,opt,name=acceptedNames"`
	// StoredVersions are every version objects were ever stored in.
	StoredVersions []string `json:"storedVersions" protobuf:"bytes,3,rep,name=storedVersions"`
}

// Condition types of a CustomResourceDefinition.
const (
	// CRDEstablished is True once the kind is served.
	CRDEstablished = "Established"
	// CRDNamesAccepted is True when no other kind holds the names.
	CRDNamesAccepted = "NamesAccepted"
)

// CustomResourceDefinitionCondition is one fact about a definition. Kubernetes:
// apiextensionsv1.CustomResourceDefinitionCondition.
type CustomResourceDefinitionCondition struct {
	// Type is Established or NamesAccepted.
	Type string `json:"type" protobuf:"bytes,1,opt,name=type"`
	// Status is True, False or Unknown.
	Status ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status"`
	// LastTransitionTime is when Status last changed.
	LastTransitionTime Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	// Reason is a one-word CamelCase reason.
	Reason string `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	// Message is for humans.
	Message string `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}
