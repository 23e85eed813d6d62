package apiserver_test

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
)

// TestKubernetesService: published, the kubernetes Service has the first
// IP of the range and targets the API server's port, its Endpoints and
// EndpointSlice name the API server (a loopback address, which the server
// writes past validation), no other service gets the IP, and each comes
// back after a delete at the next Sweep.
func TestKubernetesService(t *testing.T) {
	s, _ := newServer(t)
	s.PublishKubernetesService(netip.MustParseAddrPort("127.0.0.1:8080"))

	svcs := client.For[*api.Service](s)
	eps := client.For[*api.Endpoints](s)
	slices := client.For[*api.EndpointSlice](s)
	check := func(t *testing.T) {
		t.Helper()
		svc, err := svcs.Get(ctx, "default", "kubernetes")
		require.NoError(t, err)
		assert.Equal(t, "10.96.0.1", svc.Spec.ClusterIP)
		assert.Equal(t, map[string]string{"component": "apiserver", "provider": "kubernetes"}, svc.Metadata.Labels)
		require.Len(t, svc.Spec.Ports, 1)
		assert.Equal(t, api.ServicePort{Name: "https", Protocol: api.ProtocolTCP, Port: 443, TargetPort: api.FromInt(8080)}, svc.Spec.Ports[0])
		assert.Empty(t, svc.Spec.Selector)
		ep, err := eps.Get(ctx, "default", "kubernetes")
		require.NoError(t, err)
		assert.Equal(t, []api.EndpointSubset{{
			Addresses: []api.EndpointAddress{{IP: "127.0.0.1"}},
			Ports:     []api.EndpointPort{{Name: "https", Port: 8080, Protocol: api.ProtocolTCP}},
		}}, ep.Subsets)
		slice, err := slices.Get(ctx, "default", "kubernetes")
		require.NoError(t, err)
		assert.Equal(t, map[string]string{"kubernetes.io/service-name": "kubernetes"}, slice.Metadata.Labels)
		ready, name, tcp, port := true, "https", api.ProtocolTCP, int32(8080)
		assert.Equal(t, api.AddressTypeIPv4, slice.AddressType)
		assert.Equal(t, []api.Endpoint{{Addresses: []string{"127.0.0.1"}, Conditions: api.EndpointConditions{Ready: &ready}}}, slice.Endpoints)
		assert.Equal(t, []api.EndpointSlicePort{{Name: &name, Protocol: &tcp, Port: &port}}, slice.Ports)
	}
	check(t)

	other, err := svcs.Create(ctx, &api.Service{Metadata: api.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: api.ServiceSpec{Ports: []api.ServicePort{{Port: 80}}}})
	require.NoError(t, err)
	assert.NotEqual(t, "10.96.0.1", other.Spec.ClusterIP)

	_, err = s.Delete(ctx, client.Services, "default", "kubernetes", api.DeleteOptions{})
	require.NoError(t, err)
	_, err = s.Delete(ctx, client.Endpoints, "default", "kubernetes", api.DeleteOptions{})
	require.NoError(t, err)
	_, err = s.Delete(ctx, client.EndpointSlices, "default", "kubernetes", api.DeleteOptions{})
	require.NoError(t, err)
	at, ok := s.NextSweep()
	require.True(t, ok, "a sweep is due to put them back")
	assert.False(t, at.After(epoch))
	assert.Equal(t, 3, s.Sweep())
	check(t)
	assert.Equal(t, 0, s.Sweep(), "nothing more to do")
}
