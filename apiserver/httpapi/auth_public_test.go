package httpapi_test

import (
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
