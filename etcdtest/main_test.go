package etcdtest

import (
	"net"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// etcdServer is one embedded etcd member for a test.
type etcdServer struct {
	e   *embed.Etcd
	URL string // its client URL
	dir string
}

// startEtcd starts an etcd member on free loopback ports with its data in
// dir (a t.TempDir() when empty); the test stops it at its end.
func startEtcd(t testing.TB, dir string) *etcdServer {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	cfg := embed.NewConfig()
	cfg.Dir = dir
	cfg.Logger = "zap"
	cfg.LogLevel = "error"
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	client, peer := freeURL(t), freeURL(t)
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
	cfg.InitialCluster = cfg.Name + "=" + peer.String()
	e, err := embed.StartEtcd(cfg)
	require.NoError(t, err)
	<-e.Server.ReadyNotify()
	s := &etcdServer{e: e, URL: client.String(), dir: dir}
	t.Cleanup(s.Stop)
	return s
}

// Stop stops the member; its data stays in its dir. Stopping twice is safe.
func (s *etcdServer) Stop() {
	if s.e != nil {
		s.e.Close()
		s.e = nil
	}
}

// freeURL returns an http URL on a loopback port free a moment ago.
func freeURL(t testing.TB) url.URL {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return url.URL{Scheme: "http", Host: addr}
}
