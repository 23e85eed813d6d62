package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver/httpapi"
)

// TestErrors sends the mistakes a client can make and checks each gets a
// Status with the right code, reason and a message naming the problem,
// as JSON, and that nothing stored changed.
func TestErrors(t *testing.T) {
	pods := "/api/v1/namespaces/default/pods"
	tests := []struct {
		name       string
		req        request
		wantCode   int
		wantReason api.StatusReason
		wantMsg    string
		wantField  string // a cause's field, for Invalid
	}{
		{name: "unknown path", req: request{path: "/apis/widgets.example.com/v1/widgets"}, wantCode: 404, wantReason: api.StatusReasonNotFound, wantMsg: "the server could not find the requested resource"},
		{name: "a Kubernetes group miniplane does not serve", req: request{path: "/api/v1/componentstatuses"}, wantCode: 404, wantReason: api.StatusReasonNotFound, wantMsg: "miniplane does not serve componentstatuses"},
		{name: "a create of a Kubernetes resource miniplane does not serve", req: request{method: "POST", path: "/api/v1/componentstatuses", body: `{"apiVersion":"v1","kind":"ComponentStatus","metadata":{"name":"h"}}`}, wantCode: 404, wantReason: api.StatusReasonNotFound, wantMsg: "miniplane does not serve componentstatuses"},
		{name: "a watch of a core resource miniplane does not serve", req: request{path: "/api/v1/watch/componentstatuses"}, wantCode: 404, wantReason: api.StatusReasonNotFound, wantMsg: "miniplane does not serve componentstatuses"},
		{name: "an unserved resource of a served group", req: request{method: "DELETE", path: "/api/v1/namespaces/default/bindings/p"}, wantCode: 404, wantReason: api.StatusReasonNotFound, wantMsg: "miniplane does not serve bindings"},
		{name: "unknown resource", req: request{path: "/api/v1/namespaces/default/widgets"}, wantCode: 404, wantReason: api.StatusReasonNotFound, wantMsg: "the server could not find the requested resource"},
		{name: "namespaced object without its namespace", req: request{path: "/api/v1/pods/web"}, wantCode: 404, wantReason: api.StatusReasonNotFound},
		{name: "unknown subresource", req: request{path: pods + "/web/resize"}, wantCode: 404, wantReason: api.StatusReasonNotFound, wantMsg: "the server could not find the requested resource"},
		{name: "missing object", req: request{path: pods + "/nope"}, wantCode: 404, wantReason: api.StatusReasonNotFound, wantMsg: `pods "nope" not found`},
		{name: "malformed JSON", req: request{method: "POST", path: pods, body: `{"kind":"Pod",`}, wantCode: 400, wantReason: api.StatusReasonBadRequest, wantMsg: "not valid JSON"},
		{name: "not an object", req: request{method: "POST", path: pods, body: `[1,2]`}, wantCode: 400, wantReason: api.StatusReasonBadRequest, wantMsg: "not a JSON object"},
		{name: "empty body", req: request{method: "POST", path: pods, header: map[string]string{"Content-Type": "application/json"}}, wantCode: 400, wantReason: api.StatusReasonBadRequest, wantMsg: "empty"},
		{name: "two values", req: request{method: "POST", path: pods, body: newPodJSON + newPodJSON}, wantCode: 400, wantReason: api.StatusReasonBadRequest, wantMsg: "not valid JSON"},
		{name: "wrong field type", req: request{method: "POST", path: pods, body: `{"metadata":{"name":7}}`}, wantCode: 400, wantReason: api.StatusReasonBadRequest, wantMsg: "does not decode as Pod"},
		{name: "unknown kind", req: request{method: "POST", path: pods, body: `{"apiVersion":"autoscaling/v2beta2","kind":"HorizontalPodAutoscaler","metadata":{"name":"d"}}`}, wantCode: 400, wantReason: api.StatusReasonBadRequest, wantMsg: `no kind "HorizontalPodAutoscaler" is registered for version "autoscaling/v2beta2"`},
		{name: "wrong apiVersion", req: request{method: "POST", path: pods, body: `{"apiVersion":"apps/v1","kind":"Pod","metadata":{"name":"p"}}`}, wantCode: 400, wantReason: api.StatusReasonBadRequest, wantMsg: `no kind "Pod" is registered for version "apps/v1"`},
		{name: "another kind than the path's", req: request{method: "POST", path: pods, body: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"s"}}`}, wantCode: 400, wantReason: api.StatusReasonBadRequest, wantMsg: `kind "Service"`},
		{name: "namespace mismatch", req: request{method: "POST", path: pods, body: `{"metadata":{"name":"p","namespace":"kube-system"},"spec":{"containers":[{"name":"c","image":"i"}]}}`}, wantCode: 400, wantReason: api.StatusReasonBadRequest, wantMsg: "does not match the namespace sent on the request"},
		{name: "name mismatch", req: request{method: "PUT", path: pods + "/web", body: `{"metadata":{"name":"other"},"spec":{"containers":[{"name":"c","image":"i"}]}}`}, wantCode: 400, wantReason: api.StatusReasonBadRequest, wantMsg: "the name of the object (other) does not match the name on the URL (web)"},
		{name: "invalid object", req: request{method: "POST", path: pods, body: `{"metadata":{"name":"bad"},"spec":{"containers":[]}}`}, wantCode: 422, wantReason: api.StatusReasonInvalid, wantMsg: `Pod "bad" is invalid`, wantField: "spec.containers"},
		{name: "already exists", req: request{method: "POST", path: pods, body: `{"metadata":{"name":"web"},"spec":{"containers":[{"name":"c","image":"i"}]}}`}, wantCode: 409, wantReason: api.StatusReasonAlreadyExists, wantMsg: `pods "web" already exists`},
		{name: "stale resourceVersion", req: request{method: "PUT", path: pods + "/web", body: `{"metadata":{"name":"web","resourceVersion":"2"},"spec":{"containers":[{"name":"app","image":"nginx:1.27","ports":[{"containerPort":80}]}]}}`}, wantCode: 409, wantReason: api.StatusReasonConflict, wantMsg: "the object has been modified"},
		{name: "update of a missing object", req: request{method: "PUT", path: pods + "/nope", body: `{"spec":{"containers":[{"name":"c","image":"i"}]}}`}, wantCode: 404, wantReason: api.StatusReasonNotFound},
		{name: "unknown field under Strict", req: request{method: "POST", path: pods + "?fieldValidation=Strict", body: `{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i"}],"hostIPC":true}}`}, wantCode: 400, wantReason: api.StatusReasonBadRequest, wantMsg: `strict decoding error: unknown field "spec.hostIPC"`},
		{name: "bad fieldValidation", req: request{method: "POST", path: pods + "?fieldValidation=Loose", body: newPodJSON}, wantCode: 400, wantReason: api.StatusReasonBadRequest, wantMsg: "fieldValidation"},
		{name: "body too large", req: request{method: "POST", path: pods, body: `{"metadata":{"name":"big","annotations":{"a":"` + strings.Repeat("x", httpapi.MaxBodyBytes) + `"}}}`}, wantCode: 413, wantReason: api.StatusReasonRequestEntityTooLarge, wantMsg: "too large"},
		{name: "body not JSON", req: request{method: "POST", path: pods, body: "kind: Pod", header: map[string]string{"Content-Type": "application/yaml"}}, wantCode: 415, wantReason: api.StatusReasonUnsupportedMediaType, wantMsg: "application/yaml"},
		{name: "unknown patch type", req: request{method: "PATCH", path: pods + "/web", body: `{}`, header: map[string]string{"Content-Type": "text/plain"}}, wantCode: 415, wantReason: api.StatusReasonUnsupportedMediaType, wantMsg: "text/plain"},
		{name: "force on a non-apply patch", req: request{method: "PATCH", path: pods + "/web?force=true", body: `{}`, header: map[string]string{"Content-Type": "application/merge-patch+json"}}, wantCode: 422, wantReason: api.StatusReasonInvalid, wantField: "force"},
		{name: "apply without a field manager", req: request{method: "PATCH", path: pods + "/web", body: `{}`, header: map[string]string{"Content-Type": "application/apply-patch+yaml"}}, wantCode: 422, wantReason: api.StatusReasonInvalid, wantField: "fieldManager"},
		{name: "bad dryRun", req: request{method: "POST", path: pods + "?dryRun=Some", body: newPodJSON}, wantCode: 400, wantReason: api.StatusReasonBadRequest, wantMsg: "dryRun"},
		{name: "bad label selector", req: request{path: pods + "?labelSelector=a%3D%3D%3Db"}, wantCode: 400, wantReason: api.StatusReasonBadRequest},
		{name: "unsupported field selector", req: request{path: pods + "?fieldSelector=spec.image%3Dx"}, wantCode: 400, wantReason: api.StatusReasonBadRequest},
		{name: "bad limit", req: request{path: pods + "?limit=-1"}, wantCode: 400, wantReason: api.StatusReasonBadRequest, wantMsg: "limit"},
		{name: "bad resourceVersion", req: request{path: pods + "?resourceVersion=abc"}, wantCode: 400, wantReason: api.StatusReasonBadRequest},
		{name: "bad watch timeout", req: request{path: pods + "?watch=true&timeoutSeconds=soon"}, wantCode: 400, wantReason: api.StatusReasonBadRequest, wantMsg: "timeoutSeconds"},
		{name: "bad includeObject", req: request{path: pods + "?includeObject=All", header: map[string]string{"Accept": acceptTable}}, wantCode: 400, wantReason: api.StatusReasonBadRequest, wantMsg: "includeObject"},
		{name: "bad delete body", req: request{method: "DELETE", path: pods + "/web", body: `{"propagationPolicy":`}, wantCode: 400, wantReason: api.StatusReasonBadRequest},
		{name: "bad propagation policy", req: request{method: "DELETE", path: pods + "/web", body: `{"propagationPolicy":"Sideways"}`}, wantCode: 422, wantReason: api.StatusReasonInvalid},
		{name: "delete body of another kind", req: request{method: "DELETE", path: pods + "/web", body: `{"kind":"Pod"}`}, wantCode: 400, wantReason: api.StatusReasonBadRequest, wantMsg: "DeleteOptions"},
		{name: "put on a collection", req: request{method: "PUT", path: pods, body: newPodJSON}, wantCode: 405, wantReason: api.StatusReasonMethodNotAllowed},
		{name: "post to an object", req: request{method: "POST", path: pods + "/web", body: newPodJSON}, wantCode: 405, wantReason: api.StatusReasonMethodNotAllowed},
		{name: "post across namespaces", req: request{method: "POST", path: "/api/v1/pods", body: newPodJSON}, wantCode: 405, wantReason: api.StatusReasonMethodNotAllowed},
		{name: "delete the version document", req: request{method: "DELETE", path: "/version"}, wantCode: 405, wantReason: api.StatusReasonMethodNotAllowed},
		{name: "unknown method", req: request{method: "TRACE", path: pods}, wantCode: 405, wantReason: api.StatusReasonMethodNotAllowed},
		{name: "only CBOR accepted", req: request{path: pods, header: map[string]string{"Accept": "application/cbor"}}, wantCode: 406, wantReason: api.StatusReasonNotAcceptable},
		{name: "create in a missing namespace", req: request{method: "POST", path: "/api/v1/namespaces/nowhere/pods", body: newPodJSON}, wantCode: 404, wantReason: api.StatusReasonNotFound, wantMsg: `namespaces "nowhere" not found`},
		{name: "delete a protected namespace", req: request{method: "DELETE", path: "/api/v1/namespaces/default"}, wantCode: 403, wantReason: api.StatusReasonForbidden},
		{name: "scale below zero", req: request{method: "PUT", path: "/api/v1/namespaces/default/replicationcontrollers/frontend/scale", body: `{"spec":{"replicas":-1}}`}, wantCode: 422, wantReason: api.StatusReasonInvalid, wantField: "spec.replicas"},
		{name: "bind without a node", req: request{method: "POST", path: pods + "/web/binding", body: `{"target":{}}`}, wantCode: 422, wantReason: api.StatusReasonInvalid, wantField: "target.name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, nil)
			rev := f.srv.Store().Rev()
			rec := f.do(t, tt.req)
			require.Equal(t, tt.wantCode, rec.Code, rec.Body.String())
			assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
			st := statusOf(t, rec)
			assert.Equal(t, "Status", st.Kind)
			assert.Equal(t, api.StatusFailure, st.Status)
			assert.Equal(t, int32(tt.wantCode), st.Code)
			assert.Equal(t, tt.wantReason, st.Reason)
			assert.Contains(t, st.Message, tt.wantMsg)
			if tt.wantField != "" {
				require.NotNil(t, st.Details)
				var fields []string
				for _, c := range st.Details.Causes {
					fields = append(fields, c.Field)
				}
				assert.Contains(t, fields, tt.wantField)
			}
			assert.Equal(t, rev, f.srv.Store().Rev(), "a refused request changed the store")
		})
	}
}

// TestUnknownFieldWarning checks that an unknown field under the default
// validation (Warn) is dropped with a Warning header kubectl prints.
func TestUnknownFieldWarning(t *testing.T) {
	f := newFixture(t, nil)
	rec := f.do(t, request{method: "POST", path: "/api/v1/namespaces/default/pods", body: `{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i"}],"hostIPC":true}}`})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	assert.Equal(t, `299 - "unknown field \"spec.hostIPC\""`, rec.Header().Get("Warning"))
	rec = f.do(t, request{method: "POST", path: "/api/v1/namespaces/default/pods?fieldValidation=Ignore", body: `{"metadata":{"name":"q"},"spec":{"containers":[{"name":"c","image":"i"}],"hostIPC":true}}`})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	assert.Empty(t, rec.Header().Get("Warning"))
}

// TestRetryAfter checks that a Status asking the client to retry later
// (a read at a resourceVersion the store has not reached: 504 Timeout)
// carries the Retry-After header client-go's retry reads.
func TestRetryAfter(t *testing.T) {
	f := newFixture(t, nil)
	rec := f.do(t, request{path: "/api/v1/namespaces/default/pods/web?resourceVersion=99999"})
	require.Equal(t, http.StatusGatewayTimeout, rec.Code, rec.Body.String())
	assert.Equal(t, "1", rec.Header().Get("Retry-After"))
	assert.EqualValues(t, 1, statusOf(t, rec).Details.RetryAfterSeconds)
}
