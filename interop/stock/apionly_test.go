package stock

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	certificatesv1 "k8s.io/api/certificates/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// apiOnlyKindCases are the kinds only the API server acts on, or nothing:
// node.k8s.io RuntimeClasses, certificates.k8s.io CertificateSigningRequests
// and the flowcontrol.apiserver.k8s.io kinds.
func apiOnlyKindCases() []kindCase {
	return []kindCase{
		crud[*nodev1.RuntimeClass, *nodev1.RuntimeClassList]{
			gvr: nodev1.SchemeGroupVersion.WithResource("runtimeclasses"),
			client: func(cs kubernetes.Interface, _ string) typedClient[*nodev1.RuntimeClass, *nodev1.RuntimeClassList] {
				return cs.NodeV1().RuntimeClasses()
			},
			fresh: func(name, _ string) *nodev1.RuntimeClass {
				return &nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Handler: "runc"}
			},
		},
		crud[*certificatesv1.CertificateSigningRequest, *certificatesv1.CertificateSigningRequestList]{
			gvr: certificatesv1.SchemeGroupVersion.WithResource("certificatesigningrequests"),
			client: func(cs kubernetes.Interface, _ string) typedClient[*certificatesv1.CertificateSigningRequest, *certificatesv1.CertificateSigningRequestList] {
				return cs.CertificatesV1().CertificateSigningRequests()
			},
			fresh: func(name, _ string) *certificatesv1.CertificateSigningRequest {
				return &certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: name},
					Spec: certificatesv1.CertificateSigningRequestSpec{Request: csrPEM(), SignerName: "example.com/e2e",
						ExpirationSeconds: ptr.To(int32(3600)), Usages: []certificatesv1.KeyUsage{certificatesv1.UsageClientAuth}}}
			},
		},
		crud[*flowcontrolv1.FlowSchema, *flowcontrolv1.FlowSchemaList]{
			gvr: flowcontrolv1.SchemeGroupVersion.WithResource("flowschemas"),
			client: func(cs kubernetes.Interface, _ string) typedClient[*flowcontrolv1.FlowSchema, *flowcontrolv1.FlowSchemaList] {
				return cs.FlowcontrolV1().FlowSchemas()
			},
			fresh: func(name, _ string) *flowcontrolv1.FlowSchema {
				return &flowcontrolv1.FlowSchema{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: flowcontrolv1.FlowSchemaSpec{
					MatchingPrecedence: 10000, PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: "global-default"},
					DistinguisherMethod: &flowcontrolv1.FlowDistinguisherMethod{Type: flowcontrolv1.FlowDistinguisherMethodByUserType},
					Rules: []flowcontrolv1.PolicyRulesWithSubjects{{
						Subjects:         []flowcontrolv1.Subject{{Kind: flowcontrolv1.SubjectKindUser, User: &flowcontrolv1.UserSubject{Name: "someone"}}},
						NonResourceRules: []flowcontrolv1.NonResourcePolicyRule{{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}},
					}}}}
			},
		},
		crud[*flowcontrolv1.PriorityLevelConfiguration, *flowcontrolv1.PriorityLevelConfigurationList]{
			gvr: flowcontrolv1.SchemeGroupVersion.WithResource("prioritylevelconfigurations"),
			client: func(cs kubernetes.Interface, _ string) typedClient[*flowcontrolv1.PriorityLevelConfiguration, *flowcontrolv1.PriorityLevelConfigurationList] {
				return cs.FlowcontrolV1().PriorityLevelConfigurations()
			},
			fresh: func(name, _ string) *flowcontrolv1.PriorityLevelConfiguration {
				return &flowcontrolv1.PriorityLevelConfiguration{ObjectMeta: metav1.ObjectMeta{Name: name},
					Spec: flowcontrolv1.PriorityLevelConfigurationSpec{Type: flowcontrolv1.PriorityLevelEnablementLimited,
						Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{NominalConcurrencyShares: ptr.To(int32(2)),
							LimitResponse: flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject}}}}
			},
			strategic: `{"status":{"conditions":[{"type":"A","status":"True"}]}}`,
			strategicOK: func(t *testing.T, pl *flowcontrolv1.PriorityLevelConfiguration) {
				assert.Empty(t, pl.Status.Conditions, "a main write keeps the status")
			},
		},
	}
}

// csrPEM is a certificate request, the API server's test data.
func csrPEM() []byte {
	b, err := os.ReadFile("../../apiserver/testdata/csr.pem")
	if err != nil {
		panic(err)
	}
	return b
}

func testCertificateSigningRequestStatus(t *testing.T, cs kubernetes.Interface) {
	c := apiOnlyKindCases()[1].(crud[*certificatesv1.CertificateSigningRequest, *certificatesv1.CertificateSigningRequestList])
	checkStatusUpdate(t, cs.CertificatesV1().CertificateSigningRequests(), c.fresh("status-csr", ""), func(r *certificatesv1.CertificateSigningRequest) {
		r.Status.Conditions = []certificatesv1.CertificateSigningRequestCondition{{
			Type: certificatesv1.CertificateFailed, Status: "True", Reason: "SignerValidationFailure", Message: "no signer",
		}}
	}, func(t *testing.T, r *certificatesv1.CertificateSigningRequest) {
		require.Len(t, r.Status.Conditions, 1)
		assert.Equal(t, certificatesv1.CertificateFailed, r.Status.Conditions[0].Type)
	})
}

// testCertificateSigningRequestApproval approves a request through
// /approval, as `kubectl certificate approve` does.
func testCertificateSigningRequestApproval(t *testing.T, cs kubernetes.Interface) {
	ctx := boundedContext(t)
	c := apiOnlyKindCases()[1].(crud[*certificatesv1.CertificateSigningRequest, *certificatesv1.CertificateSigningRequestList])
	client := cs.CertificatesV1().CertificateSigningRequests()
	created, err := client.Create(ctx, c.fresh("approve-csr", ""), metav1.CreateOptions{})
	require.NoError(t, err)
	created.Status.Conditions = []certificatesv1.CertificateSigningRequestCondition{{
		Type: certificatesv1.CertificateApproved, Status: "True", Reason: "KubectlApprove", Message: "approved by a test",
	}}
	approved, err := client.UpdateApproval(ctx, created.Name, created, metav1.UpdateOptions{})
	require.NoError(t, err)
	require.Len(t, approved.Status.Conditions, 1)
	assert.Equal(t, certificatesv1.CertificateApproved, approved.Status.Conditions[0].Type)
	assert.Equal(t, "KubectlApprove", approved.Status.Conditions[0].Reason)
}

func testFlowSchemaStatus(t *testing.T, cs kubernetes.Interface) {
	c := apiOnlyKindCases()[2].(crud[*flowcontrolv1.FlowSchema, *flowcontrolv1.FlowSchemaList])
	checkStatusUpdate(t, cs.FlowcontrolV1().FlowSchemas(), c.fresh("status-fs", ""), func(f *flowcontrolv1.FlowSchema) {
		f.Status.Conditions = []flowcontrolv1.FlowSchemaCondition{{Type: "Dangling", Status: "False", Reason: "Found"}}
	}, func(t *testing.T, f *flowcontrolv1.FlowSchema) {
		require.Len(t, f.Status.Conditions, 1)
		assert.Equal(t, "Found", f.Status.Conditions[0].Reason)
	})
}

func testPriorityLevelConfigurationStatus(t *testing.T, cs kubernetes.Interface) {
	c := apiOnlyKindCases()[3].(crud[*flowcontrolv1.PriorityLevelConfiguration, *flowcontrolv1.PriorityLevelConfigurationList])
	checkStatusUpdate(t, cs.FlowcontrolV1().PriorityLevelConfigurations(), c.fresh("status-plc", ""), func(p *flowcontrolv1.PriorityLevelConfiguration) {
		p.Status.Conditions = []flowcontrolv1.PriorityLevelConfigurationCondition{{Type: "Concurrency", Status: "True", Reason: "Set"}}
	}, func(t *testing.T, p *flowcontrolv1.PriorityLevelConfiguration) {
		require.Len(t, p.Status.Conditions, 1)
		assert.Equal(t, "Set", p.Status.Conditions[0].Reason)
	})
}
