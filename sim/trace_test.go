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
		ev := Event{T: time.Duration(ns), Actor: actor, Kind: kind, Key: key, Rev: rev, Detail: detail}
		tr.add(ev)
		line := out.String()
		require.True(t, strings.HasSuffix(line, "\n"))
		require.Equal(t, 1, strings.Count(line, "\n"), "one line")
		var got struct {
			T      string `json:"t"`
			Actor  string `json:"actor"`
			Kind   string `json:"kind"`
			Key    string `json:"key"`
			Rev    int64  `json:"rev"`
			Detail string `json:"detail"`
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
	assert.Equal(t, `{"t":"0s","actor":"a","kind":"k","rev":22}`, tail[2])
	assert.Equal(t, `{"t":"0s","actor":"a","kind":"k","rev":20}`, tail[0])
	assert.Len(t, tr.Tail(100), traceTail)
	assert.Equal(t, traceTail+3, tr.Lines())
}
