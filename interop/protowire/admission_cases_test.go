package protowire

import "github.com/miniplane/miniplane/api"

// The full cases of the admissionregistration.k8s.io/v1 kinds: every field set.

func fullMatchResources() *api.MatchResources {
	rule := api.NamedRuleWithOperations{ResourceNames: []string{"web"}, RuleWithOperations: fullRuleWithOperations()}
	return &api.MatchResources{NamespaceSelector: fullLabelSelector(), ObjectSelector: fullLabelSelector(),
		ResourceRules: []api.NamedRuleWithOperations{rule}, ExcludeResourceRules: []api.NamedRuleWithOperations{rule},
		MatchPolicy: ptr(api.MatchPolicyEquivalent)}
}

func fullRuleWithOperations() api.RuleWithOperations {
	return api.RuleWithOperations{Operations: []string{api.OperationCreate, api.OperationUpdate},
		Rule: api.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments", "deployments/scale"}, Scope: ptr(api.ScopeNamespaced)}}
}

func fullValidatingAdmissionPolicy(name string) api.ValidatingAdmissionPolicy {
	reason := api.StatusReasonForbidden
	return api.ValidatingAdmissionPolicy{Metadata: fullObjectMeta(name),
		Spec: api.ValidatingAdmissionPolicySpec{
			ParamKind:        &api.ParamKind{APIVersion: "v1", Kind: "ConfigMap"},
			MatchConstraints: fullMatchResources(),
			Validations: []api.Validation{{Expression: "object.spec.replicas <= 5", Message: "too many", Reason: &reason,
				MessageExpression: "'replicas: ' + string(object.spec.replicas)"}},
			FailurePolicy:    ptr(api.FailurePolicyFail),
			AuditAnnotations: []api.AuditAnnotation{{Key: "replicas", ValueExpression: "string(object.spec.replicas)"}},
			MatchConditions:  []api.MatchCondition{{Name: "not-system", Expression: "request.namespace != 'kube-system'"}},
			Variables:        []api.Variable{{Name: "replicas", Expression: "object.spec.replicas"}},
		},
		Status: api.ValidatingAdmissionPolicyStatus{ObservedGeneration: 2,
			TypeChecking: &api.TypeChecking{ExpressionWarnings: []api.ExpressionWarning{{FieldRef: "spec.validations[0].expression", Warning: "w"}}},
			Conditions:   []api.Condition{{Type: "TypeChecked", Status: api.ConditionTrue, ObservedGeneration: 2, LastTransitionTime: created, Reason: "Checked", Message: "ok"}}},
	}
}

func fullValidatingAdmissionPolicyBinding(name string) api.ValidatingAdmissionPolicyBinding {
	return api.ValidatingAdmissionPolicyBinding{Metadata: fullObjectMeta(name),
		Spec: api.ValidatingAdmissionPolicyBindingSpec{PolicyName: "max-replicas",
			ParamRef:       &api.ParamRef{Name: "limits", Namespace: "default", Selector: fullLabelSelector(), ParameterNotFoundAction: ptr(api.ParameterNotFoundDeny)},
			MatchResources: fullMatchResources(), ValidationActions: []string{api.ValidationActionDeny, api.ValidationActionAudit}}}
}

func fullWebhookClientConfig() api.WebhookClientConfig {
	return api.WebhookClientConfig{URL: ptr("https://hook.example.com/v"), CABundle: []byte("pem"),
		Service: &api.ServiceReference{Namespace: "default", Name: "hook", Path: ptr("/validate"), Port: ptr(int32(8443))}}
}

func fullValidatingWebhookConfiguration(name string) api.ValidatingWebhookConfiguration {
	return api.ValidatingWebhookConfiguration{Metadata: fullObjectMeta(name), Webhooks: []api.ValidatingWebhook{{
		Name: "a.example.com", ClientConfig: fullWebhookClientConfig(), Rules: []api.RuleWithOperations{fullRuleWithOperations()},
		FailurePolicy: ptr(api.FailurePolicyIgnore), MatchPolicy: ptr(api.MatchPolicyExact),
		NamespaceSelector: fullLabelSelector(), ObjectSelector: fullLabelSelector(), SideEffects: ptr(api.SideEffectClassNone),
		TimeoutSeconds: ptr(int32(5)), AdmissionReviewVersions: []string{"v1", "v1beta1"},
		MatchConditions: []api.MatchCondition{{Name: "m", Expression: "true"}},
	}}}
}

func fullMutatingWebhookConfiguration(name string) api.MutatingWebhookConfiguration {
	return api.MutatingWebhookConfiguration{Metadata: fullObjectMeta(name), Webhooks: []api.MutatingWebhook{{
		Name: "a.example.com", ClientConfig: fullWebhookClientConfig(), Rules: []api.RuleWithOperations{fullRuleWithOperations()},
		FailurePolicy: ptr(api.FailurePolicyIgnore), MatchPolicy: ptr(api.MatchPolicyExact),
		NamespaceSelector: fullLabelSelector(), ObjectSelector: fullLabelSelector(), SideEffects: ptr(api.SideEffectClassNoneOnDryRun),
		TimeoutSeconds: ptr(int32(5)), AdmissionReviewVersions: []string{"v1"}, ReinvocationPolicy: ptr(api.ReinvocationIfNeeded),
		MatchConditions: []api.MatchCondition{{Name: "m", Expression: "true"}},
	}}}
}

// admissionFullCases are fullCases' entries of the admissionregistration kinds.
func admissionFullCases() map[string]any {
	return map[string]any{
		"ValidatingAdmissionPolicy": ptr(fullValidatingAdmissionPolicy("max-replicas")),
		"ValidatingAdmissionPolicyList": &api.ValidatingAdmissionPolicyList{Metadata: fullListMeta(),
			Items: []api.ValidatingAdmissionPolicy{fullValidatingAdmissionPolicy("a")}},
		"ValidatingAdmissionPolicyBinding": ptr(fullValidatingAdmissionPolicyBinding("max-replicas")),
		"ValidatingAdmissionPolicyBindingList": &api.ValidatingAdmissionPolicyBindingList{Metadata: fullListMeta(),
			Items: []api.ValidatingAdmissionPolicyBinding{fullValidatingAdmissionPolicyBinding("a")}},
		"ValidatingWebhookConfiguration": ptr(fullValidatingWebhookConfiguration("hooks")),
		"ValidatingWebhookConfigurationList": &api.ValidatingWebhookConfigurationList{Metadata: fullListMeta(),
			Items: []api.ValidatingWebhookConfiguration{fullValidatingWebhookConfiguration("a")}},
		"MutatingWebhookConfiguration": ptr(fullMutatingWebhookConfiguration("hooks")),
		"MutatingWebhookConfigurationList": &api.MutatingWebhookConfigurationList{Metadata: fullListMeta(),
			Items: []api.MutatingWebhookConfiguration{fullMutatingWebhookConfiguration("a")}},
	}
}
