package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/sim"
)

// plantedTrace returns the folded trace of a run of the planted bug that
// ends in a violation.
func plantedTrace(t *testing.T) []byte {
	t.Helper()
	var trace bytes.Buffer
	res, err := sim.RunScenario(context.Background(), sim.Config{Seed: 1, Faults: sim.AllFaults, ReplicationWithoutExpectations: true, Trace: &trace},
		mustScenario(t, "default"), 10*time.Minute)
	require.NoError(t, err)
	require.NotNil(t, res.Violation)
	return trace.Bytes()
}

func mustScenario(t *testing.T, name string) sim.Scenario {
	sc, err := sim.ScenarioByName(name)
	require.NoError(t, err)
	return sc
}

func do(t *testing.T, srv *httptest.Server, method, path string, body io.Reader) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, body)
	require.NoError(t, err)
	resp, err := srv.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, b
}

func TestTraceHandler(t *testing.T) {
	trace := plantedTrace(t)
	h, err := newTraceHandler(trace, 1<<20)
	require.NoError(t, err)
	srv := httptest.NewServer(h) // 127.0.0.1, a free port
	defer srv.Close()
	empty, err := NewTraceHandler(nil)
	require.NoError(t, err)
	none := httptest.NewServer(empty)
	defer none.Close()

	tests := []struct {
		name       string
		srv        *httptest.Server
		method     string
		path       string
		body       string
		wantCode   int
		wantReason api.StatusReason // a Status body, for errors
		wantIn     string
	}{
		{"the page", srv, "GET", "/ui/trace/", "", 200, "", `<script type="module" src="trace.js">`},
		{"the script", srv, "GET", "/ui/trace/trace.js", "", 200, "", "export function renderCluster"},
		{"the run's replay", srv, "GET", "/ui/api/trace", "", 200, "", `"invariant":"rc-no-overshoot"`},
		{"no run", none, "GET", "/ui/api/trace", "", 204, "", ""},
		{"a posted trace", none, "POST", "/ui/api/trace", string(trace), 200, "", `"violation":`},
		{"not a trace", srv, "POST", "/ui/api/trace", "{\"step\":0,\"t\":\"0s\",\"actor\":\"a\",\"kind\":\"k\",\"rev\":1}\nnonsense\n", 400, api.StatusReasonBadRequest, "line 2: not a trace line"},
		{"empty", srv, "POST", "/ui/api/trace", "", 400, api.StatusReasonBadRequest, "the trace is empty"},
		{"too big", srv, "POST", "/ui/api/trace", strings.Repeat(" ", 1<<20+1), 413, api.StatusReasonRequestEntityTooLarge, "at most 1048576 bytes"},
		{"wrong method", srv, "DELETE", "/ui/api/trace", "", 405, api.StatusReasonMethodNotAllowed, "DELETE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := do(t, tt.srv, tt.method, tt.path, strings.NewReader(tt.body))
			assert.Equal(t, tt.wantCode, code, string(body))
			assert.Contains(t, string(body), tt.wantIn)
			if tt.wantReason != "" {
				var st api.Status
				require.NoError(t, json.Unmarshal(body, &st))
				assert.Equal(t, tt.wantReason, st.Reason)
				assert.Equal(t, int32(tt.wantCode), st.Code)
			}
		})
	}
}

// TestTraceReplayIsTheRunsViolation: the served replay opens at the
// violation the run reported, and a posted copy of the trace replays to
// the same bytes.
func TestTraceReplayIsTheRunsViolation(t *testing.T) {
	trace := plantedTrace(t)
	h, err := NewTraceHandler(trace)
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	defer srv.Close()
	code, got := do(t, srv, "GET", "/ui/api/trace", nil)
	require.Equal(t, 200, code)
	code, posted := do(t, srv, "POST", "/ui/api/trace", bytes.NewReader(trace))
	require.Equal(t, 200, code)
	assert.Equal(t, string(got), string(posted))
	var rp sim.Replay
	require.NoError(t, json.Unmarshal(got, &rp))
	require.GreaterOrEqual(t, rp.Violation, 0)
	assert.Equal(t, "rc-no-overshoot", rp.Rows[rp.Violation].Invariant)
}

func TestNewTraceHandlerRefusesABadTrace(t *testing.T) {
	_, err := NewTraceHandler([]byte("not a trace\n"))
	require.ErrorContains(t, err, "line 1")
}
