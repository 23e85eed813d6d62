// Package apiserver is miniplane's kube-apiserver: typed resources over the
// versioned store, with Kubernetes' object rules.
//
// It mirrors the generic registry of k8s.io/apiserver (pkg/registry/generic
// and pkg/registry/rest) and the per-kind strategies of Kubernetes'
// pkg/registry/core: a create wipes the fields the server owns and sets uid,
// creationTimestamp and generation; defaulting and validation run per kind
// and a rejected object gets Invalid with one cause per field, leaving the
// store unchanged; updates are optimistic (a stale resourceVersion gets
// Conflict), an update that changes nothing writes nothing, generation moves
// only with the spec, and status and scale are subresources; deletion is
// graceful for pods, waits for finalizers, and records the propagation policy
// for the garbage collector; lists and watches take label and field
// selectors and Kubernetes' resourceVersion rules, including 410 Gone for
// compacted revisions, bookmarks, and the streaming list that informers use.
// A stored kind may be served in more than one API version, converted at the
// edge as kube-apiserver converts to and from its internal form: Events are
// stored once and served as core/v1 ("events") and as events.k8s.io/v1
// ("events.events.k8s.io"), each version with its own validation and
// field-selector labels. Evict is the pods/eviction subresource.
//
// Everything talks to a Server through the Client interface: controllers,
// informers, the election, the HTTP front and the simulator (which wraps a
// Client to inject faults). Objects a Server returns, and the objects in its
// watch events, are shared with the store and with every other reader: treat
// them as immutable and deep-copy before changing one (client-go's informer
// caches have the same rule). Objects passed in are copied once and never
// kept, so the caller may reuse them.
//
// Errors are *StatusError values carrying Kubernetes' Status (reason, code,
// message, causes); one table maps reasons to HTTP codes.
//
// Time comes from the injected clock and uids and generated names from the
// injected seeded source, so a run is reproducible. A Server is safe for
// concurrent use. It imports api, store and clock, and zap for logs.
package apiserver
