package faults_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/protobuf"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/apiserver/faults"
	"github.com/miniplane/miniplane/apiserver/httpapi"
	"github.com/miniplane/miniplane/apiserver/httpapi/inmem"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
)

// Every test runs in a testing/synctest bubble with clock.Real, which is
// the bubble's clock there: latency and lag take no real time, and the
// trace's times are the bubble's (from midnight, January 1st 2000 UTC).

// plane is miniplane's HTTP API behind an Injector, served in memory.
type plane struct {
	srv   *apiserver.Server
	h     *httpapi.Handler
	inj   *faults.Injector
	trace *syncBuffer
	// client goes through the Injector; direct goes to the Handler.
	client, direct *http.Client
}

// syncBuffer is a trace writer the test reads while requests may write.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// events returns the trace's lines, decoded.
func (s *syncBuffer) events(t *testing.T) []faults.Event {
	t.Helper()
	var out []faults.Event
	for line := range strings.Lines(s.String()) {
		var ev faults.Event
		require.NoError(t, json.Unmarshal([]byte(line), &ev), "line %q", line)
		out = append(out, ev)
	}
	return out
}

// faultsIn returns the fault lines of the trace.
func faultsIn(evs []faults.Event) []faults.Event {
	var out []faults.Event
	for _, ev := range evs {
		if ev.Fault != "" {
			out = append(out, ev)
		}
	}
	return out
}

func newPlane(t *testing.T, set faults.Set, rate float64, seed uint64) *plane {
	t.Helper()
	srv, err := apiserver.New(apiserver.Config{Clock: clock.Real{}, Rand: rand.New(rand.NewPCG(1, 2))})
	require.NoError(t, err)
	var inj *faults.Injector
	h, err := httpapi.New(httpapi.Config{Server: srv, Clock: clock.Real{}, Metrics: func(w io.Writer) { inj.WriteMetrics(w) }})
	require.NoError(t, err)
	trace := &syncBuffer{}
	inj, err = faults.New(faults.Config{Handler: h, Clock: clock.Real{}, Rand: rand.New(rand.NewPCG(seed, 0)), Faults: set, Rate: rate, Trace: trace})
	require.NoError(t, err)
	return &plane{
		srv: srv, h: h, inj: inj, trace: trace,
		client: &http.Client{Transport: inmem.NewTransport(inj)},
		direct: &http.Client{Transport: inmem.NewTransport(h)},
	}
}

// req is one request to send.
type req struct {
	method, path, body string
	accept, agent      string
}

func (p *plane) do(t *testing.T, c *http.Client, r req) *http.Response {
	t.Helper()
	if r.method == "" {
		r.method = http.MethodGet
	}
	var body io.Reader
	if r.body != "" {
		body = strings.NewReader(r.body)
	}
	hr, err := http.NewRequestWithContext(t.Context(), r.method, inmem.Host+r.path, body)
	require.NoError(t, err)
	if r.body != "" {
		hr.Header.Set("Content-Type", "application/json")
	}
	if r.accept != "" {
		hr.Header.Set("Accept", r.accept)
	}
	if r.agent != "" {
		hr.Header.Set("User-Agent", r.agent)
	}
	resp, err := c.Do(hr)
	require.NoError(t, err)
	return resp
}

// call sends r through the Injector and returns the whole answer.
func (p *plane) call(t *testing.T, r req) (int, http.Header, []byte) {
	t.Helper()
	resp := p.do(t, p.client, r)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header, b
}

// createPods stores pods p0..p(n-1) in namespace default, directly.
func (p *plane) createPods(t *testing.T, n int) {
	t.Helper()
	for i := range n {
		_, err := p.srv.Create(t.Context(), podOf(fmt.Sprintf("p%d", i)))
		require.NoError(t, err)
	}
}

func podOf(name string) *api.Pod {
	return &api.Pod{
		Metadata: api.ObjectMeta{Namespace: "default", Name: name},
		Spec:     api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx"}}},
	}
}

func podJSON(name, rv string) string {
	meta := fmt.Sprintf(`"name":%q,"namespace":"default"`, name)
	if rv != "" {
		meta += fmt.Sprintf(`,"resourceVersion":%q`, rv)
	}
	return `{"kind":"Pod","apiVersion":"v1","metadata":{` + meta + `},"spec":{"containers":[{"name":"app","image":"nginx:2"}]}}`
}

// statusOf decodes a Status answer in JSON or protobuf.
func statusOf(t *testing.T, header http.Header, body []byte) api.Status {
	t.Helper()
	var st api.Status
	if header.Get("Content-Type") == protobuf.MediaType {
		u, err := protobuf.UnmarshalEnvelope(body)
		require.NoError(t, err)
		require.Equal(t, "Status", u.Kind)
		require.NoError(t, protobuf.Unmarshal(u.Raw, &st))
		return st
	}
	require.NoError(t, json.Unmarshal(body, &st), "body %s", body)
	return st
}

// watchEvent is one JSON watch event.
type watchEvent struct {
	Type   string          `json:"type"`
	Object json.RawMessage `json:"object"`
}

// readEvents reads a JSON watch stream to its end.
func readEvents(t *testing.T, body io.Reader) []watchEvent {
	t.Helper()
	var out []watchEvent
	sc := bufio.NewScanner(body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev watchEvent
		require.NoError(t, json.Unmarshal(sc.Bytes(), &ev), "line %q", sc.Text())
		out = append(out, ev)
	}
	require.NoError(t, sc.Err())
	return out
}

func nameOf(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var pod api.Pod
	require.NoError(t, json.Unmarshal(raw, &pod))
	return pod.Metadata.Name
}

const acceptProtobuf = "application/vnd.kubernetes.protobuf,application/json"

func apiGet() client.GetOptions { return client.GetOptions{} }

func apiExact(rev int64) client.ListOptions {
	return client.ListOptions{ResourceVersion: strconv.FormatInt(rev, 10), ResourceVersionMatch: client.MatchExact}
}
