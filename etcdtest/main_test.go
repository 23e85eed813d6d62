package etcdtest

import (
	"fmt"
	"net"
	"net/url"
	"strings"
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
	// config makes the member's configuration, the same at every start.
	config func() *embed.Config
}

// startEtcd starts an etcd member on free loopback ports with its data in
// dir (a t.TempDir() when empty); the test stops it at its end.
func startEtcd(t testing.TB, dir string) *etcdServer {
	t.Helper()
	s := newMembers(t, 1, dir)[0]
	s.Start(t)
	return s
}

// startCluster starts an n-member etcd cluster and waits until it has a
// leader; the test stops it at its end.
func startCluster(t testing.TB, n int) []*etcdServer {
	t.Helper()
	members := newMembers(t, n, "")
	for _, m := range members {
		e, err := embed.StartEtcd(m.config())
		require.NoError(t, err)
		m.e = e
	}
	for _, m := range members {
		<-m.e.Server.ReadyNotify()
	}
	return members
}

// newMembers lays out n members on free loopback ports, started by none.
func newMembers(t testing.TB, n int, dir string) []*etcdServer {
	t.Helper()
	members := make([]*etcdServer, n)
	clients, peers := make([]url.URL, n), make([]url.URL, n)
	initial := make([]string, n)
	for i := range members {
		clients[i], peers[i] = freeURL(t), freeURL(t)
		initial[i] = fmt.Sprintf("m%d=%s", i, peers[i].String())
	}
	for i := range members {
		mdir := dir
		if mdir == "" {
			mdir = t.TempDir()
		}
		client, peer := clients[i], peers[i]
		name := fmt.Sprintf("m%d", i)
		m := &etcdServer{URL: client.String(), dir: mdir}
		m.config = func() *embed.Config {
			cfg := embed.NewConfig()
			cfg.Name = name
			cfg.Dir = mdir
			cfg.Logger = "zap"
			cfg.LogLevel = "error"
			cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
			cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
			cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
			cfg.InitialCluster = strings.Join(initial, ",")
			// Quicker elections than etcd's defaults (100 ms, 1 s), so
			// that a killed leader is replaced within the test's time.
			cfg.TickMs, cfg.ElectionMs = 50, 500
			return cfg
		}
		members[i] = m
		t.Cleanup(m.Stop)
	}
	return members
}

// Start starts the member (again, over its data) and waits until it is
// ready: it has joined a cluster with a leader.
func (s *etcdServer) Start(t testing.TB) {
	t.Helper()
	e, err := embed.StartEtcd(s.config())
	require.NoError(t, err)
	<-e.Server.ReadyNotify()
	s.e = e
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
