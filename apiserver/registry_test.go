package apiserver_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver/patch"
	"github.com/miniplane/miniplane/client"
)

// TestRegistryIsWhatTheServerServes ties api's registry of served types,
// which client.ResourceOf reads, to the kinds the Server registers: every
// registered type is served with the same group, version, kind, resource and
// scope, under the name ResourceOf gives it, and every served resource is
// registered. A kind added to one and not the other fails here. So does a
// kind served with /status and no status field, or the reverse: patch
// derives which kinds' status is a subresource from the types.
func TestRegistryIsWhatTheServerServes(t *testing.T) {
	s, _ := newServer(t)
	type gvr struct{ group, version, kind, resource string }
	served := map[gvr]bool{}
	for _, ri := range s.Resources() {
		served[gvr{ri.Group, ri.Version, ri.Kind, ri.Resource}] = ri.Namespaced
		assert.Equal(t, ri.HasStatus, patch.StatusIsSubresource(ri.Kind),
			"%s: patch takes a kind with a status field to have /status, as Kubernetes' kinds do", ri.Resource)
	}
	registered := api.RegisteredTypes()
	require.Len(t, registered, len(served), "one registered type per served resource")
	for _, ti := range registered {
		t.Run(ti.Name, func(t *testing.T) {
			namespaced, ok := served[gvr{ti.Group, ti.Version, ti.Kind, ti.Resource}]
			require.True(t, ok, "%s/%s %s is registered in api but not served", ti.APIVersion(), ti.Kind, ti.Resource)
			assert.Equal(t, namespaced, ti.Namespaced, "scope")
			_, err := s.List(t.Context(), ti.Name, "", client.ListOptions{})
			assert.NoError(t, err, "the server serves the name client.ResourceOf gives")
		})
	}
}
