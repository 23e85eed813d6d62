package httpapi_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/api/protobuf"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
)

// The Accept headers client-go sends: the typed clientset's, and the
// metadata client's for a get and for a list.
const (
	acceptProtobuf     = "application/vnd.kubernetes.protobuf,application/json"
	acceptPartial      = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"
	acceptPartialList  = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
	protobufTableFirst = "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io"
)

// protoRequest is a request whose body is obj in protobuf, enveloped as
// apiVersion and kind, sent as client-go sends it.
func protoRequest(t testing.TB, method, path, apiVersion, kind string, obj any) request {
	t.Helper()
	b, err := protobuf.MarshalObject(apiVersion, kind, obj)
	require.NoError(t, err)
	return request{method: method, path: path, body: string(b), header: map[string]string{
		"Content-Type": protobuf.MediaType, "Accept": acceptProtobuf,
	}}
}

// unwrap decodes a protobuf answer's envelope, checks it names apiVersion
// and kind, and decodes its message into v.
func unwrap(t testing.TB, rec *httptest.ResponseRecorder, apiVersion, kind string, v any) {
	t.Helper()
	require.Equal(t, protobuf.MediaType, rec.Header().Get("Content-Type"), "body: %q", rec.Body.String())
	u, err := protobuf.UnmarshalEnvelope(rec.Body.Bytes())
	require.NoError(t, err)
	require.Equal(t, apiVersion, u.APIVersion)
	require.Equal(t, kind, u.Kind)
	require.NoError(t, protobuf.Unmarshal(u.Raw, v))
}

// TestNegotiation checks which form each Accept header gets: the first
// entry the server can serve wins; a protobuf Table is never served.
func TestNegotiation(t *testing.T) {
	f := newFixture(t, nil)
	pod := "/api/v1/namespaces/default/pods/web"
	pods := "/api/v1/namespaces/default/pods"
	tests := []struct {
		name            string
		path, accept    string
		wantCode        int
		wantContentType string
		wantKind        string // the envelope's or the JSON's kind
	}{
		{name: "none: JSON", path: pod, wantCode: 200, wantContentType: "application/json", wantKind: "Pod"},
		{name: "protobuf first", path: pod, accept: acceptProtobuf, wantCode: 200, wantContentType: protobuf.MediaType, wantKind: "Pod"},
		{name: "JSON first", path: pod, accept: "application/json," + protobuf.MediaType, wantCode: 200, wantContentType: "application/json", wantKind: "Pod"},
		{name: "protobuf list", path: pods, accept: acceptProtobuf, wantCode: 200, wantContentType: protobuf.MediaType, wantKind: "PodList"},
		{name: "protobuf Table alone: 406", path: pods, accept: protobufTableFirst, wantCode: 406},
		{name: "protobuf Table, then JSON Table", path: pods, accept: protobufTableFirst + "," + acceptTable, wantCode: 200, wantContentType: "application/json", wantKind: "Table"},
		{name: "YAML alone: 406", path: pod, accept: "application/yaml", wantCode: 406},
		{name: "metadata get in protobuf", path: pod, accept: acceptPartial, wantCode: 200, wantContentType: protobuf.MediaType, wantKind: "PartialObjectMetadata"},
		{name: "metadata list in protobuf", path: pods, accept: acceptPartialList, wantCode: 200, wantContentType: protobuf.MediaType, wantKind: "PartialObjectMetadataList"},
		{name: "metadata list in JSON", path: pods, accept: "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1", wantCode: 200, wantContentType: "application/json", wantKind: "PartialObjectMetadataList"},
		{name: "metadata of one object asked of a list: the next entry", path: pods, accept: acceptPartial, wantCode: 200, wantContentType: "application/json", wantKind: "PodList"},
		{name: "metadata of an unknown group: 406", path: pod, accept: "application/json;as=PartialObjectMetadata;g=apps;v=v1", wantCode: 406},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := f.do(t, request{path: tc.path, header: map[string]string{"Accept": tc.accept}})
			require.Equal(t, tc.wantCode, rec.Code, rec.Body.String())
			if tc.wantCode != 200 {
				st := statusOf(t, rec)
				assert.Equal(t, api.StatusReasonNotAcceptable, st.Reason)
				assert.Contains(t, st.Message, "application/vnd.kubernetes.protobuf")
				return
			}
			assert.Equal(t, tc.wantContentType, rec.Header().Get("Content-Type"))
			if tc.wantContentType == protobuf.MediaType {
				u, err := protobuf.UnmarshalEnvelope(rec.Body.Bytes())
				require.NoError(t, err)
				assert.Equal(t, tc.wantKind, u.Kind)
				return
			}
			assert.Equal(t, tc.wantKind, decode[api.TypeMeta](t, rec).Kind)
		})
	}
}

// TestProtobufReads decodes what protobuf reads answer: an object, a list
// whose items carry no envelope, metadata alone, and a Status for errors.
func TestProtobufReads(t *testing.T) {
	f := newFixture(t, nil)
	t.Run("get", func(t *testing.T) {
		var pod api.Pod
		unwrap(t, f.do(t, request{path: "/api/v1/namespaces/default/pods/web", header: map[string]string{"Accept": acceptProtobuf}}), "v1", "Pod", &pod)
		assert.Equal(t, "web", pod.Metadata.Name)
		assert.Equal(t, "nginx:1.27", pod.Spec.Containers[0].Image)
		assert.NotEmpty(t, pod.Metadata.UID)
		assert.Equal(t, api.TypeMeta{}, pod.TypeMeta, "objects carry no TypeMeta inside")
	})
	t.Run("list", func(t *testing.T) {
		var list api.PodList
		unwrap(t, f.do(t, request{path: "/api/v1/pods", header: map[string]string{"Accept": acceptProtobuf}}), "v1", "PodList", &list)
		require.Len(t, list.Items, 1)
		assert.Equal(t, "web", list.Items[0].Metadata.Name)
		assert.NotEmpty(t, list.Metadata.ResourceVersion)
	})
	t.Run("metadata list", func(t *testing.T) {
		var list struct {
			Metadata api.ListMeta `protobuf:"bytes,1,opt,name=metadata"`
			Items    []struct {
				Metadata api.ObjectMeta `protobuf:"bytes,1,opt,name=metadata"`
			} `protobuf:"bytes,2,rep,name=items"`
		}
		unwrap(t, f.do(t, request{path: "/api/v1/namespaces/default/replicationcontrollers", header: map[string]string{"Accept": acceptPartialList}}),
			"meta.k8s.io/v1", "PartialObjectMetadataList", &list)
		require.Len(t, list.Items, 1)
		assert.Equal(t, "frontend", list.Items[0].Metadata.Name)
		assert.NotEmpty(t, list.Metadata.ResourceVersion)
	})
	t.Run("error", func(t *testing.T) {
		rec := f.do(t, request{path: "/api/v1/namespaces/default/pods/nope", header: map[string]string{"Accept": acceptProtobuf}})
		require.Equal(t, http.StatusNotFound, rec.Code)
		var st api.Status
		unwrap(t, rec, "v1", "Status", &st)
		assert.Equal(t, api.StatusReasonNotFound, st.Reason)
		assert.Equal(t, `pods "nope" not found`, st.Message)
		assert.EqualValues(t, 404, st.Code)
	})
}

// TestProtobufWrites sends each write as client-go's typed clients send it,
// in protobuf, and checks the answer and what was stored.
func TestProtobufWrites(t *testing.T) {
	f := newFixture(t, nil)
	pods := "/api/v1/namespaces/default/pods"

	rec := f.do(t, protoRequest(t, "POST", pods, "v1", "Pod", podOf("", "proto", map[string]string{"app": "proto"})))
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	var created api.Pod
	unwrap(t, rec, "v1", "Pod", &created)
	assert.Equal(t, "default", created.Metadata.Namespace)
	assert.NotEmpty(t, created.Metadata.UID)

	created.Metadata.Labels["tier"] = "front"
	rec = f.do(t, protoRequest(t, "PUT", pods+"/proto", "v1", "Pod", &created))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var updated api.Pod
	unwrap(t, rec, "v1", "Pod", &updated)
	assert.Equal(t, "front", updated.Metadata.Labels["tier"])

	updated.Status.Phase = api.PodRunning
	rec = f.do(t, protoRequest(t, "PUT", pods+"/proto/status", "v1", "Pod", &updated))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())

	rec = f.do(t, protoRequest(t, "POST", pods+"/proto/binding", "v1", "Binding", &struct {
		Metadata api.ObjectMeta      `protobuf:"bytes,1,opt,name=metadata"`
		Target   api.ObjectReference `protobuf:"bytes,2,opt,name=target"`
	}{Metadata: api.ObjectMeta{Name: "proto"}, Target: api.ObjectReference{Kind: "Node", Name: "node-1"}}))
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	var st api.Status
	unwrap(t, rec, "v1", "Status", &st)
	assert.Equal(t, api.StatusSuccess, st.Status)

	stored, err := f.srv.Get(ctx, client.Pods, "default", "proto", client.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, api.PodRunning, stored.(*api.Pod).Status.Phase)
	assert.Equal(t, "node-1", stored.(*api.Pod).Spec.NodeName)

	rec = f.do(t, protoRequest(t, "PUT", "/api/v1/namespaces/default/replicationcontrollers/frontend/scale", "autoscaling/v1", "Scale",
		&api.Scale{Metadata: api.ObjectMeta{Name: "frontend", Namespace: "default"}, Spec: api.ScaleSpec{Replicas: 4}}))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var sc api.Scale
	unwrap(t, rec, "autoscaling/v1", "Scale", &sc)
	assert.EqualValues(t, 4, sc.Spec.Replicas)

	grace := int64(0)
	rec = f.do(t, protoRequest(t, "DELETE", pods+"/proto", "v1", "DeleteOptions", &api.DeleteOptions{GracePeriodSeconds: &grace}))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	_, err = f.srv.Get(ctx, client.Pods, "default", "proto", client.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "a delete with grace 0 removes the pod at once: %v", err)

	t.Run("a Lease's delete sends coordination.k8s.io/v1 DeleteOptions", func(t *testing.T) {
		leases := "/apis/coordination.k8s.io/v1/namespaces/default/leases"
		rec := f.do(t, protoRequest(t, "POST", leases, "coordination.k8s.io/v1", "Lease", &api.Lease{Metadata: api.ObjectMeta{Name: "l"}}))
		require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
		rec = f.do(t, protoRequest(t, "DELETE", leases+"/l", "coordination.k8s.io/v1", "DeleteOptions", &api.DeleteOptions{}))
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	})
	t.Run("delete collection", func(t *testing.T) {
		rec := f.do(t, protoRequest(t, "DELETE", pods+"?labelSelector=app%3Dweb", "meta.k8s.io/v1", "DeleteOptions", &api.DeleteOptions{GracePeriodSeconds: &grace}))
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		var list api.PodList
		unwrap(t, rec, "v1", "PodList", &list)
		require.Len(t, list.Items, 1)
		assert.Equal(t, "web", list.Items[0].Metadata.Name)
	})
}

// TestUnsupportedBodies checks that a body in a format the server does not
// take gets 415 with a Status on every verb, and a protobuf body that is
// not what it says gets 400, with nothing stored changed.
func TestUnsupportedBodies(t *testing.T) {
	f := newFixture(t, nil)
	pods := "/api/v1/namespaces/default/pods"
	yaml := map[string]string{"Content-Type": "application/yaml"}
	proto := map[string]string{"Content-Type": protobuf.MediaType}
	tests := []struct {
		name       string
		req        request
		wantCode   int
		wantReason api.StatusReason
		wantMsg    string
	}{
		{name: "create", req: request{method: "POST", path: pods, body: "kind: Pod", header: yaml}, wantCode: 415, wantReason: api.StatusReasonUnsupportedMediaType, wantMsg: `"application/yaml"`},
		{name: "update", req: request{method: "PUT", path: pods + "/web", body: "kind: Pod", header: yaml}, wantCode: 415, wantReason: api.StatusReasonUnsupportedMediaType},
		{name: "status", req: request{method: "PUT", path: pods + "/web/status", body: "kind: Pod", header: yaml}, wantCode: 415, wantReason: api.StatusReasonUnsupportedMediaType},
		{name: "scale", req: request{method: "PUT", path: "/api/v1/namespaces/default/replicationcontrollers/frontend/scale", body: "kind: Scale", header: yaml}, wantCode: 415, wantReason: api.StatusReasonUnsupportedMediaType},
		{name: "binding", req: request{method: "POST", path: pods + "/web/binding", body: "kind: Binding", header: yaml}, wantCode: 415, wantReason: api.StatusReasonUnsupportedMediaType},
		{name: "delete", req: request{method: "DELETE", path: pods + "/web", body: "kind: DeleteOptions", header: yaml}, wantCode: 415, wantReason: api.StatusReasonUnsupportedMediaType},
		{name: "delete collection", req: request{method: "DELETE", path: pods, body: "kind: DeleteOptions", header: yaml}, wantCode: 415, wantReason: api.StatusReasonUnsupportedMediaType},
		{name: "CBOR", req: request{method: "POST", path: pods, body: "\xa0", header: map[string]string{"Content-Type": "application/cbor"}}, wantCode: 415, wantReason: api.StatusReasonUnsupportedMediaType, wantMsg: "application/cbor"},
		{name: "protobuf without the magic", req: request{method: "POST", path: pods, body: "\x0a\x00", header: proto}, wantCode: 400, wantReason: api.StatusReasonBadRequest, wantMsg: "not a Kubernetes protobuf object"},
		{name: "protobuf empty", req: request{method: "POST", path: pods, header: proto}, wantCode: 400, wantReason: api.StatusReasonBadRequest, wantMsg: "empty"},
		{name: "protobuf of another kind", req: protoRequest(t, "POST", pods, "v1", "Service", &api.Service{Metadata: api.ObjectMeta{Name: "s"}}), wantCode: 400, wantReason: api.StatusReasonBadRequest, wantMsg: `kind "Service"`},
		{name: "protobuf of an unserved kind", req: protoRequest(t, "POST", pods, "autoscaling/v2beta2", "HorizontalPodAutoscaler", &api.Pod{}), wantCode: 400, wantReason: api.StatusReasonBadRequest, wantMsg: `no kind "HorizontalPodAutoscaler" is registered for version "autoscaling/v2beta2"`},
		{name: "protobuf delete of another kind", req: protoRequest(t, "DELETE", pods+"/web", "v1", "Pod", &api.Pod{}), wantCode: 400, wantReason: api.StatusReasonBadRequest, wantMsg: "must be DeleteOptions"},
		{name: "protobuf truncated", req: func() request {
			r := protoRequest(t, "POST", pods, "v1", "Pod", podOf("", "cut", nil))
			r.body = r.body[:len(r.body)-3]
			return r
		}(), wantCode: 400, wantReason: api.StatusReasonBadRequest},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := f.srv.Store().Rev()
			rec := f.do(t, tc.req)
			require.Equal(t, tc.wantCode, rec.Code, rec.Body.String())
			st := statusOf(t, rec)
			assert.Equal(t, tc.wantReason, st.Reason)
			assert.Contains(t, st.Message, tc.wantMsg)
			assert.Equal(t, before, f.srv.Store().Rev(), "a refused request changes nothing")
		})
	}
}

// protoWatch reads a protobuf watch stream's frames.
type protoWatch struct {
	t    *testing.T
	body io.Reader
}

func openProtoWatch(t *testing.T, url, accept string) *protoWatch {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), watchBound)
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	require.NoError(t, err)
	req.Header.Set("Accept", accept)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { _ = resp.Body.Close() })
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, protobuf.MediaType+";stream=watch", resp.Header.Get("Content-Type"))
	return &protoWatch{t: t, body: resp.Body}
}

// next reads one frame: a 4-byte big-endian length and a WatchEvent whose
// object is an enveloped object; it returns the event type and envelope.
func (w *protoWatch) next() (string, protobuf.Unknown) {
	w.t.Helper()
	var n [4]byte
	_, err := io.ReadFull(w.body, n[:])
	require.NoError(w.t, err, "the watch ended")
	frame := make([]byte, binary.BigEndian.Uint32(n[:]))
	_, err = io.ReadFull(w.body, frame)
	require.NoError(w.t, err)
	typ, obj, err := protobuf.UnmarshalWatchEvent(frame)
	require.NoError(w.t, err)
	u, err := protobuf.UnmarshalEnvelope(obj)
	require.NoError(w.t, err)
	return typ, u
}

// TestProtobufWatch checks the protobuf watch framing: objects, the
// bookmark ending a streaming list, ERROR events, and metadata watches.
func TestProtobufWatch(t *testing.T) {
	clk := clock.NewFake(epoch)
	ts := newTestServer(t, clk, nil)
	pods := client.For[*api.Pod](ts.srv)
	_, err := pods.Create(ctx, podOf("default", "web", map[string]string{"app": "web"}))
	require.NoError(t, err)
	base := ts.url + "/api/v1/namespaces/default/pods?watch=true"

	t.Run("events and the initial-events-end bookmark", func(t *testing.T) {
		w := openProtoWatch(t, base+"&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan", acceptProtobuf)
		typ, u := w.next()
		assert.Equal(t, api.WatchAdded, typ)
		assert.Equal(t, "Pod", u.Kind)
		assert.Equal(t, "v1", u.APIVersion)
		var pod api.Pod
		require.NoError(t, protobuf.Unmarshal(u.Raw, &pod))
		assert.Equal(t, "web", pod.Metadata.Name)

		typ, u = w.next()
		assert.Equal(t, api.WatchBookmark, typ)
		var mark api.Pod
		require.NoError(t, protobuf.Unmarshal(u.Raw, &mark))
		assert.Equal(t, "true", mark.Metadata.Annotations["k8s.io/initial-events-end"])
		assert.NotEmpty(t, mark.Metadata.ResourceVersion)

		_, err := pods.Create(ctx, podOf("default", "next", nil))
		require.NoError(t, err)
		typ, u = w.next()
		assert.Equal(t, api.WatchAdded, typ)
		require.NoError(t, protobuf.Unmarshal(u.Raw, &pod))
		assert.Equal(t, "next", pod.Metadata.Name)
	})
	t.Run("metadata only", func(t *testing.T) {
		w := openProtoWatch(t, base+"&resourceVersion=0&fieldSelector=metadata.name%3Dweb", acceptPartial)
		typ, u := w.next()
		assert.Equal(t, api.WatchAdded, typ)
		assert.Equal(t, "PartialObjectMetadata", u.Kind)
		assert.Equal(t, "meta.k8s.io/v1", u.APIVersion)
		var p struct {
			Metadata api.ObjectMeta `protobuf:"bytes,1,opt,name=metadata"`
		}
		require.NoError(t, protobuf.Unmarshal(u.Raw, &p))
		assert.Equal(t, "web", p.Metadata.Name)
	})
	t.Run("a resourceVersion too old: an ERROR event with 410", func(t *testing.T) {
		for _, name := range []string{"a", "b", "c"} {
			_, err := pods.Create(ctx, podOf("default", name, nil))
			require.NoError(t, err)
		}
		require.NoError(t, ts.srv.Compact(ts.srv.Store().Rev()))
		w := openProtoWatch(t, base+"&resourceVersion=2", acceptProtobuf)
		typ, u := w.next()
		assert.Equal(t, api.WatchError, typ)
		assert.Equal(t, "Status", u.Kind)
		var st api.Status
		require.NoError(t, protobuf.Unmarshal(u.Raw, &st))
		assert.EqualValues(t, http.StatusGone, st.Code)
		assert.Equal(t, api.StatusReasonExpired, st.Reason)
		assert.Contains(t, st.Message, "too old resource version")
		var rest bytes.Buffer
		_, err := io.Copy(&rest, w.body)
		require.NoError(t, err)
		assert.Zero(t, rest.Len(), "the stream ends after the ERROR event")
	})
}

// FuzzProtobufRequest sends arbitrary protobuf bodies on every write path,
// as a broken or hostile client could: none may panic or get a 5xx, and a
// refused body must leave the store as it was.
func FuzzProtobufRequest(f *testing.F) {
	seed := func(method, path, apiVersion, kind string, obj any) {
		b, err := protobuf.MarshalObject(apiVersion, kind, obj)
		require.NoError(f, err)
		f.Add(method, path, b, true)
	}
	grace := int64(0)
	seed("POST", "/api/v1/namespaces/default/pods", "v1", "Pod", podOf("", "new", map[string]string{"app": "new"}))
	seed("PUT", "/api/v1/namespaces/default/pods/web", "v1", "Pod", podOf("default", "web", nil))
	seed("PUT", "/api/v1/namespaces/default/pods/web/status", "v1", "Pod", &api.Pod{Metadata: api.ObjectMeta{Name: "web"}, Status: api.PodStatus{Phase: api.PodRunning}})
	seed("PUT", "/api/v1/namespaces/default/replicationcontrollers/frontend/scale", "autoscaling/v1", "Scale", &api.Scale{Metadata: api.ObjectMeta{Name: "frontend"}, Spec: api.ScaleSpec{Replicas: 3}})
	seed("POST", "/api/v1/namespaces/default/replicationcontrollers", "v1", "ReplicationController", rcOf("default", "other", 1))
	seed("DELETE", "/api/v1/namespaces/default/pods/web", "v1", "DeleteOptions", &api.DeleteOptions{GracePeriodSeconds: &grace})
	seed("DELETE", "/api/v1/namespaces/default/pods", "meta.k8s.io/v1", "DeleteOptions", &api.DeleteOptions{})
	seed("POST", "/api/v1/namespaces", "v1", "Namespace", &api.Namespace{Metadata: api.ObjectMeta{Name: "a"}})
	f.Fuzz(func(t *testing.T, method, path string, body []byte, protobufAnswer bool) {
		if !strings.HasPrefix(path, "/") {
			path = "/" + path
		}
		fx := newFixture(t, nil)
		cctx, cancel := context.WithCancel(context.Background())
		cancel()
		req, err := http.NewRequestWithContext(cctx, method, "http://miniplane"+path, bytes.NewReader(body))
		if err != nil {
			return
		}
		req.Header.Set("Content-Type", protobuf.MediaType)
		if protobufAnswer {
			req.Header.Set("Accept", acceptProtobuf)
		}
		rev := fx.srv.Store().Rev()
		rec := httptest.NewRecorder()
		fx.h.ServeHTTP(rec, req)
		if rec.Code >= 500 && rec.Code != http.StatusGatewayTimeout {
			t.Fatalf("%s %s: %d %q", method, path, rec.Code, rec.Body.String())
		}
		if rec.Code >= 400 && fx.srv.Store().Rev() != rev {
			t.Fatalf("%s %s: refused with %d but the store changed", method, path, rec.Code)
		}
	})
}

// TestProtobufCustomResourceDefinitions checks that a definition travels in protobuf both
// ways, as apiextensions-apiserver serves it, while the custom resources it adds stay JSON
// only: a protobuf body is 415 and a protobuf Accept is answered in JSON.
func TestProtobufCustomResourceDefinitions(t *testing.T) {
	f := newFixture(t, nil)
	const crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
	size := api.JSONSchemaProps{Type: "string", Enum: []json.RawMessage{json.RawMessage(`"small"`), json.RawMessage(`"large"`)},
		Default: json.RawMessage(`"small"`)}
	replicas := api.JSONSchemaProps{Type: "integer", Minimum: new(0.0), Maximum: new(10.0)}
	crd := &api.CustomResourceDefinition{
		Metadata: api.ObjectMeta{Name: "widgets.demo.example.com"},
		Spec: api.CustomResourceDefinitionSpec{
			Group: "demo.example.com", Scope: api.NamespaceScoped,
			Names: api.CustomResourceDefinitionNames{Plural: "widgets", Kind: "Widget"},
			Versions: []api.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &api.CustomResourceValidation{OpenAPIV3Schema: &api.JSONSchemaProps{Type: "object",
					Properties: map[string]api.JSONSchemaProps{"spec": {Type: "object",
						Properties: map[string]api.JSONSchemaProps{"size": size, "replicas": replicas}}}}}}},
		},
	}
	rec := f.do(t, protoRequest(t, "POST", crds, "apiextensions.k8s.io/v1", "CustomResourceDefinition", crd))
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	var created api.CustomResourceDefinition
	unwrap(t, rec, "apiextensions.k8s.io/v1", "CustomResourceDefinition", &created)
	assert.Equal(t, crd.Spec.Versions[0].Schema, created.Spec.Versions[0].Schema, "the schema comes back as sent")

	rec = f.do(t, request{method: "GET", path: crds, header: map[string]string{"Accept": acceptProtobuf}})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var list api.CustomResourceDefinitionList
	unwrap(t, rec, "apiextensions.k8s.io/v1", "CustomResourceDefinitionList", &list)
	require.Len(t, list.Items, 1)
	assert.Equal(t, created.Spec, list.Items[0].Spec)
	assert.Equal(t, []string{"v1"}, list.Items[0].Status.StoredVersions, "established in the same write")

	widgets := "/apis/demo.example.com/v1/namespaces/default/widgets"
	rec = f.do(t, protoRequest(t, "POST", widgets, "demo.example.com/v1", "Widget", &api.Lease{Metadata: api.ObjectMeta{Name: "w"}}))
	assert.Equal(t, http.StatusUnsupportedMediaType, rec.Code, rec.Body.String())
	rec = f.do(t, request{method: "GET", path: widgets, header: map[string]string{"Accept": acceptProtobuf}})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
}
