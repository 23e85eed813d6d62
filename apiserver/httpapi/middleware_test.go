package httpapi_test

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/api/protobuf"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/apiserver/httpapi"
)

func TestRouteOf(t *testing.T) {
	f := newFixture(t, nil)
	tests := []struct {
		method, path, accept string
		want                 httpapi.Route // Resource checked by name only
		resource             string
		ok                   bool
	}{
		{method: "GET", path: "/api/v1/namespaces/default/pods/web", resource: "pods", ok: true,
			want: httpapi.Route{Verb: "get", Namespace: "default", Name: "web", Plain: true}},
		{method: "GET", path: "/api/v1/namespaces/default/pods", resource: "pods", ok: true,
			want: httpapi.Route{Verb: "list", Namespace: "default", Plain: true}},
		{method: "GET", path: "/api/v1/pods", accept: acceptTable, resource: "pods", ok: true,
			want: httpapi.Route{Verb: "list"}},
		{method: "GET", path: "/api/v1/pods?watch=true", resource: "pods", ok: true,
			want: httpapi.Route{Verb: "watch", Plain: true}},
		{method: "GET", path: "/api/v1/watch/namespaces/default/pods", resource: "pods", ok: true,
			want: httpapi.Route{Verb: "watch", Namespace: "default", Plain: true}},
		{method: "PUT", path: "/api/v1/namespaces/default/pods/web/status", resource: "pods", ok: true,
			want: httpapi.Route{Verb: "update", Namespace: "default", Name: "web", Subresource: "status", Plain: true}},
		{method: "POST", path: "/api/v1/namespaces/default/pods", resource: "pods", ok: true,
			want: httpapi.Route{Verb: "create", Namespace: "default", Plain: true}},
		{method: "DELETE", path: "/api/v1/nodes", resource: "nodes", ok: true,
			want: httpapi.Route{Verb: "deletecollection", Plain: true}},
		{method: "GET", path: "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/l", resource: "leases", ok: true,
			want: httpapi.Route{Verb: "get", Namespace: "kube-system", Name: "l", Plain: true}},
		{method: "GET", path: "/api/v1/namespaces/default", resource: "namespaces", ok: true,
			want: httpapi.Route{Verb: "get", Name: "default", Plain: true}},
		{method: "GET", path: "/api/v1/pods/web", accept: "application/yaml"}, // namespaced without a namespace: 404
		{method: "GET", path: "/api/v1"},
		{method: "GET", path: "/apis/coordination.k8s.io"},
		{method: "GET", path: "/api/v1/widgets"},
		{method: "GET", path: "/healthz"},
		{method: "GET", path: "/metrics"},
		{method: "PUT", path: "/api/v1/namespaces/default/pods"}, // update of a collection: 405
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			r := httptest.NewRequest(tt.method, tt.path, nil)
			if tt.accept != "" {
				r.Header.Set("Accept", tt.accept)
			}
			got, ok := f.h.RouteOf(r)
			require.Equal(t, tt.ok, ok)
			if !ok {
				return
			}
			assert.Equal(t, tt.resource, got.Resource.Resource)
			got.Resource = apiserver.ResourceInfo{}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestWriteStatus(t *testing.T) {
	tests := []struct {
		name       string
		accept     string
		err        error
		wantCode   int
		wantRetry  string
		wantFormat string
	}{
		{name: "json", err: apierrors.NewConflict(apierrors.GroupResource{Resource: "pods"}, "p", apierrors.ConflictModified),
			wantCode: http.StatusConflict, wantFormat: "application/json"},
		{name: "protobuf", accept: protobuf.MediaType + ",application/json", err: apierrors.NewTooManyRequests("slow down", 2),
			wantCode: http.StatusTooManyRequests, wantRetry: "2", wantFormat: protobuf.MediaType},
		{name: "a plain error is a 500", err: errors.New("boom"), wantCode: http.StatusInternalServerError, wantFormat: "application/json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/api/v1/pods", nil)
			if tt.accept != "" {
				r.Header.Set("Accept", tt.accept)
			}
			rec := httptest.NewRecorder()
			httpapi.WriteStatus(rec, r, tt.err)
			assert.Equal(t, tt.wantCode, rec.Code)
			assert.Equal(t, tt.wantRetry, rec.Header().Get("Retry-After"))
			assert.Equal(t, tt.wantFormat, rec.Header().Get("Content-Type"))
			st := statusOf(t, rec)
			assert.Equal(t, apierrors.StatusOf(tt.err).Reason, st.Reason)
			assert.Equal(t, int32(tt.wantCode), st.Code)
		})
	}
}

func TestWatchErrorEvent(t *testing.T) {
	gone := apierrors.NewTooOldResourceVersion(5, 10)
	t.Run("json", func(t *testing.T) {
		b, err := httpapi.WatchErrorEvent("application/json", gone)
		require.NoError(t, err)
		require.Equal(t, byte('\n'), b[len(b)-1], "one line")
		var ev struct {
			Type   string     `json:"type"`
			Object api.Status `json:"object"`
		}
		require.NoError(t, json.Unmarshal(b, &ev))
		assert.Equal(t, api.WatchError, ev.Type)
		assert.Equal(t, api.StatusReasonExpired, ev.Object.Reason)
		assert.Equal(t, "Status", ev.Object.Kind)
	})
	t.Run("protobuf", func(t *testing.T) {
		b, err := httpapi.WatchErrorEvent(protobuf.MediaType+";stream=watch", gone)
		require.NoError(t, err)
		require.Len(t, b, 4+int(binary.BigEndian.Uint32(b)), "one frame")
		typ, obj, err := protobuf.UnmarshalWatchEvent(b[4:])
		require.NoError(t, err)
		assert.Equal(t, api.WatchError, typ)
		u, err := protobuf.UnmarshalEnvelope(obj)
		require.NoError(t, err)
		assert.Equal(t, "Status", u.Kind)
		var st api.Status
		require.NoError(t, protobuf.Unmarshal(u.Raw, &st))
		assert.Equal(t, int32(http.StatusGone), st.Code)
	})
}
