package apiserver

// The admissionregistration.k8s.io/v1 kinds: defaulting and validation.
// Kubernetes: pkg/apis/admissionregistration/v1/defaults.go and
// pkg/apis/admissionregistration/validation (v1.32). The CEL expressions of
// a policy and the match conditions of a webhook are compiled at create and
// update, in the environment of the CRD rules (celrules), and a compile
// error refuses the object at the expression's field.

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver/celrules"
)

var admissionMeta = metaRules{name: nameIsDNSSubdomain}

var (
	supportedFailurePolicies = []string{api.FailurePolicyFail, api.FailurePolicyIgnore}
	supportedMatchPolicies   = []string{api.MatchPolicyEquivalent, api.MatchPolicyExact}
	noSideEffectClasses      = []string{api.SideEffectClassNone, api.SideEffectClassNoneOnDryRun}
	supportedOperations      = []string{api.OperationAll, api.OperationConnect, api.OperationCreate, api.OperationDelete, api.OperationUpdate}
	supportedReinvocation    = []string{api.ReinvocationIfNeeded, api.ReinvocationNever}
	supportedScopes          = []string{api.ScopeAll, api.ScopeCluster, api.ScopeNamespaced}
	supportedPolicyReasons   = []string{string(api.StatusReasonForbidden), string(api.StatusReasonInvalid), string(api.StatusReasonRequestEntityTooLarge)}
	supportedActions         = []string{api.ValidationActionAudit, api.ValidationActionDeny, api.ValidationActionWarn}
	acceptedReviewVersions   = []string{"v1", "v1beta1"}
)

// defaultMatchResources fills a MatchResources' policy (Equivalent) and
// selectors (everything), and each rule's scope (*).
func defaultMatchResources(m *api.MatchResources) {
	if m == nil {
		return
	}
	if m.MatchPolicy == nil {
		m.MatchPolicy = ptr(api.MatchPolicyEquivalent)
	}
	if m.NamespaceSelector == nil {
		m.NamespaceSelector = &api.LabelSelector{}
	}
	if m.ObjectSelector == nil {
		m.ObjectSelector = &api.LabelSelector{}
	}
	for i := range m.ResourceRules {
		defaultRule(&m.ResourceRules[i].Rule)
	}
	for i := range m.ExcludeResourceRules {
		defaultRule(&m.ExcludeResourceRules[i].Rule)
	}
}

func defaultRule(r *api.Rule) {
	if r.Scope == nil {
		r.Scope = ptr(api.ScopeAll)
	}
}

// defaultValidatingAdmissionPolicy fills the failure policy (Fail) and the
// match constraints' defaults.
func defaultValidatingAdmissionPolicy(p *api.ValidatingAdmissionPolicy) {
	if p.Spec.FailurePolicy == nil {
		p.Spec.FailurePolicy = ptr(api.FailurePolicyFail)
	}
	defaultMatchResources(p.Spec.MatchConstraints)
}

// defaultValidatingAdmissionPolicyBinding fills its match resources' defaults.
func defaultValidatingAdmissionPolicyBinding(b *api.ValidatingAdmissionPolicyBinding) {
	defaultMatchResources(b.Spec.MatchResources)
}

// webhookDefaults fills what every webhook defaults: failure policy Fail,
// match policy Equivalent, selectors matching everything, a 10 s timeout,
// rules of every scope, a service's port 443.
func webhookDefaults(fp, mp **string, ns, obj **api.LabelSelector, timeout **int32, rules []api.RuleWithOperations, cc *api.WebhookClientConfig) {
	if *fp == nil {
		*fp = ptr(api.FailurePolicyFail)
	}
	if *mp == nil {
		*mp = ptr(api.MatchPolicyEquivalent)
	}
	if *ns == nil {
		*ns = &api.LabelSelector{}
	}
	if *obj == nil {
		*obj = &api.LabelSelector{}
	}
	if *timeout == nil {
		*timeout = ptr(int32(10))
	}
	for i := range rules {
		defaultRule(&rules[i].Rule)
	}
	if cc.Service != nil && cc.Service.Port == nil {
		cc.Service.Port = ptr(int32(443))
	}
}

func defaultValidatingWebhookConfiguration(c *api.ValidatingWebhookConfiguration) {
	for i := range c.Webhooks {
		h := &c.Webhooks[i]
		webhookDefaults(&h.FailurePolicy, &h.MatchPolicy, &h.NamespaceSelector, &h.ObjectSelector, &h.TimeoutSeconds, h.Rules, &h.ClientConfig)
	}
}

func defaultMutatingWebhookConfiguration(c *api.MutatingWebhookConfiguration) {
	for i := range c.Webhooks {
		h := &c.Webhooks[i]
		webhookDefaults(&h.FailurePolicy, &h.MatchPolicy, &h.NamespaceSelector, &h.ObjectSelector, &h.TimeoutSeconds, h.Rules, &h.ClientConfig)
		if h.ReinvocationPolicy == nil {
			h.ReinvocationPolicy = ptr(api.ReinvocationNever)
		}
	}
}

// validateValidatingAdmissionPolicy checks a policy: a failure policy,
// matchConstraints with at least one resource rule, valid match
// conditions, variables and validations whose expressions compile, and a
// valid paramKind. Kubernetes: validateValidatingAdmissionPolicySpec.
func validateValidatingAdmissionPolicy(p *api.ValidatingAdmissionPolicy, rules *celrules.Compiler) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &p.Metadata, admissionMeta, metadataPath)
	s := &p.Spec
	sp := pathAt("spec")
	switch {
	case s.FailurePolicy == nil:
		errs = append(errs, Required(sp.child("failurePolicy").path(), ""))
	case !slices.Contains(supportedFailurePolicies, *s.FailurePolicy):
		errs = append(errs, NotSupported(sp.child("failurePolicy").path(), *s.FailurePolicy, supportedFailurePolicies...))
	}
	if s.ParamKind != nil {
		errs = validateParamKind(errs, s.ParamKind, sp.child("paramKind"))
	}
	if s.MatchConstraints == nil {
		errs = append(errs, Required(sp.child("matchConstraints").path(), ""))
	} else {
		errs = validateMatchResources(errs, s.MatchConstraints, sp.child("matchConstraints"))
		if len(s.MatchConstraints.ResourceRules) == 0 {
			errs = append(errs, Required(sp.child("matchConstraints").child("resourceRules").path(), ""))
		}
	}
	errs = validateMatchConditionShapes(errs, s.MatchConditions, sp.child("matchConditions"))
	for i, v := range s.Variables {
		vp := sp.child("variables").index(i)
		if strings.TrimSpace(v.Name) == "" {
			errs = append(errs, Required(vp.child("name").path(), "name is not specified"))
		} else if !isCELIdentifier(v.Name) {
			errs = append(errs, Invalid(vp.child("name").path(), v.Name, "name is not a valid CEL identifier"))
		}
		if strings.TrimSpace(v.Expression) == "" {
			errs = append(errs, Required(vp.child("expression").path(), "expression is not specified"))
		}
	}
	if len(s.Validations) == 0 && len(s.AuditAnnotations) == 0 {
		errs = append(errs, Required(sp.child("validations").path(), "validations or auditAnnotations must contain at least one item"),
			Required(sp.child("auditAnnotations").path(), "validations or auditAnnotations must contain at least one item"))
	}
	for i, v := range s.Validations {
		errs = validateValidation(errs, v, sp.child("validations").index(i))
	}
	if len(s.AuditAnnotations) > 20 {
		errs = append(errs, Invalid(sp.child("auditAnnotations").path(), s.AuditAnnotations, "must not have more than 20 auditAnnotations"))
	}
	keys := map[string]bool{}
	for i, a := range s.AuditAnnotations {
		ap := sp.child("auditAnnotations").index(i)
		if p.Metadata.Name != "" {
			errs = validateQualifiedNameField(errs, p.Metadata.Name+"/"+a.Key, ap.child("key"))
		} else {
			errs = append(errs, Invalid(ap.child("key").path(), a.Key, "requires metadata.name be non-empty"))
		}
		if v := strings.TrimSpace(a.ValueExpression); v == "" {
			errs = append(errs, Required(ap.child("valueExpression").path(), "valueExpression is not specified"))
		} else if len(v) > 5*1024 {
			errs = append(errs, Required(ap.child("valueExpression").path(), "must not exceed 5120 bytes in length"))
		}
		if keys[a.Key] {
			errs = append(errs, Duplicate(ap.child("key").path(), a.Key))
		}
		keys[a.Key] = true
	}
	_, cerrs := rules.CompilePolicy(s)
	return append(errs, cerrs...)
}

// validateValidation checks one validation's shape (its expressions
// compile in CompilePolicy). Kubernetes: validateValidation.
func validateValidation(errs apierrors.FieldErrors, v api.Validation, p fieldPath) apierrors.FieldErrors {
	if strings.TrimSpace(v.Expression) == "" {
		errs = append(errs, Required(p.child("expression").path(), "expression is not specified"))
	}
	if v.MessageExpression != "" && strings.TrimSpace(v.MessageExpression) == "" {
		errs = append(errs, Invalid(p.child("messageExpression").path(), v.MessageExpression, "must be non-empty if specified"))
	}
	msg := strings.TrimSpace(v.Message)
	switch {
	case v.Message != "" && msg == "":
		errs = append(errs, Invalid(p.child("message").path(), v.Message, "message must be non-empty if specified"))
	case strings.ContainsAny(msg, "\n\r"):
		errs = append(errs, Invalid(p.child("message").path(), v.Message, "message must not contain line breaks"))
	}
	if v.Reason != nil && !slices.Contains(supportedPolicyReasons, string(*v.Reason)) {
		errs = append(errs, NotSupported(p.child("reason").path(), *v.Reason, supportedPolicyReasons...))
	}
	return errs
}

func validateValidatingAdmissionPolicyUpdate(p, old *api.ValidatingAdmissionPolicy, rules *celrules.Compiler) apierrors.FieldErrors {
	errs := validateObjectMetaUpdate(nil, &p.Metadata, &old.Metadata, metadataPath)
	return append(errs, validateValidatingAdmissionPolicy(p, rules)...)
}

// validateParamKind checks a paramKind's apiVersion and kind. Kubernetes: validateParamKind.
func validateParamKind(errs apierrors.FieldErrors, k *api.ParamKind, p fieldPath) apierrors.FieldErrors {
	ap := p.child("apiVersion").path()
	if k.APIVersion == "" {
		errs = append(errs, Required(ap, ""))
	} else if strings.Count(k.APIVersion, "/") > 1 {
		errs = append(errs, Invalid(ap, k.APIVersion, "unexpected GroupVersion string: "+k.APIVersion))
	} else {
		group, version, found := strings.Cut(k.APIVersion, "/")
		if !found {
			group, version = "", k.APIVersion
		}
		if group != "" {
			if msgs := dns1123SubdomainMsgs(group); len(msgs) > 0 {
				errs = append(errs, Invalid(ap, group, strings.Join(msgs, ",")))
			}
		}
		if version == "" {
			errs = append(errs, Invalid(ap, k.APIVersion, "version must be specified"))
		} else if msgs := dns1035LabelMsgs(version); len(msgs) > 0 {
			errs = append(errs, Invalid(ap, version, strings.Join(msgs, ",")))
		}
	}
	if k.Kind == "" {
		errs = append(errs, Required(p.child("kind").path(), ""))
	} else if msgs := dns1035LabelMsgs(strings.ToLower(k.Kind)); len(msgs) > 0 {
		errs = append(errs, Invalid(p.child("kind").path(), k.Kind, "may have mixed case, but should otherwise match: "+strings.Join(msgs, ",")))
	}
	return errs
}

// validateMatchResources checks a policy's or binding's match resources;
// nil is valid. Kubernetes: validateMatchResources.
func validateMatchResources(errs apierrors.FieldErrors, m *api.MatchResources, p fieldPath) apierrors.FieldErrors {
	if m == nil {
		return errs
	}
	switch {
	case m.MatchPolicy == nil:
		errs = append(errs, Required(p.child("matchPolicy").path(), ""))
	case !slices.Contains(supportedMatchPolicies, *m.MatchPolicy):
		errs = append(errs, NotSupported(p.child("matchPolicy").path(), *m.MatchPolicy, supportedMatchPolicies...))
	}
	if m.NamespaceSelector == nil {
		errs = append(errs, Required(p.child("namespaceSelector").path(), ""))
	} else {
		errs = validateLabelSelector(errs, m.NamespaceSelector, p.child("namespaceSelector"))
	}
	if m.ObjectSelector == nil {
		errs = append(errs, Required(p.child("objectSelector").path(), ""))
	} else {
		errs = validateLabelSelector(errs, m.ObjectSelector, p.child("objectSelector"))
	}
	for i, r := range m.ResourceRules {
		errs = validateNamedRule(errs, r, p.child("resourceRules").index(i))
	}
	for i, r := range m.ExcludeResourceRules {
		errs = validateNamedRule(errs, r, p.child("excludeResourceRules").index(i))
	}
	return errs
}

func validateNamedRule(errs apierrors.FieldErrors, r api.NamedRuleWithOperations, p fieldPath) apierrors.FieldErrors {
	seen := map[string]bool{}
	for i, n := range r.ResourceNames {
		errs = invalidEach(errs, p.child("resourceNames").index(i), n, pathSegmentMsgs(n, false))
		if seen[n] {
			errs = append(errs, Duplicate(p.child("resourceNames").index(i).path(), n))
		}
		seen[n] = true
	}
	return validateRuleWithOperations(errs, r.RuleWithOperations, p)
}

// pathSegmentMsgs returns why name cannot be one segment of a URL path, or
// nil: a resource name or a binding's paramRef name. Kubernetes:
// path.IsValidPathSegmentName (and IsValidPathSegmentPrefix for
// generateName). The name rules of metadata need not run it after their DNS
// check (TestNameRulesArePathSegments shows it adds nothing there).
func pathSegmentMsgs(name string, prefix bool) []string {
	var msgs []string
	if !prefix && (name == "." || name == "..") {
		return []string{"may not be '" + name + "'"}
	}
	for _, bad := range [...]string{"/", "%"} {
		if strings.Contains(name, bad) {
			msgs = append(msgs, "may not contain '"+bad+"'")
		}
	}
	return msgs
}

// validateRuleWithOperations checks a rule's operations, groups, versions,
// resources and scope. Kubernetes: validateRuleWithOperations, validateRule.
func validateRuleWithOperations(errs apierrors.FieldErrors, r api.RuleWithOperations, p fieldPath) apierrors.FieldErrors {
	op := p.child("operations")
	if len(r.Operations) == 0 {
		errs = append(errs, Required(op.path(), ""))
	}
	if len(r.Operations) > 1 && slices.Contains(r.Operations, api.OperationAll) {
		errs = append(errs, Invalid(op.path(), r.Operations, "if '*' is present, must not specify other operations"))
	}
	for i, o := range r.Operations {
		if !slices.Contains(supportedOperations, o) {
			errs = append(errs, NotSupported(op.index(i).path(), o, supportedOperations...))
		}
	}
	if len(r.APIGroups) == 0 {
		errs = append(errs, Required(p.child("apiGroups").path(), ""))
	}
	if len(r.APIGroups) > 1 && slices.Contains(r.APIGroups, "*") {
		errs = append(errs, Invalid(p.child("apiGroups").path(), r.APIGroups, "if '*' is present, must not specify other API groups"))
	}
	if len(r.APIVersions) == 0 {
		errs = append(errs, Required(p.child("apiVersions").path(), ""))
	}
	if len(r.APIVersions) > 1 && slices.Contains(r.APIVersions, "*") {
		errs = append(errs, Invalid(p.child("apiVersions").path(), r.APIVersions, "if '*' is present, must not specify other API versions"))
	}
	for i, v := range r.APIVersions {
		if v == "" {
			errs = append(errs, Required(p.child("apiVersions").index(i).path(), ""))
		}
	}
	errs = validateRuleResources(errs, r.Resources, p.child("resources"))
	if r.Scope != nil && !slices.Contains(supportedScopes, *r.Scope) {
		errs = append(errs, NotSupported(p.child("scope").path(), *r.Scope, supportedScopes...))
	}
	return errs
}

// validateRuleResources checks a rule's resources and subresources with
// their wildcards. Kubernetes: validateResources.
func validateRuleResources(errs apierrors.FieldErrors, resources []string, p fieldPath) apierrors.FieldErrors {
	if len(resources) == 0 {
		errs = append(errs, Required(p.path(), ""))
	}
	wildSub, wildRes := map[string]bool{}, map[string]bool{} // x/* and */x
	var doubleWild, singleWild, plain bool
	for i, rs := range resources {
		if rs == "" {
			errs = append(errs, Required(p.index(i).path(), ""))
			continue
		}
		doubleWild = doubleWild || rs == "*/*"
		singleWild = singleWild || rs == "*"
		res, sub, found := strings.Cut(rs, "/")
		if !found {
			plain = rs != "*"
			continue
		}
		if wildSub[res] {
			errs = append(errs, Invalid(p.index(i).path(), rs, fmt.Sprintf("if '%s/*' is present, must not specify %s", res, rs)))
		}
		if wildRes[sub] {
			errs = append(errs, Invalid(p.index(i).path(), rs, fmt.Sprintf("if '*/%s' is present, must not specify %s", sub, rs)))
		}
		if sub == "*" {
			wildSub[res] = true
		}
		if res == "*" {
			wildRes[sub] = true
		}
	}
	if len(resources) > 1 && doubleWild {
		errs = append(errs, Invalid(p.path(), resources, "if '*/*' is present, must not specify other resources"))
	}
	if singleWild && plain {
		errs = append(errs, Invalid(p.path(), resources, "if '*' is present, must not specify other resources without subresources"))
	}
	return errs
}

// validateMatchConditionShapes checks match conditions' names, count and
// non-empty expressions (the expressions compile elsewhere). Kubernetes:
// validateMatchConditions.
func validateMatchConditionShapes(errs apierrors.FieldErrors, conds []api.MatchCondition, p fieldPath) apierrors.FieldErrors {
	if len(conds) > 64 {
		errs = append(errs, apierrors.FieldError{Type: api.CauseTypeFieldValueTooMany, Field: string(p.path()),
			Detail: fmt.Sprintf("must have at most %d items", 64)})
	}
	seen := map[string]bool{}
	for i, c := range conds {
		cp := p.index(i)
		if strings.TrimSpace(c.Expression) == "" {
			errs = append(errs, Required(cp.child("expression").path(), ""))
		}
		if c.Name == "" {
			errs = append(errs, Required(cp.child("name").path(), ""))
		} else {
			errs = validateQualifiedNameField(errs, c.Name, cp.child("name"))
			if seen[c.Name] {
				errs = append(errs, Duplicate(cp.child("name").path(), c.Name))
			}
			seen[c.Name] = true
		}
	}
	return errs
}

var celIdent = regexp.MustCompile(`^[_a-zA-Z][_a-zA-Z0-9]*$`)

// isCELIdentifier reports whether name is a CEL identifier and not a reserved word.
func isCELIdentifier(name string) bool {
	return celIdent.MatchString(name) && !slices.Contains([]string{"true", "false", "null", "in", "as", "break", "const",
		"continue", "else", "for", "function", "if", "import", "let", "loop", "package", "namespace", "return",
		"var", "void", "while"}, name)
}

// validateValidatingAdmissionPolicyBinding checks a binding: a policy name,
// a paramRef with a name or a selector and a parameterNotFoundAction,
// match resources, and validation actions. Kubernetes:
// validateValidatingAdmissionPolicyBindingSpec.
func validateValidatingAdmissionPolicyBinding(b *api.ValidatingAdmissionPolicyBinding) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &b.Metadata, admissionMeta, metadataPath)
	sp := pathAt("spec")
	if b.Spec.PolicyName == "" {
		errs = append(errs, Required(sp.child("policyName").path(), ""))
	} else {
		errs = invalidEach(errs, sp.child("policyName"), b.Spec.PolicyName, nameIsDNSSubdomain(b.Spec.PolicyName, false))
	}
	if pr := b.Spec.ParamRef; pr != nil {
		pp := sp.child("paramRef")
		if pr.Name != "" {
			errs = invalidEach(errs, pp.child("name"), pr.Name, pathSegmentMsgs(pr.Name, false))
			if pr.Selector != nil {
				errs = append(errs, Forbidden(pp.child("name").path(), "name and selector are mutually exclusive"))
			}
		}
		if pr.Selector != nil {
			errs = validateLabelSelector(errs, pr.Selector, pp.child("selector"))
			if pr.Name != "" {
				errs = append(errs, Forbidden(pp.child("selector").path(), "name and selector are mutually exclusive"))
			}
		}
		if pr.Name == "" && pr.Selector == nil {
			errs = append(errs, Required(pp.path(), "one of name or selector must be specified"))
		}
		if pr.ParameterNotFoundAction == nil || *pr.ParameterNotFoundAction == "" {
			errs = append(errs, Required(pp.child("parameterNotFoundAction").path(), ""))
		} else if a := *pr.ParameterNotFoundAction; a != api.ParameterNotFoundDeny && a != api.ParameterNotFoundAllow {
			errs = append(errs, NotSupported(pp.child("parameterNotFoundAction").path(), a, api.ParameterNotFoundDeny, api.ParameterNotFoundAllow))
		}
	}
	errs = validateMatchResources(errs, b.Spec.MatchResources, sp.child("matchResources"))
	ap := sp.child("validationActions")
	seen := map[string]bool{}
	for i, a := range b.Spec.ValidationActions {
		if !slices.Contains(supportedActions, a) {
			errs = append(errs, NotSupported(ap.index(i).path(), a, supportedActions...))
		}
		if seen[a] {
			errs = append(errs, Duplicate(ap.index(i).path(), a))
		}
		seen[a] = true
	}
	if seen[api.ValidationActionDeny] && seen[api.ValidationActionWarn] {
		errs = append(errs, Invalid(ap.path(), b.Spec.ValidationActions, "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)"))
	}
	if len(seen) == 0 {
		errs = append(errs, Required(ap.path(), "at least one validation action is required"))
	}
	return errs
}

func validateValidatingAdmissionPolicyBindingUpdate(b, old *api.ValidatingAdmissionPolicyBinding) apierrors.FieldErrors {
	errs := validateObjectMetaUpdate(nil, &b.Metadata, &old.Metadata, metadataPath)
	return append(errs, validateValidatingAdmissionPolicyBinding(b)...)
}

// webhookFields are the fields every webhook has, for validateWebhook.
type webhookFields struct {
	name                  string
	cc                    api.WebhookClientConfig
	rules                 []api.RuleWithOperations
	failurePolicy, match  *string
	sideEffects           *string
	ns, obj               *api.LabelSelector
	timeout               *int32
	reviewVersions        []string
	conditions            []api.MatchCondition
	reinvocation          *string
	mutating              bool
	ignoreMatchConditions bool
}

// validateWebhooks checks a configuration's webhooks: each one's fields,
// its admissionReviewVersions, and unique names. Kubernetes:
// validateValidatingWebhookConfiguration and its mutating twin.
func validateWebhooks(errs apierrors.FieldErrors, hooks []webhookFields, rules *celrules.Compiler) apierrors.FieldErrors {
	names := map[string]bool{}
	for i, h := range hooks {
		hp := pathAt("webhooks").index(i)
		errs = validateWebhook(errs, h, hp, rules)
		errs = validateReviewVersions(errs, h.reviewVersions, hp.child("admissionReviewVersions"))
		if h.name != "" {
			if names[h.name] {
				errs = append(errs, Duplicate(hp.child("name").path(), h.name))
			}
			names[h.name] = true
		}
	}
	return errs
}

func validateWebhook(errs apierrors.FieldErrors, h webhookFields, p fieldPath, rules *celrules.Compiler) apierrors.FieldErrors {
	np := p.child("name")
	switch {
	case h.name == "":
		errs = append(errs, Required(np.path(), ""))
	case len(dns1123SubdomainMsgs(h.name)) > 0:
		errs = append(errs, Invalid(np.path(), h.name, strings.Join(dns1123SubdomainMsgs(h.name), ",")))
	case len(strings.Split(h.name, ".")) < 3:
		errs = append(errs, Invalid(np.path(), h.name, "should be a domain with at least three segments separated by dots"))
	}
	for i, r := range h.rules {
		errs = validateRuleWithOperations(errs, r, p.child("rules").index(i))
	}
	if h.failurePolicy != nil && !slices.Contains(supportedFailurePolicies, *h.failurePolicy) {
		errs = append(errs, NotSupported(p.child("failurePolicy").path(), *h.failurePolicy, supportedFailurePolicies...))
	}
	if h.match != nil && !slices.Contains(supportedMatchPolicies, *h.match) {
		errs = append(errs, NotSupported(p.child("matchPolicy").path(), *h.match, supportedMatchPolicies...))
	}
	if h.sideEffects == nil {
		errs = append(errs, Required(p.child("sideEffects").path(), "must specify one of "+strings.Join(noSideEffectClasses, ", ")))
	} else if !slices.Contains(noSideEffectClasses, *h.sideEffects) {
		errs = append(errs, NotSupported(p.child("sideEffects").path(), *h.sideEffects, noSideEffectClasses...))
	}
	if h.timeout != nil && (*h.timeout > 30 || *h.timeout < 1) {
		errs = append(errs, Invalid(p.child("timeoutSeconds").path(), *h.timeout, "the timeout value must be between 1 and 30 seconds"))
	}
	errs = validateLabelSelector(errs, h.ns, p.child("namespaceSelector"))
	errs = validateLabelSelector(errs, h.obj, p.child("objectSelector"))
	if h.mutating && h.reinvocation != nil && !slices.Contains(supportedReinvocation, *h.reinvocation) {
		errs = append(errs, NotSupported(p.child("reinvocationPolicy").path(), *h.reinvocation, supportedReinvocation...))
	}
	cp := p.child("clientConfig")
	switch {
	case (h.cc.URL == nil) == (h.cc.Service == nil):
		errs = append(errs, Required(cp.path(), "exactly one of url or service is required"))
	case h.cc.URL != nil:
		errs = validateWebhookURL(errs, *h.cc.URL, cp.child("url").path())
	default:
		errs = validateWebhookService(errs, h.cc.Service, cp.child("service"))
	}
	if !h.ignoreMatchConditions {
		errs = validateMatchConditionShapes(errs, h.conditions, p.child("matchConditions"))
		_, cerrs := rules.CompileMatchConditions(h.conditions, celrules.PolicyOptions{}, string(p.child("matchConditions").path()))
		errs = append(errs, cerrs...)
	}
	return errs
}

// validateWebhookURL checks a webhook's https URL. Kubernetes: webhook.ValidateWebhookURL.
func validateWebhookURL(errs apierrors.FieldErrors, raw string, p Path) apierrors.FieldErrors {
	const form = "; desired format: https://host[/path]"
	u, err := url.Parse(raw)
	if err != nil {
		return append(errs, Required(p, "url must be a valid URL: "+err.Error()+form))
	}
	if u.Scheme != "https" {
		errs = append(errs, Invalid(p, u.Scheme, "'https' is the only allowed URL scheme"+form))
	}
	if u.Host == "" {
		errs = append(errs, Invalid(p, u.Host, "host must be specified"+form))
	}
	if u.User != nil {
		errs = append(errs, Invalid(p, u.User.String(), "user information is not permitted in the URL"))
	}
	if u.Fragment != "" {
		errs = append(errs, Invalid(p, u.Fragment, "fragments are not permitted in the URL"))
	}
	if u.RawQuery != "" {
		errs = append(errs, Invalid(p, u.RawQuery, "query parameters are not permitted in the URL"))
	}
	return errs
}

// validateWebhookService checks a webhook's Service reference. Kubernetes:
// webhook.ValidateWebhookService.
func validateWebhookService(errs apierrors.FieldErrors, s *api.ServiceReference, p fieldPath) apierrors.FieldErrors {
	if s.Name == "" {
		errs = append(errs, Required(p.child("name").path(), "service name is required"))
	}
	if s.Namespace == "" {
		errs = append(errs, Required(p.child("namespace").path(), "service namespace is required"))
	}
	port := int32(443)
	if s.Port != nil {
		port = *s.Port
	}
	if port < 1 || port > 65535 {
		errs = append(errs, Invalid(p.child("port").path(), port, "port is not valid: must be between 1 and 65535, inclusive"))
	}
	if s.Path == nil || *s.Path == "/" || *s.Path == "" {
		return errs
	}
	path := *s.Path
	pp := p.child("path").path()
	if path == "//" {
		return append(errs, Invalid(pp, path, "segment[0] may not be empty"))
	}
	if !strings.HasPrefix(path, "/") {
		errs = append(errs, Invalid(pp, path, "must start with a '/'"))
	}
	check := strings.TrimSuffix(path[1:], "/")
	for i, step := range strings.Split(check, "/") {
		if step == "" {
			errs = append(errs, Invalid(pp, path, "segment["+strconv.Itoa(i)+"] may not be empty"))
			continue
		}
		for _, m := range dns1123SubdomainMsgs(step) {
			errs = append(errs, Invalid(pp, path, fmt.Sprintf("segment[%d]: %v", i, m)))
		}
	}
	return errs
}

// validateReviewVersions checks admissionReviewVersions: present, unique,
// DNS-1035 labels, one of them v1 or v1beta1. Kubernetes:
// validateAdmissionReviewVersions.
func validateReviewVersions(errs apierrors.FieldErrors, versions []string, p fieldPath) apierrors.FieldErrors {
	if len(versions) == 0 {
		return append(errs, Required(p.path(), "must specify one of "+strings.Join(acceptedReviewVersions, ", ")))
	}
	seen := map[string]bool{}
	accepted := false
	for i, v := range versions {
		if seen[v] {
			errs = append(errs, Invalid(p.index(i).path(), v, "duplicate version"))
			continue
		}
		seen[v] = true
		errs = invalidEach(errs, p.index(i), v, dns1035LabelMsgs(v))
		accepted = accepted || slices.Contains(acceptedReviewVersions, v)
	}
	if !accepted {
		errs = append(errs, Invalid(p.path(), versions, "must include at least one of "+strings.Join(acceptedReviewVersions, ", ")))
	}
	return errs
}

func validatingHooks(c *api.ValidatingWebhookConfiguration) []webhookFields {
	out := make([]webhookFields, len(c.Webhooks))
	for i, h := range c.Webhooks {
		out[i] = webhookFields{name: h.Name, cc: h.ClientConfig, rules: h.Rules, failurePolicy: h.FailurePolicy, match: h.MatchPolicy,
			sideEffects: h.SideEffects, ns: h.NamespaceSelector, obj: h.ObjectSelector, timeout: h.TimeoutSeconds,
			reviewVersions: h.AdmissionReviewVersions, conditions: h.MatchConditions}
	}
	return out
}

func mutatingHooks(c *api.MutatingWebhookConfiguration) []webhookFields {
	out := make([]webhookFields, len(c.Webhooks))
	for i, h := range c.Webhooks {
		out[i] = webhookFields{name: h.Name, cc: h.ClientConfig, rules: h.Rules, failurePolicy: h.FailurePolicy, match: h.MatchPolicy,
			sideEffects: h.SideEffects, ns: h.NamespaceSelector, obj: h.ObjectSelector, timeout: h.TimeoutSeconds,
			reviewVersions: h.AdmissionReviewVersions, conditions: h.MatchConditions, reinvocation: h.ReinvocationPolicy, mutating: true}
	}
	return out
}

func validateValidatingWebhookConfiguration(c *api.ValidatingWebhookConfiguration, rules *celrules.Compiler) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &c.Metadata, admissionMeta, metadataPath)
	return validateWebhooks(errs, validatingHooks(c), rules)
}

func validateMutatingWebhookConfiguration(c *api.MutatingWebhookConfiguration, rules *celrules.Compiler) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &c.Metadata, admissionMeta, metadataPath)
	return validateWebhooks(errs, mutatingHooks(c), rules)
}

// The updates validate as creates, except that match conditions are
// checked only when they changed, as kube-apiserver keeps stored
// expressions valid.
func validateValidatingWebhookConfigurationUpdate(c, old *api.ValidatingWebhookConfiguration, rules *celrules.Compiler) apierrors.FieldErrors {
	return validateWebhooksUpdate(&c.Metadata, &old.Metadata, validatingHooks(c), validatingHooks(old), rules)
}

func validateMutatingWebhookConfigurationUpdate(c, old *api.MutatingWebhookConfiguration, rules *celrules.Compiler) apierrors.FieldErrors {
	return validateWebhooksUpdate(&c.Metadata, &old.Metadata, mutatingHooks(c), mutatingHooks(old), rules)
}

func validateWebhooksUpdate(m, oldMeta *api.ObjectMeta, hooks, old []webhookFields, rules *celrules.Compiler) apierrors.FieldErrors {
	errs := validateObjectMetaUpdate(nil, m, oldMeta, metadataPath)
	errs = validateObjectMeta(errs, m, admissionMeta, metadataPath)
	ignore := sameConditions(hooks, old)
	for i := range hooks {
		hooks[i].ignoreMatchConditions = ignore
	}
	return validateWebhooks(errs, hooks, rules)
}

// sameConditions reports whether every webhook keeps its match conditions.
// Kubernetes: ignoreValidatingWebhookMatchConditions.
func sameConditions(hooks, old []webhookFields) bool {
	if len(hooks) != len(old) {
		return false
	}
	for i := range hooks {
		if !slices.Equal(hooks[i].conditions, old[i].conditions) {
			return false
		}
	}
	return true
}
