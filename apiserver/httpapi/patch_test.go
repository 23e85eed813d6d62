package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
)

const (
	mergePatch     = "application/merge-patch+json"
	jsonPatch      = "application/json-patch+json"
	strategicPatch = "application/strategic-merge-patch+json"
	applyPatch     = "application/apply-patch+yaml"
)

func patchReq(path, contentType, body string) request {
	return request{method: "PATCH", path: path, body: body, header: map[string]string{"Content-Type": contentType}}
}

// TestPatch runs each patch type through the PATCH route and checks the
// answer and what was stored.
func TestPatch(t *testing.T) {
	pod := "/api/v1/namespaces/default/pods/web"
	rc := "/api/v1/namespaces/default/replicationcontrollers/frontend"
	tests := []struct {
		name     string
		req      request
		wantCode int
		check    func(t *testing.T, f *fixture)
	}{
		{name: "merge patch sets a label", req: patchReq(pod+"?fieldManager=kubectl-label", mergePatch, `{"metadata":{"labels":{"env":"prod"}}}`), wantCode: 200,
			check: func(t *testing.T, f *fixture) {
				p := getPod(t, f)
				assert.Equal(t, map[string]string{"app": "web", "env": "prod"}, p.Metadata.Labels)
				require.NotEmpty(t, p.Metadata.ManagedFields)
				last := p.Metadata.ManagedFields[len(p.Metadata.ManagedFields)-1]
				assert.Equal(t, "kubectl-label", last.Manager)
				assert.Equal(t, "Update", last.Operation)
			}},
		{name: "merge patch null removes a label", req: patchReq(pod, mergePatch, `{"metadata":{"labels":{"app":null}}}`), wantCode: 200,
			check: func(t *testing.T, f *fixture) { assert.Empty(t, getPod(t, f).Metadata.Labels) }},
		{name: "JSON patch", req: patchReq(pod, jsonPatch, `[{"op":"add","path":"/metadata/annotations","value":{"a":"b"}}]`), wantCode: 200,
			check: func(t *testing.T, f *fixture) { assert.Equal(t, "b", getPod(t, f).Metadata.Annotations["a"]) }},
		{name: "strategic merge patch keeps the ports", req: patchReq(pod, strategicPatch, `{"spec":{"$setElementOrder/containers":[{"name":"app"}],"containers":[{"name":"app","image":"nginx:1.28"}]}}`), wantCode: 200,
			check: func(t *testing.T, f *fixture) {
				c := getPod(t, f).Spec.Containers[0]
				assert.Equal(t, "nginx:1.28", c.Image)
				assert.Len(t, c.Ports, 1)
			}},
		{name: "a namespace's status patch takes its annotations (conformance: should apply changes to a namespace status)",
			req: patchReq("/api/v1/namespaces/default/status", mergePatch,
				`{"metadata":{"annotations":{"e2e-patched-ns-status":"default"}},"status":{"conditions":[{"type":"StatusPatch","status":"True","reason":"E2E","message":"Patched by an e2e test"}]}}`),
			wantCode: 200,
			check: func(t *testing.T, f *fixture) {
				ns, err := client.For[*api.Namespace](f.srv).Get(ctx, "", "default")
				require.NoError(t, err)
				assert.Equal(t, "default", ns.Metadata.Annotations["e2e-patched-ns-status"])
				assert.Equal(t, []api.NamespaceCondition{{Type: "StatusPatch", Status: api.ConditionTrue, Reason: "E2E", Message: "Patched by an e2e test"}}, ns.Status.Conditions)
				assert.Equal(t, api.NamespaceActive, ns.Status.Phase)
			}},
		{name: "status patch changes only status", req: patchReq(pod+"/status", mergePatch, `{"metadata":{"labels":{"x":"y"}},"status":{"phase":"Running"}}`), wantCode: 200,
			check: func(t *testing.T, f *fixture) {
				p := getPod(t, f)
				assert.Equal(t, api.PodRunning, p.Status.Phase)
				assert.NotContains(t, p.Metadata.Labels, "x")
			}},
		{name: "scale patch answers a Scale", req: patchReq(rc+"/scale", mergePatch, `{"spec":{"replicas":7}}`), wantCode: 200,
			check: func(t *testing.T, f *fixture) {
				r, err := client.For[*api.ReplicationController](f.srv).Get(ctx, "default", "frontend")
				require.NoError(t, err)
				assert.Equal(t, int32(7), *r.Spec.Replicas)
			}},
		{name: "server-side apply creates", req: patchReq("/api/v1/namespaces/default/pods/applied?fieldManager=kubectl", applyPatch,
			`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"applied","namespace":"default"},"spec":{"containers":[{"name":"c","image":"busybox"}]}}`), wantCode: 201,
			check: func(t *testing.T, f *fixture) {
				p, err := client.For[*api.Pod](f.srv).Get(ctx, "default", "applied")
				require.NoError(t, err)
				require.Len(t, p.Metadata.ManagedFields, 1)
				assert.Equal(t, "Apply", p.Metadata.ManagedFields[0].Operation)
			}},
		{name: "server-side apply updates", req: patchReq(rc+"?fieldManager=kubectl", applyPatch,
			`{"apiVersion":"v1","kind":"ReplicationController","metadata":{"name":"frontend"},"spec":{"replicas":3}}`), wantCode: 200,
			check: func(t *testing.T, f *fixture) {
				r, err := client.For[*api.ReplicationController](f.srv).Get(ctx, "default", "frontend")
				require.NoError(t, err)
				assert.Equal(t, int32(3), *r.Spec.Replicas)
				assert.Equal(t, "php", r.Spec.Template.Spec.Containers[0].Name, "fields not applied stay")
			}},
		{name: "dry run", req: patchReq(pod+"?dryRun=All", mergePatch, `{"metadata":{"labels":{"env":"prod"}}}`), wantCode: 200,
			check: func(t *testing.T, f *fixture) { assert.NotContains(t, getPod(t, f).Metadata.Labels, "env") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, nil)
			rec := f.do(t, tt.req)
			require.Equal(t, tt.wantCode, rec.Code, rec.Body.String())
			assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
			tt.check(t, f)
		})
	}
}

// TestPatchErrors checks the refusals of PATCH: each a Status with its
// code, and the store unchanged.
func TestPatchErrors(t *testing.T) {
	pod := "/api/v1/namespaces/default/pods/web"
	tests := []struct {
		name       string
		req        request
		wantCode   int
		wantReason api.StatusReason
		wantMsg    string
	}{
		{"missing object", patchReq("/api/v1/namespaces/default/pods/nope", mergePatch, `{}`), 404, api.StatusReasonNotFound, `pods "nope" not found`},
		{"patch not JSON", patchReq(pod, mergePatch, `{"metadata":`), 400, api.StatusReasonBadRequest, "not valid JSON"},
		{"JSON patch test fails", patchReq(pod, jsonPatch, `[{"op":"test","path":"/metadata/name","value":"other"}]`), 422, api.StatusReasonInvalid, ""},
		{"result invalid", patchReq(pod, mergePatch, `{"spec":{"containers":null}}`), 422, api.StatusReasonInvalid, `Pod "web" is invalid`},
		{"name changed", patchReq(pod, mergePatch, `{"metadata":{"name":"other"}}`), 400, api.StatusReasonBadRequest, "does not match the name on the URL"},
		{"kind changed", patchReq(pod, mergePatch, `{"kind":"Service"}`), 400, api.StatusReasonBadRequest, `kind "Service"`},
		{"stale resourceVersion", patchReq(pod, mergePatch, `{"metadata":{"resourceVersion":"2","labels":{"a":"b"}}}`), 409, api.StatusReasonConflict, "the object has been modified"},
		{"strict unknown field", patchReq(pod+"?fieldValidation=Strict", mergePatch, `{"spec":{"hostIPC":true}}`), 400, api.StatusReasonBadRequest, `strict decoding error: unknown field "spec.hostIPC"`},
		{"apply body not JSON", patchReq(pod+"?fieldManager=m", applyPatch, "kind: Pod\n"), 415, api.StatusReasonUnsupportedMediaType, ""},
		{"bad field manager", patchReq(pod+"?fieldManager=%00", mergePatch, `{}`), 400, api.StatusReasonBadRequest, "fieldManager"},
		{"status patch of a kind without status", patchReq("/api/v1/namespaces/default/endpoints/x/status", mergePatch, `{}`), 404, api.StatusReasonNotFound, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, nil)
			rev := f.srv.Store().Rev()
			rec := f.do(t, tt.req)
			require.Equal(t, tt.wantCode, rec.Code, rec.Body.String())
			st := statusOf(t, rec)
			assert.Equal(t, tt.wantReason, st.Reason)
			assert.Contains(t, st.Message, tt.wantMsg)
			assert.Equal(t, rev, f.srv.Store().Rev())
		})
	}
}

// TestApplyConflict checks server-side apply's ownership: a field another
// manager set conflicts (409, one cause per field) unless forced.
func TestApplyConflict(t *testing.T) {
	f := newFixture(t, nil)
	rc := "/api/v1/namespaces/default/replicationcontrollers/frontend"
	body := `{"apiVersion":"v1","kind":"ReplicationController","metadata":{"name":"frontend"},"spec":{"replicas":3}}`
	rec := f.do(t, patchReq(rc+"?fieldManager=alice", applyPatch, body))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	rec = f.do(t, patchReq(rc+"?fieldManager=bob", mergePatch, `{"spec":{"replicas":4}}`))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())

	rev := f.srv.Store().Rev()
	rec = f.do(t, patchReq(rc+"?fieldManager=alice", applyPatch, body))
	require.Equal(t, http.StatusConflict, rec.Code, rec.Body.String())
	st := statusOf(t, rec)
	assert.Equal(t, api.StatusReasonConflict, st.Reason)
	assert.Contains(t, st.Message, "Apply failed with 1 conflict")
	require.NotNil(t, st.Details)
	require.Len(t, st.Details.Causes, 1)
	assert.Equal(t, api.CauseType("FieldManagerConflict"), st.Details.Causes[0].Type)
	assert.Equal(t, ".spec.replicas", st.Details.Causes[0].Field)
	assert.Equal(t, rev, f.srv.Store().Rev())

	rec = f.do(t, patchReq(rc+"?fieldManager=alice&force=true", applyPatch, body))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	r, err := client.For[*api.ReplicationController](f.srv).Get(ctx, "default", "frontend")
	require.NoError(t, err)
	assert.Equal(t, int32(3), *r.Spec.Replicas)
}

// TestManagedFieldsOnWrites checks that creates and updates are recorded
// under the fieldManager, or the User-Agent's program name.
func TestManagedFieldsOnWrites(t *testing.T) {
	f := newFixture(t, nil)
	req := request{method: "POST", path: "/api/v1/namespaces/default/pods", body: newPodJSON, header: map[string]string{"User-Agent": "kubectl/v1.32.4 (linux/amd64) kubernetes/4cb5f07"}}
	require.Equal(t, http.StatusCreated, f.do(t, req).Code)
	p, err := client.For[*api.Pod](f.srv).Get(ctx, "default", "new")
	require.NoError(t, err)
	require.Len(t, p.Metadata.ManagedFields, 1)
	assert.Equal(t, "kubectl", p.Metadata.ManagedFields[0].Manager)

	p = p.DeepCopyObject().(*api.Pod)
	p.Metadata.Labels["tier"] = "web"
	rec := f.do(t, request{method: "PUT", path: "/api/v1/namespaces/default/pods/new?fieldManager=editor", body: string(mustJSON(t, p))})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	p, err = client.For[*api.Pod](f.srv).Get(ctx, "default", "new")
	require.NoError(t, err)
	var managers []string
	for _, e := range p.Metadata.ManagedFields {
		managers = append(managers, e.Manager)
	}
	assert.Equal(t, []string{"kubectl", "editor"}, managers)
}

func getPod(t *testing.T, f *fixture) *api.Pod {
	t.Helper()
	p, err := client.For[*api.Pod](f.srv).Get(ctx, "default", "web")
	require.NoError(t, err)
	return p
}

// TestSubresourceWritesAreTracked checks that writes through status and
// scale are recorded with their subresource, so that a later apply of the
// field they changed conflicts, as kubectl apply --server-side after
// kubectl scale does on a real cluster.
func TestSubresourceWritesAreTracked(t *testing.T) {
	f := newFixture(t, nil)
	rc := "/api/v1/namespaces/default/replicationcontrollers/frontend"
	body := `{"apiVersion":"v1","kind":"ReplicationController","metadata":{"name":"frontend"},"spec":{"replicas":3}}`
	require.Equal(t, http.StatusOK, f.do(t, patchReq(rc+"?fieldManager=kubectl", applyPatch, body)).Code)

	scale := patchReq(rc+"/scale", mergePatch, `{"spec":{"replicas":5}}`)
	scale.header["User-Agent"] = "kubectl/v1.32.4 (linux/amd64) kubernetes/4cb5f07"
	rec := f.do(t, scale)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())

	rec = f.do(t, patchReq(rc+"?fieldManager=kubectl", applyPatch, body))
	require.Equal(t, http.StatusConflict, rec.Code, rec.Body.String())
	assert.Contains(t, statusOf(t, rec).Message, `conflict with "kubectl" with subresource "scale"`)

	rec = f.do(t, patchReq(rc+"/status?fieldManager=rc-controller", mergePatch, `{"status":{"replicas":5}}`))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	r, err := client.For[*api.ReplicationController](f.srv).Get(ctx, "default", "frontend")
	require.NoError(t, err)
	var subs []string
	for _, e := range r.Metadata.ManagedFields {
		subs = append(subs, e.Manager+"/"+e.Subresource)
	}
	// The apply owned only .spec.replicas, which the scale took: its entry went.
	assert.ElementsMatch(t, []string{"kubectl/scale", "rc-controller/status"}, subs)
	assert.Equal(t, int32(5), r.Status.Replicas)
}
