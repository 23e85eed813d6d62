// Package statefulset is miniplane's stateful set controller: for every
// apps/v1 StatefulSet it runs one pod per ordinal of [start,
// start+replicas), named "<set>-<ordinal>", with that name as its hostname
// and the set's serviceName as its subdomain, labelled
// statefulset.kubernetes.io/pod-name and apps.kubernetes.io/pod-index, and
// before each pod the claims of its volumeClaimTemplates,
// "<template>-<set>-<ordinal>", mounted under the template's name. Under
// OrderedReady (the default) pod N+1 is created only once pods 0..N are
// running and ready (and available, minReadySeconds), and pods above the
// range are deleted from the highest ordinal, one at a time, each once the
// ones below are healthy; under Parallel nothing waits. Failed and
// succeeded pods are deleted and made again.
//
// Each template the set has run is a ControllerRevision (the history
// package); pods are labelled controller-revision-hash with their
// revision's name. The status names the currentRevision (the pods below
// the partition) and the updateRevision (the template now); a
// RollingUpdate deletes, from the highest ordinal down to the partition,
// one pod not at the update revision at a time, waiting for the pods on
// the way to be healthy, and the recreated pod runs the update revision
// (with maxUnavailable, up to that many at once); OnDelete waits for
// someone to delete them. Once every pod runs the update revision and is
// ready, it becomes current. Old revisions beyond revisionHistoryLimit
// that no pod runs are deleted. The claims are kept as
// persistentVolumeClaimRetentionPolicy says: whenDeleted Delete makes the
// set an owner of its claims and whenScaled Delete makes a scaled-away pod
// the owner of its claims, so that the garbage collector deletes them
// with their owner. The status counts replicas, readyReplicas,
// availableReplicas, currentReplicas and updatedReplicas, and carries
// observedGeneration and collisionCount.
//
// It mirrors kube-controller-manager's pkg/controller/statefulset and the
// history helpers of pkg/controller/history (v1.32). Read them side by
// side:
//
//	Kubernetes                                         miniplane
//	stateful_set.go  NewStatefulSetController, addPod, updatePod, deletePod
//	                                                   controller.go  New, the handlers
//	stateful_set.go  sync, syncStatefulSet, getPodsForStatefulSet
//	                                                   controller.go  sync, claim
//	stateful_set_control.go  UpdateStatefulSet, getStatefulSetRevisions, truncateHistory
//	                                                   controller.go  sync, revisionState, truncateHistory
//	stateful_set_control.go  updateStatefulSet, processReplica, processCondemned
//	                                                   decide.go      Decide
//	stateful_set_control.go  completeRollingUpdate     decide.go      completeRollingUpdate
//	stateful_set_utils.go  getParentNameAndOrdinal, getPodName, identityMatches,
//	                       storageMatches, newStatefulSetPod, updateIdentity, updateStorage,
//	                       getPersistentVolumeClaims, updateClaimOwnerRefForSetAndPod, ApplyRevision
//	                                                   identity.go    ParentAndOrdinal, PodName,
//	                                                                  IdentityMatches, StorageMatches, NewPod,
//	                                                                  Claims, ClaimOwners; decide.go ApplyRevision
//	stateful_pod_control.go  CreateStatefulPod, DeleteStatefulPod, recordPodEvent, recordClaimEvent
//	                                                   controller.go  act, podEvent, claimEvent
//	history/controller_history.go                      controllers/history
//
// Upstream's tests, ported as tables of plain values (decide_test.go,
// identity_test.go) or run against the API server on a fake clock
// (controller_test.go): from stateful_set_utils_test.go TestGetParentNameAndOrdinal,
// TestIdentityMatches, TestStorageMatches, TestUpdateIdentity, TestUpdateStorage,
// TestNewStatefulSetPod's identity, TestGetPersistentVolumeClaims and
// TestClaimOwnerMatchesSetAndPod/TestUpdateClaimOwnerRefForSetAndPod's
// policy table; from stateful_set_control_test.go CreatesPods, ScalesUp,
// ScalesDown, ReplacesPods, RecreatesFailedPod, RecreatesSucceededPod,
// SetsStatus, UpdatePodsWithPartition (TestStatefulSetControlRollingUpdateWithPartition),
// OnDelete (TestStatefulSetControlOnDeleteUpdate), ParallelScale,
// TestStatefulSetControlLimitsHistory and the rollback of
// TestStatefulSetControlRollback. Not ported: the fault-injecting
// pod-control fakes (CreatePodFailure, UpdatePodFailure, ...: a failed
// write here fails the sync, which the queue retries), the informer
// staleness tests, and the feature-gate matrices (the gates are fixed
// on here: PodIndexLabel, StatefulSetAutoDeletePVC, StatefulSetStartOrdinal,
// MaxUnavailableStatefulSet).
//
// Where it differs: the revision hash is the history package's, so names
// differ from a real cluster's while following the same rule. A pod's
// volumes cannot change, so a pod whose storage does not match only gets
// its missing claims made.
//
// It may import api, client, informer and its controllers siblings (loop,
// workqueue, history, replication's IsPodAvailable, deployment's
// ClaimAll); writes go through its Client only. Concurrency: handlers
// only queue keys; syncs run from the loop's workers, never two at once
// for one key.
package statefulset
