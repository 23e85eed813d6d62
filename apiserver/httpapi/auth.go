package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/miniplane/miniplane/api"
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

// The review objects, in their JSON shapes (k8s.io/api authentication/v1
// and authorization/v1).

type selfSubjectAccessReview struct {
	APIVersion string                    `json:"apiVersion"`
	Kind       string                    `json:"kind"`
	Metadata   json.RawMessage           `json:"metadata"`
	Spec       accessReviewSpec          `json:"spec"`
	Status     subjectAccessReviewStatus `json:"status"`
}

type accessReviewSpec struct {
	ResourceAttributes    *resourceAttributes    `json:"resourceAttributes,omitempty"`
	NonResourceAttributes *nonResourceAttributes `json:"nonResourceAttributes,omitempty"`
}

type resourceAttributes struct {
	Namespace   string `json:"namespace,omitempty"`
	Verb        string `json:"verb,omitempty"`
	Group       string `json:"group,omitempty"`
	Version     string `json:"version,omitempty"`
	Resource    string `json:"resource,omitempty"`
	Subresource string `json:"subresource,omitempty"`
	Name        string `json:"name,omitempty"`
}

type nonResourceAttributes struct {
	Path string `json:"path,omitempty"`
	Verb string `json:"verb,omitempty"`
}

type subjectAccessReviewStatus struct {
	Allowed bool   `json:"allowed"`
	Reason  string `json:"reason,omitempty"`
}

type selfSubjectRulesReview struct {
	APIVersion string                   `json:"apiVersion"`
	Kind       string                   `json:"kind"`
	Metadata   json.RawMessage          `json:"metadata"`
	Spec       rulesReviewSpec          `json:"spec"`
	Status     subjectRulesReviewStatus `json:"status"`
}

type rulesReviewSpec struct {
	Namespace string `json:"namespace,omitempty"`
}

type subjectRulesReviewStatus struct {
	ResourceRules    []resourceRule    `json:"resourceRules"`
	NonResourceRules []nonResourceRule `json:"nonResourceRules"`
	Incomplete       bool              `json:"incomplete"`
}

type resourceRule struct {
	Verbs     []string `json:"verbs"`
	APIGroups []string `json:"apiGroups"`
	Resources []string `json:"resources"`
}

type nonResourceRule struct {
	Verbs           []string `json:"verbs"`
	NonResourceURLs []string `json:"nonResourceURLs"`
}

type selfSubjectReview struct {
	APIVersion string          `json:"apiVersion"`
	Kind       string          `json:"kind"`
	Metadata   json.RawMessage `json:"metadata"`
	Status     struct {
		UserInfo userInfo `json:"userInfo"`
	} `json:"status"`
}

type userInfo struct {
	Username string   `json:"username"`
	Groups   []string `json:"groups"`
}

// serveReview answers a request on a review resource: POST (create) only,
// with a body of the resource's kind, in JSON or in Kubernetes' protobuf
// envelope (kubectl's typed clients send protobuf). The answer is JSON,
// which kubectl accepts too.
func (h *Handler) serveReview(w http.ResponseWriter, r *http.Request, gv *groupVersion, segs []string, info *requestInfo) {
	res, ok := gv.byName[segs[0]]
	if !ok || len(segs) > 1 {
		writeError(w, notFoundPath())
		return
	}
	info.verb, info.resource = "create", res.Resource
	if r.Method != http.MethodPost {
		writeError(w, apiserver.NewMethodNotSupported(res.GroupResource(), methodVerb(r.Method)))
		return
	}
	body, err := readReview(r, res)
	if err != nil {
		writeError(w, err)
		return
	}
	var out any
	switch res.Kind {
	case "SelfSubjectAccessReview":
		out, err = accessReview(body, res)
	case "SelfSubjectRulesReview":
		out, err = rulesReview(body, res)
	case "SelfSubjectReview":
		out = h.whoAmI(res)
	}
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, out)
}

// reviewBody is a review request's body: JSON, or the fields of a protobuf
// message.
type reviewBody struct {
	json  []byte
	proto protoMessage
}

// readReview reads a review's body and checks the kind and apiVersion it
// names, which JSON may leave empty.
func readReview(r *http.Request, res apiserver.ResourceInfo) (reviewBody, error) {
	body, err := readBody(r)
	if err != nil {
		return reviewBody{}, err
	}
	if len(body) == 0 {
		return reviewBody{}, apiserver.NewBadRequest(fmt.Sprintf("a %s needs a body", res.Kind))
	}
	var tm typeMeta
	var out reviewBody
	mt, _, _ := strings.Cut(r.Header.Get("Content-Type"), ";")
	switch strings.TrimSpace(mt) {
	case "application/vnd.kubernetes.protobuf":
		if tm, out.proto, err = decodeProtoEnvelope(body); err != nil {
			return out, apiserver.NewBadRequest(fmt.Sprintf("the body is not a protobuf %s: %v", res.Kind, err))
		}
	case "", "application/json":
		if err := json.Unmarshal(body, &tm); err != nil {
			return out, apiserver.NewBadRequest(fmt.Sprintf("the body is not a JSON object: %v", err))
		}
		out.json = body
	default:
		return out, apiserver.NewUnsupportedMediaType(fmt.Sprintf("the body's media type %q is not supported: send application/json", mt))
	}
	if (tm.Kind != "" && tm.Kind != res.Kind) || (tm.APIVersion != "" && tm.APIVersion != res.APIVersion()) {
		return out, apiserver.NewBadRequest(fmt.Sprintf("the object's kind %q and apiVersion %q do not match the path, which takes kind %q in apiVersion %q",
			tm.Kind, tm.APIVersion, res.Kind, res.APIVersion()))
	}
	return out, nil
}

// accessReview answers `kubectl auth can-i`: yes, always, once the spec
// names exactly one kind of attributes (Kubernetes'
// ValidateSelfSubjectAccessReviewSpec).
func accessReview(body reviewBody, res apiserver.ResourceInfo) (any, error) {
	var rev selfSubjectAccessReview
	if body.json != nil {
		if err := json.Unmarshal(body.json, &rev); err != nil {
			return nil, apiserver.NewBadRequest(fmt.Sprintf("the body is not a valid %s: %v", res.Kind, err))
		}
	} else {
		spec := body.proto.message(2)
		if ra, ok := spec.field(1); ok {
			m := protoMessage(ra)
			rev.Spec.ResourceAttributes = &resourceAttributes{
				Namespace: m.str(1), Verb: m.str(2), Group: m.str(3), Version: m.str(4),
				Resource: m.str(5), Subresource: m.str(6), Name: m.str(7),
			}
		}
		if nra, ok := spec.field(2); ok {
			m := protoMessage(nra)
			rev.Spec.NonResourceAttributes = &nonResourceAttributes{Path: m.str(1), Verb: m.str(2)}
		}
	}
	spec := rev.Spec
	switch {
	case spec.ResourceAttributes != nil && spec.NonResourceAttributes != nil:
		return nil, apiserver.NewInvalid(res.Group, res.Kind, "", apiserver.FieldErrors{{Type: api.CauseTypeFieldValueInvalid,
			Field: "spec.nonResourceAttributes", BadValue: fmt.Sprintf("%+v", *spec.NonResourceAttributes), Detail: "cannot be specified in combination with resourceAttributes"}})
	case spec.ResourceAttributes == nil && spec.NonResourceAttributes == nil:
		return nil, apiserver.NewInvalid(res.Group, res.Kind, "", apiserver.FieldErrors{{Type: api.CauseTypeFieldValueInvalid,
			Field: "spec.resourceAttributes", BadValue: "null", Detail: "exactly one of nonResourceAttributes or resourceAttributes must be specified"}})
	}
	rev.APIVersion, rev.Kind, rev.Metadata = res.APIVersion(), res.Kind, metadataOrEmpty(rev.Metadata)
	rev.Status = subjectAccessReviewStatus{Allowed: true, Reason: reasonNoAuthorization}
	return rev, nil
}

// rulesReview answers `kubectl auth can-i --list`: every verb on every
// resource and path.
func rulesReview(body reviewBody, res apiserver.ResourceInfo) (any, error) {
	var rev selfSubjectRulesReview
	if body.json != nil {
		if err := json.Unmarshal(body.json, &rev); err != nil {
			return nil, apiserver.NewBadRequest(fmt.Sprintf("the body is not a valid %s: %v", res.Kind, err))
		}
	} else {
		rev.Spec.Namespace = body.proto.message(2).str(1)
	}
	rev.APIVersion, rev.Kind, rev.Metadata = res.APIVersion(), res.Kind, metadataOrEmpty(rev.Metadata)
	all := []string{"*"}
	rev.Status = subjectRulesReviewStatus{
		ResourceRules:    []resourceRule{{Verbs: all, APIGroups: all, Resources: all}},
		NonResourceRules: []nonResourceRule{{Verbs: all, NonResourceURLs: all}},
	}
	return rev, nil
}

// whoAmI answers `kubectl auth whoami`: the token's user when the server
// takes a token (a request without it never gets this far), else
// anonymous.
func (h *Handler) whoAmI(res apiserver.ResourceInfo) any {
	rev := selfSubjectReview{APIVersion: res.APIVersion(), Kind: res.Kind, Metadata: json.RawMessage("{}")}
	rev.Status.UserInfo = userInfo{Username: anonymousUser, Groups: []string{"system:unauthenticated"}}
	if h.token != "" {
		rev.Status.UserInfo = userInfo{Username: TokenUser, Groups: []string{"system:masters", "system:authenticated"}}
	}
	return rev
}

// isSet says whether a raw JSON field was sent with a value.
func isSet(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }

func metadataOrEmpty(raw json.RawMessage) json.RawMessage {
	if !isSet(raw) {
		return json.RawMessage("{}")
	}
	return raw
}
