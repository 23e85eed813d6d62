package replication

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
)

// BenchmarkSync measures a sync of a controller of 100 replicas that
// finds every pod there and its status written: claiming, expectations
// and status, without a write (most syncs of the scale benchmark).
func BenchmarkSync(b *testing.B) {
	h := newHarness(b, 0, false)
	rc := h.createRC("web", 100)
	h.settle()
	require.Len(b, h.ownedBy(rc), 100)
	_, _, _, before := h.client.counts()
	b.ReportAllocs()
	for b.Loop() {
		require.NoError(b, h.c.sync(h.ctx, "default/web"))
	}
	_, _, _, after := h.client.counts()
	require.Equal(b, before, after, "a steady sync wrote its status")
}

// BenchmarkCreatePod measures one pod creation with its SuccessfulCreate
// event, the server's create and the recorder included.
func BenchmarkCreatePod(b *testing.B) {
	h := newHarness(b, 0, true)
	h.createRC("web", 0)
	h.syncInformers()
	rc, err := h.c.owners.Namespace("default").Get("web")
	require.NoError(b, err)
	v := h.c.kind.view(rc)
	s := new(scratch)
	b.ReportAllocs()
	for b.Loop() {
		require.NoError(b, h.c.createPod(h.ctx, "default/web", &v, s))
	}
}

// BenchmarkPodsToDelete measures the scale-down's ranking: 50 of 100
// ready pods of one controller, created and ready over a few minutes.
func BenchmarkPodsToDelete(b *testing.B) {
	pods := make([]*api.Pod, 100)
	for i := range pods {
		pods[i] = newTestPod("p"+strconv.Itoa(i), node("n"+strconv.Itoa(i%7)),
			created(t0.Add(-time.Duration(300-i)*time.Second)), readySince(t0.Add(-time.Duration(200-i)*time.Second)))
	}
	b.ReportAllocs()
	for b.Loop() {
		PodsToDelete(pods, nil, 50, t0)
	}
}
