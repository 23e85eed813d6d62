// Package deployment is miniplane's deployment controller: for every
// apps/v1 Deployment it keeps a ReplicaSet per pod template it has run,
// scales the newest up and the older ones down as the strategy allows
// (RollingUpdate within maxSurge and maxUnavailable, or Recreate), resizes
// them in proportion when the deployment is scaled mid-rollout, keeps
// revisionHistoryLimit old sets for rollback, and reports the rollout in
// the deployment's status and its Progressing and Available conditions.
// It writes ReplicaSets only: the replica set controller makes their pods.
//
// It mirrors kube-controller-manager's pkg/controller/deployment, with the
// helpers it uses from pkg/controller/deployment/util and pkg/controller.
// Read them side by side:
//
//	Kubernetes                                        miniplane
//	deployment_controller.go  NewDeploymentController controller.go  New, the handlers
//	deployment_controller.go  syncDeployment          controller.go  sync
//	deployment_controller.go  getReplicaSetsForDeployment,
//	  controller_ref_manager.go  ClaimReplicaSets      claim.go       claimReplicaSets, ClaimReplicaSet
//	deployment_controller.go  getPodMapForDeployment  controller.go  podMap
//	sync.go      getAllReplicaSetsAndSyncRevision,
//	             getNewReplicaSet                     sync.go        (same names), NewReplicaSet
//	sync.go      sync, scale                          sync.go        syncScale, ProportionalScale
//	sync.go      scaleReplicaSet(AndRecordEvent)      controller.go  scaleReplicaSet, sync.go scaleTo
//	sync.go      cleanupDeployment                    sync.go        RevisionHistoryToDelete, cleanupDeployment
//	sync.go      calculateStatus, isScalingEvent      conditions.go  CalculateStatus, sync.go IsScalingEvent
//	sync.go      checkPausedConditions                progress.go    PausedCondition
//	rolling.go   (all)                                rolling.go     ReconcileNewReplicaSet, ReconcileOldReplicaSets, ...
//	recreate.go  (all)                                recreate.go    OldPodsRunning, ScaleDownForRecreate, rolloutRecreate
//	progress.go  syncRolloutStatus, requeueStuckDeployment
//	                                                  progress.go    RolloutStatus, RequeueAfter
//	util/deployment_util.go                           util.go, conditions.go (the same names, mostly)
//	controller_utils.go  ComputeHash, ReplicaSetsBy*  util.go        ComputeHash, byCreation, bySizeNewer, ...
//
// # One sync
//
// A sync of the deployment with key "namespace/name" runs, in upstream's
// order:
//
//  1. Get the deployment from the cache (gone: nothing to do, the garbage
//     collector deletes its sets) and deep-copy it: the decisions write
//     into the copy. A selector that selects everything gets a
//     SelectingAll warning and no more.
//  2. Claim replica sets: keep those it controls that its selector
//     matches, release the others, adopt matching orphans after an
//     uncached read confirms it still exists and is not being deleted.
//  3. Group the pods by the set that controls them (for Recreate).
//  4. Being deleted: write the status only. Paused or resumed: set the
//     Progressing condition to DeploymentPaused or DeploymentResumed
//     (Unknown), so time spent paused never counts against the deadline.
//  5. Paused, or scaled (a set's desired-replicas annotation is not the
//     deployment's replicas): resize the sets (ProportionalScale), and,
//     paused, clean up old revisions; write the status. No rollout.
//  6. Otherwise roll out one step, with the strategy:
//     RollingUpdate finds or creates the new set, scales it up as far as
//     maxSurge allows, or else scales old sets down (unhealthy replicas
//     first) as far as maxUnavailable allows; Recreate scales every old
//     set to 0, waits until no old pod runs, then creates the new set at
//     full size. A complete rollout deletes the old sets beyond
//     revisionHistoryLimit (those at 0 with no pods).
//  7. Write the status and the Progressing condition (RolloutStatus); if
//     nothing changed and the rollout is under way, queue the deployment
//     again a second past its progress deadline, on the injected clock.
//
// Each step writes at most what upstream's does: a scale or a create, then
// the status, and returns; the writes queue the next sync. A failed sync
// is retried with the queue's backoff, 15 times in a row at most.
//
// The new set is the oldest set whose template equals the deployment's
// but for the pod-template-hash label (FindNewReplicaSet). So a rollback —
// kubectl rollout undo patches the old template back — finds the old set
// and gives it the next revision, its former one going to the
// revision-history annotation.
//
// # Where it differs from Kubernetes
//
//   - The pod-template-hash is FNV-32a over the template's JSON encoding
//     (then the collision count and rand.SafeEncodeString's alphabet, as
//     upstream), not over hashutil.DeepHashObject's print of the Go value:
//     the hash strings differ from upstream's for one template, but they
//     are as stable — a function of the template and the count alone — and
//     collisions are handled the same way (status.collisionCount).
//   - Time comes from the injected clock: conditions' times, the progress
//     deadline and its requeue (upstream reads the wall clock).
//   - The deployment's revision annotation is written with an update of
//     the deployment and its conditions with an update of the status;
//     upstream writes both in one status update, its status strategy
//     keeping metadata changes, where miniplane's changes the status only.
//     Each write takes the written resourceVersion into the sync's copy, so
//     a later write of the same sync is not refused as stale (upstream's
//     is, and retried).
//   - isScalingEvent is a pure function of the cached sets: it writes no
//     revision (upstream's calls getAllReplicaSetsAndSyncRevision, whose
//     writes the rollout then repeats on the same stale list).
//   - Adoption and release are updates conditional on the cached
//     resourceVersion, where Kubernetes patches.
//   - A failed scale-down in reconcileOldReplicaSets fails the sync and is
//     retried; upstream swallows it and goes on to the status.
//   - A ScalingReplicaSet event that a rolling update's step decided
//     carries, as annotations, the figures it was decided with
//     (Fenceposts: maxSurge and maxUnavailable resolved, the pods asked
//     for and available), for a reader that must tell why (the demo's
//     narrator); the message is upstream's.
//   - Equal replica sets are ordered by name where upstream's sorts are
//     unstable, so that a simulated run writes in one order.
//   - extensions/v1beta1's spec.rollbackTo (rollback.go) does not exist in
//     apps/v1, and there is no migration of the old hash label (migrate.go).
//
// # Upstream tests ported
//
// As tables of the pure functions (upstream name → test here):
// deployment_util_test.go's TestResolveFenceposts, TestMaxUnavailable,
// TestNewRSNewReplicas, TestEqualIgnoreHash, TestDeploymentComplete,
// TestDeploymentProgressing, TestDeploymentTimedOut and TestAnnotationUtils
// under their own names; TestFindNewReplicaSet and TestFindOldReplicaSets
// → TestFindNewAndOldReplicaSets; TestGetReplicaCountForReplicaSets and
// TestGetAvailableReplicaCountForReplicaSets → TestReplicaCounts;
// TestReplicaSetAnnotationsNeedUpdate and IsSaturated's cases →
// TestReplicasAnnotations; TestSetDeploymentCondition and
// TestRemoveDeploymentCondition → TestSetDeploymentCondition; MaxSurge's
// cases → TestMaxSurge. rolling_test.go's _reconcileNewReplicaSet,
// _reconcileOldReplicaSets, _cleanupUnhealthyReplicas and
// _scaleDownOldReplicaSetsForRollingUpdate → TestReconcileNewReplicaSet,
// TestReconcileOldReplicaSets, TestCleanupUnhealthyReplicas,
// TestScaleDownOldReplicaSetsForRollingUpdate. sync_test.go's TestScale
// (every case) → TestScale, its getReplicaSetFraction cases →
// TestGetProportion, _cleanupDeployment and _cleanupDeploymentOrder →
// TestRevisionHistoryToDelete, TestSyncDeploymentStatus →
// TestCalculateStatus. recreate_test.go's TestOldPodsRunning and
// TestScaleDownOldReplicaSets → TestOldPodsRunning, TestScaleDownForRecreate.
// progress_test.go's TestRequeueStuckDeployment and TestSyncRolloutStatus
// → TestRequeueStuckDeployment, TestRolloutStatus. hash_test.go →
// TestComputeHash (stability, not upstream's strings).
//
// deployment_controller_test.go's scenarios run against the real API
// server (controller_test.go): a new deployment creates its set
// (TestCreateRollOutAndRollBack), adoption and orphaning
// (TestAdoptAndRelease), a paused deployment's template change starts no
// rollout (TestPausedDeploymentDoesNotRollOut), the selecting-all
// deployment (TestSelectingAll), and a Recreate deployment waiting for its
// pods (TestRecreate). They play the replica set controller by writing the
// sets' status.
//
// Not ported, and why: the rollback tests (spec.rollbackTo is
// extensions/v1beta1 only; kubectl rolls back by patching the template);
// TestGetPodTemplateSpecHash's exact hash strings (the hash is not
// upstream's, see above); the migrate and label-pods-with-hash tests (no
// pre-hash sets to migrate); the assertions on upstream's fake-clientset
// action lists (here the writes land on a real server and the tests read
// the result); the in-place update tests (rolling_inplace.go,
// recreate_inplace.go: after v1.32); TestPodTemplateEqualIgnoreHash's
// protobuf-semantics cases (templates are compared by their JSON here).
//
// # Concurrency
//
// New registers handlers on the factory's deployment, replica set and pod
// informers and starts nothing; the handlers queue keys and make no API
// calls. ProcessOne is the step: it syncs one ready key, from the caller's
// goroutine. Run waits for the handlers to sync and then runs workers
// goroutines until its context is done; the queue guarantees that no key
// is synced by two of them at once. Listers' objects are shared: a sync
// deep-copies before it changes one.
//
// The package imports api, api/apierrors, client, client/record, informer,
// controllers/loop, controllers/workqueue, clock and zap.
package deployment
