package apiserver

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver/celrules"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/store"
)

// ValidatingAdmissionPolicy admission: kube-apiserver's validating policy
// plugin (k8s.io/apiserver/pkg/admission/plugin/policy/validating, with
// generic and matching), run by the Server on every create, update and
// delete after the kind's validation, as kube-apiserver runs validating
// admission after its strategy. For each binding whose policy exists, in
// policy then binding name order: the policy's matchConstraints and the
// binding's matchResources (rules, names, scope, namespace and object
// selectors, Equivalent versions of a resource), the parameters
// (paramKind/paramRef, parameterNotFoundAction), the match conditions,
// then the validations; a failure Denies (the request's error), Warns (a
// Warning header) or Audits (nothing here: there is no audit log).
// authorizer is not declared to the expressions, and request and
// namespaceObject are not typed (celrules' doc). The admissionregistration
// kinds themselves are exempt, as in kube-apiserver.

// admissionRequest is what a policy matches against and what its
// expressions read as request.
type admissionRequest struct {
	k           *kind
	operation   string // api.OperationCreate, …
	name, ns    string
	subresource string
	obj, old    api.Object // old is nil on create, obj nil on delete
	dryRun      bool
	ctx         context.Context
}

// policyCache keeps compiled policies, by uid and resourceVersion: a
// policy is compiled once per version of it. mu guards compiled.
type policyCache struct {
	mu       sync.Mutex
	compiled map[string]*celrules.Policy
}

// maxCompiledPolicies bounds the cache; it is emptied when full.
const maxCompiledPolicies = 256

func (s *Server) compiledPolicy(p *api.ValidatingAdmissionPolicy) (*celrules.Policy, error) {
	key := string(p.Metadata.UID) + "/" + p.Metadata.ResourceVersion
	c := &s.policies
	c.mu.Lock()
	cp, ok := c.compiled[key]
	c.mu.Unlock()
	if ok {
		return cp, nil
	}
	cp, errs := s.rules.CompilePolicy(&p.Spec)
	if len(errs) > 0 {
		return nil, errors.New(errs[0].Field + ": " + errs[0].Detail)
	}
	c.mu.Lock()
	if c.compiled == nil || len(c.compiled) >= maxCompiledPolicies {
		c.compiled = map[string]*celrules.Policy{}
	}
	c.compiled[key] = cp
	c.mu.Unlock()
	return cp, nil
}

// policyDecision is one denial: the policy, the binding (nil for a
// configuration error of the policy), the message and the reason.
type policyDecision struct {
	policy, binding string
	message         string
	reason          api.StatusReason
}

// admitPolicies runs every bound policy on r; the first denial is the
// request's error, kube-apiserver's:
//
//	deployments.apps "web" is forbidden: ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas' denied request: failed expression: object.spec.replicas <= 5
//
// with the validation's reason (Invalid when it has none) and its code.
// Warn failures go to r.ctx's warnings (client.Warn). A cluster without
// bindings costs one list.
func (s *Server) admitPolicies(r admissionRequest) error {
	if r.k.gr.Group == "admissionregistration.k8s.io" {
		return nil
	}
	bk, pk := s.kinds["validatingadmissionpolicybindings.admissionregistration.k8s.io"], s.kinds["validatingadmissionpolicies.admissionregistration.k8s.io"]
	if bk == nil || pk == nil {
		return nil
	}
	bindings, err := s.store.List(bk.prefix(""), store.ListOptions{})
	if err != nil || len(bindings.Records) == 0 {
		return nil
	}
	policies, err := s.store.List(pk.prefix(""), store.ListOptions{})
	if err != nil {
		return nil
	}
	var denied []policyDecision
	var in *celrules.PolicyInput // built on first use
	for _, prec := range policies.Records {
		policy := prec.Value.(*api.ValidatingAdmissionPolicy)
		var bound []*api.ValidatingAdmissionPolicyBinding
		for _, brec := range bindings.Records {
			if b := brec.Value.(*api.ValidatingAdmissionPolicyBinding); b.Spec.PolicyName == policy.Metadata.Name {
				bound = append(bound, b)
			}
		}
		if len(bound) == 0 {
			continue
		}
		failClosed := policy.Spec.FailurePolicy == nil || *policy.Spec.FailurePolicy == api.FailurePolicyFail
		configError := func(b *api.ValidatingAdmissionPolicyBinding, err error) {
			if !failClosed {
				return
			}
			d := policyDecision{policy: policy.Metadata.Name, message: "failed to configure policy: " + err.Error()}
			if b != nil {
				d.binding, d.message = b.Metadata.Name, "failed to configure binding: "+err.Error()
			}
			denied = append(denied, d)
		}
		if policy.Spec.MatchConstraints == nil {
			continue
		}
		matches, err := s.matchResources(policy.Spec.MatchConstraints, r)
		if err != nil {
			configError(nil, err)
			continue
		}
		if !matches {
			continue
		}
		compiled, err := s.compiledPolicy(policy)
		if err != nil {
			configError(nil, err)
			continue
		}
		for _, b := range bound {
			if b.Spec.MatchResources != nil {
				matches, err := s.matchResources(b.Spec.MatchResources, r)
				if err != nil {
					configError(b, err)
					continue
				}
				if !matches {
					continue
				}
			}
			params, err := s.policyParams(policy.Spec.ParamKind, b.Spec.ParamRef, r.ns)
			if err != nil {
				configError(b, err)
				continue
			}
			if in == nil {
				if in, err = s.policyInput(r); err != nil {
					return apierrors.NewInternalError(err)
				}
			}
			for _, param := range params {
				input := *in
				if input.Params, err = celrules.Value(param); err != nil {
					return apierrors.NewInternalError(err)
				}
				denied = append(denied, s.evaluatePolicy(r.ctx, compiled, policy, b, input, failClosed)...)
			}
		}
	}
	if len(denied) == 0 {
		return nil
	}
	return policyDenial(r, denied[0])
}

// evaluatePolicy evaluates one binding's policy on one input: its match
// conditions, then its validations, and returns the denials, warning for
// the Warn action.
func (s *Server) evaluatePolicy(ctx context.Context, p *celrules.Policy, policy *api.ValidatingAdmissionPolicy, b *api.ValidatingAdmissionPolicyBinding, in celrules.PolicyInput, failClosed bool) []policyDecision {
	var out []policyDecision
	deny := func(msg string, reason api.StatusReason) {
		out = append(out, policyDecision{policy: policy.Metadata.Name, binding: b.Metadata.Name, message: msg, reason: reason})
	}
	matches, err := p.Matches(in)
	if err != nil {
		if failClosed {
			deny(err.Error(), "")
		}
		return out
	}
	if !matches {
		return nil
	}
	for _, f := range p.Validate(in) {
		if f.Error {
			if failClosed {
				deny(f.Message, "")
			}
			continue
		}
		for _, action := range b.Spec.ValidationActions {
			switch action {
			case api.ValidationActionDeny:
				deny(f.Message, f.Reason)
			case api.ValidationActionWarn:
				client.Warn(ctx, fmt.Sprintf("Validation failed for ValidatingAdmissionPolicy '%s' with binding '%s': %s", policy.Metadata.Name, b.Metadata.Name, f.Message))
			}
		}
	}
	return out
}

// policyDenial is the error of a denial, as kube-apiserver's dispatcher
// makes it from admission.NewForbidden.
func policyDenial(r admissionRequest, d policyDecision) error {
	msg := fmt.Sprintf("ValidatingAdmissionPolicy '%s' with binding '%s' denied request: %s", d.policy, d.binding, d.message)
	if d.binding == "" {
		msg = fmt.Sprintf("ValidatingAdmissionPolicy '%s' denied request: %s", d.policy, d.message)
	}
	gr := r.k.gr
	name := r.name
	if r.operation == api.OperationCreate && r.obj != nil {
		name = admissionName(r.obj.GetObjectMeta())
	}
	reason := d.reason
	if reason == "" {
		reason = api.StatusReasonInvalid
	}
	err := apierrors.NewForbidden(gr, name, msg).WithReason(reason)
	err.Status.Details.Causes = append(err.Status.Details.Causes, api.StatusCause{Message: msg})
	return err
}

// matchResources reports whether m selects r: its namespace and object
// selectors, then its exclude rules, then its resource rules (none is
// every resource). Kubernetes: matching.Matcher.Matches.
func (s *Server) matchResources(m *api.MatchResources, r admissionRequest) (bool, error) {
	if ok, err := s.matchNamespace(m.NamespaceSelector, r); err != nil || !ok {
		return false, err
	}
	if ok, err := matchObject(m.ObjectSelector, r); err != nil || !ok {
		return false, err
	}
	equivalent := m.MatchPolicy == nil || *m.MatchPolicy == api.MatchPolicyEquivalent
	if matchRules(m.ExcludeResourceRules, r, equivalent) {
		return false, nil
	}
	return len(m.ResourceRules) == 0 || matchRules(m.ResourceRules, r, equivalent), nil
}

// matchRules reports whether one of rules selects r. With equivalent, a
// rule naming another version of r's group and resource selects it too
// (miniplane serves each resource in one version: its equivalents are its
// other versions). Kubernetes: matchesResourceRules, rules.Matcher.
func matchRules(rules []api.NamedRuleWithOperations, r admissionRequest, equivalent bool) bool {
	group, version := r.k.gr.Group, versionOf(r.k.apiVersion)
	for _, rule := range rules {
		if !ruleMatches(rule.RuleWithOperations, r, group, version, equivalent) {
			continue
		}
		if len(rule.ResourceNames) == 0 || slices.Contains(rule.ResourceNames, r.name) {
			return true
		}
	}
	return false
}

func ruleMatches(rule api.RuleWithOperations, r admissionRequest, group, version string, equivalent bool) bool {
	anyOf := func(items []string, v string) bool { return slices.Contains(items, "*") || slices.Contains(items, v) }
	if !anyOf(rule.Operations, r.operation) || !anyOf(rule.APIGroups, group) {
		return false
	}
	if !anyOf(rule.APIVersions, version) && !(equivalent && len(rule.APIVersions) > 0) {
		return false
	}
	if rule.Scope != nil && *rule.Scope != api.ScopeAll {
		isNamespaces := r.k.gr == apierrors.GroupResource{Resource: client.Namespaces}
		clusterScoped := isNamespaces || r.ns == ""
		if (*rule.Scope == api.ScopeCluster) != clusterScoped {
			return false
		}
	}
	for _, res := range rule.Resources {
		name, sub, _ := cutResource(res)
		if (name == "*" || name == r.k.gr.Resource) && (sub == "*" || sub == r.subresource) {
			return true
		}
	}
	return false
}

func cutResource(s string) (res, sub string, found bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == '/' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// matchNamespace matches a namespace selector: a cluster-scoped object
// (not a Namespace) always matches; else the labels of its namespace (of
// itself, for a Namespace). Kubernetes: namespace.Matcher.MatchNamespaceSelector.
func (s *Server) matchNamespace(sel *api.LabelSelector, r admissionRequest) (bool, error) {
	if sel == nil || len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0 {
		return true, nil
	}
	isNamespace := r.k.gr == apierrors.GroupResource{Resource: client.Namespaces}
	if r.ns == "" && !isNamespace {
		return true, nil
	}
	selector, err := api.LabelSelectorAsSelector(sel)
	if err != nil {
		return false, err
	}
	var labels map[string]string
	if isNamespace {
		for _, o := range []api.Object{r.obj, r.old} {
			if o != nil {
				labels = o.GetObjectMeta().Labels
				break
			}
		}
	} else if ns := s.namespaceObject(r.ns); ns != nil {
		labels = ns.Metadata.Labels
	}
	return selector.Matches(labels), nil
}

// matchObject matches an object selector against the object's or the old
// object's labels. Kubernetes: object.Matcher.MatchObjectSelector.
func matchObject(sel *api.LabelSelector, r admissionRequest) (bool, error) {
	if sel == nil || len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0 {
		return true, nil
	}
	selector, err := api.LabelSelectorAsSelector(sel)
	if err != nil {
		return false, err
	}
	for _, o := range []api.Object{r.obj, r.old} {
		if o != nil && selector.Matches(o.GetObjectMeta().Labels) {
			return true, nil
		}
	}
	return false, nil
}

func (s *Server) namespaceObject(name string) *api.Namespace {
	k := s.kinds[client.Namespaces]
	rec, err := s.store.Get(k.key("", name), 0)
	if err != nil {
		return nil
	}
	return rec.Value.(*api.Namespace)
}

// policyParams returns the parameter objects a binding names ([nil] when
// the policy takes none or the binding gives no paramRef), or the
// configuration error. Kubernetes: generic.CollectParams.
func (s *Server) policyParams(kindRef *api.ParamKind, ref *api.ParamRef, namespace string) ([]api.Object, error) {
	if kindRef == nil || ref == nil {
		return []api.Object{nil}, nil
	}
	k := s.kindOfParam(kindRef)
	if k == nil {
		return nil, fmt.Errorf("paramKind kind `%s, Kind=%s` not known", kindRef.APIVersion, kindRef.Kind)
	}
	ns := ""
	if k.namespaced {
		ns = namespace
		if ref.Namespace != "" {
			ns = ref.Namespace
		} else if ns == "" {
			return nil, errors.New("cannot use namespaced paramRef in policy binding that matches cluster-scoped resources")
		}
	} else if ref.Namespace != "" {
		return nil, errors.New("paramRef.namespace must not be provided for a cluster-scoped `paramKind`")
	}
	var params []api.Object
	switch {
	case ref.Name != "":
		if rec, err := s.store.Get(k.key(ns, ref.Name), 0); err == nil {
			params = append(params, rec.Value)
		}
	case ref.Selector != nil:
		selector, err := api.LabelSelectorAsSelector(ref.Selector)
		if err != nil {
			return nil, err
		}
		res, err := s.store.List(k.prefix(ns), store.ListOptions{})
		if err != nil {
			return nil, err
		}
		for _, rec := range res.Records {
			if selector.Matches(rec.Value.GetObjectMeta().Labels) {
				params = append(params, rec.Value)
			}
		}
	default:
		return nil, errors.New("one of name or selector must be provided")
	}
	if len(params) == 0 && ref.ParameterNotFoundAction != nil && *ref.ParameterNotFoundAction == api.ParameterNotFoundDeny {
		return nil, errors.New("no params found for policy binding with `Deny` parameterNotFoundAction")
	}
	return params, nil
}

// kindOfParam finds the served kind of a paramKind, built-in or custom.
func (s *Server) kindOfParam(p *api.ParamKind) *kind {
	for _, k := range s.served {
		if k.apiVersion == p.APIVersion && k.kind == p.Kind {
			return k
		}
	}
	if c := s.custom.Load(); c != nil {
		if k, ok := c.byType[api.TypeMeta{APIVersion: p.APIVersion, Kind: p.Kind}]; ok {
			return k
		}
	}
	return nil
}

// policyInput is r as the expressions read it: object, oldObject, request
// and namespaceObject. Kubernetes: cel.CreateAdmissionRequest.
func (s *Server) policyInput(r admissionRequest) (*celrules.PolicyInput, error) {
	in := &celrules.PolicyInput{}
	var err error
	if in.Object, err = celrules.Value(r.obj); err != nil {
		return nil, err
	}
	if in.OldObject, err = celrules.Value(r.old); err != nil {
		return nil, err
	}
	group, version := r.k.gr.Group, versionOf(r.k.apiVersion)
	gvk := map[string]any{"group": group, "version": version, "kind": r.k.kind}
	gvr := map[string]any{"group": group, "version": version, "resource": r.k.gr.Resource}
	in.Request = map[string]any{
		"kind": gvk, "resource": gvr, "requestKind": gvk, "requestResource": gvr,
		"subResource": r.subresource, "requestSubResource": r.subresource,
		"name": r.name, "namespace": r.ns, "operation": r.operation, "dryRun": r.dryRun,
		"userInfo": map[string]any{"username": "", "groups": []any{}},
	}
	if r.ns != "" && r.k.gr.Resource != client.Namespaces {
		if ns := s.namespaceObject(r.ns); ns != nil {
			if in.Namespace, err = celrules.Value(ns); err != nil {
				return nil, err
			}
		}
	}
	return in, nil
}
