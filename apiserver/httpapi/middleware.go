package httpapi

import (
	"bytes"
	"mime"
	"net/http"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/api/protobuf"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
)

// This file is what middleware in front of a Handler needs in order to
// speak as the Handler does: which resource request an HTTP request is, as
// the Handler routes it, and the Status and watch ERROR bodies it writes.
// kube-apiserver's filters (max-in-flight, priority and fairness) sit in
// front of its handlers the same way and share their request info and
// response writers; miniplane's one such filter is apiserver/faults.

// Route is what a request on a resource path is, as the Handler routes it.
// Kubernetes: k8s.io/apiserver's request.RequestInfo, for resource requests.
type Route struct {
	// Verb is the Kubernetes verb: get, list, watch, create, update, patch,
	// delete or deletecollection.
	Verb string
	// Resource is the resource the path names.
	Resource apiserver.ResourceInfo
	// Namespace is the path's namespace: "" across namespaces and for
	// cluster-scoped resources.
	Namespace string
	// Name is the object's name, "" on a collection.
	Name string
	// Subresource is "", "status", "scale", "binding" or "eviction".
	Subresource string
	// Plain says that the answer would be the objects themselves, in JSON
	// or protobuf, rather than a Table or PartialObjectMetadata; it is
	// false as well when the Accept header cannot be served.
	Plain bool
}

// Server returns the API server the Handler serves.
func (h *Handler) Server() Backend { return h.srv }

// RouteOf says which resource request r is, as ServeHTTP would route it.
// It reports false for any other path (discovery, /version, health,
// /metrics, /openapi) and for a request the Handler would refuse on its
// path or method alone (an unknown resource, a verb the path does not
// take). It reads only r's method, URL and Accept header.
func (h *Handler) RouteOf(r *http.Request) (Route, bool) {
	segs := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	var gv *groupVersion
	switch {
	case len(segs) >= 2 && segs[0] == "api":
		gv, segs = h.currentRoutes().byPath["api/"+segs[1]], segs[2:]
	case len(segs) >= 3 && segs[0] == "apis":
		gv, segs = h.currentRoutes().byPath["apis/"+segs[1]+"/"+segs[2]], segs[3:]
	}
	if gv == nil || len(segs) == 0 {
		return Route{}, false
	}
	req, err := parseResourcePath(gv, segs, r)
	if err != nil {
		return Route{}, false
	}
	out, err := negotiate(r, req.verb == "list")
	return Route{
		Verb: req.verb, Resource: req.info, Namespace: req.namespace, Name: req.name, Subresource: req.sub,
		Plain: err == nil && !out.table && !out.partial,
	}, true
}

// WriteStatus answers r with err's Status (an InternalError if err is not
// a *apierrors.StatusError), in the format r's Accept header prefers, with
// the Status's code and, when its details carry RetryAfterSeconds, a
// Retry-After header: exactly as the Handler answers its own errors.
func WriteStatus(w http.ResponseWriter, r *http.Request, err error) {
	writeErrorAs(w, errorFormat(r), err)
}

// WatchErrorEvent returns one ERROR event carrying err's Status, encoded
// for a watch stream whose Content-Type is contentType: a protobuf frame
// (4-byte length and metav1.WatchEvent) for
// application/vnd.kubernetes.protobuf;stream=watch, a JSON line otherwise.
// It is how the Handler ends a watch it cannot serve from the
// resourceVersion asked for (410 Expired), and how kube-apiserver does.
func WatchErrorEvent(contentType string, err error) ([]byte, error) {
	f := formatJSON
	if mt, _, perr := mime.ParseMediaType(contentType); perr == nil && mt == protobuf.MediaType {
		f = formatProtobuf
	}
	st := apierrors.StatusOf(err)
	var buf bufferWriter
	s := &stream{w: &buf, out: output{format: f}}
	if werr := s.write([]client.WatchEvent{{Type: api.WatchError, Status: &st}}); werr != nil {
		return nil, werr
	}
	return buf.Bytes(), nil
}

// bufferWriter is an http.ResponseWriter that keeps the body written, for
// encoding a stream's events without a client.
type bufferWriter struct {
	bytes.Buffer
	header http.Header
}

func (b *bufferWriter) Header() http.Header {
	if b.header == nil {
		b.header = make(http.Header)
	}
	return b.header
}

func (b *bufferWriter) WriteHeader(int) {}
