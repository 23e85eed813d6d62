package httpapi

import (
	"fmt"
	"net/http"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
)

// connectSubresources are the subresources through which kube-apiserver
// connects a client to a running container or a node (kubectl exec,
// attach, port-forward, and the proxy paths), with what kubectl calls
// each. miniplane runs no containers, so it serves none of them; it
// answers each with a Status that says so, rather than the "could not find
// the requested resource" a path it does not know gets, which reads as if
// the pod were missing.
var connectSubresources = map[string]string{
	"exec":        "exec",
	"attach":      "attach",
	"portforward": "port-forward",
	"proxy":       "proxy",
}

// isConnect says whether sub is a connect subresource of the resource.
func isConnect(info apiserver.ResourceInfo, sub string) bool {
	if _, ok := connectSubresources[sub]; !ok {
		return false
	}
	switch info.Resource {
	case client.Pods:
		return true
	case client.Services, client.Nodes:
		return sub == "proxy"
	}
	return false
}

// serveConnect answers a connect subresource: 404 when the object does not
// exist (as kube-apiserver, which looks the pod up first), else 405 naming
// what miniplane does not do and why.
func (h *Handler) serveConnect(w http.ResponseWriter, r *http.Request, req resourceRequest) error {
	if req.sub == "proxy" && h.proxy != nil {
		return h.serveProxy(w, r, req) // proxy.go
	}
	if _, err := h.srv.Get(r.Context(), req.info.Resource, req.namespace, req.name, client.GetOptions{}); err != nil {
		return err
	}
	return errNoContainers(req.info.GroupResource(), req.name, connectSubresources[req.sub])
}

// errNoContainers is the Status for a connect subresource: 405
// MethodNotAllowed, the closest of Kubernetes' reasons to "this server does
// not implement it".
func errNoContainers(gr apierrors.GroupResource, name, what string) error {
	return &apierrors.StatusError{Status: api.Status{
		TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   api.StatusFailure,
		Message:  fmt.Sprintf("miniplane runs no containers: %s is not supported", what),
		Reason:   api.StatusReasonMethodNotAllowed,
		Details:  &api.StatusDetails{Name: name, Group: gr.Group, Kind: gr.Resource},
		Code:     http.StatusMethodNotAllowed,
	}}
}
