package ui

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
)

// rowsOf returns the timeline rows path serves.
func rowsOf(t *testing.T, c *cluster, path string) Timeline {
	t.Helper()
	var tl Timeline
	require.Equal(t, http.StatusOK, c.get(path, &tl))
	return tl
}

func TestTheTimelineLinksTheScaleWriteToThePodsTheControllerCreated(t *testing.T) {
	c := newCluster(t, 0)
	c.node("node-0")
	rc := c.rc("web", 3)
	created := c.rev()
	first := []int64{c.podFor(rc, "web-a", "node-0", true), c.podFor(rc, "web-b", "node-0", true), c.podFor(rc, "web-c", "node-0", true)}
	scaled := c.scale("web", 5)
	second := []int64{c.podFor(rc, "web-d", "node-0", true), c.podFor(rc, "web-e", "node-0", true)}

	tl := rowsOf(t, c, "/ui/api/timeline?limit=1000")
	byRev := map[int64]Row{}
	for _, r := range tl.Rows {
		byRev[r.Revision] = r
	}
	scale := byRev[scaled]
	assert.Equal(t, "kubectl", scale.Actor)
	assert.Equal(t, api.WatchModified, scale.Verb)
	assert.Contains(t, scale.Changes, Change{Path: "spec.replicas", From: float64(3), To: float64(5)})
	assert.Nil(t, scale.Cause, "kubectl's write has no reconcile behind it")

	for i, rev := range first {
		r := byRev[rev]
		assert.Equal(t, "replicationcontroller", r.Actor)
		// The kubelet's writes to the pods in between change no count.
		assert.Equal(t, &Cause{Controller: "replicationcontroller", Key: "default/web", TriggerRevision: created, Inferred: true, Rule: RuleOwner}, r.Cause, "pod %d", i)
	}
	d := byRev[second[0]]
	assert.Equal(t, api.WatchAdded, d.Verb)
	assert.Equal(t, "Pod", d.Kind)
	assert.Equal(t, "web-d", d.Name)
	require.NotNil(t, d.Cause)
	assert.Equal(t, scaled, d.Cause.TriggerRevision, "the new pods follow the scale write")
	assert.Equal(t, "default/web", d.Cause.Key)
	assert.Equal(t, scaled, byRev[second[1]].Cause.TriggerRevision, "the binding and status of web-d in between change no count")

	// Deleting a pod is the trigger of the replacement.
	_, err := c.srv.Delete(as("kubectl"), "pods", "default", "web-a", api.DeleteOptions{GracePeriodSeconds: new(int64)})
	require.NoError(t, err)
	deleted := c.rev()
	replacement := c.podFor(rc, "web-f", "", false)
	tl = rowsOf(t, c, fmt.Sprintf("/ui/api/timeline?after=%d", deleted-1))
	require.Len(t, tl.Rows, 2)
	assert.Equal(t, replacement, tl.Rows[0].Revision)
	assert.Equal(t, deleted, tl.Rows[0].Cause.TriggerRevision)

	bound := byRev[second[0]+1]
	assert.Equal(t, "scheduler", bound.Actor, "a binding sets spec.nodeName")
	assert.Nil(t, bound.Cause)
	assert.Equal(t, "kubelet", byRev[second[0]+2].Actor)
}

// exactCauses is a Causes that knows one write's reconcile.
type exactCauses map[int64]Cause

func (e exactCauses) CauseOf(rev int64) (Cause, bool) {
	c, ok := e[rev]
	return c, ok
}

func TestExactCausesWinOverInference(t *testing.T) {
	c := newCluster(t, 0)
	rc := c.rc("web", 1)
	pod := c.podFor(rc, "web-a", "", false)
	c.h.cfg.Causes = exactCauses{pod: {Controller: "replicationcontroller", Key: "default/web", Reconcile: 7, TriggerRevision: 2}}
	tl := rowsOf(t, c, "/ui/api/timeline")
	require.Equal(t, pod, tl.Rows[0].Revision)
	assert.Equal(t, &Cause{Controller: "replicationcontroller", Key: "default/web", Reconcile: 7, TriggerRevision: 2}, tl.Rows[0].Cause)
}

func TestTimelineFiltersAndPages(t *testing.T) {
	c := newCluster(t, 0)
	c.node("node-0")
	rc := c.rc("web", 2)
	c.podFor(rc, "web-a", "node-0", true)
	c.podFor(rc, "web-b", "node-0", true)
	c.rc("db", 1)
	total := int(c.rev() - 1) // revision 1 is the empty store; 2 and 3 the namespaces

	names := func(tl Timeline) []string {
		var out []string
		for _, r := range tl.Rows {
			out = append(out, fmt.Sprintf("%d %s %s %s", r.Revision, r.Verb, r.Object(), r.Actor))
		}
		return out
	}
	for _, tt := range []struct {
		name, query string
		want        []string
	}{
		{"by kind", "kind=ReplicationController", []string{"13 ADDED ReplicationController/default/db kubectl-client-side-apply", "6 ADDED ReplicationController/default/web kubectl-client-side-apply"}},
		{"by object", "object=web-b", []string{"12 MODIFIED Pod/default/web-b kubelet", "11 MODIFIED Pod/default/web-b scheduler", "10 ADDED Pod/default/web-b replicationcontroller"}},
		{"by actor", "actor=scheduler", []string{"11 MODIFIED Pod/default/web-b scheduler", "8 MODIFIED Pod/default/web-a scheduler"}},
		{"hiding kinds", "hide=Pod,Node,Namespace&limit=3", []string{"13 ADDED ReplicationController/default/db kubectl-client-side-apply", "6 ADDED ReplicationController/default/web kubectl-client-side-apply"}},
		{"before and after", "before=11&after=8", []string{"10 ADDED Pod/default/web-b replicationcontroller", "9 MODIFIED Pod/default/web-a kubelet"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, names(rowsOf(t, c, "/ui/api/timeline?"+tt.query)))
		})
	}

	// Pages of 4, newest first, cover every write once.
	var seen []int64
	path := "/ui/api/timeline?limit=4"
	for {
		tl := rowsOf(t, c, path)
		require.LessOrEqual(t, len(tl.Rows), 4)
		for _, r := range tl.Rows {
			seen = append(seen, r.Revision)
		}
		if tl.Continue == 0 {
			break
		}
		path = fmt.Sprintf("/ui/api/timeline?limit=4&before=%d", tl.Continue)
	}
	require.Len(t, seen, total)
	for i, rev := range seen {
		assert.Equal(t, c.rev()-int64(i), rev)
	}
}

func TestTimelineBeforeTheWindowIsGone(t *testing.T) {
	c := newCluster(t, 0)
	c.node("node-0")
	c.rc("web", 1)
	require.NoError(t, c.srv.Compact(c.rev()))
	var st api.Status
	require.Equal(t, http.StatusGone, c.get("/ui/api/timeline?before=2", &st))
	assert.Equal(t, fmt.Sprintf("revision 2 has been compacted; the oldest kept is %d", c.rev()), st.Message)
	tl := rowsOf(t, c, "/ui/api/timeline")
	require.Len(t, tl.Rows, 1, "only the write at the oldest kept revision is left")
	assert.Equal(t, c.rev(), tl.Rows[0].Revision)
	assert.Equal(t, c.rev(), tl.Oldest)
}

func TestDiffBetweenTwoRevisions(t *testing.T) {
	c := newCluster(t, 0)
	c.node("node-0")
	rc := c.rc("web", 1)
	from := c.rev()
	c.scale("web", 2)
	c.podFor(rc, "web-a", "node-0", true)
	var d Diff
	require.Equal(t, http.StatusOK, c.get(fmt.Sprintf("/ui/api/diff?from=%d&to=%d", from, c.rev()), &d))
	assert.Equal(t, 4, d.Writes)
	require.Len(t, d.Objects, 2)
	assert.Equal(t, ObjectDiff{Kind: "Pod", Namespace: "default", Name: "web-a", Verb: api.WatchAdded, Changes: []Change{}}, d.Objects[0])
	assert.Equal(t, "ReplicationController", d.Objects[1].Kind)
	assert.Equal(t, []Change{{Path: "metadata.generation", From: float64(1), To: float64(2)}, {Path: "spec.replicas", From: float64(1), To: float64(2)}}, d.Objects[1].Changes)
}

func TestDiffListsItemsAddedAndRemoved(t *testing.T) {
	prev := &api.Endpoints{Subsets: []api.EndpointSubset{{Addresses: []api.EndpointAddress{{IP: "10.0.0.1"}}}}}
	cur := &api.Endpoints{Subsets: []api.EndpointSubset{{Addresses: []api.EndpointAddress{{IP: "10.0.0.2"}, {IP: "10.0.0.3"}}}}}
	changes, truncated := diff(prev, cur)
	assert.False(t, truncated)
	assert.Equal(t, []Change{
		{Path: "subsets[0].addresses[-]", From: map[string]any{"ip": "10.0.0.1"}},
		{Path: "subsets[0].addresses[+]", To: map[string]any{"ip": "10.0.0.2"}},
		{Path: "subsets[0].addresses[+]", To: map[string]any{"ip": "10.0.0.3"}},
	}, changes)
}

// TestWatchStreamsNewRows reads the live stream over a real HTTP server:
// the rows after the start, filtered, with a resume from Last-Event-ID,
// and the end of a stream that falls out of the window.
func TestWatchStreamsNewRows(t *testing.T) {
	c := newCluster(t, 0)
	c.node("node-0")
	rc := c.rc("web", 1)
	start := c.rev()
	ts := httptest.NewServer(c.h)
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	stopped := make(chan struct{})
	go func() { c.h.Run(ctx); close(stopped) }()

	open := func(query string, lastID string) *bufio.Reader {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/ui/api/watch?"+query, nil)
		require.NoError(t, err)
		if lastID != "" {
			req.Header.Set("Last-Event-ID", lastID)
		}
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, res.StatusCode)
		require.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
		t.Cleanup(func() { res.Body.Close() })
		return bufio.NewReader(res.Body)
	}
	// next returns the next event's type, id and data.
	next := func(r *bufio.Reader) (string, string, string) {
		var typ, id, data string
		for {
			line, err := r.ReadString('\n')
			require.NoError(t, err)
			line = strings.TrimSuffix(line, "\n")
			switch {
			case line == "" && typ != "":
				return typ, id, data
			case strings.HasPrefix(line, "event: "):
				typ = line[7:]
			case strings.HasPrefix(line, "id: "):
				id = line[4:]
			case strings.HasPrefix(line, "data: "):
				data = line[6:]
			}
		}
	}

	pods := open(fmt.Sprintf("after=%d&kind=Pod", start), "")
	c.scale("web", 2) // filtered out: a revision event only
	typ, id, data := next(pods)
	assert.Equal(t, "revision", typ)
	assert.Equal(t, fmt.Sprint(start+1), id)
	assert.Equal(t, fmt.Sprint(start+1), data)

	created := c.podFor(rc, "web-a", "", false)
	typ, id, data = next(pods)
	require.Equal(t, "row", typ)
	assert.Equal(t, fmt.Sprint(created), id)
	var row Row
	require.NoError(t, json.Unmarshal([]byte(data), &row))
	assert.Equal(t, "Pod/default/web-a", row.Object())
	assert.Equal(t, "replicationcontroller", row.Actor)
	require.NotNil(t, row.Cause, "the stream infers causes as the timeline does")
	assert.Equal(t, start+1, row.Cause.TriggerRevision)

	// A reconnecting EventSource resumes after the last id it saw.
	resumed := open("", fmt.Sprint(start))
	typ, id, _ = next(resumed)
	assert.Equal(t, "row", typ)
	assert.Equal(t, fmt.Sprint(start+1), id, "the scale write, unfiltered")

	// Falling out of the window ends the stream plainly.
	require.NoError(t, c.srv.Compact(c.rev()))
	gone := open(fmt.Sprintf("after=%d", start), "")
	typ, _, data = next(gone)
	assert.Equal(t, "gone", typ)
	var st api.Status
	require.NoError(t, json.Unmarshal([]byte(data), &st))
	assert.Equal(t, fmt.Sprintf("revision %d has been compacted; the oldest kept is %d", start, c.rev()), st.Message)

	cancel() // Run ends the streams still open and returns
	<-stopped
}
