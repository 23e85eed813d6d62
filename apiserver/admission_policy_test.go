package apiserver_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
)

// maxReplicasPolicy is the policy the tests bind: deployments of at most
// five replicas, on create and update.
func maxReplicasPolicy(mut ...func(*api.ValidatingAdmissionPolicy)) *api.ValidatingAdmissionPolicy {
	p := &api.ValidatingAdmissionPolicy{Metadata: api.ObjectMeta{Name: "max-replicas"},
		Spec: api.ValidatingAdmissionPolicySpec{
			MatchConstraints: &api.MatchResources{ResourceRules: []api.NamedRuleWithOperations{{RuleWithOperations: api.RuleWithOperations{
				Operations: []string{api.OperationCreate, api.OperationUpdate},
				Rule:       api.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}}}}}},
			Validations: []api.Validation{{Expression: "object.spec.replicas <= 5"}},
		}}
	for _, m := range mut {
		m(p)
	}
	return p
}

func binding(mut ...func(*api.ValidatingAdmissionPolicyBinding)) *api.ValidatingAdmissionPolicyBinding {
	b := &api.ValidatingAdmissionPolicyBinding{Metadata: api.ObjectMeta{Name: "max-replicas-binding"},
		Spec: api.ValidatingAdmissionPolicyBindingSpec{PolicyName: "max-replicas", ValidationActions: []string{api.ValidationActionDeny}}}
	for _, m := range mut {
		m(b)
	}
	return b
}

func deploymentOf(ns, name string, replicas int32, labels map[string]string) *api.Deployment {
	sel := map[string]string{"app": name}
	return &api.Deployment{Metadata: api.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
		Spec: api.DeploymentSpec{Replicas: &replicas, Selector: &api.LabelSelector{MatchLabels: sel},
			Template: api.PodTemplateSpec{Metadata: api.ObjectMeta{Labels: sel},
				Spec: api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx:1.27"}}}}}}
}

const denied6 = `deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied request: failed expression: object.spec.replicas <= 5`

// TestPolicyAdmission ports the scenarios of kube-apiserver's validating
// policy plugin tests (validating/admission_test.go) that need no type
// checking or authorizer: matching by rules, names, selectors and match
// conditions; parameters; the validation actions; the failure policy; the
// message and reason of a denial; and that a denial stores nothing.
func TestPolicyAdmission(t *testing.T) {
	forbidden := api.StatusReasonForbidden
	tests := []struct {
		name     string
		policy   *api.ValidatingAdmissionPolicy
		binding  *api.ValidatingAdmissionPolicyBinding
		setup    []api.Object
		obj      api.Object
		wantErr  string
		wantCode int32
		wantWarn []string
	}{
		{name: "within the limit", policy: maxReplicasPolicy(), binding: binding(), obj: deploymentOf("default", "web", 5, nil)},
		{name: "over the limit: Invalid without a reason", policy: maxReplicasPolicy(), binding: binding(), obj: deploymentOf("default", "web", 6, nil),
			wantErr: denied6, wantCode: http.StatusUnprocessableEntity},
		{name: "the validation's message and reason", binding: binding(), obj: deploymentOf("default", "web", 6, nil),
			policy: maxReplicasPolicy(func(p *api.ValidatingAdmissionPolicy) {
				p.Spec.Validations[0].Message, p.Spec.Validations[0].Reason = "at most 5 replicas", &forbidden
			}),
			wantErr:  `deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied request: at most 5 replicas`,
			wantCode: http.StatusForbidden},
		{name: "messageExpression", binding: binding(), obj: deploymentOf("default", "web", 7, nil),
			policy: maxReplicasPolicy(func(p *api.ValidatingAdmissionPolicy) {
				p.Spec.Validations[0].MessageExpression = "'replicas ' + string(object.spec.replicas) + ' > 5'"
			}),
			wantErr: `deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied request: replicas 7 > 5`, wantCode: 422},
		{name: "a binding to a missing policy does nothing", obj: deploymentOf("default", "web", 6, nil),
			binding: binding(func(b *api.ValidatingAdmissionPolicyBinding) { b.Spec.PolicyName = "other" }), policy: maxReplicasPolicy()},
		{name: "another resource is not matched", policy: maxReplicasPolicy(), binding: binding(), obj: pod("default", "web", nil)},
		{name: "resource names", binding: binding(), obj: deploymentOf("default", "web", 6, nil),
			policy: maxReplicasPolicy(func(p *api.ValidatingAdmissionPolicy) {
				p.Spec.MatchConstraints.ResourceRules[0].ResourceNames = []string{"api"}
			})},
		{name: "excluded", binding: binding(), obj: deploymentOf("default", "web", 6, nil),
			policy: maxReplicasPolicy(func(p *api.ValidatingAdmissionPolicy) {
				p.Spec.MatchConstraints.ExcludeResourceRules = p.Spec.MatchConstraints.ResourceRules
			})},
		{name: "Equivalent matches another version", binding: binding(), obj: deploymentOf("default", "web", 6, nil), wantErr: denied6, wantCode: 422,
			policy: maxReplicasPolicy(func(p *api.ValidatingAdmissionPolicy) {
				p.Spec.MatchConstraints.ResourceRules[0].APIVersions = []string{"v1beta1"}
			})},
		{name: "Exact does not", binding: binding(), obj: deploymentOf("default", "web", 6, nil),
			policy: maxReplicasPolicy(func(p *api.ValidatingAdmissionPolicy) {
				p.Spec.MatchConstraints.ResourceRules[0].APIVersions = []string{"v1beta1"}
				p.Spec.MatchConstraints.MatchPolicy = ptrTo(api.MatchPolicyExact)
			})},
		{name: "cluster scope does not match a namespaced object", binding: binding(), obj: deploymentOf("default", "web", 6, nil),
			policy: maxReplicasPolicy(func(p *api.ValidatingAdmissionPolicy) {
				p.Spec.MatchConstraints.ResourceRules[0].Scope = ptrTo(api.ScopeCluster)
			})},
		{name: "object selector", policy: maxReplicasPolicy(), obj: deploymentOf("default", "web", 6, map[string]string{"tier": "free"}),
			binding: binding(func(b *api.ValidatingAdmissionPolicyBinding) {
				b.Spec.MatchResources = &api.MatchResources{ObjectSelector: &api.LabelSelector{MatchLabels: map[string]string{"tier": "paid"}}}
			})},
		{name: "namespace selector", policy: maxReplicasPolicy(), obj: deploymentOf("team", "web", 6, nil),
			setup: []api.Object{&api.Namespace{Metadata: api.ObjectMeta{Name: "team", Labels: map[string]string{"env": "prod"}}}},
			binding: binding(func(b *api.ValidatingAdmissionPolicyBinding) {
				b.Spec.MatchResources = &api.MatchResources{NamespaceSelector: &api.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}}
			}),
			wantErr: `deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied request: failed expression: object.spec.replicas <= 5`, wantCode: 422},
		{name: "namespaceObject", binding: binding(), obj: deploymentOf("team", "web", 1, nil),
			setup: []api.Object{&api.Namespace{Metadata: api.ObjectMeta{Name: "team", Labels: map[string]string{"env": "prod"}}}},
			policy: maxReplicasPolicy(func(p *api.ValidatingAdmissionPolicy) {
				p.Spec.Validations[0].Expression = "namespaceObject.metadata.labels.env != 'prod'"
			}),
			wantErr: `deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied request: failed expression: namespaceObject.metadata.labels.env != 'prod'`, wantCode: 422},
		{name: "a false match condition", binding: binding(), obj: deploymentOf("default", "web", 6, nil),
			policy: maxReplicasPolicy(func(p *api.ValidatingAdmissionPolicy) {
				p.Spec.MatchConditions = []api.MatchCondition{{Name: "not-web", Expression: "object.metadata.name != 'web'"}}
			})},
		{name: "variables", binding: binding(), obj: deploymentOf("default", "web", 6, nil), wantErr: `deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied request: failed expression: !variables.big`, wantCode: 422,
			policy: maxReplicasPolicy(func(p *api.ValidatingAdmissionPolicy) {
				p.Spec.Variables = []api.Variable{{Name: "big", Expression: "object.spec.replicas > 5"}}
				p.Spec.Validations[0].Expression = "!variables.big"
			})},
		{name: "Warn", policy: maxReplicasPolicy(), obj: deploymentOf("default", "web", 6, nil),
			binding: binding(func(b *api.ValidatingAdmissionPolicyBinding) {
				b.Spec.ValidationActions = []string{api.ValidationActionWarn}
			}),
			wantWarn: []string{"Validation failed for ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding': failed expression: object.spec.replicas <= 5"}},
		{name: "Audit admits", policy: maxReplicasPolicy(), obj: deploymentOf("default", "web", 6, nil),
			binding: binding(func(b *api.ValidatingAdmissionPolicyBinding) {
				b.Spec.ValidationActions = []string{api.ValidationActionAudit}
			})},
		{name: "an evaluation error fails closed", binding: binding(), obj: deploymentOf("default", "web", 1, nil),
			policy:  maxReplicasPolicy(func(p *api.ValidatingAdmissionPolicy) { p.Spec.Validations[0].Expression = "object.spec.nope == 1" }),
			wantErr: `deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied request: expression 'object.spec.nope == 1' resulted in error: no such key: nope`, wantCode: 422},
		{name: "an evaluation error with Ignore", binding: binding(), obj: deploymentOf("default", "web", 1, nil),
			policy: maxReplicasPolicy(func(p *api.ValidatingAdmissionPolicy) {
				p.Spec.Validations[0].Expression = "object.spec.nope == 1"
				p.Spec.FailurePolicy = ptrTo(api.FailurePolicyIgnore)
			})},
		{name: "params from a ConfigMap", obj: deploymentOf("default", "web", 4, nil),
			setup: []api.Object{&api.ConfigMap{Metadata: api.ObjectMeta{Namespace: "default", Name: "limits"}, Data: map[string]string{"max": "3"}}},
			policy: maxReplicasPolicy(func(p *api.ValidatingAdmissionPolicy) {
				p.Spec.ParamKind = &api.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
				p.Spec.Validations[0].Expression = "object.spec.replicas <= int(params.data.max)"
			}),
			binding: binding(func(b *api.ValidatingAdmissionPolicyBinding) {
				b.Spec.ParamRef = &api.ParamRef{Name: "limits", ParameterNotFoundAction: ptrTo(api.ParameterNotFoundDeny)}
			}),
			wantErr: `deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied request: failed expression: object.spec.replicas <= int(params.data.max)`, wantCode: 422},
		{name: "params not found, Deny", obj: deploymentOf("default", "web", 1, nil),
			policy: maxReplicasPolicy(func(p *api.ValidatingAdmissionPolicy) {
				p.Spec.ParamKind = &api.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
			}),
			binding: binding(func(b *api.ValidatingAdmissionPolicyBinding) {
				b.Spec.ParamRef = &api.ParamRef{Name: "limits", ParameterNotFoundAction: ptrTo(api.ParameterNotFoundDeny)}
			}),
			wantErr: "deployments.apps \"web\" is forbidden: ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction", wantCode: 422},
		{name: "params not found, Allow", obj: deploymentOf("default", "web", 6, nil),
			policy: maxReplicasPolicy(func(p *api.ValidatingAdmissionPolicy) {
				p.Spec.ParamKind = &api.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
			}),
			binding: binding(func(b *api.ValidatingAdmissionPolicyBinding) {
				b.Spec.ParamRef = &api.ParamRef{Name: "limits", ParameterNotFoundAction: ptrTo(api.ParameterNotFoundAllow)}
			})},
		{name: "params by selector, each evaluated", obj: deploymentOf("default", "web", 4, nil),
			setup: []api.Object{
				&api.ConfigMap{Metadata: api.ObjectMeta{Namespace: "default", Name: "a", Labels: map[string]string{"limits": "yes"}}, Data: map[string]string{"max": "9"}},
				&api.ConfigMap{Metadata: api.ObjectMeta{Namespace: "default", Name: "b", Labels: map[string]string{"limits": "yes"}}, Data: map[string]string{"max": "2"}},
			},
			policy: maxReplicasPolicy(func(p *api.ValidatingAdmissionPolicy) {
				p.Spec.ParamKind = &api.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
				p.Spec.Validations[0].Expression = "object.spec.replicas <= int(params.data.max)"
				p.Spec.Validations[0].MessageExpression = "'over ' + params.metadata.name"
			}),
			binding: binding(func(b *api.ValidatingAdmissionPolicyBinding) {
				b.Spec.ParamRef = &api.ParamRef{Selector: &api.LabelSelector{MatchLabels: map[string]string{"limits": "yes"}}, ParameterNotFoundAction: ptrTo(api.ParameterNotFoundDeny)}
			}),
			wantErr: `deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied request: over b`, wantCode: 422},
		{name: "request", binding: binding(), obj: deploymentOf("default", "web", 1, nil),
			policy: maxReplicasPolicy(func(p *api.ValidatingAdmissionPolicy) {
				p.Spec.Validations[0].Expression = "request.operation == 'CREATE' && request.resource.resource == 'deployments' && request.namespace == 'default' && oldObject == null"
				p.Spec.Validations[0].Reason = &forbidden
			})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newServer(t)
			for _, o := range append(tt.setup, tt.policy, tt.binding) {
				_, err := s.Create(ctx, o)
				require.NoError(t, err)
			}
			var warnings []string
			wctx := client.WithWarnings(context.Background(), func(w string) { warnings = append(warnings, w) })
			_, err := s.Create(wctx, tt.obj)
			assert.Equal(t, tt.wantWarn, warnings)
			if tt.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, tt.wantErr, err.Error())
			st := apierrors.StatusOf(err)
			assert.Equal(t, tt.wantCode, st.Code)
			require.NotNil(t, st.Details)
			assert.Equal(t, []api.StatusCause{{Message: tt.wantErr[len(`deployments.apps "web" is forbidden: `):]}}, st.Details.Causes)
			m := tt.obj.GetObjectMeta()
			_, err = client.For[*api.Deployment](s).Get(ctx, m.Namespace, m.Name)
			assert.True(t, apierrors.IsNotFound(err), "a denied create stores nothing")
		})
	}
}

// TestPolicyAdmissionOperations checks update (with oldObject) and delete,
// and that the admissionregistration kinds are exempt.
func TestPolicyAdmissionOperations(t *testing.T) {
	s, _ := newServer(t)
	p := maxReplicasPolicy(func(p *api.ValidatingAdmissionPolicy) {
		p.Spec.MatchConstraints.ResourceRules[0].Operations = []string{api.OperationAll}
		p.Spec.MatchConstraints.ResourceRules[0].APIGroups = []string{"*"}
		p.Spec.MatchConstraints.ResourceRules[0].Resources = []string{"*"}
		p.Spec.Validations = []api.Validation{
			{Expression: "request.operation != 'UPDATE' || object.metadata.labels.v > oldObject.metadata.labels.v", Message: "v must grow"},
			{Expression: "request.operation != 'DELETE' || oldObject.metadata.name != 'keep'", Message: "keep is kept"},
		}
	})
	for _, o := range []api.Object{p, binding()} {
		_, err := s.Create(ctx, o)
		require.NoError(t, err)
	}
	created, err := s.Create(ctx, &api.ConfigMap{Metadata: api.ObjectMeta{Namespace: "default", Name: "keep", Labels: map[string]string{"v": "1"}}})
	require.NoError(t, err)
	cm := created.(*api.ConfigMap).DeepCopy()
	cm.Metadata.Labels = map[string]string{"v": "0"}
	_, err = s.Update(ctx, cm)
	require.EqualError(t, err, `configmaps "keep" is forbidden: ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied request: v must grow`)
	cm.Metadata.Labels = map[string]string{"v": "2"}
	_, err = s.Update(ctx, cm)
	require.NoError(t, err)

	_, err = s.Delete(ctx, client.ConfigMaps, "default", "keep", api.DeleteOptions{})
	require.EqualError(t, err, `configmaps "keep" is forbidden: ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied request: keep is kept`)
	_, err = client.For[*api.ConfigMap](s).Get(ctx, "default", "keep")
	require.NoError(t, err, "a denied delete deletes nothing")

	// The policy matches every resource but its own kinds: it can be removed.
	_, err = s.Delete(ctx, client.ValidatingAdmissionPolicyBindings, "", "max-replicas-binding", api.DeleteOptions{})
	require.NoError(t, err)
	_, err = s.Delete(ctx, client.ConfigMaps, "default", "keep", api.DeleteOptions{})
	require.NoError(t, err)
}

// TestPolicyValidation checks the refusals of malformed policies, bindings
// and webhook configurations, with kube-apiserver's field paths and
// messages. Kubernetes: TestValidateValidatingAdmissionPolicy,
// TestValidateValidatingAdmissionPolicyBinding, TestValidateValidatingWebhookConfiguration.
func TestPolicyValidation(t *testing.T) {
	hook := func(mut func(*api.ValidatingWebhook)) *api.ValidatingWebhookConfiguration {
		h := api.ValidatingWebhook{Name: "a.example.com", SideEffects: ptrTo(api.SideEffectClassNone), AdmissionReviewVersions: []string{"v1"},
			ClientConfig: api.WebhookClientConfig{URL: ptrTo("https://hook.example.com")}}
		mut(&h)
		return &api.ValidatingWebhookConfiguration{Metadata: api.ObjectMeta{Name: "hooks"}, Webhooks: []api.ValidatingWebhook{h}}
	}
	tests := []struct {
		name  string
		obj   api.Object
		field string
		want  string
	}{
		{"no matchConstraints", maxReplicasPolicy(func(p *api.ValidatingAdmissionPolicy) { p.Spec.MatchConstraints = nil }),
			"spec.matchConstraints", "Required value"},
		{"no resource rules", maxReplicasPolicy(func(p *api.ValidatingAdmissionPolicy) { p.Spec.MatchConstraints.ResourceRules = nil }),
			"spec.matchConstraints.resourceRules", "Required value"},
		{"no validations", maxReplicasPolicy(func(p *api.ValidatingAdmissionPolicy) { p.Spec.Validations = nil }),
			"spec.validations", "Required value: validations or auditAnnotations must contain at least one item"},
		{"an expression that does not compile", maxReplicasPolicy(func(p *api.ValidatingAdmissionPolicy) { p.Spec.Validations[0].Expression = "object.spec.replicas <" }),
			"spec.validations[0].expression", "Invalid value: \"object.spec.replicas <\": compilation failed: ERROR: <input>:1:23: Syntax error: mismatched input '<EOF>'"},
		{"a reason not supported", maxReplicasPolicy(func(p *api.ValidatingAdmissionPolicy) {
			p.Spec.Validations[0].Reason = ptrTo(api.StatusReasonConflict)
		}), "spec.validations[0].reason", `Unsupported value: "Conflict": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"`},
		{"an operation not supported", maxReplicasPolicy(func(p *api.ValidatingAdmissionPolicy) {
			p.Spec.MatchConstraints.ResourceRules[0].Operations = []string{"PATCH"}
		}), "spec.matchConstraints.resourceRules[0].operations[0]", `Unsupported value: "PATCH"`},
		{"a bad variable name", maxReplicasPolicy(func(p *api.ValidatingAdmissionPolicy) {
			p.Spec.Variables = []api.Variable{{Name: "in", Expression: "1"}}
		}), "spec.variables[0].name", "name is not a valid CEL identifier"},
		{"both Deny and Warn", binding(func(b *api.ValidatingAdmissionPolicyBinding) {
			b.Spec.ValidationActions = []string{api.ValidationActionDeny, api.ValidationActionWarn}
		}), "spec.validationActions", "must not contain both Deny and Warn"},
		{"no actions", binding(func(b *api.ValidatingAdmissionPolicyBinding) { b.Spec.ValidationActions = nil }),
			"spec.validationActions", "Required value: at least one validation action is required"},
		{"paramRef without name or selector", binding(func(b *api.ValidatingAdmissionPolicyBinding) {
			b.Spec.ParamRef = &api.ParamRef{ParameterNotFoundAction: ptrTo(api.ParameterNotFoundDeny)}
		}), "spec.paramRef", "Required value: one of name or selector must be specified"},
		{"a webhook without sideEffects", hook(func(h *api.ValidatingWebhook) { h.SideEffects = nil }),
			"webhooks[0].sideEffects", "Required value: must specify one of None, NoneOnDryRun"},
		{"a webhook over http", hook(func(h *api.ValidatingWebhook) { h.ClientConfig.URL = ptrTo("http://hook.example.com") }),
			"webhooks[0].clientConfig.url", `Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`},
		{"a webhook name of two segments", hook(func(h *api.ValidatingWebhook) { h.Name = "a.com" }),
			"webhooks[0].name", "should be a domain with at least three segments separated by dots"},
		{"a webhook match condition that does not compile", hook(func(h *api.ValidatingWebhook) {
			h.MatchConditions = []api.MatchCondition{{Name: "m", Expression: "'x'"}}
		}), "webhooks[0].matchConditions[0].expression", "must evaluate to bool but got string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newServer(t)
			_, err := s.Create(ctx, tt.obj)
			require.Error(t, err)
			st := apierrors.StatusOf(err)
			assert.Equal(t, api.StatusReasonInvalid, st.Reason)
			var found []string
			for _, c := range st.Details.Causes {
				if c.Field == tt.field {
					found = append(found, c.Message)
				}
			}
			require.Len(t, found, 1, "%s", err)
			assert.Contains(t, found[0], tt.want)
		})
	}
}

// TestPolicyDefaults checks the defaults kube-apiserver fills.
func TestPolicyDefaults(t *testing.T) {
	s, _ := newServer(t)
	got, err := s.Create(ctx, maxReplicasPolicy())
	require.NoError(t, err)
	spec := got.(*api.ValidatingAdmissionPolicy).Spec
	assert.Equal(t, api.FailurePolicyFail, *spec.FailurePolicy)
	assert.Equal(t, api.MatchPolicyEquivalent, *spec.MatchConstraints.MatchPolicy)
	assert.Equal(t, &api.LabelSelector{}, spec.MatchConstraints.NamespaceSelector)
	assert.Equal(t, api.ScopeAll, *spec.MatchConstraints.ResourceRules[0].Scope)
	hooks, err := s.Create(ctx, &api.MutatingWebhookConfiguration{Metadata: api.ObjectMeta{Name: "m"}, Webhooks: []api.MutatingWebhook{{
		Name: "a.example.com", SideEffects: ptrTo(api.SideEffectClassNone), AdmissionReviewVersions: []string{"v1"},
		ClientConfig: api.WebhookClientConfig{Service: &api.ServiceReference{Namespace: "default", Name: "hook"}}}}})
	require.NoError(t, err)
	h := hooks.(*api.MutatingWebhookConfiguration).Webhooks[0]
	assert.Equal(t, int32(10), *h.TimeoutSeconds)
	assert.Equal(t, int32(443), *h.ClientConfig.Service.Port)
	assert.Equal(t, api.ReinvocationNever, *h.ReinvocationPolicy)
}

func ptrTo[T any](v T) *T { return &v }
