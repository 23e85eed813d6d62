package httpapi

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/protobuf"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/apiserver/patch"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
)

// TestCreateAnswerSharesTheWatchEncoding checks that a create's answer is
// the encoding its watchers get from the shared cache: the stored object,
// encoded once, in JSON and in protobuf.
func TestCreateAnswerSharesTheWatchEncoding(t *testing.T) {
	h, srv, _ := newFakeClockHandler(t)
	for i, tt := range []struct {
		accept string
		f      format
		body   string
	}{
		{"application/json", formatJSON, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a"},"spec":{"containers":[{"name":"c","image":"i"}]}}`},
		{protobuf.MediaType, formatProtobuf, `{"metadata":{"name":"b"},"spec":{"containers":[{"name":"c","image":"i"}]}}`},
		{"application/json", formatJSON, `{"metadata":{"name":"c"},"spec":{"containers":[{"name":"c","image":"i"}]}}`},
	} {
		r := httptest.NewRequest(http.MethodPost, "/api/v1/namespaces/default/pods", strings.NewReader(tt.body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", tt.accept)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())

		var pod api.Pod
		stored, err := srv.Get(context.Background(), "pods", "default", string(rune('a'+i)), client.GetOptions{})
		require.NoError(t, err)
		h.encodings.mu.Lock()
		cached, ok := h.encodings.byObj[encodingKey{obj: stored, f: tt.f}]
		h.encodings.mu.Unlock()
		if tt.f == formatJSON {
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &pod))
			assert.Equal(t, "Pod", pod.Kind, "the answer names its kind, sent or not")
		}
		require.True(t, ok, "the answer's encoding is in the watch streams' cache")
		assert.Equal(t, cached, rec.Body.Bytes())
		want, err := encodeValue(tt.f, "v1", "Pod", stored)
		require.NoError(t, err)
		assert.Equal(t, want, rec.Body.Bytes())
	}
}

// TestTrackUpdateIsTheJSONPath checks an update's tracking against what it
// was before managedFields were computed from typed objects: both objects
// through JSON, patch.TrackUpdate, and the answer decoded. The result must be
// the same object, deeply: the JSON round trip's normalization (an empty
// list dropped) included.
func TestTrackUpdateIsTheJSONPath(t *testing.T) {
	h, srv, clk := newFakeClockHandler(t)
	info, ok := srv.Resource(client.Pods)
	require.True(t, ok)

	pod := func(image string, finalizers []string, labels map[string]string) *api.Pod {
		return &api.Pod{
			TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "Pod"},
			Metadata: api.ObjectMeta{Namespace: "default", Name: "p", Labels: labels, Finalizers: finalizers},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "app", Image: image,
				Ports: []api.ContainerPort{{ContainerPort: 80}}}}},
		}
	}
	at := api.NewTime(clk.Now())
	old := pod("nginx:1", []string{"x"}, map[string]string{"app": "web"})
	old.Metadata.ManagedFields = []api.ManagedFieldsEntry{{Manager: "creator", Operation: "Update", APIVersion: "v1",
		Time: &at, FieldsType: "FieldsV1", FieldsV1: json.RawMessage(`{"f:metadata":{"f:finalizers":{"v:\"x\"":{}},"f:labels":{"f:app":{}}},` +
			`"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:image":{},"f:name":{},"f:ports":{"k:{\"containerPort\":80}":{".":{},"f:containerPort":{}}}}}}}`)}}
	for _, tt := range []struct {
		name    string
		obj     *api.Pod
		manager string
	}{
		{"the image changed", pod("nginx:2", []string{"x"}, map[string]string{"app": "web"}), "kubectl"},
		{"nothing changed", pod("nginx:1", []string{"x"}, map[string]string{"app": "web"}), "kubectl"},
		{"finalizers emptied, labels added", pod("nginx:1", []string{}, map[string]string{"app": "web", "tier": "a"}), "creator"},
		{"client-sent managedFields are replaced", func() *api.Pod {
			p := pod("nginx:3", nil, nil)
			p.Metadata.ManagedFields = []api.ManagedFieldsEntry{{Manager: "liar", FieldsType: "FieldsV1", FieldsV1: json.RawMessage(`{}`)}}
			return p
		}(), "kubectl"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			oldJSON, err := json.Marshal(old)
			require.NoError(t, err)
			newJSON, err := json.Marshal(tt.obj)
			require.NoError(t, err)
			tracked, err := patch.TrackUpdate("Pod", oldJSON, newJSON, tt.manager, clk.Now())
			require.NoError(t, err)
			want := &api.Pod{}
			require.NoError(t, json.Unmarshal(tracked, want))

			got, err := h.trackUpdate(info, old, tt.obj, tt.manager)
			require.NoError(t, err)
			assert.Equal(t, want, got)
		})
	}
}

// newFakeClockHandler returns a Handler over a fresh Server, both on one
// fake clock at 2026-01-01 and with a fixed seed: the setup of the tests and
// benchmarks that call the handler directly.
func newFakeClockHandler(tb testing.TB) (*Handler, *apiserver.Server, *clock.Fake) {
	tb.Helper()
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	srv, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(1, 2))})
	require.NoError(tb, err)
	h, err := New(Config{Server: srv, Clock: clk})
	require.NoError(tb, err)
	return h, srv, clk
}
