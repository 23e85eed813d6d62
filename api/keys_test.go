package api

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestKeyOfAndSplitKey(t *testing.T) {
	tests := []struct {
		name      string
		meta      ObjectMeta
		key       string
		namespace string
	}{
		{"namespaced", ObjectMeta{Namespace: "default", Name: "web"}, "default/web", "default"},
		{"cluster-scoped", ObjectMeta{Name: "node-1"}, "node-1", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.key, KeyOf(&tt.meta))
			var buf [64]byte
			assert.Equal(t, tt.key, string(AppendKey(buf[:0], tt.meta.Namespace, tt.meta.Name)), "AppendKey makes KeyOf's key")
			assert.Equal(t, "x"+tt.key, string(AppendKey([]byte("x"), tt.meta.Namespace, tt.meta.Name)), "after what b holds")
			ns, name, err := SplitKey(tt.key)
			require.NoError(t, err)
			assert.Equal(t, tt.namespace, ns)
			assert.Equal(t, tt.meta.Name, name)
		})
	}
}

func TestSplitKeyErrors(t *testing.T) {
	for _, key := range []string{"", "a/b/c", "ns/", "/"} {
		t.Run(key, func(t *testing.T) {
			_, _, err := SplitKey(key)
			assert.EqualError(t, err, `api: unexpected key format "`+key+`": want "namespace/name" or "name"`)
		})
	}
}

func TestSplitKeyEmptyNamespace(t *testing.T) {
	// As in client-go, "/name" is accepted as a cluster-scoped key.
	ns, name, err := SplitKey("/node-1")
	require.NoError(t, err)
	assert.Equal(t, "", ns)
	assert.Equal(t, "node-1", name)
}

func TestGetControllerOf(t *testing.T) {
	yes, no := true, false
	owner := func(name string, controller *bool) OwnerReference {
		return OwnerReference{APIVersion: "v1", Kind: "ReplicationController", Name: name, UID: UID(name + "-uid"), Controller: controller}
	}
	tests := []struct {
		name string
		refs []OwnerReference
		want *OwnerReference
	}{
		{"no owners", nil, nil},
		{"owners but no controller", []OwnerReference{owner("a", nil), owner("b", &no)}, nil},
		{"the controller among others", []OwnerReference{owner("a", &no), owner("b", &yes)}, &OwnerReference{
			APIVersion: "v1", Kind: "ReplicationController", Name: "b", UID: "b-uid", Controller: &yes}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			meta := ObjectMeta{OwnerReferences: tt.refs}
			got := GetControllerOf(&meta)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestGetControllerOfReturnsACopy(t *testing.T) {
	yes := true
	meta := ObjectMeta{OwnerReferences: []OwnerReference{{Name: "rc", Controller: &yes}}}
	got := GetControllerOf(&meta)
	require.NotNil(t, got)
	got.Name = "changed"
	*got.Controller = false
	assert.Equal(t, "rc", meta.OwnerReferences[0].Name)
	assert.True(t, *meta.OwnerReferences[0].Controller)
}

// TestIsKeyOf checks IsKeyOf against KeyOf, on keys that differ from the
// object's in length, in the separator's place and in scope.
func TestIsKeyOf(t *testing.T) {
	tests := []struct {
		key, ns, name string
		want          bool
	}{
		{"default/web", "default", "web", true},
		{"web", "", "web", true},
		{"default/web", "", "default/web", true}, // as api.KeyOf makes it
		{"default/web", "default", "we", false},
		{"default/web", "defaul", "t/web", false},
		{"defaultxweb", "default", "web", false},
		{"web", "default", "web", false},
		{"", "", "", true},
	}
	for _, tt := range tests {
		m := &ObjectMeta{Namespace: tt.ns, Name: tt.name}
		assert.Equal(t, tt.want, IsKeyOf(tt.key, m), "%q of %q/%q", tt.key, tt.ns, tt.name)
		assert.Equal(t, tt.key == KeyOf(m), IsKeyOf(tt.key, m), "agrees with api.KeyOf: %q of %q/%q", tt.key, tt.ns, tt.name)
	}
}
