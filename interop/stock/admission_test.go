package stock

import (
	"testing"

	"github.com/stretchr/testify/assert"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// admissionKindCases are the admissionregistration.k8s.io/v1 kinds. The
// policy matches only a resource nothing else here writes, so it refuses
// none of the other cases' writes.
func admissionKindCases() []kindCase {
	gv := admissionregistrationv1.SchemeGroupVersion
	rules := []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
		Rule: admissionregistrationv1.Rule{APIGroups: []string{"example.com"}, APIVersions: []string{"v1"}, Resources: []string{"gadgets"}}}}
	return []kindCase{
		crud[*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyList]{
			gvr: gv.WithResource("validatingadmissionpolicies"),
			client: func(cs kubernetes.Interface, _ string) typedClient[*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyList] {
				return cs.AdmissionregistrationV1().ValidatingAdmissionPolicies()
			},
			fresh: func(name, _ string) *admissionregistrationv1.ValidatingAdmissionPolicy {
				return &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: name},
					Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
						MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: rules[0]}}},
						Variables:        []admissionregistrationv1.Variable{{Name: "a", Expression: "1"}},
						Validations:      []admissionregistrationv1.Validation{{Expression: "variables.a == 1"}},
					}}
			},
			strategic: `{"spec":{"variables":[{"name":"b","expression":"2"}]}}`,
			strategicOK: func(t *testing.T, p *admissionregistrationv1.ValidatingAdmissionPolicy) {
				assert.Len(t, p.Spec.Variables, 2, "variables merge by name")
			},
		},
		crud[*admissionregistrationv1.ValidatingAdmissionPolicyBinding, *admissionregistrationv1.ValidatingAdmissionPolicyBindingList]{
			gvr: gv.WithResource("validatingadmissionpolicybindings"),
			client: func(cs kubernetes.Interface, _ string) typedClient[*admissionregistrationv1.ValidatingAdmissionPolicyBinding, *admissionregistrationv1.ValidatingAdmissionPolicyBindingList] {
				return cs.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings()
			},
			fresh: func(name, _ string) *admissionregistrationv1.ValidatingAdmissionPolicyBinding {
				return &admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: name},
					Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "nothing",
						ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}}}
			},
		},
		crud[*admissionregistrationv1.ValidatingWebhookConfiguration, *admissionregistrationv1.ValidatingWebhookConfigurationList]{
			gvr: gv.WithResource("validatingwebhookconfigurations"),
			client: func(cs kubernetes.Interface, _ string) typedClient[*admissionregistrationv1.ValidatingWebhookConfiguration, *admissionregistrationv1.ValidatingWebhookConfigurationList] {
				return cs.AdmissionregistrationV1().ValidatingWebhookConfigurations()
			},
			fresh: func(name, _ string) *admissionregistrationv1.ValidatingWebhookConfiguration {
				return &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name},
					Webhooks: []admissionregistrationv1.ValidatingWebhook{{Name: "a.example.com", Rules: rules,
						ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: ptr.To("https://hook.example.com/validate")},
						SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
						AdmissionReviewVersions: []string{"v1"}}}}
			},
			strategic: `{"webhooks":[{"name":"b.example.com","clientConfig":{"url":"https://b.example.com"},"sideEffects":"None","admissionReviewVersions":["v1"]}]}`,
			strategicOK: func(t *testing.T, c *admissionregistrationv1.ValidatingWebhookConfiguration) {
				assert.Len(t, c.Webhooks, 2, "webhooks merge by name")
			},
		},
		crud[*admissionregistrationv1.MutatingWebhookConfiguration, *admissionregistrationv1.MutatingWebhookConfigurationList]{
			gvr: gv.WithResource("mutatingwebhookconfigurations"),
			client: func(cs kubernetes.Interface, _ string) typedClient[*admissionregistrationv1.MutatingWebhookConfiguration, *admissionregistrationv1.MutatingWebhookConfigurationList] {
				return cs.AdmissionregistrationV1().MutatingWebhookConfigurations()
			},
			fresh: func(name, _ string) *admissionregistrationv1.MutatingWebhookConfiguration {
				return &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name},
					Webhooks: []admissionregistrationv1.MutatingWebhook{{Name: "a.example.com", Rules: rules,
						ClientConfig: admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{
							Namespace: "default", Name: "hook", Path: ptr.To("/mutate")}},
						SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
						AdmissionReviewVersions: []string{"v1"}}}}
			},
		},
	}
}

func testValidatingAdmissionPolicyStatus(t *testing.T, cs kubernetes.Interface) {
	c := admissionKindCases()[0].(crud[*admissionregistrationv1.ValidatingAdmissionPolicy, *admissionregistrationv1.ValidatingAdmissionPolicyList])
	checkStatusUpdate(t, cs.AdmissionregistrationV1().ValidatingAdmissionPolicies(), c.fresh("status-vap", ""), func(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
		p.Status.ObservedGeneration = 1
		p.Status.TypeChecking = &admissionregistrationv1.TypeChecking{ExpressionWarnings: []admissionregistrationv1.ExpressionWarning{
			{FieldRef: "spec.validations[0].expression", Warning: "checked"}}}
	}, func(t *testing.T, p *admissionregistrationv1.ValidatingAdmissionPolicy) {
		assert.Equal(t, int64(1), p.Status.ObservedGeneration)
		assert.Equal(t, "checked", p.Status.TypeChecking.ExpressionWarnings[0].Warning)
	})
}
