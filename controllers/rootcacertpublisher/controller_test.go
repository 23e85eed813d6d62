package rootcacertpublisher_test

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
	"github.com/miniplane/miniplane/controllers/rootcacertpublisher"
	"github.com/miniplane/miniplane/informer"
)

// TestRunPublishes runs the publisher against a server: every namespace
// gets kube-root-ca.crt with the configured CA, a new one too, and one
// deleted or changed is put back.
func TestRunPublishes(t *testing.T) {
	const ca = "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n"
	srv, err := apiserver.New(apiserver.Config{Clock: clock.Real{}, Rand: rand.New(rand.NewPCG(1, 2))})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	f := informer.NewFactory(srv, "", clock.Real{}, zaptest.NewLogger(t))
	c, err := rootcacertpublisher.New(rootcacertpublisher.Config{Client: srv, Factory: f, Clock: clock.Real{}, RootCA: []byte(ca), Logger: zaptest.NewLogger(t)})
	require.NoError(t, err)
	f.Start(ctx)
	done := make(chan struct{})
	go func() { c.Run(ctx, 1); close(done) }()
	t.Cleanup(func() { cancel(); <-done; f.Shutdown() })

	published := func(ns string) func() bool {
		return func() bool {
			o, err := srv.Get(ctx, client.ConfigMaps, ns, rootcacertpublisher.ConfigMapName, client.GetOptions{})
			return err == nil && o.(*api.ConfigMap).Data[rootcacertpublisher.DataKey] == ca
		}
	}
	require.Eventually(t, published("default"), 5*time.Second, 5*time.Millisecond)
	_, err = srv.Create(ctx, &api.Namespace{Metadata: api.ObjectMeta{Name: "x"}})
	require.NoError(t, err)
	require.Eventually(t, published("x"), 5*time.Second, 5*time.Millisecond)

	o, err := srv.Get(ctx, client.ConfigMaps, "x", rootcacertpublisher.ConfigMapName, client.GetOptions{})
	require.NoError(t, err)
	cm := o.(*api.ConfigMap).DeepCopy()
	cm.Data[rootcacertpublisher.DataKey] = "tampered"
	_, err = srv.Update(ctx, cm)
	require.NoError(t, err)
	require.Eventually(t, published("x"), 5*time.Second, 5*time.Millisecond, "a changed CA is restored")

	_, err = srv.Delete(ctx, client.ConfigMaps, "x", rootcacertpublisher.ConfigMapName, api.DeleteOptions{})
	require.NoError(t, err)
	require.Eventually(t, published("x"), 5*time.Second, 5*time.Millisecond, "a deleted ConfigMap is put back")
}
