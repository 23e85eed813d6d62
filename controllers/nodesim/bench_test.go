package nodesim

import (
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
)

// BenchmarkPodLifecycle takes one pod at a time through its whole life on
// the simulated nodes: created, bound (Scheduled event), accepted (Pending,
// hostIP), started (Running and Ready, its kubelet event), deleted and its
// deletion confirmed, on a real API server and informers. An op is one pod;
// its allocations include the API server's, which no change here alters, so
// the difference between two runs is the simulator's.
func BenchmarkPodLifecycle(b *testing.B) {
	e := newEnv(b, Config{Nodes: 10})
	pods := client.For[*api.Pod](e.srv)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		name := "web-" + strconv.Itoa(i)
		i++
		e.CreatePod(name)
		e.settle()
		e.advance(time.Second) // started, and Ready: no readiness probe
		_, err := pods.Delete(e.ctx, "default", name, api.DeleteOptions{})
		require.NoError(b, err)
		e.settle()
		e.advance(time.Second) // the kubelet confirms the deletion
	}
	b.StopTimer()
	require.True(b, e.PodGone("web-0"))
}

// BenchmarkIdleSync is one sync of a pod that is Running and Ready with
// nothing due: the work of a sync that has nothing to do, from the queue's
// Add to its Done, which is what foresee spares the delivery of the
// kubelet's own writes.
func BenchmarkIdleSync(b *testing.B) {
	e := newEnv(b, Config{Nodes: 10})
	e.runReady("web")
	b.ReportAllocs()
	for b.Loop() {
		e.c.queue.Add("default/web")
		if !e.c.ProcessOne(e.ctx) {
			b.Fatal("nothing synced")
		}
	}
}

// BenchmarkIdleSyncAmongMany is BenchmarkIdleSync among 50,000 running
// pods, each op a pod picked by a seeded source: the maps nodesim and the
// cache look a pod up in are too large for the CPU's caches, as at scale,
// so each lookup a sync makes is a cache miss.
func BenchmarkIdleSyncAmongMany(b *testing.B) {
	const n = 50000
	e := newEnv(b, Config{Nodes: n/100 + 1, PodsPerNode: 110})
	for i := range n {
		e.CreatePod("web-" + strconv.Itoa(i))
		if i%500 == 499 {
			e.settleLong() // within the store's watch window: no relist
		}
	}
	e.clk.Step(time.Second)
	e.settleLong()
	list, _, err := client.For[*api.Pod](e.srv).List(e.ctx, "default", client.ListOptions{})
	require.NoError(b, err)
	for _, p := range list {
		require.True(b, api.IsPodReady(p), p.Metadata.Name)
	}
	keys := make([]string, n)
	for i := range keys {
		keys[i] = "default/web-" + strconv.Itoa(i)
	}
	r := rand.New(rand.NewPCG(1, 2))
	b.ReportAllocs()
	for b.Loop() {
		e.c.queue.Add(keys[r.IntN(n)])
		if !e.c.ProcessOne(e.ctx) {
			b.Fatal("nothing synced")
		}
	}
}

// settleLong is settle without its bound on steps, for many pods.
func (e *env) settleLong() {
	for e.step() {
	}
}
