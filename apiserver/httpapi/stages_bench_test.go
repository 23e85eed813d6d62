package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/protobuf"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
)

// discardWriter is an http.ResponseWriter that keeps nothing: the encode
// stage is measured without a copy into a buffer it would not make.
type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (d *discardWriter) WriteHeader(int)             {}

// stageTimer adds up the time of each stage of one create.
type stageTimer struct {
	clk   clock.Clock
	at    time.Time
	total map[string]time.Duration
	order []string
}

func (s *stageTimer) start() { s.at = s.clk.Now() }

// lap ends stage name (and starts the next one).
func (s *stageTimer) lap(name string) {
	now := s.clk.Now()
	if _, ok := s.total[name]; !ok {
		s.order = append(s.order, name)
	}
	s.total[name] += now.Sub(s.at)
	s.at = now
}

// BenchmarkCreateCostByStage is the server's cost of one create over the
// HTTP front, split into the stages kube-apiserver's own traces name. Each
// iteration creates one pod stage by stage, calling the functions the
// handler calls, in its order:
//
//   - decode: the request body into a Pod (JSON or protobuf);
//   - fields: managed fields for the request's field manager (client-go
//     names itself in User-Agent, so every create of a stock client pays it);
//   - validate: defaulting, validation and the server-owned metadata, as a
//     dry run (nothing stored) — an extra call, to show its share;
//   - create: the create itself (defaulting and validation again, and one
//     revision in the store);
//   - encode: the answer, the stored pod, into the negotiated format;
//
// and then one more pod through the whole ServeHTTP (routing, negotiation,
// metrics and all: "handler", which decode, fields, create and encode
// should nearly add up to — "other" is the rest), and, with watchers open on pods, the fan-out: each
// of them encodes and writes the ADDED event ("fanout" is per watcher). It
// runs single-threaded on a fake-clocked server, so the figures are CPU-µs
// per create; ns/op and allocs/op are the whole iteration (three creates).
func BenchmarkCreateCostByStage(b *testing.B) {
	for _, f := range []struct {
		name        string
		contentType string
		accept      string
		format      format
	}{
		{"json", "application/json", "application/json", formatJSON},
		{"protobuf", protobuf.MediaType, protobuf.MediaType, formatProtobuf},
	} {
		b.Run(f.name, func(b *testing.B) { benchCreateStages(b, f.contentType, f.accept, f.format) })
	}
}

const benchWatchers = 10

func benchCreateStages(b *testing.B, contentType, accept string, f format) {
	h, srv, _ := newFakeClockHandler(b)
	info, ok := srv.Resource(client.Pods)
	require.True(b, ok)

	for _, ns := range []string{"stages", "quiet"} {
		_, err := srv.Create(context.Background(), &api.Namespace{Metadata: api.ObjectMeta{Name: ns}})
		require.NoError(b, err)
	}
	body := func(ns, name string) []byte {
		pod := &api.Pod{
			TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "Pod"},
			Metadata: api.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": "web"}},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx:1.27",
				Ports: []api.ContainerPort{{ContainerPort: 80}}}}},
		}
		if f == formatProtobuf {
			out, err := protobuf.MarshalObject("v1", "Pod", pod)
			require.NoError(b, err)
			return out
		}
		out, err := json.Marshal(pod)
		require.NoError(b, err)
		return out
	}
	post := func(ns, name string) *http.Request {
		r := httptest.NewRequest(http.MethodPost, "/api/v1/namespaces/"+ns+"/pods", bytes.NewReader(body(ns, name)))
		r.Header.Set("Content-Type", contentType)
		r.Header.Set("Accept", accept)
		r.Header.Set("User-Agent", "bench/v0.0.0")
		return r
	}

	// Watchers, opened for the fan-out stage only: stage pods are created
	// in a namespace nobody watches.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	watchers := make([]*watchSink, benchWatchers)
	for i := range watchers {
		watchers[i] = startWatchSink(ctx, h, accept)
	}

	b.ReportAllocs()
	timer := &stageTimer{clk: clock.Real{}, total: map[string]time.Duration{}}
	w := &discardWriter{h: http.Header{}}
	var handlerTime, fanoutTime time.Duration
	i := 0
	for b.Loop() {
		i++
		// Stage by stage, in namespace "stages" (no watcher there).
		name := fmt.Sprintf("pod-%07d", i)
		r := post("stages", name)
		timer.start()
		pod := info.New()
		require.NoError(b, h.decodeRequest(w, r, pod, "Pod", "v1"))
		timer.lap("decode")
		tracked, err := h.trackUpdate(info, nil, pod, "bench")
		require.NoError(b, err)
		timer.lap("fields")
		_, err = srv.Create(ctx, tracked, client.WriteOptions{DryRun: true})
		require.NoError(b, err)
		timer.lap("validate")
		created, err := srv.Create(ctx, tracked)
		require.NoError(b, err)
		timer.lap("create")
		require.NoError(b, h.writeWritten(w, http.StatusCreated, output{format: f}, info, created))
		timer.lap("encode")

		// The whole handler, no watcher on the namespace.
		r = post("quiet", name)
		rec := &codeWriter{discardWriter: discardWriter{h: http.Header{}}}
		t0 := timer.clk.Now()
		h.ServeHTTP(rec, r)
		handlerTime += timer.clk.Now().Sub(t0)

		// The whole handler with the watchers on "default", until each has
		// written the event.
		t0 = timer.clk.Now()
		h.ServeHTTP(rec, post("default", name))
		for _, ws := range watchers {
			ws.await(i)
		}
		fanoutTime += timer.clk.Now().Sub(t0)
		if rec.code != http.StatusCreated {
			b.Fatalf("create through the handler: %d", rec.code)
		}
	}
	cancel()
	for _, ws := range watchers {
		ws.stop()
	}
	n := float64(b.N)
	perOp := func(d time.Duration) float64 { return float64(d.Microseconds()) / n }
	var sum time.Duration
	for _, name := range timer.order {
		d := timer.total[name]
		if name != "validate" { // the dry run is not a step of the handler's
			sum += d
		}
		b.ReportMetric(perOp(d), name+"-µs")
	}
	b.ReportMetric(perOp(handlerTime), "handler-µs")
	b.ReportMetric(max(0, perOp(handlerTime-sum)), "other-µs")
	b.ReportMetric(max(0, perOp(fanoutTime-handlerTime))/benchWatchers, "fanout-µs/watcher")
}

// codeWriter is a discardWriter that keeps the status code.
type codeWriter struct {
	discardWriter
	code int
}

func (c *codeWriter) WriteHeader(code int) { c.code = code }

// watchSink is one watch on default's pods served by the handler in
// process, counting the ADDED events it writes.
type watchSink struct {
	mu     sync.Mutex
	cond   *sync.Cond
	added  int
	marker []byte
	done   chan struct{}
}

func (s *watchSink) Header() http.Header { return http.Header{} }
func (s *watchSink) WriteHeader(int)     {}
func (s *watchSink) Flush()              {}
func (s *watchSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	s.added += bytes.Count(p, s.marker)
	s.cond.Broadcast()
	s.mu.Unlock()
	return len(p), nil
}

// await waits until the watch has written n ADDED events.
func (s *watchSink) await(n int) {
	s.mu.Lock()
	for s.added < n {
		s.cond.Wait()
	}
	s.mu.Unlock()
}

func (s *watchSink) stop() { <-s.done }

func startWatchSink(ctx context.Context, h http.Handler, accept string) *watchSink {
	s := &watchSink{marker: []byte(`"type":"ADDED"`), done: make(chan struct{})}
	if accept == protobuf.MediaType {
		s.marker = []byte("\x0a\x05ADDED")
	}
	s.cond = sync.NewCond(&s.mu)
	r := httptest.NewRequestWithContext(ctx, http.MethodGet, "/api/v1/namespaces/default/pods?watch=1", nil)
	r.Header.Set("Accept", accept)
	go func() {
		defer close(s.done)
		h.ServeHTTP(s, r)
	}()
	return s
}
