// Package endpoints is miniplane's endpoints controller: for every Service
// with a selector it keeps an Endpoints object of the same name listing the
// addresses of the pods the selector picks, the way kube-controller-manager's
// endpoints controller (pkg/controller/endpoint) does.
//
// # What it writes
//
// For each selected pod that has an IP and has not finished (Succeeded or
// Failed), the Endpoints hold the pod's IP, node and a reference to the pod,
// once per service port whose targetPort resolves on that pod (a named
// targetPort is looked up among the pod's container ports; a pod without it
// is left out of that port only). Whether the address is ready:
//
//	pod                                   publishNotReadyAddresses=false   =true
//	Running/Pending/Unknown, Ready        addresses                        addresses
//	  … Ready, terminating                left out                         addresses
//	Pending/Unknown, not Ready            notReadyAddresses                addresses
//	  … not Ready, terminating            left out                         addresses
//	Succeeded or Failed                   left out                         left out
//	no pod IP                             left out                         left out
//
// A headless service (clusterIP None) without ports gets the addresses with
// no ports; another service without ports gets empty Endpoints. Subsets are
// repacked canonically (each port in one subset, with every address serving
// it; addresses sorted by IP, ports by name and number), so equal inputs give
// byte-equal objects. The Endpoints carry the service's labels, plus
// service.kubernetes.io/headless for a headless service. When the computed
// subsets, ignoring the pods' resourceVersions, and the labels equal what is
// stored, nothing is written. Past 1000 addresses the object is truncated and
// annotated endpoints.kubernetes.io/over-capacity=truncated.
//
// A service without a selector keeps its hand-written Endpoints; an
// ExternalName service gets none; a deleted service's Endpoints are deleted;
// and at start the controller queues every existing Endpoints object so that
// one whose service is gone is deleted too — except an object carrying the
// leader-election annotation control-plane.alpha.kubernetes.io/leader.
//
// # Triggers
//
// A service change queues the service at once. A pod change queues, after
// the batch period (Config.BatchPeriod, default 0), every service whose
// selector picks the pod's old or new labels, if the change can move the pod
// in or out of the Endpoints. A deleted Endpoints object queues its service,
// which recreates it. After the controller updates an Endpoints object, a
// sync that still sees the replaced version in the cache writes nothing
// rather than act on stale data (kubernetes/kubernetes#127370); it waits,
// and the Endpoints change that shows the cache has caught up queues the
// service again, however long the cache lagged. That wait is not a
// failure: it takes no backoff and no retry. Failed syncs are retried
// with the queue's backoff up to MaxRetries times, then dropped until the
// service's next trigger.
//
// Each write sets endpoints.kubernetes.io/last-change-trigger-time to the
// earliest change it reflects: the service's creation on its first sync,
// later the earliest pod Ready transition since the previous sync; with none,
// the annotation is removed.
//
// Not done: dual-stack beyond picking the pod IP of the service's first IP
// family.
//
// # Shape
//
// Reconcile is observe (listers), decide (desiredSubsets, a pure function),
// act (writes through Config.Client). ProcessOne is the step: one queued
// service key, synced; Run loops it from worker goroutines. EnqueueLeftovers
// is the start-up scan as a step.
//
// A sync remembers, per service, the pod versions it listed and the
// Endpoints it last found right (trackedService). A later sync that finds
// the same Endpoints in the cache, the same service, and every pod that
// may serve the service (mayServe) listed as the same version, writes
// nothing without computing them: most syncs follow a pod that came or
// went without an address. Cached objects are immutable, so the same
// pointer is the same version.
//
// Neither a sync nor a pod event scans a namespace. New adds two indexes to
// the shared informers: pods by each label pair, and selector services by
// each pair of their selector (or as match-all when it is empty). A sync
// reads the pods under its selector's rarest pair and filters them by the
// whole selector; a pod event checks the services indexed under the pod's
// labels and the match-all ones. Both return what a scan would, in key
// order, so the cost is that of the matching objects rather than of the
// namespace (Kubernetes lists the namespace in both places).
//
// The package imports api, api/apierrors, client, client/record, controllers/loop,
// informer, controllers/workqueue, clock and zap. A Controller is
// safe for concurrent use; the queue guarantees a key is synced by one
// worker at a time.
package endpoints
