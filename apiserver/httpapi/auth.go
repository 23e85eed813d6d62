package httpapi

import (
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/apiserver/rbac"
	"github.com/miniplane/miniplane/apiserver/serviceaccount"
)

// The review APIs: a client asks the server who it is
// (authentication.k8s.io SelfSubjectReview, `kubectl auth whoami`) and what
// it may do (authorization.k8s.io SelfSubjectAccessReview and
// SelfSubjectRulesReview, `kubectl auth can-i`); a component serving its own
// port (the real kube-scheduler and kube-controller-manager, with delegated
// authentication and authorization) asks who a bearer token is
// (TokenReview) and what a user may do (SubjectAccessReview, or
// LocalSubjectAccessReview for one namespace, posted in it). Nothing is
// stored: each POST is answered with the object sent, its status filled in.
// The answers come from the Handler's Authorizer (authz.go), or allow
// everything without one; authentication is the optional bearer token and
// the service-account tokens of TokenRequest.

// Users the reviews report.
const (
	// TokenUser is the user a request carrying the configured bearer token
	// is, in the group system:masters, as with a static token file.
	TokenUser = "miniplane-admin"
	// anonymousUser is who a request is when the server takes no token.
	anonymousUser = "system:anonymous"
)

// reasonNoAuthorization is the reason every access review gives.
const reasonNoAuthorization = "miniplane does no authorization"

// reviewVerbs are the verbs of the review resources: create only.
var reviewVerbs = []string{"create"}

// reviewGroups are the group versions of the review resources, served
// beside the Server's own resources in discovery.
func reviewGroups() []*groupVersion {
	gvs := []*groupVersion{
		{group: "authentication.k8s.io", version: "v1", resources: []apiserver.ResourceInfo{
			{Resource: "selfsubjectreviews", Singular: "selfsubjectreview", Kind: "SelfSubjectReview"},
			{Resource: "tokenreviews", Singular: "tokenreview", Kind: "TokenReview"},
		}},
		{group: "authorization.k8s.io", version: "v1", resources: []apiserver.ResourceInfo{
			{Resource: "localsubjectaccessreviews", Singular: "localsubjectaccessreview", Kind: "LocalSubjectAccessReview", Namespaced: true},
			{Resource: "selfsubjectaccessreviews", Singular: "selfsubjectaccessreview", Kind: "SelfSubjectAccessReview"},
			{Resource: "selfsubjectrulesreviews", Singular: "selfsubjectrulesreview", Kind: "SelfSubjectRulesReview"},
			{Resource: "subjectaccessreviews", Singular: "subjectaccessreview", Kind: "SubjectAccessReview"},
		}},
	}
	for _, gv := range gvs {
		gv.path = "apis/" + gv.group + "/" + gv.version
		gv.reviews = true
		gv.byName = make(map[string]apiserver.ResourceInfo)
		for i := range gv.resources {
			gv.resources[i].Group, gv.resources[i].Version = gv.group, gv.version
			gv.byName[gv.resources[i].Resource] = gv.resources[i]
		}
	}
	return gvs
}

// verbsOf is what discovery lists for a resource.
func verbsOf(gv *groupVersion) []string {
	if gv.reviews {
		return reviewVerbs
	}
	return resourceVerbs
}

// discoveryGroups are every group version discovery lists: the Server's,
// then the reviews', ordered by group (core first), and a group's versions
// by Kubernetes' version priority (the preferred one first).
func (h *Handler) discoveryGroups() []*groupVersion {
	all := slices.Concat(h.currentRoutes().groups, h.reviews)
	slices.SortStableFunc(all, func(a, b *groupVersion) int {
		switch {
		case a.group == b.group:
			return compareVersionPriority(a.version, b.version)
		case a.group == "":
			return -1
		case b.group == "":
			return 1
		case a.group < b.group:
			return -1
		}
		return 1
	})
	return all
}

// The review objects, in their JSON shapes and with their protobuf field
// numbers (k8s.io/api authentication/v1 and authorization/v1): kubectl's
// typed clients send them in protobuf.

type selfSubjectAccessReview struct {
	api.TypeMeta `json:",inline"`
	Metadata     api.ObjectMeta            `json:"metadata" protobuf:"bytes,1,opt,name=metadata"`
	Spec         accessReviewSpec          `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	Status       subjectAccessReviewStatus `json:"status" protobuf:"bytes,3,opt,name=status"`
}

type accessReviewSpec struct {
	ResourceAttributes    *resourceAttributes    `json:"resourceAttributes,omitempty" protobuf:"bytes,1,opt,name=resourceAttributes"`
	NonResourceAttributes *nonResourceAttributes `json:"nonResourceAttributes,omitempty" protobuf:"bytes,2,opt,name=nonResourceAttributes"`
}

type resourceAttributes struct {
	Namespace   string `json:"namespace,omitempty" protobuf:"bytes,1,opt,name=namespace"`
	Verb        string `json:"verb,omitempty" protobuf:"bytes,2,opt,name=verb"`
	Group       string `json:"group,omitempty" protobuf:"bytes,3,opt,name=group"`
	Version     string `json:"version,omitempty" protobuf:"bytes,4,opt,name=version"`
	Resource    string `json:"resource,omitempty" protobuf:"bytes,5,opt,name=resource"`
	Subresource string `json:"subresource,omitempty" protobuf:"bytes,6,opt,name=subresource"`
	Name        string `json:"name,omitempty" protobuf:"bytes,7,opt,name=name"`
}

type nonResourceAttributes struct {
	Path string `json:"path,omitempty" protobuf:"bytes,1,opt,name=path"`
	Verb string `json:"verb,omitempty" protobuf:"bytes,2,opt,name=verb"`
}

type subjectAccessReviewStatus struct {
	Allowed bool   `json:"allowed" protobuf:"varint,1,opt,name=allowed"`
	Reason  string `json:"reason,omitempty" protobuf:"bytes,2,opt,name=reason"`
}

// subjectAccessReview asks what another user may do. The spec's extra
// (field 5) is not read: a miniplane answer does not depend on it.
type subjectAccessReview struct {
	api.TypeMeta `json:",inline"`
	Metadata     api.ObjectMeta            `json:"metadata" protobuf:"bytes,1,opt,name=metadata"`
	Spec         subjectAccessReviewSpec   `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	Status       subjectAccessReviewStatus `json:"status" protobuf:"bytes,3,opt,name=status"`
}

type subjectAccessReviewSpec struct {
	ResourceAttributes    *resourceAttributes    `json:"resourceAttributes,omitempty" protobuf:"bytes,1,opt,name=resourceAttributes"`
	NonResourceAttributes *nonResourceAttributes `json:"nonResourceAttributes,omitempty" protobuf:"bytes,2,opt,name=nonResourceAttributes"`
	User                  string                 `json:"user,omitempty" protobuf:"bytes,3,opt,name=user"`
	Groups                []string               `json:"groups,omitempty" protobuf:"bytes,4,rep,name=groups"`
	UID                   string                 `json:"uid,omitempty" protobuf:"bytes,6,opt,name=uid"`
}

// tokenReview asks who a bearer token is.
type tokenReview struct {
	api.TypeMeta `json:",inline"`
	Metadata     api.ObjectMeta    `json:"metadata" protobuf:"bytes,1,opt,name=metadata"`
	Spec         tokenReviewSpec   `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	Status       tokenReviewStatus `json:"status" protobuf:"bytes,3,opt,name=status"`
}

type tokenReviewSpec struct {
	Token     string   `json:"token,omitempty" protobuf:"bytes,1,opt,name=token"`
	Audiences []string `json:"audiences,omitempty" protobuf:"bytes,2,rep,name=audiences"`
}

type tokenReviewStatus struct {
	Authenticated bool      `json:"authenticated,omitempty" protobuf:"varint,1,opt,name=authenticated"`
	User          *userInfo `json:"user,omitempty" protobuf:"bytes,2,opt,name=user"`
	Audiences     []string  `json:"audiences,omitempty" protobuf:"bytes,4,rep,name=audiences"`
	Error         string    `json:"error,omitempty" protobuf:"bytes,3,opt,name=error"`
}

type selfSubjectRulesReview struct {
	api.TypeMeta `json:",inline"`
	Metadata     api.ObjectMeta           `json:"metadata" protobuf:"bytes,1,opt,name=metadata"`
	Spec         rulesReviewSpec          `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	Status       subjectRulesReviewStatus `json:"status" protobuf:"bytes,3,opt,name=status"`
}

type rulesReviewSpec struct {
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,1,opt,name=namespace"`
}

type subjectRulesReviewStatus struct {
	ResourceRules    []resourceRule    `json:"resourceRules" protobuf:"bytes,1,rep,name=resourceRules"`
	NonResourceRules []nonResourceRule `json:"nonResourceRules" protobuf:"bytes,2,rep,name=nonResourceRules"`
	Incomplete       bool              `json:"incomplete" protobuf:"varint,3,opt,name=incomplete"`
}

type resourceRule struct {
	Verbs     []string `json:"verbs" protobuf:"bytes,1,rep,name=verbs"`
	APIGroups []string `json:"apiGroups" protobuf:"bytes,2,rep,name=apiGroups"`
	Resources []string `json:"resources" protobuf:"bytes,3,rep,name=resources"`
	// ResourceNames is the optional list of names the rule applies to.
	ResourceNames []string `json:"resourceNames,omitempty" protobuf:"bytes,4,rep,name=resourceNames"`
}

type nonResourceRule struct {
	Verbs           []string `json:"verbs" protobuf:"bytes,1,rep,name=verbs"`
	NonResourceURLs []string `json:"nonResourceURLs" protobuf:"bytes,2,rep,name=nonResourceURLs"`
}

type selfSubjectReview struct {
	api.TypeMeta `json:",inline"`
	Metadata     api.ObjectMeta          `json:"metadata" protobuf:"bytes,1,opt,name=metadata"`
	Status       selfSubjectReviewStatus `json:"status" protobuf:"bytes,2,opt,name=status"`
}

type selfSubjectReviewStatus struct {
	UserInfo userInfo `json:"userInfo" protobuf:"bytes,1,opt,name=userInfo"`
}

type userInfo struct {
	Username string                `json:"username" protobuf:"bytes,1,opt,name=username"`
	UID      string                `json:"uid,omitempty" protobuf:"bytes,2,opt,name=uid"`
	Groups   []string              `json:"groups" protobuf:"bytes,3,rep,name=groups"`
	Extra    map[string]extraValue `json:"extra,omitempty" protobuf:"bytes,4,rep,name=extra" protobuf_key:"bytes,1,opt,name=key" protobuf_val:"bytes,2,opt,name=value"`
}

// extraValue is one extra of a user: a list of strings in JSON, a message
// of them (field 1) in protobuf. Kubernetes: authenticationv1.ExtraValue.
type extraValue struct {
	Items []string `protobuf:"bytes,1,rep,name=items"`
}

func (e extraValue) MarshalJSON() ([]byte, error) { return json.Marshal(e.Items) }

func (e *extraValue) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, &e.Items) }

// extraOf is a user's extras as a review writes them.
func extraOf(extra map[string][]string) map[string]extraValue {
	if len(extra) == 0 {
		return nil
	}
	out := make(map[string]extraValue, len(extra))
	for k, v := range extra {
		out[k] = extraValue{Items: v}
	}
	return out
}

// serveReview answers a request on a review resource: POST (create) only,
// with a body of the resource's kind in JSON or protobuf, answered in the
// format Accept asks for.
func (h *Handler) serveReview(w http.ResponseWriter, r *http.Request, gv *groupVersion, segs []string, info *requestInfo) {
	namespace := ""
	if len(segs) == 3 && segs[0] == "namespaces" {
		namespace, segs = segs[1], segs[2:]
	}
	res, ok := gv.byName[segs[0]]
	if !ok || len(segs) > 1 || res.Namespaced != (namespace != "") {
		writeError(w, notFoundPath())
		return
	}
	info.verb, info.resource = "create", res.Resource
	if r.Method != http.MethodPost {
		writeError(w, apierrors.NewMethodNotSupported(res.GroupResource(), methodVerb(r.Method)))
		return
	}
	out, err := h.review(w, r, res, namespace)
	if err != nil {
		writeError(w, err)
		return
	}
	writeValue(w, http.StatusCreated, out.format, res.APIVersion(), res.Kind, out.review)
}

// answeredReview is a review with its status filled in, and the format to
// answer in.
type answeredReview struct {
	format format
	review any
}

// review decodes a review request and answers it; namespace is the path's,
// for a namespaced review.
func (h *Handler) review(w http.ResponseWriter, r *http.Request, res apiserver.ResourceInfo, namespace string) (answeredReview, error) {
	out, err := negotiateReview(r)
	if err != nil {
		return answeredReview{}, err
	}
	if _, err := bodyFormat(r); err != nil {
		return answeredReview{}, err
	}
	body, err := readBody(r)
	if err != nil {
		return answeredReview{}, err
	}
	if len(body) == 0 {
		return answeredReview{}, apierrors.NewBadRequest(fmt.Sprintf("a %s needs a body", res.Kind))
	}
	var rev any
	switch res.Kind {
	case "SelfSubjectAccessReview":
		var ssar selfSubjectAccessReview
		if err := h.decodeBody(w, r, body, &ssar, res.Kind, res.APIVersion()); err != nil {
			return answeredReview{}, err
		}
		rev, err = h.accessReview(r, &ssar, res)
	case "SelfSubjectRulesReview":
		var ssrr selfSubjectRulesReview
		if err := h.decodeBody(w, r, body, &ssrr, res.Kind, res.APIVersion()); err != nil {
			return answeredReview{}, err
		}
		rev = h.rulesReview(r, &ssrr, res)
	case "SubjectAccessReview":
		var sar subjectAccessReview
		if err := h.decodeBody(w, r, body, &sar, res.Kind, res.APIVersion()); err != nil {
			return answeredReview{}, err
		}
		rev, err = h.subjectReview(r, &sar, res)
	case "LocalSubjectAccessReview":
		var sar subjectAccessReview
		if err := h.decodeBody(w, r, body, &sar, res.Kind, res.APIVersion()); err != nil {
			return answeredReview{}, err
		}
		if err := checkObjectPath(&sar.Metadata, res, namespace, ""); err != nil {
			return answeredReview{}, err
		}
		rev, err = h.subjectReview(r, &sar, res)
	case "TokenReview":
		var tr tokenReview
		if err := h.decodeBody(w, r, body, &tr, res.Kind, res.APIVersion()); err != nil {
			return answeredReview{}, err
		}
		rev, err = h.tokenReview(r, &tr, res)
	default: // SelfSubjectReview
		var ssr selfSubjectReview
		if err := h.decodeBody(w, r, body, &ssr, res.Kind, res.APIVersion()); err != nil {
			return answeredReview{}, err
		}
		rev = h.whoAmI(r, &ssr, res)
	}
	return answeredReview{format: out.format, review: rev}, err
}

// accessReview answers `kubectl auth can-i`: what the authorizer says of
// the requesting user (after impersonation, so `--as` asks for another),
// once the spec names exactly one kind of attributes (Kubernetes'
// ValidateSelfSubjectAccessReviewSpec).
func (h *Handler) accessReview(r *http.Request, rev *selfSubjectAccessReview, res apiserver.ResourceInfo) (any, error) {
	if errs := attributesErrors(rev.Spec.ResourceAttributes, rev.Spec.NonResourceAttributes); len(errs) > 0 {
		return nil, apierrors.NewInvalid(res.Group, res.Kind, "", errs)
	}
	rev.TypeMeta = api.TypeMeta{APIVersion: res.APIVersion(), Kind: res.Kind}
	rev.Status = h.decide(r, userOf(r), rev.Spec.ResourceAttributes, rev.Spec.NonResourceAttributes)
	return rev, nil
}

// decide is an access review's answer: allowed or not, with the
// authorizer's reason; "denied" stays false, as RBAC has no opinion on
// what it does not allow. Without an authorizer everything is allowed.
func (h *Handler) decide(r *http.Request, u rbac.User, ra *resourceAttributes, nra *nonResourceAttributes) subjectAccessReviewStatus {
	if h.authz == nil {
		return subjectAccessReviewStatus{Allowed: true, Reason: reasonNoAuthorization}
	}
	a := rbac.Attributes{User: u}
	if ra != nil {
		a.ResourceRequest, a.Verb, a.Namespace, a.APIGroup, a.APIVersion = true, ra.Verb, ra.Namespace, ra.Group, ra.Version
		a.Resource, a.Subresource, a.Name = ra.Resource, ra.Subresource, ra.Name
	} else {
		a.Verb, a.Path = nra.Verb, nra.Path
	}
	allowed, reason := h.authz.Authorize(r.Context(), a)
	return subjectAccessReviewStatus{Allowed: allowed, Reason: reason}
}

// attributesErrors checks that an access review names exactly one kind of
// attributes.
func attributesErrors(ra *resourceAttributes, nra *nonResourceAttributes) apierrors.FieldErrors {
	switch {
	case ra != nil && nra != nil:
		return apierrors.FieldErrors{{Type: api.CauseTypeFieldValueInvalid,
			Field: "spec.nonResourceAttributes", BadValue: fmt.Sprintf("%+v", *nra), Detail: "cannot be specified in combination with resourceAttributes"}}
	case ra == nil && nra == nil:
		return apierrors.FieldErrors{{Type: api.CauseTypeFieldValueInvalid,
			Field: "spec.resourceAttributes", BadValue: "null", Detail: "exactly one of nonResourceAttributes or resourceAttributes must be specified"}}
	}
	return nil
}

// subjectReview answers a component asking whether a user may do
// something (delegated authorization): what the authorizer says of the
// spec's user and groups, once the spec is valid
// (Kubernetes' ValidateSubjectAccessReviewSpec: one kind of attributes, and
// a user or a group). A LocalSubjectAccessReview's attributes must also
// name its own namespace and no path (ValidateLocalSubjectAccessReview;
// its rule that the metadata hold nothing but the namespace is not
// checked).
func (h *Handler) subjectReview(r *http.Request, rev *subjectAccessReview, res apiserver.ResourceInfo) (any, error) {
	errs := attributesErrors(rev.Spec.ResourceAttributes, rev.Spec.NonResourceAttributes)
	if rev.Spec.User == "" && len(rev.Spec.Groups) == 0 {
		errs = append(errs, apierrors.FieldError{Type: api.CauseTypeFieldValueInvalid,
			Field: "spec.user", BadValue: "", Detail: "at least one of user or group must be specified"})
	}
	if res.Namespaced {
		if ra := rev.Spec.ResourceAttributes; ra != nil && ra.Namespace != rev.Metadata.Namespace {
			errs = append(errs, apierrors.FieldError{Type: api.CauseTypeFieldValueInvalid,
				Field: "spec.resourceAttributes.namespace", BadValue: ra.Namespace, Detail: "must match metadata.namespace"})
		}
		if nra := rev.Spec.NonResourceAttributes; nra != nil {
			errs = append(errs, apierrors.FieldError{Type: api.CauseTypeFieldValueInvalid,
				Field: "spec.nonResourceAttributes", BadValue: fmt.Sprintf("%+v", *nra), Detail: "disallowed on this kind of request"})
		}
	}
	if len(errs) > 0 {
		return nil, apierrors.NewInvalid(res.Group, res.Kind, "", errs)
	}
	rev.TypeMeta = api.TypeMeta{APIVersion: res.APIVersion(), Kind: res.Kind}
	u := rbac.User{Name: rev.Spec.User, UID: rev.Spec.UID, Groups: rev.Spec.Groups}
	rev.Status = h.decide(r, u, rev.Spec.ResourceAttributes, rev.Spec.NonResourceAttributes)
	return rev, nil
}

// tokenReview answers a component asking who a bearer token is (delegated
// authentication): the token serve was given is TokenUser, in
// system:masters; any other token, or any token when the server takes none,
// is not authenticated. An empty token is a 400, as kube-apiserver answers.
func (h *Handler) tokenReview(r *http.Request, rev *tokenReview, res apiserver.ResourceInfo) (any, error) {
	if rev.Spec.Token == "" {
		return nil, apierrors.NewBadRequest("token is required for TokenReview in authentication")
	}
	rev.TypeMeta = api.TypeMeta{APIVersion: res.APIVersion(), Kind: res.Kind}
	rev.Status = tokenReviewStatus{}
	if h.token != "" && subtle.ConstantTimeCompare([]byte(rev.Spec.Token), []byte(h.token)) == 1 {
		u := tokenUser()
		rev.Status = tokenReviewStatus{Authenticated: true, Audiences: rev.Spec.Audiences,
			User: &userInfo{Username: u.Name, Groups: u.Groups}}
		return rev, nil
	}
	if h.tokens == nil {
		return rev, nil
	}
	u, audiences, ok := h.tokens.AuthenticateToken(r.Context(), rev.Spec.Token)
	if !ok {
		return rev, nil
	}
	want := rev.Spec.Audiences
	if len(want) == 0 {
		want = []string{APIAudience}
	}
	both := serviceaccount.Audiences(audiences, want)
	if len(both) == 0 {
		rev.Status.Error = "token audiences " + quoteList(audiences) + " is invalid for the target audiences " + quoteList(want)
		return rev, nil
	}
	rev.Status = tokenReviewStatus{Authenticated: true, Audiences: both,
		User: &userInfo{Username: u.Name, UID: u.UID, Groups: u.Groups, Extra: extraOf(u.Extra)}}
	return rev, nil
}

// APIAudience is the audience the API server accepts tokens for when a
// TokenReview names none: kube-apiserver's default --api-audiences, its
// service account issuer.
const APIAudience = serviceaccount.DefaultIssuer

// quoteList prints a list as Go's %q of a []string does.
func quoteList(list []string) string { return fmt.Sprintf("%q", list) }

// rulesReview answers `kubectl auth can-i --list`: the rules the
// authorizer grants the requesting user in the spec's namespace, or every
// verb on every resource and path without one. Kubernetes:
// SelfSubjectRulesReview's REST, RBACAuthorizer.RulesFor.
func (h *Handler) rulesReview(r *http.Request, rev *selfSubjectRulesReview, res apiserver.ResourceInfo) any {
	rev.TypeMeta = api.TypeMeta{APIVersion: res.APIVersion(), Kind: res.Kind}
	if h.authz == nil {
		all := []string{"*"}
		rev.Status = subjectRulesReviewStatus{
			ResourceRules:    []resourceRule{{Verbs: all, APIGroups: all, Resources: all}},
			NonResourceRules: []nonResourceRule{{Verbs: all, NonResourceURLs: all}},
		}
		return rev
	}
	rules, incomplete := h.authz.Rules(r.Context(), userOf(r), rev.Spec.Namespace)
	st := subjectRulesReviewStatus{ResourceRules: []resourceRule{}, NonResourceRules: []nonResourceRule{}, Incomplete: incomplete}
	for _, rule := range rules {
		if len(rule.NonResourceURLs) > 0 {
			st.NonResourceRules = append(st.NonResourceRules, nonResourceRule{Verbs: rule.Verbs, NonResourceURLs: rule.NonResourceURLs})
			continue
		}
		st.ResourceRules = append(st.ResourceRules, resourceRule{Verbs: rule.Verbs, APIGroups: rule.APIGroups, Resources: rule.Resources, ResourceNames: rule.ResourceNames})
	}
	rev.Status = st
	return rev
}

// whoAmI answers `kubectl auth whoami`: the user the request acts as (its
// token's, or whom it impersonates), anonymous when the server takes no
// token.
func (h *Handler) whoAmI(r *http.Request, rev *selfSubjectReview, res apiserver.ResourceInfo) any {
	rev.TypeMeta = api.TypeMeta{APIVersion: res.APIVersion(), Kind: res.Kind}
	u := userOf(r)
	rev.Status.UserInfo = userInfo{Username: u.Name, UID: u.UID, Groups: u.Groups}
	return rev
}
