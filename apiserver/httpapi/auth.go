package httpapi

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
)

// The review APIs: a client asks the server who it is
// (authentication.k8s.io SelfSubjectReview, `kubectl auth whoami`) and what
// it may do (authorization.k8s.io SelfSubjectAccessReview and
// SelfSubjectRulesReview, `kubectl auth can-i`). Nothing is stored: each
// POST is answered with the object sent, its status filled in.
// miniplane does no authorization, so every action is allowed; the only
// authentication is the optional bearer token.

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
		}},
		{group: "authorization.k8s.io", version: "v1", resources: []apiserver.ResourceInfo{
			{Resource: "selfsubjectaccessreviews", Singular: "selfsubjectaccessreview", Kind: "SelfSubjectAccessReview"},
			{Resource: "selfsubjectrulesreviews", Singular: "selfsubjectrulesreview", Kind: "SelfSubjectRulesReview"},
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
// then the reviews', ordered by group (core first).
func (h *Handler) discoveryGroups() []*groupVersion {
	all := slices.Concat(h.groups, h.reviews)
	slices.SortStableFunc(all, func(a, b *groupVersion) int {
		switch {
		case a.group == b.group:
			return 0
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
	Username string   `json:"username" protobuf:"bytes,1,opt,name=username"`
	Groups   []string `json:"groups" protobuf:"bytes,3,rep,name=groups"`
}

// serveReview answers a request on a review resource: POST (create) only,
// with a body of the resource's kind in JSON or protobuf, answered in the
// format Accept asks for.
func (h *Handler) serveReview(w http.ResponseWriter, r *http.Request, gv *groupVersion, segs []string, info *requestInfo) {
	res, ok := gv.byName[segs[0]]
	if !ok || len(segs) > 1 {
		writeError(w, notFoundPath())
		return
	}
	info.verb, info.resource = "create", res.Resource
	if r.Method != http.MethodPost {
		writeError(w, apierrors.NewMethodNotSupported(res.GroupResource(), methodVerb(r.Method)))
		return
	}
	out, err := h.review(w, r, res)
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

// review decodes a review request and answers it.
func (h *Handler) review(w http.ResponseWriter, r *http.Request, res apiserver.ResourceInfo) (answeredReview, error) {
	out, err := negotiate(r, false)
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
		rev, err = accessReview(&ssar, res)
	case "SelfSubjectRulesReview":
		var ssrr selfSubjectRulesReview
		if err := h.decodeBody(w, r, body, &ssrr, res.Kind, res.APIVersion()); err != nil {
			return answeredReview{}, err
		}
		rev = rulesReview(&ssrr, res)
	default: // SelfSubjectReview
		var ssr selfSubjectReview
		if err := h.decodeBody(w, r, body, &ssr, res.Kind, res.APIVersion()); err != nil {
			return answeredReview{}, err
		}
		rev = h.whoAmI(&ssr, res)
	}
	return answeredReview{format: out.format, review: rev}, err
}

// accessReview answers `kubectl auth can-i`: yes, always, once the spec
// names exactly one kind of attributes (Kubernetes'
// ValidateSelfSubjectAccessReviewSpec).
func accessReview(rev *selfSubjectAccessReview, res apiserver.ResourceInfo) (any, error) {
	spec := rev.Spec
	switch {
	case spec.ResourceAttributes != nil && spec.NonResourceAttributes != nil:
		return nil, apierrors.NewInvalid(res.Group, res.Kind, "", apierrors.FieldErrors{{Type: api.CauseTypeFieldValueInvalid,
			Field: "spec.nonResourceAttributes", BadValue: fmt.Sprintf("%+v", *spec.NonResourceAttributes), Detail: "cannot be specified in combination with resourceAttributes"}})
	case spec.ResourceAttributes == nil && spec.NonResourceAttributes == nil:
		return nil, apierrors.NewInvalid(res.Group, res.Kind, "", apierrors.FieldErrors{{Type: api.CauseTypeFieldValueInvalid,
			Field: "spec.resourceAttributes", BadValue: "null", Detail: "exactly one of nonResourceAttributes or resourceAttributes must be specified"}})
	}
	rev.TypeMeta = api.TypeMeta{APIVersion: res.APIVersion(), Kind: res.Kind}
	rev.Status = subjectAccessReviewStatus{Allowed: true, Reason: reasonNoAuthorization}
	return rev, nil
}

// rulesReview answers `kubectl auth can-i --list`: every verb on every
// resource and path.
func rulesReview(rev *selfSubjectRulesReview, res apiserver.ResourceInfo) any {
	rev.TypeMeta = api.TypeMeta{APIVersion: res.APIVersion(), Kind: res.Kind}
	all := []string{"*"}
	rev.Status = subjectRulesReviewStatus{
		ResourceRules:    []resourceRule{{Verbs: all, APIGroups: all, Resources: all}},
		NonResourceRules: []nonResourceRule{{Verbs: all, NonResourceURLs: all}},
	}
	return rev
}

// whoAmI answers `kubectl auth whoami`: the token's user when the server
// takes a token (a request without it never gets this far), else
// anonymous.
func (h *Handler) whoAmI(rev *selfSubjectReview, res apiserver.ResourceInfo) any {
	rev.TypeMeta = api.TypeMeta{APIVersion: res.APIVersion(), Kind: res.Kind}
	rev.Status.UserInfo = userInfo{Username: anonymousUser, Groups: []string{"system:unauthenticated"}}
	if h.token != "" {
		rev.Status.UserInfo = userInfo{Username: TokenUser, Groups: []string{"system:masters", "system:authenticated"}}
	}
	return rev
}
