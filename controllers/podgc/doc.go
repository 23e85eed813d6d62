// Package podgc is kube-controller-manager's pod garbage collector
// (Kubernetes: pkg/controller/podgc): every 20 seconds of the injected
// clock it sweeps the pod cache and force-deletes (grace 0), after marking
// them Failed when they are not terminal yet:
//
//   - terminated pods (Succeeded or Failed) above the threshold
//     (--terminated-pod-gc-threshold, 12500 by default; 0 turns this off),
//     evicted ones first, then the oldest;
//   - orphans: pods bound to a node that is not in the node cache, once the
//     node has been missing for 40 seconds (the quarantine) and a read
//     from the API server confirms it is gone; they get the
//     DisruptionTarget condition, reason DeletionByPodGC;
//   - terminating pods on a node that is not Ready and carries the
//     node.kubernetes.io/out-of-service taint;
//   - terminating pods that were never scheduled.
//
// It is a loop.NewPeriodic controller: the sweep is one key of its queue,
// queued again 20 seconds after each sweep, so the manager and the simulator
// step it as any controller. What to delete is plan, a pure function of the
// caches, the time and the quarantine; sweep observes, plans and acts. The
// applicable scenarios of Kubernetes' gc_controller_test.go are ported in
// plan_test.go (TestGCTerminated, TestGCOrphaned, TestGCUnscheduledTerminating,
// TestGCTerminating); its metrics are not kept.
package podgc
