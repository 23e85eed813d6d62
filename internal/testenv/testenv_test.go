package testenv_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/informer"
	"github.com/miniplane/miniplane/internal/testenv"
)

// TestSettleDrainsAnInformer runs the scaffolding as the tests that use it
// do: a server, an informer on it, and Settle over the informer's steps
// until its cache holds what the server does.
func TestSettleDrainsAnInformer(t *testing.T) {
	srv, clk := testenv.NewServer(t, apiserver.Config{})
	assert.Equal(t, testenv.Epoch(), clk.Now())
	for _, name := range []string{"a", "b"} {
		_, err := srv.Create(t.Context(), &api.ConfigMap{Metadata: api.ObjectMeta{Namespace: "default", Name: name}})
		require.NoError(t, err)
	}
	f := informer.NewFactory(srv, "", clk, testenv.Logger(t))
	inf := f.ForResource(client.ConfigMaps)
	rounds := testenv.Settle(t, 0, func() bool { return inf.Reflector().Step(t.Context()) }, inf.ProcessOne)
	assert.Positive(t, rounds)
	assert.Len(t, inf.Indexer().List(), 2)
	assert.Zero(t, testenv.Settle(t, 0, inf.ProcessOne), "nothing left")
}

// countdown is a controller with n syncs to do.
type countdown struct{ n, synced int }

func (c *countdown) ProcessOne(context.Context) bool {
	if c.n == 0 {
		return false
	}
	c.n--
	c.synced++
	return true
}

// TestStepOneSyncEachPerRound: Step brings the informers up to date and
// runs one sync of each controller, so that settling it interleaves them.
func TestStepOneSyncEachPerRound(t *testing.T) {
	srv, clk := testenv.NewServer(t, apiserver.Config{})
	_, err := srv.Create(t.Context(), &api.ConfigMap{Metadata: api.ObjectMeta{Namespace: "default", Name: "a"}})
	require.NoError(t, err)
	f := informer.NewFactory(srv, "", clk, testenv.Logger(t))
	inf := f.ForResource(client.ConfigMaps)
	a, b := &countdown{n: 1}, &countdown{n: 3}
	require.True(t, testenv.Step(t.Context(), f, a, b))
	assert.Len(t, inf.Indexer().List(), 1, "the informer first")
	assert.Equal(t, [2]int{1, 1}, [2]int{a.synced, b.synced}, "one sync each")
	require.True(t, testenv.Step(t.Context(), f, a, b))
	assert.Equal(t, [2]int{1, 2}, [2]int{a.synced, b.synced}, "one sync of b, a having none left")
	testenv.Settle(t, 0, func() bool { return testenv.Step(t.Context(), f, a, b) })
	assert.Equal(t, [2]int{1, 3}, [2]int{a.synced, b.synced})
	assert.False(t, testenv.Step(t.Context(), f, a, b), "nothing left")
}
