package etcdtest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/etcdstore"
	"github.com/miniplane/miniplane/internal/storetest"
	"github.com/miniplane/miniplane/store"
)

// stringCodec stores the model's string values as they are.
type stringCodec struct{}

func (stringCodec) Encode(_ string, v string) ([]byte, error) { return []byte(v), nil }
func (stringCodec) Decode(_ string, b []byte) (string, error) { return string(b), nil }

// onEtcd makes each model run's store: an etcd backend over a fresh etcd
// member, so that revisions start at 1 as the model's do.
func onEtcd(t testing.TB, historyLimit int) store.Backend[string] {
	etcd := startEtcd(t, "")
	cli, err := etcdstore.Dial([]string{etcd.URL})
	require.NoError(t, err)
	s, err := etcdstore.Open(context.Background(), etcdstore.Config[string]{
		Client: cli, Prefix: "/", Codec: stringCodec{},
		Cache: store.Options{HistoryLimit: historyLimit},
	})
	require.NoError(t, err)
	t.Cleanup(func() {
		assert.NoError(t, s.Close())
		assert.NoError(t, cli.Close())
	})
	return s
}

// TestModel runs the store's model test (internal/storetest) against the
// etcd backend: the same results, errors, revisions, pages and watch
// deliveries as the in-memory store gives.
func TestModel(t *testing.T) { storetest.Model(t, 4, onEtcd) }
