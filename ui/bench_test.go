package ui

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
)

// BenchmarkSnapshot10kPods serves the snapshot of a cluster of 3 nodes
// and 10,000 pods over HTTP, JSON included: what the page asks for after
// every batch of writes while it follows the newest revision.
func BenchmarkSnapshot10kPods(b *testing.B) {
	const pods = 10_000
	c := newCluster(b, 0)
	for i := range 3 {
		c.node(fmt.Sprintf("node-%d", i))
	}
	rc := c.rc("web", pods)
	for i := range pods {
		p := &api.Pod{Metadata: api.ObjectMeta{Name: fmt.Sprintf("web-%05d", i), Namespace: "default", Labels: map[string]string{"app": "web"}}}
		p.Spec.NodeName = fmt.Sprintf("node-%d", i%3)
		p.Spec.Containers = []api.Container{{Name: "web", Image: "nginx"}}
		_, err := c.srv.Create(as("replicationcontroller"), p)
		require.NoError(b, err)
	}
	_ = rc
	var size int
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		c.h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/ui/api/snapshot", nil))
		if rec.Code != http.StatusOK {
			b.Fatalf("snapshot: %d %s", rec.Code, rec.Body)
		}
		size = rec.Body.Len()
	}
	var s Snapshot
	rec := httptest.NewRecorder()
	c.h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/ui/api/snapshot", nil))
	require.NoError(b, json.Unmarshal(rec.Body.Bytes(), &s))
	require.Equal(b, pods, s.Pods.Total, "every pod counted")
	for _, n := range s.Nodes[:3] {
		require.Len(b, n.Listed, maxListedPods, "a busy node lists a few pods by name")
	}
	b.ReportMetric(float64(size), "bytes/snapshot")
}

// BenchmarkTimeline10kWrites serves the newest timeline page over a full
// history window of 10,000 writes.
func BenchmarkTimeline10kWrites(b *testing.B) {
	c := newCluster(b, 0)
	c.node("node-0")
	rc := c.rc("web", 1)
	for c.rev() < 10_000 {
		c.podFor(rc, fmt.Sprintf("web-%05d", c.rev()), "node-0", true)
	}
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		c.h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/ui/api/timeline?limit=100", nil))
		if rec.Code != http.StatusOK {
			b.Fatalf("timeline: %d %s", rec.Code, rec.Body)
		}
	}
}
