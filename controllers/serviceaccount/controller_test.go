package serviceaccount_test

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/serviceaccount"
	"github.com/miniplane/miniplane/informer"
)

// TestRunKeepsDefaultAccounts runs the controller against a server: every
// namespace gets "default", a new one too, and a deleted one comes back.
func TestRunKeepsDefaultAccounts(t *testing.T) {
	srv, err := apiserver.New(apiserver.Config{Clock: clock.Real{}, Rand: rand.New(rand.NewPCG(1, 2))})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	f := informer.NewFactory(srv, "", clock.Real{}, zaptest.NewLogger(t))
	c, err := serviceaccount.New(serviceaccount.Config{Client: srv, Factory: f, Clock: clock.Real{}, Logger: zaptest.NewLogger(t)})
	require.NoError(t, err)
	f.Start(ctx)
	done := make(chan struct{})
	go func() { c.Run(ctx, 1); close(done) }()
	t.Cleanup(func() { cancel(); <-done; f.Shutdown() })

	has := func(ns string) func() bool {
		return func() bool {
			_, err := srv.Get(ctx, client.ServiceAccounts, ns, "default", client.GetOptions{})
			return err == nil
		}
	}
	require.Eventually(t, has("default"), 5*time.Second, 5*time.Millisecond)
	require.Eventually(t, has("kube-system"), 5*time.Second, 5*time.Millisecond)

	_, err = srv.Create(ctx, &api.Namespace{Metadata: api.ObjectMeta{Name: "x"}})
	require.NoError(t, err)
	require.Eventually(t, has("x"), 5*time.Second, 5*time.Millisecond)

	_, err = srv.Delete(ctx, client.ServiceAccounts, "x", "default", api.DeleteOptions{})
	require.NoError(t, err)
	require.Eventually(t, has("x"), 5*time.Second, 5*time.Millisecond, "a deleted default account is put back")
}
