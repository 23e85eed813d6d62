package replication

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
)

// TestLabelMatcherIsMatchesLabelPairs: over seeded random runs of label
// maps, shared (as a controller's pods share its template's) or not, nil
// or empty, the matcher gives api.MatchesLabelPairs's answer for each.
func TestLabelMatcherIsMatchesLabelPairs(t *testing.T) {
	for seed := range uint64(100) {
		r := rand.New(rand.NewPCG(seed, 3))
		randomSet := func() map[string]string {
			if r.IntN(8) == 0 {
				return nil
			}
			m := map[string]string{}
			for range r.IntN(3) {
				m[fmt.Sprint("k", r.IntN(3))] = fmt.Sprint("v", r.IntN(2))
			}
			return m
		}
		set := randomSet()
		var buf [4]api.LabelPair
		m := newLabelMatcher(buf[:0], set)
		want := api.AppendLabelPairs(nil, set, "")
		shared := []map[string]string{randomSet(), randomSet()}
		for i := range 30 {
			labels := shared[r.IntN(len(shared))]
			if r.IntN(3) == 0 {
				labels = randomSet()
			}
			require.Equal(t, api.MatchesLabelPairs(want, labels), m.matches(labels),
				"seed %d step %d: set %v, labels %v", seed, i, set, labels)
		}
	}
}
