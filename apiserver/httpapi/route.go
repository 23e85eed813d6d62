package httpapi

import (
	"net/http"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
)

// route sends a request to the handler of its path.
func (h *Handler) route(w http.ResponseWriter, r *http.Request, info *requestInfo) {
	path := strings.Trim(r.URL.Path, "/")
	if endpoint, check, ok := healthPath(path); ok {
		info.resource = "health"
		if h.onlyGet(w, r) {
			h.serveHealth(w, r, endpoint, check)
		}
		return
	}
	switch path {
	case "api", "apis":
		info.resource = "discovery"
		if h.onlyGet(w, r) {
			h.serveRootDiscovery(w, r, path == "api")
		}
		return
	case "version":
		info.resource = "version"
		if h.onlyGet(w, r) {
			writeJSON(w, http.StatusOK, binaryVersion())
		}
		return
	case "metrics":
		info.resource = "metrics"
		if h.onlyGet(w, r) {
			h.serveMetrics(w)
		}
		return
	}
	if rest, ok := strings.CutPrefix(path, "openapi/"); ok {
		info.resource = "openapi"
		if h.onlyGet(w, r) {
			h.serveOpenAPI(w, r, rest)
		}
		return
	}

	segs := strings.Split(path, "/")
	var gv *groupVersion
	switch {
	case len(segs) >= 2 && segs[0] == "api":
		gv, segs = h.currentRoutes().byPath["api/"+segs[1]], segs[2:]
	case len(segs) == 2 && segs[0] == "apis":
		info.resource = "discovery"
		if h.onlyGet(w, r) {
			h.serveGroup(w, segs[1])
		}
		return
	case len(segs) >= 3 && segs[0] == "apis":
		gv, segs = h.currentRoutes().byPath["apis/"+segs[1]+"/"+segs[2]], segs[3:]
	}
	if gv == nil {
		writeError(w, h.notFoundFor(path))
		return
	}
	if len(segs) == 0 {
		info.resource = "discovery"
		if h.onlyGet(w, r) {
			h.serveResourceList(w, gv)
		}
		return
	}
	if gv.reviews {
		h.serveReview(w, r, gv, segs, info)
		return
	}
	if ns, name, ok := isTokenPath(gv, segs); ok && h.issuer != nil {
		info.verb, info.resource = "create", "serviceaccounts/token"
		h.serveTokenRequest(w, r, ns, name)
		return
	}
	req, err := parseResourcePath(gv, segs, r)
	if err != nil {
		if apierrors.IsNotFound(err) {
			err = h.notFoundFor(path)
		}
		writeError(w, err)
		return
	}
	info.verb, info.resource = req.verb, req.info.Resource
	if req.sub != "" {
		info.resource += "/" + req.sub
	}
	h.serveResource(w, r, req)
}

// onlyGet answers 405 to anything but GET (and HEAD) on the read-only paths.
func (h *Handler) onlyGet(w http.ResponseWriter, r *http.Request) bool {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return true
	}
	writeError(w, apierrors.NewMethodNotSupported(apierrors.GroupResource{Resource: r.URL.Path}, strings.ToLower(r.Method)))
	return false
}

// notFoundPath is kube-apiserver's answer for a path it does not serve.
func notFoundPath() error {
	return &apierrors.StatusError{Status: api.Status{
		TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   api.StatusFailure,
		Message:  "the server could not find the requested resource",
		Reason:   api.StatusReasonNotFound,
		Details:  &api.StatusDetails{},
		Code:     http.StatusNotFound,
	}}
}

// resourceRequest is a request on a resource path, parsed.
type resourceRequest struct {
	verb      string // get, list, watch, create, update, patch, delete, deletecollection
	info      apiserver.ResourceInfo
	namespace string // "" across namespaces, or for cluster-scoped resources
	name      string // "" on a collection
	sub       string // "", "status", "approval", "ephemeralcontainers", "scale", "binding", "eviction", "log", or a connect subresource (connect.go)
}

// parseResourcePath reads the segments after a group version's prefix:
//
//	{resource}[/{name}[/{sub}]]                     cluster-scoped, or a namespaced list across namespaces
//	namespaces/{ns}/{resource}[/{name}[/{sub}]]     namespaced
//	watch/...                                       the legacy watch prefix
func parseResourcePath(gv *groupVersion, segs []string, r *http.Request) (resourceRequest, error) {
	watchPrefix := segs[0] == "watch"
	if watchPrefix {
		segs = segs[1:]
	}
	if len(segs) == 0 {
		return resourceRequest{}, notFoundPath()
	}
	var req resourceRequest
	if info, ok := namespacedPath(gv, segs); ok {
		req.info, req.namespace, segs = info, segs[1], segs[3:]
		if req.namespace == "" {
			return req, apierrors.NewBadRequest("the namespace in the path is empty")
		}
	} else {
		info, ok := gv.byName[segs[0]]
		if !ok || (info.Namespaced && len(segs) > 1) {
			return req, notFoundPath() // a namespaced object needs namespaces/{ns}/ first
		}
		req.info, segs = info, segs[1:]
	}
	switch len(segs) {
	case 0:
	case 1:
		req.name = segs[0]
	case 2:
		req.name, req.sub = segs[0], segs[1]
		if !hasSub(req.info, req.sub) {
			return req, notFoundPath()
		}
	default:
		if segs[1] != "proxy" || !isConnect(req.info, segs[1]) {
			return req, notFoundPath()
		}
		req.name, req.sub = segs[0], segs[1] // {name}/proxy/{path...}
	}
	if req.name == "" && len(segs) > 0 {
		return req, notFoundPath()
	}

	watch := watchPrefix || isTrue(queryOf(r).Get("watch"))
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		switch {
		case watch && req.sub == "":
			req.verb = "watch"
		case req.name == "":
			req.verb = "list"
		default:
			req.verb = "get"
		}
	case http.MethodPost:
		req.verb = "create"
	case http.MethodPut:
		req.verb = "update"
	case http.MethodPatch:
		req.verb = "patch"
	case http.MethodDelete:
		req.verb = "delete"
		if req.name == "" {
			req.verb = "deletecollection"
		}
	case http.MethodOptions:
		if req.sub != "proxy" {
			return req, apierrors.NewMethodNotSupported(req.info.GroupResource(), "options")
		}
		req.verb = "options" // kube-apiserver's RequestInfo: the method, lower-cased
	default:
		return req, apierrors.NewMethodNotSupported(req.info.GroupResource(), strings.ToLower(r.Method))
	}
	if watchPrefix && req.verb != "watch" {
		return req, notFoundPath()
	}
	if err := checkVerb(req); err != nil {
		return req, err
	}
	return req, nil
}

// namespacedPath reports whether segs are namespaces/{ns}/{resource}/...
// for a namespaced resource, and which.
func namespacedPath(gv *groupVersion, segs []string) (apiserver.ResourceInfo, bool) {
	if len(segs) < 3 || segs[0] != "namespaces" {
		return apiserver.ResourceInfo{}, false
	}
	info, ok := gv.byName[segs[2]]
	return info, ok && info.Namespaced
}

// hasSub says whether a resource has a subresource.
func hasSub(info apiserver.ResourceInfo, sub string) bool {
	switch sub {
	case "status":
		return info.HasStatus
	case "approval":
		return info.HasApproval
	case "scale":
		return info.HasScale
	case "binding":
		return info.HasBinding
	case "eviction":
		return info.HasEviction
	case "log", "ephemeralcontainers":
		return info.Resource == client.Pods && info.Group == ""
	case "finalize":
		return info.Resource == client.Namespaces && info.Group == ""
	}
	return isConnect(info, sub)
}

// checkVerb refuses the verbs a path does not take, with 405.
func checkVerb(req resourceRequest) error {
	ok := true
	switch req.sub {
	case "":
		switch req.verb {
		case "create":
			ok = req.name == ""
		case "update", "patch":
			ok = req.name != ""
		}
	case "status", "scale", "approval", "ephemeralcontainers":
		ok = req.verb == "get" || req.verb == "update" || req.verb == "patch"
	case "binding", "eviction":
		ok = req.verb == "create"
	case "finalize":
		ok = req.verb == "update"
	case "log":
		ok = req.verb == "get"
	}
	if !ok {
		action := req.verb
		if req.sub != "" {
			action += " " + req.sub
		}
		return apierrors.NewMethodNotSupported(req.info.GroupResource(), action)
	}
	return nil
}

func isTrue(v string) bool { return v == "true" || v == "1" }
