// Package disruption is miniplane's disruption controller: for every
// policy/v1 PodDisruptionBudget it counts the pods its selector selects in
// its namespace and writes the status the eviction subresource reads —
// expectedPods, currentHealthy (Ready pods not being deleted and not just
// evicted), desiredHealthy, disruptionsAllowed, observedGeneration, the
// DisruptionAllowed condition (SufficientPods, InsufficientPods, or
// SyncFailed when the status cannot be computed) — and expires the
// disruptedPods entries the eviction subresource adds once DeletionTimeout
// (2 minutes on the injected clock) passes without the pod's deletion.
//
// An integer minAvailable counts the selected pods as they are. A
// percentage, or maxUnavailable, counts what the pods' controllers want:
// the replicas of a ReplicationController, of a Deployment (through its
// ReplicaSet), of a ReplicaSet no Deployment controls, of a StatefulSet, or
// of a custom resource with a scale subresource.
//
// It mirrors kube-controller-manager's pkg/controller/disruption (v1.32).
// Read them side by side:
//
//	Kubernetes                                   miniplane
//	disruption.go  NewDisruptionController, addDB/updateDB/removeDB, addPod/updatePod/deletePod
//	                                             controller.go  New, the handlers
//	disruption.go  getPdbForPod, getPodsForPdb   controller.go  budgetOf, Selects, podsOf
//	disruption.go  sync, trySync, failSafe       controller.go  sync, trySync; decide.go FailSafe
//	disruption.go  finders, getPodReplicationController, getPodDeployment, getPodReplicaSet,
//	               getPodStatefulSet, getScaleController
//	                                             owners.go      findOwner, customScale
//	disruption.go  getExpectedPodCount, getExpectedScale
//	                                             decide.go      ExpectedPods, expectedScale
//	disruption.go  buildDisruptedPodMap, countHealthyPods
//	                                             decide.go      DisruptedPods, CountHealthy
//	disruption.go  updatePdbStatus               decide.go      Status
//	component-helpers/apps/poddisruptionbudget   api/pdbutil.go UpdateDisruptionAllowedCondition
//
// The eviction subresource's side (checking and decrementing
// disruptionsAllowed, adding to disruptedPods) is apiserver's Evict.
//
// Where it differs: the recheck of an expiring disruptedPods entry goes to
// the one queue, a second after the entry's deadline (upstream keeps a
// second delaying queue that feeds the first); the NotDeleted event names
// the budget as namespace/name (upstream prints the namespace twice); a
// pod's change wakes the first budget that selects it, in key order, and
// the MultiplePodDisruptionBudgets event is not recorded (handlers here
// make no API calls).
//
// Left out: the stale DisruptionTarget condition clean-up (nothing here
// sets that condition on a pod that is then not deleted), and the
// owner-less scale lookups through discovery for kinds served by
// aggregated APIs (miniplane serves none).
//
// Of upstream's disruption_test.go, the scenarios of the status
// computation are ported as tables (decide_test.go) and the sync's
// (controller_test.go): no pods, an unavailable pod, integer and
// percentage minAvailable and maxUnavailable, each controller kind,
// two controllers, a pod with no controller, disruptedPods expiry, a
// budget that fails safe, the pod-event wake-up. Those that test
// upstream's fakes (the scale client's reactors, the discovery fake, the
// update conflict counters) and the DisruptionTarget clean-up do not
// apply.
//
// It may import api, client, informer and its controllers siblings (loop,
// workqueue, and deployment's ScaledValue); writes go through its Client
// only. Concurrency: handlers only queue keys; syncs run from the loop's
// workers, never two at once for one key.
package disruption
