package api

// CertificateSigningRequest asks a signer for a certificate. It is
// cluster-scoped. Its spec is fixed at create (the requesting user is the
// server's to set); an approver writes Approved or Denied conditions through
// the approval subresource, and the signer the certificate through the status
// subresource. Kubernetes: certificatesv1.CertificateSigningRequest.
type CertificateSigningRequest struct {
	TypeMeta `json:",inline"`
	// Metadata is the request's identity.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the request: the PEM CSR, the signer, the usages.
	Spec CertificateSigningRequestSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	// Status is the approval and the issued certificate.
	Status CertificateSigningRequestStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// GetObjectMeta returns the request's metadata.
func (c *CertificateSigningRequest) GetObjectMeta() *ObjectMeta { return &c.Metadata }

// CertificateSigningRequestSpec is what is asked for, and by whom.
// Kubernetes: certificatesv1.CertificateSigningRequestSpec. The
// requester's extra attributes (extra) are not modelled.
type CertificateSigningRequestSpec struct {
	// Request is a PEM "CERTIFICATE REQUEST" block, its signature checked at create.
	Request []byte `json:"request" protobuf:"bytes,1,opt,name=request"`
	// SignerName is the signer asked to sign, as "example.com/signer-name".
	SignerName string `json:"signerName" protobuf:"bytes,7,opt,name=signerName"`
	// ExpirationSeconds is the validity asked for, at least 600.
	ExpirationSeconds *int32 `json:"expirationSeconds,omitempty" protobuf:"varint,8,opt,name=expirationSeconds"`
	// Usages are the key usages asked for ("digital signature", "server auth", ...).
	// Its upstream Go tag says "opt"; the label follows generated.proto (repeated).
	Usages []KeyUsage `json:"usages,omitempty" protobuf:"bytes,5,rep,name=usages"`
	// Username is the requesting user's name, set by the server at create.
	Username string `json:"username,omitempty" protobuf:"bytes,2,opt,name=username"`
	// UID is the requesting user's uid, set by the server at create.
	UID string `json:"uid,omitempty" protobuf:"bytes,3,opt,name=uid"`
	// Groups are the requesting user's groups, set by the server at create.
	Groups []string `json:"groups,omitempty" protobuf:"bytes,4,rep,name=groups"`
}

// KeyUsage is a key usage or extended key usage a certificate may allow.
// Kubernetes: certificatesv1.KeyUsage.
type KeyUsage string

// CertificateSigningRequestStatus is the request's approval and certificate.
// Kubernetes: certificatesv1.CertificateSigningRequestStatus.
type CertificateSigningRequestStatus struct {
	// Conditions are Approved, Denied, Failed and any other the signer writes.
	Conditions []CertificateSigningRequestCondition `json:"conditions,omitempty" protobuf:"bytes,1,rep,name=conditions"`
	// Certificate is the issued certificate, PEM "CERTIFICATE" blocks.
	Certificate []byte `json:"certificate,omitempty" protobuf:"bytes,2,opt,name=certificate"`
}

// The condition types of a CertificateSigningRequest that only ever are True.
const (
	// CertificateApproved: an approver allowed the request.
	CertificateApproved = "Approved"
	// CertificateDenied: an approver refused the request.
	CertificateDenied = "Denied"
	// CertificateFailed: the signer could not sign.
	CertificateFailed = "Failed"
)

// CertificateSigningRequestCondition is one condition of a request.
// Kubernetes: certificatesv1.CertificateSigningRequestCondition.
type CertificateSigningRequestCondition struct {
	// Type is Approved, Denied, Failed, or another.
	Type string `json:"type" protobuf:"bytes,1,opt,name=type"`
	// Status is True, False or Unknown; True only for Approved, Denied and Failed.
	Status ConditionStatus `json:"status" protobuf:"bytes,6,opt,name=status"`
	// Reason is a one-word CamelCase reason.
	Reason string `json:"reason,omitempty" protobuf:"bytes,2,opt,name=reason"`
	// Message is a human-readable detail.
	Message string `json:"message,omitempty" protobuf:"bytes,3,opt,name=message"`
	// LastUpdateTime is when the condition was last written; the server sets it when missing.
	LastUpdateTime Time `json:"lastUpdateTime,omitempty" protobuf:"bytes,4,opt,name=lastUpdateTime"`
	// LastTransitionTime is when the status last changed; the server sets it when missing.
	LastTransitionTime Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,5,opt,name=lastTransitionTime"`
}

// CertificateSigningRequestList is a list of requests. Kubernetes:
// certificatesv1.CertificateSigningRequestList.
type CertificateSigningRequestList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the revision the list was read at.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the requests.
	Items []CertificateSigningRequest `json:"items" protobuf:"bytes,2,rep,name=items"`
}
