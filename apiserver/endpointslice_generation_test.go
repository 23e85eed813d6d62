package apiserver_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
)

// An EndpointSlice's generation moves when its endpoints, ports or labels
// do, not when only its annotations do, as kube-apiserver's
// endpointSliceStrategy moves it: the endpointslice controller tells its
// own writes from older cached versions by it.
func TestEndpointSliceGeneration(t *testing.T) {
	tests := []struct {
		name   string
		change func(*api.EndpointSlice)
		want   int64
	}{
		{"endpoints", func(s *api.EndpointSlice) {
			s.Endpoints = append(s.Endpoints, api.Endpoint{Addresses: []string{"10.0.0.2"}})
		}, 2},
		{"labels", func(s *api.EndpointSlice) { s.Metadata.Labels = map[string]string{"a": "b"} }, 2},
		{"annotations only", func(s *api.EndpointSlice) { s.Metadata.Annotations = map[string]string{"a": "b"} }, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := newServer(t)
			created, err := srv.Create(ctx, &api.EndpointSlice{
				Metadata:    api.ObjectMeta{Namespace: "default", Name: "s"},
				AddressType: api.AddressTypeIPv4,
				Endpoints:   []api.Endpoint{{Addresses: []string{"10.0.0.1"}}},
			})
			require.NoError(t, err)
			s := created.(*api.EndpointSlice).DeepCopy()
			tt.change(s)
			updated, err := srv.Update(ctx, s)
			require.NoError(t, err)
			assert.Equal(t, tt.want, updated.GetObjectMeta().Generation)
		})
	}
}
