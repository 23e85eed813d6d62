package apiserver_test

import (
	"math/rand/v2"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
)

// TestCSRWrites drives a CertificateSigningRequest through its writes as
// kube-apiserver's strategies allow them: the requester comes from who
// creates it, a main update keeps spec and status, approval writes the
// conditions only and status the certificate.
func TestCSRWrites(t *testing.T) {
	s, _ := newServer(t)
	asJane := client.WithUser(ctx, client.User{Name: "jane", UID: "u-1", Groups: []string{"devs", "system:authenticated"}})
	obj, err := s.Create(asJane, &api.CertificateSigningRequest{Metadata: api.ObjectMeta{Name: "c"}, Spec: api.CertificateSigningRequestSpec{
		Request: readFile(t, "testdata/csr.pem"), SignerName: "example.com/signer", Usages: []api.KeyUsage{"client auth"}, Username: "admin"},
		Status: api.CertificateSigningRequestStatus{Conditions: []api.CertificateSigningRequestCondition{{Type: "Approved", Status: "True"}}}})
	require.NoError(t, err)
	csr := obj.(*api.CertificateSigningRequest)
	assert.Equal(t, "jane", csr.Spec.Username, "the requester is who created it, not what was sent")
	assert.Equal(t, "u-1", csr.Spec.UID)
	assert.Equal(t, []string{"devs", "system:authenticated"}, csr.Spec.Groups)
	assert.Empty(t, csr.Status.Conditions, "a request is never created approved")

	upd := csr.DeepCopy()
	upd.Spec.SignerName = "example.com/other"
	upd.Metadata.Annotations = map[string]string{"a": "b"}
	obj, err = s.Update(ctx, upd)
	require.NoError(t, err)
	assert.Equal(t, "example.com/signer", obj.(*api.CertificateSigningRequest).Spec.SignerName, "a main update keeps the spec")

	approve := obj.(*api.CertificateSigningRequest).DeepCopy()
	approve.Status.Conditions = []api.CertificateSigningRequestCondition{{Type: "Approved", Status: "True", Reason: "OK"}}
	_, err = s.UpdateStatus(ctx, approve)
	require.Error(t, err, "status may not add Approved")
	assert.Equal(t, `CertificateSigningRequest.certificates.k8s.io "c" is invalid: status.conditions: Forbidden: updates may not add a condition of type "Approved"`, err.Error())
	obj, err = s.UpdateApproval(ctx, approve)
	require.NoError(t, err)
	approved := obj.(*api.CertificateSigningRequest)
	require.Len(t, approved.Status.Conditions, 1)
	assert.False(t, approved.Status.Conditions[0].LastUpdateTime.IsZero(), "the server stamps the condition")

	issue := approved.DeepCopy()
	issue.Status.Certificate = []byte("not a certificate")
	issue.Metadata.Annotations = map[string]string{"through": "approval"}
	obj, err = s.UpdateApproval(ctx, issue)
	require.NoError(t, err)
	assert.Empty(t, obj.(*api.CertificateSigningRequest).Status.Certificate, "approval writes the conditions only")
	assert.Equal(t, "approval", obj.GetObjectMeta().Annotations["through"], "and the metadata it is sent")

	_, err = s.UpdateApproval(ctx, &api.Pod{Metadata: api.ObjectMeta{Namespace: "default", Name: "p"}})
	assert.True(t, apierrors.IsMethodNotSupported(err), "only CSRs have approval: %v", err)
}

// TestMandatoryFlowControl: with Config.FlowControl the server makes the
// exempt and catch-all schemas and levels at start, and Sweep puts back
// one that is deleted, as kube-apiserver's ensurer does.
func TestMandatoryFlowControl(t *testing.T) {
	s, err := apiserver.New(apiserver.Config{Clock: clock.NewFake(epoch), Rand: rand.New(rand.NewPCG(1, 2)), FlowControl: true})
	require.NoError(t, err)
	names := func(resource string) []string {
		l, err := s.List(ctx, resource, "", client.ListOptions{})
		require.NoError(t, err)
		var out []string
		for _, o := range l.Items {
			out = append(out, o.GetObjectMeta().Name)
		}
		return out
	}
	assert.Equal(t, []string{"catch-all", "exempt"}, names(client.FlowSchemas))
	assert.Equal(t, []string{"catch-all", "exempt"}, names(client.PriorityLevelConfigurations))

	_, err = s.Delete(ctx, client.FlowSchemas, "", "catch-all", api.DeleteOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{"exempt"}, names(client.FlowSchemas))
	s.Sweep()
	assert.Equal(t, []string{"catch-all", "exempt"}, names(client.FlowSchemas), "put back")

	fs, err := s.Get(ctx, client.FlowSchemas, "", "exempt", client.GetOptions{})
	require.NoError(t, err)
	changed := fs.(*api.FlowSchema).DeepCopy()
	changed.Spec.MatchingPrecedence = 2
	_, err = s.Update(ctx, changed)
	require.Error(t, err, "a mandatory schema's spec is fixed")
	assert.True(t, apierrors.IsInvalid(err))
}

// readFile returns a file of the tests' data.
func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}
