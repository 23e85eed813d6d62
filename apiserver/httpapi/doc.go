// Package httpapi is miniplane's HTTP front: the Kubernetes REST API over an
// apiserver.Server, close enough to kube-apiserver's that the real kubectl
// and a stock client-go informer use it as they would a cluster.
//
// It mirrors k8s.io/apiserver's endpoint handlers (pkg/endpoints/handlers)
// and discovery (pkg/endpoints/discovery), and the server-side printing of
// Kubernetes' pkg/printers: the Kubernetes paths (/api/v1/..., namespaced and
// across namespaces, /apis/coordination.k8s.io/v1/..., /apis/events.k8s.io/v1/...,
// which the Server tells apart by group), bodies in JSON or in
// Kubernetes' protobuf (application/vnd.kubernetes.protobuf, package
// api/protobuf: what client-go's typed clients send by default) both ways,
// answers negotiated from Accept (the first entry served wins; a protobuf
// Table is not served, as in kube-apiserver), PartialObjectMetadata for the
// metadata client, 415 for any other body format on every verb, errors as
// Status bodies with Kubernetes' codes, discovery (aggregated v2 and
// legacy), /version, OpenAPI v3 and v2 documents built from package api's
// types (kubectl explain and validation read them), Table output with kubectl's
// columns, watches as newline-delimited JSON events or length-prefixed
// protobuf WatchEvent frames, the status, scale, binding and eviction
// subresources, PATCH (JSON patch, merge patch, strategic merge patch and
// server-side apply, through apiserver/patch, with writes recorded in
// metadata.managedFields), dryRun, health (/healthz, /livez, /readyz: named
// checks, the handler's and the caller's, in kube-apiserver's text form,
// ?verbose, ?exclude, one check by its path), Prometheus metrics, an
// optional bearer token and a request-body limit. Pods' logs (kubectl logs)
// come from a LogSource the binary plugs in (logs.go); the self-review APIs
// answer kubectl auth can-i and whoami (auth.go); the proxy subresources
// of pods, services and nodes reach a ProxyBackend the binary plugs in
// (proxy.go); exec, attach, port-forward (and proxy without a backend) get
// a Status saying that miniplane runs no containers (connect.go).
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
// imports api, api/protobuf, apiserver, apiserver/patch, clock, zap and
// protowire.
package httpapi
