package inmem_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/apiserver/httpapi"
	"github.com/miniplane/miniplane/apiserver/httpapi/inmem"
	"github.com/miniplane/miniplane/clock"
)

// Every test runs inside a synctest bubble: the clock is the bubble's, and
// synctest.Test fails if any goroutine the transport or the handler
// started is still there when the test returns.

// plane is miniplane's HTTP API over a fresh server, on the bubble's clock,
// with a client whose transport serves it in memory.
type plane struct {
	srv    *apiserver.Server
	h      *httpapi.Handler
	client *http.Client
}

func newPlane(t *testing.T) *plane {
	t.Helper()
	srv, err := apiserver.New(apiserver.Config{Clock: clock.Real{}, Rand: rand.New(rand.NewPCG(1, 2))})
	require.NoError(t, err)
	h, err := httpapi.New(httpapi.Config{Server: srv, Clock: clock.Real{}})
	require.NoError(t, err)
	return &plane{srv: srv, h: h, client: &http.Client{Transport: inmem.NewTransport(h)}}
}

func (p *plane) do(t *testing.T, ctx context.Context, method, path, body string) *http.Response {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, inmem.Host+path, r)
	require.NoError(t, err)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := p.client.Do(req)
	require.NoError(t, err)
	return resp
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b)
}

const podJSON = `{"kind":"Pod","apiVersion":"v1","metadata":{"name":%q,"namespace":"default"},"spec":{"containers":[{"name":"app","image":"nginx"}]}}`

func podBody(name string) string { return strings.Replace(podJSON, "%q", `"`+name+`"`, 1) }

func TestRequestsAreServedInMemory(t *testing.T) {
	tests := []struct {
		name     string
		method   string
		path     string
		body     string
		wantCode int
		check    func(t *testing.T, resp *http.Response, body string)
	}{
		{
			name: "create", method: http.MethodPost, path: "/api/v1/namespaces/default/pods", body: podBody("made"),
			wantCode: http.StatusCreated,
			check: func(t *testing.T, resp *http.Response, body string) {
				var pod api.Pod
				require.NoError(t, json.Unmarshal([]byte(body), &pod))
				assert.Equal(t, "made", pod.Metadata.Name)
				assert.NotEmpty(t, pod.Metadata.ResourceVersion)
			},
		},
		{
			name: "get", method: http.MethodGet, path: "/api/v1/namespaces/default/pods/web", wantCode: http.StatusOK,
			check: func(t *testing.T, resp *http.Response, body string) {
				var pod api.Pod
				require.NoError(t, json.Unmarshal([]byte(body), &pod))
				assert.Equal(t, "web", pod.Metadata.Name)
				assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
				assert.Equal(t, int64(len(body)), resp.ContentLength, "Content-Length reaches the client")
			},
		},
		{
			name: "list", method: http.MethodGet, path: "/api/v1/namespaces/default/pods", wantCode: http.StatusOK,
			check: func(t *testing.T, resp *http.Response, body string) {
				var l struct {
					Kind  string    `json:"kind"`
					Items []api.Pod `json:"items"`
				}
				require.NoError(t, json.Unmarshal([]byte(body), &l))
				assert.Equal(t, "PodList", l.Kind)
				require.Len(t, l.Items, 1)
				assert.Equal(t, "web", l.Items[0].Metadata.Name)
			},
		},
		{
			name: "a Status error", method: http.MethodGet, path: "/api/v1/namespaces/default/pods/nope", wantCode: http.StatusNotFound,
			check: func(t *testing.T, resp *http.Response, body string) {
				var st api.Status
				require.NoError(t, json.Unmarshal([]byte(body), &st))
				assert.Equal(t, api.StatusReasonNotFound, st.Reason)
			},
		},
		{
			name: "HEAD has no body", method: http.MethodHead, path: "/api/v1/namespaces/default/pods/web", wantCode: http.StatusOK,
			check: func(t *testing.T, resp *http.Response, body string) {
				assert.Empty(t, body)
				assert.Positive(t, resp.ContentLength)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := newPlane(t)
				_, err := p.srv.Create(t.Context(), &api.Pod{
					Metadata: api.ObjectMeta{Namespace: "default", Name: "web"},
					Spec:     api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx"}}},
				})
				require.NoError(t, err)
				resp := p.do(t, t.Context(), tt.method, tt.path, tt.body)
				body := readAll(t, resp)
				require.Equal(t, tt.wantCode, resp.StatusCode, body)
				tt.check(t, resp, body)
			})
		})
	}
}

// A watch's events reach the client one by one, as the handler writes
// them, and closing the body ends the handler's watch.
func TestWatchStreamsEventsAsTheyAreWritten(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPlane(t)
		resp := p.do(t, t.Context(), http.MethodGet, "/api/v1/namespaces/default/pods?watch=true&resourceVersion=1", "")
		require.Equal(t, http.StatusOK, resp.StatusCode)
		lines := bufio.NewReader(resp.Body)
		for _, name := range []string{"a", "b", "c"} {
			created := p.do(t, t.Context(), http.MethodPost, "/api/v1/namespaces/default/pods", podBody(name))
			require.Equal(t, http.StatusCreated, created.StatusCode, readAll(t, created))
			line, err := lines.ReadString('\n')
			require.NoError(t, err)
			var ev struct {
				Type   string  `json:"type"`
				Object api.Pod `json:"object"`
			}
			require.NoError(t, json.Unmarshal([]byte(line), &ev))
			assert.Equal(t, api.WatchAdded, ev.Type)
			assert.Equal(t, name, ev.Object.Metadata.Name, "the event of the pod just created, before the next one exists")
		}
		require.Equal(t, 1, p.srv.Store().Stats().Watchers)
		require.NoError(t, resp.Body.Close())
		synctest.Wait()
		assert.Equal(t, 0, p.srv.Store().Stats().Watchers, "closing the body ended the watch")
	})
}

// served is a handler for the transport's own contract: it runs fn and
// records that it returned.
type served struct {
	fn       func(w http.ResponseWriter, r *http.Request)
	returned atomic.Bool
	ctx      atomic.Value // the request's context
}

func (s *served) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.ctx.Store(r.Context())
	defer s.returned.Store(true)
	s.fn(w, r)
}

// ctxErr is the error of the request's context now.
func (s *served) ctxErr() error { return s.ctx.Load().(context.Context).Err() }

// streamUntilDone writes the header, then a line every second until the
// request's context ends.
func streamUntilDone(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain")
	w.(http.Flusher).Flush()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-time.After(time.Second): // the bubble's clock
		}
		if _, err := io.WriteString(w, "tick\n"); err != nil {
			return
		}
	}
}

func TestCancellationEndsTheHandler(t *testing.T) {
	tests := []struct {
		name string
		// stop ends the exchange from the client's side; it returns the
		// error a read of the body gives afterwards (nil: not checked).
		stop func(resp *http.Response, cancel context.CancelFunc) error
		// wantReadErr is what reading the body gives after stop.
		wantReadErr error
	}{
		{
			name:        "closing the body",
			stop:        func(resp *http.Response, _ context.CancelFunc) error { return resp.Body.Close() },
			wantReadErr: io.ErrClosedPipe,
		},
		{
			name:        "cancelling the request's context",
			stop:        func(_ *http.Response, cancel context.CancelFunc) error { cancel(); return nil },
			wantReadErr: context.Canceled,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := &served{fn: streamUntilDone}
				client := &http.Client{Transport: inmem.NewTransport(h)}
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				req, err := http.NewRequestWithContext(ctx, http.MethodGet, inmem.Host+"/stream", nil)
				require.NoError(t, err)
				resp, err := client.Do(req)
				require.NoError(t, err)
				require.Equal(t, "text/plain", resp.Header.Get("Content-Type"), "the headers arrive at the first Flush")
				lines := bufio.NewReader(resp.Body)
				line, err := lines.ReadString('\n')
				require.NoError(t, err)
				assert.Equal(t, "tick\n", line)

				require.NoError(t, tt.stop(resp, cancel))
				synctest.Wait()
				assert.True(t, h.returned.Load(), "the handler returned")
				assert.ErrorIs(t, h.ctxErr(), context.Canceled, "its request context was cancelled")
				_, err = lines.ReadString('\n')
				assert.ErrorIs(t, err, tt.wantReadErr)
				_ = resp.Body.Close()
			})
		})
	}
}

func TestCancelBeforeTheHeadersFailsTheRoundTrip(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		started := make(chan struct{})
		h := &served{fn: func(w http.ResponseWriter, r *http.Request) {
			close(started)
			<-r.Context().Done() // never answers on its own
		}}
		ctx, cancel := context.WithCancel(t.Context())
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, inmem.Host+"/slow", nil)
		require.NoError(t, err)
		errc := make(chan error, 1)
		go func() {
			_, err := inmem.NewTransport(h).RoundTrip(req)
			errc <- err
		}()
		<-started
		cancel()
		assert.ErrorIs(t, <-errc, context.Canceled)
		synctest.Wait()
		assert.True(t, h.returned.Load())
	})
}

func TestResponseContract(t *testing.T) {
	tests := []struct {
		name        string
		fn          func(w http.ResponseWriter, r *http.Request)
		wantCode    int
		wantBody    string
		wantLength  int64
		wantReadErr error  // from reading the whole body
		wantErr     string // from the round trip itself
	}{
		{
			name:     "a handler that writes nothing answers 200 with no body",
			fn:       func(http.ResponseWriter, *http.Request) {},
			wantCode: http.StatusOK, wantLength: 0,
		},
		{
			name: "the status and body written",
			fn: func(w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(http.StatusTeapot)
				_, _ = io.WriteString(w, "short and stout")
			},
			wantCode: http.StatusTeapot, wantBody: "short and stout", wantLength: -1,
		},
		{
			name: "a body shorter than its Content-Length is cut off",
			fn: func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Length", "10")
				_, _ = io.WriteString(w, "abc")
			},
			wantCode: http.StatusOK, wantBody: "abc", wantLength: 10, wantReadErr: io.ErrUnexpectedEOF,
		},
		{
			name: "no more than the Content-Length is written",
			fn: func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Length", "3")
				_, _ = io.WriteString(w, "abc")
				if _, err := io.WriteString(w, "def"); !errors.Is(err, http.ErrContentLength) {
					panic("a write past the Content-Length succeeded")
				}
			},
			wantCode: http.StatusOK, wantBody: "abc", wantLength: 3,
		},
		{
			name: "204 has no body",
			fn: func(w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(http.StatusNoContent)
				_, _ = io.WriteString(w, "x")
			},
			wantCode: http.StatusNoContent, wantLength: 0,
		},
		{
			name:    "a panic before the status fails the round trip",
			fn:      func(http.ResponseWriter, *http.Request) { panic("boom") },
			wantErr: "the handler panicked: boom",
		},
		{
			name: "a panic after the status cuts the body off",
			fn: func(w http.ResponseWriter, _ *http.Request) {
				_, _ = io.WriteString(w, "partial")
				panic("boom")
			},
			wantCode: http.StatusOK, wantBody: "partial", wantLength: -1, wantReadErr: io.ErrUnexpectedEOF,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				h := &served{fn: tt.fn}
				req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, inmem.Host+"/x", nil)
				require.NoError(t, err)
				resp, err := inmem.NewTransport(h).RoundTrip(req)
				if tt.wantErr != "" {
					require.ErrorContains(t, err, tt.wantErr)
					synctest.Wait()
					assert.True(t, h.returned.Load())
					return
				}
				require.NoError(t, err)
				defer resp.Body.Close()
				assert.Equal(t, tt.wantCode, resp.StatusCode)
				assert.Equal(t, tt.wantLength, resp.ContentLength)
				b, err := io.ReadAll(resp.Body)
				assert.Equal(t, tt.wantBody, string(b))
				if tt.wantReadErr != nil {
					assert.ErrorIs(t, err, tt.wantReadErr)
				} else {
					assert.NoError(t, err)
				}
				synctest.Wait()
				assert.True(t, h.returned.Load())
				assert.ErrorIs(t, h.ctxErr(), context.Canceled, "the request context ends with the handler")
			})
		})
	}
}

func TestTheHandlerSeesAServerRequest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var got *http.Request
		var body string
		h := &served{fn: func(w http.ResponseWriter, r *http.Request) {
			got = r
			b, _ := io.ReadAll(r.Body)
			body = string(b)
		}}
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, inmem.Host+"/api/v1/pods?watch=1&x=%2F", strings.NewReader("hello"))
		require.NoError(t, err)
		req.Header.Set("Accept", "application/json")
		resp, err := inmem.NewTransport(h).RoundTrip(req)
		require.NoError(t, err)
		readAll(t, resp)
		synctest.Wait()
		assert.Equal(t, http.MethodPost, got.Method)
		assert.Equal(t, "/api/v1/pods", got.URL.Path)
		assert.Empty(t, got.URL.Host, "a server request's URL is its path and query")
		assert.Equal(t, "/api/v1/pods?watch=1&x=%2F", got.RequestURI)
		assert.Equal(t, "miniplane.invalid", got.Host)
		assert.Equal(t, inmem.RemoteAddr, got.RemoteAddr)
		assert.Equal(t, "application/json", got.Header.Get("Accept"))
		assert.Equal(t, "Go-http-client/1.1", got.Header.Get("User-Agent"))
		assert.Equal(t, int64(5), got.ContentLength)
		assert.Equal(t, "hello", body)
		assert.Empty(t, req.Header.Get("User-Agent"), "the client's request is not changed")
	})
}
