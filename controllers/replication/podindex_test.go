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
	plainOwner := api.OwnerReference{APIVersion: "v1", Kind: controllerKind, Name: "web", UID: web.Metadata.UID, Controller: &no}
	foreign := api.OwnerReference{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "ss", UID: "ss-uid"}
	h.createPod("a-orphan", map[string]string{"app": "web"})
	h.createPod("b-own", map[string]string{"app": "web"}, controllerRef(web))
	h.createPod("c-other", map[string]string{"app": "web"}, controllerRef(other))
	h.createPod("d-unlabelled-orphan", nil)
	h.createPod("e-plain-owner", map[string]string{"app": "web"}, plainOwner)
	h.createPod("f-own-mismatch", map[string]string{"app": "db"}, foreign, controllerRef(web))
	h.createPod("g-finished", map[string]string{"app": "web"}, controllerRef(web))
	finished, err := h.pods.Get(h.ctx, "default", "g-finished")
	require.NoError(t, err)
	finished = finished.DeepCopy()
	finished.Status.Phase = api.PodSucceeded
	_, err = h.pods.UpdateStatus(h.ctx, finished)
	require.NoError(t, err)
	h.syncInformers()

	got, err := h.c.claimablePods(web)
	require.NoError(t, err)
	assert.Equal(t, []string{"a-orphan", "b-own", "d-unlabelled-orphan", "e-plain-owner", "f-own-mismatch"}, names(got))

	// The indexes follow ownership changes.
	p, err := h.pods.Get(h.ctx, "default", "a-orphan")
	require.NoError(t, err)
	p = p.DeepCopy()
	p.Metadata.OwnerReferences = []api.OwnerReference{controllerRef(other)}
	_, err = h.pods.Update(h.ctx, p)
	require.NoError(t, err)
	h.syncInformers()
	got, err = h.c.claimablePods(web)
	require.NoError(t, err)
	assert.Equal(t, []string{"b-own", "d-unlabelled-orphan", "e-plain-owner", "f-own-mismatch"}, names(got))
	got, err = h.c.claimablePods(other)
	require.NoError(t, err)
	assert.Equal(t, []string{"a-orphan", "c-other", "d-unlabelled-orphan", "e-plain-owner"}, names(got))
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
	}{
		{"both empty", nil, nil, []string{}},
		{"interleaved", []*api.Pod{pod("a", ""), pod("c", "")}, []*api.Pod{pod("b", ""), pod("d", "")}, []string{"a", "b", "c", "d"}},
		{"one side", nil, []*api.Pod{pod("a", ""), pod("b", "")}, []string{"a", "b"}},
		{"the other side", []*api.Pod{pod("a", ""), pod("b", "")}, nil, []string{"a", "b"}},
		{"in both, kept once", []*api.Pod{pod("a", ""), pod("b", "")}, []*api.Pod{pod("b", ""), pod("c", "")}, []string{"a", "b", "c"}},
		{"inactive dropped", []*api.Pod{pod("a", api.PodFailed)}, []*api.Pod{pod("b", api.PodSucceeded), pod("c", api.PodRunning)}, []string{"c"}},
		{"inactive dropped from one side", []*api.Pod{pod("a", api.PodFailed), pod("b", ""), pod("c", api.PodSucceeded)}, nil, []string{"b"}},
		{"another namespace's pod naming the UID dropped",
			[]*api.Pod{podIn("a-ns", "z", ""), pod("b", ""), podIn("z-ns", "a", "")}, []*api.Pod{pod("a", ""), pod("c", "")}, []string{"a", "b", "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, names(mergeActive(tt.a, tt.b, "default")))
		})
	}
}
