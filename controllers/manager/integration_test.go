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

	rcs := apiserver.For[*api.ReplicationController](srv)
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
		pods, _, err := apiserver.For[*api.Pod](srv).List(ctx, "default", apiserver.ListOptions{LabelSelector: "app=web"})
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
		ep, err := apiserver.For[*api.Endpoints](srv).Get(ctx, "default", "web")
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
	nodes, _, err := apiserver.For[*api.Node](srv).List(ctx, "", apiserver.ListOptions{})
	require.NoError(t, err)
	assert.Len(t, nodes, 3, "nodesim registered its nodes")

	_, err = srv.UpdateScale(ctx, "default", &api.Scale{Metadata: api.ObjectMeta{Name: "web"}, Spec: api.ScaleSpec{Replicas: 1}})
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
		pods, _, err := apiserver.For[*api.Pod](srv).List(ctx, "default", apiserver.ListOptions{})
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
