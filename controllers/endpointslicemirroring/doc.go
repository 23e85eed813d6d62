// Package endpointslicemirroring is miniplane's endpointslice-mirroring
// controller: for every Service without a selector whose Endpoints were
// written by hand (or by another controller), it keeps EndpointSlices that
// mirror those Endpoints, so that consumers of slices (kube-proxy, today's
// clients) see them too, the way kube-controller-manager's
// endpointslice-mirroring controller (pkg/controller/endpointslicemirroring)
// does.
//
// # What it writes
//
// One slice per set of ports and address type of the Endpoints' subsets
// (after repacking them canonically), labelled
// endpointslice.kubernetes.io/managed-by=endpointslicemirroring-controller.k8s.io
// and kubernetes.io/service-name=<name> beside the Endpoints' own labels,
// carrying the Endpoints' annotations (but the trigger time and kubectl's
// last-applied configuration), owned by the Endpoints and named from the
// prefix "<name>-". Each address becomes an endpoint with its IP, node,
// hostname and target, ready or not (serving and terminating are left
// unset, as Endpoints do not say). At most --mirroring-max-endpoints-per-
// subset addresses (default 1000) of a subset are mirrored; addresses that
// are not IPs are skipped; either way a Warning event on the Endpoints says
// how many.
//
// Endpoints labelled endpointslice.kubernetes.io/skip-mirror=true (as the
// API server labels the kubernetes Service's) and leader-election locks
// are not mirrored. The slices are deleted when the service goes or gains
// a selector (the endpointslice controller then writes its own), or the
// Endpoints go or stop being mirrored.
//
// # Shape
//
// Reconcile (reconcile.go) decides as a pure function; the controller
// observes (service, Endpoints, mirrored slices), decides and acts through
// its Client, and, like package endpointslice, waits for its cache to show
// its own writes (endpointslice.WriteTracker) before it decides again.
//
// The package imports api, api/apierrors, client, client/record, clock,
// controllers/endpoints (annotation names), controllers/endpointslice
// (slice labels, endpoint identity, the write tracker), controllers/loop,
// controllers/workqueue, informer and zap. A Controller is safe for
// concurrent use; the queue syncs a key on one worker at a time.
package endpointslicemirroring
