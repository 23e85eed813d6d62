package store

// The history ring is internal; this test checks it against a plain slice.

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHistRingAgainstSlice pushes and drops at random, wrapping and growing
// the ring many times, and compares every event, appendFrom from every
// position, and the dropped slots' clearing with a slice that does the
// same by appending and reslicing.
func TestHistRingAgainstSlice(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 1))
	var h histRing[int]
	var want []event[int]
	for step := range 5000 {
		if rng.IntN(3) > 0 || len(want) == 0 {
			ev := event[int]{cur: &rec[int]{key: "k", modRev: int64(step)}}
			h.push(ev)
			want = append(want, ev)
		} else {
			k := rng.IntN(len(want) + 1)
			h.drop(k)
			want = want[k:]
		}
		require.Equal(t, len(want), h.len(), "step %d: len", step)
		for i, ev := range want {
			require.Same(t, ev.cur, h.at(i).cur, "step %d: event %d", step, i)
		}
		i := rng.IntN(len(want) + 2)
		got := h.appendFrom([]event[int]{{}}, i)
		require.Len(t, got, 1+max(len(want)-i, 0), "step %d: appendFrom(%d)", step, i)
		for j := 1; j < len(got); j++ {
			require.Same(t, want[i+j-1].cur, got[j].cur, "step %d: appendFrom(%d)[%d]", step, i, j)
		}
		held := 0
		for _, ev := range h.buf {
			if ev.cur != nil {
				held++
			}
		}
		require.Equal(t, h.n, held, "step %d: slots not held are cleared", step)
		require.Zero(t, len(h.buf)&(len(h.buf)-1), "step %d: the array's length %d is a power of two", step, len(h.buf))
	}
}
