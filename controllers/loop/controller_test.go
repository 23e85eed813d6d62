package loop_test

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/loop"
	"github.com/miniplane/miniplane/controllers/loop/looptest"
	"github.com/miniplane/miniplane/controllers/manager"
	"github.com/miniplane/miniplane/informer"
)

var epoch = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// A Controller is what the controller manager runs (and, with ProcessOne,
// what the simulator steps: sim/reconcile_test.go runs one in a sweep).
var _ manager.Controller = (*loop.Controller)(nil)

// newConfigPerService makes looptest.ConfigPerService's controller: a
// reconcile function and its watches, nothing else.
func newConfigPerService(t *testing.T, cl client.Client, f *informer.Factory, clk clock.Clock, obs loop.Observer) *loop.Controller {
	t.Helper()
	r := looptest.NewConfigPerService(cl, f)
	c, err := loop.NewController(loop.ControllerConfig{
		Name: "config-per-service", Factory: f, Clock: clk, Reconcile: r.Reconcile, Watches: r.Watches(), Observer: obs,
		Logger: zaptest.NewLogger(t, zaptest.Level(zap.WarnLevel)),
	})
	require.NoError(t, err)
	return c
}

// errorCounter is an Observer counting the reconciles that ended in a
// Conflict.
type errorCounter struct {
	mu        sync.Mutex
	conflicts int
	total     int
}

func (e *errorCounter) ReconcileStarted(loop.Info) {}
func (e *errorCounter) ReconcileEnded(_ loop.Info, err error, _ time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.total++
	if apierrors.IsConflict(err) {
		e.conflicts++
	}
}

type stepEnv struct {
	t    *testing.T
	ctx  context.Context
	clk  *clock.Fake
	srv  *apiserver.Server
	f    *informer.Factory
	ctrl *loop.Controller
	obs  *errorCounter
}

func newStepEnv(t *testing.T) *stepEnv {
	t.Helper()
	clk := clock.NewFake(epoch)
	srv, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(1, 2))})
	require.NoError(t, err)
	f := informer.NewFactory(srv, "", clk, zaptest.NewLogger(t, zaptest.Level(zap.WarnLevel)))
	obs := &errorCounter{}
	return &stepEnv{t: t, ctx: context.Background(), clk: clk, srv: srv, f: f, ctrl: newConfigPerService(t, srv, f, clk, obs), obs: obs}
}

// settle steps everything as the simulator does — reflectors, informers,
// handlers, the controller, and the clock to the next backoff when nothing
// else can run — until nothing is left, holding back the informer of
// resource held ("" holds none; with one held, the clock stays put).
func (e *stepEnv) settle(held string) {
	e.t.Helper()
	for range 1000 {
		progress := false
		for _, r := range e.f.Resources() {
			if r == held {
				continue
			}
			inf := e.f.ForResource(r)
			progress = inf.Reflector().Step(e.ctx) || progress
			for inf.ProcessOne() {
				progress = true
			}
			for _, reg := range inf.Registrations() {
				for reg.DispatchOne() {
					progress = true
				}
			}
		}
		if e.ctrl.HasSynced() {
			progress = e.ctrl.ProcessOne(e.ctx) || progress
		}
		if !progress {
			at, ok := e.ctrl.Queue().NextDelayed()
			if !ok || held != "" {
				return // with a cache held back, a retry would only conflict again
			}
			e.clk.SetTime(at)
		}
	}
	e.t.Fatal("the controller did not settle")
}

func (e *stepEnv) configData(name string) map[string]string {
	e.t.Helper()
	cm, err := client.For[*api.ConfigMap](e.srv).Get(e.ctx, "default", name)
	require.NoError(e.t, err)
	return cm.Data
}

func (e *stepEnv) setSelector(svcName string, sel map[string]string) {
	e.t.Helper()
	svc, err := client.For[*api.Service](e.srv).Get(e.ctx, "default", svcName)
	require.NoError(e.t, err)
	svc = svc.DeepCopy() // what Get returns is shared
	svc.Spec.Selector = sel
	_, err = e.srv.Update(e.ctx, svc)
	require.NoError(e.t, err)
}

func service(name string, sel map[string]string) *api.Service {
	return &api.Service{
		TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "Service"},
		Metadata: api.ObjectMeta{Namespace: "default", Name: name},
		Spec:     api.ServiceSpec{Selector: sel, Ports: []api.ServicePort{{Port: 80}}},
	}
}

// TestReconcileAdapterStepped runs the controller as the simulator does:
// it converges, follows a change, and gets over a Conflict that a stale
// cache causes by retrying once the cache catches up.
func TestReconcileAdapterStepped(t *testing.T) {
	e := newStepEnv(t)
	for _, name := range []string{"a", "b"} {
		_, err := e.srv.Create(e.ctx, service(name, map[string]string{"app": name}))
		require.NoError(t, err)
	}
	e.settle("")
	assert.Equal(t, map[string]string{"selector": "app=a"}, e.configData("a-config"))
	assert.Equal(t, map[string]string{"selector": "app=b"}, e.configData("b-config"))

	e.setSelector("b", map[string]string{"app": "b2"})
	e.settle("")
	assert.Equal(t, map[string]string{"selector": "app=b2"}, e.configData("b-config"))
	require.Zero(t, e.obs.conflicts)

	// Someone else writes a-config while the controller's ConfigMap cache
	// is held back; its next update of a-config is then at a stale
	// resourceVersion: 409.
	cm, err := client.For[*api.ConfigMap](e.srv).Get(e.ctx, "default", "a-config")
	require.NoError(t, err)
	cm = cm.DeepCopy()
	cm.Data = map[string]string{"selector": "tampered"}
	_, err = e.srv.Update(e.ctx, cm)
	require.NoError(t, err)
	e.setSelector("a", map[string]string{"app": "a2"})
	e.settle(client.ConfigMaps)
	assert.Positive(t, e.obs.conflicts, "the update at the stale version conflicts")
	assert.Positive(t, e.ctrl.Queue().NumRequeues("default/a"), "and the key is retried with backoff")

	e.settle("")
	assert.Equal(t, map[string]string{"selector": "app=a2"}, e.configData("a-config"))
	assert.Zero(t, e.ctrl.Queue().NumRequeues("default/a"), "success forgets the failures")
}

// TestReconcileAdapterRun runs the same controller live, with its informers
// and workers on goroutines, as the controller manager does.
func TestReconcileAdapterRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := clock.NewFake(epoch)
		srv, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(3, 4))})
		require.NoError(t, err)
		f := informer.NewFactory(srv, "", clk, zaptest.NewLogger(t, zaptest.Level(zap.WarnLevel)))
		ctrl := newConfigPerService(t, srv, f, clk, nil)
		ctx, cancel := context.WithCancel(context.Background())
		f.Start(ctx)
		ran := make(chan struct{})
		go func() { ctrl.Run(ctx, 2); close(ran) }()

		_, err = srv.Create(ctx, service("web", map[string]string{"app": "web"}))
		require.NoError(t, err)
		synctest.Wait()
		require.True(t, ctrl.HasSynced())
		cm, err := client.For[*api.ConfigMap](srv).Get(ctx, "default", "web-config")
		require.NoError(t, err)
		assert.Equal(t, map[string]string{"selector": "app=web"}, cm.Data)
		assert.Equal(t, "web", cm.Metadata.OwnerReferences[0].Name)

		cancel()
		<-ran
		f.Shutdown()
	})
}

func TestNewControllerRefuses(t *testing.T) {
	clk := clock.NewFake(epoch)
	srv, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(1, 2))})
	require.NoError(t, err)
	f := informer.NewFactory(srv, "", clk, nil)
	rec := func(context.Context, string) error { return nil }
	w := []loop.Watch{{Resource: client.Pods}}
	tests := []struct {
		name string
		cfg  loop.ControllerConfig
	}{
		{"no name", loop.ControllerConfig{Factory: f, Clock: clk, Reconcile: rec, Watches: w}},
		{"no factory", loop.ControllerConfig{Name: "c", Clock: clk, Reconcile: rec, Watches: w}},
		{"no clock", loop.ControllerConfig{Name: "c", Factory: f, Reconcile: rec, Watches: w}},
		{"no reconcile", loop.ControllerConfig{Name: "c", Factory: f, Clock: clk, Watches: w}},
		{"no watches", loop.ControllerConfig{Name: "c", Factory: f, Clock: clk, Reconcile: rec}},
		{"a watch without resource", loop.ControllerConfig{Name: "c", Factory: f, Clock: clk, Reconcile: rec, Watches: []loop.Watch{{}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loop.NewController(tt.cfg)
			assert.Error(t, err)
		})
	}
}

func TestOwnerKeys(t *testing.T) {
	cm := &api.ConfigMap{Metadata: api.ObjectMeta{Namespace: "ns", Name: "x", OwnerReferences: []api.OwnerReference{
		{Kind: "Service", Name: "s1"}, {Kind: "Pod", Name: "p"}, {Kind: "Service", Name: "s2"},
	}}}
	assert.Equal(t, []string{"ns/s1", "ns/s2"}, loop.OwnerKeys("Service")(cm))
	assert.Nil(t, loop.OwnerKeys("Node")(cm))
	assert.Equal(t, []string{"ns/x"}, loop.OwnKey(cm))
}
