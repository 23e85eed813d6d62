package httpapi

import (
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/apiserver/rbac"
)

// TestRequestAttributes ports the scenarios of k8s.io/apiserver's
// TestGetAPIRequestInfo and TestGetNonAPIRequestInfo.
func TestRequestAttributes(t *testing.T) {
	res := func(verb, group, version, ns, resource, name, sub string) rbac.Attributes {
		return rbac.Attributes{ResourceRequest: true, Verb: verb, APIGroup: group, APIVersion: version,
			Namespace: ns, Resource: resource, Name: name, Subresource: sub}
	}
	tests := []struct {
		method, url string
		want        rbac.Attributes
	}{
		{"GET", "/api/v1/namespaces", res("list", "", "v1", "", "namespaces", "", "")},
		{"GET", "/api/v1/namespaces/other", res("get", "", "v1", "other", "namespaces", "other", "")},
		{"GET", "/api/v1/namespaces/other/pods", res("list", "", "v1", "other", "pods", "", "")},
		{"GET", "/api/v1/namespaces/other/pods/foo", res("get", "", "v1", "other", "pods", "foo", "")},
		{"HEAD", "/api/v1/namespaces/other/pods/foo", res("get", "", "v1", "other", "pods", "foo", "")},
		{"GET", "/api/v1/pods", res("list", "", "v1", "", "pods", "", "")},
		{"GET", "/api/v1/namespaces/other/pods?watch=true", res("watch", "", "v1", "other", "pods", "", "")},
		{"GET", "/api/v1/watch/namespaces/other/pods", res("watch", "", "v1", "other", "pods", "", "")},
		{"POST", "/api/v1/namespaces/other/pods", res("create", "", "v1", "other", "pods", "", "")},
		{"PUT", "/api/v1/namespaces/other/pods/foo", res("update", "", "v1", "other", "pods", "foo", "")},
		{"PATCH", "/api/v1/namespaces/other/pods/foo", res("patch", "", "v1", "other", "pods", "foo", "")},
		{"DELETE", "/api/v1/namespaces/other/pods/foo", res("delete", "", "v1", "other", "pods", "foo", "")},
		{"DELETE", "/api/v1/namespaces/other/pods", res("deletecollection", "", "v1", "other", "pods", "", "")},
		{"GET", "/api/v1/namespaces/other/pods/foo/log", res("get", "", "v1", "other", "pods", "foo", "log")},
		{"PUT", "/api/v1/namespaces/other/finalize", res("update", "", "v1", "other", "namespaces", "other", "finalize")},
		{"PUT", "/api/v1/namespaces/other/status", res("update", "", "v1", "other", "namespaces", "other", "status")},
		{"POST", "/api/v1/namespaces/team/serviceaccounts/robot/token", res("create", "", "v1", "team", "serviceaccounts", "robot", "token")},
		{"GET", "/apis/apps/v1/namespaces/other/deployments/web/scale", res("get", "apps", "v1", "other", "deployments", "web", "scale")},
		{"GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles", res("list", "rbac.authorization.k8s.io", "v1", "", "clusterroles", "", "")},
		{"GET", "/healthz", rbac.Attributes{Verb: "get", Path: "/healthz"}},
		{"GET", "/api", rbac.Attributes{Verb: "get", Path: "/api"}},
		{"GET", "/apis/apps", rbac.Attributes{Verb: "get", Path: "/apis/apps"}},
		{"GET", "/api/v1", rbac.Attributes{Verb: "get", Path: "/api/v1"}},
		{"GET", "/apis/apps/v1", rbac.Attributes{Verb: "get", Path: "/apis/apps/v1"}},
		{"POST", "/openapi/v2", rbac.Attributes{Verb: "post", Path: "/openapi/v2"}},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.url, func(t *testing.T) {
			a := requestAttributes(httptest.NewRequest(tt.method, tt.url, nil))
			if tt.want.ResourceRequest {
				a.Path = ""
			}
			assert.Equal(t, tt.want, a)
		})
	}
}

func FuzzRequestAttributes(f *testing.F) {
	for _, p := range []string{"/api/v1/namespaces/x/pods/y/log", "/apis/a/b/c", "/api/v1/watch", "//api//v1/"} {
		f.Add("GET", p)
	}
	f.Fuzz(func(t *testing.T, method, path string) {
		r := httptest.NewRequest("GET", "/", nil)
		r.Method, r.URL.Path = method, path
		a := requestAttributes(r)
		if a.ResourceRequest {
			assert.NotEmpty(t, a.Resource, "a resource request names a resource")
		}
	})
}
