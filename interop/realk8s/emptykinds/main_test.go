package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHandler(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Upstream", "yes")
		_, _ = io.WriteString(w, r.Method+" "+r.URL.RequestURI())
	}))
	defer upstream.Close()
	h, err := newHandler(upstream.URL, "v1/persistentvolumes,v1/persistentvolumeclaims,storage.k8s.io/v1/csinodes,policy/v1/poddisruptionbudgets")
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	defer srv.Close()

	tests := []struct {
		name, method, path string
		code               int
		upstream           bool
		body               string // a substring of the response
	}{
		{"cluster list", "GET", "/api/v1/persistentvolumes?limit=500&resourceVersion=0", 200, false, `{"apiVersion":"v1","items":[],"kind":"PersistentVolumeList","metadata":{"resourceVersion":"1"}}`},
		{"namespaced list", "GET", "/api/v1/namespaces/default/persistentvolumeclaims", 200, false, `"kind":"PersistentVolumeClaimList"`},
		{"group list", "GET", "/apis/storage.k8s.io/v1/csinodes", 200, false, `"apiVersion":"storage.k8s.io/v1"`},
		{"group, namespaced", "GET", "/apis/policy/v1/namespaces/a/poddisruptionbudgets", 200, false, `"kind":"PodDisruptionBudgetList"`},
		{"named object", "GET", "/api/v1/persistentvolumes/pv-1", 404, false, `"reason":"NotFound"`},
		{"write refused", "POST", "/api/v1/persistentvolumes", 405, false, `"reason":"MethodNotAllowed"`},
		{"delete refused", "DELETE", "/apis/storage.k8s.io/v1/csinodes/n", 405, false, `"reason":"MethodNotAllowed"`},
		{"bad watch timeout", "GET", "/api/v1/persistentvolumes?watch=true&timeoutSeconds=x", 400, false, `timeoutSeconds must be`},
		{"other kind forwarded", "GET", "/api/v1/pods?limit=1", 200, true, "GET /api/v1/pods?limit=1"},
		{"same resource, other group forwarded", "GET", "/apis/storage.k8s.io/v1beta1/csinodes", 200, true, "GET /apis/storage.k8s.io/v1beta1/csinodes"},
		{"subresource forwarded", "GET", "/api/v1/namespaces/a/persistentvolumeclaims/c/status", 200, true, "/status"},
		{"discovery forwarded", "GET", "/apis/policy/v1", 200, true, "GET /apis/policy/v1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, srv.URL+tt.path, nil)
			require.NoError(t, err)
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			assert.Equal(t, tt.code, resp.StatusCode, string(b))
			assert.Equal(t, tt.upstream, resp.Header.Get("X-Upstream") == "yes")
			assert.Contains(t, string(b), tt.body)
		})
	}
}

func TestWatchStaysOpenUntilTimeoutOrClient(t *testing.T) {
	h, err := newHandler("http://127.0.0.1:1", "v1/persistentvolumes")
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	defer srv.Close()

	// timeoutSeconds=1: the stream ends by itself, with no event in it.
	resp, err := http.Get(srv.URL + "/api/v1/persistentvolumes?watch=true&timeoutSeconds=1")
	require.NoError(t, err)
	require.Equal(t, 200, resp.StatusCode)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Empty(t, b)

	// No timeout: open until the client goes.
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, "GET", srv.URL+"/api/v1/persistentvolumes?watch=true", nil)
	require.NoError(t, err)
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.Equal(t, 200, resp.StatusCode)
	got := make(chan error, 1)
	go func() { _, err := io.ReadAll(resp.Body); got <- err }()
	select {
	case <-got:
		t.Fatal("the watch ended before its client went")
	case <-time.After(200 * time.Millisecond): // a bound on a negative, not a wait for an event
	}
	cancel()
	require.Error(t, <-got)
	resp.Body.Close()
}

func TestNewHandlerRefusesBadFlags(t *testing.T) {
	for _, tt := range []struct{ upstream, kinds, want string }{
		{"", "v1/persistentvolumes", "--upstream must be"},
		{"http://x", "", "names no resource"},
		{"http://x", "v1/pods", `unknown resource "pods"`},
		{"http://x", "a/b/c/d", "is not group/version/resource"},
	} {
		_, err := newHandler(tt.upstream, tt.kinds)
		require.Error(t, err)
		assert.Contains(t, err.Error(), tt.want)
	}
	var m map[string]any
	rec := httptest.NewRecorder()
	writeStatus(rec, 405, "MethodNotAllowed", "m")
	require.NoError(t, json.Unmarshal([]byte(strings.TrimSpace(rec.Body.String())), &m))
	assert.Equal(t, "Status", m["kind"])
	assert.EqualValues(t, 405, m["code"])
}
