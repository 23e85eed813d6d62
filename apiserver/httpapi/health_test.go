package httpapi_test

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/apiserver/httpapi"
	"github.com/miniplane/miniplane/clock"
)

// TestHealth checks /healthz, /livez and /readyz as kube-apiserver answers
// them: the handler's own checks and the caller's, "ok" or one line per
// check with ?verbose, every line and 500 when a check fails (its reason
// withheld), one check by its path with its reason, ?exclude, and the
// shutdown check.
func TestHealth(t *testing.T) {
	const (
		healthLines = "[+]ping ok\n[+]etcd ok\n[+]log ok\n"
		readyOK     = healthLines + "[+]informer-sync ok\n[+]poststarthook/register-nodes ok\n[+]shutdown ok\n"
		readyFailed = healthLines + "[-]informer-sync failed: reason withheld\n[+]poststarthook/register-nodes ok\n[+]shutdown ok\n"
	)
	tests := []struct {
		name       string
		path       string
		method     string
		unsynced   bool // the informer-sync check fails
		shutdown   bool // Shutdown has been called
		wantCode   int
		wantBody   string // the whole body; empty: wantStatus instead
		wantStatus api.StatusReason
	}{
		{name: "healthz", path: "/healthz", wantCode: http.StatusOK, wantBody: "ok"},
		{name: "healthz verbose", path: "/healthz?verbose", wantCode: http.StatusOK, wantBody: healthLines + "healthz check passed\n"},
		{name: "livez verbose", path: "/livez?verbose=1", wantCode: http.StatusOK, wantBody: healthLines + "livez check passed\n"},
		{name: "readyz", path: "/readyz", wantCode: http.StatusOK, wantBody: "ok"},
		{name: "readyz verbose", path: "/readyz?verbose", wantCode: http.StatusOK, wantBody: readyOK + "readyz check passed\n"},
		{name: "readyz trailing slash", path: "/readyz/", wantCode: http.StatusOK, wantBody: "ok"},
		{name: "readyz failing is verbose anyway", path: "/readyz", unsynced: true, wantCode: http.StatusInternalServerError, wantBody: readyFailed + "readyz check failed\n"},
		{name: "readyz failing verbose", path: "/readyz?verbose", unsynced: true, wantCode: http.StatusInternalServerError, wantBody: readyFailed + "readyz check failed\n"},
		{name: "a ready check does not touch livez", path: "/livez", unsynced: true, wantCode: http.StatusOK, wantBody: "ok"},
		{name: "nor healthz", path: "/healthz", unsynced: true, wantCode: http.StatusOK, wantBody: "ok"},
		{name: "one check passing", path: "/readyz/informer-sync", wantCode: http.StatusOK, wantBody: "ok"},
		{name: "one check failing gives its reason", path: "/readyz/informer-sync", unsynced: true, wantCode: http.StatusInternalServerError, wantBody: "internal server error: 2 informers not synced: nodes, pods\n"},
		{name: "a check named with a slash", path: "/readyz/poststarthook/register-nodes", wantCode: http.StatusOK, wantBody: "ok"},
		{name: "one of the handler's own", path: "/livez/etcd", wantCode: http.StatusOK, wantBody: "ok"},
		{name: "a ready check is not a livez check", path: "/livez/informer-sync", wantCode: http.StatusNotFound, wantStatus: api.StatusReasonNotFound},
		{name: "no such check", path: "/readyz/nope", wantCode: http.StatusNotFound, wantStatus: api.StatusReasonNotFound},
		{name: "exclude a failing check", path: "/readyz?verbose&exclude=informer-sync", unsynced: true, wantCode: http.StatusOK,
			wantBody: healthLines + "[+]informer-sync excluded: ok\n[+]poststarthook/register-nodes ok\n[+]shutdown ok\nreadyz check passed\n"},
		{name: "exclude what is not there", path: "/livez?verbose&exclude=nope&exclude=log", wantCode: http.StatusOK,
			wantBody: "[+]ping ok\n[+]etcd ok\n[+]log excluded: ok\nwarn: some health checks cannot be excluded: no matches for \"nope\"\nlivez check passed\n"},
		{name: "shutting down: not ready", path: "/readyz", shutdown: true, wantCode: http.StatusInternalServerError,
			wantBody: healthLines + "[+]informer-sync ok\n[+]poststarthook/register-nodes ok\n[-]shutdown failed: reason withheld\nreadyz check failed\n"},
		{name: "shutting down: why", path: "/readyz/shutdown", shutdown: true, wantCode: http.StatusInternalServerError, wantBody: "internal server error: the server is shutting down\n"},
		{name: "shutting down: still alive", path: "/livez", shutdown: true, wantCode: http.StatusOK, wantBody: "ok"},
		{name: "read only", path: "/readyz", method: http.MethodPost, wantCode: http.StatusMethodNotAllowed, wantStatus: api.StatusReasonMethodNotAllowed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, func(c *httpapi.Config) {
				c.HealthChecks = []httpapi.HealthChecker{httpapi.NamedCheck("log", func() error { return nil })}
				c.ReadyChecks = []httpapi.HealthChecker{
					httpapi.NamedCheck("informer-sync", func() error {
						if tt.unsynced {
							return errors.New("2 informers not synced: nodes, pods")
						}
						return nil
					}),
					httpapi.NamedCheck("poststarthook/register-nodes", func() error { return nil }),
				}
			})
			if tt.shutdown {
				f.h.Shutdown()
			}
			rec := f.do(t, request{method: tt.method, path: tt.path})
			assert.Equal(t, tt.wantCode, rec.Code)
			if tt.wantStatus != "" {
				assert.Equal(t, tt.wantStatus, statusOf(t, rec).Reason)
				return
			}
			assert.Equal(t, tt.wantBody, rec.Body.String())
			assert.Equal(t, "text/plain; charset=utf-8", rec.Header().Get("Content-Type"))
			assert.Equal(t, "nosniff", rec.Header().Get("X-Content-Type-Options"))
		})
	}
}

// TestHealthCheckNames checks that New refuses checks it could not serve:
// a name twice (the caller's or one of the handler's own) or a name that
// is not a path.
func TestHealthCheckNames(t *testing.T) {
	ok := func() error { return nil }
	tests := []struct {
		name    string
		health  []string
		ready   []string
		wantErr string
	}{
		{name: "fine", health: []string{"log"}, ready: []string{"informer-sync", "poststarthook/x"}},
		{name: "twice", health: []string{"log"}, ready: []string{"log"}, wantErr: `health check "log" registered twice`},
		{name: "one of the handler's own", ready: []string{"etcd"}, wantErr: `health check "etcd" registered twice`},
		{name: "shutdown is the handler's", ready: []string{"shutdown"}, wantErr: `health check "shutdown" registered twice`},
		{name: "empty", health: []string{""}, wantErr: `health check name "" is not a path segment`},
		{name: "space", ready: []string{"controller manager"}, wantErr: `health check name "controller manager" is not a path segment`},
		{name: "query", ready: []string{"x?verbose"}, wantErr: `health check name "x?verbose" is not a path segment`},
		{name: "leading slash", ready: []string{"/x"}, wantErr: `health check name "/x" is not a path segment`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, err := apiserver.New(apiserver.Config{Clock: clock.NewFake(epoch), Rand: rand.New(rand.NewPCG(1, 2))})
			require.NoError(t, err)
			cfg := httpapi.Config{Server: srv, Clock: clock.NewFake(epoch)}
			for _, n := range tt.health {
				cfg.HealthChecks = append(cfg.HealthChecks, httpapi.NamedCheck(n, ok))
			}
			for _, n := range tt.ready {
				cfg.ReadyChecks = append(cfg.ReadyChecks, httpapi.NamedCheck(n, ok))
			}
			_, err = httpapi.New(cfg)
			if tt.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, tt.wantErr)
		})
	}
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
// in one of the caller's health checks, the only code a request can reach that this
// package does not control) is a 500 Status, not a dropped connection.
// FuzzRequest checks that no request reaches it otherwise.
func TestPanicIsAStatus(t *testing.T) {
	f := newFixture(t, func(c *httpapi.Config) {
		c.ReadyChecks = []httpapi.HealthChecker{httpapi.NamedCheck("broken", func() error { panic("broken readiness check") })}
	})
	rec := f.do(t, request{path: "/readyz"})
	require.Equal(t, http.StatusInternalServerError, rec.Code)
	assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	st := statusOf(t, rec)
	assert.Equal(t, api.StatusReasonInternalError, st.Reason)
	assert.Contains(t, st.Message, "the server panicked serving GET /readyz")
	assert.Equal(t, http.StatusOK, f.do(t, request{path: "/healthz"}).Code, "the handler still serves")
}
