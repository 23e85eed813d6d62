package apiserver

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver/celrules"
)

// TestEqualObjectsAreDeepEqual checks each typed object equality against
// reflect.DeepEqual, which it replaces in update's no-op check, on
// generated pairs (see checkIsDeepEqual).
func TestEqualObjectsAreDeepEqual(t *testing.T) {
	t.Run("ObjectMeta", func(t *testing.T) {
		checkIsDeepEqual(t, rand.New(rand.NewPCG(18, 3)), equalObjectMeta)
	})
	t.Run("Endpoints", func(t *testing.T) {
		checkIsDeepEqual(t, rand.New(rand.NewPCG(18, 4)), equalEndpoints)
	})
	t.Run("Event", func(t *testing.T) {
		checkIsDeepEqual(t, rand.New(rand.NewPCG(18, 5)), equalEvent)
	})
}

// TestObjectEqual checks that update's no-op check (kind.equal) answers as
// reflect.DeepEqual for every kind, by which an empty map is not a nil one,
// and that Endpoints and Events take the typed equality: it allocates
// nothing where reflect.DeepEqual allocates for each map entry it walks.
func TestObjectEqual(t *testing.T) {
	labels := func() map[string]string { return map[string]string{"app": "web", "tier": "front"} }
	tests := []struct {
		resource string
		a, b     api.Object
		want     bool
	}{
		{resource: "endpoints", a: &api.Endpoints{Metadata: api.ObjectMeta{Labels: labels()}, Subsets: []api.EndpointSubset{{Addresses: []api.EndpointAddress{{IP: "10.0.0.1"}}}}},
			b: &api.Endpoints{Metadata: api.ObjectMeta{Labels: labels()}, Subsets: []api.EndpointSubset{{Addresses: []api.EndpointAddress{{IP: "10.0.0.1"}}}}}, want: true},
		{resource: "endpoints", a: &api.Endpoints{Subsets: []api.EndpointSubset{{Addresses: []api.EndpointAddress{{IP: "10.0.0.1"}}}}},
			b: &api.Endpoints{Subsets: []api.EndpointSubset{{Addresses: []api.EndpointAddress{{IP: "10.0.0.2"}}}}}, want: false},
		{resource: "endpoints", a: &api.Endpoints{Metadata: api.ObjectMeta{Labels: map[string]string{}}}, b: &api.Endpoints{}, want: false},
		{resource: "events", a: &api.Event{Metadata: api.ObjectMeta{Annotations: labels()}, Count: 2}, b: &api.Event{Metadata: api.ObjectMeta{Annotations: labels()}, Count: 2}, want: true},
		{resource: "events", a: &api.Event{Count: 2}, b: &api.Event{Count: 3}, want: false},
		{resource: "configmaps", a: &api.ConfigMap{Data: map[string]string{}}, b: &api.ConfigMap{}, want: false},
		{resource: "configmaps", a: &api.ConfigMap{Data: map[string]string{"a": "b"}}, b: &api.ConfigMap{Data: map[string]string{"a": "b"}}, want: true},
	}
	kinds := map[string]*kind{}
	for _, k := range newKinds(&celrules.Compiler{}) {
		kinds[k.gr.String()] = k
	}
	for _, tt := range tests {
		k := kinds[tt.resource]
		require.NotNil(t, k, tt.resource)
		assert.Equal(t, tt.want, k.equal(tt.a, tt.b), "%s: %#v and %#v", tt.resource, tt.a, tt.b)
		assert.Equal(t, reflect.DeepEqual(tt.a, tt.b), k.equal(tt.a, tt.b), "%s: as reflect.DeepEqual", tt.resource)
		if tt.want && tt.resource != "configmaps" {
			allocs := testing.AllocsPerRun(10, func() { k.equal(tt.a, tt.b) })
			assert.Zero(t, allocs, "%s: the typed equality, not reflect.DeepEqual", tt.resource)
		}
	}
}
