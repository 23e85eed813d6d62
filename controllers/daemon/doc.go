// Package daemon is miniplane's daemon set controller: for every apps/v1
// DaemonSet it runs one pod on each node that should have one — the node
// matches the template's nodeName, nodeSelector and required node
// affinity, and every NoSchedule and NoExecute taint is tolerated (a pod
// already there stays through an untolerated NoSchedule taint, not a
// NoExecute one) — and none elsewhere. Its pods carry the tolerations
// upstream gives daemon pods (not-ready and unreachable NoExecute; disk,
// memory and pid pressure and unschedulable NoSchedule) and a required
// node affinity that pins each to its node by metadata.name, so the
// scheduler binds it there. A node added gets its pod; a node removed
// loses it. Failed and succeeded pods are deleted and replaced, a node's
// failed pods on a doubling back-off (1 s to 15 min, on the injected
// clock). A template change is rolled out under the update strategy:
// RollingUpdate deletes at most maxUnavailable old pods at once, or with
// maxSurge starts new pods beside old ones and deletes each old pod once
// its successor is available; OnDelete waits for someone to delete the
// old pods. Pods are labelled with the template generation the API server
// keeps in the set's deprecated.daemonset.template.generation annotation
// (pod-template-generation). Each template the set has run is a
// ControllerRevision named "<ds>-<hash>" holding a strategic merge patch
// that replaces spec.template (what `kubectl rollout undo` sends back), and
// each pod is labelled controller-revision-hash with its revision's hash; going back
// to an old template renumbers its revision rather than making a new one,
// and old revisions beyond revisionHistoryLimit that no pod runs are
// deleted. Orphan pods and revisions the selector matches are adopted,
// and owned ones it no longer matches released. The status counts the
// nodes (desiredNumberScheduled, currentNumberScheduled, numberReady,
// numberAvailable, numberUnavailable, updatedNumberScheduled,
// numberMisscheduled) and raises observedGeneration once a sync acted on
// the generation.
//
// It mirrors kube-controller-manager's pkg/controller/daemon and the
// history helpers of pkg/controller/history (v1.32). Read them side by
// side:
//
//	Kubernetes                                      miniplane
//	daemon_controller.go  NewDaemonSetsController, add/update/deletePod, addNode, updateNode
//	                                                controller.go  New, the handlers, nodeChanged
//	daemon_controller.go  syncDaemonSet            controller.go  sync
//	daemon_controller.go  manage, podsShouldBeOnNode decide.go    Manage
//	daemon_controller.go  syncNodes                controller.go  act, NewPod, podTemplate
//	daemon_controller.go  updateDaemonSetStatus, storeDaemonSetStatus
//	                                                decide.go      Status; controller.go writeStatus
//	daemon_controller.go  NodeShouldRunDaemonPod, predicates
//	                                                decide.go      ShouldRun (fit's predicates)
//	daemon_controller.go  getNodesToDaemonPods     controller.go  podsByNode; claim.go claimPods
//	update.go  rollingUpdate, findUpdatedPodsOnNode, updatedDesiredNodeCounts
//	                                                decide.go      RollingUpdate, updatedPodsOnNode
//	update.go  constructHistory, dedupCurHistories, snapshot, getPatch, Match, cleanupHistory
//	                                                history.go     DecideHistory, Match, RevisionsToDelete
//	                                                               (over controllers/history); claim.go
//	                                                               revisionHistory, snapshot
//	util/daemonset_util.go  AddOrUpdateDaemonPodTolerations, ReplaceDaemonSetPodNodeNameNodeAffinity,
//	                        GetTargetNodeName, IsPodUpdated, SurgeCount, UnavailableCount
//	                                                decide.go      AddDaemonTolerations, PinToNode,
//	                                                               TargetNode, IsPodUpdated, surgeCount, ...
//	history/controller_history.go  ControllerRevisionName
//	                                                controllers/history  Name
//	controller_ref_manager.go  ClaimPods, ClaimControllerRevisions
//	                                                claim.go       claim (deployment.ClaimAll)
//
// Upstream's tests, ported as tables of plain values (decide_test.go) or
// run against the API server on a fake clock (controller_test.go):
// TestSimpleDaemonSetLaunchesPods, TestNoNodesDoesNothing,
// TestNotReadyNodeDaemonDoesLaunchPod,
// TestInsufficientCapacityNodeDaemonLaunchPod, TestDealsWithExistingPods,
// the Selector, Name and NodeAffinity launch and delete tests,
// TestDaemonKillFailedPods and its back-off, TestDaemonSetRespectsTermination,
// the Tainted, NoSchedule, NoExecute, NotReady, Unreachable and
// TaintPressure tests, TestDeleteUnscheduledPodForNotExistingNode, the
// Surge tests, TestNodeShouldRunDaemonPod, TestNumberReadyStatus and
// TestObservedGeneration's counts, TestAddOrUpdateDaemonPodTolerations,
// TestReplaceDaemonSetPodNodeNameNodeAffinity, update_test.go's
// TestDaemonSetUpdatesPods, ...WithMaxSurge, ...AllOldPodsNotReady(MaxSurge),
// ...NoTemplateChanged and TestGetUnavailableNumbers' rounding, adoption
// and release (TestDaemonSetPodAdoption-style), and history's renumbering
// and cleanup. Not ported: the tests of the expectations' timing, the
// workqueue and the informers' event filtering
// (TestUpdateNode/TestUpdatePodChangeControllerRef's handler tables: here
// every node change that alters ShouldRun enqueues), the
// hostNetwork/NetworkUnavailable toleration (pods have no hostNetwork),
// and TestStoreDaemonSetStatus's retry loop (a failed status write fails
// the sync, which the queue retries). TestIsPodUpdated is ported whole.
//
// A pod bound to a node that no longer exists is left to the pod garbage
// collector (controllers/podgc), as upstream. Where it differs: the revision hash is deployment.ComputeHash (FNV over the template's JSON),
// not upstream's hash of a deep print, so names differ from a real
// cluster's while following the same rule. Node readiness is not a
// predicate (as upstream); the simulated scheduler still places pods by
// their pin.
//
// It may import api, client, informer and its controllers siblings (loop,
// workqueue, history, replication's Expectations and IsPodAvailable,
// deployment's ComputeHash and ClaimAll, scheduler/fit's predicates); writes go through
// its Client only. Concurrency: handlers only queue keys; syncs run from
// the loop's workers, never two at once for one key; the failed-pod
// back-off is guarded by its mutex.
package daemon
