package main

import (
	"encoding/base64"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAPIOnlyKindsWithKubectl drives the kinds only the API server acts on
// with the real kubectl against `miniplane serve`: a RuntimeClass gives a
// pod its overhead and a missing one refuses the pod; a
// CertificateSigningRequest is listed with its requester, approved with
// `kubectl certificate approve` (the approval subresource) and its creation
// warns that nothing signs it; the mandatory flow schemas are there.
func TestAPIOnlyKindsWithKubectl(t *testing.T) {
	k := readyServe(t)

	k.ok("create", "-f", k.file("rc.yaml", `apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: kata}
handler: kata
overhead: {podFixed: {cpu: 250m}}
`))
	assert.Regexp(t, `kata\s+kata\s+`, k.ok("get", "runtimeclass"))
	k.ok("create", "-f", k.file("pod.yaml", `apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  runtimeClassName: kata
  containers: [{name: web, image: nginx}]
`))
	assert.Equal(t, "250m", k.get("get", "pod", "web", "-o", "jsonpath={.spec.overhead.cpu}"))
	out, err := k.run(nil, "create", "-f", k.file("lost.yaml", `apiVersion: v1
kind: Pod
metadata: {name: lost}
spec:
  runtimeClassName: missing
  containers: [{name: web, image: nginx}]
`))
	require.Error(t, err)
	assert.Contains(t, out, `pods "lost" is forbidden: pod rejected: RuntimeClass "missing" not found`)

	pemBytes, err := os.ReadFile("../../apiserver/testdata/csr.pem")
	require.NoError(t, err)
	out = k.ok("create", "-f", k.file("csr.yaml", `apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata: {name: jane}
spec:
  request: `+base64.StdEncoding.EncodeToString(pemBytes)+`
  signerName: example.com/signer
  expirationSeconds: 86400
  usages: [client auth]
`))
	assert.Contains(t, out, "certificates are not signed here")
	assert.Regexp(t, `jane\s+\S+\s+example.com/signer\s+\S+\s+24h\s+Pending`, k.ok("get", "csr"))
	assert.Contains(t, k.ok("certificate", "approve", "jane"), "approved")
	assert.Regexp(t, `jane\s+\S+\s+example.com/signer\s+\S+\s+24h\s+Approved`, k.ok("get", "csr"))

	assert.Regexp(t, `catch-all\s+catch-all\s+10000\s+ByUser`, k.ok("get", "flowschemas"))
	assert.Regexp(t, `exempt\s+Exempt`, k.ok("get", "prioritylevelconfigurations"))
}
