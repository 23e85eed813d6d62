package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"time"
)

// servingTLS is what `serve --token` needs to speak HTTPS: kubectl sends a
// bearer token only over TLS, so a token over plain http never reaches the
// server and every request gets 401. Both keys are made at start, with
// crypto/rand, and kept in memory only: the CA's certificate goes into the
// kubeconfig, the CA's key is dropped once it has signed.
type servingTLS struct {
	// config is the listener's: the serving certificate, HTTP/1.1.
	config *tls.Config
	// caPEM is the CA certificate, PEM-encoded, that clients trust.
	caPEM []byte
	// ca is the same, parsed, for tests and the client side.
	ca *x509.Certificate
}

// certValidity is how long the certificates are valid: they die with the
// process anyway.
const certValidity = 365 * 24 * time.Hour

// newServingTLS makes a CA and a serving certificate that it signs, for
// localhost, 127.0.0.1, ::1 and the host of addr (the listen address),
// valid from an hour before now.
func newServingTLS(addr string, now time.Time) (*servingTLS, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("tls: CA key: %w", err)
	}
	notBefore := now.Add(-time.Hour) // a client whose clock is a little behind still accepts it
	caTmpl := &x509.Certificate{
		SerialNumber:          mustSerial(),
		Subject:               pkix.Name{CommonName: "miniplane-ca"},
		NotBefore:             notBefore,
		NotAfter:              now.Add(certValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("tls: CA certificate: %w", err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, fmt.Errorf("tls: CA certificate: %w", err)
	}

	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("tls: serving key: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: mustSerial(),
		Subject:      pkix.Name{CommonName: "miniplane-apiserver"},
		NotBefore:    notBefore,
		NotAfter:     now.Add(certValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	if host, _, err := net.SplitHostPort(addr); err == nil && host != "" {
		ip := net.ParseIP(host)
		switch {
		case ip == nil:
			tmpl.DNSNames = append(tmpl.DNSNames, host)
		case !ip.IsUnspecified() && !ip.IsLoopback():
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("tls: serving certificate: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("tls: serving certificate: %w", err)
	}
	return &servingTLS{
		config: &tls.Config{
			Certificates: []tls.Certificate{{Certificate: [][]byte{der, caDER}, PrivateKey: key, Leaf: leaf}},
			MinVersion:   tls.VersionTLS12,
			NextProtos:   []string{"http/1.1"},
		},
		caPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		ca:    ca,
	}, nil
}

// mustSerial is a random 128-bit certificate serial number. crypto/rand
// does not fail on the platforms Go supports.
func mustSerial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		panic(fmt.Sprintf("crypto/rand failed: %v", err))
	}
	return n
}

// etcdTLSFiles are serve's --etcd-cafile, --etcd-certfile and
// --etcd-keyfile: the CA that signed the etcd members' certificates, and
// the client certificate and key they ask for, as kube-apiserver takes
// them.
type etcdTLSFiles struct{ ca, cert, key string }

// config reads the files into the etcd client's TLS configuration; nil
// when none is given. withServers says --etcd-servers is set.
func (f etcdTLSFiles) config(withServers bool) (*tls.Config, error) {
	if f == (etcdTLSFiles{}) {
		return nil, nil
	}
	if !withServers {
		return nil, usageError{"--etcd-cafile, --etcd-certfile and --etcd-keyfile need --etcd-servers"}
	}
	if (f.cert == "") != (f.key == "") {
		return nil, usageError{"--etcd-certfile and --etcd-keyfile go together"}
	}
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	if f.ca != "" {
		pem, err := os.ReadFile(f.ca)
		if err != nil {
			return nil, fmt.Errorf("--etcd-cafile: %w", err)
		}
		tc.RootCAs = x509.NewCertPool()
		if !tc.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--etcd-cafile: no PEM certificate in %s", f.ca)
		}
	}
	if f.cert != "" {
		cert, err := tls.LoadX509KeyPair(f.cert, f.key)
		if err != nil {
			return nil, fmt.Errorf("--etcd-certfile, --etcd-keyfile: %w", err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	return tc, nil
}
