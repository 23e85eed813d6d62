package replication

import (
	"testing"

	"github.com/stretchr/testify/require"
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
	rc, err := h.c.rcs.Namespace("default").Get("web")
	require.NoError(b, err)
	s := new(scratch)
	b.ReportAllocs()
	for b.Loop() {
		require.NoError(b, h.c.createPod(h.ctx, "default/web", rc, s))
	}
}
