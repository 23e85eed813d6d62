package httpapi_test

import (
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/apiserver/httpapi"
	"github.com/miniplane/miniplane/clock"
)

// TestTokenLeavesPublicInfoOpen: with a token, health and /version answer
// anyone, as kube-apiserver's system:public-info-viewer role allows; the
// API, one readiness check's detail and the metrics do not.
func TestTokenLeavesPublicInfoOpen(t *testing.T) {
	clk := clock.NewFake(epoch)
	srv, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(1, 2))})
	require.NoError(t, err)
	h, err := httpapi.New(httpapi.Config{Server: srv, Clock: clk, Token: "s3cret"})
	require.NoError(t, err)
	for path, want := range map[string]int{
		"/healthz": http.StatusOK, "/livez": http.StatusOK, "/readyz": http.StatusOK, "/version": http.StatusOK,
		"/api": http.StatusUnauthorized, "/api/v1/namespaces": http.StatusUnauthorized,
		"/readyz/ping": http.StatusUnauthorized, "/metrics": http.StatusUnauthorized,
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		assert.Equal(t, want, rec.Code, "anonymous GET %s", path)
		rec = httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Header.Set("Authorization", "Bearer s3cret")
		h.ServeHTTP(rec, req)
		assert.NotEqual(t, http.StatusUnauthorized, rec.Code, "GET %s with the token", path)
	}
}

// TestCreateInTerminatingNamespace: a POST into a namespace being deleted
// answers 403 Forbidden with kube-apiserver's NamespaceLifecycle message and
// the NamespaceTerminating cause, and stores nothing.
func TestCreateInTerminatingNamespace(t *testing.T) {
	clk := clock.NewFake(epoch)
	srv, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(1, 2))})
	require.NoError(t, err)
	h, err := httpapi.New(httpapi.Config{Server: srv, Clock: clk})
	require.NoError(t, err)
	do := func(method, path, body string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		h.ServeHTTP(rec, req)
		return rec
	}
	require.Equal(t, http.StatusCreated, do(http.MethodPost, "/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"doomed"}}`).Code)
	require.Equal(t, http.StatusCreated, do(http.MethodPost, "/api/v1/namespaces/doomed/configmaps", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"held","finalizers":["example.com/hold"]}}`).Code)
	require.Equal(t, http.StatusAccepted, do(http.MethodDelete, "/api/v1/namespaces/doomed", "").Code) // Terminating
	srv.Sweep()                                                                                        // the held ConfigMap keeps the namespace Terminating

	rec := do(http.MethodPost, "/api/v1/namespaces/doomed/configmaps", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"late"}}`)
	assert.Equal(t, http.StatusForbidden, rec.Code)
	var st api.Status
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &st))
	assert.Equal(t, api.StatusReasonForbidden, st.Reason)
	assert.Equal(t, `configmaps "late" is forbidden: unable to create new content in namespace doomed because it is being terminated`, st.Message)
	require.NotNil(t, st.Details)
	assert.Equal(t, []api.StatusCause{{Type: api.NamespaceTerminatingCause, Message: "namespace doomed is being terminated", Field: "metadata.namespace"}}, st.Details.Causes)
	assert.Equal(t, http.StatusNotFound, do(http.MethodGet, "/api/v1/namespaces/doomed/configmaps/late", "").Code, "nothing stored")
}
