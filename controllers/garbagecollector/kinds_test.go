package garbagecollector

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/internal/testenv"
)

// TestServedKindsAreTheServers: the collector knows every stored kind the
// server serves, and no other, so a kind registered in the apiserver and
// forgotten here fails.
func TestServedKindsAreTheServers(t *testing.T) {
	srv, err := apiserver.New(apiserver.Config{Clock: clock.NewFake(testenv.Epoch()), Rand: rand.New(rand.NewPCG(1, 2))})
	require.NoError(t, err)
	stored := 0
	for _, r := range srv.Resources() {
		if r.StoredAs == "" { // else served again in another group: the stored kind counts
			stored++
		}
	}
	kinds := servedKinds()
	assert.Len(t, kinds, stored, "one kindInfo per stored kind")
	for _, k := range kinds {
		r, ok := srv.Resource(k.resource)
		require.True(t, ok, "%s is served", k.resource)
		assert.Equal(t, kindInfo{kind: r.Kind, group: r.Group, resource: k.resource, namespaced: r.Namespaced}, k)
		assert.Empty(t, r.StoredAs)
	}
}

// TestConfigKindsAreCollected: a config map and a secret owned by a service
// account go when it goes.
func TestConfigKindsAreCollected(t *testing.T) {
	e := newEnv(t)
	sa, err := client.For[*api.ServiceAccount](e.srv).Create(e.ctx, &api.ServiceAccount{Metadata: api.ObjectMeta{Namespace: "default", Name: "builder"}})
	require.NoError(t, err)
	owner := []api.OwnerReference{{APIVersion: "v1", Kind: "ServiceAccount", Name: "builder", UID: sa.Metadata.UID}}
	_, err = e.srv.Create(e.ctx, &api.ConfigMap{Metadata: api.ObjectMeta{Namespace: "default", Name: "builder-config", OwnerReferences: owner}})
	require.NoError(t, err)
	_, err = e.srv.Create(e.ctx, &api.Secret{Metadata: api.ObjectMeta{Namespace: "default", Name: "builder-token", OwnerReferences: owner}})
	require.NoError(t, err)
	e.settle()
	assert.Empty(t, e.client.Writes(), "owned objects of a live owner stay")

	_, err = e.srv.Delete(e.ctx, client.ServiceAccounts, "default", "builder", api.DeleteOptions{})
	require.NoError(t, err)
	e.settle()
	assert.ElementsMatch(t, []string{"delete configmaps default/builder-config", "delete secrets default/builder-token"}, e.client.Writes())
}
