package nodesim

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/controllers/nodesim/fit"
)

// TestLeastLoadedAgreesWithSchedule moves node pod counts at random, takes
// nodes down and brings them up, and checks after every change that the
// scheduler's fast path names the node fit.Schedule would, or defers to it,
// and that the heap is in order. Twelve nodes, so that names order
// node-10 before node-2: the heap breaks ties by rank, which must be the
// names' order, not the numbers'.
func TestLeastLoadedAgreesWithSchedule(t *testing.T) {
	e := newEnv(t, Config{Nodes: 12, PodsPerNode: 4})
	c := e.c
	r := rand.New(rand.NewPCG(3, 3))
	pod := &api.Pod{}
	var names []string
	for i := range 12 {
		names = append(names, c.NodeName(i))
	}
	fastAnswers := 0
	for i := range 3000 {
		name := names[r.IntN(len(names))]
		c.mu.Lock()
		switch op := r.IntN(10); {
		case op < 4:
			c.addPodsOnLocked(c.nodeIPsLocked(name), 1, nil)
		case op < 9:
			if c.podsOnLocked(name) > 0 {
				c.addPodsOnLocked(c.nodeIPsLocked(name), -1, nil)
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
		want, wantOK, _ := fit.Schedule(fit.NewPod(&pod.Spec), c.fitNodesLocked())
		requireHeapOrdered(t, c.load, i)
		c.mu.Unlock()
		if ok {
			fastAnswers++
			require.True(t, wantOK, "step %d: the fast path found a node fit.Schedule did not", i)
			require.Equal(t, want, fast, "step %d", i)
		}
	}
	require.Greater(t, fastAnswers, 1000, "the fast path answered most of the time")
}

// requireHeapOrdered checks the heap property of h by names, not ranks:
// no entry orders before its parent, and each knows its place.
func requireHeapOrdered(t *testing.T, h loadHeap, step int) {
	t.Helper()
	for i, e := range h {
		require.Equal(t, i, e.index, "step %d: entry %s's index", step, e.name)
		if i == 0 {
			continue
		}
		p := h[(i-1)/2]
		require.False(t, e.pods < p.pods || (e.pods == p.pods && e.name < p.name),
			"step %d: %s (%d pods) orders before its parent %s (%d pods)", step, e.name, e.pods, p.name, p.pods)
	}
}

// BenchmarkSchedulerCount is the scheduler's bookkeeping of one pod bound
// to the least loaded of 1,000 nodes and one gone from another: two count
// changes, each an O(log nodes) repair of the heap whose comparisons are
// almost all ties of counts.
func BenchmarkSchedulerCount(b *testing.B) {
	e := newEnv(b, Config{Nodes: 1000})
	c := e.c
	names := make([]string, 1000)
	for i := range names {
		names[i] = c.NodeName(i)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, n := range names {
		for range 50 {
			c.addPodsOnLocked(c.nodeIPsLocked(n), 1, nil)
		}
	}
	i := 0
	for b.Loop() {
		name, ok := c.leastLoadedLocked()
		require.True(b, ok)
		c.addPodsOnLocked(c.nodeIPsLocked(name), 1, nil)
		c.addPodsOnLocked(c.nodeIPsLocked(names[i%len(names)]), -1, nil)
		i++
	}
}
