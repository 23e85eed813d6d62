package sim_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/sim"
)

// replayRun runs a scenario with a trace at detail and replays it.
func replayRun(t *testing.T, cfg sim.Config, scenario string, d time.Duration) (sim.Result, *sim.Replay) {
	t.Helper()
	var trace bytes.Buffer
	cfg.Trace = &trace
	res := mustRun(t, cfg, scenario, d)
	lines, err := sim.ReadTrace(&trace)
	require.NoError(t, err)
	return res, sim.ReplayTrace(lines)
}

func TestReplaySameSeedSameRows(t *testing.T) {
	for _, detail := range []sim.TraceDetail{sim.TraceFolded, sim.TraceFull} {
		t.Run(detail.String(), func(t *testing.T) {
			cfg := sim.Config{Seed: 2, Faults: sim.AllFaults, FaultEvery: 5 * time.Second, TraceDetail: detail}
			_, a := replayRun(t, cfg, "small", time.Minute)
			_, b := replayRun(t, cfg, "small", time.Minute)
			ja, err := json.Marshal(a)
			require.NoError(t, err)
			jb, err := json.Marshal(b)
			require.NoError(t, err)
			assert.Equal(t, string(ja), string(jb), "byte for byte")
			assert.Equal(t, -1, a.Violation)
			require.Len(t, a.Rows, len(a.Lines))
		})
	}
}

// TestReplayRebuildsTheCluster: at the end of a quiet run the replayed
// state is the cluster the invariants checked: every node ready, the
// controller's pods bound, running and ready, its counts right, the
// service's endpoints listing exactly its pods, and a leader.
func TestReplayRebuildsTheCluster(t *testing.T) {
	_, rp := replayRun(t, sim.Config{Seed: 1, Instances: 1}, "small", time.Minute)
	end := rp.States[rp.Rows[len(rp.Rows)-1].State]
	require.Len(t, end.Nodes, 3)
	var pods []string
	for _, n := range end.Nodes {
		assert.True(t, n.Ready, n.Name)
		for _, p := range n.Pods {
			assert.Equal(t, "Running", p.Phase, p.Name)
			assert.True(t, p.Ready, p.Name)
			assert.Equal(t, "ReplicationController default/web", p.Owner)
			pods = append(pods, p.Name)
		}
	}
	assert.Empty(t, end.Unscheduled)
	require.Len(t, end.RCs, 1)
	rc := end.RCs[0]
	assert.Equal(t, rc.Desired, rc.Current)
	assert.Equal(t, rc.Desired, rc.Ready)
	assert.Len(t, pods, int(rc.Desired))
	require.Len(t, end.Services, 1)
	assert.ElementsMatch(t, pods, end.Services[0].Endpoints)
	require.NotNil(t, end.Lease)
	assert.True(t, strings.HasPrefix(end.Lease.Holder, "m0-"), end.Lease.Holder)
	assert.Empty(t, end.Faulted)

	var creates, caused int
	for _, row := range rp.Rows {
		if row.Verb == "create" && row.Object != nil && row.Object.Kind == "Pod" {
			creates++
			require.NotNil(t, row.Cause, "a controller's create has its sync as cause")
			if row.Cause.Controller == "m0/replicationcontroller" && row.Cause.Key == "ReplicationController default/web" && row.Cause.Reconcile > 0 {
				caused++
			}
			assert.Contains(t, row.Diff, "phase: Pending")
		}
	}
	assert.Positive(t, creates)
	assert.Equal(t, creates, caused)
}

// TestReplayShowsThePlantedViolation: a run of the planted bug replays
// to a violation row naming its invariant and the objects concerned, with
// the offending write just before it.
func TestReplayShowsThePlantedViolation(t *testing.T) {
	res, rp := replayRun(t, sim.Config{Seed: 1, Faults: sim.AllFaults, ReplicationWithoutExpectations: true}, "default", 10*time.Minute)
	require.NotNil(t, res.Violation, "seed 1 finds the planted bug")
	require.GreaterOrEqual(t, rp.Violation, 1)
	row := rp.Rows[rp.Violation]
	assert.Equal(t, "violation", row.Verb)
	assert.Equal(t, res.Violation.Invariant, row.Invariant)
	assert.Equal(t, "rc-no-overshoot", row.Invariant)
	require.Len(t, row.Objects, 2)
	assert.True(t, strings.HasPrefix(row.Objects[0], "ReplicationController default/"), row.Objects[0])
	assert.True(t, strings.HasPrefix(row.Objects[1], "Pod default/"), row.Objects[1])
	before := rp.Rows[rp.Violation-1]
	assert.Equal(t, "create", before.Verb)
	require.NotNil(t, before.Object)
	assert.Equal(t, row.Objects[1], before.Object.Kind+" "+before.Object.Namespace+"/"+before.Object.Name)
	for _, after := range rp.Rows[rp.Violation:] {
		assert.Equal(t, row.Step, after.Step, "the run stops at the end of the violation's step")
	}
}

func TestReadTraceRefusesWhatIsNotATrace(t *testing.T) {
	tests := []struct {
		name, in, wantErr string
	}{
		{"not json", "{\"step\":1,\"t\":\"0s\",\"actor\":\"a\",\"kind\":\"k\",\"rev\":1}\nhello\n", "line 2: not a trace line"},
		{"no actor", `{"step":1,"t":"0s","kind":"k","rev":1}`, "line 1: a trace line needs an actor and a kind"},
		{"bad time", `{"step":1,"t":"soon","actor":"a","kind":"k","rev":1}`, `line 1: t "soon" is not a duration`},
		{"unknown field", `{"step":1,"t":"0s","actor":"a","kind":"k","rev":1,"colour":"red"}`, "line 1: not a trace line"},
		{"bad obj", `{"step":1,"t":"0s","actor":"a","kind":"create","key":"Pod a/b","rev":1,"obj":{"ready":"yes"}}`, "line 1: obj"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := sim.ReadTrace(strings.NewReader(tt.in))
			require.ErrorContains(t, err, tt.wantErr)
		})
	}
}
