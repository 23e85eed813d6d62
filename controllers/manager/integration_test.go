package manager_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/manager"
	"github.com/miniplane/miniplane/informer"
)

// TestControlLoop runs the real controllers under the manager, live, on a
// fake clock that the test moves: an RC and its Service come to 3 Ready pods
// behind 3 endpoint addresses on the simulated nodes; scaling to 1 takes
// two away; deleting the RC in the background lets the garbage collector
// remove the last pod. Every wait steps virtual time; nothing sleeps.
func TestControlLoop(t *testing.T) {
	ctx := context.Background()
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	srv, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(7, 7))})
	require.NoError(t, err)
	log := zaptest.NewLogger(t)
	factory := informer.NewFactory(srv, "", clk, log)
	m, err := manager.New(manager.InitContext{
		Client: srv, Binder: srv, Factory: factory, Clock: clk, Logger: log,
		Options: manager.DefaultOptions(), Instance: "cm-0",
	}, append(manager.DefaultDescriptors(), manager.NodeSimDescriptors()...))
	require.NoError(t, err)

	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- m.Run(runCtx) }()
	go srv.Run(runCtx) // the API server's sweep of ended grace periods

	rcs := client.For[*api.ReplicationController](srv)
	labels := map[string]string{"app": "web"}
	three := int32(3)
	_, err = rcs.Create(ctx, &api.ReplicationController{
		Metadata: api.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: api.ReplicationControllerSpec{Replicas: &three, Selector: labels, Template: &api.PodTemplateSpec{
			Metadata: api.ObjectMeta{Labels: labels},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "web", Image: "nginx:1.27",
				Ports: []api.ContainerPort{{Name: "http", ContainerPort: 80}}}}},
		}},
	})
	require.NoError(t, err)
	_, err = srv.Create(ctx, &api.Service{
		Metadata: api.ObjectMeta{Namespace: "default", Name: "web"},
		Spec:     api.ServiceSpec{Selector: labels, Ports: []api.ServicePort{{Port: 80, TargetPort: api.FromString("http")}}},
	})
	require.NoError(t, err)

	readyPods := func() int {
		pods, _, err := client.For[*api.Pod](srv).List(ctx, "default", client.ListOptions{LabelSelector: "app=web"})
		require.NoError(t, err)
		n := 0
		for _, p := range pods {
			if api.IsPodReady(p) && p.Metadata.DeletionTimestamp == nil {
				n++
			}
		}
		return n
	}
	addresses := func() int {
		ep, err := client.For[*api.Endpoints](srv).Get(ctx, "default", "web")
		if err != nil {
			return -1
		}
		n := 0
		for _, s := range ep.Subsets {
			n += len(s.Addresses)
		}
		return n
	}
	// until steps virtual time half a second at a time until cond holds.
	until := func(what string, cond func() bool) {
		t.Helper()
		require.Eventually(t, func() bool {
			if cond() {
				return true
			}
			clk.Step(500 * time.Millisecond)
			return false
		}, 20*time.Second, time.Millisecond, what)
	}

	until("3 ready pods behind 3 endpoint addresses", func() bool { return readyPods() == 3 && addresses() == 3 })
	nodes, _, err := client.For[*api.Node](srv).List(ctx, "", client.ListOptions{})
	require.NoError(t, err)
	assert.Len(t, nodes, 3, "nodesim registered its nodes")

	_, err = srv.UpdateScale(ctx, client.ReplicationControllers, "default", &api.Scale{Metadata: api.ObjectMeta{Name: "web"}, Spec: api.ScaleSpec{Replicas: 1}})
	require.NoError(t, err)
	until("scaled to 1", func() bool { return readyPods() == 1 && addresses() == 1 })
	until("status says 1", func() bool {
		rc, err := rcs.Get(ctx, "default", "web")
		require.NoError(t, err)
		return rc.Status.Replicas == 1 && rc.Status.ReadyReplicas == 1 && rc.Status.ObservedGeneration == rc.Metadata.Generation
	})

	bg := api.DeletePropagationBackground
	_, err = rcs.Delete(ctx, "default", "web", api.DeleteOptions{PropagationPolicy: &bg})
	require.NoError(t, err)
	until("the garbage collector removed the pods", func() bool {
		pods, _, err := client.For[*api.Pod](srv).List(ctx, "default", client.ListOptions{})
		require.NoError(t, err)
		return len(pods) == 0
	})
	until("no endpoint addresses left", func() bool { return addresses() == 0 })

	cancel()
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-time.After(20 * time.Second):
		t.Fatal("manager did not stop")
	}
}

// TestNodeSimWithoutNodes: with Options.Nodes 0 the simulated kubelets
// register no node of their own, yet schedule and run a pod on a node
// created through the API, as kubelets of nodes someone else registered.
func TestNodeSimWithoutNodes(t *testing.T) {
	ctx := context.Background()
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	srv, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(7, 7))})
	require.NoError(t, err)
	log := zaptest.NewLogger(t)
	opts := manager.DefaultOptions()
	opts.Nodes = 0
	m, err := manager.New(manager.InitContext{
		Client: srv, Binder: srv, Factory: informer.NewFactory(srv, "", clk, log), Clock: clk, Logger: log,
		Options: opts, Instance: "kubelets",
	}, manager.NodeSimDescriptors())
	require.NoError(t, err)
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- m.Run(runCtx) }()

	pods := api.ResourceList{api.ResourcePods: "10", api.ResourceCPU: "2"}
	_, err = srv.Create(ctx, &api.Node{
		Metadata: api.ObjectMeta{Name: "byo-0"},
		Spec:     api.NodeSpec{PodCIDR: "10.250.0.0/24", PodCIDRs: []string{"10.250.0.0/24"}},
		Status: api.NodeStatus{Capacity: pods, Allocatable: pods, Conditions: []api.NodeCondition{
			{Type: api.NodeReady, Status: api.ConditionTrue, LastHeartbeatTime: api.NewTime(clk.Now())},
		}},
	})
	require.NoError(t, err)
	_, err = srv.Create(ctx, &api.Pod{
		Metadata: api.ObjectMeta{Namespace: "default", Name: "web"},
		Spec:     api.PodSpec{Containers: []api.Container{{Name: "web", Image: "nginx:1.27"}}},
	})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		p, err := client.For[*api.Pod](srv).Get(ctx, "default", "web")
		require.NoError(t, err)
		if p.Spec.NodeName == "byo-0" && api.IsPodReady(p) {
			return true
		}
		clk.Step(500 * time.Millisecond)
		return false
	}, 20*time.Second, time.Millisecond, "the pod runs on the node created through the API")
	nodes, _, err := client.For[*api.Node](srv).List(ctx, "", client.ListOptions{})
	require.NoError(t, err)
	require.Len(t, nodes, 1, "nodesim registered none of its own")
	assert.Equal(t, "byo-0", nodes[0].Metadata.Name)

	cancel()
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-time.After(20 * time.Second):
		t.Fatal("manager did not stop")
	}
}

// startPlane runs the manager's controllers and nodesim live on a fake
// clock with opts, and returns the server and a function that steps virtual
// time until a condition holds. The plane stops when the test ends.
func startPlane(t *testing.T, opts manager.Options) (*apiserver.Server, func(what string, cond func() bool)) {
	t.Helper()
	clk := clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	srv, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(7, 7))})
	require.NoError(t, err)
	log := zaptest.NewLogger(t)
	m, err := manager.New(manager.InitContext{
		Client: srv, Binder: srv, Factory: informer.NewFactory(srv, "", clk, log), Clock: clk, Logger: log,
		Options: opts, Instance: "cm-0",
	}, append(manager.DefaultDescriptors(), manager.NodeSimDescriptors()...))
	require.NoError(t, err)
	runCtx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(runCtx) }()
	go srv.Run(runCtx)
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			assert.NoError(t, err)
		case <-time.After(20 * time.Second):
			t.Error("manager did not stop")
		}
	})
	until := func(what string, cond func() bool) {
		t.Helper()
		require.Eventually(t, func() bool {
			if cond() {
				return true
			}
			clk.Step(500 * time.Millisecond)
			return false
		}, 20*time.Second, time.Millisecond, what)
	}
	return srv, until
}

// webReplicaSet is a ReplicaSet whose selector has matchExpressions.
func webReplicaSet(replicas int32) *api.ReplicaSet {
	return &api.ReplicaSet{
		Metadata: api.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: api.ReplicaSetSpec{
			Replicas: &replicas,
			Selector: &api.LabelSelector{
				MatchLabels: map[string]string{"app": "web"},
				MatchExpressions: []api.LabelSelectorRequirement{
					{Key: "tier", Operator: api.LabelSelectorOpIn, Values: []string{"front", "edge"}},
					{Key: "canary", Operator: api.LabelSelectorOpDoesNotExist},
				},
			},
			Template: api.PodTemplateSpec{
				Metadata: api.ObjectMeta{Labels: map[string]string{"app": "web", "tier": "front"}},
				Spec:     api.PodSpec{Containers: []api.Container{{Name: "web", Image: "nginx:1.27"}}},
			},
		},
	}
}

// TestReplicaSetControlLoop: a bare ReplicaSet with a set-based selector
// gets its pods, which nodesim runs to Ready, and reports them in its
// status; the scale subresource scales it; a foreground cascading delete
// takes its pods, then it.
func TestReplicaSetControlLoop(t *testing.T) {
	ctx := context.Background()
	srv, until := startPlane(t, manager.DefaultOptions())
	rss := client.For[*api.ReplicaSet](srv)
	rs, err := rss.Create(ctx, webReplicaSet(3))
	require.NoError(t, err)

	pods := func() []*api.Pod {
		all, _, err := client.For[*api.Pod](srv).List(ctx, "default", client.ListOptions{})
		require.NoError(t, err)
		return all
	}
	readyOwned := func() int {
		n := 0
		for _, p := range pods() {
			if ref := api.GetControllerOf(&p.Metadata); ref != nil && ref.UID == rs.Metadata.UID &&
				api.IsPodReady(p) && p.Metadata.DeletionTimestamp == nil {
				n++
			}
		}
		return n
	}
	statusIs := func(n int32) func() bool {
		return func() bool {
			got, err := rss.Get(ctx, "default", "web")
			require.NoError(t, err)
			st := got.Status
			return st.Replicas == n && st.FullyLabeledReplicas == n && st.ReadyReplicas == n && st.AvailableReplicas == n &&
				st.ObservedGeneration == got.Metadata.Generation
		}
	}
	until("3 ready pods", func() bool { return readyOwned() == 3 })
	until("status says 3", statusIs(3))
	for _, p := range pods() {
		ref := api.GetControllerOf(&p.Metadata)
		require.NotNil(t, ref)
		assert.Equal(t, "ReplicaSet", ref.Kind)
		assert.Equal(t, "apps/v1", ref.APIVersion)
		assert.True(t, *ref.BlockOwnerDeletion)
	}

	for _, n := range []int32{5, 2} {
		_, err = srv.UpdateScale(ctx, client.ReplicaSets, "default", &api.Scale{Metadata: api.ObjectMeta{Name: "web"}, Spec: api.ScaleSpec{Replicas: n}})
		require.NoError(t, err)
		until(fmt.Sprintf("scaled to %d", n), func() bool { return readyOwned() == int(n) })
		until(fmt.Sprintf("status says %d", n), statusIs(n))
	}
	scale, err := srv.GetScale(ctx, client.ReplicaSets, "default", "web")
	require.NoError(t, err)
	assert.Equal(t, int32(2), scale.Status.Replicas)

	evs, _, err := client.For[*api.Event](srv).List(ctx, "default", client.ListOptions{})
	require.NoError(t, err)
	reasons := map[string]int{}
	for _, e := range evs {
		if e.InvolvedObject.Kind == "ReplicaSet" {
			assert.Equal(t, "replicaset-controller", e.Source.Component)
			reasons[e.Reason] += int(max(e.Count, 1))
		}
	}
	assert.Equal(t, map[string]int{"SuccessfulCreate": 5, "SuccessfulDelete": 3}, reasons)

	fg := api.DeletePropagationForeground
	_, err = rss.Delete(ctx, "default", "web", api.DeleteOptions{PropagationPolicy: &fg})
	require.NoError(t, err)
	until("the pods, then the ReplicaSet, are gone", func() bool {
		_, err := rss.Get(ctx, "default", "web")
		return len(pods()) == 0 && err != nil
	})
}

// TestControllersFlagSwitchesTheReplicaSetControllerOff: with
// --controllers=*,-replicaset a ReplicaSet gets no pods, and an RC still
// does.
func TestControllersFlagSwitchesTheReplicaSetControllerOff(t *testing.T) {
	ctx := context.Background()
	opts := manager.DefaultOptions()
	opts.Controllers = []string{"-replicaset", "*"}
	srv, until := startPlane(t, opts)
	_, err := client.For[*api.ReplicaSet](srv).Create(ctx, webReplicaSet(2))
	require.NoError(t, err)
	one := int32(1)
	labels := map[string]string{"app": "api"}
	_, err = client.For[*api.ReplicationController](srv).Create(ctx, &api.ReplicationController{
		Metadata: api.ObjectMeta{Namespace: "default", Name: "api"},
		Spec: api.ReplicationControllerSpec{Replicas: &one, Selector: labels, Template: &api.PodTemplateSpec{
			Metadata: api.ObjectMeta{Labels: labels},
			Spec:     api.PodSpec{Containers: []api.Container{{Name: "api", Image: "nginx"}}},
		}},
	})
	require.NoError(t, err)
	until("the RC's pod is ready, seconds of virtual time later", func() bool {
		rc, err := client.For[*api.ReplicationController](srv).Get(ctx, "default", "api")
		require.NoError(t, err)
		return rc.Status.ReadyReplicas == 1
	})
	pods, _, err := client.For[*api.Pod](srv).List(ctx, "default", client.ListOptions{LabelSelector: "app=web"})
	require.NoError(t, err)
	assert.Empty(t, pods, "no replica set controller runs")
}
