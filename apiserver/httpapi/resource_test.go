package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver/httpapi"
	"github.com/miniplane/miniplane/client"
)

const newPodJSON = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"new","labels":{"app":"new"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}`

// TestCRUD runs each verb on the Kubernetes paths and checks the code, the
// JSON Content-Type, the answer's kind, and what the server stored.
func TestCRUD(t *testing.T) {
	tests := []struct {
		name     string
		req      request
		wantCode int
		wantKind string
		check    func(t *testing.T, f *fixture, body []byte)
	}{
		{name: "get", req: request{path: "/api/v1/namespaces/default/pods/web"}, wantCode: 200, wantKind: "Pod",
			check: func(t *testing.T, f *fixture, b []byte) {
				var p api.Pod
				require.NoError(t, json.Unmarshal(b, &p))
				assert.Equal(t, "web", p.Metadata.Name)
				assert.Equal(t, "v1", p.APIVersion)
			}},
		{name: "list in a namespace", req: request{path: "/api/v1/namespaces/default/pods"}, wantCode: 200, wantKind: "PodList",
			check: func(t *testing.T, f *fixture, b []byte) {
				var l api.PodList
				require.NoError(t, json.Unmarshal(b, &l))
				require.Len(t, l.Items, 1)
				assert.Equal(t, "v1", l.APIVersion)
				assert.NotEmpty(t, l.Metadata.ResourceVersion)
			}},
		{name: "list across namespaces with a selector", req: request{path: "/api/v1/pods?labelSelector=app%3Dweb&limit=500"}, wantCode: 200, wantKind: "PodList",
			check: func(t *testing.T, f *fixture, b []byte) {
				var l api.PodList
				require.NoError(t, json.Unmarshal(b, &l))
				require.Len(t, l.Items, 1)
			}},
		{name: "list cluster-scoped", req: request{path: "/api/v1/namespaces"}, wantCode: 200, wantKind: "NamespaceList",
			check: func(t *testing.T, f *fixture, b []byte) {
				var l api.NamespaceList
				require.NoError(t, json.Unmarshal(b, &l))
				assert.Len(t, l.Items, 2)
			}},
		{name: "get cluster-scoped", req: request{path: "/api/v1/namespaces/kube-system"}, wantCode: 200, wantKind: "Namespace"},
		{name: "list in a named group", req: request{path: "/apis/coordination.k8s.io/v1/namespaces/default/leases"}, wantCode: 200, wantKind: "LeaseList"},
		{name: "create", req: request{method: "POST", path: "/api/v1/namespaces/default/pods?fieldManager=kubectl-create&fieldValidation=Strict", body: newPodJSON},
			wantCode: 201, wantKind: "Pod",
			check: func(t *testing.T, f *fixture, _ []byte) {
				p, err := client.For[*api.Pod](f.srv).Get(ctx, "default", "new")
				require.NoError(t, err)
				assert.Equal(t, "busybox", p.Spec.Containers[0].Image)
			}},
		{name: "create without kind takes the path's", req: request{method: "POST", path: "/api/v1/namespaces/default/pods", body: `{"metadata":{"name":"bare"},"spec":{"containers":[{"name":"c","image":"busybox"}]}}`},
			wantCode: 201, wantKind: "Pod"},
		{name: "create cluster-scoped", req: request{method: "POST", path: "/api/v1/namespaces", body: `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team"}}`}, wantCode: 201, wantKind: "Namespace"},
		{name: "create a lease", req: request{method: "POST", path: "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases", body: `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"lock"},"spec":{"holderIdentity":"a"}}`},
			wantCode: 201, wantKind: "Lease"},
		{name: "update", req: request{method: "PUT", path: "/api/v1/namespaces/default/pods/web", body: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","labels":{"env":"prod"}},"spec":{"containers":[{"name":"app","image":"nginx:1.27","ports":[{"containerPort":80}]}]}}`},
			wantCode: 200, wantKind: "Pod",
			check: func(t *testing.T, f *fixture, _ []byte) {
				p, err := client.For[*api.Pod](f.srv).Get(ctx, "default", "web")
				require.NoError(t, err)
				assert.Equal(t, map[string]string{"env": "prod"}, p.Metadata.Labels)
			}},
		{name: "update status", req: request{method: "PUT", path: "/api/v1/namespaces/default/pods/web/status", body: `{"metadata":{"name":"web","labels":{"ignored":"yes"}},"spec":{"containers":[{"name":"app","image":"x"}]},"status":{"phase":"Running","podIP":"10.0.0.9"}}`},
			wantCode: 200, wantKind: "Pod",
			check: func(t *testing.T, f *fixture, _ []byte) {
				p, err := client.For[*api.Pod](f.srv).Get(ctx, "default", "web")
				require.NoError(t, err)
				assert.Equal(t, api.PodRunning, p.Status.Phase)
				assert.Equal(t, "nginx:1.27", p.Spec.Containers[0].Image, "a status update changes only status")
				assert.NotContains(t, p.Metadata.Labels, "ignored")
			}},
		{name: "get status", req: request{path: "/api/v1/namespaces/default/pods/web/status"}, wantCode: 200, wantKind: "Pod"},
		{name: "delete", req: request{method: "DELETE", path: "/api/v1/namespaces/default/pods/web", body: `{"propagationPolicy":"Background"}`}, wantCode: 200, wantKind: "Pod",
			check: func(t *testing.T, f *fixture, _ []byte) {
				_, err := client.For[*api.Pod](f.srv).Get(ctx, "default", "web")
				assert.True(t, apierrors.IsNotFound(err))
			}},
		{name: "delete held by a finalizer is accepted", req: request{method: "DELETE", path: "/api/v1/namespaces/default/replicationcontrollers/frontend?propagationPolicy=Foreground"},
			wantCode: 202, wantKind: "ReplicationController",
			check: func(t *testing.T, f *fixture, _ []byte) {
				rc, err := client.For[*api.ReplicationController](f.srv).Get(ctx, "default", "frontend")
				require.NoError(t, err)
				assert.Equal(t, []string{api.FinalizerDeleteDependents}, rc.Metadata.Finalizers)
			}},
		{name: "delete collection", req: request{method: "DELETE", path: "/api/v1/namespaces/default/pods?labelSelector=app%3Dweb"}, wantCode: 200, wantKind: "PodList",
			check: func(t *testing.T, f *fixture, _ []byte) {
				assert.Equal(t, 0, f.srv.Count(client.Pods))
			}},
		{name: "legacy watch prefix", req: request{path: "/api/v1/watch/namespaces/default/pods?timeoutSeconds=0"}, wantCode: 200},
		{name: "bind", req: request{method: "POST", path: "/api/v1/namespaces/default/pods/web/binding", body: `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"web"},"target":{"kind":"Node","name":"node-1"}}`},
			wantCode: 201, wantKind: "Status",
			check: func(t *testing.T, f *fixture, _ []byte) {
				p, err := client.For[*api.Pod](f.srv).Get(ctx, "default", "web")
				require.NoError(t, err)
				assert.Equal(t, "node-1", p.Spec.NodeName)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, nil)
			if strings.Contains(tt.req.path, "/watch/") {
				f.h.Shutdown() // the watch then answers at once
				tt.wantCode = http.StatusServiceUnavailable
			}
			rec := f.do(t, tt.req)
			require.Equal(t, tt.wantCode, rec.Code, rec.Body.String())
			assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
			if tt.wantKind != "" {
				var tm api.TypeMeta
				require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &tm))
				assert.Equal(t, tt.wantKind, tm.Kind)
			}
			if tt.check != nil {
				tt.check(t, f, rec.Body.Bytes())
			}
		})
	}
}

// TestScale checks the scale subresource speaks autoscaling/v1 Scale.
func TestScale(t *testing.T) {
	f := newFixture(t, nil)
	rec := f.do(t, request{path: "/api/v1/namespaces/default/replicationcontrollers/frontend/scale"})
	require.Equal(t, http.StatusOK, rec.Code)
	sc := decode[api.Scale](t, rec)
	assert.Equal(t, api.TypeMeta{Kind: "Scale", APIVersion: "autoscaling/v1"}, sc.TypeMeta)
	assert.Equal(t, int32(2), sc.Spec.Replicas)
	assert.Equal(t, "app=frontend", sc.Status.Selector)

	sc.Spec.Replicas = 5
	rec = f.do(t, request{method: "PUT", path: "/api/v1/namespaces/default/replicationcontrollers/frontend/scale", body: string(mustJSON(t, sc))})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.Equal(t, int32(5), decode[api.Scale](t, rec).Spec.Replicas)
	rc, err := client.For[*api.ReplicationController](f.srv).Get(ctx, "default", "frontend")
	require.NoError(t, err)
	assert.Equal(t, int32(5), *rc.Spec.Replicas)

	rec = f.do(t, request{method: "PUT", path: "/api/v1/namespaces/default/replicationcontrollers/frontend/scale", body: string(mustJSON(t, sc))})
	assert.Equal(t, http.StatusConflict, rec.Code, "the Scale's resourceVersion is stale now")

	rec = f.do(t, request{method: "PUT", path: "/api/v1/namespaces/default/replicationcontrollers/frontend/scale", body: `{"kind":"ReplicationController","apiVersion":"v1","spec":{"replicas":1}}`})
	assert.Equal(t, http.StatusBadRequest, rec.Code)
	rec = f.do(t, request{path: "/api/v1/namespaces/default/pods/web/scale"})
	assert.Equal(t, http.StatusNotFound, rec.Code, "pods have no scale")
}

// TestDryRun checks that every write with dryRun=All answers as the write
// would and stores nothing.
func TestDryRun(t *testing.T) {
	tests := []request{
		{method: "POST", path: "/api/v1/namespaces/default/pods?dryRun=All", body: newPodJSON},
		{method: "PUT", path: "/api/v1/namespaces/default/pods/web?dryRun=All", body: `{"metadata":{"name":"web","labels":{"x":"y"}},"spec":{"containers":[{"name":"app","image":"nginx:2","ports":[{"containerPort":80}]}]}}`},
		{method: "PUT", path: "/api/v1/namespaces/default/pods/web/status?dryRun=All", body: `{"metadata":{"name":"web"},"status":{"phase":"Running"}}`},
		{method: "PUT", path: "/api/v1/namespaces/default/replicationcontrollers/frontend/scale?dryRun=All", body: `{"metadata":{"name":"frontend"},"spec":{"replicas":9}}`},
		{method: "DELETE", path: "/api/v1/namespaces/default/pods/web?dryRun=All"},
		{method: "DELETE", path: "/api/v1/namespaces/default/pods?dryRun=All"},
		{method: "POST", path: "/api/v1/namespaces/default/pods/web/binding?dryRun=All", body: `{"target":{"name":"n"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			f := newFixture(t, nil)
			rev := f.srv.Store().Rev()
			rec := f.do(t, tt)
			assert.Less(t, rec.Code, 300, rec.Body.String())
			assert.Equal(t, rev, f.srv.Store().Rev(), "a dry run stored something")
		})
	}
}

// TestAuth checks the bearer token: required everywhere but the health
// endpoints themselves (a single check's path gives reasons, so it is
// not public).
func TestAuth(t *testing.T) {
	f := newFixture(t, func(c *httpapi.Config) { c.Token = "s3cret" })
	tests := []struct {
		name, path, auth string
		want             int
	}{
		{"no token", "/api/v1/pods", "", http.StatusUnauthorized},
		{"wrong token", "/api/v1/pods", "Bearer nope", http.StatusUnauthorized},
		{"basic auth", "/api/v1/pods", "Basic czNjcmV0", http.StatusUnauthorized},
		{"right token", "/api/v1/pods", "Bearer s3cret", http.StatusOK},
		{"discovery needs it too", "/api", "", http.StatusUnauthorized},
		{"health does not", "/healthz", "", http.StatusOK},
		{"readiness does not", "/readyz", "", http.StatusOK},
		{"verbose readiness does not", "/readyz?verbose", "", http.StatusOK},
		{"one check's reason does", "/readyz/etcd", "", http.StatusUnauthorized},
		{"one check with the token", "/readyz/etcd", "Bearer s3cret", http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := f.do(t, request{path: tt.path, header: map[string]string{"Authorization": tt.auth}})
			assert.Equal(t, tt.want, rec.Code)
			if tt.want == http.StatusUnauthorized {
				st := statusOf(t, rec)
				assert.Equal(t, api.StatusReasonUnauthorized, st.Reason)
				assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
			}
		})
	}
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}
