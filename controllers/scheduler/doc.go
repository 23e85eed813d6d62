// Package scheduler is miniplane's scheduler: kube-scheduler's counterpart
// (cmd/kube-scheduler, pkg/scheduler), reduced to its default profile's
// essentials. It watches pods, nodes, PersistentVolumeClaims and
// PodDisruptionBudgets through its own handlers on shared informers, and
// queues the key of every pod that waits for a node: unbound, unfinished
// and not being deleted.
//
// A sync (ScheduleOne) binds the pod (pods/binding) to the node with the
// fewest pods, ties by name, among those that pass kube-scheduler's default
// filters (package fit: cordons, NoSchedule and NoExecute taints, the node
// lifecycle's not-ready and unreachable taints on a node that is not ready,
// nodeSelector and required node affinity, free host ports, the pod count
// and resource requests), after VolumeBinding's PreFilter (every claim the
// pod names is Bound). A pod that requests nothing and asks for no node
// takes a fast path (leastloaded.go), a heap of the nodes by pod count.
// The binding is assumed at once: the pod counts against its node until
// the cache shows it bound, or the binding fails and it is forgotten
// (counts.go), so that the scheduler lists no pods to place one.
//
// When no node fits, the preemption postfilter (preempt.go, DefaultPreemption)
// looks for a node where evicting pods of lower priority makes room; if it
// finds one, the pod's status.nominatedNodeName names it, the victims get
// the DisruptionTarget condition and are deleted, and the pod is tried
// again once they are gone. Otherwise the pod stays Pending with
// PodScheduled=False reason Unschedulable and a FailedScheduling event
// worded as kube-scheduler's, and is tried again when a pod finishes or
// goes away, a node or a claim changes, and after 5 minutes.
//
// Its events are Component's (default-scheduler). The plane runs it beside
// the simulated kubelets (controllers/nodesim) unless --scheduler=none
// leaves the pods to a real kube-scheduler.
//
// The package imports api, client, informer, clock, controllers/loop,
// controllers/workqueue, controllers/scheduler/fit and zap. Controller is
// safe for concurrent use: mu guards its counts, and the workqueue
// guarantees that a pod's key is synced by one worker at a time.
package scheduler
