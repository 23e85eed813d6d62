package httpapi_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
)

// watchBound bounds every wait for a watch event, so a lost event fails
// the test instead of hanging it.
const watchBound = 20 * time.Second

// watchStream reads a watch's events over real HTTP.
type watchStream struct {
	t     *testing.T
	resp  *http.Response
	lines *bufio.Scanner
}

// openWatch starts a watch request; the stream closes when the test ends
// or watchBound passes.
func openWatch(t *testing.T, url string, header map[string]string) *watchStream {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), watchBound)
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	require.NoError(t, err)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { _ = resp.Body.Close() })
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	return &watchStream{t: t, resp: resp, lines: bufio.NewScanner(resp.Body)}
}

type event struct {
	Type   string          `json:"type"`
	Object json.RawMessage `json:"object"`
}

// next returns the next event, failing the test if the stream ends.
func (w *watchStream) next() (event, api.ObjectMeta) {
	w.t.Helper()
	require.True(w.t, w.lines.Scan(), "the watch ended: %v", w.lines.Err())
	var ev event
	require.NoError(w.t, json.Unmarshal(w.lines.Bytes(), &ev), w.lines.Text())
	var obj struct{ Metadata api.ObjectMeta }
	require.NoError(w.t, json.Unmarshal(ev.Object, &obj))
	return ev, obj.Metadata
}

// ended requires the stream to end cleanly (EOF) with no further event.
func (w *watchStream) ended() {
	w.t.Helper()
	assert.False(w.t, w.lines.Scan(), "unexpected event %s", w.lines.Text())
	assert.NoError(w.t, w.lines.Err())
}

// TestWatch checks where watches start and what they carry.
func TestWatch(t *testing.T) {
	clk := clock.NewFake(epoch)
	ts := newTestServer(t, clk, nil)
	pods := client.For[*api.Pod](ts.srv)
	_, err := pods.Create(ctx, podOf("default", "web", map[string]string{"app": "web"}))
	require.NoError(t, err)
	_, rv, err := pods.List(ctx, "default", client.ListOptions{})
	require.NoError(t, err)
	base := ts.url + "/api/v1/namespaces/default/pods?watch=true"

	t.Run("from a list's resourceVersion: only later changes", func(t *testing.T) {
		w := openWatch(t, base+"&resourceVersion="+rv, nil)
		p, err := pods.Create(ctx, podOf("default", "a", nil))
		require.NoError(t, err)
		ev, m := w.next()
		assert.Equal(t, "ADDED", ev.Type)
		assert.Equal(t, "a", m.Name)
		var tm api.TypeMeta
		require.NoError(t, json.Unmarshal(ev.Object, &tm))
		assert.Equal(t, api.TypeMeta{Kind: "Pod", APIVersion: "v1"}, tm)
		_, err = ts.srv.Delete(ctx, client.Pods, "default", p.Metadata.Name, api.DeleteOptions{})
		require.NoError(t, err)
		ev, m = w.next()
		assert.Equal(t, "DELETED", ev.Type)
		assert.Equal(t, "a", m.Name)

		resp, err := http.Get(ts.url + "/metrics")
		require.NoError(t, err)
		defer resp.Body.Close()
		metrics, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		assert.Contains(t, string(metrics), `apiserver_longrunning_requests{verb="watch",resource="pods"} 1`+"\n")
	})
	t.Run("from 0: the current state first", func(t *testing.T) {
		w := openWatch(t, base+"&resourceVersion=0&fieldSelector=metadata.name%3Dweb", nil)
		ev, m := w.next()
		assert.Equal(t, "ADDED", ev.Type)
		assert.Equal(t, "web", m.Name)
		labelled := podOf("default", "web", map[string]string{"app": "web", "env": "prod"})
		_, err := ts.srv.Update(ctx, labelled)
		require.NoError(t, err)
		ev, m = w.next()
		assert.Equal(t, "MODIFIED", ev.Type)
		assert.Equal(t, "prod", m.Labels["env"])
	})
	t.Run("label selector", func(t *testing.T) {
		cur := ts.srv.Store().Rev()
		w := openWatch(t, base+"&labelSelector=tier%3Ddb&resourceVersion="+formatRev(cur), nil)
		_, err := pods.Create(ctx, podOf("default", "cache", map[string]string{"tier": "cache"}))
		require.NoError(t, err)
		_, err = pods.Create(ctx, podOf("default", "db", map[string]string{"tier": "db"}))
		require.NoError(t, err)
		_, m := w.next()
		assert.Equal(t, "db", m.Name, "the cache pod is not selected")
	})
	t.Run("table events", func(t *testing.T) {
		cur := ts.srv.Store().Rev()
		w := openWatch(t, base+"&resourceVersion="+formatRev(cur), map[string]string{"Accept": acceptTable})
		for _, name := range []string{"t1", "t2"} {
			_, err := pods.Create(ctx, podOf("default", name, nil))
			require.NoError(t, err)
		}
		for i, name := range []string{"t1", "t2"} {
			ev, _ := w.next()
			assert.Equal(t, "ADDED", ev.Type)
			var tab tableJSON
			require.NoError(t, json.Unmarshal(ev.Object, &tab))
			assert.Equal(t, "Table", tab.Kind)
			require.Len(t, tab.Rows, 1)
			assert.Equal(t, name, tab.Rows[0].Cells[0])
			assert.NotEmpty(t, tab.Metadata.ResourceVersion)
			if i == 0 {
				assert.NotEmpty(t, tab.Columns, "the first event carries the columns")
			} else {
				assert.Empty(t, tab.Columns)
			}
		}
	})
	t.Run("streaming list ends its initial events with a bookmark", func(t *testing.T) {
		w := openWatch(t, base+"&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&labelSelector=app%3Dweb", nil)
		ev, m := w.next()
		assert.Equal(t, "ADDED", ev.Type)
		assert.Equal(t, "web", m.Name)
		ev, m = w.next()
		assert.Equal(t, "BOOKMARK", ev.Type)
		assert.Equal(t, "true", m.Annotations[apiserver.InitialEventsEndAnnotation])
	})
	t.Run("bookmarks when time passes", func(t *testing.T) {
		cur := ts.srv.Store().Rev()
		w := openWatch(t, base+"&allowWatchBookmarks=true&resourceVersion="+formatRev(cur), nil)
		p, err := pods.Create(ctx, podOf("default", "b1", nil))
		require.NoError(t, err)
		ev, _ := w.next()
		assert.Equal(t, "ADDED", ev.Type)
		clk.Step(apiserver.DefaultBookmarkInterval)
		ev, m := w.next()
		assert.Equal(t, "BOOKMARK", ev.Type)
		assert.Equal(t, p.Metadata.ResourceVersion, m.ResourceVersion)
	})
}

// TestWatchTimeout checks that timeoutSeconds ends the stream cleanly
// when that much time has passed on the server's clock.
func TestWatchTimeout(t *testing.T) {
	clk := clock.NewFake(epoch)
	ts := newTestServer(t, clk, nil)
	w := openWatch(t, ts.url+"/api/v1/namespaces/default/pods?watch=true&timeoutSeconds=30", nil)
	require.Eventually(t, func() bool { return clk.Waiters() == 1 }, watchBound, time.Millisecond, "the watch set its timer")
	clk.Step(29 * time.Second)
	_, err := ts.srv.Create(ctx, podOf("default", "late", nil))
	require.NoError(t, err)
	ev, m := w.next()
	assert.Equal(t, "ADDED", ev.Type)
	assert.Equal(t, "late", m.Name, "still open after 29s")
	clk.Step(time.Second)
	w.ended()
}

// TestWatchTooOld checks that a watch from a compacted resourceVersion is
// one ERROR event carrying 410 Expired, then the end of the stream.
func TestWatchTooOld(t *testing.T) {
	ts := newTestServer(t, clock.NewFake(epoch), nil)
	for _, name := range []string{"a", "b", "c"} {
		_, err := ts.srv.Create(ctx, podOf("default", name, nil))
		require.NoError(t, err)
	}
	require.NoError(t, ts.srv.Compact(ts.srv.Store().Rev()))
	w := openWatch(t, ts.url+"/api/v1/namespaces/default/pods?watch=true&resourceVersion=2", nil)
	ev, _ := w.next()
	assert.Equal(t, "ERROR", ev.Type)
	var st api.Status
	require.NoError(t, json.Unmarshal(ev.Object, &st))
	assert.Equal(t, int32(http.StatusGone), st.Code)
	assert.Equal(t, api.StatusReasonExpired, st.Reason)
	assert.Contains(t, st.Message, "too old resource version")
	w.ended()
}

// TestShutdownEndsWatches checks that Shutdown ends open watches cleanly
// and that later watches are refused.
func TestShutdownEndsWatches(t *testing.T) {
	ts := newTestServer(t, clock.NewFake(epoch), nil)
	w := openWatch(t, ts.url+"/api/v1/pods?watch=true", nil)
	ts.h.Shutdown()
	w.ended()
	resp, err := http.Get(ts.url + "/api/v1/pods?watch=true")
	require.NoError(t, err)
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	ts.h.Shutdown() // a second call is harmless
}

func formatRev(rev int64) string { return strconv.FormatInt(rev, 10) }
