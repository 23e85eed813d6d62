package apiserver

import (
	"testing"

	"github.com/miniplane/miniplane/api"
)

// FuzzCSRRequest feeds arbitrary bytes to a request's PEM and arbitrary
// names to its signer: validation answers, never panics, and a request it
// accepts parses as a signed CSR.
func FuzzCSRRequest(f *testing.F) {
	f.Add([]byte(testCSRPEM), "example.com/signer", []byte(testCertPEM))
	f.Add([]byte("-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n"), "a/b/c", []byte("x"))
	f.Add([]byte{}, "", []byte{})
	f.Add([]byte("garbage"), "-.-/..", []byte("-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n"))
	f.Fuzz(func(t *testing.T, request []byte, signer string, cert []byte) {
		csr := &api.CertificateSigningRequest{Metadata: api.ObjectMeta{Name: "c"}, Spec: api.CertificateSigningRequestSpec{
			Request: request, SignerName: signer, Usages: []api.KeyUsage{"client auth"}},
			Status: api.CertificateSigningRequestStatus{Certificate: cert}}
		if validateCertificateSigningRequest(csr) == nil && checkCSRSignature(request) != nil {
			t.Fatalf("accepted a request whose signature does not check: %q", request)
		}
	})
}

// FuzzFlowControlPaths feeds arbitrary non-resource paths, verbs and
// namespaces to a FlowSchema's rules and queue sizes to a level:
// validation answers, never panics.
func FuzzFlowControlPaths(f *testing.F) {
	f.Add("/healthz", "get", "default", int32(64), int32(8))
	f.Add("/apis/*", "*", "*", int32(1), int32(1))
	f.Add("*", "feed", "-bad", int32(0), int32(-1))
	f.Add("/a/*/b", "", "", int32(10000000), int32(60))
	f.Fuzz(func(t *testing.T, path, verb, ns string, queues, hand int32) {
		fs := validFlowSchema()
		fs.Spec.Rules[0].NonResourceRules = []api.NonResourcePolicyRule{{Verbs: []string{verb}, NonResourceURLs: []string{path}}}
		fs.Spec.Rules[0].ResourceRules[0].Namespaces = []string{ns}
		_ = validateFlowSchema(fs)
		pl := validPriorityLevel()
		pl.Spec.Limited.LimitResponse.Queuing = &api.QueuingConfiguration{Queues: queues, HandSize: hand, QueueLengthLimit: 1}
		_ = validatePriorityLevelConfiguration(pl)
	})
}
