package apiserver

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
)

// testCSRPEM is a P-256 certificate request for e2e.example.com, and
// testCertPEM a certificate of the same key valid from 2026 to 2036, made
// once for the tests (testdata/csr.pem, testdata/cert.pem).
var (
	testCSRPEM  = readTestdata("testdata/csr.pem")
	testCertPEM = readTestdata("testdata/cert.pem")
)

// readTestdata returns a file of the tests' data as a string.
func readTestdata(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func validCSR() *api.CertificateSigningRequest {
	return &api.CertificateSigningRequest{Metadata: api.ObjectMeta{Name: "testcsr"}, Spec: api.CertificateSigningRequestSpec{
		Request: []byte(testCSRPEM), SignerName: "example.com/something", Usages: []api.KeyUsage{"client auth"}}}
}

// The cases of Kubernetes' TestValidateCertificateSigningRequestCreate
// (pkg/apis/certificates/validation).
func TestValidateCertificateSigningRequest(t *testing.T) {
	const subdomainMsg = msgDNS1123Subdomain
	long := strings.Repeat("a", 66)
	for _, tc := range []struct {
		name   string
		change func(*api.CertificateSigningRequest)
		want   string
		causes []cause
	}{
		{name: "valid", change: func(*api.CertificateSigningRequest) {}},
		{name: "no request", change: func(c *api.CertificateSigningRequest) { c.Spec.Request = nil },
			want: `spec.request: Invalid value: []byte(nil): PEM block type must be CERTIFICATE REQUEST`, causes: []cause{{invalid, "spec.request"}}},
		{name: "not PEM", change: func(c *api.CertificateSigningRequest) { c.Spec.Request = []byte("invalid data") },
			want:   `spec.request: Invalid value: []byte{0x69, 0x6e, 0x76, 0x61, 0x6c, 0x69, 0x64, 0x20, 0x64, 0x61, 0x74, 0x61}: PEM block type must be CERTIFICATE REQUEST`,
			causes: []cause{{invalid, "spec.request"}}},
		{name: "no usages", change: func(c *api.CertificateSigningRequest) { c.Spec.Usages = nil },
			want: "spec.usages: Required value", causes: []cause{{required, "spec.usages"}}},
		{name: "unknown and repeated usages", change: func(c *api.CertificateSigningRequest) { c.Spec.Usages = []api.KeyUsage{"unknown", "unknown"} },
			want: `[spec.usages[0]: Unsupported value: "unknown": supported values: "any", "cert sign", "client auth", "code signing", "content commitment", "crl sign", "data encipherment", "decipher only", "digital signature", "email protection", "encipher only", "ipsec end system", "ipsec tunnel", "ipsec user", "key agreement", "key encipherment", "microsoft sgc", "netscape sgc", "ocsp signing", "s/mime", "server auth", "signing", "timestamping", ` +
				`spec.usages[1]: Unsupported value: "unknown": supported values: "any", "cert sign", "client auth", "code signing", "content commitment", "crl sign", "data encipherment", "decipher only", "digital signature", "email protection", "encipher only", "ipsec end system", "ipsec tunnel", "ipsec user", "key agreement", "key encipherment", "microsoft sgc", "netscape sgc", "ocsp signing", "s/mime", "server auth", "signing", "timestamping", ` +
				`spec.usages[1]: Duplicate value: "unknown"]`,
			causes: []cause{{notSupported, "spec.usages[0]"}, {notSupported, "spec.usages[1]"}, {duplicate, "spec.usages[1]"}}},
		{name: "no signer", change: func(c *api.CertificateSigningRequest) { c.Spec.SignerName = "" },
			want: "spec.signerName: Required value", causes: []cause{{required, "spec.signerName"}}},
		{name: "signer without a path", change: func(c *api.CertificateSigningRequest) { c.Spec.SignerName = "an-invalid-signer-name" },
			want:   `spec.signerName: Invalid value: "an-invalid-signer-name": must be a fully qualified domain and path of the form 'example.com/signer-name'`,
			causes: []cause{{invalid, "spec.signerName"}}},
		{name: "signer with two slashes", change: func(c *api.CertificateSigningRequest) {
			c.Spec.SignerName = "an-invalid-signer-name.com/something/else"
		},
			want:   `spec.signerName: Invalid value: "an-invalid-signer-name.com/something/else": must be a fully qualified domain and path of the form 'example.com/signer-name'`,
			causes: []cause{{invalid, "spec.signerName"}}},
		{name: "one-segment domain", change: func(c *api.CertificateSigningRequest) { c.Spec.SignerName = "example/some-signer-name" },
			want: `spec.signerName: Invalid value: "example": should be a domain with at least two segments separated by dots`, causes: []cause{{invalid, "spec.signerName"}}},
		{name: "empty path", change: func(c *api.CertificateSigningRequest) { c.Spec.SignerName = "example.com/" },
			want: `spec.signerName: Invalid value: "": validating label "": ` + subdomainMsg, causes: []cause{{invalid, "spec.signerName"}}},
		{name: "path ending with a dash", change: func(c *api.CertificateSigningRequest) { c.Spec.SignerName = "example.com/something-" },
			want: `spec.signerName: Invalid value: "something-": validating label "something-": ` + subdomainMsg, causes: []cause{{invalid, "spec.signerName"}}},
		{name: "domain label too long", change: func(c *api.CertificateSigningRequest) { c.Spec.SignerName = long + ".example.io/valid-path" },
			want:   `spec.signerName: Invalid value: "` + long + `.example.io": validating label "` + long + `": must be no more than 63 characters`,
			causes: []cause{{invalid, "spec.signerName"}}},
		{name: "legacy signer", change: func(c *api.CertificateSigningRequest) { c.Spec.SignerName = "kubernetes.io/legacy-unknown" },
			want: `spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version`, causes: []cause{{invalid, "spec.signerName"}}},
		{name: "expiration too short", change: func(c *api.CertificateSigningRequest) { c.Spec.ExpirationSeconds = ptr(int32(60)) },
			want: "spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 600 seconds (10 minutes)", causes: []cause{{invalid, "spec.expirationSeconds"}}},
		{name: "expiration of ten minutes", change: func(c *api.CertificateSigningRequest) { c.Spec.ExpirationSeconds = ptr(int32(600)) }},
		{name: "approved and denied", change: func(c *api.CertificateSigningRequest) {
			c.Status.Conditions = []api.CertificateSigningRequestCondition{{Type: "Approved", Status: "True"}, {Type: "Denied", Status: "True"}}
		}, want: `status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive`, causes: []cause{{invalid, "status.conditions[1].type"}}},
		{name: "approved false", change: func(c *api.CertificateSigningRequest) {
			c.Status.Conditions = []api.CertificateSigningRequestCondition{{Type: "Approved", Status: "False"}}
		}, want: `status.conditions[0].status: Unsupported value: "False": supported values: "True"`, causes: []cause{{notSupported, "status.conditions[0].status"}}},
		{name: "condition without type or status", change: func(c *api.CertificateSigningRequest) {
			c.Status.Conditions = []api.CertificateSigningRequestCondition{{}}
		}, want: "[status.conditions[0].type: Required value, status.conditions[0].status: Required value]",
			causes: []cause{{required, "status.conditions[0].type"}, {required, "status.conditions[0].status"}}},
		{name: "a type twice", change: func(c *api.CertificateSigningRequest) {
			c.Status.Conditions = []api.CertificateSigningRequestCondition{{Type: "Custom", Status: "True"}, {Type: "Custom", Status: "False"}}
		}, want: `status.conditions[1].type: Duplicate value: "Custom"`, causes: []cause{{duplicate, "status.conditions[1].type"}}},
		{name: "a certificate that is not PEM", change: func(c *api.CertificateSigningRequest) { c.Status.Certificate = []byte("not PEM") },
			want: `status.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block`, causes: []cause{{invalid, "status.certificate"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := validCSR()
			tc.change(c)
			assertErrors(t, validateCertificateSigningRequest(c), tc.want, tc.causes)
		})
	}
}

// The cases of Kubernetes' TestValidateCertificateSigningRequestUpdate,
// ...StatusUpdate and ...ApprovalUpdate: what each way of writing may
// change.
func TestValidateCertificateSigningRequestWrites(t *testing.T) {
	approved := []api.CertificateSigningRequestCondition{{Type: "Approved", Status: "True"}}
	denied := []api.CertificateSigningRequestCondition{{Type: "Denied", Status: "True"}}
	failed := []api.CertificateSigningRequestCondition{{Type: "Failed", Status: "True"}}
	type change struct {
		old, now api.CertificateSigningRequestStatus
	}
	for _, tc := range []struct {
		name                   string
		change                 change
		update, status, approv string // the errors of each write, "" for none
	}{
		{name: "no-op"},
		{name: "add Approved", change: change{now: api.CertificateSigningRequestStatus{Conditions: approved}},
			update: `status.conditions: Forbidden: updates may not add a condition of type "Approved"`,
			status: `status.conditions: Forbidden: updates may not add a condition of type "Approved"`},
		{name: "remove Approved", change: change{old: api.CertificateSigningRequestStatus{Conditions: approved}},
			update: `status.conditions: Forbidden: updates may not remove a condition of type "Approved"`,
			status: `status.conditions: Forbidden: updates may not remove a condition of type "Approved"`,
			approv: `status.conditions: Forbidden: updates may not remove a condition of type "Approved"`},
		{name: "add Denied", change: change{now: api.CertificateSigningRequestStatus{Conditions: denied}},
			update: `status.conditions: Forbidden: updates may not add a condition of type "Denied"`,
			status: `status.conditions: Forbidden: updates may not add a condition of type "Denied"`},
		{name: "add Failed", change: change{now: api.CertificateSigningRequestStatus{Conditions: failed}}},
		{name: "remove Failed", change: change{old: api.CertificateSigningRequestStatus{Conditions: failed}},
			update: `status.conditions: Forbidden: updates may not remove a condition of type "Failed"`,
			status: `status.conditions: Forbidden: updates may not remove a condition of type "Failed"`,
			approv: `status.conditions: Forbidden: updates may not remove a condition of type "Failed"`},
		{name: "set a certificate", change: change{now: api.CertificateSigningRequestStatus{Certificate: []byte(testCertPEM)}},
			update: `status.certificate: Forbidden: updates may not set certificate content`,
			approv: `status.certificate: Forbidden: updates may not set certificate content`},
		{name: "set an invalid certificate", change: change{now: api.CertificateSigningRequestStatus{Certificate: []byte("x")}},
			update: `[status.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block, status.certificate: Forbidden: updates may not set certificate content]`,
			status: `status.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block`,
			approv: `[status.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block, status.certificate: Forbidden: updates may not set certificate content]`},
		{name: "replace the certificate", change: change{old: api.CertificateSigningRequestStatus{Certificate: []byte(testCertPEM)},
			now: api.CertificateSigningRequestStatus{Certificate: []byte(testCertPEM + testCertPEM)}},
			update: `status.certificate: Forbidden: updates may not set certificate content`,
			status: `status.certificate: Forbidden: updates may not modify existing certificate content`,
			approv: `status.certificate: Forbidden: updates may not set certificate content`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old, now := validCSR(), validCSR()
			old.Metadata.ResourceVersion, now.Metadata.ResourceVersion = "1", "1"
			old.Status, now.Status = tc.change.old, tc.change.now
			for _, w := range []struct {
				opts csrOptions
				want string
			}{
				{csrOptions{}, tc.update},
				{csrOptions{allowSettingCertificate: true}, tc.status},
				{csrOptions{allowSettingApprovalConditions: true}, tc.approv},
			} {
				errs := validateCSRUpdate(now, old, w.opts)
				if w.want == "" {
					assert.Nil(t, errs, "%+v", w.opts)
				} else {
					assert.EqualError(t, errs, w.want, "%+v", w.opts)
				}
			}
		})
	}
}

// The status and approval strategies: the status subresource keeps the
// stored Approved and Denied conditions where the client has as many, the
// approval subresource keeps everything but the conditions, and both fill
// missing condition times. Kubernetes: TestStatusUpdate, TestApprovalUpdate
// (pkg/registry/certificates/certificates).
func TestPrepareCSRSubresource(t *testing.T) {
	now := api.NewTime(time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
	earlier := api.NewTime(now.Add(-time.Hour))

	t.Run("status keeps Approved as stored and sets the certificate", func(t *testing.T) {
		old := validCSR()
		old.Status.Conditions = []api.CertificateSigningRequestCondition{{Type: "Approved", Status: "True", Reason: "ok", LastUpdateTime: earlier, LastTransitionTime: earlier}}
		next := old.DeepCopy()
		next.Status.Conditions = []api.CertificateSigningRequestCondition{{Type: "Approved", Status: "True", Reason: "changed"}, {Type: "Signed", Status: "True"}}
		next.Status.Certificate = []byte(testCertPEM)
		assert.Nil(t, prepareCSRSubresource(next, old, false, now))
		assert.Equal(t, "ok", next.Status.Conditions[0].Reason)
		assert.Equal(t, now, next.Status.Conditions[1].LastUpdateTime)
		assert.Equal(t, now, next.Status.Conditions[1].LastTransitionTime)
		assert.Equal(t, []byte(testCertPEM), next.Status.Certificate)
	})
	t.Run("approval takes the conditions only", func(t *testing.T) {
		old := validCSR()
		old.Status.Conditions = []api.CertificateSigningRequestCondition{{Type: "Custom", Status: "True", LastTransitionTime: earlier}}
		next := old.DeepCopy()
		next.Status.Conditions = []api.CertificateSigningRequestCondition{{Type: "Custom", Status: "True"}, {Type: "Approved", Status: "True", Reason: "E2E"}}
		next.Status.Certificate = []byte(testCertPEM)
		assert.Nil(t, prepareCSRSubresource(next, old, true, now))
		assert.Nil(t, next.Status.Certificate, "the certificate is the status subresource's")
		assert.Equal(t, earlier, next.Status.Conditions[0].LastTransitionTime, "a transition time is kept from the stored condition")
		assert.Equal(t, now, next.Status.Conditions[1].LastTransitionTime)
	})
	t.Run("approval refuses approved and denied", func(t *testing.T) {
		old := validCSR()
		next := old.DeepCopy()
		next.Status.Conditions = []api.CertificateSigningRequestCondition{{Type: "Approved", Status: "True"}, {Type: "Denied", Status: "True"}}
		assert.EqualError(t, prepareCSRSubresource(next, old, true, now),
			`status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive`)
	})
}
