// Package fit is the simulated scheduler's judgement of whether a pod fits
// a node: kube-scheduler v1.32's default filter plugins, reduced to the
// parts a learner meets, as pure functions on plain values.
//
// The filters run in kube-scheduler's order, and a node's verdict is the
// first that fails, as the framework's RunFilterPlugins stops at it:
//
//   - NodeUnschedulable: a cordoned node (spec.unschedulable) takes only
//     pods that tolerate the node.kubernetes.io/unschedulable:NoSchedule
//     taint;
//   - TaintToleration: every NoSchedule and NoExecute taint of the node
//     must be tolerated (PreferNoSchedule only scores, which is not done);
//   - NodeAffinity: the pod's nodeSelector and its required node affinity
//     (matchExpressions with In, NotIn, Exists, DoesNotExist, Gt and Lt on
//     the labels; matchFields on metadata.name);
//   - NodePorts: no host port a container asks for is held by another
//     pod on the node (same protocol and number);
//   - NodeResourcesFit: the pod count, and cpu, memory, ephemeral-storage
//     and extended resources requested against allocatable less what the
//     node's unfinished pods request. A pod's requests are upstream's
//     PodRequests: the sum of its containers', or the largest of its init
//     containers' where that is more, per resource, plus the pod's
//     overhead (restartable "sidecar" init containers are not modelled).
//
// The first three fail "unresolvably" (preemption cannot help); resources
// can be freed. Message words the failure as kube-scheduler's FitError
// does, with the postfilter's (DefaultPreemption) sentence after it: no
// pod has a lower priority than another in miniplane's accounting, so
// preemption never finds victims.
//
// Schedule picks, among the nodes that fit, the one with the fewest pods,
// ties by name (kube-scheduler scores instead: miniplane's least-loaded
// spread is its own, kept because it is predictable).
//
// The package imports api only; everything in it is pure and safe for
// concurrent use.
package fit
