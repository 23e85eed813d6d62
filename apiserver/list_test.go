package apiserver_test

// Black-box tests of List: Kubernetes' resourceVersion rules (the table in
// api-concepts, "Semantics for get and list"), selectors, namespace scoping
// and paging with continue tokens. The expected values come from
// Kubernetes, not from this server's code: where the two differ the test
// fails and says which Kubernetes rule it holds the server to.

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/client/record"
)

// mustCreate creates obj and returns what the server stored.
func mustCreate[T api.Object](t testing.TB, s *apiserver.Server, obj T) T {
	t.Helper()
	got, err := s.Create(ctx, obj)
	require.NoError(t, err)
	return got.(T)
}

// mustRelabel replaces the labels of a stored pod (conditionally on its
// resourceVersion) and returns the new version.
func mustRelabel(t testing.TB, s *apiserver.Server, p *api.Pod, labels map[string]string) *api.Pod {
	t.Helper()
	next := p.DeepCopy()
	next.Metadata.Labels = labels
	got, err := s.Update(ctx, next)
	require.NoError(t, err)
	return got.(*api.Pod)
}

// mustDelete deletes a pod at once.
func mustDelete(t testing.TB, s *apiserver.Server, ns, name string) {
	t.Helper()
	_, err := s.Delete(ctx, client.Pods, ns, name, api.DeleteOptions{GracePeriodSeconds: ptr(int64(0))})
	require.NoError(t, err)
}

// mustNamespace creates a namespace.
func mustNamespace(t testing.TB, s *apiserver.Server, name string) {
	t.Helper()
	mustCreate(t, s, &api.Namespace{Metadata: api.ObjectMeta{Name: name}})
}

// rvOf returns an object's resourceVersion as a number.
func rvOf(t testing.TB, obj api.Object) int64 {
	t.Helper()
	rv, err := strconv.ParseInt(obj.GetObjectMeta().ResourceVersion, 10, 64)
	require.NoError(t, err, "resourceVersion %q", obj.GetObjectMeta().ResourceVersion)
	return rv
}

// rvString formats a revision as a resourceVersion.
func rvString(rev int64) string { return strconv.FormatInt(rev, 10) }

// versions renders objects as "namespace/name@resourceVersion", the identity
// of one version of one object, in the order given.
func versions(objs []api.Object) []string {
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		m := o.GetObjectMeta()
		out = append(out, api.KeyOf(m)+"@"+m.ResourceVersion)
	}
	return out
}

// version renders one object as versions does.
func version(obj api.Object) string { return versions([]api.Object{obj})[0] }

// keys renders objects as "namespace/name", in the order given.
func keys(objs []api.Object) []string {
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		out = append(out, api.KeyOf(o.GetObjectMeta()))
	}
	return out
}

// requireStatus checks that err is an API error with the HTTP code and
// reason given, and returns its Status.
func requireStatus(t testing.TB, err error, code int32, reason api.StatusReason) api.Status {
	t.Helper()
	require.Error(t, err)
	st := apierrors.StatusOf(err)
	require.Equal(t, code, st.Code, "status code of %v", err)
	require.Equal(t, reason, st.Reason, "reason of %v", err)
	return st
}

// listHistory is a small history with one of every kind of change, and the
// versions a list sees at each point of it.
type listHistory struct {
	s *apiserver.Server
	// at is the revision after a, b and c were created and a relabelled;
	// after it, a is relabelled again, b deleted and d created.
	at, latest int64
	// atVersions and latestVersions are the pods of "default" at those
	// revisions, in key order.
	atVersions, latestVersions []string
}

func newListHistory(t *testing.T) listHistory {
	t.Helper()
	s, _ := newServer(t)
	a := mustCreate(t, s, pod("default", "a", map[string]string{"v": "1"}))
	b := mustCreate(t, s, pod("default", "b", nil))
	c := mustCreate(t, s, pod("default", "c", nil))
	a = mustRelabel(t, s, a, map[string]string{"v": "2"})
	h := listHistory{s: s, at: rvOf(t, a)}
	h.atVersions = []string{version(a), version(b), version(c)}

	a = mustRelabel(t, s, a, map[string]string{"v": "3"})
	mustDelete(t, s, "default", "b")
	d := mustCreate(t, s, pod("default", "d", nil))
	h.latest = rvOf(t, d)
	require.Equal(t, h.latest, s.Store().Rev())
	h.latestVersions = []string{version(a), version(c), version(d)}
	return h
}

// TestListResourceVersionSemantics checks each row of Kubernetes' table for
// list: "" and "0" read the latest state, "N" alone is "not older than N"
// (so the latest), Exact N reads the state at N, and a Limit with "N" and no
// match reads exactly N (the legacy paging rule), while "0" ignores Limit.
func TestListResourceVersionSemantics(t *testing.T) {
	h := newListHistory(t)
	tests := []struct {
		name   string
		opts   client.ListOptions
		want   func(listHistory) []string
		wantRV func(listHistory) int64
	}{
		{"unset is the latest", client.ListOptions{},
			func(h listHistory) []string { return h.latestVersions }, func(h listHistory) int64 { return h.latest }},
		{"0 is any, here the latest", client.ListOptions{ResourceVersion: "0"},
			func(h listHistory) []string { return h.latestVersions }, func(h listHistory) int64 { return h.latest }},
		{"N alone is not older than N", client.ListOptions{ResourceVersion: rvString(h.at)},
			func(h listHistory) []string { return h.latestVersions }, func(h listHistory) int64 { return h.latest }},
		{"N NotOlderThan", client.ListOptions{ResourceVersion: rvString(h.at), ResourceVersionMatch: client.MatchNotOlderThan},
			func(h listHistory) []string { return h.latestVersions }, func(h listHistory) int64 { return h.latest }},
		{"0 NotOlderThan is any", client.ListOptions{ResourceVersion: "0", ResourceVersionMatch: client.MatchNotOlderThan},
			func(h listHistory) []string { return h.latestVersions }, func(h listHistory) int64 { return h.latest }},
		{"current N alone", client.ListOptions{ResourceVersion: rvString(h.latest)},
			func(h listHistory) []string { return h.latestVersions }, func(h listHistory) int64 { return h.latest }},
		{"N Exact reads the past", client.ListOptions{ResourceVersion: rvString(h.at), ResourceVersionMatch: client.MatchExact},
			func(h listHistory) []string { return h.atVersions }, func(h listHistory) int64 { return h.at }},
		{"N with a limit is exact (legacy rule)", client.ListOptions{ResourceVersion: rvString(h.at), Limit: 10},
			func(h listHistory) []string { return h.atVersions }, func(h listHistory) int64 { return h.at }},
		{"N Exact with a limit", client.ListOptions{ResourceVersion: rvString(h.at), ResourceVersionMatch: client.MatchExact, Limit: 10},
			func(h listHistory) []string { return h.atVersions }, func(h listHistory) int64 { return h.at }},
		{"N NotOlderThan with a limit is the latest", client.ListOptions{ResourceVersion: rvString(h.at), ResourceVersionMatch: client.MatchNotOlderThan, Limit: 10},
			func(h listHistory) []string { return h.latestVersions }, func(h listHistory) int64 { return h.latest }},
		{"0 ignores the limit", client.ListOptions{ResourceVersion: "0", Limit: 1},
			func(h listHistory) []string { return h.latestVersions }, func(h listHistory) int64 { return h.latest }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := h.s.List(ctx, client.Pods, "default", tt.opts)
			require.NoError(t, err)
			assert.Equal(t, tt.want(h), versions(l.Items))
			assert.Equal(t, rvString(tt.wantRV(h)), l.Metadata.ResourceVersion, "the list's resourceVersion")
			assert.Empty(t, l.Metadata.Continue, "every item fits: no continue token")
		})
	}
}

// TestListExactShowsObjectsAsTheyWere checks that a list at an exact past
// revision shows every object as it was then: an object updated since with
// its old labels and resourceVersion, one deleted since still there, one
// created since absent.
func TestListExactShowsObjectsAsTheyWere(t *testing.T) {
	h := newListHistory(t)
	l, err := h.s.List(ctx, client.Pods, "", client.ListOptions{ResourceVersion: rvString(h.at), ResourceVersionMatch: client.MatchExact})
	require.NoError(t, err)
	require.Equal(t, []string{"default/a", "default/b", "default/c"}, keys(l.Items))
	assert.Equal(t, map[string]string{"v": "2"}, l.Items[0].GetObjectMeta().Labels, "a as relabelled before N, not after")
	for _, obj := range l.Items {
		assert.LessOrEqual(t, rvOf(t, obj), h.at, "no item of a list at N was written after N")
	}
}

// TestListFutureResourceVersionTimesOut checks that asking for a revision
// the server has not reached fails with 504 Timeout and the cause
// ResourceVersionTooLarge, whatever the match, as kube-apiserver answers
// once its cache has waited in vain.
func TestListFutureResourceVersionTimesOut(t *testing.T) {
	s, _ := newServer(t)
	mustCreate(t, s, pod("default", "a", nil))
	future := rvString(s.Store().Rev() + 10)
	tests := []struct {
		name string
		opts client.ListOptions
	}{
		{"not older than, implied", client.ListOptions{ResourceVersion: future}},
		{"NotOlderThan", client.ListOptions{ResourceVersion: future, ResourceVersionMatch: client.MatchNotOlderThan}},
		{"Exact", client.ListOptions{ResourceVersion: future, ResourceVersionMatch: client.MatchExact}},
		{"legacy exact with a limit", client.ListOptions{ResourceVersion: future, Limit: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.List(ctx, client.Pods, "default", tt.opts)
			st := requireStatus(t, err, http.StatusGatewayTimeout, api.StatusReasonTimeout)
			assert.True(t, apierrors.IsTimeout(err))
			require.NotNil(t, st.Details)
			require.Len(t, st.Details.Causes, 1)
			assert.Equal(t, api.CauseTypeResourceVersionTooLarge, st.Details.Causes[0].Type)
		})
	}
	t.Run("get", func(t *testing.T) {
		_, err := s.Get(ctx, client.Pods, "default", "a", client.GetOptions{ResourceVersion: future})
		st := requireStatus(t, err, http.StatusGatewayTimeout, api.StatusReasonTimeout)
		require.NotNil(t, st.Details)
		require.Len(t, st.Details.Causes, 1)
		assert.Equal(t, api.CauseTypeResourceVersionTooLarge, st.Details.Causes[0].Type)
	})
}

// TestListAtCompactedRevisionIsExpired checks that an exact read before the
// compaction revision fails with 410 Expired "too old resource version: N
// (M)", that the compaction revision itself is still readable, and that
// "not older than" an old revision is still served (from the latest state).
func TestListAtCompactedRevisionIsExpired(t *testing.T) {
	s, _ := newServer(t)
	var created []*api.Pod
	for i := range 5 {
		created = append(created, mustCreate(t, s, pod("default", fmt.Sprintf("p%d", i), nil)))
	}
	compactAt := rvOf(t, created[3])
	require.NoError(t, s.Compact(compactAt))
	old := compactAt - 1

	expired := []struct {
		name string
		opts client.ListOptions
	}{
		{"Exact", client.ListOptions{ResourceVersion: rvString(old), ResourceVersionMatch: client.MatchExact}},
		{"legacy exact with a limit", client.ListOptions{ResourceVersion: rvString(old), Limit: 2}},
	}
	for _, tt := range expired {
		t.Run(tt.name+" before the compaction is expired", func(t *testing.T) {
			_, err := s.List(ctx, client.Pods, "default", tt.opts)
			st := requireStatus(t, err, http.StatusGone, api.StatusReasonExpired)
			assert.True(t, apierrors.IsGone(err))
			assert.Equal(t, fmt.Sprintf("too old resource version: %d (%d)", old, compactAt), st.Message)
		})
	}
	t.Run("Exact at the compaction revision is readable", func(t *testing.T) {
		l, err := s.List(ctx, client.Pods, "default", client.ListOptions{ResourceVersion: rvString(compactAt), ResourceVersionMatch: client.MatchExact})
		require.NoError(t, err)
		assert.Equal(t, []string{"default/p0", "default/p1", "default/p2", "default/p3"}, keys(l.Items))
	})
	t.Run("not older than a compacted revision is the latest", func(t *testing.T) {
		l, err := s.List(ctx, client.Pods, "default", client.ListOptions{ResourceVersion: rvString(old), ResourceVersionMatch: client.MatchNotOlderThan})
		require.NoError(t, err)
		assert.Len(t, l.Items, 5)
		assert.Equal(t, rvString(s.Store().Rev()), l.Metadata.ResourceVersion)
	})
}

// TestListRejectsBadRequests checks the requests kube-apiserver refuses
// with 400 Bad Request: a resourceVersion with a continue token, and a
// resourceVersion that is not a number.
func TestListRejectsBadRequests(t *testing.T) {
	s, _ := newServer(t)
	for i := range 3 {
		mustCreate(t, s, pod("default", fmt.Sprintf("p%d", i), nil))
	}
	first, err := s.List(ctx, client.Pods, "default", client.ListOptions{Limit: 1})
	require.NoError(t, err)
	require.NotEmpty(t, first.Metadata.Continue)
	tests := []struct {
		name    string
		opts    client.ListOptions
		message string
	}{
		{"continue with a resourceVersion", client.ListOptions{Continue: first.Metadata.Continue, ResourceVersion: first.Metadata.ResourceVersion},
			"specifying resource version is not allowed when using continue"},
		{"resourceVersion not a number", client.ListOptions{ResourceVersion: "abc"}, "abc"},
		{"resourceVersion negative", client.ListOptions{ResourceVersion: "-1"}, "-1"},
		{"resourceVersion not a number, Exact", client.ListOptions{ResourceVersion: "12x", ResourceVersionMatch: client.MatchExact}, "12x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.List(ctx, client.Pods, "default", tt.opts)
			st := requireStatus(t, err, http.StatusBadRequest, api.StatusReasonBadRequest)
			assert.Contains(t, st.Message, tt.message)
		})
	}
}

// TestListOptionsFailValidationAsInvalid checks the resourceVersionMatch
// rules of Kubernetes' ValidateListOptions
// (apimachinery pkg/apis/meta/internalversion/validation). kube-apiserver's
// list handler (apiserver pkg/endpoints/handlers/get.go, ListResource)
// turns their field errors into 422 Invalid on kind ListOptions of group
// meta.k8s.io, as this server already does for the watch rules.
func TestListOptionsFailValidationAsInvalid(t *testing.T) {
	s, _ := newServer(t)
	for i := range 3 {
		mustCreate(t, s, pod("default", fmt.Sprintf("p%d", i), nil))
	}
	first, err := s.List(ctx, client.Pods, "default", client.ListOptions{Limit: 1})
	require.NoError(t, err)
	tests := []struct {
		name    string
		opts    client.ListOptions
		message string
	}{
		{"match without a resourceVersion", client.ListOptions{ResourceVersionMatch: client.MatchExact},
			"resourceVersionMatch is forbidden unless resourceVersion is provided"},
		{"NotOlderThan without a resourceVersion", client.ListOptions{ResourceVersionMatch: client.MatchNotOlderThan},
			"resourceVersionMatch is forbidden unless resourceVersion is provided"},
		{"match with continue", client.ListOptions{Continue: first.Metadata.Continue, ResourceVersion: "0", ResourceVersionMatch: client.MatchNotOlderThan},
			"resourceVersionMatch is forbidden when continue is provided"},
		{"Exact with 0", client.ListOptions{ResourceVersion: "0", ResourceVersionMatch: client.MatchExact},
			`resourceVersionMatch "exact" is forbidden for resourceVersion "0"`},
		{"unknown match", client.ListOptions{ResourceVersion: "5", ResourceVersionMatch: "Latest"},
			`Unsupported value: "Latest"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.List(ctx, client.Pods, "default", tt.opts)
			st := requireStatus(t, err, http.StatusUnprocessableEntity, api.StatusReasonInvalid)
			assert.Contains(t, st.Message, tt.message)
			require.NotNil(t, st.Details)
			assert.Equal(t, "ListOptions", st.Details.Kind)
			assert.Equal(t, "meta.k8s.io", st.Details.Group)
			require.NotEmpty(t, st.Details.Causes)
			assert.Equal(t, "resourceVersionMatch", st.Details.Causes[0].Field)
		})
	}
}

// TestListContinueWithResourceVersionZero checks that a continue token may
// come with resourceVersion "0", which Kubernetes ignores (etcd3 store
// ValidateListOptions/ListReadConsistency: only a resourceVersion other than
// "" and "0" is refused with continue); the page continues the first list.
func TestListContinueWithResourceVersionZero(t *testing.T) {
	s, _ := newServer(t)
	for i := range 3 {
		mustCreate(t, s, pod("default", fmt.Sprintf("p%d", i), nil))
	}
	first, err := s.List(ctx, client.Pods, "default", client.ListOptions{Limit: 2})
	require.NoError(t, err)
	require.NotEmpty(t, first.Metadata.Continue)
	next, err := s.List(ctx, client.Pods, "default", client.ListOptions{Limit: 2, Continue: first.Metadata.Continue, ResourceVersion: "0"})
	require.NoError(t, err)
	assert.Equal(t, []string{"default/p2"}, keys(next.Items))
	assert.Equal(t, first.Metadata.ResourceVersion, next.Metadata.ResourceVersion)
}

// TestListLabelSelectors checks every operator of the label selector
// language, including that != and notin match objects without the key.
func TestListLabelSelectors(t *testing.T) {
	s, _ := newServer(t)
	mustCreate(t, s, pod("default", "p1", map[string]string{"app": "web", "tier": "front", "size": "3"}))
	mustCreate(t, s, pod("default", "p2", map[string]string{"app": "web", "tier": "back", "size": "10"}))
	mustCreate(t, s, pod("default", "p3", map[string]string{"app": "db", "size": "7"}))
	mustCreate(t, s, pod("default", "p4", nil))
	tests := []struct {
		name, selector string
		want           []string
	}{
		{"empty matches all", "", []string{"p1", "p2", "p3", "p4"}},
		{"equals", "app=web", []string{"p1", "p2"}},
		{"double equals", "app==web", []string{"p1", "p2"}},
		{"not equals matches a missing key", "app!=web", []string{"p3", "p4"}},
		{"in", "tier in (front,back)", []string{"p1", "p2"}},
		{"notin matches a missing key", "tier notin (front)", []string{"p2", "p3", "p4"}},
		{"exists", "tier", []string{"p1", "p2"}},
		{"does not exist", "!tier", []string{"p3", "p4"}},
		{"greater than", "size>5", []string{"p2", "p3"}},
		{"less than", "size<5", []string{"p1"}},
		{"conjunction", "app=web,tier=back", []string{"p2"}},
		{"conjunction of set and existence", "app in (web,db),!tier", []string{"p3"}},
		{"no match", "app=cache", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := s.List(ctx, client.Pods, "default", client.ListOptions{LabelSelector: tt.selector})
			require.NoError(t, err)
			var want []string
			for _, n := range tt.want {
				want = append(want, "default/"+n)
			}
			assert.Equal(t, want, nilIfEmpty(keys(l.Items)))
		})
	}
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

// TestListFieldSelectors checks the field selectors every kind supports
// (metadata.name, metadata.namespace) and the per-kind ones: a pod's
// spec.nodeName (set by binding) and status.phase (set through the status
// subresource), an event's involvedObject.name.
func TestListFieldSelectors(t *testing.T) {
	s, clk := newServer(t)
	mustNamespace(t, s, "other")
	a := mustCreate(t, s, pod("default", "a", map[string]string{"app": "web"}))
	mustCreate(t, s, pod("default", "b", map[string]string{"app": "web"}))
	mustCreate(t, s, pod("default", "c", nil))
	mustCreate(t, s, pod("other", "d", nil))
	_, err := s.Bind(ctx, "default", "a", "node-1")
	require.NoError(t, err)
	_, err = s.Bind(ctx, "default", "b", "node-2")
	require.NoError(t, err)
	cur, err := s.Get(ctx, client.Pods, "default", "a", client.GetOptions{})
	require.NoError(t, err)
	running := cur.(*api.Pod).DeepCopy()
	running.Status.Phase = api.PodRunning
	_, err = s.UpdateStatus(ctx, running)
	require.NoError(t, err)

	rec := record.NewEventRecorder(s, clk, "test", "host")
	require.NoError(t, rec.Eventf(ctx, a, api.EventTypeNormal, "Scheduled", "assigned to node-1"))
	c, err := s.Get(ctx, client.Pods, "default", "c", client.GetOptions{})
	require.NoError(t, err)
	require.NoError(t, rec.Eventf(ctx, c, api.EventTypeWarning, "FailedScheduling", "no nodes"))

	tests := []struct {
		name, resource, namespace, labels, fields string
		want                                      []string
	}{
		{"name", client.Pods, "", "", "metadata.name=a", []string{"default/a"}},
		{"name double equals", client.Pods, "", "", "metadata.name==a", []string{"default/a"}},
		{"name not equals", client.Pods, "", "", "metadata.name!=a", []string{"default/b", "default/c", "other/d"}},
		{"namespace", client.Pods, "", "", "metadata.namespace=other", []string{"other/d"}},
		{"namespace not equals", client.Pods, "", "", "metadata.namespace!=other", []string{"default/a", "default/b", "default/c"}},
		{"node name", client.Pods, "", "", "spec.nodeName=node-1", []string{"default/a"}},
		{"unbound", client.Pods, "", "", "spec.nodeName=", []string{"default/c", "other/d"}},
		{"bound", client.Pods, "", "", "spec.nodeName!=", []string{"default/a", "default/b"}},
		{"phase", client.Pods, "", "", "status.phase=Running", []string{"default/a"}},
		{"node and phase", client.Pods, "", "", "spec.nodeName=node-2,status.phase!=Running", []string{"default/b"}},
		{"field and label", client.Pods, "default", "app=web", "status.phase!=Running", []string{"default/b"}},
		{"field in a namespace", client.Pods, "other", "", "metadata.name=a", nil},
		{"event's involved object", client.Events, "default", "", "involvedObject.name=a", []string{"a"}},
		{"event's involved object and reason", client.Events, "", "", "involvedObject.name=c,reason=FailedScheduling", []string{"c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := s.List(ctx, tt.resource, tt.namespace, client.ListOptions{LabelSelector: tt.labels, FieldSelector: tt.fields})
			require.NoError(t, err)
			got := keys(l.Items)
			if tt.resource == client.Events {
				got = got[:0]
				for _, obj := range l.Items {
					got = append(got, obj.(*api.Event).InvolvedObject.Name)
				}
			}
			assert.Equal(t, tt.want, nilIfEmpty(got))
		})
	}
}

// TestListRejectsBadSelectors checks that a malformed selector, or a field
// the kind does not support, is a 400 Bad Request.
func TestListRejectsBadSelectors(t *testing.T) {
	s, _ := newServer(t)
	tests := []struct {
		name, resource, labels, fields, message string
	}{
		{"unsupported pod field", client.Pods, "", "spec.foo=bar", "field label not supported: spec.foo"},
		{"pod field on events", client.Events, "", "spec.nodeName=node-1", "field label not supported: spec.nodeName"},
		{"field without an operator", client.Pods, "", "metadata.name", "metadata.name"},
		{"field with a set operator", client.Pods, "", "metadata.name in (a)", ""},
		{"unclosed label set", client.Pods, "app in (web", "", ""},
		{"bad label key", client.Pods, "-app=web", "", ""},
		{"dangling label operator", client.Pods, "app=web,", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.List(ctx, tt.resource, "default", client.ListOptions{LabelSelector: tt.labels, FieldSelector: tt.fields})
			st := requireStatus(t, err, http.StatusBadRequest, api.StatusReasonBadRequest)
			assert.Contains(t, st.Message, tt.message)
		})
	}
}

// TestListNamespaceScoping checks that a list in a namespace holds only
// that namespace's objects (not those of a namespace whose name it
// prefixes), and a list in "" holds all of them, in namespace/name order.
func TestListNamespaceScoping(t *testing.T) {
	s, _ := newServer(t)
	mustNamespace(t, s, "team")
	mustNamespace(t, s, "team-b")
	for _, key := range [][2]string{{"team-b", "x"}, {"default", "y"}, {"team", "z"}, {"team", "a"}} {
		mustCreate(t, s, pod(key[0], key[1], nil))
	}
	tests := []struct {
		name, namespace string
		want            []string
	}{
		// Key order: "team-b/" sorts before "team/" ('-' < '/').
		{"all namespaces", "", []string{"default/y", "team-b/x", "team/a", "team/z"}},
		{"one namespace", "team", []string{"team/a", "team/z"}},
		{"a namespace another's name starts with", "team-b", []string{"team-b/x"}},
		{"default", "default", []string{"default/y"}},
		{"a namespace that does not exist", "nowhere", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := s.List(ctx, client.Pods, tt.namespace, client.ListOptions{})
			require.NoError(t, err)
			assert.Equal(t, tt.want, nilIfEmpty(keys(l.Items)))
		})
	}
}

// pageAll lists with opts page by page until no continue token is left,
// calling between after every page but the last. It returns the pages.
func pageAll(t *testing.T, s *apiserver.Server, namespace string, opts client.ListOptions, between func()) []*client.List {
	t.Helper()
	var pages []*client.List
	for {
		l, err := s.List(ctx, client.Pods, namespace, opts)
		require.NoError(t, err)
		pages = append(pages, l)
		if l.Metadata.Continue == "" {
			return pages
		}
		require.Less(t, len(pages), 1000, "paging does not end")
		opts.Continue = l.Metadata.Continue
		if between != nil {
			between()
		}
	}
}

// TestListPagingIsConsistentAcrossWrites checks that the pages of a list,
// concatenated, are exactly one list at the first page's revision, however
// many creates, updates and deletes (before and after the cursor) happen
// between pages: every page is read at that revision.
func TestListPagingIsConsistentAcrossWrites(t *testing.T) {
	tests := []struct {
		name, namespace, selector string
		limit                     int64
	}{
		{"one item a page", "", "", 1},
		{"seven a page", "", "", 7},
		{"seven a page in one namespace", "b", "", 7},
		{"a selector", "", "color=red", 4},
		{"one page", "", "", 500},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, uint64(i)))
			s, _ := newServer(t)
			mustNamespace(t, s, "a")
			mustNamespace(t, s, "b")
			colors := []string{"red", "blue"}
			var live []string // keys of live pods, "ns/name"
			created := 0
			create := func() {
				ns := []string{"a", "b"}[rng.IntN(2)]
				name := fmt.Sprintf("p%03d", rng.IntN(1000))
				_, err := s.Create(ctx, pod(ns, name, map[string]string{"color": colors[rng.IntN(2)]}))
				if apierrors.IsAlreadyExists(err) {
					return // the name is taken: skip this create
				}
				require.NoError(t, err)
				live = append(live, ns+"/"+name)
				created++
			}
			for range 60 {
				create()
			}
			opts := client.ListOptions{LabelSelector: tt.selector, Limit: tt.limit}
			want, err := s.List(ctx, client.Pods, tt.namespace, client.ListOptions{LabelSelector: tt.selector})
			require.NoError(t, err)

			writes := 0
			pages := pageAll(t, s, tt.namespace, opts, func() {
				for range 3 {
					writes++
					k := rng.IntN(len(live))
					ns, name, _ := api.SplitKey(live[k])
					switch rng.IntN(3) {
					case 0:
						create()
					case 1:
						cur, err := s.Get(ctx, client.Pods, ns, name, client.GetOptions{})
						require.NoError(t, err)
						mustRelabel(t, s, cur.(*api.Pod), map[string]string{"color": colors[rng.IntN(2)], "w": strconv.Itoa(writes)})
					case 2:
						mustDelete(t, s, ns, name)
						live = slices.Delete(live, k, k+1)
					}
				}
			})
			var got []api.Object
			for i, p := range pages {
				assert.Equal(t, want.Metadata.ResourceVersion, p.Metadata.ResourceVersion, "page %d is read at the first page's revision", i)
				assert.LessOrEqual(t, int64(len(p.Items)), tt.limit, "page %d", i)
				got = append(got, p.Items...)
			}
			assert.Equal(t, versions(want.Items), versions(got))
			if len(pages) > 1 {
				assert.Positive(t, writes, "writes happened between pages")
			}

			exact, err := s.List(ctx, client.Pods, tt.namespace, client.ListOptions{
				LabelSelector: tt.selector, ResourceVersion: want.Metadata.ResourceVersion, ResourceVersionMatch: client.MatchExact,
			})
			require.NoError(t, err)
			assert.Equal(t, versions(exact.Items), versions(got), "the pages equal an exact list at their revision")
		})
	}
}

// TestListPagingWithSelectorFillsPages checks that with a selector that
// filters most objects, every page but the last is still full (the server
// reads on until it has Limit matches), and that no continue token comes
// back once the store has no more keys to read.
func TestListPagingWithSelectorFillsPages(t *testing.T) {
	tests := []struct {
		name    string
		total   int
		matches func(i int) bool // which pod-i match the selector
		limit   int64
		pages   []int // sizes of the pages
	}{
		{"one in ten, uneven pages", 200, func(i int) bool { return i%10 == 0 }, 3, []int{3, 3, 3, 3, 3, 3, 2}},
		{"one in ten, even pages", 200, func(i int) bool { return i%10 == 9 }, 5, []int{5, 5, 5, 5}},
		{"the last few only", 100, func(i int) bool { return i >= 96 }, 2, []int{2, 2}},
		{"the first few only", 100, func(i int) bool { return i < 3 }, 2, []int{2, 1}},
		{"none", 50, func(int) bool { return false }, 4, []int{0}},
		{"one past many misses", 100, func(i int) bool { return i == 50 }, 1, []int{1, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newServer(t)
			var want []string
			for i := range tt.total {
				labels := map[string]string{"sel": "no"}
				if tt.matches(i) {
					labels["sel"] = "yes"
					want = append(want, fmt.Sprintf("default/pod-%03d", i))
				}
				mustCreate(t, s, pod("default", fmt.Sprintf("pod-%03d", i), labels))
			}
			pages := pageAll(t, s, "default", client.ListOptions{LabelSelector: "sel=yes", Limit: tt.limit}, nil)
			var sizes []int
			var got []string
			for _, p := range pages {
				sizes = append(sizes, len(p.Items))
				got = append(got, keys(p.Items)...)
			}
			assert.Equal(t, tt.pages, sizes)
			assert.Equal(t, want, nilIfEmpty(got))
		})
	}
}

// TestListContinueAfterCompactionIsExpired checks that a continue token
// whose revision has been compacted fails with 410 Expired, and that the
// Status carries a fresh token which continues after the same key at the
// latest revision (Kubernetes' inconsistent continuation, rv -1).
func TestListContinueAfterCompactionIsExpired(t *testing.T) {
	s, _ := newServer(t)
	for i := range 6 {
		mustCreate(t, s, pod("default", fmt.Sprintf("p%d", i), nil))
	}
	first, err := s.List(ctx, client.Pods, "default", client.ListOptions{Limit: 3})
	require.NoError(t, err)
	require.Equal(t, []string{"default/p0", "default/p1", "default/p2"}, keys(first.Items))
	require.NotEmpty(t, first.Metadata.Continue)

	// Changes before and after the cursor (p2).
	mustCreate(t, s, pod("default", "p00", nil)) // before: not in the rest
	cur, err := s.Get(ctx, client.Pods, "default", "p4", client.GetOptions{})
	require.NoError(t, err)
	p4 := mustRelabel(t, s, cur.(*api.Pod), map[string]string{"changed": "yes"})
	mustDelete(t, s, "default", "p5")
	p9 := mustCreate(t, s, pod("default", "p9", nil))
	require.NoError(t, s.Compact(s.Store().Rev()))

	_, err = s.List(ctx, client.Pods, "default", client.ListOptions{Limit: 3, Continue: first.Metadata.Continue})
	st := requireStatus(t, err, http.StatusGone, api.StatusReasonExpired)
	require.NotEmpty(t, st.Metadata.Continue, "the 410 carries a token to continue inconsistently")

	rest, err := s.List(ctx, client.Pods, "default", client.ListOptions{Limit: 3, Continue: st.Metadata.Continue})
	require.NoError(t, err)
	p3, err := s.Get(ctx, client.Pods, "default", "p3", client.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{version(p3), version(p4), version(p9)}, versions(rest.Items), "the rest as it is now")
	assert.Equal(t, rvString(s.Store().Rev()), rest.Metadata.ResourceVersion, "read at the latest revision")
	assert.Empty(t, rest.Metadata.Continue)
}

// continueToken builds a continue token the way kube-apiserver encodes one
// (storage/continue.go): base64url of {"v","rv","start"}.
func continueToken(json string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(json))
}

// TestListRejectsBadContinueTokens checks that a continue token that is not
// one the server issued, or is malformed, is a 400 Bad Request.
func TestListRejectsBadContinueTokens(t *testing.T) {
	s, _ := newServer(t)
	for i := range 3 {
		mustCreate(t, s, pod("default", fmt.Sprintf("p%d", i), nil))
	}
	rv := s.Store().Rev()
	tests := []struct {
		name, token string
	}{
		{"not base64", "!!not-base64!!"},
		{"not JSON", continueToken("hello")},
		{"unknown version", continueToken(fmt.Sprintf(`{"v":"meta.k8s.io/v2","rv":%d,"start":"p0\u0000"}`, rv))},
		{"no version", continueToken(fmt.Sprintf(`{"rv":%d,"start":"p0\u0000"}`, rv))},
		{"start key without its NUL", continueToken(fmt.Sprintf(`{"v":"meta.k8s.io/v1","rv":%d,"start":"p0"}`, rv))},
		{"empty start key", continueToken(fmt.Sprintf(`{"v":"meta.k8s.io/v1","rv":%d,"start":"\u0000"}`, rv))},
		{"start key escaping the prefix", continueToken(fmt.Sprintf(`{"v":"meta.k8s.io/v1","rv":%d,"start":"../kube-system/x\u0000"}`, rv))},
		{"absolute start key", continueToken(fmt.Sprintf(`{"v":"meta.k8s.io/v1","rv":%d,"start":"/registry/pods/x\u0000"}`, rv))},
		{"resourceVersion zero", continueToken(`{"v":"meta.k8s.io/v1","rv":0,"start":"p0\u0000"}`)},
		{"resourceVersion below -1", continueToken(`{"v":"meta.k8s.io/v1","rv":-5,"start":"p0\u0000"}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.List(ctx, client.Pods, "default", client.ListOptions{Limit: 1, Continue: tt.token})
			st := requireStatus(t, err, http.StatusBadRequest, api.StatusReasonBadRequest)
			assert.Contains(t, st.Message, "continue")
		})
	}
	t.Run("a well-formed token continues", func(t *testing.T) {
		l, err := s.List(ctx, client.Pods, "default", client.ListOptions{
			Continue: continueToken(fmt.Sprintf(`{"v":"meta.k8s.io/v1","rv":%d,"start":"p0\u0000"}`, rv)),
		})
		require.NoError(t, err)
		assert.Equal(t, []string{"default/p1", "default/p2"}, keys(l.Items))
	})
}

// TestUnknownResourceIsNotFound checks that every read of a resource the
// server does not serve is a 404.
func TestUnknownResourceIsNotFound(t *testing.T) {
	s, _ := newServer(t)
	tests := []struct {
		name string
		call func() error
	}{
		{"list", func() error { _, err := s.List(ctx, "widgets", "default", client.ListOptions{}); return err }},
		{"watch", func() error { _, err := s.Watch(ctx, "widgets", "default", client.ListOptions{}); return err }},
		{"get", func() error {
			_, err := s.Get(ctx, "widgets", "default", "w", client.GetOptions{})
			return err
		}},
		{"delete", func() error {
			_, err := s.Delete(ctx, "widgets", "default", "w", api.DeleteOptions{})
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			requireStatus(t, tt.call(), http.StatusNotFound, api.StatusReasonNotFound)
		})
	}
}

// TestListRemainingItemCount: each page of a list without selectors says
// how many objects remain after it, counted at the list's revision (an
// object created meanwhile does not count), as the conformance test "API
// chunking should return chunks of results" checks; a list with a
// selector, whose count would mean reading every match, says nothing.
func TestListRemainingItemCount(t *testing.T) {
	s, _ := newServer(t)
	for i := range 7 {
		mustCreate(t, s, pod("default", fmt.Sprintf("p%d", i), map[string]string{"app": "web"}))
	}
	var remaining []int64
	opts := client.ListOptions{Limit: 3}
	for {
		page, err := s.List(ctx, client.Pods, "default", opts)
		require.NoError(t, err)
		if page.Metadata.Continue == "" {
			assert.Nil(t, page.Metadata.RemainingItemCount, "the last page")
			break
		}
		require.NotNil(t, page.Metadata.RemainingItemCount)
		remaining = append(remaining, *page.Metadata.RemainingItemCount)
		if len(remaining) == 1 {
			mustCreate(t, s, pod("default", "p9", nil)) // after the list's revision
		}
		opts.Continue = page.Metadata.Continue
	}
	assert.Equal(t, []int64{4, 1}, remaining)

	page, err := s.List(ctx, client.Pods, "default", client.ListOptions{Limit: 3, LabelSelector: "app=web"})
	require.NoError(t, err)
	require.NotEmpty(t, page.Metadata.Continue)
	assert.Nil(t, page.Metadata.RemainingItemCount, "with a selector")
}
