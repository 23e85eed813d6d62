package httpapi_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
)

// v1EventJSON is an events.k8s.io/v1 Event as client-go's tools/events
// recorder posts it.
const v1EventJSON = `{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"web.17c9a2b3d4e5f601","namespace":"default"},
	"eventTime":"2024-05-14T09:21:07.123456Z","reportingController":"example.com/controller","reportingInstance":"controller-1",
	"action":"Reconcile","reason":"Synced","regarding":{"kind":"Pod","namespace":"default","name":"web","apiVersion":"v1"},
	"note":"synced the pod","type":"Normal"}`

// TestEventsV1HTTP writes events through each API's paths and reads them
// through the other's: a create, a strategic merge patch of the series (as
// tools/events sends for a repeat), refusals that store nothing, and a
// delete.
func TestEventsV1HTTP(t *testing.T) {
	f := newFixture(t, nil)
	const v1Path = "/apis/events.k8s.io/v1/namespaces/default/events"
	const corePath = "/api/v1/namespaces/default/events"
	const name = "web.17c9a2b3d4e5f601"

	rec := f.do(t, request{method: "POST", path: v1Path, body: v1EventJSON})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	created := decode[api.EventsV1Event](t, rec)
	assert.Equal(t, api.TypeMeta{APIVersion: "events.k8s.io/v1", Kind: "Event"}, created.TypeMeta)

	rec = f.do(t, request{path: corePath + "/" + name})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	core := decode[api.Event](t, rec)
	assert.Equal(t, api.TypeMeta{APIVersion: "v1", Kind: "Event"}, core.TypeMeta)
	assert.Equal(t, "synced the pod", core.Message)
	assert.Equal(t, "web", core.InvolvedObject.Name)
	assert.Equal(t, "example.com/controller", core.ReportingController)
	assert.Equal(t, created.Metadata.ResourceVersion, core.Metadata.ResourceVersion)

	rec = f.do(t, request{method: "PATCH", path: v1Path + "/" + name, body: `{"series":{"count":2,"lastObservedTime":"2024-05-14T09:22:07.000000Z"}}`,
		header: map[string]string{"Content-Type": "application/strategic-merge-patch+json"}})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	patched := decode[api.EventsV1Event](t, rec)
	assert.Equal(t, api.TypeMeta{APIVersion: "events.k8s.io/v1", Kind: "Event"}, patched.TypeMeta)
	require.NotNil(t, patched.Series)
	assert.Equal(t, int32(2), patched.Series.Count)
	core = decode[api.Event](t, f.do(t, request{path: corePath + "/" + name}))
	require.NotNil(t, core.Series)
	assert.Equal(t, int32(2), core.Series.Count)

	list := decode[struct {
		Kind, APIVersion string
		Items            []api.EventsV1Event
	}](t, f.do(t, request{path: "/apis/events.k8s.io/v1/events?fieldSelector=regarding.name%3Dweb"}))
	assert.Equal(t, "EventList", list.Kind)
	assert.Equal(t, "events.k8s.io/v1", list.APIVersion)
	require.Len(t, list.Items, 1)
	assert.Equal(t, "events.k8s.io/v1", list.Items[0].APIVersion)

	refused := []struct {
		name     string
		req      request
		wantCode int
		wantMsg  string
	}{
		{"a core/v1 body on the events.k8s.io path", request{method: "POST", path: v1Path, body: `{"apiVersion":"v1","kind":"Event","metadata":{"name":"x"}}`},
			http.StatusBadRequest, `the object's kind "Event" and apiVersion "v1" do not match the path, which takes kind "Event" in apiVersion "events.k8s.io/v1"`},
		{"an old-style event through events.k8s.io", request{method: "POST", path: v1Path, body: `{"metadata":{"name":"old"},"reason":"Pulled","deprecatedCount":3}`},
			http.StatusUnprocessableEntity, `Event "old" is invalid: [eventTime: Required value, type: Invalid value: "": has invalid value: , count: Invalid value: "": needs to be unset]`},
		{"changing the note", request{method: "PATCH", path: v1Path + "/" + name, body: `{"note":"rewritten"}`,
			header: map[string]string{"Content-Type": "application/merge-patch+json"}},
			http.StatusUnprocessableEntity, `Event "` + name + `" is invalid: message: Invalid value: "rewritten": field is immutable`},
		{"a core field label", request{path: v1Path + "?fieldSelector=involvedObject.name%3Dweb"}, http.StatusBadRequest, "field label not supported: involvedObject.name"},
		{"missing", request{path: v1Path + "/nope"}, http.StatusNotFound, `events.events.k8s.io "nope" not found`},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			rev := f.srv.Store().Rev()
			rec := f.do(t, tt.req)
			require.Equal(t, tt.wantCode, rec.Code, rec.Body.String())
			assert.Equal(t, tt.wantMsg, statusOf(t, rec).Message)
			assert.Equal(t, rev, f.srv.Store().Rev(), "nothing stored")
		})
	}

	rec = f.do(t, request{method: "DELETE", path: v1Path + "/" + name})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.Equal(t, "events.k8s.io/v1", decode[api.EventsV1Event](t, rec).APIVersion)
	assert.Equal(t, http.StatusNotFound, f.do(t, request{path: corePath + "/" + name}).Code)
}

// TestEventsV1Watch watches events.k8s.io events over HTTP while events are
// written through core/v1: each arrives as an events.k8s.io/v1 object.
func TestEventsV1Watch(t *testing.T) {
	ts := newTestServer(t, clock.Real{}, nil)
	rv := strconv.FormatInt(ts.srv.Store().Rev(), 10)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, ts.url+"/apis/events.k8s.io/v1/namespaces/default/events?watch=true&resourceVersion="+rv, nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)

	events := client.For[*api.Event](ts.srv)
	e := &api.Event{
		Metadata:       api.ObjectMeta{Namespace: "default", Name: "web.1"},
		InvolvedObject: api.ObjectReference{Kind: "Pod", Namespace: "default", Name: "web"},
		Reason:         "Pulled", Message: "pulled", Type: api.EventTypeNormal, Count: 1, Source: api.EventSource{Component: "kubelet"},
	}
	created, err := events.Create(ctx, e)
	require.NoError(t, err)
	bumped := created.DeepCopy()
	bumped.Count = 2
	_, err = events.Update(ctx, bumped)
	require.NoError(t, err)

	lines := bufio.NewScanner(resp.Body)
	for _, want := range []struct {
		typ   string
		count int32
	}{{api.WatchAdded, 1}, {api.WatchModified, 2}} {
		require.True(t, lines.Scan(), "the stream ended: %v", lines.Err())
		var ev struct {
			Type   string
			Object api.EventsV1Event
		}
		require.NoError(t, json.Unmarshal(lines.Bytes(), &ev))
		assert.Equal(t, want.typ, ev.Type)
		assert.Equal(t, "events.k8s.io/v1", ev.Object.APIVersion)
		assert.Equal(t, "pulled", ev.Object.Note)
		assert.Equal(t, "kubelet", ev.Object.DeprecatedSource.Component)
		assert.Equal(t, want.count, ev.Object.DeprecatedCount)
	}
}

// TestEvictionHTTP posts Evictions as kubectl drain does, and the ones it
// should not: a refused one leaves the pod as it was.
func TestEvictionHTTP(t *testing.T) {
	const path = "/api/v1/namespaces/default/pods/web/eviction"
	body := func(name, extra string) string {
		return `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"` + name + `","namespace":"default"}` + extra + `}`
	}
	tests := []struct {
		name     string
		req      request
		wantCode int
		wantMsg  string
		gone     bool
	}{
		{name: "evicted", req: request{method: "POST", path: path, body: body("web", `,"deleteOptions":{"gracePeriodSeconds":30}`)},
			wantCode: http.StatusCreated, wantMsg: "", gone: true},
		{name: "without kind or namespace", req: request{method: "POST", path: path, body: `{"metadata":{"name":"web"}}`},
			wantCode: http.StatusCreated, wantMsg: "", gone: true},
		{name: "dry run", req: request{method: "POST", path: path + "?dryRun=All", body: body("web", "")},
			wantCode: http.StatusCreated, wantMsg: ""},
		{name: "dry run in the body", req: request{method: "POST", path: path, body: body("web", `,"deleteOptions":{"dryRun":["All"]}`)},
			wantCode: http.StatusCreated, wantMsg: ""},
		{name: "unknown dry run", req: request{method: "POST", path: path, body: body("web", `,"deleteOptions":{"dryRun":["Some"]}`)},
			wantCode: http.StatusBadRequest, wantMsg: `deleteOptions.dryRun "Some" is not supported: the only value is "All"`},
		{name: "names another pod", req: request{method: "POST", path: path, body: body("other", "")},
			wantCode: http.StatusBadRequest, wantMsg: "name in URL does not match name in Eviction object"},
		{name: "names no pod", req: request{method: "POST", path: path, body: `{"apiVersion":"policy/v1","kind":"Eviction"}`},
			wantCode: http.StatusBadRequest, wantMsg: "name in URL does not match name in Eviction object"},
		{name: "another namespace", req: request{method: "POST", path: path, body: `{"metadata":{"name":"web","namespace":"kube-system"}}`},
			wantCode: http.StatusBadRequest, wantMsg: "the namespace of the provided object (kube-system) does not match the namespace sent on the request (default)"},
		{name: "a missing pod", req: request{method: "POST", path: "/api/v1/namespaces/default/pods/nope/eviction", body: body("nope", "")},
			wantCode: http.StatusNotFound, wantMsg: `pods "nope" not found`},
		{name: "a stale precondition", req: request{method: "POST", path: path, body: body("web", `,"deleteOptions":{"preconditions":{"resourceVersion":"1"}}`)},
			wantCode: http.StatusConflict, wantMsg: `Operation cannot be fulfilled on Pod "web": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (4). The object might have been modified`},
		{name: "not an Eviction", req: request{method: "POST", path: path, body: `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"web"}}`},
			wantCode: http.StatusBadRequest, wantMsg: `the object's kind "Binding" and apiVersion "v1" do not match the path, which takes kind "Eviction" in apiVersion "policy/v1"`},
		{name: "policy/v1beta1", req: request{method: "POST", path: path, body: `{"apiVersion":"policy/v1beta1","kind":"Eviction","metadata":{"name":"web"}}`},
			wantCode: http.StatusBadRequest, wantMsg: `no kind "Eviction" is registered for version "policy/v1beta1"`},
		{name: "GET", req: request{path: path}, wantCode: http.StatusMethodNotAllowed, wantMsg: `get eviction is not supported on resources of kind "pods"`},
		{name: "a replication controller", req: request{method: "POST", path: "/api/v1/namespaces/default/replicationcontrollers/frontend/eviction", body: body("frontend", "")},
			wantCode: http.StatusNotFound, wantMsg: "the server could not find the requested resource"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, nil)
			before, err := client.For[*api.Pod](f.srv).Get(ctx, "default", "web")
			require.NoError(t, err)
			rec := f.do(t, tt.req)
			require.Equal(t, tt.wantCode, rec.Code, rec.Body.String())
			assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
			st := statusOf(t, rec)
			assert.Equal(t, tt.wantMsg, st.Message)
			if tt.wantCode == http.StatusCreated {
				assert.Equal(t, api.StatusSuccess, st.Status)
			}
			after, err := client.For[*api.Pod](f.srv).Get(ctx, "default", "web")
			if tt.gone {
				assert.True(t, apierrors.IsNotFound(err), "evicted, got %v", err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, before, after, "the pod is as it was")
		})
	}
}
