package apiserver_test

// Black-box tests of Watch: where a watch starts for each resourceVersion
// (Kubernetes' table for watch), the streaming list, selectors that move
// objects in and out of view, errors, bookmarks, Ready, and resuming from
// the last event seen. Watchers are polled synchronously, so every test is
// deterministic: no goroutines, no sleeping, only the fake clock.

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
)

// mustWatch starts a watch on pods and stops it when the test ends.
func mustWatch(t testing.TB, s *apiserver.Server, namespace string, opts client.ListOptions) client.Watcher {
	t.Helper()
	w, err := s.Watch(ctx, client.Pods, namespace, opts)
	require.NoError(t, err)
	t.Cleanup(w.Stop)
	return w
}

// pollAll returns every pending event of w.
func pollAll(t testing.TB, w client.Watcher) []client.WatchEvent {
	t.Helper()
	evs, err := w.Poll(nil, 0)
	require.NoError(t, err)
	return evs
}

// describe renders events as "TYPE namespace/name@resourceVersion" (a
// BOOKMARK as "BOOKMARK @rv", an ERROR as "ERROR <code> <reason>").
func describe(evs []client.WatchEvent) []string {
	var out []string
	for _, ev := range evs {
		switch ev.Type {
		case api.WatchError:
			out = append(out, fmt.Sprintf("ERROR %d %s", ev.Status.Code, ev.Status.Reason))
		case api.WatchBookmark:
			out = append(out, "BOOKMARK @"+ev.Object.GetObjectMeta().ResourceVersion)
		default:
			out = append(out, ev.Type+" "+version(ev.Object))
		}
	}
	return out
}

// ev renders one expected event as describe does.
func ev(typ string, obj api.Object) string { return typ + " " + version(obj) }

// isClosed reports whether c is closed now.
func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// TestWatchFromResourceVersionIsExclusive checks that a watch from "N"
// sends no synthetic events and starts with the first change after N, never
// the change at N (kubernetes#24004).
func TestWatchFromResourceVersionIsExclusive(t *testing.T) {
	s, _ := newServer(t)
	a1 := mustCreate(t, s, pod("default", "a", nil))
	a2 := mustRelabel(t, s, a1, map[string]string{"v": "2"})
	b := mustCreate(t, s, pod("default", "b", nil))
	mustDelete(t, s, "default", "a")
	deletedAt := s.Store().Rev()
	deleted := fmt.Sprintf("DELETED default/a@%d", deletedAt)

	tests := []struct {
		name string
		from int64
		want []string
	}{
		{"before the create", rvOf(t, a1) - 1, []string{ev(api.WatchAdded, a1), ev(api.WatchModified, a2), ev(api.WatchAdded, b), deleted}},
		{"at the create", rvOf(t, a1), []string{ev(api.WatchModified, a2), ev(api.WatchAdded, b), deleted}},
		{"at the update", rvOf(t, a2), []string{ev(api.WatchAdded, b), deleted}},
		{"at the second create", rvOf(t, b), []string{deleted}},
		{"at the delete", deletedAt, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := mustWatch(t, s, "default", client.ListOptions{ResourceVersion: rvString(tt.from)})
			assert.Equal(t, tt.want, describe(pollAll(t, w)))
		})
	}
}

// TestWatchWithoutResourceVersionListsFirst checks that a watch from "" or
// "0" first sends an ADDED event for every existing object (of the watched
// namespace and selector), then the live changes.
func TestWatchWithoutResourceVersionListsFirst(t *testing.T) {
	tests := []struct {
		name, rv, namespace, selector string
	}{
		{"unset", "", "default", ""},
		{"zero", "0", "default", ""},
		{"unset, all namespaces", "", "", ""},
		{"zero, a selector", "0", "", "app=web"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newServer(t)
			mustNamespace(t, s, "other")
			a := mustCreate(t, s, pod("default", "a", map[string]string{"app": "web"}))
			b := mustCreate(t, s, pod("default", "b", nil))
			c := mustCreate(t, s, pod("other", "c", map[string]string{"app": "web"}))
			mustDelete(t, s, "default", "b")
			b = mustCreate(t, s, pod("default", "b", nil)) // a second life: listed once, as it is

			w := mustWatch(t, s, tt.namespace, client.ListOptions{ResourceVersion: tt.rv, LabelSelector: tt.selector})
			var want []string
			for _, obj := range []*api.Pod{a, b, c} {
				if (tt.namespace == "" || obj.Metadata.Namespace == tt.namespace) && (tt.selector == "" || obj.Metadata.Labels["app"] == "web") {
					want = append(want, ev(api.WatchAdded, obj))
				}
			}
			assert.Equal(t, want, describe(pollAll(t, w)), "the current state, as ADDED events")

			d := mustCreate(t, s, pod("default", "d", map[string]string{"app": "web"}))
			assert.Equal(t, []string{ev(api.WatchAdded, d)}, describe(pollAll(t, w)), "then the changes")
		})
	}
}

// TestWatchStreamingList checks the streaming list (KEP-3157):
// SendInitialEvents with NotOlderThan and bookmarks sends the state as ADDED
// events, then a BOOKMARK of the watched kind, annotated
// k8s.io/initial-events-end: "true", at the revision of that state, then the
// changes after it.
func TestWatchStreamingList(t *testing.T) {
	s, _ := newServer(t)
	a := mustCreate(t, s, pod("default", "a", map[string]string{"app": "web"}))
	b := mustCreate(t, s, pod("default", "b", nil))
	old := rvOf(t, a)
	c := mustCreate(t, s, pod("default", "c", map[string]string{"app": "web"}))
	tests := []struct {
		name, rv, selector string
		want               []*api.Pod
	}{
		{"unset: consistent", "", "", []*api.Pod{a, b, c}},
		{"zero: any", "0", "", []*api.Pod{a, b, c}},
		{"not older than N", rvString(old), "", []*api.Pod{a, b, c}},
		{"a selector", "", "app=web", []*api.Pod{a, c}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			listRV := s.Store().Rev()
			w := mustWatch(t, s, "default", client.ListOptions{
				ResourceVersion: tt.rv, LabelSelector: tt.selector,
				SendInitialEvents: ptr(true), ResourceVersionMatch: client.MatchNotOlderThan, AllowWatchBookmarks: true,
			})
			evs := pollAll(t, w)
			var want []string
			for _, p := range tt.want {
				want = append(want, ev(api.WatchAdded, p))
			}
			want = append(want, "BOOKMARK @"+rvString(listRV))
			require.Equal(t, want, describe(evs))

			end := evs[len(evs)-1].Object
			assert.Equal(t, map[string]string{apiserver.InitialEventsEndAnnotation: "true"}, end.GetObjectMeta().Annotations)
			assert.Equal(t, api.TypeMeta{APIVersion: "v1", Kind: "Pod"}, *end.GetTypeMeta())
			assert.Empty(t, end.GetObjectMeta().Name)

			next := mustCreate(t, s, pod("default", "n-"+rvString(listRV), map[string]string{"app": "web"}))
			assert.Equal(t, []string{ev(api.WatchAdded, next)}, describe(pollAll(t, w)), "then the changes")
			mustDelete(t, s, "default", next.Metadata.Name)
			pollAll(t, w)
		})
	}
}

// TestWatchOptionsFailValidationAsInvalid checks Kubernetes' rules for a
// watch's resourceVersionMatch and sendInitialEvents (ValidateListOptions,
// validateWatchOptions): each breach is a 422 Invalid on ListOptions.
func TestWatchOptionsFailValidationAsInvalid(t *testing.T) {
	s, _ := newServer(t)
	tests := []struct {
		name string
		opts client.ListOptions
	}{
		{"sendInitialEvents without a match", client.ListOptions{SendInitialEvents: ptr(true), AllowWatchBookmarks: true}},
		{"sendInitialEvents false without a match", client.ListOptions{SendInitialEvents: ptr(false), AllowWatchBookmarks: true}},
		{"sendInitialEvents with Exact", client.ListOptions{SendInitialEvents: ptr(true), ResourceVersion: "1", ResourceVersionMatch: client.MatchExact, AllowWatchBookmarks: true}},
		{"NotOlderThan without sendInitialEvents", client.ListOptions{ResourceVersionMatch: client.MatchNotOlderThan, AllowWatchBookmarks: true}},
		{"Exact without sendInitialEvents", client.ListOptions{ResourceVersion: "1", ResourceVersionMatch: client.MatchExact}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Watch(ctx, client.Pods, "default", tt.opts)
			st := requireStatus(t, err, http.StatusUnprocessableEntity, api.StatusReasonInvalid)
			require.NotNil(t, st.Details)
			assert.Equal(t, "ListOptions", st.Details.Kind)
			require.NotEmpty(t, st.Details.Causes)
			assert.Equal(t, "resourceVersionMatch", st.Details.Causes[0].Field)
		})
	}
}

// TestWatchWithoutInitialEventsFromZeroStartsNow checks sendInitialEvents
// false with resourceVersion "0": no synthetic events and, as kube-apiserver's
// watch cache does (getAllEventsSinceLocked with resourceVersion 0), a start
// from about now. It must neither replay history nor fail with 410 because
// history was compacted.
func TestWatchWithoutInitialEventsFromZeroStartsNow(t *testing.T) {
	tests := []struct {
		name, rv  string
		compacted bool
	}{
		{"unset", "", false},
		{"unset, history compacted", "", true},
		{"zero", "0", false},
		{"zero, history compacted", "0", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newServer(t)
			a := mustCreate(t, s, pod("default", "a", nil))
			mustRelabel(t, s, a, map[string]string{"v": "2"})
			if tt.compacted {
				require.NoError(t, s.Compact(s.Store().Rev()))
			}
			w, err := s.Watch(ctx, client.Pods, "default", client.ListOptions{
				ResourceVersion: tt.rv, SendInitialEvents: ptr(false), ResourceVersionMatch: client.MatchNotOlderThan, AllowWatchBookmarks: true,
			})
			require.NoError(t, err)
			defer w.Stop()
			assert.Empty(t, describe(pollAll(t, w)), "no synthetic events, no history")
			b := mustCreate(t, s, pod("default", "b", nil))
			assert.Equal(t, []string{ev(api.WatchAdded, b)}, describe(pollAll(t, w)))
		})
	}
}

// TestWatchSelectorTransitions checks how a watch with a selector sees an
// object move in and out of it: moving in is ADDED, moving out is DELETED
// with the object as it was (still matching) but the resourceVersion of the
// update that moved it out, staying in is MODIFIED, staying out is nothing,
// and a delete is DELETED at the deletion's revision.
func TestWatchSelectorTransitions(t *testing.T) {
	s, _ := newServer(t)
	w := mustWatch(t, s, "default", client.ListOptions{ResourceVersion: rvString(s.Store().Rev()), LabelSelector: "app=web"})
	x := mustCreate(t, s, pod("default", "x", map[string]string{"app": "db"}))
	require.Empty(t, pollAll(t, w), "created outside the selector")

	steps := []struct {
		name   string
		labels map[string]string // nil: delete the pod
		want   func(prev, cur *api.Pod, rev int64) []string
	}{
		{"moves in", map[string]string{"app": "web"}, func(_, cur *api.Pod, _ int64) []string {
			return []string{ev(api.WatchAdded, cur)}
		}},
		{"stays in", map[string]string{"app": "web", "tier": "front"}, func(_, cur *api.Pod, _ int64) []string {
			return []string{ev(api.WatchModified, cur)}
		}},
		{"moves out", map[string]string{"app": "db"}, func(_, _ *api.Pod, rev int64) []string {
			return []string{fmt.Sprintf("DELETED default/x@%d", rev)}
		}},
		{"stays out", map[string]string{"app": "db", "tier": "back"}, func(_, _ *api.Pod, _ int64) []string {
			return nil
		}},
		{"moves in again", map[string]string{"app": "web"}, func(_, cur *api.Pod, _ int64) []string {
			return []string{ev(api.WatchAdded, cur)}
		}},
		{"is deleted", nil, func(_, _ *api.Pod, rev int64) []string {
			return []string{fmt.Sprintf("DELETED default/x@%d", rev)}
		}},
	}
	type received struct {
		obj api.Object
		rv  string
	}
	var seen []received
	for _, step := range steps {
		prev := x
		if step.labels == nil {
			mustDelete(t, s, "default", "x")
		} else {
			x = mustRelabel(t, s, x, step.labels)
		}
		rev := s.Store().Rev()
		evs := pollAll(t, w)
		require.Equal(t, step.want(prev, x, rev), describe(evs), step.name)
		for _, e := range evs {
			if e.Type == api.WatchDeleted {
				assert.Equal(t, prev.Metadata.Labels, e.Object.GetObjectMeta().Labels,
					"%s: a DELETED event carries the last state the watcher could see", step.name)
			}
			seen = append(seen, received{e.Object, e.Object.GetObjectMeta().ResourceVersion})
		}
	}
	for _, r := range seen {
		assert.Equal(t, r.rv, r.obj.GetObjectMeta().ResourceVersion,
			"an event's object never changes after it was handed out (stamping a DELETED event's resourceVersion copies)")
	}
}

// TestWatchDeleteCarriesTheDeletionRevision checks that a DELETED event
// carries the object's last state with the resourceVersion of the deletion,
// so that a client resuming from it does not see the delete again.
func TestWatchDeleteCarriesTheDeletionRevision(t *testing.T) {
	s, _ := newServer(t)
	a := mustCreate(t, s, pod("default", "a", map[string]string{"app": "web"}))
	w := mustWatch(t, s, "default", client.ListOptions{ResourceVersion: rvString(rvOf(t, a))})
	mustDelete(t, s, "default", "a")
	deletedAt := s.Store().Rev()

	evs := pollAll(t, w)
	require.Len(t, evs, 1)
	assert.Equal(t, api.WatchDeleted, evs[0].Type)
	got := evs[0].Object.(*api.Pod)
	assert.Equal(t, rvString(deletedAt), got.Metadata.ResourceVersion)
	assert.Greater(t, deletedAt, rvOf(t, a))
	assert.Equal(t, a.Metadata.UID, got.Metadata.UID)
	assert.Equal(t, a.Metadata.Labels, got.Metadata.Labels)
	assert.Equal(t, rvString(rvOf(t, a)), a.Metadata.ResourceVersion, "the stored object was not changed")

	resumed := mustWatch(t, s, "default", client.ListOptions{ResourceVersion: got.Metadata.ResourceVersion})
	assert.Empty(t, pollAll(t, resumed), "resuming after the delete does not see it again")
}

// TestWatchFieldSelectorOnNodeName checks a kubelet's watch: pods with
// spec.nodeName=node-1 appear when bound to node-1 and not before, status
// changes are MODIFIED, and pods bound elsewhere never appear.
func TestWatchFieldSelectorOnNodeName(t *testing.T) {
	s, _ := newServer(t)
	w := mustWatch(t, s, "", client.ListOptions{ResourceVersion: rvString(s.Store().Rev()), FieldSelector: "spec.nodeName=node-1"})
	mustCreate(t, s, pod("default", "p", nil))
	mustCreate(t, s, pod("default", "q", nil))

	steps := []struct {
		name string
		do   func() api.Object
		want func(obj api.Object) []string
	}{
		{"unbound pods are not seen", func() api.Object { return nil }, func(api.Object) []string { return nil }},
		{"binding to the node adds", func() api.Object {
			p, err := s.Bind(ctx, "default", "p", "node-1")
			require.NoError(t, err)
			return p
		}, func(obj api.Object) []string { return []string{ev(api.WatchAdded, obj)} }},
		{"binding elsewhere is not seen", func() api.Object {
			_, err := s.Bind(ctx, "default", "q", "node-2")
			require.NoError(t, err)
			return nil
		}, func(api.Object) []string { return nil }},
		{"a status change modifies", func() api.Object {
			cur, err := s.Get(ctx, client.Pods, "default", "p", client.GetOptions{})
			require.NoError(t, err)
			next := cur.(*api.Pod).DeepCopy()
			next.Status.Phase = api.PodRunning
			got, err := s.UpdateStatus(ctx, next)
			require.NoError(t, err)
			return got
		}, func(obj api.Object) []string { return []string{ev(api.WatchModified, obj)} }},
		{"a delete deletes", func() api.Object {
			mustDelete(t, s, "default", "p")
			return nil
		}, func(api.Object) []string { return []string{fmt.Sprintf("DELETED default/p@%d", s.Store().Rev())} }},
	}
	for _, step := range steps {
		obj := step.do()
		assert.Equal(t, step.want(obj), describe(pollAll(t, w)), step.name)
	}
}

// TestWatchRejectsBadSelectors checks that a watch with a malformed
// selector or an unsupported field is a 400, as a list is.
func TestWatchRejectsBadSelectors(t *testing.T) {
	s, _ := newServer(t)
	tests := []struct {
		name, labels, fields string
	}{
		{"unsupported field", "", "spec.foo=bar"},
		{"malformed field selector", "", "spec.nodeName"},
		{"malformed label selector", "app in (web", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Watch(ctx, client.Pods, "default", client.ListOptions{LabelSelector: tt.labels, FieldSelector: tt.fields})
			requireStatus(t, err, http.StatusBadRequest, api.StatusReasonBadRequest)
		})
	}
}

// TestWatchFromCompactedRevisionIsExpired checks that a watch that would
// need events older than the compaction fails at once with 410 Expired,
// while one whose next event is still kept starts.
func TestWatchFromCompactedRevisionIsExpired(t *testing.T) {
	s, _ := newServer(t)
	var revs []int64
	for i := range 5 {
		revs = append(revs, rvOf(t, mustCreate(t, s, pod("default", fmt.Sprintf("p%d", i), nil))))
	}
	compactAt := revs[3]
	require.NoError(t, s.Compact(compactAt))
	tests := []struct {
		name    string
		from    int64
		expired bool
		want    []string
	}{
		{"two before the compaction", compactAt - 2, true, nil},
		{"long before", 1, true, nil},
		{"just before: its next event is kept", compactAt - 1, false, []string{"ADDED default/p3@" + rvString(revs[3]), "ADDED default/p4@" + rvString(revs[4])}},
		{"at the compaction", compactAt, false, []string{"ADDED default/p4@" + rvString(revs[4])}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := s.Watch(ctx, client.Pods, "default", client.ListOptions{ResourceVersion: rvString(tt.from)})
			if tt.expired {
				st := requireStatus(t, err, http.StatusGone, api.StatusReasonExpired)
				assert.True(t, apierrors.IsGone(err))
				assert.Contains(t, st.Message, "too old resource version")
				return
			}
			require.NoError(t, err)
			defer w.Stop()
			assert.Equal(t, tt.want, describe(pollAll(t, w)))
		})
	}
}

// TestWatchThatFallsBehindIsExpired checks that a watcher that does not
// poll while more writes happen than the history window holds is ended with
// one ERROR event carrying 410 Expired, and then reports ErrWatchClosed.
func TestWatchThatFallsBehindIsExpired(t *testing.T) {
	s, err := apiserver.New(apiserver.Config{Clock: clock.NewFake(epoch), Rand: rand.New(rand.NewPCG(1, 2)), HistoryLimit: 10})
	require.NoError(t, err)
	w := mustWatch(t, s, "default", client.ListOptions{ResourceVersion: rvString(s.Store().Rev())})
	for i := range 20 {
		mustCreate(t, s, pod("default", fmt.Sprintf("p%02d", i), nil))
	}
	assert.True(t, isClosed(w.Ready()), "the watcher has something to say")

	evs, err := w.Poll(nil, 0)
	require.NoError(t, err)
	require.Equal(t, []string{"ERROR 410 Expired"}, describe(evs))
	assert.Nil(t, evs[0].Object)
	assert.Contains(t, evs[0].Status.Message, "too old resource version")

	_, err = w.Poll(nil, 0)
	assert.ErrorIs(t, err, client.ErrWatchClosed)
	assert.True(t, isClosed(w.Ready()), "an ended watch is always ready")
}

// TestWatchStop checks that Stop ends a watch: Poll then returns
// ErrWatchClosed, even with events pending, and Stop may be called again.
func TestWatchStop(t *testing.T) {
	tests := []struct {
		name string
		rv   string // "" has initial events pending at Stop
	}{
		{"with initial events pending", ""},
		{"with live events pending", "1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newServer(t)
			mustCreate(t, s, pod("default", "a", nil))
			w, err := s.Watch(ctx, client.Pods, "default", client.ListOptions{ResourceVersion: tt.rv})
			require.NoError(t, err)
			w.Stop()
			_, err = w.Poll(nil, 0)
			assert.ErrorIs(t, err, client.ErrWatchClosed)
			assert.NotPanics(t, w.Stop)
			_, err = w.Poll(nil, 0)
			assert.ErrorIs(t, err, client.ErrWatchClosed)
			assert.True(t, isClosed(w.Ready()))
		})
	}
}

// TestWatchBookmarks checks periodic bookmarks: with AllowWatchBookmarks, a
// Poll after DefaultBookmarkInterval that finds the store has moved on
// (here through writes the watch does not see) returns one BOOKMARK of the
// watched kind at that revision, and only once per interval; without
// AllowWatchBookmarks there is none.
func TestWatchBookmarks(t *testing.T) {
	for _, allow := range []bool{true, false} {
		t.Run(fmt.Sprintf("allowWatchBookmarks=%v", allow), func(t *testing.T) {
			s, clk := newServer(t)
			w := mustWatch(t, s, "default", client.ListOptions{ResourceVersion: rvString(s.Store().Rev()), AllowWatchBookmarks: allow})
			bookmark := func(rev int64) []string {
				if !allow {
					return nil
				}
				return []string{"BOOKMARK @" + rvString(rev)}
			}
			other := func(i int) int64 { // a write outside the watch
				mustNamespace(t, s, fmt.Sprintf("ns-%d", i))
				return s.Store().Rev()
			}

			clk.Step(apiserver.DefaultBookmarkInterval)
			assert.Empty(t, pollAll(t, w), "no progress, no bookmark")

			rev := other(1)
			evs := pollAll(t, w)
			require.Equal(t, bookmark(rev), describe(evs), "progress after the interval")
			if allow {
				assert.Equal(t, api.TypeMeta{APIVersion: "v1", Kind: "Pod"}, *evs[0].Object.GetTypeMeta())
				assert.Empty(t, evs[0].Object.GetObjectMeta().Name)
				assert.Empty(t, evs[0].Object.GetObjectMeta().Annotations, "a periodic bookmark is not the initial-events end")
			}

			other(2)
			clk.Step(apiserver.DefaultBookmarkInterval - 1)
			assert.Empty(t, pollAll(t, w), "progress before the next interval")

			clk.Step(1)
			rev = other(3)
			a := mustCreate(t, s, pod("default", "a", nil))
			rev = max(rev, rvOf(t, a))
			want := append([]string{ev(api.WatchAdded, a)}, bookmark(rev)...)
			assert.Equal(t, want, describe(pollAll(t, w)), "an event, then the bookmark at or after it")
		})
	}
}

// TestWatchBookmarkReportsProgressPolledBeforeTheInterval checks that
// progress a filtered watch consumed silently (writes it does not see,
// polled before the bookmark interval ended) is still reported by a
// bookmark once the interval has passed: telling a watcher with a selector
// how far it has got is what bookmarks are for (KEP-956), and kube-apiserver
// sends them on time, not only when a write happens to arrive after it.
func TestWatchBookmarkReportsProgressPolledBeforeTheInterval(t *testing.T) {
	s, clk := newServer(t)
	w := mustWatch(t, s, "default", client.ListOptions{ResourceVersion: rvString(s.Store().Rev()), LabelSelector: "app=web", AllowWatchBookmarks: true})
	mustCreate(t, s, pod("default", "db", map[string]string{"app": "db"}))
	rev := s.Store().Rev()
	require.Empty(t, pollAll(t, w), "filtered out, before the interval")

	clk.Step(apiserver.DefaultBookmarkInterval)
	assert.Equal(t, []string{"BOOKMARK @" + rvString(rev)}, describe(pollAll(t, w)))
}

// TestWatchReady checks the Ready contract: closed while initial events are
// pending, open once the watch has caught up, closed again after a write.
func TestWatchReady(t *testing.T) {
	s, _ := newServer(t)
	mustCreate(t, s, pod("default", "a", nil))
	w := mustWatch(t, s, "default", client.ListOptions{})
	steps := []struct {
		name  string
		do    func()
		ready bool
	}{
		{"initial events pending", func() {}, true},
		{"caught up", func() { require.Len(t, pollAll(t, w), 1) }, false},
		{"after a write", func() { mustCreate(t, s, pod("default", "b", nil)) }, true},
		{"caught up again", func() { require.Len(t, pollAll(t, w), 1) }, false},
		{"after a delete", func() { mustDelete(t, s, "default", "a") }, true},
	}
	for _, step := range steps {
		step.do()
		assert.Equal(t, step.ready, isClosed(w.Ready()), step.name)
	}
	// A channel handed out before a write is closed by it.
	pollAll(t, w)
	ready := w.Ready()
	require.False(t, isClosed(ready))
	mustCreate(t, s, pod("default", "c", nil))
	assert.True(t, isClosed(ready), "the channel taken while waiting is closed by the write")
}

// TestWatchResumeHasNoGapsOrDuplicates checks the reflector's contract: a
// client that remembers the resourceVersion of the last event (or bookmark)
// it received, and re-watches from it after each disconnect, sees exactly
// the events of one uninterrupted watch — none twice, none missing — over a
// random sequence of creates, relabels, binds and deletes.
func TestWatchResumeHasNoGapsOrDuplicates(t *testing.T) {
	tests := []struct {
		name, namespace, labels, fields string
		bookmarks                       bool
	}{
		{"everything", "", "", "", false},
		{"one namespace", "a", "", "", false},
		{"a label selector", "", "color=red", "", false},
		{"a field selector with bookmarks", "", "", "spec.nodeName=node-1", true},
		{"namespace, labels and bookmarks", "b", "color!=blue", "", true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(42, uint64(i)))
			s, clk := newServer(t)
			mustNamespace(t, s, "a")
			mustNamespace(t, s, "b")
			opts := client.ListOptions{ResourceVersion: rvString(s.Store().Rev()), LabelSelector: tt.labels, FieldSelector: tt.fields, AllowWatchBookmarks: tt.bookmarks}
			ref := mustWatch(t, s, tt.namespace, opts)

			cl := mustWatch(t, s, tt.namespace, opts)
			last := opts.ResourceVersion
			var got []string
			receive := func(limit int) {
				evs, err := cl.Poll(nil, limit)
				require.NoError(t, err)
				for _, e := range evs {
					last = e.Object.GetObjectMeta().ResourceVersion
					if e.Type != api.WatchBookmark {
						got = append(got, describe([]client.WatchEvent{e})...)
					}
				}
			}
			reconnects := 0
			for step := range 400 {
				randomWrite(t, s, rng, step)
				if rng.IntN(4) == 0 {
					clk.Step(apiserver.DefaultBookmarkInterval / 2)
				}
				switch rng.IntN(6) {
				case 0:
					receive(1 + rng.IntN(3))
				case 1:
					receive(0)
				case 2:
					cl.Stop()
					reconnects++
					resumed := opts
					resumed.ResourceVersion = last
					cl = mustWatch(t, s, tt.namespace, resumed)
				}
			}
			receive(0)
			var want []string
			for _, e := range pollAll(t, ref) {
				if e.Type != api.WatchBookmark {
					want = append(want, describe([]client.WatchEvent{e})...)
				}
			}
			require.NotEmpty(t, want)
			assert.Positive(t, reconnects)
			assert.Equal(t, want, got)
		})
	}
}

// randomWrite makes one random change to the pods of namespaces a and b:
// a create, a relabel, a bind or a delete.
func randomWrite(t *testing.T, s *apiserver.Server, rng *rand.Rand, step int) {
	t.Helper()
	ns := []string{"a", "b"}[rng.IntN(2)]
	name := fmt.Sprintf("p%d", rng.IntN(8))
	color := []string{"red", "blue", "green"}[rng.IntN(3)]
	cur, err := s.Get(ctx, client.Pods, ns, name, client.GetOptions{})
	if apierrors.IsNotFound(err) {
		mustCreate(t, s, pod(ns, name, map[string]string{"color": color}))
		return
	}
	require.NoError(t, err)
	p := cur.(*api.Pod)
	switch rng.IntN(4) {
	case 0, 1:
		mustRelabel(t, s, p, map[string]string{"color": color, "step": fmt.Sprint(step)})
	case 2:
		if p.Spec.NodeName == "" {
			_, err := s.Bind(ctx, ns, name, []string{"node-1", "node-2"}[rng.IntN(2)])
			require.NoError(t, err)
			return
		}
		mustDelete(t, s, ns, name)
	case 3:
		mustDelete(t, s, ns, name)
	}
}

// TestWatchPollLimit checks that Poll hands out at most limit events at a
// time, in order, and that what it holds back comes with the next Poll.
func TestWatchPollLimit(t *testing.T) {
	s, _ := newServer(t)
	w := mustWatch(t, s, "default", client.ListOptions{ResourceVersion: rvString(s.Store().Rev())})
	var want []string
	for i := range 5 {
		want = append(want, ev(api.WatchAdded, mustCreate(t, s, pod("default", fmt.Sprintf("p%d", i), nil))))
	}
	var got []client.WatchEvent
	for range 3 {
		evs, err := w.Poll(nil, 2)
		require.NoError(t, err)
		assert.LessOrEqual(t, len(evs), 2)
		got = append(got, evs...)
	}
	assert.Equal(t, want, describe(got))
}
