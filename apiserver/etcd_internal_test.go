package apiserver

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/clock"
)

func newKeysServer(t *testing.T) *Server {
	s, err := New(Config{Clock: clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)), Rand: rand.New(rand.NewPCG(1, 2))})
	require.NoError(t, err)
	return s
}

// TestEtcdKeysAreKubeAPIServers: the etcd keys are those kube-apiserver
// writes (its storage factory's prefixes), and map back to the server's.
func TestEtcdKeysAreKubeAPIServers(t *testing.T) {
	keys := newEtcdKeys(newKeysServer(t).kinds)
	tests := []struct{ store, etcd string }{
		{"/registry/pods/default/web-1", "/registry/pods/default/web-1"},
		{"/registry/nodes/node-1", "/registry/minions/node-1"},
		{"/registry/services/default/web", "/registry/services/specs/default/web"},
		{"/registry/endpoints/default/web", "/registry/services/endpoints/default/web"},
		{"/registry/replicationcontrollers/default/rc", "/registry/controllers/default/rc"},
		{"/registry/deployments.apps/default/web", "/registry/deployments/default/web"},
		{"/registry/leases.coordination.k8s.io/kube-system/kube-controller-manager", "/registry/leases/kube-system/kube-controller-manager"},
		{"/registry/customresourcedefinitions.apiextensions.k8s.io/widgets.example.com", "/registry/apiextensions.k8s.io/customresourcedefinitions/widgets.example.com"},
		{"/registry/widgets.example.com/default/w", "/registry/example.com/widgets/default/w"},
	}
	for _, tt := range tests {
		t.Run(tt.store, func(t *testing.T) {
			assert.Equal(t, tt.etcd, keys.ToEtcd(tt.store))
			back, ok := keys.FromEtcd(tt.etcd)
			assert.True(t, ok)
			assert.Equal(t, tt.store, back)
		})
	}
	for _, foreign := range []string{"/other/x", "/registry/unserved/x", "compact_rev_key"} {
		_, ok := keys.FromEtcd(foreign)
		assert.False(t, ok, foreign)
	}
}

// TestEtcdCodecRoundTrip: built-in kinds are stored as kube-apiserver's
// protobuf envelope and custom resources as JSON, both without
// resourceVersion, and decode to what was stored.
func TestEtcdCodecRoundTrip(t *testing.T) {
	c := etcdCodec{newKeysServer(t)}
	c.s.byTypeMeta = map[api.TypeMeta]*kind{}
	for _, k := range c.s.served {
		c.s.byTypeMeta[api.TypeMeta{APIVersion: k.apiVersion, Kind: k.kind}] = k
	}
	cm := &api.ConfigMap{TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		Metadata: api.ObjectMeta{Namespace: "default", Name: "a", ResourceVersion: "7"}, Data: map[string]string{"k": "v"}}
	data, err := c.Encode("", cm)
	require.NoError(t, err)
	assert.Equal(t, "k8s\x00", string(data[:4]))
	assert.Equal(t, "7", cm.Metadata.ResourceVersion, "the caller's object keeps its resourceVersion")
	got, err := c.Decode("", data)
	require.NoError(t, err)
	want := cm.DeepCopy()
	want.Metadata.ResourceVersion = ""
	assert.Equal(t, want, got)

	u := &api.Unstructured{}
	require.NoError(t, u.UnmarshalJSON([]byte(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","resourceVersion":"9"},"spec":{"size":3}}`)))
	data, err = c.Encode("", u)
	require.NoError(t, err)
	assert.NotContains(t, string(data), "resourceVersion")
	assert.Equal(t, byte('{'), data[0])
	back, err := c.Decode("", data)
	require.NoError(t, err)
	assert.Equal(t, "w", back.GetObjectMeta().Name)
	size, _ := back.(*api.Unstructured).NestedField("spec", "size")
	assert.EqualValues(t, 3, size)
}
