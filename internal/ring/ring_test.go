package ring

// The ring is checked against a plain slice; the test is internal to see
// that removed slots are cleared and the array stays a power of two.

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRingAgainstSlice pushes, pops and drops at random, wrapping and
// growing the ring many times, and compares every item, AppendFrom from
// every position, and the removed slots' clearing with a slice that does
// the same by appending and reslicing.
func TestRingAgainstSlice(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 1))
	var r Ring[*int]
	var want []*int
	for step := range 5000 {
		switch op := rng.IntN(6); {
		case op < 4 || len(want) == 0:
			x := new(int)
			*x = step
			r.Push(x)
			want = append(want, x)
		case op == 4:
			require.Same(t, want[0], r.Pop(), "step %d: Pop", step)
			want = want[1:]
		default:
			k := rng.IntN(len(want) + 1)
			r.Drop(k)
			want = want[k:]
		}
		require.Equal(t, len(want), r.Len(), "step %d: Len", step)
		for i, x := range want {
			require.Same(t, x, r.At(i), "step %d: item %d", step, i)
		}
		i := rng.IntN(len(want) + 2)
		got := r.AppendFrom([]*int{nil}, i)
		require.Len(t, got, 1+max(len(want)-i, 0), "step %d: AppendFrom(%d)", step, i)
		for j := 1; j < len(got); j++ {
			require.Same(t, want[i+j-1], got[j], "step %d: AppendFrom(%d)[%d]", step, i, j)
		}
		held := 0
		for _, x := range r.buf {
			if x != nil {
				held++
			}
		}
		require.Equal(t, r.n, held, "step %d: slots not held are cleared", step)
		require.Zero(t, len(r.buf)&(len(r.buf)-1), "step %d: the array's length %d is a power of two", step, len(r.buf))
	}
}

// TestZeroRingIsEmpty checks that the zero value works without a constructor.
func TestZeroRingIsEmpty(t *testing.T) {
	var r Ring[string]
	require.Zero(t, r.Len())
	require.Empty(t, r.AppendFrom(nil, 0))
	r.Drop(0)
	r.Push("a")
	require.Equal(t, "a", r.Pop())
	require.Zero(t, r.Len())
}
