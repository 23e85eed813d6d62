package httpapi

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver/serviceaccount"
	"github.com/miniplane/miniplane/client"
)

// The TokenRequest API: POST serviceaccounts/{name}/token asks for a
// signed token of the account (`kubectl create token NAME`). Nothing is
// stored. Kubernetes: pkg/registry/core/serviceaccount/storage/token.go,
// pkg/apis/authentication/validation (ValidateTokenRequest).

// Token lifetimes: the default, and the bounds a request must keep.
// Kubernetes: the TokenRequestSpec default, MinTokenAgeSec, MaxTokenAgeSec.
const (
	defaultTokenSeconds = 3600
	minTokenSeconds     = 10 * 60
	maxTokenSeconds     = 1 << 32
)

// tokenRequest is authentication.k8s.io/v1 TokenRequest, in its JSON shape
// and protobuf field numbers (k8s.io/api authentication/v1).
type tokenRequest struct {
	api.TypeMeta `json:",inline"`
	Metadata     api.ObjectMeta     `json:"metadata" protobuf:"bytes,1,opt,name=metadata"`
	Spec         tokenRequestSpec   `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	Status       tokenRequestStatus `json:"status" protobuf:"bytes,3,opt,name=status"`
}

type tokenRequestSpec struct {
	Audiences         []string              `json:"audiences" protobuf:"bytes,1,rep,name=audiences"`
	ExpirationSeconds *int64                `json:"expirationSeconds" protobuf:"varint,4,opt,name=expirationSeconds"`
	BoundObjectRef    *boundObjectReference `json:"boundObjectRef" protobuf:"bytes,3,opt,name=boundObjectRef"`
}

type boundObjectReference struct {
	Kind       string  `json:"kind,omitempty" protobuf:"bytes,1,opt,name=kind"`
	APIVersion string  `json:"apiVersion,omitempty" protobuf:"bytes,2,opt,name=aPIVersion"`
	Name       string  `json:"name,omitempty" protobuf:"bytes,3,opt,name=name"`
	UID        api.UID `json:"uid,omitempty" protobuf:"bytes,4,opt,name=uID"`
}

type tokenRequestStatus struct {
	Token               string   `json:"token" protobuf:"bytes,1,opt,name=token"`
	ExpirationTimestamp api.Time `json:"expirationTimestamp" protobuf:"bytes,2,opt,name=expirationTimestamp"`
}

// isTokenPath reports whether segs (after /api/v1) are a service
// account's token subresource, and names the account.
func isTokenPath(gv *groupVersion, segs []string) (namespace, name string, ok bool) {
	if gv.group != "" || len(segs) != 5 || segs[0] != "namespaces" || segs[2] != "serviceaccounts" || segs[4] != "token" {
		return "", "", false
	}
	return segs[1], segs[3], true
}

// serveTokenRequest answers a TokenRequest for the account namespace/name:
// the spec defaulted (an hour; the API server's audience) and checked,
// the account (and a bound pod) read, and a token signed for them.
func (h *Handler) serveTokenRequest(w http.ResponseWriter, r *http.Request, namespace, name string) {
	gr := apierrors.GroupResource{Resource: "serviceaccounts"}
	if r.Method != http.MethodPost {
		writeError(w, apierrors.NewMethodNotSupported(apierrors.GroupResource{Resource: "serviceaccounts/token"}, methodVerb(r.Method)))
		return
	}
	out, err := negotiateReview(r)
	if err != nil {
		writeError(w, err)
		return
	}
	body, err := readBody(r)
	if err != nil {
		writeError(w, err)
		return
	}
	var tr tokenRequest
	if len(body) > 0 {
		if err := h.decodeBody(w, r, body, &tr, "TokenRequest", "authentication.k8s.io/v1"); err != nil {
			writeError(w, err)
			return
		}
	}
	if tr.Spec.ExpirationSeconds == nil {
		secs := int64(defaultTokenSeconds)
		tr.Spec.ExpirationSeconds = &secs
	}
	if len(tr.Spec.Audiences) == 0 {
		tr.Spec.Audiences = []string{APIAudience}
	}
	if secs := *tr.Spec.ExpirationSeconds; secs < minTokenSeconds || secs > maxTokenSeconds {
		detail := "may not specify a duration less than 10 minutes"
		if secs > maxTokenSeconds {
			detail = "may not specify a duration larger than 2^32 seconds"
		}
		writeError(w, apierrors.NewInvalid("authentication.k8s.io", "TokenRequest", name, apierrors.FieldErrors{{
			Type: api.CauseTypeFieldValueInvalid, Field: "spec.expirationSeconds", BadValue: secs, Detail: detail}}))
		return
	}
	ctx := r.Context()
	sa, err := client.For[*api.ServiceAccount](h.srv).Get(ctx, namespace, name)
	if err != nil {
		writeError(w, err)
		return
	}
	req := serviceaccount.Request{Account: sa, Audiences: tr.Spec.Audiences,
		Duration: time.Duration(*tr.Spec.ExpirationSeconds) * time.Second,
		ID:       string(sa.Metadata.UID) + "-" + strconv.FormatInt(h.clock.Now().UnixNano(), 36)}
	if ref := tr.Spec.BoundObjectRef; ref != nil {
		if ref.Kind != "Pod" || (ref.APIVersion != "" && ref.APIVersion != "v1") {
			writeError(w, apierrors.NewBadRequest(fmt.Sprintf("cannot bind token for serviceaccount %q to object of type %s, Kind=%s", name, groupVersionOf(ref.APIVersion), ref.Kind)))
			return
		}
		pod, err := client.For[*api.Pod](h.srv).Get(ctx, namespace, ref.Name)
		if err != nil {
			writeError(w, err)
			return
		}
		if ref.UID != "" && ref.UID != pod.Metadata.UID {
			writeError(w, apierrors.NewConflict(apierrors.GroupResource{Resource: "Pod"}, ref.Name,
				fmt.Sprintf("the UID in the bound object reference (%s) does not match the UID in record. The object might have been deleted and then recreated", ref.UID)))
			return
		}
		if pod.Spec.ServiceAccountName != name {
			writeError(w, apierrors.NewBadRequest(fmt.Sprintf("cannot bind token for serviceaccount %q to pod running with different serviceaccount name.", name)))
			return
		}
		req.Pod = pod
		ref.UID = pod.Metadata.UID
		if pod.Spec.NodeName != "" { // kube-apiserver names the pod's node in the token too
			if node, err := client.For[*api.Node](h.srv).Get(ctx, "", pod.Spec.NodeName); err == nil {
				req.Node = node
			}
		}
	}
	token, exp, err := h.issuer.Issue(req)
	if err != nil {
		writeError(w, apierrors.NewInternalError(fmt.Errorf("failed to sign a token for %s: %w", gr, err)))
		return
	}
	tr.TypeMeta = api.TypeMeta{APIVersion: "authentication.k8s.io/v1", Kind: "TokenRequest"}
	tr.Metadata.Name, tr.Metadata.Namespace = name, namespace
	tr.Metadata.CreationTimestamp = api.NewTime(h.clock.Now().Truncate(time.Second))
	tr.Status = tokenRequestStatus{Token: token, ExpirationTimestamp: api.NewTime(exp)}
	writeValue(w, http.StatusCreated, out.format, "authentication.k8s.io/v1", "TokenRequest", &tr)
}

// groupVersionOf prints an apiVersion as schema.GroupVersion does in
// kube-apiserver's message ("/v1" for the core group).
func groupVersionOf(apiVersion string) string {
	if apiVersion == "" || apiVersion == "v1" {
		return "/v1"
	}
	return apiVersion
}
