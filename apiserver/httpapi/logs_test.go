package httpapi_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver/httpapi"
	"github.com/miniplane/miniplane/client"
)

// fakeLogs is a LogSource with a current and a previous run per container
// ("pod/container"), which a test writes to: a small real log store, not a
// mock.
type fakeLogs struct {
	mu   sync.Mutex
	runs map[string]*fakeRun // by "pod/container" or "pod/container/previous"
}

type fakeRun struct {
	lines   []httpapi.LogLine
	ended   bool
	changed chan struct{}
}

func newFakeLogs() *fakeLogs { return &fakeLogs{runs: map[string]*fakeRun{}} }

// add appends a line to a run, and ends it if end is set.
func (f *fakeLogs) add(run string, at time.Time, text string, end bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.runs[run]
	if r == nil {
		r = &fakeRun{changed: make(chan struct{})}
		f.runs[run] = r
	}
	r.lines = append(r.lines, httpapi.LogLine{Seq: int64(len(r.lines) + 1), Time: at, Text: text})
	r.ended = end
	close(r.changed)
	r.changed = make(chan struct{})
}

func (f *fakeLogs) ContainerLog(pod *api.Pod, container string, previous bool, after int64) (httpapi.ContainerLog, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	key := pod.Metadata.Name + "/" + container
	if previous {
		key += "/previous"
	}
	r := f.runs[key]
	if r == nil {
		if previous {
			return httpapi.ContainerLog{}, apierrors.NewBadRequest(fmt.Sprintf("previous terminated container %q in pod %q not found", container, pod.Metadata.Name))
		}
		return httpapi.ContainerLog{}, apierrors.NewBadRequest(fmt.Sprintf("container %q in pod %q is waiting to start: ContainerCreating", container, pod.Metadata.Name))
	}
	out := httpapi.ContainerLog{Ended: r.ended}
	for _, l := range r.lines {
		if l.Seq > after {
			out.Lines = append(out.Lines, l)
		}
	}
	if !r.ended {
		out.Changed = r.changed
	}
	return out, nil
}

// logFixture is a handler whose pod "web" runs on node-0 with a log of
// three lines, 30s apart, ending at the fake clock's now; pod "two" has
// two containers; pod "pending" is not bound.
func logFixture(t *testing.T) (*fixture, *fakeLogs) {
	logs := newFakeLogs()
	f := newFixture(t, func(c *httpapi.Config) { c.Logs = logs })
	bound := func(name string, containers ...string) {
		p := podOf("default", name, nil)
		p.Spec.NodeName = "node-0"
		p.Spec.Containers = nil
		for _, c := range containers {
			p.Spec.Containers = append(p.Spec.Containers, api.Container{Name: c, Image: "nginx:1.27"})
		}
		_, err := f.srv.Create(ctx, p)
		require.NoError(t, err)
	}
	_, err := f.srv.Delete(ctx, client.Pods, "default", "web", api.DeleteOptions{GracePeriodSeconds: ptr(int64(0))})
	require.NoError(t, err)
	bound("web", "app")
	bound("two", "app", "sidecar")
	_, err = f.srv.Create(ctx, podOf("default", "pending", nil))
	require.NoError(t, err)
	now := f.clk.Now()
	logs.add("web/app", now.Add(-time.Minute), "one", false)
	logs.add("web/app", now.Add(-30*time.Second), "two", false)
	logs.add("web/app", now, "three", false)
	logs.add("web/app/previous", now.Add(-time.Hour), "the run before", true)
	return f, logs
}

// TestPodLog checks GET pods/{name}/log: each option kubectl logs sends,
// and each refusal with kube-apiserver's code and message.
func TestPodLog(t *testing.T) {
	f, _ := logFixture(t)
	const web = "/api/v1/namespaces/default/pods/web/log"
	tests := []struct {
		name     string
		req      request
		wantCode int
		want     string // the body, or the Status message
	}{
		{name: "the only container", req: request{path: web}, wantCode: 200, want: "one\ntwo\nthree\n"},
		{name: "named container", req: request{path: web + "?container=app"}, wantCode: 200, want: "one\ntwo\nthree\n"},
		{name: "tailLines", req: request{path: web + "?tailLines=2"}, wantCode: 200, want: "two\nthree\n"},
		{name: "tailLines 0", req: request{path: web + "?tailLines=0"}, wantCode: 200, want: ""},
		{name: "sinceSeconds", req: request{path: web + "?sinceSeconds=40"}, wantCode: 200, want: "two\nthree\n"},
		{name: "sinceSeconds beyond any duration: everything", req: request{path: web + "?sinceSeconds=9223372036854775807"}, wantCode: 200, want: "one\ntwo\nthree\n"},
		{name: "tailLines beyond any count", req: request{path: web + "?tailLines=9223372036854775807"}, wantCode: 200, want: "one\ntwo\nthree\n"},
		{name: "HEAD returns at once, follow or not", req: request{method: "HEAD", path: web + "?follow=true"}, wantCode: 200, want: "one\ntwo\nthree\n"},
		{name: "sinceTime", req: request{path: web + "?sinceTime=" + epoch.Add(-30*time.Second).Format(time.RFC3339)}, wantCode: 200, want: "two\nthree\n"},
		{name: "timestamps", req: request{path: web + "?timestamps=true&tailLines=1"}, wantCode: 200, want: "2026-03-01T12:00:00Z three\n"},
		{name: "limitBytes cuts a line", req: request{path: web + "?limitBytes=6"}, wantCode: 200, want: "one\ntw"},
		{name: "previous", req: request{path: web + "?previous=true"}, wantCode: 200, want: "the run before\n"},
		{name: "not bound yet: empty", req: request{path: "/api/v1/namespaces/default/pods/pending/log"}, wantCode: 200, want: ""},
		{name: "no previous run", req: request{path: "/api/v1/namespaces/default/pods/two/log?container=sidecar&previous=true"}, wantCode: 400,
			want: `previous terminated container "sidecar" in pod "two" not found`},
		{name: "waiting to start", req: request{path: "/api/v1/namespaces/default/pods/two/log?container=sidecar"}, wantCode: 400,
			want: `container "sidecar" in pod "two" is waiting to start: ContainerCreating`},
		{name: "unknown container", req: request{path: web + "?container=nope"}, wantCode: 400, want: "container nope is not valid for pod web"},
		{name: "several containers, none named", req: request{path: "/api/v1/namespaces/default/pods/two/log"}, wantCode: 400,
			want: "a container name must be specified for pod two, choose one of: [app sidecar]"},
		{name: "missing pod", req: request{path: "/api/v1/namespaces/default/pods/nope/log"}, wantCode: 404, want: `pods "nope" not found`},
		{name: "negative tailLines", req: request{path: web + "?tailLines=-1"}, wantCode: 422,
			want: `PodLogOptions "web" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0`},
		{name: "zero sinceSeconds", req: request{path: web + "?sinceSeconds=0"}, wantCode: 422,
			want: `PodLogOptions "web" is invalid: sinceSeconds: Invalid value: 0: must be greater than 0`},
		{name: "zero limitBytes", req: request{path: web + "?limitBytes=0"}, wantCode: 422,
			want: `PodLogOptions "web" is invalid: limitBytes: Invalid value: 0: must be greater than 0`},
		{name: "both since", req: request{path: web + "?sinceSeconds=5&sinceTime=2026-03-01T11:00:00Z"}, wantCode: 422,
			want: "PodLogOptions \"web\" is invalid: : Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified"},
		{name: "tailLines not a number", req: request{path: web + "?tailLines=many"}, wantCode: 400, want: `tailLines "many" is not an integer`},
		{name: "follow not a boolean", req: request{path: web + "?follow=perhaps"}, wantCode: 400, want: `follow "perhaps" is not a boolean`},
		{name: "bad sinceTime", req: request{path: web + "?sinceTime=yesterday"}, wantCode: 400, want: `sinceTime "yesterday" is not an RFC 3339 time`},
		{name: "POST", req: request{method: "POST", path: web, body: "{}"}, wantCode: 405, want: `create log is not supported on resources of kind "pods"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := f.srv.Store().Rev()
			rec := f.do(t, tt.req)
			require.Equal(t, tt.wantCode, rec.Code, rec.Body.String())
			if tt.wantCode == http.StatusOK {
				assert.Equal(t, "text/plain", rec.Header().Get("Content-Type"))
				assert.Equal(t, tt.want, rec.Body.String())
			} else {
				assert.Equal(t, tt.want, statusOf(t, rec).Message)
			}
			assert.Equal(t, before, f.srv.Store().Rev(), "reading a log writes nothing")
		})
	}
	t.Run("no log source", func(t *testing.T) {
		f := newFixture(t, nil)
		p := podOf("default", "bound", nil)
		p.Spec.NodeName = "node-0"
		_, err := f.srv.Create(ctx, p)
		require.NoError(t, err)
		rec := f.do(t, request{path: "/api/v1/namespaces/default/pods/bound/log"})
		require.Equal(t, http.StatusBadRequest, rec.Code)
		assert.Equal(t, "no kubelet serves the logs of pod bound: this server runs without simulated nodes", statusOf(t, rec).Message)
	})
}

// TestPodLogFollow: with follow=true the answer stays open, carries a line
// written after the request as soon as it is written, and ends when the
// container's run ends.
func TestPodLogFollow(t *testing.T) {
	f, logs := logFixture(t)
	srv := newTestServer(t, f.clk, func(c *httpapi.Config) { c.Logs = logs })
	p := podOf("default", "web", nil)
	p.Spec.NodeName = "node-0"
	_, err := srv.srv.Create(ctx, p)
	require.NoError(t, err)

	reqCtx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(reqCtx, http.MethodGet, srv.url+"/api/v1/namespaces/default/pods/web/log?follow=true&tailLines=1", nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	lines := bufio.NewScanner(resp.Body)
	require.True(t, lines.Scan())
	assert.Equal(t, "three", lines.Text(), "tailLines applies to what is there at the start")

	logs.add("web/app", f.clk.Now(), "four", false)
	require.True(t, lines.Scan(), "the new line arrives while the request is open")
	assert.Equal(t, "four", lines.Text())

	logs.add("web/app", f.clk.Now(), "exited", true)
	require.True(t, lines.Scan())
	assert.Equal(t, "exited", lines.Text())
	assert.False(t, lines.Scan(), "the run ended: so does the answer")
	require.NoError(t, lines.Err())
}

// TestConnectSubresources: attach, port-forward and proxy get a
// Status saying what miniplane does not do and why, whatever the method;
// a missing pod is still 404.
func TestConnectSubresources(t *testing.T) {
	f := newFixture(t, nil)
	const web = "/api/v1/namespaces/default/pods/web/"
	tests := []struct {
		name, method, path string
		wantCode           int
		wantMsg            string
	}{
		{"attach", "POST", web + "attach?stdin=true", 405, "miniplane runs no containers: attach is not supported"},
		{"port-forward", "POST", web + "portforward?ports=80", 405, "miniplane runs no containers: port-forward is not supported"},
		{"proxy", "GET", web + "proxy", 405, "miniplane runs no containers: proxy is not supported"},
		{"proxy with a path", "PUT", web + "proxy/some/path", 405, "miniplane runs no containers: proxy is not supported"},
		{"service proxy", "GET", "/api/v1/namespaces/default/services/web/proxy/", 404, `services "web" not found`},
		{"node proxy", "GET", "/api/v1/nodes/node-0/proxy/stats", 404, `nodes "node-0" not found`},
		{"missing pod", "POST", "/api/v1/namespaces/default/pods/nope/exec", 404, `pods "nope" not found`},
		{"exec on a service", "POST", "/api/v1/namespaces/default/services/web/exec", 404, "the server could not find the requested resource"},
		{"a path under exec", "POST", web + "exec/more", 404, "the server could not find the requested resource"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := f.srv.Store().Rev()
			rec := f.do(t, request{method: tt.method, path: tt.path})
			require.Equal(t, tt.wantCode, rec.Code, rec.Body.String())
			st := statusOf(t, rec)
			assert.Equal(t, tt.wantMsg, st.Message)
			if tt.wantCode == http.StatusMethodNotAllowed {
				assert.Equal(t, api.StatusReasonMethodNotAllowed, st.Reason)
			}
			assert.Equal(t, before, f.srv.Store().Rev())
		})
	}
}
