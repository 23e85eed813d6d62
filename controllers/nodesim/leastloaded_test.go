package nodesim

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
)

// TestLeastLoadedAgreesWithChooseNode moves node pod counts at random, takes
// nodes down and brings them up, and checks after every change that the
// scheduler's fast path names the node chooseNode would, or defers to it.
func TestLeastLoadedAgreesWithChooseNode(t *testing.T) {
	e := newEnv(t, Config{Nodes: 6, PodsPerNode: 4})
	c := e.c
	r := rand.New(rand.NewPCG(3, 3))
	pod := &api.Pod{}
	names := []string{"node-0", "node-1", "node-2", "node-3", "node-4", "node-5"}
	fastAnswers := 0
	for i := range 3000 {
		name := names[r.IntN(len(names))]
		c.mu.Lock()
		switch op := r.IntN(10); {
		case op < 4:
			c.addPodsOnLocked(name, 1)
		case op < 9:
			if c.podsOn[name] > 0 {
				c.addPodsOnLocked(name, -1)
			}
		default:
			if _, down := c.down[name]; down {
				delete(c.down, name)
			} else {
				c.down[name] = epoch
			}
			c.invalidateLoadLocked()
		}
		fast, ok := c.leastLoadedLocked()
		want, wantOK, _ := chooseNode(c.nodeSlotsLocked(pod))
		c.mu.Unlock()
		if ok {
			fastAnswers++
			require.True(t, wantOK, "step %d: the fast path found a node chooseNode did not", i)
			require.Equal(t, want, fast, "step %d", i)
		}
	}
	require.Greater(t, fastAnswers, 1000, "the fast path answered most of the time")
}
