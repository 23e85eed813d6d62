package sim

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzTraceLine: whatever strings an event carries, its trace line is one
// line of valid JSON that decodes to the same event (invalid UTF-8 comes
// back as U+FFFD, as encoding/json would write it).
func FuzzTraceLine(f *testing.F) {
	f.Add("m0/replication", "create", "default/web-abc", "term=1", int64(7), int64(1500))
	f.Add("user", "action", "", `scale "web" to 3`, int64(0), int64(0))
	f.Add("a\nb", "c\td", "\x00\x1f", "\\ü\xff", int64(-1), int64(-5))
	f.Fuzz(func(t *testing.T, actor, kind, key, detail string, rev, ns int64) {
		var out bytes.Buffer
		tr := newTrace(&out, TraceFull)
		ev := Event{Step: int(rev % 1000), T: time.Duration(ns), Actor: actor, Kind: kind, Key: key, Rev: rev, Detail: detail,
			Target: detail, Outcome: key, Invariant: actor, Objects: []string{key, detail}, Fault: rev%2 == 0}
		tr.add(ev)
		line := out.String()
		require.True(t, strings.HasSuffix(line, "\n"))
		require.Equal(t, 1, strings.Count(line, "\n"), "one line")
		var got struct {
			Step      int      `json:"step"`
			Target    string   `json:"target"`
			Outcome   string   `json:"outcome"`
			Invariant string   `json:"invariant"`
			Objects   []string `json:"objects"`
			Fault     bool     `json:"fault"`
			T         string   `json:"t"`
			Actor     string   `json:"actor"`
			Kind      string   `json:"kind"`
			Key       string   `json:"key"`
			Rev       int64    `json:"rev"`
			Detail    string   `json:"detail"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &got), line)
		valid := func(s string) string { // each invalid byte becomes U+FFFD
			var b strings.Builder
			for _, r := range s {
				b.WriteRune(r)
			}
			return b.String()
		}
		assert.Equal(t, ev.T.String(), got.T)
		assert.Equal(t, valid(actor), got.Actor)
		assert.Equal(t, valid(kind), got.Kind)
		assert.Equal(t, valid(key), got.Key)
		assert.Equal(t, rev, got.Rev)
		assert.Equal(t, valid(detail), got.Detail)
		assert.Equal(t, ev.Step, got.Step)
		assert.Equal(t, valid(detail), got.Target)
		assert.Equal(t, valid(key), got.Outcome)
		assert.Equal(t, valid(actor), got.Invariant)
		assert.Equal(t, []string{valid(key), valid(detail)}, got.Objects)
		assert.Equal(t, ev.Fault, got.Fault)
		assert.Equal(t, []string{strings.TrimSuffix(line, "\n")}, tr.Tail(5))
	})
}

func TestTraceTailKeepsTheLastLines(t *testing.T) {
	tr := newTrace(nil, TraceFull)
	for i := range traceTail + 3 {
		tr.add(Event{Actor: "a", Kind: "k", Rev: int64(i)})
	}
	tail := tr.Tail(3)
	require.Len(t, tail, 3)
	assert.Equal(t, `{"step":0,"t":"0s","actor":"a","kind":"k","rev":22}`, tail[2])
	assert.Equal(t, `{"step":0,"t":"0s","actor":"a","kind":"k","rev":20}`, tail[0])
	assert.Len(t, tr.Tail(100), traceTail)
	assert.Equal(t, traceTail+3, tr.Lines())
}

// TestFoldedTraceLeavesOutPopsAndDispatches: a folded trace writes neither
// pops nor dispatches, says on the next line how many it folded, and has
// the same fingerprint as the full trace of the same events.
func TestFoldedTraceLeavesOutPopsAndDispatches(t *testing.T) {
	events := []Event{
		{Step: 1, Actor: "m0/pods", Kind: "list", Rev: 3},
		{Step: 2, Actor: "m0/pods", Kind: "pop", Rev: 3},
		{Step: 3, Actor: "m0/pods#0", Kind: "dispatch", Rev: 3},
		{Step: 4, Actor: "m0/replication", Kind: "sync", Key: "ReplicationController default/web", Rev: 3, Outcome: "ok", Queue: 0},
		{Step: 5, Actor: "m0/pods", Kind: "pop", Rev: 3},
	}
	tests := []struct {
		detail TraceDetail
		want   []string
	}{
		{TraceFull, []string{
			`{"step":1,"t":"0s","actor":"m0/pods","kind":"list","rev":3}`,
			`{"step":2,"t":"0s","actor":"m0/pods","kind":"pop","rev":3}`,
			`{"step":3,"t":"0s","actor":"m0/pods#0","kind":"dispatch","rev":3}`,
			`{"step":4,"t":"0s","actor":"m0/replication","kind":"sync","key":"ReplicationController default/web","rev":3,"outcome":"ok","queue":0}`,
			`{"step":5,"t":"0s","actor":"m0/pods","kind":"pop","rev":3}`,
		}},
		{TraceFolded, []string{
			`{"step":1,"t":"0s","actor":"m0/pods","kind":"list","rev":3}`,
			`{"step":4,"t":"0s","actor":"m0/replication","kind":"sync","key":"ReplicationController default/web","rev":3,"outcome":"ok","queue":0,"folded":2}`,
		}},
	}
	var prints []string
	for _, tt := range tests {
		t.Run(tt.detail.String(), func(t *testing.T) {
			var out bytes.Buffer
			tr := newTrace(&out, tt.detail)
			for _, ev := range events {
				tr.add(ev)
			}
			assert.Equal(t, strings.Join(tt.want, "\n")+"\n", out.String())
			assert.Equal(t, len(events), tr.Lines())
			assert.Equal(t, tt.want[len(tt.want)-1], tr.Tail(1)[0])
			prints = append(prints, tr.Fingerprint())
		})
	}
	require.Len(t, prints, 2)
	assert.Equal(t, prints[0], prints[1], "the fingerprint does not depend on the detail")
}

func TestParseTraceDetail(t *testing.T) {
	for _, tt := range []struct {
		in      string
		want    TraceDetail
		wantErr string
	}{
		{"folded", TraceFolded, ""},
		{"", TraceFolded, ""},
		{"full", TraceFull, ""},
		{"verbose", 0, `unknown trace detail "verbose"`},
	} {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseTraceDetail(tt.in)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
