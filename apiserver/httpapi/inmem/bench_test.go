package inmem_test

import (
	"context"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/apiserver/httpapi"
	"github.com/miniplane/miniplane/apiserver/httpapi/inmem"
	"github.com/miniplane/miniplane/clock"
)

// BenchmarkGetPod: GET of one pod through the in-memory transport and over
// loopback TCP (net/http's server and client, as httpapi's benchmarks
// measure it), one request after another (ns/op is the latency) and from
// many goroutines at once (req/s is the throughput).
func BenchmarkGetPod(b *testing.B) {
	srv, err := apiserver.New(apiserver.Config{Clock: clock.Real{}, Rand: rand.New(rand.NewPCG(1, 2))})
	require.NoError(b, err)
	h, err := httpapi.New(httpapi.Config{Server: srv, Clock: clock.Real{}})
	require.NoError(b, err)
	_, err = srv.Create(b.Context(), &api.Pod{
		Metadata: api.ObjectMeta{Namespace: "default", Name: "web"},
		Spec:     api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx"}}},
	})
	require.NoError(b, err)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(b, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- httpapi.Serve(ctx, ln, h) }()
	b.Cleanup(func() {
		cancel()
		require.NoError(b, <-done)
	})

	const path = "/api/v1/namespaces/default/pods/web"
	for _, tc := range []struct {
		name   string
		client *http.Client
		url    string
	}{
		{"inmem", &http.Client{Transport: inmem.NewTransport(h)}, inmem.Host + path},
		{"loopback", &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}}, "http://" + ln.Addr().String() + path},
	} {
		b.Run(tc.name+"/serial", func(b *testing.B) {
			for b.Loop() {
				get(b, tc.client, tc.url)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
		})
		b.Run(tc.name+"/parallel", func(b *testing.B) {
			b.SetParallelism(8)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					get(b, tc.client, tc.url)
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
		})
	}
}

func get(b *testing.B, c *http.Client, url string) {
	resp, err := c.Get(url)
	if err != nil {
		b.Fatal(err)
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
}
