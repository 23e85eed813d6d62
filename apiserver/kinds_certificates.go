package apiserver

import (
	"slices"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
)

// csrResource is the resource of CertificateSigningRequests.
var csrResource = apierrors.GroupResource{Group: "certificates.k8s.io", Resource: "certificatesigningrequests"}

// certificateSigningRequestKind is certificates.k8s.io/v1
// CertificateSigningRequest, cluster-scoped, as kube-apiserver's
// registry/certificates serves it: a create stores the requesting user in
// the spec and no status; a main update changes only metadata; /status
// writes the certificate and conditions other than Approved and Denied;
// /approval writes the conditions only. Both subresources store the
// metadata they are sent, as kube-apiserver's generic status update does.
// KCM's csrcleaner (controllers/csrcleaner) deletes requests once done or
// stale; nothing here approves or signs them (actedon.go).
func certificateSigningRequestKind() *kind {
	return typed(&kind{
		gr: csrResource, kind: "CertificateSigningRequest", apiVersion: "certificates.k8s.io/v1",
		shortNames: []string{"csr"},
		newObj:     func() api.Object { return &api.CertificateSigningRequest{} }, resetStatusOnCreate: true,
		status:                 statusOf(func(o *api.CertificateSigningRequest) *api.CertificateSigningRequestStatus { return &o.Status }),
		statusTakesAnnotations: true, approval: true, keepSpec: true,
		prepareStatus: func(next, old api.Object, approval bool, now api.Time) apierrors.FieldErrors {
			return prepareCSRSubresource(next.(*api.CertificateSigningRequest), old.(*api.CertificateSigningRequest), approval, now)
		},
		fields: func(o api.Object) map[string]string {
			return map[string]string{"spec.signerName": o.(*api.CertificateSigningRequest).Spec.SignerName}
		},
		fieldNames: []string{"spec.signerName"},
		columns: []Column{nameColumn, ageColumn,
			{Name: "SignerName", Type: "string", Description: "Requested signer for the request. It is a qualified name in the form: `scope-hostname.io/name`.",
				Cell: func(o api.Object) any { return orNone(o.(*api.CertificateSigningRequest).Spec.SignerName) }},
			{Name: "Requestor", Type: "string", Description: "Base64-encoded PKCS#10 CSR data",
				Cell: func(o api.Object) any { return o.(*api.CertificateSigningRequest).Spec.Username }},
			{Name: "RequestedDuration", Type: "string", Description: "expirationSeconds is the requested duration of validity of the issued certificate.",
				Cell: func(o api.Object) any {
					if e := o.(*api.CertificateSigningRequest).Spec.ExpirationSeconds; e != nil {
						return time.Duration(*e) * time.Second // printed as a duration
					}
					return "<none>"
				}},
			{Name: "Condition", Type: "string", Description: "Conditions applied to the request, such as approval or denial.",
				Cell: func(o api.Object) any { return csrCondition(o.(*api.CertificateSigningRequest)) }},
		},
	}, defaultCertificateSigningRequest, validateCertificateSigningRequest, validateCertificateSigningRequestUpdate)
}

// setCSRRequester puts who creates a request in its spec, whatever the
// client sent: the user of ctx (client.WithUser), none for an in-process
// writer without one. Kubernetes: csrStrategy.PrepareForCreate.
func setCSRRequester(csr *api.CertificateSigningRequest, u client.User, ok bool) {
	csr.Spec.Username, csr.Spec.UID, csr.Spec.Groups = "", "", nil
	if ok {
		csr.Spec.Username, csr.Spec.UID, csr.Spec.Groups = u.Name, u.UID, slices.Clone(u.Groups)
	}
}

// csrCondition is the Condition column: Denied, Approved or Pending, then
// Failed and Issued when they hold. Kubernetes: extractCSRStatus.
func csrCondition(csr *api.CertificateSigningRequest) string {
	var approved, denied, failed bool
	for _, c := range csr.Status.Conditions {
		switch c.Type {
		case api.CertificateApproved:
			approved = true
		case api.CertificateDenied:
			denied = true
		case api.CertificateFailed:
			failed = true
		}
	}
	status := "Pending"
	if denied {
		status = "Denied"
	} else if approved {
		status = "Approved"
	}
	if failed {
		status += ",Failed"
	}
	if len(csr.Status.Certificate) > 0 {
		status += ",Issued"
	}
	return status
}

// orNone is s, or "<none>" when it is empty, as kubectl's cells say.
func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}
