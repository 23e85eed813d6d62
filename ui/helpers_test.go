package ui

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/workqueue"
)

// cluster is an API server on a fake clock with the page's handler over
// it, and helpers that write as kubectl, the controllers and the kubelets
// do: each under its field manager.
type cluster struct {
	t   testing.TB
	clk *clock.Fake
	srv *apiserver.Server
	h   *Handler
}

func newCluster(t testing.TB, history int) *cluster {
	t.Helper()
	clk := clock.NewFake(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	srv, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(1, 2)), HistoryLimit: history})
	require.NoError(t, err)
	h, err := New(Config{
		Lister: srv, History: srv.Store(), Clock: clk, CustomKinds: func() (out []CustomKind) {
			for _, r := range srv.Resources() { // the custom ones, as cmd/miniplane picks them
				if r.Schema != nil && r.StoredAs == "" {
					out = append(out, CustomKind{Group: r.Group, Version: r.Version, Kind: r.Kind, Resource: r.Name(), Namespaced: r.Namespaced})
				}
			}
			return out
		},
		// The instances as cmd/miniplane gives them: each
		// controller-manager instance, then each component run once per
		// cluster, its own queue.
		Instances: func() []Instance {
			return []Instance{
				{Identity: "cm-1", Leading: true, Queues: []workqueue.MetricsSnapshot{{Name: "replicationcontroller", Depth: 2, InFlight: 1, Retries: 3}}},
				{Identity: "nodesim", Leading: true, Queues: []workqueue.MetricsSnapshot{{Name: "nodesim", Depth: 1}}},
				{Identity: "scheduler", Leading: true, Queues: []workqueue.MetricsSnapshot{{Name: "scheduler"}}},
				{Identity: "nodelifecycle", Leading: true, Queues: []workqueue.MetricsSnapshot{{Name: "nodelifecycle", Retries: 1}}},
			}
		},
	})
	require.NoError(t, err)
	return &cluster{t: t, clk: clk, srv: srv, h: h}
}

// as is a context whose writes are recorded under manager.
func as(manager string) context.Context {
	return client.WithFieldManager(context.Background(), manager)
}

func (c *cluster) rev() int64 { return c.srv.Store().Rev() }

func (c *cluster) node(name string) {
	c.t.Helper()
	_, err := c.srv.Create(as("kubelet"), &api.Node{Metadata: api.ObjectMeta{Name: name}})
	require.NoError(c.t, err)
	n := &api.Node{Metadata: api.ObjectMeta{Name: name}}
	n.Status.Conditions = []api.NodeCondition{{Type: api.NodeReady, Status: api.ConditionTrue}}
	_, err = c.srv.UpdateStatus(as("kubelet"), n)
	require.NoError(c.t, err)
}

func (c *cluster) rc(name string, replicas int32) *api.ReplicationController {
	c.t.Helper()
	rc := &api.ReplicationController{Metadata: api.ObjectMeta{Name: name, Namespace: "default"}}
	rc.Spec.Replicas = &replicas
	rc.Spec.Selector = map[string]string{"app": name}
	rc.Spec.Template = &api.PodTemplateSpec{Metadata: api.ObjectMeta{Labels: map[string]string{"app": name}}}
	rc.Spec.Template.Spec.Containers = []api.Container{{Name: "web", Image: "nginx"}}
	out, err := c.srv.Create(as("kubectl-client-side-apply"), rc)
	require.NoError(c.t, err)
	return out.(*api.ReplicationController)
}

// scale writes the RC's replicas as `kubectl scale` does (an update by
// kubectl), returning the write's revision.
func (c *cluster) scale(name string, replicas int32) int64 {
	c.t.Helper()
	obj, err := c.srv.Get(context.Background(), client.ReplicationControllers, "default", name, client.GetOptions{})
	require.NoError(c.t, err)
	rc := obj.DeepCopyObject().(*api.ReplicationController)
	rc.Spec.Replicas = &replicas
	_, err = c.srv.Update(as("kubectl"), rc)
	require.NoError(c.t, err)
	return c.rev()
}

// podFor creates a pod the replication controller owns, bound to node and
// ready when ready says so; it returns the creation's revision.
func (c *cluster) podFor(rc *api.ReplicationController, name, node string, ready bool) int64 {
	c.t.Helper()
	yes := true
	p := &api.Pod{Metadata: api.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": rc.Metadata.Name},
		OwnerReferences: []api.OwnerReference{{APIVersion: "v1", Kind: "ReplicationController", Name: rc.Metadata.Name, UID: rc.Metadata.UID, Controller: &yes}}}}
	p.Spec.Containers = []api.Container{{Name: "web", Image: "nginx"}}
	_, err := c.srv.Create(as("replicationcontroller"), p)
	require.NoError(c.t, err)
	created := c.rev()
	if node != "" {
		_, err = c.srv.Bind(context.Background(), "default", name, node)
		require.NoError(c.t, err)
		st := &api.Pod{Metadata: api.ObjectMeta{Name: name, Namespace: "default"}}
		st.Status.Phase = api.PodRunning
		st.Status.PodIP = "10.0.0." + strconv.Itoa(int(created%250))
		status := api.ConditionFalse
		if ready {
			status = api.ConditionTrue
		}
		st.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: status}}
		_, err = c.srv.UpdateStatus(as("kubelet"), st)
		require.NoError(c.t, err)
	}
	return created
}

// get serves one GET and decodes the JSON body into out, returning the code.
func (c *cluster) get(path string, out any) int {
	c.t.Helper()
	rec := httptest.NewRecorder()
	c.h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	require.NoError(c.t, json.Unmarshal(rec.Body.Bytes(), out), rec.Body.String())
	return rec.Code
}
