// Package tainteviction is kube-controller-manager's taint eviction
// controller ("taint-eviction-controller"; Kubernetes:
// pkg/controller/tainteviction): it deletes the pods a node's NoExecute
// taints no longer let stay.
//
// For a pod bound to a node, decide compares the node's NoExecute taints
// with the pod's tolerations:
//
//   - a taint no toleration tolerates: the pod is evicted now;
//   - every taint tolerated, and a tolerating toleration has
//     tolerationSeconds: the pod is evicted that long (the least of them)
//     after the controller first saw it so, unless the taint goes or the
//     pod leaves first (the eviction is then cancelled);
//   - tolerated with no tolerationSeconds: the pod stays, forever.
//
// This is how a pod leaves a node that stopped answering: the node
// lifecycle puts node.kubernetes.io/unreachable or not-ready on it as a
// NoExecute taint, and the DefaultTolerationSeconds admission step gave
// every pod 300 seconds of toleration for both.
//
// Eviction adds the DisruptionTarget condition (reason
// DeletionByTaintManager) to the pod's status, then deletes the pod with
// its grace period, and records a TaintManagerEviction event on the pod
// ("Marking for deletion Pod ns/name"; a cancelled eviction's says
// "Cancelling deletion of Pod ns/name").
//
// The queue holds pod keys and node names: a node whose NoExecute taints
// change queues its pods; a pending eviction is the pod's key added again
// at its time, on the injected clock, so the manager and the simulator step
// it as any controller. The applicable scenarios of Kubernetes'
// taint_eviction_test.go are ported in decide_test.go (TestCreatePod,
// TestUpdatePod, TestUpdateNode, TestUpdateNodeWithMultipleTaints,
// TestUpdateNodeWithMultiplePods, TestGetMinTolerationTime); its metrics
// and its per-node rate limits (the node lifecycle's, not this
// controller's) are not kept.
package tainteviction
