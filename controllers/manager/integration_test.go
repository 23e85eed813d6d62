package manager_test

import (
	"context"
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
