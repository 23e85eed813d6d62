package nodesim

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
)

// keptRun drives the controller with steps a seeded source picks, as the
// simulator does: the informers' steps, the handlers' deliveries, the
// controller's syncs, the clock, and a workload that creates, deletes,
// recreates and crashes pods; so a sync often runs while the pod handler
// lags behind the cache, and takes nodes down and up. After every step it
// checks that each pod the handler kept is, when a sync would read it
// (keptPodLocked), the cache's pod, and the same of the nodes a sync would
// read from their records (nodeLocked), whose readiness the record keeps
// is the node's, and so is its host IP; that a pod a sync would take for
// gone without asking the cache (knownGoneLocked) is not in the cache; and
// that the state keeps its invariants (checkState). It returns a
// trace of the pods as the API server holds them after each step, then
// the events written.
func keptRun(t *testing.T, seed uint64, readCache bool) (trace []string, fast, slow, gone int) {
	t.Helper()
	e := newEnv(t, Config{Nodes: 2, PodsPerNode: 4, StartDelay: time.Second, ReadyDelay: time.Second})
	e.c.readCache = readCache
	r := rand.New(rand.NewPCG(seed, 7))
	pods := client.For[*api.Pod](e.srv)
	names := []string{"a", "b", "c", "d", "e", "f"}
	for range 600 {
		switch n := r.IntN(10); {
		case n < 2:
			for _, inf := range e.f.Informers() {
				inf.Reflector().Step(e.ctx)
			}
		case n < 4:
			for _, inf := range e.f.Informers() {
				inf.ProcessOne()
			}
		case n == 4:
			for _, inf := range e.f.Informers() {
				for _, r := range inf.Registrations() {
					r.DispatchOne()
				}
			}
		case n == 5:
			e.sched.ProcessOne(e.ctx)
		case n == 6:
			e.c.ProcessOne(e.ctx)
		case n == 7:
			e.clk.Step(300 * time.Millisecond)
		default:
			name := names[r.IntN(len(names))]
			switch r.IntN(6) {
			case 0, 1:
				_, _ = pods.Create(e.ctx, &api.Pod{
					Metadata: api.ObjectMeta{Namespace: "default", Name: name},
					Spec:     api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx:1.27"}}},
				})
			case 2:
				_, _ = pods.Delete(e.ctx, "default", name, api.DeleteOptions{})
			case 3:
				_ = e.c.CrashPod(e.ctx, "default", name)
			case 4:
				_ = e.c.NodeDown(e.ctx, e.c.NodeName(r.IntN(2)))
			case 5:
				_ = e.c.NodeUp(e.ctx, e.c.NodeName(r.IntN(2)))
			}
		}
		e.c.mu.Lock()
		for key, st := range e.c.state {
			if st.ips != nil {
				require.Same(t, e.c.ips[st.ips.name], st.ips, "seed %d: %s points at its node's one record", seed, key)
			}
			if e.c.knownGoneLocked(st) {
				gone++
				_, cached := e.c.podInf.Indexer().Get(key)
				require.False(t, cached, "seed %d: %s known gone, in the cache", seed, key)
			}
			kept := e.c.keptPodLocked(st)
			if kept == nil {
				if st.pod != nil {
					slow++
				}
				continue
			}
			fast++
			cached, ok := e.c.podInf.Indexer().Get(key)
			require.True(t, ok, "seed %d: %s kept, not cached", seed, key)
			require.Same(t, cached, kept, "seed %d: %s kept is the cache's", seed, key)
		}
		for name, rec := range e.c.ips {
			if rec.node != nil {
				require.Equal(t, nodeReady(rec.node), rec.ready, "seed %d: node %s's readiness as its record keeps it", seed, name)
				require.Equal(t, hostIP(rec.node), rec.hostIP, "seed %d: node %s's host IP as its record keeps it", seed, name)
			}
			if rec.node == nil || rec.gen != e.c.nodeGen || e.c.nodeReg.Pending() != 0 {
				continue
			}
			cached, ok := e.c.nodeInf.Indexer().Get(name)
			require.True(t, ok, "seed %d: node %s kept, not cached", seed, name)
			require.Same(t, cached, rec.node, "seed %d: node %s kept is the cache's", seed, name)
		}
		e.c.mu.Unlock()
		e.checkState()
		list, _, err := pods.List(e.ctx, "default", client.ListOptions{})
		require.NoError(t, err)
		step := ""
		for _, p := range list {
			step += fmt.Sprintf("%s/%s %s %s ready=%v; ", p.Metadata.Name, p.Metadata.ResourceVersion, p.Spec.NodeName, p.Status.Phase, api.IsPodReady(p))
		}
		trace = append(trace, step)
	}
	events, _, err := client.For[*api.Event](e.srv).List(e.ctx, "default", client.ListOptions{})
	require.NoError(t, err)
	for _, ev := range events {
		trace = append(trace, fmt.Sprintf("%s %s %s %s x%d", ev.InvolvedObject.Name, ev.Reason, ev.Message, ev.LastTimestamp.Time, ev.Count))
	}
	return trace, fast, slow, gone
}

// TestKeptPodIsTheCachesPod: a sync reads the pod the handler kept, and
// the node a sync read before, only when it is the cache's, and takes a
// pod for gone without asking the cache only when the cache holds none
// (checked after every step), and a run whose syncs read them writes what a run whose
// syncs read the cache writes, step for step.
func TestKeptPodIsTheCachesPod(t *testing.T) {
	fast, slow, gone := 0, 0, 0
	for seed := range uint64(20) {
		plain, _, _, _ := keptRun(t, seed, true)
		kept, f, s, g := keptRun(t, seed, false)
		require.Equal(t, plain, kept, "seed %d", seed)
		fast, slow, gone = fast+f, slow+s, gone+g
	}
	assert.Positive(t, fast, "syncs could read the kept pod")
	assert.Positive(t, slow, "and had to read the cache while the handler lagged")
	assert.Positive(t, gone, "syncs could forget a pod the handler saw deleted without asking the cache")
}

// TestParseRV: the API server's resourceVersions are numbers; anything
// else is unknown, above every number.
func TestParseRV(t *testing.T) {
	for _, tc := range []struct {
		rv   string
		want uint64
	}{
		{"1", 1},
		{"1234567", 1234567},
		{"9999999999999999999", 9999999999999999999},
		{"", rvUnknown},
		{"12a", rvUnknown},
		{"-1", rvUnknown},
		{"18446744073709551616", rvUnknown},
	} {
		assert.Equal(t, tc.want, parseRV(tc.rv), tc.rv)
	}
	assert.Greater(t, uint64(rvGone), parseRV("9999999999999999999"))
}

// TestPodStateSize holds what nodesim keeps per pod to its budget: one
// 384-byte allocation, what the kubelet's memory (208 B) and the pod's
// logs (176 B, with a map of their own, and the scheduler's map of
// assumed bindings besides) took before one entry held them all.
func TestPodStateSize(t *testing.T) {
	assert.LessOrEqual(t, reflect.TypeFor[podState]().Size(), uintptr(384))
}
