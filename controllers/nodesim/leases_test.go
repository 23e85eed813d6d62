package nodesim

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
)

// newLeaseEnv is newEnv with node Leases on and their namespace created.
func newLeaseEnv(t *testing.T) *env {
	t.Helper()
	e := newEnv(t, Config{Nodes: 2, NodeLeases: true})
	_, err := e.srv.Create(e.ctx, &api.Namespace{Metadata: api.ObjectMeta{Name: api.NamespaceNodeLease}})
	require.NoError(t, err)
	return e
}

func (e *env) lease(node string) *api.Lease {
	e.t.Helper()
	l, err := client.For[*api.Lease](e.srv).Get(e.ctx, api.NamespaceNodeLease, node)
	require.NoError(e.t, err)
	return l
}

// TestNodeLeasesCreatedAsKubeletsDo checks every field a kubelet sets on
// its node's Lease.
func TestNodeLeasesCreatedAsKubeletsDo(t *testing.T) {
	e := newLeaseEnv(t)
	require.NoError(t, e.c.RenewNodeLeases(e.ctx))
	for _, name := range []string{"node-0", "node-1"} {
		l := e.lease(name)
		require.NotNil(t, l.Spec.HolderIdentity)
		assert.Equal(t, name, *l.Spec.HolderIdentity)
		require.NotNil(t, l.Spec.LeaseDurationSeconds)
		assert.Equal(t, int32(40), *l.Spec.LeaseDurationSeconds)
		require.NotNil(t, l.Spec.RenewTime)
		assert.True(t, l.Spec.RenewTime.Time.Equal(epoch), "renewTime %v", l.Spec.RenewTime.Time)
		assert.Equal(t, []api.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: name, UID: e.Node(name).Metadata.UID}},
			l.Metadata.OwnerReferences)
	}
}

// TestNodeLeasesRenewedOnlyWhileUp renews on the fake clock: a node taken
// down keeps its last renewTime, and renews again once it is up.
func TestNodeLeasesRenewedOnlyWhileUp(t *testing.T) {
	e := newLeaseEnv(t)
	require.NoError(t, e.c.RenewNodeLeases(e.ctx))
	require.NoError(t, e.c.NodeDown(e.ctx, "node-1"))
	e.advance(NodeLeaseRenewInterval)
	require.NoError(t, e.c.RenewNodeLeases(e.ctx))

	renewed := func(node string) time.Time { return e.lease(node).Spec.RenewTime.Time }
	assert.True(t, renewed("node-0").Equal(epoch.Add(10*time.Second)), "up node: %v", renewed("node-0"))
	assert.True(t, renewed("node-1").Equal(epoch), "down node: %v", renewed("node-1"))

	require.NoError(t, e.c.NodeUp(e.ctx, "node-1"))
	e.advance(NodeLeaseRenewInterval)
	require.NoError(t, e.c.RenewNodeLeases(e.ctx))
	assert.True(t, renewed("node-1").Equal(epoch.Add(20*time.Second)), "node back up: %v", renewed("node-1"))
}

// TestNodeLeasesNeedTheirNamespace: without kube-node-lease the renewal
// fails, naming the node, and creates nothing.
func TestNodeLeasesNeedTheirNamespace(t *testing.T) {
	e := newEnv(t, Config{Nodes: 1, NodeLeases: true})
	err := e.c.RenewNodeLeases(e.ctx)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "node node-0")
	leases, _, err := client.For[*api.Lease](e.srv).List(e.ctx, "", client.ListOptions{})
	require.NoError(t, err)
	assert.Empty(t, leases)
}

// TestKubeletsRunWhatAnotherBinds: without a scheduler no pod is bound,
// and the kubelets run what another binds.
func TestKubeletsRunWhatAnotherBinds(t *testing.T) {
	e := newEnvWith(t, Config{Nodes: 2}, false)
	e.CreatePod("web")
	e.advance(time.Minute)
	p := e.Pod("web")
	assert.Empty(t, p.Spec.NodeName)
	assert.Equal(t, api.PodPending, p.Status.Phase)

	_, err := e.srv.Bind(e.ctx, "default", "web", "node-1")
	require.NoError(t, err)
	e.settle()
	e.advance(DefaultStartDelay)
	p = e.Pod("web")
	assert.Equal(t, "node-1", p.Spec.NodeName)
	assert.Equal(t, api.PodRunning, p.Status.Phase)
	var ready api.ConditionStatus
	for _, c := range p.Status.Conditions {
		if c.Type == api.PodReady {
			ready = c.Status
		}
	}
	assert.Equal(t, api.ConditionTrue, ready)
}

// TestRunNodeLeasesOnTheClock runs the renewal loop as Run does: Leases at
// start, one at once for a node registered later, and renewals every 10s
// of the fake clock.
func TestRunNodeLeasesOnTheClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newLeaseEnv(t)
		ctx, cancel := context.WithCancel(e.ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			e.c.runNodeLeases(ctx)
		}()
		synctest.Wait()
		renewed := func(node string) time.Time { return e.lease(node).Spec.RenewTime.Time }
		assert.True(t, renewed("node-0").Equal(epoch), "at start: %v", renewed("node-0"))

		_, err := e.srv.Create(e.ctx, newNode("late", 5, 110, DefaultNodeCPU, DefaultNodeMemory, epoch))
		require.NoError(t, err)
		e.settle() // the node handler sees it and wakes the loop
		synctest.Wait()
		assert.True(t, renewed("late").Equal(epoch), "a new node's Lease comes at once: %v", renewed("late"))
		assert.True(t, renewed("node-0").Equal(epoch))

		e.clk.Step(NodeLeaseRenewInterval - time.Second)
		synctest.Wait()
		assert.True(t, renewed("node-0").Equal(epoch), "not yet due: %v", renewed("node-0"))
		e.clk.Step(time.Second)
		synctest.Wait()
		for _, n := range []string{"node-0", "node-1", "late"} {
			assert.True(t, renewed(n).Equal(epoch.Add(NodeLeaseRenewInterval)), "%s after 10s: %v", n, renewed(n))
		}
		cancel()
		<-done
	})
}
