package etcdtest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	mrand "math/rand/v2"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.etcd.io/etcd/server/v3/etcdserver/api/v3client"

	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/etcdstore"
)

// pki is a CA and the certificates it signed for a test, as PEM files.
type pki struct {
	dir string
	CA  string // the CA's certificate
}

// newPKI makes a CA in a temporary directory.
func newPKI(t *testing.T) (*pki, *x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "etcd-ca"},
		NotBefore: now.AddDate(-1, 0, 0), NotAfter: now.AddDate(10, 0, 0),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	ca, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	p := &pki{dir: t.TempDir()}
	p.CA = p.write(t, "ca.crt", "CERTIFICATE", der)
	return p, ca, key
}

func (p *pki) write(t *testing.T, name, kind string, der []byte) string {
	t.Helper()
	path := filepath.Join(p.dir, name)
	require.NoError(t, os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600))
	return path
}

// issue signs a certificate named name for usage (server, client or both)
// and returns its certificate and key files.
func (p *pki) issue(t *testing.T, ca *x509.Certificate, caKey *ecdsa.PrivateKey, name string, serial int64, usage ...x509.ExtKeyUsage) (cert, key string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name},
		NotBefore: ca.NotBefore, NotAfter: ca.NotAfter,
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: usage,
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &k.PublicKey, caKey)
	require.NoError(t, err)
	kder, err := x509.MarshalECPrivateKey(k)
	require.NoError(t, err)
	return p.write(t, name+".crt", "CERTIFICATE", der), p.write(t, name+".key", "EC PRIVATE KEY", kder)
}

// startTLSEtcd starts a member that serves clients over TLS and asks them
// for a certificate signed by the CA at caFile, as a production etcd does.
func startTLSEtcd(t *testing.T, caFile, certFile, keyFile string) *etcdServer {
	t.Helper()
	m := newMembers(t, 1, "")[0]
	plain := m.config
	u, err := url.Parse(m.URL)
	require.NoError(t, err)
	u.Scheme = "https"
	m.URL = u.String()
	m.config = func() *embed.Config {
		cfg := plain()
		cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{*u}, []url.URL{*u}
		cfg.ClientTLSInfo = transport.TLSInfo{CertFile: certFile, KeyFile: keyFile, TrustedCAFile: caFile, ClientCertAuth: true}
		return cfg
	}
	m.Start(t)
	return m
}

// TestEtcdOverTLSWithClientCertificates: an API server reaches an etcd that
// serves TLS and requires client certificates, with the CA, certificate
// and key kube-apiserver's --etcd-cafile, --etcd-certfile and
// --etcd-keyfile name; without a client certificate, or trusting another
// CA, it does not start.
func TestEtcdOverTLSWithClientCertificates(t *testing.T) {
	p, ca, caKey := newPKI(t)
	// etcd's JSON gateway calls etcd's gRPC server with the server's own
	// certificate, which must then be good for clients too.
	serverCert, serverKey := p.issue(t, ca, caKey, "etcd-server", 2, x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth)
	clientCert, clientKey := p.issue(t, ca, caKey, "apiserver-etcd-client", 3, x509.ExtKeyUsageClientAuth)
	other, _, _ := newPKI(t)
	etcd := startTLSEtcd(t, p.CA, serverCert, serverKey)

	tests := []struct {
		name      string
		ca        string
		cert, key string
		wantErr   string
	}{
		{name: "the CA and a client certificate", ca: p.CA, cert: clientCert, key: clientKey},
		{name: "no client certificate", ca: p.CA, wantErr: "certificate required"},
		{name: "another CA", ca: other.CA, cert: clientCert, key: clientKey, wantErr: "certificate signed by unknown authority"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tc := &tls.Config{RootCAs: x509.NewCertPool()}
			pemCA, err := os.ReadFile(tt.ca)
			require.NoError(t, err)
			require.True(t, tc.RootCAs.AppendCertsFromPEM(pemCA))
			if tt.cert != "" {
				cert, err := tls.LoadX509KeyPair(tt.cert, tt.key)
				require.NoError(t, err)
				tc.Certificates = []tls.Certificate{cert}
			}
			cli, err := etcdstore.DialTLS([]string{etcd.URL}, tc)
			require.NoError(t, err)
			defer cli.Close()
			srv, err := apiserver.New(apiserver.Config{
				Clock: clock.NewFake(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)), Rand: mrand.New(mrand.NewPCG(1, 2)), Etcd: cli,
			})
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			defer srv.Close()
			ctx := context.Background()
			_, err = srv.Create(ctx, configMap("default", "over-tls", "1"))
			require.NoError(t, err)
			got, err := srv.Get(ctx, "configmaps", "default", "over-tls", client.GetOptions{})
			require.NoError(t, err)
			assert.Equal(t, "over-tls", got.GetObjectMeta().Name)
		})
	}

	_, err := etcdstore.DialTLS([]string{"http://127.0.0.1:2379"}, &tls.Config{})
	assert.ErrorContains(t, err, "is not https, but TLS is configured")
}

// TestServeFlagsReachEtcdOverTLS: `miniplane serve --etcd-servers
// https://… --etcd-cafile … --etcd-certfile … --etcd-keyfile …` becomes
// ready over an etcd that requires client certificates, and what it wrote
// is in that etcd.
func TestServeFlagsReachEtcdOverTLS(t *testing.T) {
	if testing.Short() {
		t.Skip("builds miniplane and runs serve")
	}
	p, ca, caKey := newPKI(t)
	serverCert, serverKey := p.issue(t, ca, caKey, "etcd-server", 2, x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth)
	clientCert, clientKey := p.issue(t, ca, caKey, "apiserver-etcd-client", 3, x509.ExtKeyUsageClientAuth)
	etcd := startTLSEtcd(t, p.CA, serverCert, serverKey)
	binary := buildMiniplane(t)

	serve := exec.Command(binary, "serve", "--addr", "127.0.0.1:0", "--nodes", "1",
		"--etcd-servers", etcd.URL, "--etcd-cafile", p.CA, "--etcd-certfile", clientCert, "--etcd-keyfile", clientKey)
	out, err := serve.StdoutPipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	serve.Stderr = &stderr
	require.NoError(t, serve.Start())
	lines := bufio.NewScanner(out)
	ready := false
	for !ready && lines.Scan() {
		ready = strings.HasPrefix(lines.Text(), "ready: ")
	}
	require.True(t, ready, "serve printed no ready line; stderr: %s", stderr.String())
	require.NoError(t, serve.Process.Signal(syscall.SIGTERM))
	go func() { _, _ = io.Copy(io.Discard, out) }()
	require.NoError(t, serve.Wait(), stderr.String())

	cli := v3client.New(etcd.e.Server)
	defer cli.Close()
	resp, err := cli.Get(context.Background(), "/registry/minions/", clientv3.WithPrefix(), clientv3.WithKeysOnly())
	require.NoError(t, err)
	require.Len(t, resp.Kvs, 1)
	assert.Equal(t, "/registry/minions/node-0", string(resp.Kvs[0].Key), "the simulated node serve registered")
}
