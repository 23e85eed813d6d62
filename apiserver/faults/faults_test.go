package faults_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/protobuf"
	"github.com/miniplane/miniplane/apiserver/faults"
)

const (
	pods = "/api/v1/namespaces/default/pods"
	p0   = pods + "/p0"
)

// TestEachFaultStrikesAndIsRecorded turns on one kind of fault at a time,
// at rate 1, sends a request it applies to, and checks what the client
// gets, that nothing stored changed when the request was refused, and that
// the fault is counted and in the trace.
func TestEachFaultStrikesAndIsRecorded(t *testing.T) {
	tests := []struct {
		name  string
		kind  faults.Kind
		check func(t *testing.T, p *plane)
	}{
		{
			name: "throttle", kind: faults.Throttle,
			check: func(t *testing.T, p *plane) {
				code, h, body := p.call(t, req{method: http.MethodPost, path: pods, body: podJSON("new", "")})
				assert.Equal(t, http.StatusTooManyRequests, code)
				st := statusOf(t, h, body)
				assert.Equal(t, api.StatusReasonTooManyRequests, st.Reason)
				secs, err := strconv.Atoi(h.Get("Retry-After"))
				require.NoError(t, err, "Retry-After is in seconds")
				assert.True(t, secs >= 1 && secs <= faults.MaxRetryAfterSeconds, "Retry-After %d", secs)
				assert.Equal(t, int32(secs), st.Details.RetryAfterSeconds)
				_, err = p.srv.Get(t.Context(), "pods", "default", "new", apiGet())
				assert.Error(t, err, "nothing was created")
			},
		},
		{
			name: "error", kind: faults.Error,
			check: func(t *testing.T, p *plane) {
				code, h, body := p.call(t, req{method: http.MethodDelete, path: p0, accept: acceptProtobuf})
				assert.Equal(t, http.StatusInternalServerError, code)
				assert.Equal(t, api.StatusReasonInternalError, statusOf(t, h, body).Reason, "a protobuf client gets a protobuf Status")
				_, err := p.srv.Get(t.Context(), "pods", "default", "p0", apiGet())
				assert.NoError(t, err, "nothing was deleted")
			},
		},
		{
			name: "conflict", kind: faults.Conflict,
			check: func(t *testing.T, p *plane) {
				before, err := p.srv.Get(t.Context(), "pods", "default", "p0", apiGet())
				require.NoError(t, err)
				rv := before.GetObjectMeta().ResourceVersion
				code, _, current := p.call(t, req{path: p0})
				require.Equal(t, http.StatusOK, code)
				update := strings.Replace(string(current), `"image":"nginx"`, `"image":"nginx:2"`, 1) // a valid update
				code, h, body := p.call(t, req{method: http.MethodPut, path: p0, body: update})
				assert.Equal(t, http.StatusConflict, code)
				st := statusOf(t, h, body)
				assert.Equal(t, api.StatusReasonConflict, st.Reason)
				assert.Equal(t, `Operation cannot be fulfilled on pods "p0": the object has been modified; please apply your changes to the latest version and try again`, st.Message)
				after, err := p.srv.Get(t.Context(), "pods", "default", "p0", apiGet())
				require.NoError(t, err)
				assert.Equal(t, rv, after.GetObjectMeta().ResourceVersion, "nothing was updated")
			},
		},
		{
			name: "latency", kind: faults.Latency,
			check: func(t *testing.T, p *plane) {
				start := time.Now() // the bubble's clock
				code, _, _ := p.call(t, req{path: p0})
				took := time.Since(start)
				assert.Equal(t, http.StatusOK, code)
				assert.True(t, took >= faults.MinLatency && took < faults.MaxLatency, "took %v", took)
			},
		},
		{
			name: "stale list", kind: faults.Stale,
			check: func(t *testing.T, p *plane) {
				latest := p.srv.Store().Rev()
				code, _, body := p.call(t, req{path: pods + "?resourceVersion=0"})
				require.Equal(t, http.StatusOK, code, "%s", body)
				var l api.PodList
				require.NoError(t, json.Unmarshal(body, &l))
				rv, err := strconv.ParseInt(l.Metadata.ResourceVersion, 10, 64)
				require.NoError(t, err)
				assert.Less(t, rv, latest, "served at an older revision")
				want, err := p.srv.List(t.Context(), "pods", "default", apiExact(rv))
				require.NoError(t, err)
				assert.Len(t, l.Items, len(want.Items), "the store's own state at that revision")
			},
		},
		{
			name: "stale get, in protobuf", kind: faults.Stale,
			check: func(t *testing.T, p *plane) {
				latest := p.srv.Store().Rev()
				code, h, body := p.call(t, req{path: pods + "/p9?resourceVersion=0", accept: acceptProtobuf})
				if code == http.StatusNotFound {
					assert.Equal(t, api.StatusReasonNotFound, statusOf(t, h, body).Reason, "p9 did not exist yet")
					return
				}
				require.Equal(t, http.StatusOK, code, "%s", body)
				u, err := protobuf.UnmarshalEnvelope(body)
				require.NoError(t, err)
				assert.Equal(t, "Pod", u.Kind)
				var pod api.Pod
				require.NoError(t, protobuf.Unmarshal(u.Raw, &pod))
				assert.Equal(t, "p9", pod.Metadata.Name)
				events := faultsIn(p.trace.events(t))
				require.Len(t, events, 1)
				assert.Less(t, events[0].Revision, latest)
			},
		},
		{
			name: "gone", kind: faults.Gone,
			check: func(t *testing.T, p *plane) {
				rv := strconv.FormatInt(p.srv.Store().Rev(), 10)
				resp := p.do(t, p.client, req{path: pods + "?watch=true&resourceVersion=" + rv})
				defer resp.Body.Close()
				require.Equal(t, http.StatusOK, resp.StatusCode)
				evs := readEvents(t, resp.Body)
				require.Len(t, evs, 1, "one ERROR event, then the stream ends")
				assert.Equal(t, api.WatchError, evs[0].Type)
				var st api.Status
				require.NoError(t, json.Unmarshal(evs[0].Object, &st))
				assert.Equal(t, int32(http.StatusGone), st.Code)
				assert.Equal(t, api.StatusReasonExpired, st.Reason)
				assert.Contains(t, st.Message, "too old resource version: "+rv)
			},
		},
		{
			name: "watch-close", kind: faults.WatchClose,
			check: func(t *testing.T, p *plane) {
				resp := p.do(t, p.client, req{path: pods + "?watch=true&resourceVersion=1"})
				defer resp.Body.Close()
				evs := readEvents(t, resp.Body) // ends cleanly: readEvents fails on an error or a torn line
				assert.True(t, len(evs) >= 1 && len(evs) <= faults.MaxEventsBeforeClose, "%d events of 20", len(evs))
				for i, ev := range evs {
					assert.Equal(t, api.WatchAdded, ev.Type)
					assert.Equal(t, fmt.Sprintf("p%d", i), nameOf(t, ev.Object), "in order, none lost")
				}
			},
		},
		{
			name: "lag", kind: faults.Lag,
			check: func(t *testing.T, p *plane) {
				resp := p.do(t, p.client, req{path: pods + "?watch=true&resourceVersion=1&timeoutSeconds=10"})
				defer resp.Body.Close()
				start := time.Now()
				evs := readEvents(t, resp.Body)
				require.Len(t, evs, 20)
				assert.GreaterOrEqual(t, time.Since(start), 10*time.Second, "the stream ends at its timeout")
				events := faultsIn(p.trace.events(t))
				require.Len(t, events, 1)
				assert.Contains(t, events[0].Detail, "every event delayed by")
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := newPlane(t, faults.SetOf(tt.kind), 1, 7)
				p.createPods(t, 20)
				tt.check(t, p)
				synctest.Wait()
				assert.Equal(t, int64(1), p.inj.Count(tt.kind), "counted once")
				events := faultsIn(p.trace.events(t))
				require.Len(t, events, 1, "trace:\n%s", p.trace)
				assert.Equal(t, tt.kind.String(), events[0].Fault)
				assert.Equal(t, "pods", events[0].Resource)
				assert.Equal(t, "Go-http-client/1.1", events[0].Client)
				assert.NotZero(t, events[0].Revision)
				for _, k := range faults.Kinds() {
					if k != tt.kind {
						assert.Zero(t, p.inj.Count(k), "no %s", k)
					}
				}
				metrics := metricsOf(t, p)
				assert.Contains(t, metrics, fmt.Sprintf("miniplane_injected_faults_total{fault=%q} 1\n", tt.kind))
			})
		})
	}
}

// metricsOf returns /metrics as the Handler serves it, through the
// Injector (which lets it pass).
func metricsOf(t *testing.T, p *plane) string {
	t.Helper()
	code, _, body := p.call(t, req{path: "/metrics"})
	require.Equal(t, http.StatusOK, code)
	return string(body)
}

// TestLaggingWatchDeliversEveryEventInOrder writes pods while a lagging
// watch is open: every event arrives, in order, each no sooner than the
// lag after its write.
func TestLaggingWatchDeliversEveryEventInOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 30
		p := newPlane(t, faults.SetOf(faults.Lag), 1, 3)
		resp := p.do(t, p.client, req{path: pods + "?watch=true&resourceVersion=" + strconv.FormatInt(p.srv.Store().Rev(), 10)})
		defer resp.Body.Close()
		// The answer's headers can reach the client before the watch has
		// written its fault to the trace: wait until the handler blocks.
		synctest.Wait()

		var mu sync.Mutex
		created := map[string]time.Time{}
		var wg sync.WaitGroup
		wg.Go(func() {
			for i := range n {
				time.Sleep(150 * time.Millisecond) // the bubble's clock: the writes spread over the lag
				name := fmt.Sprintf("p%d", i)
				mu.Lock()
				created[name] = time.Now()
				mu.Unlock()
				_, err := p.srv.Create(t.Context(), podOf(name))
				assert.NoError(t, err)
			}
		})
		events := faultsIn(p.trace.events(t))
		require.Len(t, events, 1, "the lag is in the trace when the watch starts")
		lag, err := time.ParseDuration(strings.TrimPrefix(events[0].Detail, "every event delayed by "))
		require.NoError(t, err)

		dec := json.NewDecoder(resp.Body)
		for i := range n {
			var ev watchEvent
			require.NoError(t, dec.Decode(&ev))
			arrived := time.Now()
			name := nameOf(t, ev.Object)
			assert.Equal(t, fmt.Sprintf("p%d", i), name, "in order, none lost")
			mu.Lock()
			assert.GreaterOrEqual(t, arrived.Sub(created[name]), lag, "%s arrived late enough", name)
			mu.Unlock()
		}
		wg.Wait()
	})
}

// TestSameSeedSameFaults replays one sequence of requests on two planes
// with the same seed: the traces are identical, byte for byte. Another
// seed gives other faults.
func TestSameSeedSameFaults(t *testing.T) {
	run := func(seed uint64) string {
		var trace string
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := newPlane(t, faults.All, 0.3, seed)
				p.createPods(t, 5)
				for i := range 40 {
					for _, r := range []req{
						{path: pods + "?resourceVersion=0", agent: "informer"},
						{path: pods + "/p1?resourceVersion=0", agent: "reader"},
						{path: pods + "/p1", agent: "reader"},
						{method: http.MethodPost, path: pods, body: podJSON(fmt.Sprintf("n%d", i), ""), agent: "writer"},
						{method: http.MethodPut, path: pods + "/p2", body: podJSON("p2", ""), agent: "writer"},
						{path: pods + "?watch=true&timeoutSeconds=3&resourceVersion=1", agent: "informer"},
					} {
						p.call(t, r)
					}
				}
				synctest.Wait()
				trace = p.trace.String()
			})
		})
		return trace
	}
	first, again, other := run(42), run(42), run(43)
	require.NotEmpty(t, first)
	assert.True(t, first == again, "one seed, one trace")
	assert.True(t, first != other, "another seed, other faults")
	for _, k := range faults.Kinds() {
		assert.True(t, strings.Contains(first, fmt.Sprintf(`"fault":%q`, k.String())), "40 rounds at rate 0.3 see a %s", k)
	}
}

// TestOtherClientsDoNotShiftTheDraws runs one client's requests alone,
// then with another client busy at the same time: the first client's
// requests meet the same faults.
func TestOtherClientsDoNotShiftTheDraws(t *testing.T) {
	seq := func(agent string) []req {
		var out []req
		for i := range 30 {
			out = append(out,
				req{path: pods + "?resourceVersion=0", agent: agent},
				req{method: http.MethodPut, path: pods + "/p1", body: podJSON("p1", ""), agent: agent},
				req{method: http.MethodPost, path: pods, body: podJSON(fmt.Sprintf("%s-%d", agent, i), ""), agent: agent},
			)
		}
		return out
	}
	// faultsOf lists, per request of agent in order, the kinds that struck.
	faultsOf := func(evs []faults.Event, agent string) []string {
		var out []string
		for _, ev := range evs {
			switch {
			case ev.Client != agent:
			case ev.Fault == "":
				out = append(out, "")
			default:
				out[len(out)-1] += ev.Fault + " "
			}
		}
		return out
	}
	var alone, together []string
	synctest.Test(t, func(t *testing.T) {
		p := newPlane(t, faults.SetOf(faults.Throttle, faults.Error, faults.Conflict, faults.Stale), 0.3, 9)
		p.createPods(t, 5)
		for _, r := range seq("a") {
			p.call(t, r)
		}
		alone = faultsOf(p.trace.events(t), "a")
	})
	synctest.Test(t, func(t *testing.T) {
		p := newPlane(t, faults.SetOf(faults.Throttle, faults.Error, faults.Conflict, faults.Stale), 0.3, 9)
		p.createPods(t, 5)
		var wg sync.WaitGroup
		for _, agent := range []string{"a", "b", "c"} {
			wg.Go(func() {
				for _, r := range seq(agent) {
					p.call(t, r)
				}
			})
		}
		wg.Wait()
		together = faultsOf(p.trace.events(t), "a")
	})
	require.Len(t, alone, 90)
	assert.Equal(t, alone, together)
}

// TestQuorumReadsAreNeverStale: with stale reads at rate 1, a read without
// a resourceVersion, or pinned to an exact one, is served as asked; a read
// that allows an older state gets one no older than it allows.
func TestQuorumReadsAreNeverStale(t *testing.T) {
	tests := []struct {
		name  string
		query func(latest int64) string // the query of a LIST of pods
		stale bool
	}{
		{name: "unset: a quorum read", query: func(int64) string { return "" }},
		{name: "unset with a limit", query: func(int64) string { return "?limit=2" }},
		{name: "exact", query: func(l int64) string { return fmt.Sprintf("?resourceVersion=%d&resourceVersionMatch=Exact", l-3) }},
		{name: "a limit pins the revision", query: func(l int64) string { return fmt.Sprintf("?resourceVersion=%d&limit=2", l-3) }},
		{name: "0 allows any", query: func(int64) string { return "?resourceVersion=0" }, stale: true},
		{name: "not older than N", query: func(l int64) string {
			return fmt.Sprintf("?resourceVersion=%d&resourceVersionMatch=NotOlderThan", l-3)
		}, stale: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := newPlane(t, faults.SetOf(faults.Stale), 1, 11)
				p.createPods(t, 10)
				latest := p.srv.Store().Rev()
				for range 20 {
					code, _, body := p.call(t, req{path: pods + tt.query(latest)})
					require.Equal(t, http.StatusOK, code, "%s", body)
					var l api.PodList
					require.NoError(t, json.Unmarshal(body, &l))
					rv, err := strconv.ParseInt(l.Metadata.ResourceVersion, 10, 64)
					require.NoError(t, err)
					switch {
					case !tt.stale && strings.Contains(tt.query(latest), "resourceVersion="):
						assert.Equal(t, latest-3, rv, "the revision asked for")
					case !tt.stale:
						assert.Equal(t, latest, rv, "the latest")
					case strings.Contains(tt.query(latest), "NotOlderThan"):
						assert.True(t, rv >= latest-3 && rv < latest, "rv %d of %d", rv, latest)
					default:
						assert.Less(t, rv, latest)
					}
				}
				if !tt.stale {
					assert.Zero(t, p.inj.Count(faults.Stale))
				}
				// A GET without a resourceVersion, too.
				code, _, body := p.call(t, req{path: pods + "/p9"})
				require.Equal(t, http.StatusOK, code)
				var pod api.Pod
				require.NoError(t, json.Unmarshal(body, &pod))
				assert.Equal(t, strconv.FormatInt(latest, 10), pod.Metadata.ResourceVersion)
			})
		})
	}
}

// TestAllOffIsTransparent: with no faults on, every answer through the
// Injector is the Handler's own, byte for byte, and the trace holds the
// requests and nothing else.
func TestAllOffIsTransparent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPlane(t, faults.None, 1, 5)
		p.createPods(t, 3)
		rv := strconv.FormatInt(p.srv.Store().Rev(), 10)
		reads := []req{
			{path: p0},
			{path: p0 + "?resourceVersion=0"},
			{path: pods + "?resourceVersion=0"},
			{path: pods + "?resourceVersion=0", accept: acceptProtobuf},
			{path: pods + "?limit=1"},
			{path: pods + "/nope"},
			{path: pods + "?watch=true&timeoutSeconds=1&resourceVersion=1"},
			{path: pods + "?watch=true&timeoutSeconds=1&resourceVersion=" + rv, accept: acceptProtobuf},
			{path: "/api/v1"},
			{path: "/version"},
			{path: "/api/v1/namespaces/default/pods/p0", accept: "application/json;as=Table;v=v1;g=meta.k8s.io"},
		}
		for _, r := range reads {
			direct := p.do(t, p.direct, r)
			want := readBody(t, direct)
			got := p.do(t, p.client, r)
			assert.Equal(t, direct.StatusCode, got.StatusCode, r.path)
			assert.Equal(t, direct.Header, got.Header, r.path)
			assert.Equal(t, want, readBody(t, got), r.path)
		}
		code, _, _ := p.call(t, req{method: http.MethodPost, path: pods, body: podJSON("new", "")})
		assert.Equal(t, http.StatusCreated, code)
		_, _, current := p.call(t, req{path: p0})
		code, _, body := p.call(t, req{method: http.MethodPut, path: p0, body: strings.Replace(string(current), `"image":"nginx"`, `"image":"nginx:2"`, 1)})
		assert.Equal(t, http.StatusOK, code, "%s", body)
		code, _, _ = p.call(t, req{method: http.MethodDelete, path: p0})
		assert.Equal(t, http.StatusOK, code)

		evs := p.trace.events(t)
		assert.Len(t, evs, len(reads)+4)
		assert.Empty(t, faultsIn(evs))
		for _, k := range faults.Kinds() {
			assert.Zero(t, p.inj.Count(k))
		}
	})
}

func readBody(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b)
}

func TestWriteMetricsListsEveryKind(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPlane(t, faults.None, 0, 1)
		var b strings.Builder
		p.inj.WriteMetrics(&b)
		assert.Equal(t, `# HELP miniplane_injected_faults_total Faults injected at the API layer, by kind.
# TYPE miniplane_injected_faults_total counter
miniplane_injected_faults_total{fault="watch-close"} 0
miniplane_injected_faults_total{fault="gone"} 0
miniplane_injected_faults_total{fault="conflict"} 0
miniplane_injected_faults_total{fault="throttle"} 0
miniplane_injected_faults_total{fault="error"} 0
miniplane_injected_faults_total{fault="latency"} 0
miniplane_injected_faults_total{fault="stale"} 0
miniplane_injected_faults_total{fault="lag"} 0
`, b.String())
	})
}
