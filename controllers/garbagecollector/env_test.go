package garbagecollector

import (
	"context"
	"maps"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/client/record"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/informer"
	"github.com/miniplane/miniplane/internal/testenv"
)

// env is a collector over a real API server and real informers, on a fake
// clock; nothing runs unless a test steps it.
type env struct {
	t      *testing.T
	ctx    context.Context
	clk    *clock.Fake
	srv    *apiserver.Server
	client *recordingClient
	gc     *Controller
}

// recordingClient passes calls to the server and records the collector's
// writes, as "verb resource ns/name".
type recordingClient struct {
	*apiserver.Server
	mu     sync.Mutex
	writes []string
	// faults are errors the next writes of a verb return instead of
	// writing, oldest first.
	faults []fault
}

type fault struct {
	verb string
	err  error
}

// failNext makes the next write of verb ("update", "delete") fail with err.
func (r *recordingClient) failNext(verb string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.faults = append(r.faults, fault{verb, err})
}

// fault returns the injected error for a write of verb, if any.
func (r *recordingClient) fault(verb string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, f := range r.faults {
		if f.verb == verb {
			r.faults = append(r.faults[:i], r.faults[i+1:]...)
			return f.err
		}
	}
	return nil
}

func (r *recordingClient) note(verb, resource string, m *api.ObjectMeta) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.writes = append(r.writes, verb+" "+resource+" "+api.KeyOf(m))
}

func (r *recordingClient) Update(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error) {
	r.note("update", obj.GetTypeMeta().Kind, obj.GetObjectMeta())
	if err := r.fault("update"); err != nil {
		return nil, err
	}
	return r.Server.Update(ctx, obj, opts...)
}

func (r *recordingClient) Delete(ctx context.Context, resource, namespace, name string, opts api.DeleteOptions) (api.Object, error) {
	r.note("delete", resource, &api.ObjectMeta{Namespace: namespace, Name: name})
	if err := r.fault("delete"); err != nil {
		return nil, err
	}
	return r.Server.Delete(ctx, resource, namespace, name, opts)
}

func (r *recordingClient) Writes() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.writes...)
}

func newEnv(t *testing.T) *env {
	t.Helper()
	return newEnvWith(t, false)
}

// newEnvWith makes an env; withRecorder gives the collector an event
// recorder.
func newEnvWith(t *testing.T, withRecorder bool) *env {
	t.Helper()
	return newEnvConfig(t, Config{}, withRecorder)
}

// newEnvConfig makes an env whose collector has base's optional settings.
func newEnvConfig(t *testing.T, base Config, withRecorder bool) *env {
	t.Helper()
	srv, clk := testenv.NewServer(t, apiserver.Config{})
	log := testenv.Logger(t)
	rc := &recordingClient{Server: srv}
	f := informer.NewFactory(srv, "", clk, log)
	cfg := base
	cfg.Client, cfg.Factory, cfg.Clock, cfg.Logger = rc, f, clk, log
	if withRecorder {
		cfg.Recorder = record.NewEventRecorder(srv, clk, "garbage-collector", "test")
	}
	gc, err := New(cfg)
	require.NoError(t, err)
	return &env{t: t, ctx: context.Background(), clk: clk, srv: srv, client: rc, gc: gc}
}

// settle runs every step — reflectors, informers, handlers, the collector —
// until none has anything left to do, and checks the graph's invariant.
func (e *env) settle() {
	e.t.Helper()
	e.settleHolding(func(string) bool { return false })
}

// settleHolding is settle with the informers of the resources for which
// held returns true, asked before every round, held back: their caches,
// and so the collector's graph, go stale (the simulator's stale-cache
// fault). An informer held back is not stepped at all.
func (e *env) settleHolding(held func(resource string) bool) {
	e.t.Helper()
	resources := DefaultResources()
	require.Len(e.t, e.gc.informers, len(resources), "the env watches the default resources")
	for range 10000 {
		progress := false
		for i, inf := range e.gc.informers {
			if held(resources[i]) {
				continue
			}
			progress = inf.Reflector().Step(e.ctx) || progress
			for inf.ProcessOne() {
				progress = true
			}
		}
		for i, r := range e.gc.registrations {
			if held(resources[i]) {
				continue
			}
			for r.DispatchOne() {
				progress = true
			}
		}
		if e.gc.crds != nil {
			infs, regs := e.gc.syncStepped(e.ctx)
			for _, inf := range infs {
				progress = inf.Reflector().Step(e.ctx) || progress
				for inf.ProcessOne() {
					progress = true
				}
			}
			for _, r := range regs {
				for r.DispatchOne() {
					progress = true
				}
			}
		}
		progress = e.gc.ProcessOne(e.ctx) || progress
		if !progress {
			require.Empty(e.t, e.gc.graph.check(), "graph invariant")
			return
		}
	}
	e.t.Fatal("the system did not settle")
}

// ref returns a controller reference to owner that blocks its foreground
// deletion, as the replication controller makes.
func ref(owner api.Object) api.OwnerReference {
	tm, m := owner.GetTypeMeta(), owner.GetObjectMeta()
	yes := true
	return api.OwnerReference{APIVersion: tm.APIVersion, Kind: tm.Kind, Name: m.Name, UID: m.UID, Controller: &yes, BlockOwnerDeletion: &yes}
}

func (e *env) createRC(name string) *api.ReplicationController {
	e.t.Helper()
	labels := map[string]string{"app": name}
	rc, err := client.For[*api.ReplicationController](e.srv).Create(e.ctx, &api.ReplicationController{
		Metadata: api.ObjectMeta{Namespace: "default", Name: name},
		Spec: api.ReplicationControllerSpec{
			Selector: labels,
			Template: &api.PodTemplateSpec{
				Metadata: api.ObjectMeta{Labels: labels},
				Spec:     api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx:1.27"}}},
			},
		},
	})
	require.NoError(e.t, err)
	return rc
}

// createPod creates a pod owned by owners, bound to nodeName if not "".
func (e *env) createPod(name, nodeName string, owners ...api.OwnerReference) *api.Pod {
	e.t.Helper()
	p, err := client.For[*api.Pod](e.srv).Create(e.ctx, &api.Pod{
		Metadata: api.ObjectMeta{Namespace: "default", Name: name, OwnerReferences: owners},
		Spec:     api.PodSpec{NodeName: nodeName, Containers: []api.Container{{Name: "app", Image: "nginx:1.27"}}},
	})
	require.NoError(e.t, err)
	return p
}

func (e *env) deleteRC(name string, policy *api.DeletionPropagation) {
	e.t.Helper()
	_, err := e.srv.Delete(e.ctx, client.ReplicationControllers, "default", name, api.DeleteOptions{PropagationPolicy: policy})
	require.NoError(e.t, err)
}

func (e *env) getPod(name string) (*api.Pod, bool) {
	e.t.Helper()
	p, err := client.For[*api.Pod](e.srv).Get(e.ctx, "default", name)
	if apierrors.IsNotFound(err) {
		return nil, false
	}
	require.NoError(e.t, err)
	return p, true
}

func (e *env) getRC(name string) (*api.ReplicationController, bool) {
	e.t.Helper()
	rc, err := client.For[*api.ReplicationController](e.srv).Get(e.ctx, "default", name)
	if apierrors.IsNotFound(err) {
		return nil, false
	}
	require.NoError(e.t, err)
	return rc, true
}

func policy(p api.DeletionPropagation) *api.DeletionPropagation { return &p }

func contextWithCancel(e *env) (context.Context, context.CancelFunc) {
	return context.WithCancel(e.ctx)
}

// plainRef is ref without controller: an object has at most one controller.
func plainRef(owner api.Object) api.OwnerReference {
	r := ref(owner)
	r.Controller = nil
	return r
}

// syncStepped is for the tests that step the collector: a monitor for each
// established definition, not run, and the informers to step, the
// definitions' first.
func (c *Controller) syncStepped(ctx context.Context) ([]*informer.Informer, []*informer.Registration) {
	c.syncMonitors(ctx, false)
	c.monMu.Lock()
	defer c.monMu.Unlock()
	infs, regs := []*informer.Informer{c.crds}, []*informer.Registration{c.crdReg}
	for _, res := range slices.Sorted(maps.Keys(c.monitors)) {
		infs, regs = append(infs, c.monitors[res].inf), append(regs, c.monitors[res].reg)
	}
	return infs, regs
}
