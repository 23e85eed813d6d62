package httpapi_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/protobuf"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/apiserver/httpapi"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/internal/testenv"
)

// fixture is a Handler over a fresh server on a fake clock, holding a pod
// "web" and a replication controller "frontend" in namespace default.
type fixture struct {
	srv *apiserver.Server
	h   *httpapi.Handler
	clk *clock.Fake
}

func newFixture(t testing.TB, mutate func(*httpapi.Config)) *fixture {
	t.Helper()
	srv, clk := testenv.NewServer(t, apiserver.Config{}) // the mutation check on: the handler hands decoded bodies over
	cfg := httpapi.Config{Server: srv, Clock: clk}
	if mutate != nil {
		mutate(&cfg)
	}
	h, err := httpapi.New(cfg)
	require.NoError(t, err)
	_, err = srv.Create(ctx, podOf("default", "web", map[string]string{"app": "web"}))
	require.NoError(t, err)
	_, err = srv.Create(ctx, rcOf("default", "frontend", 2))
	require.NoError(t, err)
	return &fixture{srv: srv, h: h, clk: clk}
}

// request is one HTTP request to send through a Handler.
type request struct {
	method, path, body string
	header             map[string]string
}

// do serves one request and returns the recorded answer.
func (f *fixture) do(t testing.TB, r request) *httptest.ResponseRecorder {
	t.Helper()
	if r.method == "" {
		r.method = http.MethodGet
	}
	var body io.Reader
	if r.body != "" {
		body = strings.NewReader(r.body)
	}
	req := httptest.NewRequest(r.method, r.path, body)
	if r.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range r.header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	f.h.ServeHTTP(rec, req)
	return rec
}

// statusOf decodes an answer's Status body, in JSON or protobuf by its
// Content-Type.
func statusOf(t testing.TB, rec *httptest.ResponseRecorder) api.Status {
	t.Helper()
	var st api.Status
	if rec.Header().Get("Content-Type") == protobuf.MediaType {
		unwrap(t, rec, "v1", "Status", &st)
		return st
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &st), "body: %s", rec.Body.String())
	return st
}

// decode decodes an answer's JSON body into v.
func decode[T any](t testing.TB, rec *httptest.ResponseRecorder) T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &v), "body: %s", rec.Body.String())
	return v
}

// The Accept headers kubectl sends.
const (
	acceptTable     = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
	acceptDiscovery = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"
)

var ctx = context.Background()
