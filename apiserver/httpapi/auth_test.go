package httpapi_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/apiserver/httpapi"
)

// The bodies kubectl v1.32 sends, captured on the wire: its typed clients
// send protobuf in Kubernetes' envelope.
const (
	// kubectl auth can-i create pods
	canICreatePodsProto = "k8s\x00\n2\n\x17authorization.k8s.io/v1\x12\x17SelfSubjectAccessReview\x12?\n\x10\n\x00\x12\x00\x1a\x00\"\x00*\x002\x008\x00B\x00" +
		"\x12!\n\x1f\n\adefault\x12\x06create\x1a\x00\"\x00*\x04pods2\x00:\x00\x1a\b\b\x00\x12\x00\x1a\x00 \x00\x1a\x00\"\x00"
	// kubectl auth whoami
	whoAmIProto = "k8s\x00\n-\n\x18authentication.k8s.io/v1\x12\x11SelfSubjectReview\x12\x1a\n\x10\n\x00\x12\x00\x1a\x00\"\x00*\x002\x008\x00B\x00" +
		"\x12\x06\n\x04\n\x00\x12\x00\x1a\x00\"\x00"
)

const protobufMediaType = "application/vnd.kubernetes.protobuf"

// TestReviews checks the self-review APIs kubectl auth uses: every access
// is allowed with the reason saying why, the spec comes back as sent, in
// JSON or from protobuf, and a malformed review gets Kubernetes' error.
func TestReviews(t *testing.T) {
	const (
		ssar = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
		ssrr = "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews"
		ssr  = "/apis/authentication.k8s.io/v1/selfsubjectreviews"
		sar  = "/apis/authorization.k8s.io/v1/subjectaccessreviews"
		tr   = "/apis/authentication.k8s.io/v1/tokenreviews"
	)
	bearer := map[string]string{"Authorization": "Bearer s3cret"}
	lsar := func(ns string) string {
		return "/apis/authorization.k8s.io/v1/namespaces/" + ns + "/localsubjectaccessreviews"
	}
	tests := []struct {
		name     string
		token    string
		req      request
		wantCode int
		want     string // the JSON answer, or the Status message
	}{
		{name: "can-i, JSON", req: request{method: "POST", path: ssar,
			body: `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":{"resourceAttributes":{"namespace":"default","verb":"delete","resource":"pods","name":"web"}}}`},
			wantCode: 201,
			want: `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","metadata":{"creationTimestamp":null},
				"spec":{"resourceAttributes":{"namespace":"default","verb":"delete","resource":"pods","name":"web"}},
				"status":{"allowed":true,"reason":"miniplane does no authorization"}}`},
		{name: "can-i, protobuf from kubectl", req: request{method: "POST", path: ssar, body: canICreatePodsProto, header: map[string]string{"Content-Type": protobufMediaType}},
			wantCode: 201,
			want: `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","metadata":{"creationTimestamp":null},
				"spec":{"resourceAttributes":{"namespace":"default","verb":"create","resource":"pods"}},
				"status":{"allowed":true,"reason":"miniplane does no authorization"}}`},
		{name: "can-i a path", req: request{method: "POST", path: ssar, body: `{"spec":{"nonResourceAttributes":{"path":"/healthz","verb":"get"}}}`},
			wantCode: 201,
			want: `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","metadata":{"creationTimestamp":null},
				"spec":{"nonResourceAttributes":{"path":"/healthz","verb":"get"}},
				"status":{"allowed":true,"reason":"miniplane does no authorization"}}`},
		{name: "can-i --list", req: request{method: "POST", path: ssrr, body: `{"spec":{"namespace":"default"}}`},
			wantCode: 201,
			want: `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectRulesReview","metadata":{"creationTimestamp":null},"spec":{"namespace":"default"},
				"status":{"resourceRules":[{"verbs":["*"],"apiGroups":["*"],"resources":["*"]}],
				"nonResourceRules":[{"verbs":["*"],"nonResourceURLs":["*"]}],"incomplete":false}}`},
		{name: "whoami, no token", req: request{method: "POST", path: ssr, body: whoAmIProto, header: map[string]string{"Content-Type": protobufMediaType}},
			wantCode: 201,
			want: `{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview","metadata":{"creationTimestamp":null},
				"status":{"userInfo":{"username":"system:anonymous","groups":["system:unauthenticated"]}}}`},
		{name: "whoami with the token", token: "s3cret",
			req:      request{method: "POST", path: ssr, body: `{}`, header: map[string]string{"Authorization": "Bearer s3cret"}},
			wantCode: 201,
			want: `{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview","metadata":{"creationTimestamp":null},
				"status":{"userInfo":{"username":"` + httpapi.TokenUser + `","groups":["system:masters","system:authenticated"]}}}`},
		{name: "whoami without the token", token: "s3cret", req: request{method: "POST", path: ssr, body: `{}`}, wantCode: 401, want: "Unauthorized"},
		{name: "a component asks for a user (delegated authorization)", req: request{method: "POST", path: sar,
			body: `{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"alice","groups":["dev"],"nonResourceAttributes":{"path":"/metrics","verb":"get"}}}`},
			wantCode: 201,
			want: `{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","metadata":{"creationTimestamp":null},
				"spec":{"user":"alice","groups":["dev"],"nonResourceAttributes":{"path":"/metrics","verb":"get"}},
				"status":{"allowed":true,"reason":"miniplane does no authorization"}}`},
		{name: "a namespace's review (conformance: SubjectReview API operations)", req: request{method: "POST", path: lsar("e2e"),
			body: `{"apiVersion":"authorization.k8s.io/v1","kind":"LocalSubjectAccessReview","metadata":{"namespace":"e2e"},"spec":{"user":"e2e","groups":["system:authenticated"],"uid":"u1","resourceAttributes":{"namespace":"e2e","verb":"list","version":"v1","resource":"configmaps"}}}`},
			wantCode: 201,
			want: `{"apiVersion":"authorization.k8s.io/v1","kind":"LocalSubjectAccessReview","metadata":{"namespace":"e2e","creationTimestamp":null},
				"spec":{"resourceAttributes":{"namespace":"e2e","verb":"list","version":"v1","resource":"configmaps"},"user":"e2e","groups":["system:authenticated"],"uid":"u1"},
				"status":{"allowed":true,"reason":"miniplane does no authorization"}}`},
		{name: "a namespace's review takes the path's namespace", req: request{method: "POST", path: lsar("e2e"),
			body: `{"spec":{"user":"e2e","resourceAttributes":{"namespace":"e2e","verb":"get","resource":"pods"}}}`},
			wantCode: 201,
			want: `{"apiVersion":"authorization.k8s.io/v1","kind":"LocalSubjectAccessReview","metadata":{"namespace":"e2e","creationTimestamp":null},
				"spec":{"resourceAttributes":{"namespace":"e2e","verb":"get","resource":"pods"},"user":"e2e"},
				"status":{"allowed":true,"reason":"miniplane does no authorization"}}`},
		{name: "a namespace's review of another namespace", req: request{method: "POST", path: lsar("e2e"),
			body: `{"spec":{"user":"e2e","resourceAttributes":{"namespace":"other","verb":"get","resource":"pods"}}}`}, wantCode: 422,
			want: `LocalSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes.namespace: Invalid value: "other": must match metadata.namespace`},
		{name: "a namespace's review of a path", req: request{method: "POST", path: lsar("e2e"),
			body: `{"spec":{"user":"e2e","nonResourceAttributes":{"path":"/healthz","verb":"get"}}}`}, wantCode: 422,
			want: `LocalSubjectAccessReview.authorization.k8s.io "" is invalid: spec.nonResourceAttributes: Invalid value: "{Path:/healthz Verb:get}": disallowed on this kind of request`},
		{name: "a namespace's review sent to another namespace", req: request{method: "POST", path: lsar("e2e"),
			body: `{"metadata":{"namespace":"other"},"spec":{"user":"e2e","resourceAttributes":{"namespace":"other","verb":"get","resource":"pods"}}}`}, wantCode: 400,
			want: "the namespace of the provided object (other) does not match the namespace sent on the request (e2e)"},
		{name: "a namespace's review outside a namespace", req: request{method: "POST", path: "/apis/authorization.k8s.io/v1/localsubjectaccessreviews", body: `{}`}, wantCode: 404,
			want: "the server could not find the requested resource"},
		{name: "a cluster review in a namespace", req: request{method: "POST", path: "/apis/authorization.k8s.io/v1/namespaces/e2e/subjectaccessreviews", body: `{}`}, wantCode: 404,
			want: "the server could not find the requested resource"},
		{name: "a subject access review names nobody", req: request{method: "POST", path: sar,
			body: `{"spec":{"resourceAttributes":{"verb":"get","resource":"pods"}}}`}, wantCode: 422,
			want: `SubjectAccessReview.authorization.k8s.io "" is invalid: spec.user: Invalid value: "": at least one of user or group must be specified`},
		{name: "the server's token (delegated authentication)", token: "s3cret", req: request{method: "POST", path: tr, header: bearer,
			body: `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":"s3cret","audiences":["https://kubernetes.default.svc"]}}`},
			wantCode: 201,
			want: `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","metadata":{"creationTimestamp":null},
				"spec":{"token":"s3cret","audiences":["https://kubernetes.default.svc"]},
				"status":{"authenticated":true,"user":{"username":"` + httpapi.TokenUser + `","groups":["system:masters","system:authenticated"]},
				"audiences":["https://kubernetes.default.svc"]}}`},
		{name: "another token", token: "s3cret", req: request{method: "POST", path: tr, header: bearer, body: `{"spec":{"token":"guess"}}`},
			wantCode: 201,
			want:     `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","metadata":{"creationTimestamp":null},"spec":{"token":"guess"},"status":{}}`},
		{name: "any token when the server takes none", req: request{method: "POST", path: tr, body: `{"spec":{"token":"s3cret"}}`},
			wantCode: 201,
			want:     `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","metadata":{"creationTimestamp":null},"spec":{"token":"s3cret"},"status":{}}`},
		{name: "no token to review", req: request{method: "POST", path: tr, body: `{"spec":{}}`}, wantCode: 400,
			want: "token is required for TokenReview in authentication"},
		{name: "neither attributes", req: request{method: "POST", path: ssar, body: `{"spec":{}}`}, wantCode: 422,
			want: `SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified`},
		{name: "both attributes", req: request{method: "POST", path: ssar, body: `{"spec":{"resourceAttributes":{"verb":"get"},"nonResourceAttributes":{"path":"/","verb":"get"}}}`}, wantCode: 422,
			want: `SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.nonResourceAttributes: Invalid value: "{Path:/ Verb:get}": cannot be specified in combination with resourceAttributes`},
		{name: "wrong kind", req: request{method: "POST", path: ssar, body: `{"apiVersion":"v1","kind":"Pod"}`}, wantCode: 400,
			want: `the object's kind "Pod" and apiVersion "v1" do not match the path, which takes kind "SelfSubjectAccessReview" in apiVersion "authorization.k8s.io/v1"`},
		{name: "the wrong review in protobuf", req: request{method: "POST", path: ssar, body: whoAmIProto, header: map[string]string{"Content-Type": protobufMediaType}}, wantCode: 400,
			want: `the object's kind "SelfSubjectReview" and apiVersion "authentication.k8s.io/v1" do not match the path, which takes kind "SelfSubjectAccessReview" in apiVersion "authorization.k8s.io/v1"`},
		{name: "not protobuf", req: request{method: "POST", path: ssar, body: `{}`, header: map[string]string{"Content-Type": protobufMediaType}}, wantCode: 400,
			want: `the request body is not a Kubernetes protobuf object: protobuf: malformed message: body does not start with the protobuf prefix "k8s\x00"`},
		{name: "not JSON", req: request{method: "POST", path: ssar, body: `{"spec":`}, wantCode: 400, want: "the request body is not valid JSON: unexpected end of JSON input"},
		{name: "no body", req: request{method: "POST", path: ssar}, wantCode: 400, want: "a SelfSubjectAccessReview needs a body"},
		{name: "YAML", req: request{method: "POST", path: ssar, body: "spec: {}", header: map[string]string{"Content-Type": "application/yaml"}}, wantCode: 415,
			want: `the body of the request was in an unsupported format "application/yaml": this server takes application/json and application/vnd.kubernetes.protobuf`},
		{name: "as a Table (conformance: a backend that does not implement metadata)", req: request{method: "POST", path: ssar,
			body:   `{"spec":{"nonResourceAttributes":{"path":"/","verb":"get"}}}`,
			header: map[string]string{"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}}, wantCode: 406,
			want: "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf"},
		{name: "as a Table among others", req: request{method: "POST", path: ssr, body: `{}`,
			header: map[string]string{"Accept": "application/json;as=Table;v=v1beta1;g=meta.k8s.io, application/json"}}, wantCode: 201,
			want: `{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview","metadata":{"creationTimestamp":null},
				"status":{"userInfo":{"username":"system:anonymous","groups":["system:unauthenticated"]}}}`},
		{name: "GET", req: request{path: ssar}, wantCode: 405, want: `get is not supported on resources of kind "selfsubjectaccessreviews.authorization.k8s.io"`},
		{name: "a name", req: request{method: "POST", path: ssar + "/mine", body: `{}`}, wantCode: 404, want: "the server could not find the requested resource"},
		{name: "another version", req: request{method: "POST", path: "/apis/authentication.k8s.io/v1beta1/selfsubjectreviews", body: `{}`}, wantCode: 404,
			want: "the server could not find the requested resource"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, func(c *httpapi.Config) { c.Token = tt.token })
			before := f.srv.Store().Rev()
			rec := f.do(t, tt.req)
			require.Equal(t, tt.wantCode, rec.Code, rec.Body.String())
			if tt.wantCode == http.StatusCreated {
				assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
				assert.JSONEq(t, tt.want, rec.Body.String())
			} else {
				assert.Equal(t, tt.want, statusOf(t, rec).Message)
			}
			assert.Equal(t, before, f.srv.Store().Rev(), "a review stores nothing")
		})
	}
}

// TestReviewsInLegacyDiscovery: kubectl resolves "selfsubjectaccessreviews"
// through discovery, where the reviews take create only.
func TestReviewsInLegacyDiscovery(t *testing.T) {
	f := newFixture(t, nil)
	rec := f.do(t, request{path: "/apis/authorization.k8s.io/v1"})
	require.Equal(t, http.StatusOK, rec.Code)
	var l struct {
		GroupVersion string `json:"groupVersion"`
		Resources    []struct {
			Name       string   `json:"name"`
			Namespaced bool     `json:"namespaced"`
			Kind       string   `json:"kind"`
			Verbs      []string `json:"verbs"`
		} `json:"resources"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &l))
	assert.Equal(t, "authorization.k8s.io/v1", l.GroupVersion)
	require.Len(t, l.Resources, 4)
	assert.Equal(t, "localsubjectaccessreviews", l.Resources[0].Name)
	assert.True(t, l.Resources[0].Namespaced)
	assert.Equal(t, "selfsubjectaccessreviews", l.Resources[1].Name)
	assert.Equal(t, "SelfSubjectAccessReview", l.Resources[1].Kind)
	assert.False(t, l.Resources[1].Namespaced)
	assert.Equal(t, []string{"create"}, l.Resources[1].Verbs)
	assert.Equal(t, "selfsubjectrulesreviews", l.Resources[2].Name)
	assert.Equal(t, "subjectaccessreviews", l.Resources[3].Name)
	assert.Equal(t, []string{"create"}, l.Resources[3].Verbs)

	rec = f.do(t, request{path: "/openapi/v3"})
	require.Equal(t, http.StatusOK, rec.Code)
	assert.NotContains(t, rec.Body.String(), `"apis/authorization.k8s.io`, "the reviews take no PATCH: OpenAPI has nothing to say of them")
}
