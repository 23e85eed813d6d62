// Package planetest starts miniplane's Kubernetes API for one test: an
// apiserver.Server (with its sweeper running, so that graceful and
// namespace deletions finish as on a cluster) behind apiserver/httpapi's
// Handler, served on a 127.0.0.1 port the OS picks, stopped by t.Cleanup.
// It records every request the clients send and how each was answered, so
// that a test can prove which wire format a stock client really used.
//
// It exists for the interop tests (stock, ctrlruntime), which drive the API
// with unmodified client-go and controller-runtime: Config returns the
// rest.Config a stock program builds, and RequireStock checks that nothing
// in it asks for a format. It imports the main module, client-go's rest
// package, zap and testify.
//
// The pods' container logs come from Logs, a fixed stand-in for the
// kubelets.
//
// Concurrency: a Plane is safe for concurrent use; the recorded traffic is
// guarded by a mutex.
package planetest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest"
	"k8s.io/client-go/rest"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/apiserver/httpapi"
	"github.com/miniplane/miniplane/clock"
)

// Protobuf is the media type of Kubernetes' protobuf encoding, which
// client-go's typed clients send and ask for by default since v0.32.
const Protobuf = "application/vnd.kubernetes.protobuf"

// stopBound limits how long stopping waits for the open watches to end
// before it closes their connections.
const stopBound = 10 * time.Second

// Plane is miniplane's HTTP API on a loopback port.
type Plane struct {
	// URL is where the API is served: http://127.0.0.1:<port>.
	URL string
	// Server is the API server behind the HTTP front, for checks that do
	// not go through HTTP.
	Server *apiserver.Server

	// mu guards requests.
	mu       sync.Mutex
	requests []Request
}

// Request is one request the Plane answered, as the client sent it and as
// the handler answered it. Watches are recorded when their headers are
// written, that is when the stream starts.
type Request struct {
	Method string
	Path   string
	Query  string // the raw query
	// ContentType and Accept are the request's headers.
	ContentType string
	Accept      string
	// Status and Answer are the response's code and Content-Type.
	Status int
	Answer string
}

// Start serves a new API server on 127.0.0.1 for the rest of t; t.Cleanup
// stops it: open watches end, then the listener closes.
func Start(t testing.TB) *Plane {
	t.Helper()
	log := zaptest.NewLogger(t, zaptest.Level(zapcore.WarnLevel))
	srv, err := apiserver.New(apiserver.Config{Clock: clock.Real{}, Rand: rand.New(rand.NewPCG(1, 2)), Logger: log})
	require.NoError(t, err)
	h, err := httpapi.New(httpapi.Config{Server: srv, Clock: clock.Real{}, Logger: log, Logs: Logs{}})
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)

	p := &Plane{URL: "http://" + ln.Addr().String(), Server: srv}
	hs := &http.Server{Handler: p.record(h), ReadHeaderTimeout: 10 * time.Second}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { srv.Run(ctx) })
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()

	t.Cleanup(func() {
		cancel()
		wg.Wait()
		// End the watches first, so that clients still connected see their
		// streams end rather than a reset; close what is left after
		// stopBound.
		ended := make(chan struct{})
		go func() {
			h.Shutdown()
			close(ended)
		}()
		timer := time.NewTimer(stopBound)
		defer timer.Stop()
		select {
		case <-ended:
		case <-timer.C:
			t.Errorf("planetest: watches still open %v after Shutdown; closing their connections", stopBound)
		}
		require.NoError(t, hs.Close())
		<-ended
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("planetest: serving: %v", err)
		}
	})
	return p
}

// Config returns the rest.Config a stock client-go program builds for the
// Plane: its address, and nothing else.
func (p *Plane) Config() *rest.Config {
	return &rest.Config{Host: p.URL}
}

// RequireStock fails t unless cfg leaves every encoding choice to
// client-go's defaults (no ContentType, AcceptContentTypes or serializer)
// and sends requests through client-go's own transport, as a program that
// was not written for miniplane does.
func RequireStock(t testing.TB, cfg *rest.Config) {
	t.Helper()
	require.Empty(t, cfg.ContentType, "a stock client sets no ContentType")
	require.Empty(t, cfg.AcceptContentTypes, "a stock client sets no AcceptContentTypes")
	require.Nil(t, cfg.NegotiatedSerializer, "a stock client sets no serializer")
	require.Nil(t, cfg.GroupVersion, "a stock client sets no GroupVersion")
	require.Nil(t, cfg.Transport, "a stock client uses client-go's transport")
	require.Nil(t, cfg.WrapTransport, "a stock client uses client-go's transport")
}

// Requests returns a copy of the requests answered so far, in the order
// their answers started.
func (p *Plane) Requests() []Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.requests)
}

// record wraps next so that every request is noted once its status is
// written.
func (p *Plane) record(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rw := &recordingWriter{ResponseWriter: w, plane: p, req: Request{
			Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery,
			ContentType: r.Header.Get("Content-Type"), Accept: r.Header.Get("Accept"),
		}}
		next.ServeHTTP(rw, r)
		if !rw.noted {
			rw.WriteHeader(http.StatusOK) // nothing written: net/http answers 200
		}
	})
}

func (p *Plane) note(r Request) {
	p.mu.Lock()
	p.requests = append(p.requests, r)
	p.mu.Unlock()
}

// recordingWriter notes its request with the first status written. It keeps
// Flush reachable, which watches need.
type recordingWriter struct {
	http.ResponseWriter
	plane *Plane
	req   Request
	noted bool
}

func (w *recordingWriter) WriteHeader(code int) {
	if !w.noted {
		w.noted = true
		w.req.Status, w.req.Answer = code, w.Header().Get("Content-Type")
		w.plane.note(w.req)
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *recordingWriter) Write(b []byte) (int, error) {
	if !w.noted {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

func (w *recordingWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *recordingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Logs is the kubelet behind pods/{name}/log: every container of a bound
// pod has written the two lines LogLines gives, and its run has ended.
type Logs struct{}

// LogLines are the lines Logs serves for a container of a pod.
func LogLines(pod, container string) []string {
	return []string{pod + "/" + container + " started", pod + "/" + container + " done"}
}

// ContainerLog implements httpapi.LogSource. A container has no previous
// run.
func (Logs) ContainerLog(pod *api.Pod, container string, previous bool, after int64) (httpapi.ContainerLog, error) {
	if previous {
		return httpapi.ContainerLog{}, apierrors.NewBadRequest(fmt.Sprintf("previous terminated container %q in pod %q not found", container, pod.Metadata.Name))
	}
	var out httpapi.ContainerLog
	for i, text := range LogLines(pod.Metadata.Name, container) {
		if seq := int64(i + 1); seq > after {
			out.Lines = append(out.Lines, httpapi.LogLine{Seq: seq, Time: pod.Metadata.CreationTimestamp.Time, Text: text})
		}
	}
	out.Ended = true
	return out, nil
}
