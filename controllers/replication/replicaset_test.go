package replication

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/informer"
)

// The ReplicaSet front-end, tested with the scenarios of Kubernetes'
// pkg/controller/replicaset/replica_set_test.go that apply here (doc.go
// says which do not, and why), on the real apiserver and informers.

// rsSelector is the test ReplicaSets' selector: matchLabels and every
// operator of matchExpressions.
func rsSelector() *api.LabelSelector {
	return &api.LabelSelector{
		MatchLabels: map[string]string{"app": "web"},
		MatchExpressions: []api.LabelSelectorRequirement{
			{Key: "tier", Operator: api.LabelSelectorOpIn, Values: []string{"front", "edge"}},
			{Key: "track", Operator: api.LabelSelectorOpNotIn, Values: []string{"canary"}},
			{Key: "env", Operator: api.LabelSelectorOpExists},
			{Key: "legacy", Operator: api.LabelSelectorOpDoesNotExist},
		},
	}
}

// Labels the test selector matches, and labels it does not, one per
// requirement.
var (
	rsMatching = map[string]string{"app": "web", "tier": "front", "env": "prod"}
	rsMisses   = map[string]map[string]string{
		"matchLabels":  {"app": "api", "tier": "front", "env": "prod"},
		"In":           {"app": "web", "tier": "back", "env": "prod"},
		"NotIn":        {"app": "web", "tier": "edge", "env": "prod", "track": "canary"},
		"Exists":       {"app": "web", "tier": "front"},
		"DoesNotExist": {"app": "web", "tier": "front", "env": "prod", "legacy": "yes"},
	}
)

func newRSHarness(t testing.TB, burst int, withRecorder bool, mutate ...func(*Config)) *harness {
	t.Helper()
	return newHarnessOf(t, rsKind(), burst, withRecorder, mutate...)
}

func (h *harness) createRS(name string, replicas int32, mutate ...func(*api.ReplicaSet)) *api.ReplicaSet {
	h.t.Helper()
	rs := &api.ReplicaSet{
		Metadata: api.ObjectMeta{Namespace: "default", Name: name},
		Spec: api.ReplicaSetSpec{
			Replicas: &replicas,
			Selector: rsSelector(),
			Template: api.PodTemplateSpec{
				Metadata: api.ObjectMeta{Labels: map[string]string{"app": "web", "tier": "front", "env": "prod"}},
				Spec:     api.PodSpec{Containers: []api.Container{{Name: "web", Image: "nginx"}}},
			},
		},
	}
	for _, m := range mutate {
		m(rs)
	}
	out, err := h.rss.Create(h.ctx, rs)
	require.NoError(h.t, err)
	return out
}

func (h *harness) getRS(name string) *api.ReplicaSet {
	h.t.Helper()
	rs, err := h.rss.Get(h.ctx, "default", name)
	require.NoError(h.t, err)
	return rs
}

// ownedByUID returns the live pods whose controller has uid.
func (h *harness) ownedByUID(uid api.UID) []*api.Pod {
	var out []*api.Pod
	for _, p := range h.livePods() {
		if ref := api.GetControllerOf(&p.Metadata); ref != nil && ref.UID == uid {
			out = append(out, p)
		}
	}
	return out
}

func (h *harness) scaleRS(name string, replicas int32) {
	h.t.Helper()
	_, err := h.srv.UpdateScale(h.ctx, client.ReplicaSets, "default", &api.Scale{
		Metadata: api.ObjectMeta{Name: name, Namespace: "default"},
		Spec:     api.ScaleSpec{Replicas: replicas},
	})
	require.NoError(h.t, err)
}

// rsRef is the controller reference the controller writes for rs.
func rsRef(rs *api.ReplicaSet) api.OwnerReference {
	yes := true
	return api.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs.Metadata.Name, UID: rs.Metadata.UID,
		Controller: &yes, BlockOwnerDeletion: &yes}
}

func TestReplicaSetController(t *testing.T) {
	tests := []struct {
		name     string
		upstream string // the Kubernetes test it ports
		burst    int    // 0: DefaultBurstReplicas
		run      func(t *testing.T, h *harness)
	}{
		{
			name: "creates the missing pods, owned by the ReplicaSet", upstream: "TestSyncReplicaSetCreates",
			run: func(t *testing.T, h *harness) {
				rs := h.createRS("web", 2)
				h.settle()
				owned := h.ownedByUID(rs.Metadata.UID)
				require.Len(t, owned, 2)
				for _, p := range owned {
					assert.Equal(t, []api.OwnerReference{rsRef(rs)}, p.Metadata.OwnerReferences)
					assert.Equal(t, "web-", p.Metadata.GenerateName)
					assert.Equal(t, rs.Spec.Template.Metadata.Labels, p.Metadata.Labels)
				}
				creates := events(t, h.srv, ReasonSuccessfulCreate)
				require.Len(t, creates, 2)
				for _, e := range creates {
					assert.Equal(t, "ReplicaSet", e.InvolvedObject.Kind)
					assert.Equal(t, "apps/v1", e.InvolvedObject.APIVersion)
					assert.Equal(t, "web", e.InvolvedObject.Name)
					assert.Equal(t, "replicaset-controller", e.Source.Component)
				}
			},
		},
		{
			name: "a ReplicaSet with its pods does nothing", upstream: "TestSyncReplicaSetDoesNothing",
			run: func(t *testing.T, h *harness) {
				h.createRS("web", 2)
				h.settle()
				c0, u0, d0, s0 := h.client.counts()
				h.c.Queue().Add("default/web")
				h.settle()
				c1, u1, d1, s1 := h.client.counts()
				assert.Equal(t, [4]int{c0, u0, d0, s0}, [4]int{c1, u1, d1, s1})
			},
		},
		{
			name: "deletes the surplus, with events", upstream: "TestSyncReplicaSetDeletes",
			run: func(t *testing.T, h *harness) {
				rs := h.createRS("web", 3)
				h.settle()
				h.scaleRS("web", 1)
				h.settle()
				assert.Len(t, h.ownedByUID(rs.Metadata.UID), 1)
				assert.Len(t, events(t, h.srv, ReasonSuccessfulDelete), 2)
				got := h.getRS("web")
				assert.Equal(t, int32(1), got.Status.Replicas)
				assert.Equal(t, got.Metadata.Generation, got.Status.ObservedGeneration)
			},
		},
		{
			name: "create failures: slow start stops at the failing batch, ReplicaFailure set", upstream: "TestSyncReplicaSetCreateFailures",
			run: func(t *testing.T, h *harness) {
				h.client.createsAllowed = 10
				h.createRS("web", 100)
				h.syncInformers()
				h.syncOnce()
				creates, _, _, _ := h.client.counts()
				assert.Equal(t, 1+2+4+8, creates, "batches of 1, 2, 4 and 8; the batch of 8 fails and is the last")
				assert.Len(t, h.livePods(), 10)
				cond := GetCondition(h.getRS("web").Status, api.ReplicaSetReplicaFailure)
				require.NotNil(t, cond)
				assert.Equal(t, ReasonFailedCreate, cond.Reason)
				assert.Equal(t, api.ConditionTrue, cond.Status)
				assert.NotEmpty(t, events(t, h.srv, ReasonFailedCreate))
				add, _, _ := h.c.Outstanding("default/web")
				assert.Equal(t, 10, add, "the failed and untried creations are not expected")
			},
		},
		{
			name: "expectations hold creations back, not the status", upstream: "TestSyncReplicaSetDormancy",
			run: func(t *testing.T, h *harness) {
				h.createRS("web", 2)
				h.syncInformers()
				h.syncOnce() // creates 2, expects 2; the cache has seen none
				creates, _, _, statuses := h.client.counts()
				require.Equal(t, 2, creates)
				h.c.Queue().Add("default/web")
				h.syncOnce() // its cache has not seen its status write either
				creates2, _, _, statuses2 := h.client.counts()
				assert.Equal(t, creates, creates2, "no creation while expecting")
				assert.Greater(t, statuses2, statuses, "but the status is written")
				h.settle()
				assert.Len(t, h.livePods(), 2)
				assert.Equal(t, int32(2), h.getRS("web").Status.Replicas)
			},
		},
		{
			name: "bursts of at most burstReplicas, each waiting for its pods", upstream: "TestControllerBurstReplicas", burst: 5,
			run: func(t *testing.T, h *harness) {
				h.createRS("web", 12)
				h.syncInformers()
				for _, want := range []int{5, 10, 12} {
					h.syncOnce()
					creates, _, _, _ := h.client.counts()
					assert.Equal(t, want, creates)
					h.c.Queue().Add("default/web")
					h.syncOnce() // dormant until the cache sees the burst
					again, _, _, _ := h.client.counts()
					assert.Equal(t, want, again)
					h.syncInformers()
				}
				h.scaleRS("web", 0)
				h.syncInformers()
				for _, want := range []int{5, 10, 12} {
					h.syncOnce()
					_, _, deletes, _ := h.client.counts()
					assert.Equal(t, want, deletes)
					h.syncInformers()
				}
				assert.Empty(t, h.livePods())
			},
		},
		{
			name: "adopts orphans its full selector matches, matchExpressions included", upstream: "TestPatchPodFails (its adoptions), ClaimPods",
			run: func(t *testing.T, h *harness) {
				h.createPod("match", rsMatching)
				for what, l := range rsMisses {
					h.createPod("miss-"+strings.ToLower(what), l)
				}
				rs := h.createRS("web", 1)
				h.settle()
				owned := h.ownedByUID(rs.Metadata.UID)
				require.Len(t, owned, 1)
				assert.Equal(t, "match", owned[0].Metadata.Name, "adopted, not created")
				assert.Equal(t, []api.OwnerReference{rsRef(rs)}, owned[0].Metadata.OwnerReferences)
				creates, _, _, _ := h.client.counts()
				assert.Zero(t, creates)
				assert.Len(t, h.livePods(), 1+len(rsMisses), "the misses are left alone")
			},
		},
		{
			name: "releases a pod relabelled out of its selector, and replaces it", upstream: "TestUpdateLabelsRemoveControllerRef",
			run: func(t *testing.T, h *harness) {
				rs := h.createRS("web", 1)
				h.settle()
				p := h.ownedByUID(rs.Metadata.UID)[0].DeepCopy()
				p.Metadata.Labels = rsMisses["NotIn"]
				_, err := h.pods.Update(h.ctx, p)
				require.NoError(t, err)
				h.settle()
				released, err := h.pods.Get(h.ctx, "default", p.Metadata.Name)
				require.NoError(t, err)
				assert.Nil(t, api.GetControllerOf(&released.Metadata), "released")
				owned := h.ownedByUID(rs.Metadata.UID)
				require.Len(t, owned, 1)
				assert.NotEqual(t, p.Metadata.Name, owned[0].Metadata.Name, "replaced")
			},
		},
		{
			name: "another controller's pod is neither adopted nor counted", upstream: "TestDoNotPatchPodWithOtherControlRef",
			run: func(t *testing.T, h *harness) {
				yes := true
				h.createPod("other", rsMatching, api.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "another", UID: "other-uid", Controller: &yes})
				rs := h.createRS("web", 2)
				h.settle()
				assert.Len(t, h.ownedByUID(rs.Metadata.UID), 2)
				creates, updates, _, _ := h.client.counts()
				assert.Equal(t, 2, creates)
				assert.Zero(t, updates)
			},
		},
		{
			name: "failed adoptions fail the sync, which is requeued", upstream: "TestPatchPodFails",
			run: func(t *testing.T, h *harness) {
				h.createPod("o1", rsMatching)
				h.createPod("o2", rsMatching)
				h.createRS("web", 2)
				h.syncInformers()
				h.client.podUpdateErr = apierrors.NewInternalError(assert.AnError)
				h.syncOnce()
				creates, updates, _, _ := h.client.counts()
				assert.Equal(t, 2, updates, "both adoptions tried")
				assert.Zero(t, creates)
				assert.Equal(t, 1, h.c.Queue().NumRequeues("default/web"), "requeued with backoff")
			},
		},
		{
			name: "being deleted: no adoption, no creation", upstream: "TestDoNotAdoptOrCreateIfBeingDeleted",
			run: func(t *testing.T, h *harness) {
				h.createPod("orphan", rsMatching)
				h.createRS("web", 3, func(rs *api.ReplicaSet) { rs.Metadata.Finalizers = []string{"example.com/hold"} })
				_, err := h.rss.Delete(h.ctx, "default", "web", api.DeleteOptions{})
				require.NoError(t, err)
				h.settle()
				creates, updates, _, _ := h.client.counts()
				assert.Zero(t, creates)
				assert.Zero(t, updates)
			},
		},
		{
			name: "deleted since the cache saw it: the recheck aborts the adoption", upstream: "TestDoNotAdoptOrCreateIfBeingDeletedRace",
			run: func(t *testing.T, h *harness) {
				h.createPod("orphan", rsMatching)
				h.createRS("web", 2)
				h.client.getRS = func(rs *api.ReplicaSet) *api.ReplicaSet {
					rs = rs.DeepCopy()
					now := api.NewTime(h.clk.Now())
					rs.Metadata.DeletionTimestamp = &now
					return rs
				}
				h.syncInformers()
				h.syncOnce()
				creates, updates, _, _ := h.client.counts()
				assert.Zero(t, creates)
				assert.Zero(t, updates)
				assert.Equal(t, 1, h.c.Queue().NumRequeues("default/web"), "the sync failed")
			},
		},
		{
			name: "a failed status write is retried once on a fresh read, then requeued", upstream: "TestControllerUpdateStatusWithFailure, TestControllerUpdateRequeue",
			run: func(t *testing.T, h *harness) {
				rs := h.createRS("web", 1)
				h.settle()
				h.client.getRS = nil
				sf := &statusFailer{faultyClient: h.client, failures: 2}
				h.c.client = sf
				rs = h.getRS("web").DeepCopy()
				rs.Spec.MinReadySeconds = 5 // a new generation: the status must be written
				_, err := h.rss.Update(h.ctx, rs)
				require.NoError(t, err)
				h.syncInformers()
				_, _, _, before := h.client.counts()
				h.syncOnce()
				_, _, _, after := h.client.counts()
				assert.Equal(t, 2, after-before, "one write and one retry")
				assert.Equal(t, 1, sf.gets, "one fresh read between them")
				assert.Equal(t, 1, h.c.Queue().NumRequeues("default/web"))
			},
		},
		{
			name: "status counts replicas, fully labelled, ready and available pods", upstream: "TestReplicaSetStatus (calculateStatus)",
			run: func(t *testing.T, h *harness) {
				h.createPod("partial", map[string]string{"app": "web", "tier": "edge", "env": "dev"})
				rs := h.createRS("web", 3, func(rs *api.ReplicaSet) { rs.Spec.MinReadySeconds = 10 })
				h.settle()
				owned := h.ownedByUID(rs.Metadata.UID)
				require.Len(t, owned, 3)
				names := []string{}
				for _, p := range owned {
					names = append(names, p.Metadata.Name)
				}
				h.runPod(names[0], "n1", true)
				h.runPod(names[1], "n1", true)
				h.runPod(names[2], "n2", false)
				h.settle()
				st := h.getRS("web").Status
				assert.Equal(t, api.ReplicaSetStatus{Replicas: 3, FullyLabeledReplicas: 2, ReadyReplicas: 2, ObservedGeneration: 1}, st)

				h.clk.Step(11 * time.Second) // past minReadySeconds: the requeued sync counts them available
				h.settle()
				assert.Equal(t, int32(2), h.getRS("web").Status.AvailableReplicas)
			},
		},
		{
			name: "all wanted pods ready but not available: look again after minReadySeconds", upstream: "TestReplicaSetController availability requeue (syncReplicaSet's AddAfter)",
			run: func(t *testing.T, h *harness) {
				rs := h.createRS("web", 1, func(rs *api.ReplicaSet) { rs.Spec.MinReadySeconds = 30 })
				h.settle()
				h.runPod(h.ownedByUID(rs.Metadata.UID)[0].Metadata.Name, "n1", true)
				h.settle()
				require.Zero(t, h.getRS("web").Status.AvailableReplicas)
				h.clk.Step(31 * time.Second)
				h.settle()
				assert.Equal(t, int32(1), h.getRS("web").Status.AvailableReplicas)
			},
		},
		{
			name: "pod handlers: an orphan wakes the ReplicaSets of its namespace that select it", upstream: "TestPodControllerLookup",
			run: func(t *testing.T, h *harness) {
				h.createRS("web", 0)
				h.createRS("none", 0, func(rs *api.ReplicaSet) {
					rs.Spec.Selector = &api.LabelSelector{MatchLabels: map[string]string{"app": "none"}}
					rs.Spec.Template.Metadata.Labels = map[string]string{"app": "none"}
				})
				h.settle()
				h.createPod("unlabelled", nil)
				h.syncInformers()
				assert.Empty(t, h.drainQueue(), "a pod without labels matches no ReplicaSet")
				h.createPod("selected", rsMatching)
				h.syncInformers()
				assert.Equal(t, []string{"default/web"}, h.drainQueue())
				h.createPod("missed", rsMisses["DoesNotExist"])
				h.syncInformers()
				assert.Empty(t, h.drainQueue())
			},
		},
		{
			name: "pod handlers: a controlled pod wakes its owner only", upstream: "TestOverlappingRSs, TestUpdatePods",
			run: func(t *testing.T, h *harness) {
				a := h.createRS("a", 1)
				h.createRS("b", 1)
				h.settle()
				h.drainQueue()
				p := h.ownedByUID(a.Metadata.UID)[0].DeepCopy()
				p.Metadata.Annotations = map[string]string{"touched": "yes"}
				_, err := h.pods.Update(h.ctx, p)
				require.NoError(t, err)
				h.syncInformers()
				assert.Equal(t, []string{"default/a"}, h.drainQueue(), "b's selector matches it too")
			},
		},
		{
			name: "a pod deleted gracefully counts as deleted once", upstream: "TestDeletionTimestamp",
			run: func(t *testing.T, h *harness) {
				h.createRS("web", 2)
				h.settle()
				h.scaleRS("web", 1)
				h.syncInformers()
				h.syncOnce()
				_, del, _ := h.c.Outstanding("default/web")
				require.Equal(t, 1, del)
				h.syncInformers() // the deletion, seen as a deletionTimestamp or a delete
				_, del, _ = h.c.Outstanding("default/web")
				assert.Zero(t, del)
			},
		},
		{
			name: "a tombstone enqueues the owner", upstream: "TestDeleteFinalStateUnknown",
			run: func(t *testing.T, h *harness) {
				rs := h.createRS("web", 1)
				h.settle()
				h.drainQueue()
				p := h.ownedByUID(rs.Metadata.UID)[0]
				h.c.deletePod(informer.DeletedFinalStateUnknown{Key: api.KeyOf(&p.Metadata), Obj: p})
				assert.Equal(t, []string{"default/web"}, h.drainQueue())
			},
		},
		{
			name: "deleted and recreated: fresh expectations", upstream: "TestDeleteControllerAndExpectations, TestExpectationsOnRecreate",
			run: func(t *testing.T, h *harness) {
				h.client.createsAllowed = 0 // creations fail: nothing is observed
				h.createRS("web", 1)
				h.syncInformers()
				h.syncOnce()
				h.client.createsAllowed = -1
				_, err := h.rss.Delete(h.ctx, "default", "web", api.DeleteOptions{})
				require.NoError(t, err)
				h.syncInformers()
				_, _, ok := h.c.Outstanding("default/web")
				assert.False(t, ok, "deleting the ReplicaSet forgets its expectations")
				rs := h.createRS("web", 1)
				h.settle()
				assert.Len(t, h.ownedByUID(rs.Metadata.UID), 1, "the new one is not held back by the old one's")
			},
		},
		{
			name: "expectations are read before the pods are listed", upstream: "TestRSSyncExpectations",
			run: func(t *testing.T, h *harness) {
				h.createRS("web", 1)
				h.syncInformers()
				h.c.expectations.afterSatisfied = func() {
					// A pod the sync did not create appears between the
					// check and the list: it must be adopted, not duplicated.
					h.c.expectations.afterSatisfied = nil
					h.createPod("late", rsMatching)
					h.syncInformers()
				}
				h.syncOnce()
				creates, _, _, _ := h.client.counts()
				assert.Zero(t, creates)
			},
		},
		{
			name: "scale-down ranks pods doubled up with the ReplicaSets of the same owner", upstream: "TestGetReplicaSetsWithSameController, TestRelatedPodsLookup, TestGetPodsToDelete",
			run: func(t *testing.T, h *harness) {
				yes := true
				owner := api.OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: "deploy-uid", Controller: &yes}
				sibling := h.createRS("old", 2, func(rs *api.ReplicaSet) {
					rs.Metadata.OwnerReferences = []api.OwnerReference{owner}
					rs.Spec.Selector = &api.LabelSelector{MatchLabels: map[string]string{"app": "web", "hash": "old"}}
					rs.Spec.Template.Metadata.Labels = map[string]string{"app": "web", "hash": "old"}
				})
				rs := h.createRS("new", 2, func(rs *api.ReplicaSet) {
					rs.Metadata.OwnerReferences = []api.OwnerReference{owner}
					rs.Spec.Selector = &api.LabelSelector{MatchLabels: map[string]string{"app": "web", "hash": "new"}}
					rs.Spec.Template.Metadata.Labels = map[string]string{"app": "web", "hash": "new"}
				})
				h.createRS("unrelated", 3, func(rs *api.ReplicaSet) {
					rs.Spec.Selector = &api.LabelSelector{MatchLabels: map[string]string{"app": "api"}}
					rs.Spec.Template.Metadata.Labels = map[string]string{"app": "api"}
				})
				h.settle()
				olds, news := h.ownedByUID(sibling.Metadata.UID), h.ownedByUID(rs.Metadata.UID)
				require.Len(t, news, 2)
				for _, p := range olds {
					h.runPod(p.Metadata.Name, "crowded", true)
				}
				h.runPod(news[0].Metadata.Name, "crowded", true)
				h.runPod(news[1].Metadata.Name, "quiet", true)
				for _, p := range h.livePods() {
					if p.Spec.NodeName == "" {
						h.runPod(p.Metadata.Name, "crowded", true) // the unrelated pods: they must not count
					}
				}
				h.settle()
				v := h.c.kind.view(h.getRS("new"))
				related := h.c.relatedPods(&v)
				assert.Len(t, related, 4, "its own pods and its sibling's, not the unrelated ones")

				h.scaleRS("new", 1)
				h.settle()
				left := h.ownedByUID(rs.Metadata.UID)
				require.Len(t, left, 1)
				assert.Equal(t, news[1].Metadata.Name, left[0].Metadata.Name, "the pod on the node crowded with its siblings goes first")
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Logf("ports Kubernetes' %s", tt.upstream)
			tt.run(t, newRSHarness(t, tt.burst, true))
		})
	}
}

// TestReplicaSetSelectorMatching checks the ReplicaSet view's selector, as
// the pod handlers (matches) and the sync (matcher) read it, against
// api.LabelSelectorAsSelector.
func TestReplicaSetSelectorMatching(t *testing.T) {
	rs := &api.ReplicaSet{Spec: api.ReplicaSetSpec{Selector: rsSelector()}}
	v := rsKind().view(rs)
	want, err := api.LabelSelectorAsSelector(rsSelector())
	require.NoError(t, err)
	cases := map[string]map[string]string{"match": rsMatching, "nil": nil, "empty": {}}
	for what, l := range rsMisses {
		cases["miss "+what] = l
	}
	for name, labels := range cases {
		t.Run(name, func(t *testing.T) {
			m, err := v.matcher(nil)
			require.NoError(t, err)
			assert.Equal(t, want.Matches(labels), v.matches(labels))
			assert.Equal(t, want.Matches(labels), m.matches(labels))
			assert.Equal(t, want.Matches(labels), m.matches(labels), "the remembered answer")
		})
	}
	assert.True(t, v.matches(rsMatching))

	onlyLabels := rsKind().view(&api.ReplicaSet{Spec: api.ReplicaSetSpec{Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}})
	m, err := onlyLabels.matcher(nil)
	require.NoError(t, err)
	assert.Nil(t, m.sel, "matchLabels alone are matched as pairs")
	assert.True(t, m.matches(rsMatching))

	bad := rsKind().view(&api.ReplicaSet{Spec: api.ReplicaSetSpec{Selector: &api.LabelSelector{
		MatchExpressions: []api.LabelSelectorRequirement{{Key: "a", Operator: "Near"}}}}})
	_, err = bad.matcher(nil)
	assert.Error(t, err)
	assert.False(t, bad.matches(rsMatching), "an invalid selector matches nothing")

	none, empty := rsKind().view(&api.ReplicaSet{}), rsKind().view(&api.ReplicaSet{Spec: api.ReplicaSetSpec{Selector: &api.LabelSelector{}}})
	assert.True(t, none.selectsNothing(), "no selector")
	assert.True(t, empty.selectsNothing(), "an empty selector")
}

// TestReplicaSetPodFromTemplate: the pod names its ReplicaSet as apps/v1.
func TestReplicaSetPodFromTemplate(t *testing.T) {
	rs := testRS(1, 0)
	pod, err := ReplicaSetPodFromTemplate(rs)
	require.NoError(t, err)
	assert.Equal(t, []api.OwnerReference{rsRef(rs)}, pod.Metadata.OwnerReferences)
	assert.Equal(t, "web-", pod.Metadata.GenerateName)
	assert.Equal(t, rs.Spec.Template.Metadata.Labels, pod.Metadata.Labels)
	pod.Metadata.Labels["x"] = "y"
	assert.NotContains(t, rs.Spec.Template.Metadata.Labels, "x", "shares nothing")
}

// TestBothFrontEndsOnOneFactory: the replication and replica set
// controllers built on one informer factory share the pod index, and each
// keeps to its own kind: an RC and a ReplicaSet whose selectors both match
// each other's pods own theirs only, and neither adopts the other's.
func TestBothFrontEndsOnOneFactory(t *testing.T) {
	h := newRSHarness(t, 0, false)
	rcs, err := New(h.cfg)
	require.NoError(t, err)
	step := func() bool {
		did := h.syncInformers()
		for rcs.ownerInformer.Reflector().Step(h.ctx) || rcs.ownerInformer.ProcessOne() {
			did = true
		}
		for _, r := range []*informer.Registration{rcs.ownerReg, rcs.podReg} {
			for r.DispatchOne() {
				did = true
			}
		}
		return rcs.ProcessOne(h.ctx) || h.c.ProcessOne(h.ctx) || did
	}
	rc := h.createRC("legacy", 2, func(rc *api.ReplicationController) {
		rc.Spec.Selector = map[string]string{"app": "web"}
		rc.Spec.Template.Metadata.Labels = rsMatching // the ReplicaSet's selector matches them too
	})
	rs := h.createRS("web", 3)
	for step() {
	}
	assert.Len(t, h.ownedByUID(rc.Metadata.UID), 2)
	assert.Len(t, h.ownedByUID(rs.Metadata.UID), 3)
	assert.Len(t, h.livePods(), 5)
	_, updates, _, _ := h.client.counts()
	assert.Zero(t, updates, "no adoption across kinds")

	// An RC-owned pod's events reach the RC only: the ReplicaSet's handler
	// resolves only ReplicaSet references.
	h.drainQueue()
	p := h.ownedByUID(rc.Metadata.UID)[0].DeepCopy()
	p.Metadata.Annotations = map[string]string{"touched": "yes"}
	_, err = h.pods.Update(h.ctx, p)
	require.NoError(t, err)
	h.syncInformers()
	assert.Empty(t, h.drainQueue())
}
