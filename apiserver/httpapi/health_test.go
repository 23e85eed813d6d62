package httpapi_test

import (
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver/httpapi"
)

// TestHealth checks /healthz, /livez and /readyz, with Config.Ready and
// after Shutdown.
func TestHealth(t *testing.T) {
	ready := false
	f := newFixture(t, func(c *httpapi.Config) { c.Ready = func() bool { return ready } })
	code := func(path string) int { return f.do(t, request{path: path}).Code }
	assert.Equal(t, http.StatusOK, code("/healthz"))
	assert.Equal(t, http.StatusOK, code("/livez"))
	assert.Equal(t, http.StatusServiceUnavailable, code("/readyz"), "not ready yet")
	ready = true
	assert.Equal(t, http.StatusOK, code("/readyz"))
	f.h.Shutdown()
	assert.Equal(t, http.StatusServiceUnavailable, code("/readyz"), "shutting down")
	assert.Equal(t, http.StatusOK, code("/livez"), "still alive")
}

// TestMetrics checks /metrics: the store's figures, the objects per
// resource, the requests by verb, resource and code with their latency,
// and the caller's extra text.
func TestMetrics(t *testing.T) {
	f := newFixture(t, func(c *httpapi.Config) {
		c.Metrics = func(w io.Writer) { fmt.Fprintln(w, "workqueue_depth{name=\"replication\"} 3") }
	})
	f.do(t, request{path: "/api/v1/namespaces/default/pods"})
	f.do(t, request{path: "/api/v1/namespaces/default/pods/web"})
	f.do(t, request{path: "/api/v1/namespaces/default/pods/nope"})
	f.do(t, request{method: "POST", path: "/api/v1/namespaces/default/pods", body: newPodJSON})
	f.do(t, request{path: "/api/v1/namespaces/default/replicationcontrollers/frontend/scale"})
	f.do(t, request{method: "BREW", path: "/coffee"})
	rec := f.do(t, request{path: "/metrics"})
	require.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, "text/plain; version=0.0.4; charset=utf-8", rec.Header().Get("Content-Type"))
	body := rec.Body.String()
	for _, want := range []string{
		fmt.Sprintf("miniplane_store_revision %d\n", f.srv.Store().Rev()),
		"miniplane_store_keys 5\n", // 2 namespaces, 2 pods, 1 controller
		"apiserver_storage_objects{resource=\"pods\"} 2\n",
		"apiserver_storage_objects{resource=\"leases.coordination.k8s.io\"} 0\n",
		"apiserver_request_total{verb=\"list\",resource=\"pods\",code=\"200\"} 1\n",
		"apiserver_request_total{verb=\"get\",resource=\"pods\",code=\"200\"} 1\n",
		"apiserver_request_total{verb=\"get\",resource=\"pods\",code=\"404\"} 1\n",
		"apiserver_request_total{verb=\"create\",resource=\"pods\",code=\"201\"} 1\n",
		"apiserver_request_total{verb=\"get\",resource=\"replicationcontrollers/scale\",code=\"200\"} 1\n",
		"apiserver_request_duration_seconds_count{verb=\"get\",resource=\"pods\"} 2\n",
		"apiserver_request_duration_seconds_bucket{verb=\"get\",resource=\"pods\",le=\"+Inf\"} 2\n",
		"apiserver_request_total{verb=\"other\",resource=\"\",code=\"404\"} 1\n", // any method: one name
		"workqueue_depth{name=\"replication\"} 3\n",
	} {
		assert.Contains(t, body, want)
	}
}

// TestPanicIsAStatus checks the last resort: a panic while serving (here
// in the caller's Ready func, the only code a request can reach that this
// package does not control) is a 500 Status, not a dropped connection.
// FuzzRequest checks that no request reaches it otherwise.
func TestPanicIsAStatus(t *testing.T) {
	f := newFixture(t, func(c *httpapi.Config) { c.Ready = func() bool { panic("broken readiness check") } })
	rec := f.do(t, request{path: "/readyz"})
	require.Equal(t, http.StatusInternalServerError, rec.Code)
	assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	st := statusOf(t, rec)
	assert.Equal(t, api.StatusReasonInternalError, st.Reason)
	assert.Contains(t, st.Message, "the server panicked serving GET /readyz")
	assert.Equal(t, http.StatusOK, f.do(t, request{path: "/healthz"}).Code, "the handler still serves")
}
