package apiserver

// CertificateSigningRequests: what their strategies prepare and how they are
// validated on create, update, status update and approval. Kubernetes:
// pkg/registry/certificates/certificates/strategy.go and
// pkg/apis/certificates/validation (v1.32). The compatibility allowances
// upstream makes for data stored by older versions (duplicate usages,
// unknown usages, the legacy signer, ...) are left out: nothing older wrote
// this store.

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// csrMeta is how a request's metadata is checked: cluster-scoped, any name
// (ValidateCertificateRequestName accepts every name).
var csrMeta = metaRules{name: func(string, bool) []string { return nil }, kubeFinalizers: true}

// validKeyUsages are the key usages a request may ask for, sorted as
// upstream's sets.String lists them.
var validKeyUsages = []string{
	"any", "cert sign", "client auth", "code signing", "content commitment", "crl sign",
	"data encipherment", "decipher only", "digital signature", "email protection",
	"encipher only", "ipsec end system", "ipsec tunnel", "ipsec user", "key agreement",
	"key encipherment", "microsoft sgc", "netscape sgc", "ocsp signing", "s/mime",
	"server auth", "signing", "timestamping",
}

// legacyUnknownSignerName is the signer certificates.k8s.io/v1 refuses.
const legacyUnknownSignerName = "kubernetes.io/legacy-unknown"

// csrOptions are the differences between the create, update, status and
// approval validations. Kubernetes: certificateValidationOptions.
type csrOptions struct {
	allowSettingApprovalConditions bool
	allowSettingCertificate        bool
	// allowArbitraryCertificate: the certificate is not parsed (it did not change).
	allowArbitraryCertificate bool
}

func defaultCertificateSigningRequest(*api.CertificateSigningRequest) {}

// validateCertificateSigningRequest checks a request on create.
// Kubernetes: ValidateCertificateSigningRequestCreate.
func validateCertificateSigningRequest(csr *api.CertificateSigningRequest) apierrors.FieldErrors {
	return validateCSR(csr, csrOptions{})
}

func validateCSR(csr *api.CertificateSigningRequest, opts csrOptions) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &csr.Metadata, csrMeta, metadataPath)
	spec := NewPath("spec")
	if err := checkCSRSignature(csr.Spec.Request); err != nil {
		errs = append(errs, Invalid(spec.Child("request"), csr.Spec.Request, err.Error()))
	}
	if len(csr.Spec.Usages) == 0 {
		errs = append(errs, Required(spec.Child("usages"), ""))
	}
	for i, u := range csr.Spec.Usages {
		if _, ok := slices.BinarySearch(validKeyUsages, string(u)); !ok {
			errs = append(errs, NotSupported(spec.Child("usages").Index(i), u, validKeyUsages...))
		}
	}
	seen := make(map[api.KeyUsage]bool, len(csr.Spec.Usages))
	for i, u := range csr.Spec.Usages {
		if seen[u] {
			errs = append(errs, Duplicate(spec.Child("usages").Index(i), u))
		}
		seen[u] = true
	}
	if csr.Spec.SignerName == legacyUnknownSignerName {
		errs = append(errs, Invalid(spec.Child("signerName"), csr.Spec.SignerName, "the legacy signerName is not allowed via this API version"))
	} else {
		errs = validateSignerName(errs, csr.Spec.SignerName, spec.Child("signerName"))
	}
	if e := csr.Spec.ExpirationSeconds; e != nil && *e < 600 {
		errs = append(errs, Invalid(spec.Child("expirationSeconds"), *e, "may not specify a duration less than 600 seconds (10 minutes)"))
	}
	errs = validateCSRConditions(errs, csr)
	if !opts.allowArbitraryCertificate {
		if err := checkCertificatePEM(csr.Status.Certificate); err != nil {
			errs = append(errs, Invalid(NewPath("status", "certificate"), "<certificate data>", err.Error()))
		}
	}
	return errs
}

// checkCSRSignature parses a PEM certificate request and checks its
// signature. Kubernetes: validateCSR and certificates.ParseCSR.
func checkCSRSignature(pemBytes []byte) error {
	block, _ := pem.Decode(pemBytes)
	if block == nil || block.Type != "CERTIFICATE REQUEST" {
		return errors.New("PEM block type must be CERTIFICATE REQUEST")
	}
	req, err := x509.ParseCertificateRequest(block.Bytes)
	if err != nil {
		return err
	}
	return req.CheckSignature()
}

// checkCertificatePEM checks an issued certificate: nothing, or PEM
// CERTIFICATE blocks without headers, each holding certificates.
// Kubernetes: validateCertificate.
func checkCertificatePEM(data []byte) error {
	if len(data) == 0 {
		return nil
	}
	blocks := 0
	for {
		block, rest := pem.Decode(data)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			return fmt.Errorf("only CERTIFICATE PEM blocks are allowed, found %q", block.Type)
		}
		if len(block.Headers) != 0 {
			return errors.New("no PEM block headers are permitted")
		}
		blocks++
		certs, err := x509.ParseCertificates(block.Bytes)
		if err != nil {
			return err
		}
		if len(certs) == 0 {
			return errors.New("found CERTIFICATE PEM block containing 0 certificates")
		}
		data = rest
	}
	if blocks == 0 {
		return errors.New("must contain at least one CERTIFICATE PEM block")
	}
	return nil
}

// validateSignerName checks a signer name: "domain/path", the domain a DNS
// name of two labels or more, the path DNS subdomains joined by dots.
// Kubernetes: ValidateSignerName (pkg/apis/core/validation/names.go).
func validateSignerName(errs apierrors.FieldErrors, name string, p Path) apierrors.FieldErrors {
	if name == "" {
		return append(errs, Required(p, ""))
	}
	segs := strings.Split(name, "/")
	if len(segs) != 2 {
		return append(errs, Invalid(p, name, "must be a fully qualified domain and path of the form 'example.com/signer-name'"))
	}
	if len(segs[0]) > dns1123SubdomainMaxLength {
		errs = append(errs, TooLong(p, dns1123SubdomainMaxLength))
	}
	labels := strings.Split(segs[0], ".")
	for _, l := range labels {
		if msgs := dns1123LabelMsgs(l); len(msgs) > 0 {
			for _, m := range msgs {
				errs = append(errs, Invalid(p, segs[0], fmt.Sprintf("validating label %q: %s", l, m)))
			}
			break
		}
	}
	if len(labels) < 2 {
		errs = append(errs, Invalid(p, segs[0], "should be a domain with at least two segments separated by dots"))
	}
	for _, l := range strings.Split(segs[1], ".") {
		if msgs := dns1123SubdomainMsgs(l); len(msgs) > 0 {
			for _, m := range msgs {
				errs = append(errs, Invalid(p, segs[1], fmt.Sprintf("validating label %q: %s", l, m)))
			}
			break
		}
	}
	return errs
}

// validateCSRConditions checks the conditions: a type and a status each,
// Approved, Denied and Failed only True, never both Approved and Denied, no
// type twice. Kubernetes: validateConditions.
func validateCSRConditions(errs apierrors.FieldErrors, csr *api.CertificateSigningRequest) apierrors.FieldErrors {
	p := NewPath("status", "conditions")
	seen := map[string]bool{}
	var approved, denied bool
	for i, c := range csr.Status.Conditions {
		at := p.Index(i)
		if c.Type == "" {
			errs = append(errs, Required(at.Child("type"), ""))
		}
		allowed := []string{"False", "True", "Unknown"}
		if c.Type == api.CertificateApproved || c.Type == api.CertificateDenied || c.Type == api.CertificateFailed {
			allowed = []string{"True"}
		}
		switch {
		case c.Status == "":
			errs = append(errs, Required(at.Child("status"), ""))
		case !slices.Contains(allowed, string(c.Status)):
			errs = append(errs, NotSupported(at.Child("status"), c.Status, allowed...))
		}
		switch c.Type {
		case api.CertificateApproved:
			approved = true
			if denied {
				errs = append(errs, Invalid(at.Child("type"), c.Type, "Approved and Denied conditions are mutually exclusive"))
			}
		case api.CertificateDenied:
			denied = true
			if approved {
				errs = append(errs, Invalid(at.Child("type"), c.Type, "Approved and Denied conditions are mutually exclusive"))
			}
		}
		if seen[c.Type] {
			errs = append(errs, Duplicate(at.Child("type"), c.Type))
		}
		seen[c.Type] = true
	}
	return errs
}

// validateCertificateSigningRequestUpdate checks a main update, whose spec
// and status the strategy already reset to the stored ones.
// Kubernetes: ValidateCertificateSigningRequestUpdate.
func validateCertificateSigningRequestUpdate(csr, old *api.CertificateSigningRequest) apierrors.FieldErrors {
	return validateCSRUpdate(csr, old, csrOptions{})
}

// validateCSRUpdate is validateCertificateSigningRequestUpdate with the
// options of the subresource written.
func validateCSRUpdate(csr, old *api.CertificateSigningRequest, opts csrOptions) apierrors.FieldErrors {
	opts.allowArbitraryCertificate = bytes.Equal(csr.Status.Certificate, old.Status.Certificate)
	errs := validateCSR(csr, opts)
	conds := NewPath("status", "conditions")
	for _, t := range []string{api.CertificateApproved, api.CertificateDenied, api.CertificateFailed} {
		if len(csrConditions(csr, t)) < len(csrConditions(old, t)) {
			errs = append(errs, Forbidden(conds, fmt.Sprintf("updates may not remove a condition of type %q", t)))
		}
	}
	if !opts.allowSettingApprovalConditions {
		for _, t := range []string{api.CertificateApproved, api.CertificateDenied} {
			now, before := csrConditions(csr, t), csrConditions(old, t)
			switch {
			case len(now) < len(before):
			case len(now) > len(before):
				errs = append(errs, Forbidden(conds, fmt.Sprintf("updates may not add a condition of type %q", t)))
			case !reflect.DeepEqual(now, before):
				// Upstream appends a go-cmp diff of the two; here the
				// message ends at the type.
				errs = append(errs, Forbidden(conds, fmt.Sprintf("updates may not modify a condition of type %q", t)))
			}
		}
	}
	if !bytes.Equal(csr.Status.Certificate, old.Status.Certificate) {
		if !opts.allowSettingCertificate {
			errs = append(errs, Forbidden(NewPath("status", "certificate"), "updates may not set certificate content"))
		} else if len(old.Status.Certificate) > 0 {
			errs = append(errs, Forbidden(NewPath("status", "certificate"), "updates may not modify existing certificate content"))
		}
	}
	return validateObjectMetaUpdate(errs, &csr.Metadata, &old.Metadata, metadataPath)
}

// csrConditions returns the conditions of type t.
func csrConditions(csr *api.CertificateSigningRequest, t string) []api.CertificateSigningRequestCondition {
	var out []api.CertificateSigningRequestCondition
	for _, c := range csr.Status.Conditions {
		if c.Type == t {
			out = append(out, c)
		}
	}
	return out
}

// prepareCSRSubresource turns a status or approval update's object (a copy
// of the stored one with the client's status) into what is stored, and
// validates it. The status subresource keeps the Approved and Denied
// conditions as stored (adding or removing them is then refused); the
// approval subresource keeps all of the status but the conditions. Both
// fill conditions' missing timestamps with now, a transition time from the
// stored condition of the same type and status when there is one.
// Kubernetes: csrStatusStrategy and csrApprovalStrategy.
func prepareCSRSubresource(csr, old *api.CertificateSigningRequest, approval bool, now api.Time) apierrors.FieldErrors {
	if approval {
		fillCSRConditionTimes(csr, old, now)
		conds := csr.Status.Conditions
		csr.Status = old.Status
		csr.Status.Conditions = conds
		return validateCSRUpdate(csr, old, csrOptions{allowSettingApprovalConditions: true})
	}
	keepCSRConditions(csr, old, api.CertificateApproved)
	keepCSRConditions(csr, old, api.CertificateDenied)
	fillCSRConditionTimes(csr, old, now)
	return validateCSRUpdate(csr, old, csrOptions{allowSettingCertificate: true})
}

// keepCSRConditions puts old's conditions of type t back in csr's places
// for them, when csr has as many. Kubernetes: preserveConditionInstances.
func keepCSRConditions(csr, old *api.CertificateSigningRequest, t string) {
	var oldAt, newAt []int
	for i, c := range old.Status.Conditions {
		if c.Type == t {
			oldAt = append(oldAt, i)
		}
	}
	for i, c := range csr.Status.Conditions {
		if c.Type == t {
			newAt = append(newAt, i)
		}
	}
	if len(oldAt) != len(newAt) {
		return
	}
	for i, o := range oldAt {
		csr.Status.Conditions[newAt[i]] = old.Status.Conditions[o]
	}
}

// fillCSRConditionTimes sets missing condition times. Kubernetes:
// populateConditionTimestamps.
func fillCSRConditionTimes(csr, old *api.CertificateSigningRequest, now api.Time) {
	for i := range csr.Status.Conditions {
		c := &csr.Status.Conditions[i]
		if c.LastUpdateTime.IsZero() {
			c.LastUpdateTime = now
		}
		if c.LastTransitionTime.IsZero() {
			c.LastTransitionTime = now
			for _, o := range old.Status.Conditions {
				if o.Type == c.Type && o.Status == c.Status && !o.LastTransitionTime.IsZero() {
					c.LastTransitionTime = o.LastTransitionTime
					break
				}
			}
		}
	}
}
