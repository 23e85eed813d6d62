package api

// The admissionregistration.k8s.io/v1 kinds: ValidatingAdmissionPolicy and
// its bindings, which the API server enforces itself (CEL expressions over
// the request), and the webhook configurations, which it serves and
// validates but whose webhooks it does not call. All are cluster-scoped.
// Kubernetes: k8s.io/api/admissionregistration/v1.

// Values of the admissionregistration enums, one spec per enum.
const (
	ScopeCluster, ScopeNamespaced, ScopeAll = "Cluster", "Namespaced", "*" // a Rule's scope

	FailurePolicyIgnore, FailurePolicyFail = "Ignore", "Fail" // what an error in a policy or webhook does

	ParameterNotFoundAllow, ParameterNotFoundDeny = "Allow", "Deny" // a ParamRef's parameterNotFoundAction

	MatchPolicyExact, MatchPolicyEquivalent = "Exact", "Equivalent" // whether other versions of a resource match

	SideEffectClassUnknown, SideEffectClassNone, SideEffectClassSome, SideEffectClassNoneOnDryRun = "Unknown", "None", "Some", "NoneOnDryRun" // a webhook's sideEffects

	ValidationActionDeny, ValidationActionWarn, ValidationActionAudit = "Deny", "Warn", "Audit" // a binding's validationActions

	ReinvocationNever, ReinvocationIfNeeded = "Never", "IfNeeded" // a mutating webhook's reinvocationPolicy

	OperationAll, OperationCreate, OperationUpdate, OperationDelete, OperationConnect = "*", "CREATE", "UPDATE", "DELETE", "CONNECT" // a rule's operations
)

// ValidatingAdmissionPolicy is a set of CEL validations the API server
// evaluates on the requests its bindings match. Kubernetes:
// admissionregistrationv1.ValidatingAdmissionPolicy.
type ValidatingAdmissionPolicy struct {
	TypeMeta `json:",inline"`
	// Metadata is the policy's identity.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is what the policy checks and on which requests.
	Spec ValidatingAdmissionPolicySpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is the result of the policy's type checking.
	Status ValidatingAdmissionPolicyStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// GetObjectMeta returns the policy's metadata.
func (p *ValidatingAdmissionPolicy) GetObjectMeta() *ObjectMeta { return &p.Metadata }

// ValidatingAdmissionPolicyList is a list of policies.
type ValidatingAdmissionPolicyList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the policies.
	Items []ValidatingAdmissionPolicy `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ValidatingAdmissionPolicyStatus is what the type checker found.
type ValidatingAdmissionPolicyStatus struct {
	// ObservedGeneration is the generation the type checker last checked.
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,1,opt,name=observedGeneration"`
	// TypeChecking holds the type checker's warnings.
	TypeChecking *TypeChecking `json:"typeChecking,omitempty" protobuf:"bytes,2,opt,name=typeChecking"`
	// Conditions are the policy's conditions.
	Conditions []Condition `json:"conditions,omitempty" protobuf:"bytes,3,rep,name=conditions"`
}

// TypeChecking is the result of type checking a policy's expressions.
type TypeChecking struct {
	// ExpressionWarnings are the type checker's warnings, one per expression.
	ExpressionWarnings []ExpressionWarning `json:"expressionWarnings,omitempty" protobuf:"bytes,1,rep,name=expressionWarnings"`
}

// ExpressionWarning is one expression's type-checking warning.
type ExpressionWarning struct {
	// FieldRef is the path to the expression ("spec.validations[0].expression").
	FieldRef string `json:"fieldRef" protobuf:"bytes,2,opt,name=fieldRef"`
	// Warning is the type checker's message.
	Warning string `json:"warning" protobuf:"bytes,3,opt,name=warning"`
}

// ValidatingAdmissionPolicySpec is a policy's matching and validations.
type ValidatingAdmissionPolicySpec struct {
	// ParamKind is the kind of the binding's parameter resource, if any.
	ParamKind *ParamKind `json:"paramKind,omitempty" protobuf:"bytes,1,opt,name=paramKind"`
	// MatchConstraints are the requests the policy may apply to; required.
	MatchConstraints *MatchResources `json:"matchConstraints,omitempty" protobuf:"bytes,2,opt,name=matchConstraints"`
	// Validations are the CEL expressions that must hold.
	Validations []Validation `json:"validations,omitempty" protobuf:"bytes,3,rep,name=validations"`
	// FailurePolicy is Fail (the default) or Ignore, for errors in evaluation or configuration.
	FailurePolicy *string `json:"failurePolicy,omitempty" protobuf:"bytes,4,opt,name=failurePolicy"`
	// AuditAnnotations are expressions written into the audit event.
	AuditAnnotations []AuditAnnotation `json:"auditAnnotations,omitempty" protobuf:"bytes,5,rep,name=auditAnnotations"`
	// MatchConditions must all be true for the policy to be evaluated.
	MatchConditions []MatchCondition `json:"matchConditions,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,6,rep,name=matchConditions"`
	// Variables are named expressions the others read as variables.NAME.
	Variables []Variable `json:"variables,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,7,rep,name=variables"`
}

// ParamKind names the kind of a policy's parameters.
type ParamKind struct {
	// APIVersion is the parameters' group/version.
	APIVersion string `json:"apiVersion,omitempty" protobuf:"bytes,1,opt,name=apiVersion"`
	// Kind is the parameters' kind.
	Kind string `json:"kind,omitempty" protobuf:"bytes,2,opt,name=kind"`
}

// Validation is one CEL expression a policy requires to be true.
type Validation struct {
	// Expression is the CEL expression.
	Expression string `json:"expression" protobuf:"bytes,1,opt,name=Expression"`
	// Message is the message of a failure.
	Message string `json:"message,omitempty" protobuf:"bytes,2,opt,name=message"`
	// Reason is the status reason of a failure: Unauthorized, Forbidden (the default), Invalid or RequestEntityTooLarge.
	Reason *StatusReason `json:"reason,omitempty" protobuf:"bytes,3,opt,name=reason"`
	// MessageExpression is a CEL expression giving the message of a failure.
	MessageExpression string `json:"messageExpression,omitempty" protobuf:"bytes,4,opt,name=messageExpression"`
}

// Variable is a named CEL expression.
type Variable struct {
	// Name is the variable's name.
	Name string `json:"name" protobuf:"bytes,1,opt,name=Name"`
	// Expression is the CEL expression.
	Expression string `json:"expression" protobuf:"bytes,2,opt,name=Expression"`
}

// AuditAnnotation is an audit annotation a policy writes.
type AuditAnnotation struct {
	// Key is the annotation's key.
	Key string `json:"key" protobuf:"bytes,1,opt,name=key"`
	// ValueExpression is a CEL expression giving the annotation's value.
	ValueExpression string `json:"valueExpression" protobuf:"bytes,2,opt,name=valueExpression"`
}

// ValidatingAdmissionPolicyBinding binds a policy to requests, with its
// parameters. Kubernetes: admissionregistrationv1.ValidatingAdmissionPolicyBinding.
type ValidatingAdmissionPolicyBinding struct {
	TypeMeta `json:",inline"`
	// Metadata is the binding's identity.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec names the policy and where it applies.
	Spec ValidatingAdmissionPolicyBindingSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

// GetObjectMeta returns the binding's metadata.
func (b *ValidatingAdmissionPolicyBinding) GetObjectMeta() *ObjectMeta { return &b.Metadata }

// ValidatingAdmissionPolicyBindingList is a list of bindings.
type ValidatingAdmissionPolicyBindingList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the bindings.
	Items []ValidatingAdmissionPolicyBinding `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ValidatingAdmissionPolicyBindingSpec is a binding's policy, parameters,
// matching and actions.
type ValidatingAdmissionPolicyBindingSpec struct {
	// PolicyName is the name of the policy bound.
	PolicyName string `json:"policyName,omitempty" protobuf:"bytes,1,opt,name=policyName"`
	// ParamRef finds the parameters.
	ParamRef *ParamRef `json:"paramRef,omitempty" protobuf:"bytes,2,opt,name=paramRef"`
	// MatchResources narrows the policy's matchConstraints.
	MatchResources *MatchResources `json:"matchResources,omitempty" protobuf:"bytes,3,opt,name=matchResources"`
	// ValidationActions are what a failed validation does: Deny, Warn, Audit.
	ValidationActions []string `json:"validationActions,omitempty" protobuf:"bytes,4,rep,name=validationActions"`
}

// ParamRef finds a binding's parameter resources.
type ParamRef struct {
	// Name is the parameter object's name.
	Name string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	// Namespace is the parameter objects' namespace.
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,2,opt,name=namespace"`
	// Selector selects parameter objects by label, when name is empty.
	Selector *LabelSelector `json:"selector,omitempty" protobuf:"bytes,3,opt,name=selector"`
	// ParameterNotFoundAction is Allow or Deny when no parameter is found.
	ParameterNotFoundAction *string `json:"parameterNotFoundAction,omitempty" protobuf:"bytes,4,opt,name=parameterNotFoundAction"`
}

// MatchResources selects requests by resource, namespace and object.
type MatchResources struct {
	// NamespaceSelector selects by the namespace's labels.
	NamespaceSelector *LabelSelector `json:"namespaceSelector,omitempty" protobuf:"bytes,1,opt,name=namespaceSelector"`
	// ObjectSelector selects by the object's labels.
	ObjectSelector *LabelSelector `json:"objectSelector,omitempty" protobuf:"bytes,2,opt,name=objectSelector"`
	// ResourceRules are the operations and resources matched.
	ResourceRules []NamedRuleWithOperations `json:"resourceRules,omitempty" protobuf:"bytes,3,rep,name=resourceRules"`
	// ExcludeResourceRules are the operations and resources never matched.
	ExcludeResourceRules []NamedRuleWithOperations `json:"excludeResourceRules,omitempty" protobuf:"bytes,4,rep,name=excludeResourceRules"`
	// MatchPolicy is Exact or Equivalent (the default).
	MatchPolicy *string `json:"matchPolicy,omitempty" protobuf:"bytes,7,opt,name=matchPolicy"`
}

// NamedRuleWithOperations is a rule narrowed to named objects.
type NamedRuleWithOperations struct {
	// ResourceNames are the objects' names; empty is all.
	ResourceNames []string `json:"resourceNames,omitempty" protobuf:"bytes,1,rep,name=resourceNames"`
	// RuleWithOperations is the rule.
	RuleWithOperations `json:",inline" protobuf:"bytes,2,opt,name=ruleWithOperations"`
}

// RuleWithOperations is a rule and the operations it matches.
type RuleWithOperations struct {
	// Operations are CREATE, UPDATE, DELETE, CONNECT or *.
	Operations []string `json:"operations,omitempty" protobuf:"bytes,1,rep,name=operations"`
	// Rule is the resources matched.
	Rule `json:",inline" protobuf:"bytes,2,opt,name=rule"`
}

// Rule is a set of API groups, versions, resources and a scope.
type Rule struct {
	// APIGroups are the groups matched; "*" is all.
	APIGroups []string `json:"apiGroups,omitempty" protobuf:"bytes,1,rep,name=apiGroups"`
	// APIVersions are the versions matched; "*" is all.
	APIVersions []string `json:"apiVersions,omitempty" protobuf:"bytes,2,rep,name=apiVersions"`
	// Resources are the resources matched ("pods", "pods/status", "*", "*/scale").
	Resources []string `json:"resources,omitempty" protobuf:"bytes,3,rep,name=resources"`
	// Scope is Cluster, Namespaced or * (the default).
	Scope *string `json:"scope,omitempty" protobuf:"bytes,4,opt,name=scope"`
}

// MatchCondition is a named CEL expression that must be true for a request to be matched.
type MatchCondition struct {
	// Name is the condition's name.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// Expression is the CEL expression.
	Expression string `json:"expression" protobuf:"bytes,2,opt,name=expression"`
}

// ValidatingWebhookConfiguration lists validating admission webhooks.
// miniplane serves it but calls no webhook. Kubernetes:
// admissionregistrationv1.ValidatingWebhookConfiguration.
type ValidatingWebhookConfiguration struct {
	TypeMeta `json:",inline"`
	// Metadata is the configuration's identity.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Webhooks are the webhooks.
	Webhooks []ValidatingWebhook `json:"webhooks,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,2,rep,name=Webhooks"`
}

// GetObjectMeta returns the configuration's metadata.
func (c *ValidatingWebhookConfiguration) GetObjectMeta() *ObjectMeta { return &c.Metadata }

// ValidatingWebhookConfigurationList is a list of validating webhook configurations.
type ValidatingWebhookConfigurationList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the configurations.
	Items []ValidatingWebhookConfiguration `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// MutatingWebhookConfiguration lists mutating admission webhooks.
// miniplane serves it but calls no webhook. Kubernetes:
// admissionregistrationv1.MutatingWebhookConfiguration.
type MutatingWebhookConfiguration struct {
	TypeMeta `json:",inline"`
	// Metadata is the configuration's identity.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Webhooks are the webhooks.
	Webhooks []MutatingWebhook `json:"webhooks,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,2,rep,name=Webhooks"`
}

// GetObjectMeta returns the configuration's metadata.
func (c *MutatingWebhookConfiguration) GetObjectMeta() *ObjectMeta { return &c.Metadata }

// MutatingWebhookConfigurationList is a list of mutating webhook configurations.
type MutatingWebhookConfigurationList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the configurations.
	Items []MutatingWebhookConfiguration `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ValidatingWebhook is one validating webhook.
type ValidatingWebhook struct {
	// Name is the webhook's qualified name.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// ClientConfig says how to reach the webhook.
	ClientConfig WebhookClientConfig `json:"clientConfig" protobuf:"bytes,2,opt,name=clientConfig"`
	// Rules are the operations and resources sent to the webhook.
	Rules []RuleWithOperations `json:"rules,omitempty" protobuf:"bytes,3,rep,name=rules"`
	// FailurePolicy is Fail (the default) or Ignore.
	FailurePolicy *string `json:"failurePolicy,omitempty" protobuf:"bytes,4,opt,name=failurePolicy"`
	// MatchPolicy is Exact or Equivalent (the default).
	MatchPolicy *string `json:"matchPolicy,omitempty" protobuf:"bytes,9,opt,name=matchPolicy"`
	// NamespaceSelector selects by the namespace's labels.
	NamespaceSelector *LabelSelector `json:"namespaceSelector,omitempty" protobuf:"bytes,5,opt,name=namespaceSelector"`
	// ObjectSelector selects by the object's labels.
	ObjectSelector *LabelSelector `json:"objectSelector,omitempty" protobuf:"bytes,10,opt,name=objectSelector"`
	// SideEffects is None or NoneOnDryRun.
	SideEffects *string `json:"sideEffects" protobuf:"bytes,6,opt,name=sideEffects"`
	// TimeoutSeconds bounds the call (default 10).
	TimeoutSeconds *int32 `json:"timeoutSeconds,omitempty" protobuf:"varint,7,opt,name=timeoutSeconds"`
	// AdmissionReviewVersions are the AdmissionReview versions the webhook accepts.
	AdmissionReviewVersions []string `json:"admissionReviewVersions" protobuf:"bytes,8,rep,name=admissionReviewVersions"`
	// MatchConditions must all be true for the webhook to be called.
	MatchConditions []MatchCondition `json:"matchConditions,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,11,rep,name=matchConditions"`
}

// MutatingWebhook is one mutating webhook.
type MutatingWebhook struct {
	// Name is the webhook's qualified name.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// ClientConfig says how to reach the webhook.
	ClientConfig WebhookClientConfig `json:"clientConfig" protobuf:"bytes,2,opt,name=clientConfig"`
	// Rules are the operations and resources sent to the webhook.
	Rules []RuleWithOperations `json:"rules,omitempty" protobuf:"bytes,3,rep,name=rules"`
	// FailurePolicy is Fail (the default) or Ignore.
	FailurePolicy *string `json:"failurePolicy,omitempty" protobuf:"bytes,4,opt,name=failurePolicy"`
	// MatchPolicy is Exact or Equivalent (the default).
	MatchPolicy *string `json:"matchPolicy,omitempty" protobuf:"bytes,9,opt,name=matchPolicy"`
	// NamespaceSelector selects by the namespace's labels.
	NamespaceSelector *LabelSelector `json:"namespaceSelector,omitempty" protobuf:"bytes,5,opt,name=namespaceSelector"`
	// ObjectSelector selects by the object's labels.
	ObjectSelector *LabelSelector `json:"objectSelector,omitempty" protobuf:"bytes,11,opt,name=objectSelector"`
	// SideEffects is None or NoneOnDryRun.
	SideEffects *string `json:"sideEffects" protobuf:"bytes,6,opt,name=sideEffects"`
	// TimeoutSeconds bounds the call (default 10).
	TimeoutSeconds *int32 `json:"timeoutSeconds,omitempty" protobuf:"varint,7,opt,name=timeoutSeconds"`
	// AdmissionReviewVersions are the AdmissionReview versions the webhook accepts.
	AdmissionReviewVersions []string `json:"admissionReviewVersions" protobuf:"bytes,8,rep,name=admissionReviewVersions"`
	// ReinvocationPolicy is Never (the default) or IfNeeded.
	ReinvocationPolicy *string `json:"reinvocationPolicy,omitempty" protobuf:"bytes,10,opt,name=reinvocationPolicy"`
	// MatchConditions must all be true for the webhook to be called.
	MatchConditions []MatchCondition `json:"matchConditions,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,12,rep,name=matchConditions"`
}

// WebhookClientConfig says how to reach a webhook: a URL or a Service.
type WebhookClientConfig struct {
	// URL is the webhook's https URL.
	URL *string `json:"url,omitempty" protobuf:"bytes,3,opt,name=url"`
	// Service is the Service in front of the webhook.
	Service *ServiceReference `json:"service,omitempty" protobuf:"bytes,1,opt,name=service"`
	// CABundle is the PEM bundle that verifies the webhook's certificate.
	CABundle []byte `json:"caBundle,omitempty" protobuf:"bytes,2,opt,name=caBundle"`
}

// ServiceReference names a Service, a path and a port.
type ServiceReference struct {
	// Namespace is the Service's namespace.
	Namespace string `json:"namespace" protobuf:"bytes,1,opt,name=namespace"`
	// Name is the Service's name.
	Name string `json:"name" protobuf:"bytes,2,opt,name=name"`
	// Path is the URL path sent to.
	Path *string `json:"path,omitempty" protobuf:"bytes,3,opt,name=path"`
	// Port is the Service's port (default 443).
	Port *int32 `json:"port,omitempty" protobuf:"varint,4,opt,name=port"`
}
