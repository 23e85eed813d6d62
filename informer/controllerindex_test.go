package informer

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
)

// TestControlled: the index finds an owner's objects in its namespace, in
// key order, and the namespace's orphans when asked; a reference that is
// not a controller's, or from another namespace, does not count; adding the
// index twice is no error.
func TestControlled(t *testing.T) {
	yes := true
	owned := func(ns, name string, uid api.UID, controller bool) *api.Pod {
		ref := api.OwnerReference{Kind: "Job", Name: "j", UID: uid}
		if controller {
			ref.Controller = &yes
		}
		return &api.Pod{Metadata: api.ObjectMeta{Namespace: ns, Name: name, OwnerReferences: []api.OwnerReference{ref}}}
	}
	x := NewIndexer(nil)
	require.NoError(t, AddControllerIndex(x))
	require.NoError(t, AddControllerIndex(x), "a second controller on the same informer")
	for _, p := range []*api.Pod{
		owned("a", "p2", "u1", true), owned("a", "p1", "u1", true), owned("b", "p3", "u1", true),
		owned("a", "p4", "u2", true), owned("a", "p5", "u1", false),
		{Metadata: api.ObjectMeta{Namespace: "a", Name: "p6"}},
	} {
		set(x, p)
	}
	names := func(pods []*api.Pod) []string {
		var out []string
		for _, p := range pods {
			out = append(out, p.Metadata.Name)
		}
		return out
	}
	assert.Equal(t, []string{"p1", "p2"}, names(Controlled[*api.Pod](x, "a", "u1", false)))
	assert.Equal(t, []string{"p1", "p2", "p5", "p6"}, names(Controlled[*api.Pod](x, "a", "u1", true)),
		"a reference that is not a controller's leaves a pod an orphan")
	assert.Equal(t, []string{"p3"}, names(Controlled[*api.Pod](x, "b", "u1", false)))
	assert.Empty(t, Controlled[*api.Pod](x, "c", "u1", true))
}
