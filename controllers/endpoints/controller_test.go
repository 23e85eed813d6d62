package endpoints

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/client/record"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/informer"
	"github.com/miniplane/miniplane/internal/testenv"
)

// recordingClient is the controller's Client over a real server: it
// records every write, and fails writes while failWith is set.
type recordingClient struct {
	srv *apiserver.Server

	mu       sync.Mutex
	writes   []string
	failWith error
	// keepHandedOver makes it keep in handedOver each object written
	// with client.Handover, and a deep copy of it made when the call
	// returned (the server fills in its metadata).
	keepHandedOver bool
	handedOver     [][2]*api.Endpoints
}

// keep remembers obj if opts hand it over.
func (r *recordingClient) keep(obj api.Object, opts []client.WriteOption) {
	var o client.WriteOptions
	for _, opt := range opts {
		opt.ApplyToWrite(&o)
	}
	if ep, ok := obj.(*api.Endpoints); ok && o.Handover && r.keepHandedOver {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.handedOver = append(r.handedOver, [2]*api.Endpoints{ep, ep.DeepCopy()})
	}
}

func (r *recordingClient) record(op string, obj api.Object) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.writes = append(r.writes, op+" "+api.KeyOf(obj.GetObjectMeta()))
	return r.failWith
}

func (r *recordingClient) Create(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error) {
	if err := r.record("create", obj); err != nil {
		return nil, err
	}
	out, err := r.srv.Create(ctx, obj, opts...)
	r.keep(obj, opts)
	return out, err
}

func (r *recordingClient) Update(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error) {
	if err := r.record("update", obj); err != nil {
		return nil, err
	}
	out, err := r.srv.Update(ctx, obj, opts...)
	r.keep(obj, opts)
	return out, err
}

func (r *recordingClient) Delete(ctx context.Context, resource, ns, name string, opts api.DeleteOptions) (api.Object, error) {
	if r.failWith != nil {
		return nil, r.record("delete", &api.Endpoints{Metadata: api.ObjectMeta{Namespace: ns, Name: name}})
	}
	obj, err := r.srv.Delete(ctx, resource, ns, name, opts)
	op := "delete"
	if apierrors.IsNotFound(err) {
		op = "delete (not found)"
	}
	_ = r.record(op, &api.Endpoints{Metadata: api.ObjectMeta{Namespace: ns, Name: name}})
	return obj, err
}

// Writes returns the writes so far and forgets them.
func (r *recordingClient) Writes() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	w := r.writes
	r.writes = nil
	return w
}

// env is a real apiserver with real informers and the controller, all
// driven by hand on a fake clock.
type env struct {
	t       testing.TB
	ctx     context.Context
	srv     *apiserver.Server
	clk     *clock.Fake
	client  *recordingClient
	factory *informer.Factory
	c       *Controller
	// held, if set, is an informer settle leaves alone: its watch events
	// wait, so its cache lags the server (a stale cache).
	held *informer.Informer
}

func newEnv(t testing.TB, mutate ...func(*Config)) *env {
	t.Helper()
	srv, clk := testenv.NewServer(t, apiserver.Config{})
	e := &env{t: t, ctx: context.Background(), srv: srv, clk: clk, client: &recordingClient{srv: srv}}
	e.start(mutate...)
	return e
}

// start makes a fresh factory and controller over the env's server, as a
// restarted controller manager would.
func (e *env) start(mutate ...func(*Config)) {
	e.t.Helper()
	log := zap.NewNop() // benchmarks: logs would be the cost measured
	if _, bench := e.t.(*testing.B); !bench {
		log = zaptest.NewLogger(e.t)
	}
	e.factory = informer.NewFactory(e.srv, "", e.clk, log)
	cfg := Config{Client: e.client, Factory: e.factory, Clock: e.clk, Logger: log,
		Recorder: record.NewEventRecorder(e.srv, e.clk, "endpoint-controller", "test")}
	for _, m := range mutate {
		m(&cfg)
	}
	c, err := New(cfg)
	require.NoError(e.t, err)
	e.c = c
}

// settleInformers delivers every pending watch event to the caches and the
// controller's handlers.
func (e *env) settleInformers() bool {
	progress := false
	for {
		moved := false
		for _, inf := range e.factory.Informers() {
			if inf == e.held {
				continue
			}
			for inf.Reflector().Step(e.ctx) {
				moved = true
			}
			for inf.ProcessOne() {
				moved = true
			}
		}
		for _, r := range e.c.Registrations() {
			for r.DispatchOne() {
				moved = true
			}
		}
		if !moved {
			return progress
		}
		progress = true
	}
}

// settle runs informers and controller until nothing is left to do.
func (e *env) settle() {
	e.t.Helper()
	for i := 0; ; i++ {
		require.Less(e.t, i, 1000, "no quiescence")
		moved := e.settleInformers()
		for e.c.ProcessOne(e.ctx) {
			moved = true
		}
		if !moved {
			return
		}
	}
}

func (e *env) create(obj api.Object) api.Object {
	e.t.Helper()
	out, err := e.srv.Create(e.ctx, obj)
	require.NoError(e.t, err)
	return out
}

// createPod creates a pod on node-1 and gives it a status: running with
// ip, ready or not. Options change the pod before it is created (spec) and
// before its status is written (status).
func (e *env) createPod(ns, name, ip string, ready bool, labels map[string]string, opts ...podOpt) *api.Pod {
	e.t.Helper()
	p := &api.Pod{
		Metadata: api.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
		Spec:     api.PodSpec{NodeName: "node-1", Containers: []api.Container{{Name: "app", Image: "nginx"}}},
	}
	status := api.PodStatus{Phase: api.PodRunning, PodIP: ip,
		Conditions: []api.PodCondition{{Type: api.PodReady, Status: api.ConditionFalse}}}
	if ready {
		status.Conditions[0].Status = api.ConditionTrue
	}
	for _, o := range opts {
		o(p)
	}
	status.Phase = cmpOr(p.Status.Phase, status.Phase)
	created := e.create(p).(*api.Pod).DeepCopy()
	created.Status = status
	out, err := e.srv.UpdateStatus(e.ctx, created)
	require.NoError(e.t, err)
	return out.(*api.Pod)
}

func cmpOr[T comparable](a, b T) T {
	var zero T
	if a != zero {
		return a
	}
	return b
}

// setReady flips a pod's Ready condition.
func (e *env) setReady(ns, name string, ready bool) {
	e.t.Helper()
	obj, err := e.srv.Get(e.ctx, client.Pods, ns, name, client.GetOptions{})
	require.NoError(e.t, err)
	p := obj.(*api.Pod).DeepCopy()
	p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionFalse}}
	if ready {
		p.Status.Conditions[0].Status = api.ConditionTrue
	}
	_, err = e.srv.UpdateStatus(e.ctx, p)
	require.NoError(e.t, err)
}

func (e *env) endpoints(ns, name string) *api.Endpoints {
	e.t.Helper()
	obj, err := e.srv.Get(e.ctx, client.Endpoints, ns, name, client.GetOptions{})
	require.NoError(e.t, err)
	return obj.(*api.Endpoints)
}

func (e *env) requireNoEndpoints(ns, name string) {
	e.t.Helper()
	_, err := e.srv.Get(e.ctx, client.Endpoints, ns, name, client.GetOptions{})
	require.True(e.t, apierrors.IsNotFound(err), "want no endpoints %s/%s, got err %v", ns, name, err)
}

var webLabels = map[string]string{"app": "web"}

func service(ns, name string, selector map[string]string, ports ...api.ServicePort) *api.Service {
	return &api.Service{
		Metadata: api.ObjectMeta{Namespace: ns, Name: name},
		Spec:     api.ServiceSpec{Selector: selector, Ports: ports},
	}
}

// ips lists the IPs of addresses.
func ips(as []api.EndpointAddress) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.IP)
	}
	return out
}

// subsetIPs summarises Endpoints as ready and not-ready IPs per subset.
type subsetIPs struct {
	Ready, NotReady []string
	Ports           []int32
}

func summary(ep *api.Endpoints) []subsetIPs {
	var out []subsetIPs
	for _, s := range ep.Subsets {
		x := subsetIPs{Ready: ips(s.Addresses), NotReady: ips(s.NotReadyAddresses)}
		for _, p := range s.Ports {
			x.Ports = append(x.Ports, p.Port)
		}
		out = append(out, x)
	}
	return out
}

func TestNewRequiresItsDependencies(t *testing.T) {
	srv, clk := testenv.NewServer(t, apiserver.Config{})
	f := informer.NewFactory(srv, "", clk, nil)
	tests := []struct {
		name string
		cfg  Config
	}{
		{"no client", Config{Factory: f, Clock: clk}},
		{"no factory", Config{Client: srv, Clock: clk}},
		{"no clock", Config{Client: srv, Factory: f}},
		{"negative batch period", Config{Client: srv, Factory: f, Clock: clk, BatchPeriod: -time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.cfg)
			assert.Error(t, err)
		})
	}
	c, err := New(Config{Client: srv, Factory: f, Clock: clk})
	require.NoError(t, err)
	assert.Equal(t, 0, c.Queue().Len(), "New starts nothing")
}

func TestHasSyncedAfterTheInitialLists(t *testing.T) {
	e := newEnv(t)
	assert.False(t, e.c.HasSynced())
	e.settleInformers()
	assert.True(t, e.c.HasSynced())
}

func TestSelectorlessServiceKeepsManualEndpoints(t *testing.T) {
	e := newEnv(t)
	e.create(service("default", "manual", nil, api.ServicePort{Port: 80}))
	manual := e.create(&api.Endpoints{
		Metadata: api.ObjectMeta{Namespace: "default", Name: "manual"},
		Subsets: []api.EndpointSubset{{Addresses: []api.EndpointAddress{{IP: "192.168.1.1"}},
			Ports: []api.EndpointPort{{Port: 80}}}},
	}).(*api.Endpoints)
	e.createPod("default", "p", "10.1.0.1", true, webLabels)
	e.settle()
	e.c.EnqueueLeftovers()
	e.settle()
	assert.Empty(t, e.client.Writes())
	assert.Equal(t, manual, e.endpoints("default", "manual"))
}

func TestServiceWithoutPodsGetsEmptyEndpoints(t *testing.T) {
	e := newEnv(t)
	svc := service("default", "web", webLabels, api.ServicePort{Port: 80})
	svc.Metadata.Labels = map[string]string{"team": "a"}
	e.create(svc)
	e.settle()
	assert.Equal(t, []string{"create default/web"}, e.client.Writes())
	ep := e.endpoints("default", "web")
	assert.Empty(t, ep.Subsets)
	assert.Equal(t, map[string]string{"team": "a"}, ep.Metadata.Labels)

	e.start() // a restarted controller finds nothing to do
	e.settle()
	assert.Empty(t, e.client.Writes())
}

func TestNoWriteWhenNothingChanged(t *testing.T) {
	e := newEnv(t)
	e.create(service("default", "web", webLabels, api.ServicePort{Port: 80}))
	e.createPod("default", "a", "10.1.0.1", true, webLabels)
	e.settle()
	require.Equal(t, []string{"create default/web"}, e.client.Writes())
	before := e.endpoints("default", "web")

	// Only the pod's resourceVersion changes.
	obj, err := e.srv.Get(e.ctx, client.Pods, "default", "a", client.GetOptions{})
	require.NoError(t, err)
	p := obj.(*api.Pod).DeepCopy()
	p.Metadata.Annotations = map[string]string{"note": "x"}
	_, err = e.srv.Update(e.ctx, p)
	require.NoError(t, err)
	e.settle()
	// Resync every service anyway: still nothing to write.
	e.c.Queue().Add("default/web")
	e.settle()
	// A restarted controller finds the same.
	e.start()
	e.settle()
	assert.Empty(t, e.client.Writes())
	assert.Equal(t, before, e.endpoints("default", "web"))
}

func TestExternalNameServiceNeverGetsEndpoints(t *testing.T) {
	tests := []struct {
		name string
		svc  *api.Service
	}{
		{"with selector", &api.Service{Metadata: api.ObjectMeta{Namespace: "default", Name: "ext"},
			Spec: api.ServiceSpec{Type: api.ServiceTypeExternalName, ExternalName: "example.com", Selector: webLabels}}},
		{"with selector and ports", &api.Service{Metadata: api.ObjectMeta{Namespace: "default", Name: "ext"},
			Spec: api.ServiceSpec{Type: api.ServiceTypeExternalName, ExternalName: "example.com", Selector: webLabels,
				Ports: []api.ServicePort{{Port: 80}}}}},
		{"without selector", &api.Service{Metadata: api.ObjectMeta{Namespace: "default", Name: "ext"},
			Spec: api.ServiceSpec{Type: api.ServiceTypeExternalName, ExternalName: "example.com"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.createPod("default", "a", "10.1.0.1", true, webLabels)
			e.create(tt.svc)
			e.settle()
			assert.Empty(t, e.client.Writes())
			e.requireNoEndpoints("default", "ext")
		})
	}
}

func TestEmptySelectorSelectsAllPodsOfTheNamespace(t *testing.T) {
	e := newEnv(t)
	e.create(&api.Namespace{Metadata: api.ObjectMeta{Name: "other"}})
	e.create(service("default", "all", map[string]string{}, api.ServicePort{Port: 80}))
	e.createPod("default", "a", "10.1.0.1", true, webLabels)
	e.createPod("default", "b", "10.1.0.2", false, map[string]string{"app": "api"})
	e.createPod("default", "c", "10.1.0.3", true, nil)
	e.createPod("other", "d", "10.1.0.4", true, webLabels)
	e.settle()
	assert.Equal(t, []subsetIPs{{Ready: []string{"10.1.0.1", "10.1.0.3"}, NotReady: []string{"10.1.0.2"}, Ports: []int32{80}}},
		summary(e.endpoints("default", "all")))
}

func TestNotReadyPodsGoToNotReadyAddresses(t *testing.T) {
	e := newEnv(t)
	e.create(service("default", "web", webLabels, api.ServicePort{Port: 80}))
	e.createPod("default", "a", "10.1.0.1", false, webLabels)
	e.createPod("default", "b", "10.1.0.2", true, webLabels)
	e.createPod("default", "c", "10.1.0.3", false, webLabels, phase(api.PodPending))
	e.settle()
	assert.Equal(t, []subsetIPs{{Ready: []string{"10.1.0.2"}, NotReady: []string{"10.1.0.1", "10.1.0.3"}, Ports: []int32{80}}},
		summary(e.endpoints("default", "web")))
}

func TestPublishNotReadyAddresses(t *testing.T) {
	e := newEnv(t)
	svc := service("default", "peers", webLabels, api.ServicePort{Port: 80})
	svc.Spec.PublishNotReadyAddresses = true
	e.create(svc)
	e.createPod("default", "a", "10.1.0.1", false, webLabels)
	e.createPod("default", "b", "10.1.0.2", true, webLabels)
	e.createPod("default", "c", "10.1.0.3", false, webLabels)
	_, err := e.srv.Delete(e.ctx, client.Pods, "default", "c", api.DeleteOptions{})
	require.NoError(t, err)
	e.settle()
	c, err := e.srv.Get(e.ctx, client.Pods, "default", "c", client.GetOptions{})
	require.NoError(t, err)
	require.NotNil(t, c.GetObjectMeta().DeletionTimestamp, "c is terminating")
	assert.Equal(t, []subsetIPs{{Ready: []string{"10.1.0.1", "10.1.0.2", "10.1.0.3"}, Ports: []int32{80}}},
		summary(e.endpoints("default", "peers")))
}

func TestTerminatingPodsLeaveEndpoints(t *testing.T) {
	e := newEnv(t)
	e.create(service("default", "web", webLabels, api.ServicePort{Port: 80}))
	e.createPod("default", "a", "10.1.0.1", true, webLabels)
	e.createPod("default", "b", "10.1.0.2", true, webLabels)
	e.settle()
	require.Equal(t, []string{"10.1.0.1", "10.1.0.2"}, ips(e.endpoints("default", "web").Subsets[0].Addresses))
	e.client.Writes()

	_, err := e.srv.Delete(e.ctx, client.Pods, "default", "b", api.DeleteOptions{})
	require.NoError(t, err)
	e.settle()
	assert.Equal(t, []string{"update default/web"}, e.client.Writes())
	assert.Equal(t, []subsetIPs{{Ready: []string{"10.1.0.1"}, Ports: []int32{80}}}, summary(e.endpoints("default", "web")))
}

func TestNamedTargetPortsResolvePerPod(t *testing.T) {
	e := newEnv(t)
	e.create(service("default", "web", webLabels,
		api.ServicePort{Name: "http", Port: 80, TargetPort: api.FromString("http")},
		api.ServicePort{Name: "admin", Port: 81, TargetPort: api.FromInt(9000)}))
	e.createPod("default", "a", "10.1.0.1", true, webLabels, containerPort("http", 8080))
	e.createPod("default", "b", "10.1.0.2", true, webLabels, containerPort("http", 8081))
	e.createPod("default", "c", "10.1.0.3", true, webLabels) // no "http" port
	e.settle()
	ep := e.endpoints("default", "web")
	assert.Equal(t, []subsetIPs{
		{Ready: []string{"10.1.0.1", "10.1.0.2", "10.1.0.3"}, Ports: []int32{9000}},
		{Ready: []string{"10.1.0.1"}, Ports: []int32{8080}},
		{Ready: []string{"10.1.0.2"}, Ports: []int32{8081}},
	}, summary(ep))
	assert.Equal(t, "admin", ep.Subsets[0].Ports[0].Name)
	assert.Equal(t, "http", ep.Subsets[1].Ports[0].Name)
	assert.Equal(t, api.ProtocolTCP, ep.Subsets[1].Ports[0].Protocol)
}

func TestHeadlessServices(t *testing.T) {
	tests := []struct {
		name  string
		ports []api.ServicePort
		want  []subsetIPs
	}{
		{"without ports", nil, []subsetIPs{{Ready: []string{"10.1.0.1"}, NotReady: []string{"10.1.0.2"}}}},
		{"with ports", []api.ServicePort{{Port: 80}}, []subsetIPs{{Ready: []string{"10.1.0.1"}, NotReady: []string{"10.1.0.2"}, Ports: []int32{80}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			svc := service("default", "web", webLabels, tt.ports...)
			svc.Spec.ClusterIP = api.ClusterIPNone
			svc.Metadata.Labels = map[string]string{"team": "a"}
			e.create(svc)
			e.createPod("default", "a", "10.1.0.1", true, webLabels)
			e.createPod("default", "b", "10.1.0.2", false, webLabels)
			e.settle()
			ep := e.endpoints("default", "web")
			assert.Equal(t, tt.want, summary(ep))
			assert.Equal(t, map[string]string{"team": "a", LabelHeadless: ""}, ep.Metadata.Labels)
			e.client.Writes()
			e.c.Queue().Add("default/web")
			e.settle()
			assert.Empty(t, e.client.Writes(), "the headless label alone causes no write")
		})
	}
}

func TestTerminalPodsExcluded(t *testing.T) {
	tests := []struct {
		name    string
		restart api.RestartPolicy
		phase   api.PodPhase
	}{
		{"restart Never, Failed", api.RestartPolicyNever, api.PodFailed},
		{"restart Never, Succeeded", api.RestartPolicyNever, api.PodSucceeded},
		{"restart OnFailure, Succeeded", api.RestartPolicyOnFailure, api.PodSucceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.create(service("default", "web", webLabels, api.ServicePort{Port: 80}))
			e.createPod("default", "done", "10.1.0.1", false, webLabels,
				func(p *api.Pod) { p.Spec.RestartPolicy = tt.restart; p.Status.Phase = tt.phase })
			e.createPod("default", "live", "10.1.0.2", true, webLabels)
			e.settle()
			assert.Equal(t, []subsetIPs{{Ready: []string{"10.1.0.2"}, Ports: []int32{80}}}, summary(e.endpoints("default", "web")))
		})
	}
}

func TestDeletedServiceLosesItsEndpoints(t *testing.T) {
	e := newEnv(t)
	e.create(service("default", "web", webLabels, api.ServicePort{Port: 80}))
	e.createPod("default", "a", "10.1.0.1", true, webLabels)
	e.settle()
	e.endpoints("default", "web")
	e.client.Writes()

	_, err := e.srv.Delete(e.ctx, client.Services, "default", "web", api.DeleteOptions{})
	require.NoError(t, err)
	e.settle()
	// As in Kubernetes, the Endpoints' own deletion queues the service
	// again, whose sync deletes once more and finds nothing.
	assert.Equal(t, []string{"delete default/web", "delete (not found) default/web"}, e.client.Writes())
	e.requireNoEndpoints("default", "web")
}

func TestOrphanedEndpointsDeletedAtStart(t *testing.T) {
	e := newEnv(t)
	e.create(&api.Endpoints{Metadata: api.ObjectMeta{Namespace: "default", Name: "orphan"}})
	e.create(&api.Endpoints{Metadata: api.ObjectMeta{Namespace: "default", Name: "lock",
		Annotations: map[string]string{AnnotationLeader: `{"holderIdentity":"x"}`}}})
	e.create(service("default", "web", webLabels, api.ServicePort{Port: 80}))
	e.create(&api.Endpoints{Metadata: api.ObjectMeta{Namespace: "default", Name: "web"}})
	e.settleInformers()
	e.c.EnqueueLeftovers()
	e.settle()
	assert.Equal(t, []string{"delete default/orphan", "delete (not found) default/orphan"}, e.client.Writes())
	e.requireNoEndpoints("default", "orphan")
	e.endpoints("default", "lock")
	e.endpoints("default", "web")
}

func TestPodReadyNotReadyReady(t *testing.T) {
	e := newEnv(t)
	e.create(service("default", "web", webLabels, api.ServicePort{Port: 80}))
	e.createPod("default", "a", "10.1.0.1", true, webLabels)
	e.settle()
	steps := []struct {
		ready bool
		want  []subsetIPs
	}{
		{false, []subsetIPs{{NotReady: []string{"10.1.0.1"}, Ports: []int32{80}}}},
		{true, []subsetIPs{{Ready: []string{"10.1.0.1"}, Ports: []int32{80}}}},
	}
	assert.Equal(t, steps[1].want, summary(e.endpoints("default", "web")))
	assert.Equal(t, []string{"create default/web"}, e.client.Writes())
	for _, s := range steps {
		e.setReady("default", "a", s.ready)
		e.settle()
		assert.Equal(t, s.want, summary(e.endpoints("default", "web")), "ready=%v", s.ready)
		assert.Equal(t, []string{"update default/web"}, e.client.Writes(), "ready=%v", s.ready)
	}
}

// TestHandedOverEndpointsStayAsWritten checks that the controller hands
// every Endpoints it writes over to the Client, and that nothing it does
// afterwards (later syncs of the service, which reuse the packer and share
// unchanged addresses with the stored object) changes any of them.
func TestHandedOverEndpointsStayAsWritten(t *testing.T) {
	e := newEnv(t)
	e.client.keepHandedOver = true
	e.create(service("default", "web", webLabels, api.ServicePort{Name: "http", Port: 80}, api.ServicePort{Name: "alt", Port: 81}))
	for i, name := range []string{"a", "b", "c"} {
		e.createPod("default", name, fmt.Sprintf("10.1.0.%d", i+1), true, webLabels)
	}
	e.settle()
	for _, step := range []struct {
		pod   string
		ready bool
	}{{"b", false}, {"a", false}, {"b", true}, {"c", false}, {"a", true}} {
		e.setReady("default", step.pod, step.ready)
		e.settle()
	}
	e.createPod("default", "d", "10.1.0.4", true, webLabels)
	e.settle()
	_, err := e.srv.Delete(e.ctx, client.Pods, "default", "c", api.DeleteOptions{})
	require.NoError(t, err)
	e.settle()

	writes := e.client.Writes()
	require.Len(t, writes, 8, "a create and an update per change: %v", writes)
	require.Len(t, e.client.handedOver, len(writes), "every write hands its object over")
	for i, h := range e.client.handedOver {
		assert.Equal(t, h[1], h[0], "write %d (%s) changed after it was handed over", i, writes[i])
	}
	assert.Equal(t, []subsetIPs{{Ready: []string{"10.1.0.1", "10.1.0.2", "10.1.0.4"}, Ports: []int32{81, 80}}},
		summary(e.endpoints("default", "web")))
}

func TestDeletedEndpointsAreRecreated(t *testing.T) {
	e := newEnv(t)
	e.create(service("default", "web", webLabels, api.ServicePort{Port: 80}))
	e.createPod("default", "a", "10.1.0.1", true, webLabels)
	e.settle()
	e.client.Writes()
	_, err := e.srv.Delete(e.ctx, client.Endpoints, "default", "web", api.DeleteOptions{})
	require.NoError(t, err)
	e.settle()
	assert.Equal(t, []string{"create default/web"}, e.client.Writes())
	assert.Equal(t, []subsetIPs{{Ready: []string{"10.1.0.1"}, Ports: []int32{80}}}, summary(e.endpoints("default", "web")))
}

func TestServiceLabelsFollowed(t *testing.T) {
	e := newEnv(t)
	e.create(service("default", "web", webLabels, api.ServicePort{Port: 80}))
	e.settle()
	obj, err := e.srv.Get(e.ctx, client.Services, "default", "web", client.GetOptions{})
	require.NoError(t, err)
	svc := obj.(*api.Service).DeepCopy()
	svc.Metadata.Labels = map[string]string{"team": "b"}
	_, err = e.srv.Update(e.ctx, svc)
	require.NoError(t, err)
	e.client.Writes()
	e.settle()
	assert.Equal(t, []string{"update default/web"}, e.client.Writes())
	assert.Equal(t, map[string]string{"team": "b"}, e.endpoints("default", "web").Metadata.Labels)
}

func TestPodRelabelMovesBetweenServices(t *testing.T) {
	e := newEnv(t)
	e.create(service("default", "web", webLabels, api.ServicePort{Port: 80}))
	e.create(service("default", "api", map[string]string{"app": "api"}, api.ServicePort{Port: 80}))
	e.createPod("default", "a", "10.1.0.1", true, webLabels)
	e.settle()
	e.client.Writes()
	obj, err := e.srv.Get(e.ctx, client.Pods, "default", "a", client.GetOptions{})
	require.NoError(t, err)
	p := obj.(*api.Pod).DeepCopy()
	p.Metadata.Labels = map[string]string{"app": "api"}
	_, err = e.srv.Update(e.ctx, p)
	require.NoError(t, err)
	e.settle()
	w := e.client.Writes()
	slices.Sort(w)
	assert.Equal(t, []string{"update default/api", "update default/web"}, w)
	assert.Empty(t, e.endpoints("default", "web").Subsets)
	assert.Equal(t, []subsetIPs{{Ready: []string{"10.1.0.1"}, Ports: []int32{80}}}, summary(e.endpoints("default", "api")))
}

// TestPodChangesBatched: with a batch period, a burst of pod changes makes
// one write, when the period has passed on the clock.
func TestPodChangesBatched(t *testing.T) {
	e := newEnv(t, func(c *Config) { c.BatchPeriod = time.Second })
	e.create(service("default", "web", webLabels, api.ServicePort{Port: 80}))
	e.settle()
	require.Equal(t, []string{"create default/web"}, e.client.Writes())

	e.createPod("default", "a", "10.1.0.1", true, webLabels)
	e.createPod("default", "b", "10.1.0.2", true, webLabels)
	e.settle()
	e.setReady("default", "a", false)
	e.settle()
	assert.Empty(t, e.client.Writes(), "nothing before the batch period")
	e.clk.Step(time.Second)
	e.settle()
	assert.Equal(t, []string{"update default/web"}, e.client.Writes())
	assert.Equal(t, []subsetIPs{{Ready: []string{"10.1.0.2"}, NotReady: []string{"10.1.0.1"}, Ports: []int32{80}}},
		summary(e.endpoints("default", "web")))
}

// TestStaleCacheNoWrite: after its own update, the controller does not act
// on a cache that still holds the replaced Endpoints; the wait is neither
// a counted failure nor a timer, and the cache catching up queues the
// service, which is then written.
func TestStaleCacheNoWrite(t *testing.T) {
	e := newEnv(t)
	e.create(service("default", "web", webLabels, api.ServicePort{Port: 80}))
	e.createPod("default", "a", "10.1.0.1", true, webLabels)
	e.settle()
	e.client.Writes()
	epInf := e.factory.ForResource(client.Endpoints)
	podInf := e.factory.ForResource(client.Pods)
	stepPods := func() {
		for podInf.Reflector().Step(e.ctx) || podInf.ProcessOne() || e.c.regs[0].DispatchOne() {
		}
	}

	// Not ready: the controller updates the Endpoints; the endpoints cache
	// is not told.
	e.setReady("default", "a", false)
	stepPods()
	require.True(t, e.c.ProcessOne(e.ctx))
	require.Equal(t, []string{"update default/web"}, e.client.Writes())
	// Ready again while the endpoints cache lags: no write on the stale view.
	e.setReady("default", "a", true)
	stepPods()
	require.True(t, e.c.ProcessOne(e.ctx))
	assert.Empty(t, e.client.Writes(), "no write from a stale cache")
	assert.Equal(t, 0, e.c.Queue().NumRequeues("default/web"), "the wait is not counted as a failure")
	_, parked := e.c.Queue().NextDelayed()
	assert.False(t, parked, "no timer: the key waits for the cache")
	assert.Equal(t, 0, e.c.Queue().Len())

	for epInf.Reflector().Step(e.ctx) || epInf.ProcessOne() || e.c.regs[2].DispatchOne() {
	}
	assert.Equal(t, 1, e.c.Queue().Len(), "the cache catching up queues the service")
	e.settle()
	assert.Equal(t, []string{"update default/web"}, e.client.Writes())
	assert.Equal(t, []subsetIPs{{Ready: []string{"10.1.0.1"}, Ports: []int32{80}}}, summary(e.endpoints("default", "web")))
	assert.Equal(t, 0, e.c.Queue().NumRequeues("default/web"), "forgotten after success")
}

// TestStaleCacheRetriedWhenCacheCatchesUp: a sync that finds the
// endpoints cache still holding the version the controller's own update
// replaced waits for the cache however long it lags, past the whole retry
// budget too, and writes once the cache has caught up. (The simulator's
// seed 991: the key used to be dropped after MaxRetries stale retries, and
// the Endpoints stayed wrong for good.)
func TestStaleCacheRetriedWhenCacheCatchesUp(t *testing.T) {
	tests := []struct {
		name string
		lag  time.Duration // how long the endpoints cache lags after the stale sync
	}{
		{name: "caught up at once", lag: 0},
		{name: "caught up after a few backoffs", lag: 100 * time.Millisecond},
		{name: "held past the retry budget", lag: time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.create(service("default", "web", webLabels, api.ServicePort{Port: 80}))
			e.createPod("default", "a", "10.1.0.1", true, webLabels)
			e.settle()
			e.client.Writes()

			// The controller's update is not shown to its endpoints cache.
			e.held = e.factory.ForResource(client.Endpoints)
			e.setReady("default", "a", false)
			e.settle()
			require.Equal(t, []string{"update default/web"}, e.client.Writes())
			// Ready again: the sync finds the cache stale, and so does every
			// retry while the cache lags.
			e.setReady("default", "a", true)
			e.settle()
			end := e.clk.Now().Add(tt.lag)
			for {
				next, ok := e.c.Queue().NextDelayed()
				if !ok || next.After(end) {
					break
				}
				e.clk.SetTime(next)
				e.settle()
			}
			e.clk.SetTime(end)
			e.settle()
			require.Empty(t, e.client.Writes(), "no write from a stale cache")

			// The cache catches up: the service is synced again and written.
			e.held = nil
			e.settle()
			for i := 0; ; i++ {
				next, ok := e.c.Queue().NextDelayed()
				if !ok {
					break
				}
				require.Less(t, i, MaxRetries+1, "the queue never empties")
				e.clk.SetTime(next)
				e.settle()
			}
			assert.Equal(t, []string{"update default/web"}, e.client.Writes())
			assert.Equal(t, []subsetIPs{{Ready: []string{"10.1.0.1"}, Ports: []int32{80}}},
				summary(e.endpoints("default", "web")))
			assert.Equal(t, 0, e.c.Queue().NumRequeues("default/web"), "no backoff left")
		})
	}
}

// TestFailedWriteRetriedWithEvent: a failed write records a Warning event
// on the service and is retried after a backoff.
func TestFailedWriteRetriedWithEvent(t *testing.T) {
	e := newEnv(t)
	e.client.failWith = errors.New("injected")
	e.create(service("default", "web", webLabels, api.ServicePort{Port: 80}))
	e.settle()
	assert.Equal(t, []string{"create default/web"}, e.client.Writes())
	assert.Equal(t, 1, e.c.Queue().NumRequeues("default/web"))
	evs, _, err := client.For[*api.Event](e.srv).List(e.ctx, "default", client.ListOptions{})
	require.NoError(t, err)
	require.Len(t, evs, 1)
	assert.Equal(t, "FailedToCreateEndpoint", evs[0].Reason)
	assert.Equal(t, api.EventTypeWarning, evs[0].Type)
	assert.Equal(t, "web", evs[0].InvolvedObject.Name)
	assert.Equal(t, "Service", evs[0].InvolvedObject.Kind)

	e.client.failWith = nil
	next, ok := e.c.Queue().NextDelayed()
	require.True(t, ok)
	e.clk.SetTime(next)
	e.settle()
	assert.Equal(t, []string{"create default/web"}, e.client.Writes())
	e.endpoints("default", "web")
}

// TestRunDeletesOrphansAndStops runs the live loop: Run waits for the
// caches, deletes a leftover, follows a new service, and returns when its
// context ends.
func TestRunDeletesOrphansAndStops(t *testing.T) {
	srv, clk := testenv.NewServer(t, apiserver.Config{})
	ctx := context.Background()
	_, err := srv.Create(ctx, &api.Endpoints{Metadata: api.ObjectMeta{Namespace: "default", Name: "orphan"}})
	require.NoError(t, err)
	log := zaptest.NewLogger(t)
	f := informer.NewFactory(srv, "", clk, log)
	c, err := New(Config{Client: srv, Factory: f, Clock: clk, Logger: log})
	require.NoError(t, err)

	runCtx, cancel := context.WithCancel(ctx)
	f.Start(runCtx)
	done := make(chan struct{})
	go func() { defer close(done); c.Run(runCtx, 2) }()

	gone := func(name string) func() bool {
		return func() bool {
			_, err := srv.Get(ctx, client.Endpoints, "default", name, client.GetOptions{})
			return apierrors.IsNotFound(err)
		}
	}
	require.Eventually(t, gone("orphan"), 5*time.Second, time.Millisecond)
	_, err = srv.Create(ctx, service("default", "web", webLabels, api.ServicePort{Port: 80}))
	require.NoError(t, err)
	require.Eventually(t, func() bool { return !gone("web")() }, 5*time.Second, time.Millisecond)

	cancel()
	<-done
	f.Shutdown()
	assert.True(t, c.Queue().ShuttingDown())
}

// TestOverCapacityTruncatedAndAnnotated: past MaxEndpointsPerObject
// addresses the Endpoints are truncated and annotated; back under, the
// annotation goes.
func TestOverCapacityTruncatedAndAnnotated(t *testing.T) {
	e := newEnv(t)
	e.create(service("default", "web", webLabels, api.ServicePort{Port: 80}))
	for i := range MaxEndpointsPerObject + 1 {
		ip := fmt.Sprintf("10.1.%d.%d", i/250, i%250+1)
		e.createPod("default", fmt.Sprintf("p%04d", i), ip, true, webLabels)
	}
	e.settle()
	ep := e.endpoints("default", "web")
	require.Len(t, ep.Subsets, 1)
	assert.Len(t, ep.Subsets[0].Addresses, MaxEndpointsPerObject)
	assert.Equal(t, "truncated", ep.Metadata.Annotations[AnnotationOverCapacity])
	e.client.Writes()

	e.c.Queue().Add("default/web")
	e.settle()
	assert.Empty(t, e.client.Writes(), "truncated and unchanged: no write")

	_, err := e.srv.Delete(e.ctx, client.Pods, "default", "p0000", api.DeleteOptions{})
	require.NoError(t, err)
	e.settle()
	ep = e.endpoints("default", "web")
	assert.Len(t, ep.Subsets[0].Addresses, MaxEndpointsPerObject)
	assert.NotContains(t, ep.Metadata.Annotations, AnnotationOverCapacity)
}

func TestProcessOneDoesNothingAfterCancel(t *testing.T) {
	e := newEnv(t)
	e.create(service("default", "web", webLabels, api.ServicePort{Port: 80}))
	e.settleInformers()
	require.Equal(t, 1, e.c.Queue().Len())
	ctx, cancel := context.WithCancel(e.ctx)
	cancel()
	assert.False(t, e.c.ProcessOne(ctx))
	assert.Empty(t, e.client.Writes())
	assert.True(t, e.c.ProcessOne(e.ctx))
	assert.Equal(t, []string{"create default/web"}, e.client.Writes())
}

// TestTerminatingPodPublishedUntilGone: a service publishing not-ready
// addresses keeps a terminating pod until the pod is removed.
func TestTerminatingPodPublishedUntilGone(t *testing.T) {
	e := newEnv(t)
	svc := service("default", "peers", webLabels, api.ServicePort{Port: 80})
	svc.Spec.PublishNotReadyAddresses = true
	e.create(svc)
	e.createPod("default", "a", "10.1.0.1", true, webLabels)
	e.createPod("default", "b", "10.1.0.2", true, webLabels)
	e.settle()
	e.client.Writes()

	_, err := e.srv.Delete(e.ctx, client.Pods, "default", "b", api.DeleteOptions{})
	require.NoError(t, err)
	e.settle()
	assert.Empty(t, e.client.Writes(), "terminating, still published")
	assert.Equal(t, []subsetIPs{{Ready: []string{"10.1.0.1", "10.1.0.2"}, Ports: []int32{80}}}, summary(e.endpoints("default", "peers")))

	e.clk.Step(time.Duration(apiserver.DefaultTerminationGracePeriodSeconds) * time.Second)
	require.Equal(t, 1, e.srv.Sweep(), "the grace period ended: the pod is removed")
	e.settle()
	assert.Equal(t, []string{"update default/peers"}, e.client.Writes())
	assert.Equal(t, []subsetIPs{{Ready: []string{"10.1.0.1"}, Ports: []int32{80}}}, summary(e.endpoints("default", "peers")))
}

// TestPodDeleteTombstoneQueuesServices: a deletion the informer missed
// (a tombstone) queues the pod's services like a seen one.
func TestPodDeleteTombstoneQueuesServices(t *testing.T) {
	e := newEnv(t)
	e.create(service("default", "web", webLabels, api.ServicePort{Port: 80}))
	e.create(service("default", "api", map[string]string{"app": "api"}, api.ServicePort{Port: 80}))
	e.settle()
	pod := testPod("a", "10.1.0.1")
	e.c.onPodDelete(informer.DeletedFinalStateUnknown{Key: "default/a", Obj: pod})
	key, ok, _ := e.c.Queue().TryGet()
	require.True(t, ok)
	assert.Equal(t, "default/web", key)
	e.c.Queue().Done(key)
	assert.Equal(t, 0, e.c.Queue().Len(), "only the pod's own services")
}

// TestCreateInTerminatingNamespaceDropped: a create refused because the
// namespace is being deleted is not retried and records no event.
func TestCreateInTerminatingNamespaceDropped(t *testing.T) {
	e := newEnv(t)
	e.create(&api.Namespace{Metadata: api.ObjectMeta{Name: "gone"}})
	e.create(service("gone", "web", webLabels, api.ServicePort{Port: 80}))
	e.settleInformers()
	_, err := e.srv.Delete(e.ctx, client.Namespaces, "", "gone", api.DeleteOptions{})
	require.NoError(t, err)
	require.True(t, e.c.ProcessOne(e.ctx))
	assert.Equal(t, []string{"create gone/web"}, e.client.Writes())
	assert.Equal(t, 0, e.c.Queue().NumRequeues("gone/web"), "not retried")
	_, ok := e.c.Queue().NextDelayed()
	assert.False(t, ok, "nothing parked for a retry")
	evs, _, err := client.For[*api.Event](e.srv).List(e.ctx, "", client.ListOptions{})
	require.NoError(t, err)
	assert.Empty(t, evs)
}

// TestFailingSyncDroppedAfterMaxRetries: a key that keeps failing is
// retried MaxRetries times with backoff, then dropped.
func TestFailingSyncDroppedAfterMaxRetries(t *testing.T) {
	e := newEnv(t)
	e.client.failWith = errors.New("injected")
	e.create(service("default", "web", webLabels, api.ServicePort{Port: 80}))
	e.settle()
	for {
		next, ok := e.c.Queue().NextDelayed()
		if !ok {
			break
		}
		e.clk.SetTime(next)
		e.settle()
	}
	assert.Len(t, e.client.Writes(), MaxRetries+1, "the first try and MaxRetries retries")
	assert.Equal(t, 0, e.c.Queue().NumRequeues("default/web"), "forgotten when dropped")
}

// TestServiceRecreatedWhileEndpointsCacheLags is MultipleServiceChanges: a
// service deleted and created again before the endpoints cache has seen its
// Endpoints go still ends up with Endpoints, once the cache catches up.
func TestServiceRecreatedWhileEndpointsCacheLags(t *testing.T) {
	e := newEnv(t)
	e.create(service("default", "web", webLabels, api.ServicePort{Port: 80}))
	e.createPod("default", "a", "10.1.0.1", true, webLabels)
	e.settle()
	e.client.Writes()
	svcInf := e.factory.ForResource(client.Services)
	epInf := e.factory.ForResource(client.Endpoints)
	stepServices := func() {
		for svcInf.Reflector().Step(e.ctx) || svcInf.ProcessOne() || e.c.regs[1].DispatchOne() {
		}
	}

	_, err := e.srv.Delete(e.ctx, client.Services, "default", "web", api.DeleteOptions{})
	require.NoError(t, err)
	stepServices()
	require.True(t, e.c.ProcessOne(e.ctx))
	require.Equal(t, []string{"delete default/web"}, e.client.Writes())

	// Recreated while the endpoints cache still shows the deleted object.
	e.create(service("default", "web", webLabels, api.ServicePort{Port: 80}))
	stepServices()
	for e.c.ProcessOne(e.ctx) {
	}
	e.client.Writes() // whatever it did on the stale view

	for epInf.Reflector().Step(e.ctx) || epInf.ProcessOne() || e.c.regs[2].DispatchOne() {
	}
	e.settle()
	if next, ok := e.c.Queue().NextDelayed(); ok {
		e.clk.SetTime(next)
		e.settle()
	}
	assert.Equal(t, []subsetIPs{{Ready: []string{"10.1.0.1"}, Ports: []int32{80}}}, summary(e.endpoints("default", "web")),
		"the Endpoints are back")
}
