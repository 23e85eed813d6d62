// Package httpapi is miniplane's HTTP front: the Kubernetes REST API over an
// apiserver.Server, close enough to kube-apiserver's that the real kubectl
// and a stock client-go informer use it as they would a cluster.
//
// It mirrors k8s.io/apiserver's endpoint handlers (pkg/endpoints/handlers)
// and discovery (pkg/endpoints/discovery), and the server-side printing of
// Kubernetes' pkg/printers: the Kubernetes paths (/api/v1/..., namespaced and
// across namespaces, /apis/coordination.k8s.io/v1/...), JSON bodies with
// Content-Type application/json on every answer, errors as Status bodies
// with Kubernetes' codes, discovery (aggregated v2 and legacy), /version,
// a minimal /openapi/v3, Table output with kubectl's columns, watches as
// newline-delimited JSON events, the status, scale and binding
// subresources, PATCH (JSON patch, merge patch, strategic merge patch and
// server-side apply, through apiserver/patch, with writes recorded in
// metadata.managedFields), dryRun, health (/healthz, /livez, /readyz: named
// checks, the handler's and the caller's, in kube-apiserver's text form,
// ?verbose, ?exclude, one check by its path), Prometheus metrics, an
// optional bearer token and a request-body limit.
//
// Every rule about objects (validation, defaulting, conflicts, deletion)
// stays in apiserver: this package only translates HTTP to Server calls and
// results back, so that what kubectl sees is what the in-process Client
// sees. A request it refuses (bad JSON, an unknown or mismatched kind, a
// body too large) changes nothing stored.
//
// Concurrency: a Handler is safe for concurrent use; each request runs on
// its net/http goroutine, and each watch holds its request's goroutine until
// the client goes away, its timeoutSeconds pass, or Shutdown is called.
// Time (ages in tables, watch timeouts) comes from the injected clock. It
// imports api, apiserver, apiserver/patch, clock and zap.
package httpapi
