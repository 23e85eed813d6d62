// Package nodelifecycle is miniplane's node lifecycle controller:
// kube-controller-manager's node-lifecycle counterpart
// (pkg/controller/nodelifecycle), reduced to what miniplane's nodes need.
// It watches Nodes' Ready condition, and the pods bound to them, through
// its own handlers on shared informers, and acts on the pods of a node
// that is not ready (its Ready condition False or Unknown: a kubelet that
// stopped posting, or a node taken down with the simulator's hook,
// nodesim's NodeDown):
//   - it records each node's registration and removal (RegisteredNode,
//     RemovingNode, as monitorNodeHealth does for the nodes it sees come
//     and go);
//   - when it sees a node go not ready it records NodeNotReady on the node
//     ("Node X status is now: NodeNotReady", as monitorNodeHealth's
//     RecordNodeStatusChange), and marks the node's running pods not ready
//     (their Ready condition False, reason NodeNotReady, and a Warning
//     NodeNotReady event on each, as MarkPodsNotReady);
//   - a pod still on a node that has stayed not ready for EvictionTimeout
//     since the controller saw it go is marked Failed with reason NodeLost
//     (and a Warning NodeLost event): the pre-taint-manager eviction,
//     chosen because it is observable and final without a kubelet to
//     confirm a deletion: the replication controller counts a Failed pod
//     as gone and replaces it, the endpoints controller drops it, and
//     anyone may delete it at once. A pod being deleted is left to its
//     grace period (the API server's sweep ends it).
//
// Upstream times an outage from when the controller observed the Ready
// condition change (readyTransitionTimestamp); so does this package, or
// for a node already not ready when first seen (after a restart), from the
// condition's lastTransitionTime. Upstream has taken nodes down for
// missed Lease renewals since 1.17 and evicts through NoExecute taints
// (node.kubernetes.io/not-ready, unreachable) since 1.18; here nothing
// writes those taints (the scheduler reads a node that is not ready as
// tainted, scheduler/fit), nor watches the Leases: the simulated
// kubelets' NodeDown writes the Ready condition Unknown at once, as this
// controller would after node-monitor-grace-period of missed renewals.
//
// Its queue holds node names and pod keys ("namespace/name"): a node's
// sync records its events and queues its pods; a pod's sync is the
// pure decide (decide.go) on the pod and its node's health, then one
// status write. A pod bound to a ready node is never queued: it has
// nothing to do here.
//
// Its events are Component's (node-controller). The plane runs it beside
// the simulated kubelets (controllers/nodesim) and the scheduler, on their
// informers, once per cluster.
//
// The package imports api, client, informer, clock, controllers/loop,
// controllers/workqueue and zap. Controller is safe for concurrent use:
// mu guards its record of the nodes' health, and the workqueue guarantees
// that a key is synced by one worker at a time.
package nodelifecycle
