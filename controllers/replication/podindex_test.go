package replication

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/informer"
)

// TestClaimablePods checks that the indexes give a sync what listing the
// whole namespace did, minus other controllers' pods, which claiming
// leaves alone: the same pods, in the same order.
func TestClaimablePods(t *testing.T) {
	h := newHarness(t, 0, false)
	web := h.createRC("web", 0)
	other := h.createRC("other", 0)
	no := false
	plainOwner := api.OwnerReference{APIVersion: "v1", Kind: "ReplicationController", Name: "web", UID: web.Metadata.UID, Controller: &no}
	foreign := api.OwnerReference{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "ss", UID: "ss-uid"}
	h.createPod("a-orphan", map[string]string{"app": "web"})
	h.createPod("b-own", map[string]string{"app": "web"}, rcKind().controllerRef(&web.Metadata))
	h.createPod("c-other", map[string]string{"app": "web"}, rcKind().controllerRef(&other.Metadata))
	h.createPod("d-unlabelled-orphan", nil)
	h.createPod("e-plain-owner", map[string]string{"app": "web"}, plainOwner)
	h.createPod("f-own-mismatch", map[string]string{"app": "db"}, foreign, rcKind().controllerRef(&web.Metadata))
	h.createPod("g-finished", map[string]string{"app": "web"}, rcKind().controllerRef(&web.Metadata))
	finished, err := h.pods.Get(h.ctx, "default", "g-finished")
	require.NoError(t, err)
	finished = finished.DeepCopy()
	finished.Status.Phase = api.PodSucceeded
	_, err = h.pods.UpdateStatus(h.ctx, finished)
	require.NoError(t, err)
	h.syncInformers()

	s := new(scratch)
	got, allOwned, err := h.c.claimablePods(&web.Metadata, s)
	require.NoError(t, err)
	assert.Equal(t, []string{"a-orphan", "b-own", "d-unlabelled-orphan", "e-plain-owner", "f-own-mismatch"}, names(got))
	assert.False(t, allOwned, "orphans are among them")
	s.reset()

	// The indexes follow ownership changes.
	p, err := h.pods.Get(h.ctx, "default", "a-orphan")
	require.NoError(t, err)
	p = p.DeepCopy()
	p.Metadata.OwnerReferences = []api.OwnerReference{rcKind().controllerRef(&other.Metadata)}
	_, err = h.pods.Update(h.ctx, p)
	require.NoError(t, err)
	h.syncInformers()
	got, _, err = h.c.claimablePods(&web.Metadata, s)
	require.NoError(t, err)
	assert.Equal(t, []string{"b-own", "d-unlabelled-orphan", "e-plain-owner", "f-own-mismatch"}, names(got))
	s.reset()
	got, _, err = h.c.claimablePods(&other.Metadata, s)
	require.NoError(t, err)
	assert.Equal(t, []string{"a-orphan", "c-other", "d-unlabelled-orphan", "e-plain-owner"}, names(got))
	s.reset()
	assert.Empty(t, s.own[:cap(s.own)][0], "a reset scratch keeps no pod")
}

// TestClaimablePodsAllOwned checks that claimablePods says every pod is
// rc's own exactly when no orphan was read with them.
func TestClaimablePodsAllOwned(t *testing.T) {
	h := newHarness(t, 0, false)
	web := h.createRC("web", 0)
	other := h.createRC("other", 0)
	h.createPod("a", map[string]string{"app": "web"}, rcKind().controllerRef(&web.Metadata))
	h.createPod("b", map[string]string{"app": "web"}, rcKind().controllerRef(&other.Metadata))
	h.syncInformers()
	s := new(scratch)
	got, allOwned, err := h.c.claimablePods(&web.Metadata, s)
	require.NoError(t, err)
	assert.Equal(t, []string{"a"}, names(got))
	assert.True(t, allOwned)
	s.reset()

	h.createPod("c-orphan", map[string]string{"app": "web"})
	h.syncInformers()
	got, allOwned, err = h.c.claimablePods(&web.Metadata, s)
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "c-orphan"}, names(got))
	assert.False(t, allOwned)
}

// TestNewSharesPodIndexes checks that controllers built on one factory
// share the pod informer's indexes instead of failing on the second.
func TestNewSharesPodIndexes(t *testing.T) {
	clk := clock.NewFake(t0)
	srv, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(1, 2))})
	require.NoError(t, err)
	factory := informer.NewFactory(srv, "", clk, nil)
	for range 2 {
		_, err := New(Config{Client: srv, Factory: factory, Clock: clk})
		require.NoError(t, err)
	}
}

func TestMergeActive(t *testing.T) {
	podIn := func(ns, name string, phase api.PodPhase) *api.Pod {
		return &api.Pod{Metadata: api.ObjectMeta{Namespace: ns, Name: name}, Status: api.PodStatus{Phase: phase}}
	}
	pod := func(name string, phase api.PodPhase) *api.Pod { return podIn("default", name, phase) }
	tests := []struct {
		name string
		a, b []*api.Pod
		want []string
		// merges: both lists keep pods, so the result is a merge into
		// the caller's buffer.
		merges bool
	}{
		{"both empty", nil, nil, []string{}, false},
		{"interleaved", []*api.Pod{pod("a", ""), pod("c", "")}, []*api.Pod{pod("b", ""), pod("d", "")}, []string{"a", "b", "c", "d"}, true},
		{"one side", nil, []*api.Pod{pod("a", ""), pod("b", "")}, []string{"a", "b"}, false},
		{"the other side", []*api.Pod{pod("a", ""), pod("b", "")}, nil, []string{"a", "b"}, false},
		{"in both, kept once", []*api.Pod{pod("a", ""), pod("b", "")}, []*api.Pod{pod("b", ""), pod("c", "")}, []string{"a", "b", "c"}, true},
		{"inactive dropped", []*api.Pod{pod("a", api.PodFailed)}, []*api.Pod{pod("b", api.PodSucceeded), pod("c", api.PodRunning)}, []string{"c"}, false},
		{"inactive dropped from one side", []*api.Pod{pod("a", api.PodFailed), pod("b", ""), pod("c", api.PodSucceeded)}, nil, []string{"b"}, false},
		{"another namespace's pod naming the UID dropped",
			[]*api.Pod{podIn("a-ns", "z", ""), pod("b", ""), podIn("z-ns", "a", "")}, []*api.Pod{pod("a", ""), pod("c", "")}, []string{"a", "b", "c"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := make([]*api.Pod, 0, 1)
			active, merged := mergeActive(tt.a, tt.b, "default", dst)
			assert.Equal(t, tt.want, names(active))
			if tt.merges {
				assert.Equal(t, active, merged, "a merge is given back as the caller's buffer")
			} else {
				assert.Equal(t, dst, merged, "the buffer is given back as it was")
			}
		})
	}
}

// TestMatchesSet checks matchesSet and matchesPairs against the selector
// they stand for.
func TestMatchesSet(t *testing.T) {
	tests := []struct {
		name        string
		set, labels map[string]string
		want        bool
	}{
		{"empty set matches all", nil, map[string]string{"a": "1"}, true},
		{"empty set, no labels", map[string]string{}, nil, true},
		{"subset", map[string]string{"a": "1"}, map[string]string{"a": "1", "b": "2"}, true},
		{"missing key", map[string]string{"a": "1", "c": "3"}, map[string]string{"a": "1", "b": "2"}, false},
		{"other value", map[string]string{"a": "1"}, map[string]string{"a": "2"}, false},
		{"empty value is a value", map[string]string{"a": ""}, map[string]string{}, false},
		{"empty value matches", map[string]string{"a": ""}, map[string]string{"a": ""}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, matchesSet(tt.set, tt.labels))
			assert.Equal(t, api.SelectorFromSet(tt.set).Matches(tt.labels), matchesSet(tt.set, tt.labels))
			assert.Equal(t, tt.want, api.MatchesLabelPairs(api.AppendLabelPairs(nil, tt.set, ""), tt.labels), "read into pairs")
		})
	}
}
