package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/miniplane/miniplane/api"
)

// FuzzRequest sends arbitrary requests, as a client could, through the
// Handler: none may panic or get a 5xx (the recover that turns a panic
// into a 500 must never be reached), every JSON answer must say so in its
// Content-Type, and a refused request must leave the store as it was.
func FuzzRequest(f *testing.F) {
	seeds := []struct {
		method, path, contentType, body string
	}{
		{"GET", "/api/v1/namespaces/default/pods", "", ""},
		{"GET", "/api/v1/pods?labelSelector=app%3Dweb&fieldSelector=metadata.name%3Dweb", "", ""},
		{"GET", "/api/v1/namespaces/default/pods?watch=true&resourceVersion=0", "", ""},
		{"GET", "/api/v1/namespaces/default/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true", "", ""},
		{"GET", "/api/v1/namespaces/default/pods?limit=1&continue=abc", "", ""},
		{"GET", "/api/v1/namespaces/default/pods/web?resourceVersion=99999", "", ""},
		{"POST", "/api/v1/namespaces/default/pods", "application/json", newPodJSON},
		{"POST", "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices", "application/json",
			`{"metadata":{"name":"web-1"},"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1"],"conditions":{"ready":true},"hints":{"forZones":[{"name":"a"}]}}],"ports":[{"name":"http","port":80}]}`},
		{"POST", "/api/v1/namespaces/default/pods?fieldValidation=Strict&dryRun=All", "application/json", `{"metadata":{"name":"x"},"spec":{"containers":[{"name":"c","image":"i","ports":[{"containerPort":"80"}]}]}}`},
		{"POST", "/api/v1/namespaces", "application/json", `{"kind":"Namespace","apiVersion":"v1","metadata":{"name":"a"}}`},
		{"PUT", "/api/v1/namespaces/default/pods/web", "application/json", `{"metadata":{"name":"web","resourceVersion":"1"}}`},
		{"PUT", "/api/v1/namespaces/default/pods/web/status", "application/json", `{"status":{"phase":"Running"}}`},
		{"PUT", "/api/v1/namespaces/default/replicationcontrollers/frontend/scale", "application/json", `{"spec":{"replicas":3}}`},
		{"PATCH", "/api/v1/namespaces/default/pods/web", "application/merge-patch+json", `{"metadata":{"labels":{"a":"b"}}}`},
		{"PATCH", "/api/v1/namespaces/default/pods/new?fieldManager=kubectl", "application/apply-patch+yaml", newPodJSON},
		{"DELETE", "/api/v1/namespaces/default/replicationcontrollers/frontend", "application/json", `{"propagationPolicy":"Orphan","preconditions":{"uid":"x"}}`},
		{"DELETE", "/api/v1/namespaces/default/pods?gracePeriodSeconds=0", "", ""},
		{"POST", "/api/v1/namespaces/default/pods/web/binding", "application/json", `{"target":{"name":"n1"}}`},
		{"POST", "/api/v1/namespaces/default/pods/web/eviction", "application/json", `{"metadata":{"name":"web"},"deleteOptions":{"gracePeriodSeconds":0}}`},
		{"POST", "/apis/events.k8s.io/v1/namespaces/default/events", "application/json", v1EventJSON},
		{"GET", "/apis/events.k8s.io/v1/events?fieldSelector=regarding.name%3Dweb", "", ""},
		{"POST", "/apis/apps/v1/namespaces/default/daemonsets", "application/json", `{"metadata":{"name":"agent"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}},"updateStrategy":{"rollingUpdate":{"maxUnavailable":"10%","maxSurge":0}}}}`},
		{"POST", "/apis/apps/v1/namespaces/default/controllerrevisions", "application/json", `{"metadata":{"name":"agent-1"},"data":{"spec":{"template":{"$patch":"replace"}}},"revision":1}`},
		{"GET", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/x", "", ""},
		{"GET", "/api/v1/namespaces/default/pods/../../../version", "", ""},
		{"GET", "/openapi/v3/api/v1", "", ""},
	}
	for _, s := range seeds {
		f.Add(s.method, s.path, s.contentType, []byte(s.body), true)
	}
	f.Fuzz(func(t *testing.T, method, path, contentType string, body []byte, table bool) {
		if !strings.HasPrefix(path, "/") {
			path = "/" + path
		}
		fx := newFixture(t, nil)
		// A cancelled context makes a watch answer what is pending and end.
		cctx, cancel := context.WithCancel(context.Background())
		cancel()
		var rd io.Reader = http.NoBody
		if len(body) > 0 {
			rd = bytes.NewReader(body)
		}
		req, err := http.NewRequestWithContext(cctx, method, "http://miniplane"+path, rd)
		if err != nil {
			return // not a request a client could send
		}
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		if table {
			req.Header.Set("Accept", acceptTable)
		}

		rev := fx.srv.Store().Rev()
		rec := httptest.NewRecorder()
		fx.h.ServeHTTP(rec, req)

		if rec.Code >= 500 && !tooLargeResourceVersion(rec) {
			t.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body.String())
		}
		ct := rec.Header().Get("Content-Type")
		if strings.HasPrefix(strings.TrimSpace(rec.Body.String()), "{") && !strings.HasPrefix(ct, "application/json") {
			t.Fatalf("%s %s: JSON answered as %q", method, path, ct)
		}
		if rec.Code >= 400 && fx.srv.Store().Rev() != rev {
			t.Fatalf("%s %s: refused with %d but the store changed", method, path, rec.Code)
		}
	})
}

// tooLargeResourceVersion reports whether an answer is Kubernetes' 504
// for a read at a resourceVersion the store has not reached: a Timeout
// clients retry, which kube-apiserver answers the same way.
func tooLargeResourceVersion(rec *httptest.ResponseRecorder) bool {
	var st api.Status
	if json.Unmarshal(rec.Body.Bytes(), &st) != nil || st.Details == nil {
		return false
	}
	for _, c := range st.Details.Causes {
		if c.Type == api.CauseTypeResourceVersionTooLarge {
			return rec.Code == http.StatusGatewayTimeout
		}
	}
	return false
}
