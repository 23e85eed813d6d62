package endpointslicemirroring

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/controllers/endpointslice"
	"github.com/miniplane/miniplane/informer"
	"github.com/miniplane/miniplane/internal/testenv"
)

// The controller against a server: a selectorless service's Endpoints are
// mirrored through create, update and delete (the conformance test
// "EndpointSliceMirroring should mirror a custom Endpoints resource through
// create update and delete"); a service with a selector, and Endpoints
// labelled skip-mirror, are not mirrored.
func TestControllerMirrors(t *testing.T) {
	srv, clk := testenv.NewServer(t, apiserver.Config{})
	f := informer.NewFactory(srv, "", clk, testenv.Logger(t))
	c, err := New(Config{Client: srv, Factory: f, Clock: clk, Logger: testenv.Logger(t)})
	require.NoError(t, err)
	ctx := context.Background()
	settle := func() {
		var steps []func() bool
		for _, inf := range f.Informers() {
			steps = append(steps, func() bool { return inf.Reflector().Step(ctx) }, inf.ProcessOne)
		}
		for _, r := range c.Registrations() {
			steps = append(steps, r.DispatchOne)
		}
		testenv.Settle(t, 0, append(steps, func() bool { return c.ProcessOne(ctx) })...)
	}
	mirrored := func(name string) []*api.EndpointSlice {
		list, err := srv.List(ctx, client.EndpointSlices, "default", client.ListOptions{
			LabelSelector: endpointslice.LabelServiceName + "=" + name + "," + endpointslice.LabelManagedBy + "=" + ControllerName})
		require.NoError(t, err)
		var out []*api.EndpointSlice
		for _, o := range list.Items {
			out = append(out, o.(*api.EndpointSlice))
		}
		return out
	}
	create := func(o api.Object) api.Object {
		out, err := srv.Create(ctx, o)
		require.NoError(t, err)
		return out
	}
	create(&api.Service{Metadata: api.ObjectMeta{Namespace: "default", Name: "ext"}, Spec: api.ServiceSpec{Ports: []api.ServicePort{{Port: 80}}}})
	e := create(&api.Endpoints{Metadata: api.ObjectMeta{Namespace: "default", Name: "ext"},
		Subsets: []api.EndpointSubset{{Addresses: addrs("10.1.0.1"), Ports: []api.EndpointPort{port("", 8080)}}}}).(*api.Endpoints)
	create(&api.Service{Metadata: api.ObjectMeta{Namespace: "default", Name: "sel"},
		Spec: api.ServiceSpec{Selector: map[string]string{"a": "b"}, Ports: []api.ServicePort{{Port: 80}}}})
	create(&api.Endpoints{Metadata: api.ObjectMeta{Namespace: "default", Name: "sel"},
		Subsets: []api.EndpointSubset{{Addresses: addrs("10.1.0.2")}}})
	create(&api.Service{Metadata: api.ObjectMeta{Namespace: "default", Name: "skip"}, Spec: api.ServiceSpec{Ports: []api.ServicePort{{Port: 80}}}})
	create(&api.Endpoints{Metadata: api.ObjectMeta{Namespace: "default", Name: "skip", Labels: map[string]string{LabelSkipMirror: "true"}},
		Subsets: []api.EndpointSubset{{Addresses: addrs("10.1.0.3")}}})
	settle()

	got := mirrored("ext")
	require.Len(t, got, 1)
	assert.Equal(t, []string{"10.1.0.1"}, got[0].Endpoints[0].Addresses)
	assert.Equal(t, int32(8080), *got[0].Ports[0].Port)
	assert.Empty(t, mirrored("sel"))
	assert.Empty(t, mirrored("skip"))

	e = e.DeepCopy()
	e.Subsets[0].Addresses = addrs("10.1.0.1", "10.1.0.9")
	_, err = srv.Update(ctx, e)
	require.NoError(t, err)
	settle()
	got = mirrored("ext")
	require.Len(t, got, 1)
	var ips []string
	for _, x := range got[0].Endpoints {
		ips = append(ips, x.Addresses...)
	}
	slices.Sort(ips)
	assert.Equal(t, []string{"10.1.0.1", "10.1.0.9"}, ips)

	_, err = srv.Delete(ctx, client.Endpoints, "default", "ext", api.DeleteOptions{})
	require.NoError(t, err)
	settle()
	assert.Empty(t, mirrored("ext"))
}
