package testenv_test

import (
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
