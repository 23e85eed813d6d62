package etcdtest

import (
	"context"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/clock"
)

// BenchmarkCreate creates config maps through the API server, on the
// in-memory store and on the etcd backend over an embedded etcd member:
// what keeping the objects in etcd costs a write.
func BenchmarkCreate(b *testing.B) {
	backends := []struct {
		name string
		srv  func(b *testing.B) *apiserver.Server
	}{
		{"memory", func(b *testing.B) *apiserver.Server {
			srv, err := apiserver.New(apiserver.Config{
				Clock: clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)), Rand: rand.New(rand.NewPCG(1, 2)),
			})
			require.NoError(b, err)
			return srv
		}},
		{"etcd", func(b *testing.B) *apiserver.Server { return newServer(b, startEtcd(b, "").URL) }},
	}
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) {
			srv := be.srv(b)
			ctx := context.Background()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				_, err := srv.Create(ctx, configMap("default", "cm-"+strconv.Itoa(i), "v"))
				require.NoError(b, err)
				i++
			}
		})
	}
}
