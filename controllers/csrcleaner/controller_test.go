package csrcleaner

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/informer"
	"github.com/miniplane/miniplane/internal/testenv"
)

// testCertPEM is a certificate valid from 2026-01-01 to 2036-01-01, and
// testCSRPEM a request: the API server's test data.
var (
	testCertPEM = readTestdata("../../apiserver/testdata/cert.pem")
	testCSRPEM  = readTestdata("../../apiserver/testdata/csr.pem")
)

// readTestdata returns a file of the tests' data as a string.
func readTestdata(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// The cases of Kubernetes' TestCleanerWithApprovedExpiredCSR
// (pkg/controller/certificates/cleaner), against the time the sweep runs.
func TestExpired(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	ago := func(d time.Duration) api.Time { return api.NewTime(now.Add(-d)) }
	cond := func(typ string, updated time.Duration) api.CertificateSigningRequestCondition {
		return api.CertificateSigningRequestCondition{Type: typ, Status: "True", LastUpdateTime: ago(updated)}
	}
	for _, tc := range []struct {
		name       string
		created    time.Duration // before now
		cert       string
		conditions []api.CertificateSigningRequestCondition
		at         time.Time // when the sweep runs; zero: now
		deleted    bool
	}{
		{name: "approved, not past the deadline", created: time.Minute, cert: testCertPEM,
			conditions: []api.CertificateSigningRequestCondition{cond("Approved", 50*time.Minute)}},
		{name: "approved past the deadline, not issued", created: time.Minute,
			conditions: []api.CertificateSigningRequestCondition{cond("Approved", 50*time.Minute)}},
		{name: "approved and issued past the deadline", created: time.Minute, cert: testCertPEM,
			conditions: []api.CertificateSigningRequestCondition{cond("Approved", 2*time.Hour)}, deleted: true},
		{name: "denied, not past the deadline", created: time.Minute,
			conditions: []api.CertificateSigningRequestCondition{cond("Denied", 50*time.Minute)}},
		{name: "denied past the deadline", created: time.Minute,
			conditions: []api.CertificateSigningRequestCondition{cond("Denied", 2*time.Hour)}, deleted: true},
		{name: "failed, not past the deadline", created: time.Minute,
			conditions: []api.CertificateSigningRequestCondition{cond("Approved", 2*time.Hour), cond("Failed", 50*time.Minute)}},
		{name: "failed past the deadline", created: time.Minute,
			conditions: []api.CertificateSigningRequestCondition{cond("Approved", 2*time.Hour), cond("Failed", 2*time.Hour)}, deleted: true},
		{name: "pending, not past the deadline", created: 5 * time.Hour},
		{name: "pending past the deadline", created: 25 * time.Hour, deleted: true},
		{name: "approved, issued, certificate expired", created: time.Minute, cert: testCertPEM,
			conditions: []api.CertificateSigningRequestCondition{cond("Approved", 50*time.Minute)},
			at:         time.Date(2036, 1, 2, 0, 0, 0, 0, time.UTC), deleted: true},
		{name: "approved past the deadline, certificate unreadable", created: time.Minute, cert: "garbage",
			conditions: []api.CertificateSigningRequestCondition{cond("Approved", 2*time.Hour)}, deleted: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			csr := &api.CertificateSigningRequest{Metadata: api.ObjectMeta{Name: "csr", CreationTimestamp: ago(tc.created)},
				Status: api.CertificateSigningRequestStatus{Conditions: tc.conditions}}
			if tc.cert != "" {
				csr.Status.Certificate = []byte(tc.cert)
			}
			at := now
			if !tc.at.IsZero() {
				at = tc.at
			}
			assert.Equal(t, tc.deleted, expired(csr, at) != "", expired(csr, at))
		})
	}
}

// TestSweepDeletesDeniedAfterAnHour runs the controller on a server: a
// denied request survives the sweep right after, and the hourly sweep an
// hour later deletes it.
func TestSweepDeletesDeniedAfterAnHour(t *testing.T) {
	srv, clk := testenv.NewServer(t, apiserver.Config{})
	ctx := t.Context()
	log := testenv.Logger(t)
	f := informer.NewFactory(srv, "", clk, log)
	c, err := New(Config{Client: srv, Factory: f, Clock: clk, Logger: log})
	require.NoError(t, err)

	csr := &api.CertificateSigningRequest{Metadata: api.ObjectMeta{Name: "denied"}, Spec: api.CertificateSigningRequestSpec{
		Request: []byte("-"), SignerName: "example.com/x", Usages: []api.KeyUsage{"client auth"}}}
	require.Error(t, func() error { _, err := srv.Create(ctx, csr); return err }(), "an invalid request is refused")
	created := createDenied(t, srv)
	testenv.SettleController(t, ctx, f, c)
	_, err = srv.Get(ctx, client.CertificateSigningRequests, "", created, client.GetOptions{})
	require.NoError(t, err, "denied a moment ago: kept")

	clk.Step(time.Hour + time.Second)
	testenv.SettleController(t, ctx, f, c)
	_, err = srv.Get(ctx, client.CertificateSigningRequests, "", created, client.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "denied over an hour ago: deleted, got %v", err)
}

// createDenied creates a request and denies it through the approval
// subresource; it returns its name.
func createDenied(t *testing.T, srv *apiserver.Server) string {
	t.Helper()
	ctx := t.Context()
	csr := &api.CertificateSigningRequest{Metadata: api.ObjectMeta{Name: "denied"}, Spec: api.CertificateSigningRequestSpec{
		Request: []byte(testCSRPEM), SignerName: "example.com/x", Usages: []api.KeyUsage{"client auth"}}}
	obj, err := srv.Create(ctx, csr)
	require.NoError(t, err)
	d := obj.(*api.CertificateSigningRequest).DeepCopy()
	d.Status.Conditions = []api.CertificateSigningRequestCondition{{Type: "Denied", Status: "True", Reason: "Nope"}}
	_, err = srv.UpdateApproval(ctx, d)
	require.NoError(t, err)
	return d.Metadata.Name
}
