// Package replication is miniplane's replication controller: for every
// ReplicationController it keeps spec.replicas active pods that match the
// controller's selector, creating pods from its template when some are
// missing and deleting the surplus, and it reports what it sees in the
// controller's status.
//
// It mirrors kube-controller-manager's pkg/controller/replication, which is
// the ReplicaSet controller (pkg/controller/replicaset) behind adapters,
// together with the helpers it uses from pkg/controller (expectations,
// controller references, the pod deletion ranking). Read them side by side:
//
//	Kubernetes                                   miniplane
//	replica_set.go  syncReplicaSet               controller.go  sync
//	replica_set.go  manageReplicas               controller.go  manageReplicas, manage.go  Diff, SlowStart
//	replica_set.go  add/update/deletePod, ...RS  controller.go  addPod, updatePod, deletePod, ...RC
//	replica_set_utils.go  calculateStatus        status.go      CalculateStatus, StatusNeedsUpdate
//	controller_utils.go  UIDTrackingControllerExpectations  expectations.go  Expectations
//	controller_utils.go  ActivePodsWithRanks     rank.go        PodsToDelete, controller.go relatedPods
//	controller_ref_manager.go  ClaimPods         controller.go  claimPods, adopt, release
//
// # One sync
//
// A sync of the controller with key "namespace/name" runs, in this order:
//
//  1. Get the controller from the cache; if it is gone, forget its
//     expectations and stop.
//  2. Read its expectations, before listing pods: a pod created between the
//     list and the check would otherwise be missed and created again.
//  3. List, from the cache's indexes, the pods it controls and the
//     namespace's orphans (other controllers' pods are never its to claim),
//     and keep the active ones (not Succeeded, Failed or being deleted).
//     A sync costs O(own pods + orphans), not O(pods of the namespace).
//  4. Claim them: keep the pods it controls that still match, release those
//     that no longer match, adopt matching orphans (after an uncached GET
//     confirms the controller still exists with the same UID and is not
//     being deleted), leave other controllers' pods alone.
//  5. If the expectations are satisfied and the controller is not being
//     deleted, create or delete pods (at most BurstReplicas per sync).
//     Creations go in slow-start batches of 1, 2, 4, ...; a batch with a
//     failure is the last, and every creation that failed or was never tried
//     is subtracted from the expectations. Deletions take the pods that rank
//     first (PodsToDelete) and are expected by pod key.
//  6. Compute the status (CalculateStatus) and write it only if it changed
//     or the generation is not yet observed, retrying once on a fresh GET.
//  7. If minReadySeconds is set and every wanted pod is ready but not all are
//     available yet, sync again after minReadySeconds.
//
// A failed sync is requeued with the queue's rate limiter; a successful one
// clears the key's backoff.
//
// # Where it differs from Kubernetes
//
//   - Time comes from the injected clock, expectations' 5-minute TTL
//     included (Kubernetes reads the wall clock there).
//   - The creations of one slow-start batch are issued one after another,
//     not concurrently, and deletions likewise, so a simulated run writes in
//     the same order every time. The accounting is Kubernetes': all calls of
//     a failing batch are made, later batches are not.
//   - Adoption and release are updates conditional on the cached
//     resourceVersion and the pod's UID, where Kubernetes patches. A
//     Conflict is returned like any failed patch, and the sync is retried on
//     a fresher cache; NotFound is ignored (and Invalid, on release).
//   - Pods equal under every ranking rule are ordered by UID, so deletion
//     order is a function of the seed.
//   - When Run's context ends, keys still queued are dropped unsynced, so no
//     write follows the stop signal (a deposed leader stops writing).
//   - A create refused because the namespace is terminating (the
//     NamespaceTerminating status cause) is not an error, as in Kubernetes:
//     the controller is about to be deleted with its namespace.
//
// # Concurrency
//
// New registers handlers on the factory's pod and replication controller
// informers and starts nothing. ProcessOne is the step: it syncs one ready
// key, from the caller's goroutine. Run waits for the informers' handlers
// to sync and then runs workers goroutines until its context is done; the
// queue guarantees that no key is synced by two of them at once. The
// Expectations are safe for concurrent use.
//
// The package imports api, api/apierrors, client, client/record, informer, controllers/loop, controllers/workqueue,
// clock and zap.
package replication
