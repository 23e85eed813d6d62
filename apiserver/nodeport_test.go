package apiserver_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
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
