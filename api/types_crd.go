package api

import "encoding/json"

// CustomResourceDefinition adds a kind to the API at run time: its group, names, scope and
// versions, each version with the structural schema its objects are validated, pruned and
// defaulted against. The server serves the kind (as custom resources, [Unstructured]
// objects) once the definition is Established, and stops when it is deleted, deleting the
// objects with it. Kubernetes: apiextensionsv1.CustomResourceDefinition. It is served in
// JSON only: miniplane's protobuf codec does not carry its schemas' free JSON values.
type CustomResourceDefinition struct {
	TypeMeta `json:",inline"`
	// Metadata is the definition's identity; its name is spec.names.plural + "." + spec.group.
	Metadata ObjectMeta `json:"metadata,omitempty"`
	// Spec describes the kind.
	Spec CustomResourceDefinitionSpec `json:"spec"`
	// Status says whether the kind is served, and under which names.
	Status CustomResourceDefinitionStatus `json:"status,omitempty"`
}

// GetObjectMeta returns the definition's metadata.
func (c *CustomResourceDefinition) GetObjectMeta() *ObjectMeta { return &c.Metadata }

// CustomResourceDefinitionList is a list of definitions. Kubernetes:
// apiextensionsv1.CustomResourceDefinitionList.
type CustomResourceDefinitionList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty"`
	// Items are the definitions.
	Items []CustomResourceDefinition `json:"items"`
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
	Group string `json:"group"`
	// Names are the kind's names in paths, discovery and kubectl.
	Names CustomResourceDefinitionNames `json:"names"`
	// Scope is Namespaced or Cluster.
	Scope ResourceScope `json:"scope"`
	// Versions are the served versions; exactly one is the storage version.
	Versions []CustomResourceDefinitionVersion `json:"versions"`
	// Conversion says how objects convert between versions; only None is served.
	Conversion *CustomResourceConversion `json:"conversion,omitempty"`
	// PreserveUnknownFields is deprecated and must be false in v1.
	PreserveUnknownFields bool `json:"preserveUnknownFields,omitempty"`
}

// CustomResourceConversion says how objects convert between versions. Kubernetes:
// apiextensionsv1.CustomResourceConversion.
type CustomResourceConversion struct {
	// Strategy is None (only apiVersion changes) or Webhook (not served here).
	Strategy string `json:"strategy"`
}

// CustomResourceDefinitionNames are a custom kind's names. Kubernetes:
// apiextensionsv1.CustomResourceDefinitionNames.
type CustomResourceDefinitionNames struct {
	// Plural is the lower-case name in paths: "widgets".
	Plural string `json:"plural"`
	// Singular is the lower-case singular: "widget"; empty means the kind in lower case.
	Singular string `json:"singular,omitempty"`
	// ShortNames are kubectl's abbreviations.
	ShortNames []string `json:"shortNames,omitempty"`
	// Kind is the objects' kind in CamelCase: "Widget".
	Kind string `json:"kind"`
	// ListKind is the kind of a list: "WidgetList" when empty.
	ListKind string `json:"listKind,omitempty"`
	// Categories group resources for `kubectl get all` and the like.
	Categories []string `json:"categories,omitempty"`
}

// CustomResourceDefinitionVersion is one version of a custom kind. Kubernetes:
// apiextensionsv1.CustomResourceDefinitionVersion.
type CustomResourceDefinitionVersion struct {
	// Name is the version in paths: "v1", "v1alpha1".
	Name string `json:"name"`
	// Served says whether the version is served.
	Served bool `json:"served"`
	// Storage says this is the version objects are stored in; exactly one has it.
	Storage bool `json:"storage"`
	// Deprecated makes every request of the version carry a warning.
	Deprecated bool `json:"deprecated,omitempty"`
	// DeprecationWarning replaces the default warning of a deprecated version.
	DeprecationWarning *string `json:"deprecationWarning,omitempty"`
	// Schema is the version's structural schema.
	Schema *CustomResourceValidation `json:"schema,omitempty"`
	// Subresources are the status and scale subresources of the version.
	Subresources *CustomResourceSubresources `json:"subresources,omitempty"`
	// AdditionalPrinterColumns are the columns `kubectl get` prints, between Name and Age.
	AdditionalPrinterColumns []CustomResourceColumnDefinition `json:"additionalPrinterColumns,omitempty"`
	// SelectableFields are extra field-selector fields, by JSON path.
	SelectableFields []SelectableField `json:"selectableFields,omitempty"`
}

// CustomResourceValidation holds a version's schema. Kubernetes:
// apiextensionsv1.CustomResourceValidation.
type CustomResourceValidation struct {
	// OpenAPIV3Schema is the schema of the whole object.
	OpenAPIV3Schema *JSONSchemaProps `json:"openAPIV3Schema,omitempty"`
}

// CustomResourceSubresources are a version's subresources. Kubernetes:
// apiextensionsv1.CustomResourceSubresources.
type CustomResourceSubresources struct {
	// Status, when set, serves /status: main writes ignore .status, status writes all else.
	Status *CustomResourceSubresourceStatus `json:"status,omitempty"`
	// Scale, when set, serves /scale over the given paths.
	Scale *CustomResourceSubresourceScale `json:"scale,omitempty"`
}

// CustomResourceSubresourceStatus is empty: its presence turns the status subresource on.
// Kubernetes: apiextensionsv1.CustomResourceSubresourceStatus.
type CustomResourceSubresourceStatus struct{}

// CustomResourceSubresourceScale says where an object keeps what autoscaling/v1 Scale shows.
// Kubernetes: apiextensionsv1.CustomResourceSubresourceScale.
type CustomResourceSubresourceScale struct {
	// SpecReplicasPath is the JSON path of the desired replicas: ".spec.replicas".
	SpecReplicasPath string `json:"specReplicasPath"`
	// StatusReplicasPath is the JSON path of the observed replicas: ".status.replicas".
	StatusReplicasPath string `json:"statusReplicasPath"`
	// LabelSelectorPath is the JSON path of the selector in string form, if any.
	LabelSelectorPath *string `json:"labelSelectorPath,omitempty"`
}

// CustomResourceColumnDefinition is one printer column. Kubernetes:
// apiextensionsv1.CustomResourceColumnDefinition.
type CustomResourceColumnDefinition struct {
	// Name is the column's header.
	Name string `json:"name"`
	// Type is integer, number, string, boolean or date.
	Type string `json:"type"`
	// Format is an OpenAPI format of the type, optional.
	Format string `json:"format,omitempty"`
	// Description is the column's help text.
	Description string `json:"description,omitempty"`
	// Priority 0 shows always; more only with -o wide.
	Priority int32 `json:"priority,omitempty"`
	// JSONPath is the simple JSON path of the value: ".spec.replicas".
	JSONPath string `json:"jsonPath"`
}

// SelectableField is one extra field-selector field. Kubernetes:
// apiextensionsv1.SelectableField.
type SelectableField struct {
	// JSONPath is the simple JSON path of a string, integer or boolean field.
	JSONPath string `json:"jsonPath"`
}

// JSONSchemaProps is a structural OpenAPI v3 schema. Free JSON values (default, enum,
// example) are kept as raw JSON. Kubernetes: apiextensionsv1.JSONSchemaProps.
type JSONSchemaProps struct {
	// Description is the field's documentation (kubectl explain prints it).
	Description string `json:"description,omitempty"`
	// Type is object, array, string, integer, number or boolean.
	Type string `json:"type,omitempty"`
	// Format refines the type: int32, int64, date-time, ...
	Format string `json:"format,omitempty"`
	// Title is a short description.
	Title string `json:"title,omitempty"`
	// Default is the value a missing field takes.
	Default json.RawMessage `json:"default,omitempty"`
	// Maximum bounds a number from above (exclusively with ExclusiveMaximum).
	Maximum *float64 `json:"maximum,omitempty"`
	// ExclusiveMaximum makes Maximum exclusive.
	ExclusiveMaximum bool `json:"exclusiveMaximum,omitempty"`
	// Minimum bounds a number from below (exclusively with ExclusiveMinimum).
	Minimum *float64 `json:"minimum,omitempty"`
	// ExclusiveMinimum makes Minimum exclusive.
	ExclusiveMinimum bool `json:"exclusiveMinimum,omitempty"`
	// MaxLength bounds a string's length in characters.
	MaxLength *int64 `json:"maxLength,omitempty"`
	// MinLength bounds a string's length in characters.
	MinLength *int64 `json:"minLength,omitempty"`
	// Pattern is a regular expression a string must match.
	Pattern string `json:"pattern,omitempty"`
	// MaxItems bounds an array's length.
	MaxItems *int64 `json:"maxItems,omitempty"`
	// MinItems bounds an array's length.
	MinItems *int64 `json:"minItems,omitempty"`
	// UniqueItems must be false in a structural schema (use x-kubernetes-list-type: set).
	UniqueItems bool `json:"uniqueItems,omitempty"`
	// MultipleOf makes a number a multiple of it.
	MultipleOf *float64 `json:"multipleOf,omitempty"`
	// Enum lists the values allowed.
	Enum []json.RawMessage `json:"enum,omitempty"`
	// MaxProperties bounds an object's number of properties.
	MaxProperties *int64 `json:"maxProperties,omitempty"`
	// MinProperties bounds an object's number of properties.
	MinProperties *int64 `json:"minProperties,omitempty"`
	// Required lists the properties an object must have.
	Required []string `json:"required,omitempty"`
	// Items is the schema of an array's elements.
	Items *JSONSchemaProps `json:"items,omitempty"`
	// AllOf is value validations every one of which must hold (no types or defaults in them).
	AllOf []JSONSchemaProps `json:"allOf,omitempty"`
	// OneOf is value validations exactly one of which must hold.
	OneOf []JSONSchemaProps `json:"oneOf,omitempty"`
	// AnyOf is value validations one of which must hold.
	AnyOf []JSONSchemaProps `json:"anyOf,omitempty"`
	// Not is a value validation that must not hold.
	Not *JSONSchemaProps `json:"not,omitempty"`
	// Properties are an object's fields by name.
	Properties map[string]JSONSchemaProps `json:"properties,omitempty"`
	// AdditionalProperties is the schema of a map's values, or whether any are allowed.
	AdditionalProperties *JSONSchemaPropsOrBool `json:"additionalProperties,omitempty"`
	// Example is an example value.
	Example json.RawMessage `json:"example,omitempty"`
	// Nullable allows null, which is otherwise pruned... or refused.
	Nullable bool `json:"nullable,omitempty"`
	// XPreserveUnknownFields keeps fields the schema does not name.
	XPreserveUnknownFields *bool `json:"x-kubernetes-preserve-unknown-fields,omitempty"`
	// XEmbeddedResource says the value is a whole object (apiVersion, kind, metadata).
	XEmbeddedResource bool `json:"x-kubernetes-embedded-resource,omitempty"`
	// XIntOrString allows an integer or a string.
	XIntOrString bool `json:"x-kubernetes-int-or-string,omitempty"`
	// XListMapKeys are the keys of a list of type map.
	XListMapKeys []string `json:"x-kubernetes-list-map-keys,omitempty"`
	// XListType is atomic, set or map.
	XListType *string `json:"x-kubernetes-list-type,omitempty"`
	// XMapType is granular or atomic.
	XMapType *string `json:"x-kubernetes-map-type,omitempty"`
	// XValidations are CEL rules the value must keep.
	XValidations []ValidationRule `json:"x-kubernetes-validations,omitempty"`
}

// JSONSchemaPropsOrBool is a schema, or true or false (any or no additional properties).
// Kubernetes: apiextensionsv1.JSONSchemaPropsOrBool.
type JSONSchemaPropsOrBool struct {
	// Allows is the boolean form; with a Schema it is true.
	Allows bool `json:"-"`
	// Schema is the schema form.
	Schema *JSONSchemaProps `json:"-"`
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

// ValidationRule is one CEL rule of x-kubernetes-validations. Kubernetes:
// apiextensionsv1.ValidationRule.
type ValidationRule struct {
	// Rule is the CEL expression; self is the value, oldSelf the old one on update.
	Rule string `json:"rule"`
	// Message is the error when the rule is false.
	Message string `json:"message,omitempty"`
	// MessageExpression is a CEL expression giving the message.
	MessageExpression string `json:"messageExpression,omitempty"`
	// Reason is FieldValueInvalid (default), FieldValueForbidden, FieldValueRequired or
	// FieldValueDuplicate.
	Reason *string `json:"reason,omitempty"`
	// FieldPath is the path, relative to the value, that the error names.
	FieldPath string `json:"fieldPath,omitempty"`
	// OptionalOldSelf runs a transition rule on create too, with oldSelf unset.
	OptionalOldSelf *bool `json:"optionalOldSelf,omitempty"`
}

// CustomResourceDefinitionStatus says whether the kind is served. Kubernetes:
// apiextensionsv1.CustomResourceDefinitionStatus.
type CustomResourceDefinitionStatus struct {
	// Conditions are NamesAccepted and Established.
	Conditions []CustomResourceDefinitionCondition `json:"conditions,omitempty"`
	// AcceptedNames are the names the kind is served under.
	AcceptedNames CustomResourceDefinitionNames `json:"acceptedNames"`
	// StoredVersions are every version objects were ever stored in.
	StoredVersions []string `json:"storedVersions"`
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
	Type string `json:"type"`
	// Status is True, False or Unknown.
	Status ConditionStatus `json:"status"`
	// LastTransitionTime is when Status last changed.
	LastTransitionTime Time `json:"lastTransitionTime,omitempty"`
	// Reason is a one-word CamelCase reason.
	Reason string `json:"reason,omitempty"`
	// Message is for humans.
	Message string `json:"message,omitempty"`
}
