package httpapi_test

import (
	"context"
	"math/rand/v2"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/apiserver/httpapi"
	"github.com/miniplane/miniplane/clock"
)

// epoch is where the fake clock of the httptest tests starts.
var epoch = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// testServer is a Handler served on a loopback port.
type testServer struct {
	srv *apiserver.Server
	h   *httpapi.Handler
	url string
}

// newTestServer serves a fresh API server on 127.0.0.1:0 until the test
// ends, then stops it and waits for Serve to return.
func newTestServer(t testing.TB, clk clock.Clock, mutate func(*httpapi.Config)) *testServer {
	t.Helper()
	srv, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(7, 8))})
	require.NoError(t, err)
	cfg := httpapi.Config{Server: srv, Clock: clk}
	if tt, ok := t.(*testing.T); ok {
		cfg.Logger = zaptest.NewLogger(tt, zaptest.Level(zapcore.WarnLevel))
	}
	if mutate != nil {
		mutate(&cfg)
	}
	h, err := httpapi.New(cfg)
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- httpapi.Serve(ctx, ln, h) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	return &testServer{srv: srv, h: h, url: "http://" + ln.Addr().String()}
}

// podOf returns a minimal valid pod.
func podOf(ns, name string, labels map[string]string) *api.Pod {
	return &api.Pod{
		Metadata: api.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
		Spec:     api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx:1.27", Ports: []api.ContainerPort{{ContainerPort: 80}}}}},
	}
}

// rcOf returns a minimal valid replication controller.
func rcOf(ns, name string, replicas int32) *api.ReplicationController {
	labels := map[string]string{"app": name}
	return &api.ReplicationController{
		Metadata: api.ObjectMeta{Namespace: ns, Name: name},
		Spec: api.ReplicationControllerSpec{
			Replicas: &replicas,
			Selector: labels,
			Template: &api.PodTemplateSpec{
				Metadata: api.ObjectMeta{Labels: labels},
				Spec:     api.PodSpec{Containers: []api.Container{{Name: "php", Image: "php:8.3-apache"}}},
			},
		},
	}
}
