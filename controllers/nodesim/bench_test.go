package nodesim

import (
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
		e.createPod(name)
		e.settle()
		e.advance(time.Second) // started, and Ready: no readiness probe
		_, err := pods.Delete(e.ctx, "default", name, api.DeleteOptions{})
		require.NoError(b, err)
		e.settle()
		e.advance(time.Second) // the kubelet confirms the deletion
	}
	b.StopTimer()
	require.True(b, e.podGone("web-0"))
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
