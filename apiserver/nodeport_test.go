package apiserver_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
)

func nodePortService(name string, typ api.ServiceType, nodePorts ...int32) *api.Service {
	svc := &api.Service{
		Metadata: api.ObjectMeta{Namespace: "default", Name: name},
		Spec:     api.ServiceSpec{Type: typ, Selector: map[string]string{"app": name}},
	}
	for i, np := range nodePorts {
		svc.Spec.Ports = append(svc.Spec.Ports, api.ServicePort{Name: string(rune('a' + i)), Port: 80 + int32(i), NodePort: np})
	}
	return svc
}

// Node ports as kube-apiserver allocates them: from 30000-32767 for
// NodePort and LoadBalancer services, a chosen one honoured, a taken or
// out-of-range one refused with its message, nothing stored then.
func TestNodePortAllocation(t *testing.T) {
	tests := []struct {
		name    string
		svc     *api.Service
		want    []int32
		wantErr string
	}{
		{"NodePort: allocated", nodePortService("np", api.ServiceTypeNodePort, 0, 0), []int32{30000, 30001}, ""},
		{"LoadBalancer: allocated, status stays pending", nodePortService("lb", api.ServiceTypeLoadBalancer, 0), []int32{30000}, ""},
		{"ClusterIP: none", nodePortService("cip", api.ServiceTypeClusterIP, 0), []int32{0}, ""},
		{"chosen", nodePortService("np", api.ServiceTypeNodePort, 30080, 0), []int32{30080, 30000}, ""},
		{"taken", nodePortService("np", api.ServiceTypeNodePort, 30500), nil,
			`Service "np" is invalid: spec.ports[0].nodePort: Invalid value: 30500: provided port is already allocated`},
		{"out of range", nodePortService("np", api.ServiceTypeNodePort, 80), nil,
			`Service "np" is invalid: spec.ports[0].nodePort: Invalid value: 80: provided port is not in the valid range. The range of valid ports is 30000-32767`},
		{"one of two taken: the other is not kept", nodePortService("np", api.ServiceTypeNodePort, 30600, 30500), nil,
			`Service "np" is invalid: spec.ports[1].nodePort: Invalid value: 30500: provided port is already allocated`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newServer(t)
			svcs := client.For[*api.Service](s)
			_, err := svcs.Create(ctx, nodePortService("holder", api.ServiceTypeNodePort, 30500))
			require.NoError(t, err)
			got, err := svcs.Create(ctx, tt.svc)
			if tt.wantErr != "" {
				require.True(t, apierrors.IsInvalid(err), "got %v", err)
				assert.Equal(t, tt.wantErr, err.Error())
				_, err := svcs.Get(ctx, "default", tt.svc.Metadata.Name)
				assert.True(t, apierrors.IsNotFound(err), "nothing stored")
				// What the refused create reserved was given back.
				_, err = svcs.Create(ctx, nodePortService("after", api.ServiceTypeNodePort, 30600))
				assert.NoError(t, err)
				return
			}
			require.NoError(t, err)
			var ports []int32
			for _, p := range got.Spec.Ports {
				ports = append(ports, p.NodePort)
			}
			assert.Equal(t, tt.want, ports)
			assert.Empty(t, got.Status.LoadBalancer.Ingress, "no cloud provider: no ingress")
		})
	}
}

// Node ports are released on delete, when the type turns ClusterIP, and
// kept by an update that leaves them unset (as kubectl apply does).
func TestNodePortLifecycle(t *testing.T) {
	s, _ := newServer(t)
	svcs := client.For[*api.Service](s)
	a, err := svcs.Create(ctx, nodePortService("a", api.ServiceTypeNodePort, 30080))
	require.NoError(t, err)

	upd := a.DeepCopy()
	upd.Spec.Ports[0].NodePort = 0
	upd.Metadata.Labels = map[string]string{"x": "y"}
	a, err = svcs.Update(ctx, upd)
	require.NoError(t, err)
	assert.Equal(t, int32(30080), a.Spec.Ports[0].NodePort, "an unset node port keeps the allocated one")

	upd = a.DeepCopy()
	upd.Spec.Type = api.ServiceTypeClusterIP
	a, err = svcs.Update(ctx, upd)
	require.NoError(t, err)
	assert.Zero(t, a.Spec.Ports[0].NodePort, "a ClusterIP service has none")
	_, err = svcs.Create(ctx, nodePortService("b", api.ServiceTypeNodePort, 30080))
	require.NoError(t, err, "released when the type turned ClusterIP")

	upd = a.DeepCopy()
	upd.Spec.Type = api.ServiceTypeNodePort
	a, err = svcs.Update(ctx, upd)
	require.NoError(t, err)
	assert.Equal(t, int32(30000), a.Spec.Ports[0].NodePort, "allocated when it turns NodePort again")

	_, err = s.Delete(ctx, client.Services, "default", "b", api.DeleteOptions{})
	require.NoError(t, err)
	_, err = svcs.Create(ctx, nodePortService("c", api.ServiceTypeNodePort, 30080))
	assert.NoError(t, err, "released on delete")
}

// A LoadBalancer with externalTrafficPolicy Local gets a health check node
// port from the node port range, as kube-apiserver's
// allocHealthCheckNodePort gives it: allocated after the ports', a chosen
// one honoured, a taken one refused as an internal error; released when
// the policy turns Cluster and on delete, kept by an update that leaves it
// unset, and immutable otherwise.
func TestHealthCheckNodePort(t *testing.T) {
	local := func(name string, hc int32, nodePorts ...int32) *api.Service {
		svc := nodePortService(name, api.ServiceTypeLoadBalancer, nodePorts...)
		svc.Spec.ExternalTrafficPolicy, svc.Spec.HealthCheckNodePort = api.ExternalTrafficPolicyLocal, hc
		return svc
	}
	tests := []struct {
		name    string
		svc     *api.Service
		wantHC  int32
		wantErr string
	}{
		{"allocated after the ports", local("lb", 0, 0), 30001, ""},
		{"chosen", local("lb", 31000, 0), 31000, ""},
		{"taken", local("lb", 30500, 0), 0, `Internal error occurred: failed to allocate requested HealthCheck NodePort 30500: provided port is already allocated`},
		{"Cluster policy: none", nodePortService("lb", api.ServiceTypeLoadBalancer, 0), 0, ""},
		{"only for a Local LoadBalancer", func() *api.Service {
			svc := nodePortService("np", api.ServiceTypeNodePort, 0)
			svc.Spec.HealthCheckNodePort = 31000
			return svc
		}(), 0, "Service \"np\" is invalid: spec.healthCheckNodePort: Invalid value: 31000: may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newServer(t)
			svcs := client.For[*api.Service](s)
			_, err := svcs.Create(ctx, nodePortService("holder", api.ServiceTypeNodePort, 30500))
			require.NoError(t, err)
			got, err := svcs.Create(ctx, tt.svc)
			if tt.wantErr != "" {
				assert.EqualError(t, err, tt.wantErr)
				_, err := svcs.Get(ctx, "default", tt.svc.Metadata.Name)
				assert.True(t, apierrors.IsNotFound(err), "nothing stored")
			} else if assert.NoError(t, err) {
				assert.Equal(t, tt.wantHC, got.Spec.HealthCheckNodePort)
			}
		})
	}

	s, _ := newServer(t)
	svcs := client.For[*api.Service](s)
	a, err := svcs.Create(ctx, local("a", 0, 0))
	require.NoError(t, err)
	require.Equal(t, int32(30001), a.Spec.HealthCheckNodePort)
	upd := a.DeepCopy()
	upd.Spec.HealthCheckNodePort = 0
	a, err = svcs.Update(ctx, upd)
	require.NoError(t, err)
	assert.Equal(t, int32(30001), a.Spec.HealthCheckNodePort, "an unset port keeps the allocated one")
	upd = a.DeepCopy()
	upd.Spec.HealthCheckNodePort = 31000
	_, err = svcs.Update(ctx, upd)
	assert.EqualError(t, err, `Service "a" is invalid: spec.healthCheckNodePort: Forbidden: field is immutable`)
	upd = a.DeepCopy()
	upd.Spec.ExternalTrafficPolicy = api.ExternalTrafficPolicyCluster
	a, err = svcs.Update(ctx, upd)
	require.NoError(t, err)
	assert.Zero(t, a.Spec.HealthCheckNodePort, "dropped when the policy turns Cluster")
	_, err = svcs.Create(ctx, local("b", 30001, 0))
	require.NoError(t, err, "released when the policy turned Cluster")
	_, err = s.Delete(ctx, client.Services, "default", "b", api.DeleteOptions{})
	require.NoError(t, err)
	_, err = svcs.Create(ctx, local("c", 30001, 0))
	assert.NoError(t, err, "released on delete")
}

// --service-node-port-range: ports come from the configured range, and
// the message refusing one outside it names that range.
func TestServiceNodePortRange(t *testing.T) {
	r, err := apiserver.ParsePortRange("40000-40001")
	require.NoError(t, err)
	s, err := apiserver.New(apiserver.Config{Clock: clock.NewFake(epoch), Rand: rand.New(rand.NewPCG(1, 2)), ServiceNodePortRange: r})
	require.NoError(t, err)
	svcs := client.For[*api.Service](s)
	got, err := svcs.Create(ctx, nodePortService("a", api.ServiceTypeNodePort, 0, 0))
	require.NoError(t, err)
	assert.Equal(t, []int32{40000, 40001}, []int32{got.Spec.Ports[0].NodePort, got.Spec.Ports[1].NodePort})
	_, err = svcs.Create(ctx, nodePortService("b", api.ServiceTypeNodePort, 30000))
	assert.EqualError(t, err, `Service "b" is invalid: spec.ports[0].nodePort: Invalid value: 30000: provided port is not in the valid range. The range of valid ports is 40000-40001`)
	_, err = svcs.Create(ctx, nodePortService("c", api.ServiceTypeNodePort, 0))
	assert.EqualError(t, err, "Internal error occurred: failed to allocate a nodePort: range is full")
}

// ParsePortRange reads kube-apiserver's --service-node-port-range with
// apimachinery's PortRange.Set rules and messages.
func TestParsePortRange(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    apiserver.PortRange
		wantErr string
	}{
		{in: "30000-32767", want: apiserver.PortRange{Base: 30000, Size: 2768}},
		{in: " 100+9 ", want: apiserver.PortRange{Base: 100, Size: 10}},
		{in: "8080", want: apiserver.PortRange{Base: 8080, Size: 1}},
		{in: "", want: apiserver.PortRange{}},
		{in: "x-10", wantErr: `strconv.Atoi: parsing "x": invalid syntax`},
		{in: "1-2+3", wantErr: "unable to parse port range: 1-2+3"},
		{in: "30000-70000", wantErr: "the port range cannot be greater than 65535: 30000-70000"},
		{in: "200-100", wantErr: "end port cannot be less than start port: 200-100"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := apiserver.ParsePortRange(tc.in)
			if tc.wantErr != "" {
				assert.EqualError(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// FuzzParsePortRange: whatever it is given, a range it accepts lies within
// 0-65535 (or is empty), and its String reads back as the same range.
func FuzzParsePortRange(f *testing.F) {
	for _, s := range []string{"30000-32767", "100+9", "8080", "", "-1", "1-", "+5", "65535-65535", "0-0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := apiserver.ParsePortRange(s)
		if err != nil || r.Size == 0 {
			return
		}
		if r.Size < 1 || r.Base+r.Size-1 > 65535 {
			t.Fatalf("%q: accepted %+v", s, r)
		}
		back, err := apiserver.ParsePortRange(r.String())
		if err != nil || back != r {
			t.Fatalf("%q: %+v reads back as %+v, %v", s, r, back, err)
		}
	})
}
