// Package endpointslice is miniplane's endpointslice controller: for every
// Service with a selector it keeps the discovery.k8s.io/v1 EndpointSlices
// that list the pods the selector picks, the way kube-controller-manager's
// endpointslice controller (pkg/controller/endpointslice, with the
// reconciler of k8s.io/endpointslice) does. kube-proxy and today's clients
// read slices; the endpoints controller keeps the older Endpoints beside
// them.
//
// # What it writes
//
// A service's slices are labelled kubernetes.io/service-name=<service> and
// endpointslice.kubernetes.io/managed-by=endpointslice-controller.k8s.io
// (plus the service's own labels, and service.kubernetes.io/headless for a
// service without a cluster IP), named by the server from the prefix
// "<service>-", and owned by the service, so that the garbage collector
// deletes them with it. There is a group of slices per address type of the
// service (its ipFamilies) and, within it, per set of ports: a named
// targetPort resolves on each pod through its container ports, and pods
// that resolve it differently land in different slices. Each slice holds
// at most --max-endpoints-per-slice endpoints (default 100).
//
// Every selected pod with an IP that has not finished gets an endpoint,
// terminating ones included:
//
//	pod                         ready   serving   terminating
//	Ready                       true    true      false
//	not Ready                   false   false     false
//	Ready, being deleted        false   true      true
//	not Ready, being deleted    false   false     true
//
// With publishNotReadyAddresses, ready is always true. An endpoint carries
// the pod's IPs of the slice's address type, its node and that node's
// topology.kubernetes.io/zone label, a reference to the pod, and the pod's
// hostname when its subdomain is the service. A pod whose node is not
// known is left out and the service retried (unless the service publishes
// not-ready addresses). A service with no endpoints keeps one empty slice.
// Topology hints are not set.
//
// Reconcile (reconcile.go) decides, as a pure function; it changes slices
// in place rather than recreating them, fills the fullest slices first,
// turns a create and a delete into one update, and deletes slices left
// empty or of a port set or address type no longer wanted. Each write
// sets endpoints.kubernetes.io/last-change-trigger-time as the endpoints
// controller does. Where Kubernetes picks from a map, this package picks
// in sorted order, so a seed replays.
//
// # Triggers
//
// A service change queues the service; a pod change queues the services
// whose selectors pick it (endpoints.ServicesToUpdate); any change to a
// slice this controller manages queues its service, so that a slice
// changed or deleted by someone else is put right. After a write, a sync
// that finds the cache older than the write (by the slices' generations)
// writes nothing and waits for the slice event (WriteTracker).
//
// A deleted service's slices are left to the garbage collector; an
// ExternalName service, and one without a selector, get none from this
// controller (package endpointslicemirroring mirrors the hand-made
// Endpoints of the latter).
//
// The package imports api, api/apierrors, client, client/record, clock,
// controllers/endpoints (the rules a pod's address follows, shared with
// the endpoints controller), controllers/loop, controllers/workqueue,
// informer and zap. A Controller is safe for concurrent use; the queue
// syncs a key on one worker at a time.
package endpointslice
