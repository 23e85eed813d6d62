package endpointslice

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/informer"
	"github.com/miniplane/miniplane/internal/testenv"
)

// env is a real API server, real informers and the controller, stepped by
// hand on a fake clock.
type env struct {
	t   *testing.T
	ctx context.Context
	srv *apiserver.Server
	f   *informer.Factory
	c   *Controller
}

func newEnv(t *testing.T) *env {
	srv, clk := testenv.NewServer(t, apiserver.Config{})
	f := informer.NewFactory(srv, "", clk, testenv.Logger(t))
	c, err := New(Config{Client: srv, Factory: f, Clock: clk, Logger: testenv.Logger(t)})
	require.NoError(t, err)
	e := &env{t: t, ctx: context.Background(), srv: srv, f: f, c: c}
	e.create(&api.Node{Metadata: api.ObjectMeta{Name: "node-1", Labels: map[string]string{LabelZone: "zone-a"}}})
	return e
}

func (e *env) settle() {
	e.t.Helper()
	var steps []func() bool
	for _, inf := range e.f.Informers() {
		steps = append(steps, func() bool { return inf.Reflector().Step(e.ctx) }, inf.ProcessOne)
	}
	for _, r := range e.c.Registrations() {
		steps = append(steps, r.DispatchOne)
	}
	steps = append(steps, func() bool { return e.c.ProcessOne(e.ctx) })
	testenv.Settle(e.t, 0, steps...)
}

func (e *env) create(obj api.Object) api.Object {
	e.t.Helper()
	out, err := e.srv.Create(e.ctx, obj)
	require.NoError(e.t, err)
	return out
}

// pod creates a running pod on node-1 with an IP, ready or not.
func (e *env) pod(name, ip string, ready bool) *api.Pod {
	e.t.Helper()
	p := e.create(&api.Pod{
		Metadata: api.ObjectMeta{Namespace: "default", Name: name, Labels: map[string]string{"app": "web"}},
		Spec: api.PodSpec{NodeName: "node-1", Containers: []api.Container{{Name: "app", Image: "nginx",
			Ports: []api.ContainerPort{{Name: "http", ContainerPort: 8080}}}}},
	}).(*api.Pod).DeepCopy()
	status := api.ConditionFalse
	if ready {
		status = api.ConditionTrue
	}
	p.Status = api.PodStatus{Phase: api.PodRunning, PodIP: ip, PodIPs: []api.PodIP{{IP: ip}},
		Conditions: []api.PodCondition{{Type: api.PodReady, Status: status}}}
	out, err := e.srv.UpdateStatus(e.ctx, p)
	require.NoError(e.t, err)
	return out.(*api.Pod)
}

// slices returns the service's slices, by name.
func (e *env) slices(svc string) []*api.EndpointSlice {
	e.t.Helper()
	list, err := e.srv.List(e.ctx, client.EndpointSlices, "default", client.ListOptions{LabelSelector: LabelServiceName + "=" + svc})
	require.NoError(e.t, err)
	var out []*api.EndpointSlice
	for _, o := range list.Items {
		out = append(out, o.(*api.EndpointSlice))
	}
	return out
}

// addresses lists a slice's endpoints as "ip ready/serving/terminating".
func addresses(s *api.EndpointSlice) []string {
	var out []string
	for _, ep := range s.Endpoints {
		b := func(p *bool) string {
			if *p {
				return "T"
			}
			return "F"
		}
		out = append(out, ep.Addresses[0]+" "+b(ep.Conditions.Ready)+b(ep.Conditions.Serving)+b(ep.Conditions.Terminating))
	}
	slices.Sort(out)
	return out
}

func webService() *api.Service {
	return &api.Service{
		Metadata: api.ObjectMeta{Namespace: "default", Name: "web", Labels: map[string]string{"team": "a"}},
		Spec: api.ServiceSpec{Selector: map[string]string{"app": "web"},
			Ports: []api.ServicePort{{Name: "http", Port: 80, TargetPort: api.FromString("http")}}},
	}
}

func TestNewRequiresItsDependencies(t *testing.T) {
	srv, clk := testenv.NewServer(t, apiserver.Config{})
	f := informer.NewFactory(srv, "", clk, nil)
	for _, cfg := range []Config{
		{Factory: f, Clock: clk},
		{Client: srv, Clock: clk},
		{Client: srv, Factory: f},
		{Client: srv, Factory: f, Clock: clk, MaxEndpointsPerSlice: 1001},
	} {
		_, err := New(cfg)
		assert.Error(t, err)
	}
}

// A service's slice follows its pods: created with the ready ones, updated
// as a pod turns unready and as one terminates, and back to an empty
// placeholder when none is left. The slice carries the service's labels,
// its name, the managed-by label, the owner reference and the ports
// resolved on the pods.
func TestSliceFollowsPods(t *testing.T) {
	e := newEnv(t)
	svc := e.create(webService()).(*api.Service)
	e.pod("a", "10.0.0.1", true)
	e.pod("b", "10.0.0.2", false)
	e.settle()

	got := e.slices("web")
	require.Len(t, got, 1)
	s := got[0]
	assert.Regexp(t, "^web-[a-z0-9]{5}$", s.Metadata.Name)
	assert.Equal(t, map[string]string{"team": "a", LabelServiceName: "web", LabelManagedBy: ControllerName}, s.Metadata.Labels)
	assert.Equal(t, svc.Metadata.UID, s.Metadata.OwnerReferences[0].UID)
	assert.Equal(t, api.AddressTypeIPv4, s.AddressType)
	require.Len(t, s.Ports, 1)
	assert.Equal(t, int32(8080), *s.Ports[0].Port)
	assert.Equal(t, "http", *s.Ports[0].Name)
	assert.Equal(t, []string{"10.0.0.1 TTF", "10.0.0.2 FFF"}, addresses(s))
	assert.Equal(t, "zone-a", *s.Endpoints[0].Zone)
	assert.Contains(t, s.Metadata.Annotations, "endpoints.kubernetes.io/last-change-trigger-time")

	// Terminating: kept, not ready, still serving.
	_, err := e.srv.Delete(e.ctx, client.Pods, "default", "a", api.DeleteOptions{})
	require.NoError(t, err)
	e.settle()
	got = e.slices("web")
	require.Len(t, got, 1)
	assert.Equal(t, s.Metadata.Name, got[0].Metadata.Name, "updated in place")
	assert.Equal(t, []string{"10.0.0.1 FTT", "10.0.0.2 FFF"}, addresses(got[0]))

	for _, name := range []string{"a", "b"} {
		_, err := e.srv.Delete(e.ctx, client.Pods, "default", name, api.DeleteOptions{GracePeriodSeconds: new(int64)})
		require.NoError(t, err)
	}
	e.settle()
	got = e.slices("web")
	require.Len(t, got, 1)
	assert.Empty(t, got[0].Endpoints, "the placeholder")
	assert.Empty(t, got[0].Ports)
}

// A slice deleted by hand is put back; one changed by hand is put right;
// a service without a selector gets none from this controller.
func TestSlicesKeptAgainstOtherWriters(t *testing.T) {
	e := newEnv(t)
	e.create(webService())
	e.pod("a", "10.0.0.1", true)
	e.create(&api.Service{Metadata: api.ObjectMeta{Namespace: "default", Name: "manual"},
		Spec: api.ServiceSpec{Ports: []api.ServicePort{{Port: 80}}}})
	e.settle()
	require.Len(t, e.slices("web"), 1)
	assert.Empty(t, e.slices("manual"))

	s := e.slices("web")[0].DeepCopy()
	s.Endpoints = nil
	_, err := e.srv.Update(e.ctx, s)
	require.NoError(t, err)
	e.settle()
	assert.Equal(t, []string{"10.0.0.1 TTF"}, addresses(e.slices("web")[0]))

	_, err = e.srv.Delete(e.ctx, client.EndpointSlices, "default", s.Metadata.Name, api.DeleteOptions{})
	require.NoError(t, err)
	e.settle()
	got := e.slices("web")
	require.Len(t, got, 1)
	assert.NotEqual(t, s.Metadata.Name, got[0].Metadata.Name)
	assert.Equal(t, []string{"10.0.0.1 TTF"}, addresses(got[0]))
}

// WriteTracker: a cache that does not show the controller's writes is
// stale; one that does is not; a deletion counts until the cache shows it.
func TestWriteTrackerStale(t *testing.T) {
	slice := func(uid string, gen int64) *api.EndpointSlice {
		return &api.EndpointSlice{Metadata: api.ObjectMeta{UID: api.UID(uid), Generation: gen}}
	}
	tests := []struct {
		name   string
		wrote  map[api.UID]int64
		cached []*api.EndpointSlice
		stale  bool
	}{
		{"nothing written", nil, []*api.EndpointSlice{slice("a", 1)}, false},
		{"write seen", map[api.UID]int64{"a": 2}, []*api.EndpointSlice{slice("a", 2)}, false},
		{"newer than the write", map[api.UID]int64{"a": 2}, []*api.EndpointSlice{slice("a", 3)}, false},
		{"older than the write", map[api.UID]int64{"a": 2}, []*api.EndpointSlice{slice("a", 1)}, true},
		{"created, not yet cached", map[api.UID]int64{"a": 1}, nil, true},
		{"deleted, still cached", map[api.UID]int64{"a": deletedGeneration}, []*api.EndpointSlice{slice("a", 1)}, true},
		{"deleted, gone", map[api.UID]int64{"a": deletedGeneration}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &WriteTracker{byService: map[string]map[api.UID]int64{"ns/svc": tt.wrote}}
			assert.Equal(t, tt.stale, w.Stale("ns/svc", tt.cached))
		})
	}
}
