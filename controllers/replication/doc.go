// Package replication is miniplane's replication controller and replica
// set controller, one implementation with two front-ends: for every
// ReplicationController (New) or apps/v1 ReplicaSet (NewReplicaSet) it keeps
// spec.replicas active pods that match the object's selector, creating pods
// from its template when some are missing and deleting the surplus, and it
// reports what it sees in the object's status.
//
// It mirrors kube-controller-manager's pkg/controller/replicaset and
// pkg/controller/replication, which is the ReplicaSet controller behind
// adapters, together with the helpers they use from pkg/controller
// (expectations, controller references, the pod deletion ranking). Read
// them side by side:
//
//	Kubernetes                                   miniplane
//	replica_set.go  syncReplicaSet               controller.go  sync
//	replica_set.go  manageReplicas               controller.go  manageReplicas, manage.go  Diff, SlowStart
//	replica_set.go  add/update/deletePod, ...RS  controller.go  addPod, updatePod, deletePod, ...Owner
//	replica_set_utils.go  calculateStatus        status.go      calculateStatus, statusNeedsUpdate
//	replica_set_utils.go  Get/Set/RemoveCondition status.go     GetCondition, SetCondition, RemoveCondition
//	controller_utils.go  UIDTrackingControllerExpectations  expectations.go  Expectations
//	controller_utils.go  ActivePodsWithRanks     rank.go        PodsToDelete, controller.go relatedPods
//	controller_ref_manager.go  ClaimPods         controller.go  claimPods, adopt, release
//	replication/conversion.go  (RC as RS)        kind.go        rcAdapter, rsAdapter, rsView
//
// # Two front-ends, one core
//
// Upstream, the replication manager converts every ReplicationController
// into a ReplicaSet (and its selector map into a LabelSelector) and runs the
// ReplicaSet controller over the conversions. miniplane keeps the split but
// not the copies: a kind (kind.go) names the kind managed — its resource,
// its kind and apiVersion for controller references ("ReplicationController",
// "v1" or "ReplicaSet", "apps/v1"), the names of its logger and queue — and
// its adapter reads an object, as cached, into an rsView: the fields the
// core reads, pointing into the object. The core's status is the
// ReplicaSet's shape (api.ReplicaSetStatus), as upstream; the RC adapter
// converts a status in and out, which allocates only for conditions.
//
// An adapter interface was chosen over a type parameter: the core's code
// reads one way for both kinds, the kinds differ in four small methods
// (view, status, withStatus, typed), and a Controller is one type that the
// manager and the simulator handle alike. The RC path stays as fast as it
// was: an rsView is a value on the stack, an RC's selector is matched as
// label pairs (labelMatcher) and so is a ReplicaSet's with matchLabels only;
// a ReplicaSet selector with matchExpressions is matched through its
// api.Selector (api.LabelSelectorAsSelector), for adoption, release and the
// pod handlers alike. Both front-ends share the pod index
// (podControllerIndex) when built on one factory: it files pods by their
// controller's UID, whatever its kind.
//
// Events are reported by the recorder the caller passes: the manager names
// them "replication-controller" and "replicaset-controller", as
// kube-controller-manager does, with the reasons SuccessfulCreate,
// SuccessfulDelete, FailedCreate and FailedDelete.
//
// # One sync
//
// A sync of the controller with key "namespace/name" runs, in this order:
//
//  1. Get the object (RC or RS) from the cache; if it is gone, forget its
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
//   - An object with an empty selector is logged and left alone, where
//     upstream a ReplicaSet's empty LabelSelector selects every pod: the
//     server refuses both, so only a stored object made otherwise has one.
//     A ReplicaSet's selector that does not convert (an unknown operator)
//     is logged and left alone, as upstream.
//   - A create refused because the namespace is terminating (the
//     NamespaceTerminating status cause) is not an error, as in Kubernetes:
//     the controller is about to be deleted with its namespace.
//
// # Upstream tests ported, and those that do not apply
//
// replicaset_test.go ports the scenarios of Kubernetes'
// pkg/controller/replicaset/replica_set_test.go to the ReplicaSet front-end,
// on the real apiserver and informers rather than fakes: each case names
// the upstream test it ports (creates, does nothing, deletes, create
// failures and slow start, dormancy, burst replicas, adoption with
// matchExpressions, release, another controller's pod, failed adoptions,
// being deleted and its race, status write failure and retry, status
// counts, the minReadySeconds requeue, the pod handlers' lookups, deletion
// timestamps, tombstones, expectations on delete and recreate and before
// the list, and related pods of ReplicaSets with the same owner).
// status_test.go ports TestGetCondition, TestSetCondition and
// TestRemoveCondition, manage_test.go TestSlowStartBatch and rank_test.go
// TestGetPodsToDelete. Not ported: TestWatchControllers and TestWatchPods
// (they feed fake watches to client-go's informers; the harness runs the
// real informers on the real server, so every case goes through a watch);
// TestGetPodKeys (a helper miniplane does not have);
// BenchmarkGetReplicaSetsWithSameController (relatedPods lists the
// namespace's ReplicaSets from the cache, as upstream); and selector changes
// (upstream's UpdateSelectorToRemoveControllerRef; its RC form is
// TestSelectorChangeReleasesAndAdopts:
// an apps/v1 ReplicaSet's selector is immutable, so the server refuses the
// change).
//
// # Concurrency
//
// New and NewReplicaSet register handlers on the factory's pod informer
// and on the informer of the kind managed, and start nothing. ProcessOne is the step: it syncs one ready
// key, from the caller's goroutine. Run waits for the informers' handlers
// to sync and then runs workers goroutines until its context is done; the
// queue guarantees that no key is synced by two of them at once. The
// Expectations are safe for concurrent use.
//
// The package imports api, api/apierrors, client, client/record, informer, controllers/loop, controllers/workqueue,
// clock and zap.
package replication
