package garbagecollector

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/informer"
)

func TestForegroundDeletionCascadesThroughAMiddleOwner(t *testing.T) {
	e := newEnv(t)
	top := e.createRC("top")
	// An rc owned by an rc: any kind may own any other.
	mid := e.createRC("mid")
	m := mid.DeepCopy()
	m.Metadata.OwnerReferences = []api.OwnerReference{ref(top)}
	_, err := e.srv.Update(e.ctx, m)
	require.NoError(t, err)
	for i := range 2 {
		e.createPod(fmt.Sprintf("leaf-%d", i), "", ref(mid))
	}
	e.settle()

	e.deleteRC("top", policy(api.DeletePropagationForeground))
	// Step by hand: top must outlive mid, and mid its pods.
	sawMidForeground := false
	for e.gc.ProcessOne(e.ctx) || e.stepInformers() {
		_, leaf0 := e.getPod("leaf-0")
		_, leaf1 := e.getPod("leaf-1")
		_, midOK := e.getRC("mid")
		_, topOK := e.getRC("top")
		if leaf0 || leaf1 {
			require.True(t, midOK, "mid goes only after its pods")
		}
		if midOK {
			require.True(t, topOK, "top goes only after mid")
		}
		if midOK && (leaf0 || leaf1) {
			if rc, _ := e.getRC("mid"); rc.Metadata.DeletionTimestamp != nil {
				assert.Contains(t, rc.Metadata.Finalizers, api.FinalizerDeleteDependents, "mid is deleted in the foreground too")
				sawMidForeground = true
			}
		}
	}
	e.settle()
	assert.True(t, sawMidForeground, "mid was seen waiting for its pods")
	_, ok := e.getRC("top")
	assert.False(t, ok)
	_, ok = e.getRC("mid")
	assert.False(t, ok)
	_, ok = e.getPod("leaf-0")
	assert.False(t, ok)
}

func TestForegroundDeletionDoesNotWaitForNonBlockingDependents(t *testing.T) {
	e := newEnv(t)
	rc := e.createRC("web")
	r := ref(rc)
	r.BlockOwnerDeletion = nil
	e.createPod("web-0", "node-1", r) // graceful: it lingers 30 s
	e.settle()

	e.deleteRC("web", policy(api.DeletePropagationForeground))
	e.settle()

	_, ok := e.getRC("web")
	assert.False(t, ok, "a dependent without blockOwnerDeletion does not hold the owner")
	p, ok := e.getPod("web-0")
	require.True(t, ok, "still in its grace period")
	assert.NotNil(t, p.Metadata.DeletionTimestamp, "but it is deleted all the same")
}

func TestOwnerOfAnUnservedKindIsNeverTreatedAsAbsent(t *testing.T) {
	e := newEnv(t)
	e.createPod("job-pod", "", api.OwnerReference{APIVersion: "v1", Kind: "ComponentStatus", Name: "web", UID: "job-uid"})
	e.settle()

	_, ok := e.getPod("job-pod")
	assert.True(t, ok, "an owner the server cannot show is not known to be absent")
	assert.Empty(t, e.client.Writes())
	_, delayed := e.gc.Queue().NextDelayed()
	assert.False(t, delayed, "nothing is left to retry")
}

func TestClusterScopedDependentOfNamespacedOwnerIsLeftAndReported(t *testing.T) {
	e := newEnvWith(t, true)
	_, err := e.srv.Create(e.ctx, &api.Node{Metadata: api.ObjectMeta{Name: "node-1", OwnerReferences: []api.OwnerReference{
		{APIVersion: "v1", Kind: "ReplicationController", Name: "web", UID: "rc-uid"},
	}}})
	require.NoError(t, err)
	e.settle()

	_, err = e.srv.Get(e.ctx, client.Nodes, "", "node-1", client.GetOptions{})
	assert.NoError(t, err, "the node is not deleted")
	events, _, err := client.For[*api.Event](e.srv).List(e.ctx, "default", client.ListOptions{})
	require.NoError(t, err)
	require.NotEmpty(t, events)
	assert.Equal(t, "OwnerRefInvalidNamespace", events[0].Reason)
	assert.Equal(t, api.EventTypeWarning, events[0].Type)
	_, delayed := e.gc.Queue().NextDelayed()
	assert.False(t, delayed, "nothing is left to retry")
}

func TestFailedDeleteIsRetriedAfterBackoff(t *testing.T) {
	e := newEnv(t)
	e.webWithPods("")
	e.client.failNext("delete", apierrors.NewInternalError(errors.New("injected")))

	e.deleteRC("web", policy(api.DeletePropagationBackground))
	e.settle()
	require.Len(t, e.podsLeft(), 1, "the failed delete left one pod")

	at, ok := e.gc.Queue().NextDelayed()
	require.True(t, ok, "the failed key waits for its backoff")
	e.clk.SetTime(at)
	e.settle()
	assert.Empty(t, e.podsLeft(), "the retry deleted it")
}

func TestOrphaningRetriesConflicts(t *testing.T) {
	e := newEnv(t)
	e.webWithPods("")
	conflict := apierrors.NewConflict(apierrors.GroupResource{Resource: "pods"}, "web-0", apierrors.ConflictModified)
	e.client.failNext("update", conflict)
	e.client.failNext("update", conflict)

	e.deleteRC("web", nil)
	e.settle()

	for i := range 3 {
		p, ok := e.getPod(fmt.Sprintf("web-%d", i))
		require.True(t, ok)
		assert.Empty(t, p.Metadata.OwnerReferences)
	}
	_, ok := e.getRC("web")
	assert.False(t, ok)
	_, delayed := e.gc.Queue().NextDelayed()
	assert.False(t, delayed, "conflicts were retried in place, not after a backoff")
}

// TestDependentOfAnAbsentReplicaSetIsCollected: apps/v1 ReplicaSets are
// served (no controller acts on them), so the collector knows that an
// owner that is not there is gone.
func TestDependentOfAnAbsentReplicaSetIsCollected(t *testing.T) {
	e := newEnv(t)
	e.createPod("rs-pod", "", api.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: "rs-uid"})
	e.settle()

	_, ok := e.getPod("rs-pod")
	assert.False(t, ok, "the owner is absent: the dependent is deleted")
	assert.Equal(t, []string{"delete pods default/rs-pod"}, e.client.Writes())
}

func TestNewRejectsBadConfig(t *testing.T) {
	e := newEnv(t)
	f := informer.NewFactory(e.srv, "", e.clk, nil)
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"no client", Config{Factory: f, Clock: e.clk}},
		{"no factory", Config{Client: e.srv, Clock: e.clk}},
		{"no clock", Config{Client: e.srv, Factory: f}},
		{"unserved resource", Config{Client: e.srv, Factory: f, Clock: e.clk, Resources: []string{"componentstatuses"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.cfg)
			assert.Error(t, err)
		})
	}
}

func TestForegroundDeletionOfAnOwnershipCycleFinishes(t *testing.T) {
	e := newEnv(t)
	a, b := e.createRC("a"), e.createRC("b")
	for _, x := range []struct {
		obj   *api.ReplicationController
		owner api.Object
	}{{a, b}, {b, a}} {
		c := x.obj.DeepCopy()
		c.Metadata.OwnerReferences = []api.OwnerReference{ref(x.owner)}
		_, err := e.srv.Update(e.ctx, c)
		require.NoError(t, err)
	}
	e.settle()

	e.deleteRC("a", policy(api.DeletePropagationForeground))
	e.settle()

	_, ok := e.getRC("a")
	assert.False(t, ok, "a is not stuck waiting for b")
	_, ok = e.getRC("b")
	assert.False(t, ok, "b is not stuck waiting for a")
}

// A pod the replication controller made from a stale cache, while its rc
// was being deleted with the Orphan policy, reaches the collector's graph
// only after the orphaning: the collector never released it, and its rc
// is gone. Like Kubernetes, the collector deletes it — every owner it
// names is absent. (The simulator found this: seeds 6680 and 6765.)
func TestDependentSeenAfterOrphanDeletionOfItsOwnerIsDeleted(t *testing.T) {
	holding := func(resources ...string) func(string) bool {
		return func(r string) bool { return slices.Contains(resources, r) }
	}
	for _, tc := range []struct {
		name string
		// knownPods: the graph holds three pods of the rc before the delete.
		knownPods bool
		// createdAfter: web-late is created once the rc is gone, not before
		// the delete.
		createdAfter bool
		// delete deletes the rc with the Orphan policy and runs the
		// collector on a stale pods cache that does not show web-late.
		delete func(e *env)
	}{
		{name: "seen after the rc is gone, while orphaned pods still name it in the stale cache", knownPods: true,
			delete: func(e *env) {
				e.deleteRC("web", nil)
				e.settleHolding(holding(client.Pods))
				_, ok := e.getRC("web")
				require.False(t, ok, "the collector orphaned the pods it knew; the rc is gone")
			}},
		{name: "created after the rc is gone, while orphaned pods still name it in the stale cache", knownPods: true, createdAfter: true,
			delete: func(e *env) {
				e.deleteRC("web", nil)
				e.settleHolding(holding(client.Pods))
				_, ok := e.getRC("web")
				require.False(t, ok)
			}},
		{name: "seen after the rc is gone and forgotten",
			delete: func(e *env) {
				e.deleteRC("web", nil)
				e.settleHolding(holding(client.Pods))
				_, ok := e.getRC("web")
				require.False(t, ok, "the rc had no known dependent; it is gone")
			}},
		{name: "seen after the orphan finalizer is removed, before the rc's removal is", knownPods: true,
			delete: func(e *env) {
				e.deleteRC("web", nil)
				// The rcs cache stops as soon as the server removes the rc.
				e.settleHolding(func(r string) bool {
					if r == client.Pods {
						return true
					}
					_, ok := e.getRC("web")
					return r == client.ReplicationControllers && !ok
				})
				_, ok := e.getRC("web")
				require.False(t, ok)
				e.settleHolding(holding(client.ReplicationControllers))
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			rc := e.createRC("web")
			if tc.knownPods {
				for i := range 3 {
					e.createPod(fmt.Sprintf("web-%d", i), "", ref(rc))
				}
			}
			e.settle()
			// The late pod: in the server, not yet in the collector's cache.
			if !tc.createdAfter {
				e.createPod("web-late", "", ref(rc))
			}
			tc.delete(e)
			if tc.createdAfter {
				e.createPod("web-late", "", ref(rc))
			}
			_, ok := e.getPod("web-late")
			require.True(t, ok, "the collector has not seen web-late yet")
			e.settle()

			_, ok = e.getPod("web-late")
			assert.False(t, ok, "a pod whose only owner is gone is deleted")
			assert.Contains(t, e.client.Writes(), "delete pods default/web-late")
			if tc.knownPods {
				for i := range 3 {
					p, ok := e.getPod(fmt.Sprintf("web-%d", i))
					require.True(t, ok, "orphaned pods remain")
					assert.Nil(t, p.Metadata.DeletionTimestamp)
					assert.Empty(t, p.Metadata.OwnerReferences)
				}
			}
			_, delayed := e.gc.Queue().NextDelayed()
			assert.False(t, delayed, "nothing is left to retry")
		})
	}
}

// An owner the collector found present while no informer showed it yet,
// and that goes before its informer lists, is never shown at all: the
// collector checks it again (with backoff) until the informer shows it or
// the server says it is absent. Kubernetes: issue 56121.
func TestVirtualOwnerFoundPresentThenDeletedUnseenIsChecked(t *testing.T) {
	e := newEnv(t)
	rc := e.createRC("web")
	e.createPod("web-0", "", ref(rc))
	rcsHeld := func(r string) bool { return r == client.ReplicationControllers }
	e.settleHolding(rcsHeld)
	_, ok := e.getPod("web-0")
	require.True(t, ok, "its owner exists: the pod stays")
	at, ok := e.gc.Queue().NextDelayed()
	require.True(t, ok, "the owner, present but not yet shown, is to be checked again")

	// The rc goes before its informer ever lists it.
	e.deleteRC("web", policy(api.DeletePropagationBackground))
	e.settle()
	require.Empty(t, e.client.Writes(), "not before the backoff")
	e.clk.SetTime(at)
	e.settle()

	_, ok = e.getPod("web-0")
	assert.False(t, ok, "the pod of a gone owner is deleted")
	_, delayed := e.gc.Queue().NextDelayed()
	assert.False(t, delayed, "nothing is left to retry")
}

func TestVirtualOwnerFoundPresentIsCheckedUntilShown(t *testing.T) {
	e := newEnv(t)
	rc := e.createRC("web")
	e.createPod("web-0", "", ref(rc))
	e.settleHolding(func(r string) bool { return r == client.ReplicationControllers })
	at, ok := e.gc.Queue().NextDelayed()
	require.True(t, ok, "the owner, present but not yet shown, is to be checked again")

	e.settle() // the rcs informer shows it
	e.clk.SetTime(at)
	e.settle()

	_, ok = e.getPod("web-0")
	assert.True(t, ok)
	assert.Empty(t, e.client.Writes())
	_, delayed := e.gc.Queue().NextDelayed()
	assert.False(t, delayed, "once shown, it is not checked again")
}
