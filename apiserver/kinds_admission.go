package apiserver

import (
	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver/celrules"
)

// admissionKinds returns the admissionregistration.k8s.io/v1 kinds, all
// cluster-scoped: ValidatingAdmissionPolicy (with a status) and its
// bindings, which the server enforces (admission_policy.go), and the
// webhook configurations, served and validated but whose webhooks are
// never called (the HTTP front warns so at their creation). rules compiles
// their CEL expressions.
func admissionKinds(rules *celrules.Compiler) []*kind {
	gr := func(resource string) apierrors.GroupResource {
		return apierrors.GroupResource{Group: "admissionregistration.k8s.io", Resource: resource}
	}
	const apiVersion = "admissionregistration.k8s.io/v1"
	webhooks := Column{Name: "Webhooks", Type: "integer", Description: "Webhooks indicates the number of webhooks registered in this configuration"}
	return []*kind{
		typed(&kind{
			gr: gr("validatingadmissionpolicies"), kind: "ValidatingAdmissionPolicy", apiVersion: apiVersion,
			categories: []string{"api-extensions"}, singular: "validatingadmissionpolicy",
			newObj: func() api.Object { return &api.ValidatingAdmissionPolicy{} }, resetStatusOnCreate: true,
			status: statusOf(func(o *api.ValidatingAdmissionPolicy) *api.ValidatingAdmissionPolicyStatus { return &o.Status }),
			columns: []Column{nameColumn,
				{Name: "Validations", Type: "integer", Description: "Validations indicates the number of validation rules defined in this configuration",
					Cell: func(o api.Object) any { return int64(len(o.(*api.ValidatingAdmissionPolicy).Spec.Validations)) }},
				{Name: "ParamKind", Type: "string", Description: "ParamKind specifies the kind of resources used to parameterize this policy",
					Cell: func(o api.Object) any {
						if k := o.(*api.ValidatingAdmissionPolicy).Spec.ParamKind; k != nil {
							return k.APIVersion + "/" + k.Kind
						}
						return "<unset>"
					}},
				ageColumn},
		}, defaultValidatingAdmissionPolicy,
			func(p *api.ValidatingAdmissionPolicy) apierrors.FieldErrors {
				return validateValidatingAdmissionPolicy(p, rules)
			},
			func(p, old *api.ValidatingAdmissionPolicy) apierrors.FieldErrors {
				return validateValidatingAdmissionPolicyUpdate(p, old, rules)
			}),
		typed(&kind{
			gr: gr("validatingadmissionpolicybindings"), kind: "ValidatingAdmissionPolicyBinding", apiVersion: apiVersion,
			categories: []string{"api-extensions"}, singular: "validatingadmissionpolicybinding",
			newObj: func() api.Object { return &api.ValidatingAdmissionPolicyBinding{} },
			columns: []Column{nameColumn,
				{Name: "PolicyName", Type: "string", Description: "PolicyName indicates the policy definition which the policy binding binded to",
					Cell: func(o api.Object) any { return o.(*api.ValidatingAdmissionPolicyBinding).Spec.PolicyName }},
				{Name: "ParamRef", Type: "string", Description: "ParamRef indicates the param resource which sets the configration param",
					Cell: func(o api.Object) any { return paramRefCell(o.(*api.ValidatingAdmissionPolicyBinding).Spec.ParamRef) }},
				ageColumn},
		}, defaultValidatingAdmissionPolicyBinding, validateValidatingAdmissionPolicyBinding, validateValidatingAdmissionPolicyBindingUpdate),
		typed(&kind{
			gr: gr("validatingwebhookconfigurations"), kind: "ValidatingWebhookConfiguration", apiVersion: apiVersion,
			categories: []string{"api-extensions"}, singular: "validatingwebhookconfiguration",
			newObj:  func() api.Object { return &api.ValidatingWebhookConfiguration{} },
			columns: []Column{nameColumn, webhooksCell(webhooks, func(o api.Object) int { return len(o.(*api.ValidatingWebhookConfiguration).Webhooks) }), ageColumn},
		}, defaultValidatingWebhookConfiguration,
			func(c *api.ValidatingWebhookConfiguration) apierrors.FieldErrors {
				return validateValidatingWebhookConfiguration(c, rules)
			},
			func(c, old *api.ValidatingWebhookConfiguration) apierrors.FieldErrors {
				return validateValidatingWebhookConfigurationUpdate(c, old, rules)
			}),
		typed(&kind{
			gr: gr("mutatingwebhookconfigurations"), kind: "MutatingWebhookConfiguration", apiVersion: apiVersion,
			categories: []string{"api-extensions"}, singular: "mutatingwebhookconfiguration",
			newObj:  func() api.Object { return &api.MutatingWebhookConfiguration{} },
			columns: []Column{nameColumn, webhooksCell(webhooks, func(o api.Object) int { return len(o.(*api.MutatingWebhookConfiguration).Webhooks) }), ageColumn},
		}, defaultMutatingWebhookConfiguration,
			func(c *api.MutatingWebhookConfiguration) apierrors.FieldErrors {
				return validateMutatingWebhookConfiguration(c, rules)
			},
			func(c, old *api.MutatingWebhookConfiguration) apierrors.FieldErrors {
				return validateMutatingWebhookConfigurationUpdate(c, old, rules)
			}),
	}
}

func webhooksCell(c Column, n func(api.Object) int) Column {
	c.Cell = func(o api.Object) any { return int64(n(o)) }
	return c
}

// paramRefCell is kubectl's PARAMREF of a binding: namespace/name (*/name
// without a namespace), the selector, or <unset>.
func paramRefCell(pr *api.ParamRef) string {
	switch {
	case pr == nil:
		return "<unset>"
	case pr.Name != "" && pr.Namespace != "":
		return pr.Namespace + "/" + pr.Name
	case pr.Name != "":
		return "*/" + pr.Name
	case pr.Selector != nil:
		return api.FormatLabelSelector(pr.Selector)
	}
	return "<unset>"
}
