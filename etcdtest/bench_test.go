package etcdtest

import (
	"context"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/clock"
)

// backends are the API server's two stores: in memory, and over an
// embedded etcd member.
var backends = []struct {
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

// benchmarkCreate creates the objects obj makes through the API server, on
// each backend.
func benchmarkCreate(b *testing.B, obj func(i int) api.Object) {
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) {
			srv := be.srv(b)
			ctx := context.Background()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				_, err := srv.Create(ctx, obj(i))
				require.NoError(b, err)
				i++
			}
		})
	}
}

// BenchmarkCreate creates config maps: what keeping the objects in etcd
// costs a write.
func BenchmarkCreate(b *testing.B) {
	benchmarkCreate(b, func(i int) api.Object { return configMap("default", "cm-"+strconv.Itoa(i), "v") })
}

// BenchmarkCreateService creates ClusterIP Services, each allocating a
// cluster IP: over etcd, a swap of the allocator's RangeAllocation too.
func BenchmarkCreateService(b *testing.B) {
	benchmarkCreate(b, func(i int) api.Object {
		name := "svc-" + strconv.Itoa(i)
		return &api.Service{Metadata: api.ObjectMeta{Namespace: "default", Name: name},
			Spec: api.ServiceSpec{Selector: map[string]string{"app": name}, Ports: []api.ServicePort{{Port: 80, Protocol: api.ProtocolTCP}}}}
	})
}
