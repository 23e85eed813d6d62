// Package podautoscaler is the horizontal-pod-autoscaler controller
// (kube-controller-manager's "horizontalpodautoscaling", Kubernetes'
// pkg/controller/podautoscaler) without a metrics API: miniplane serves no
// metrics.k8s.io, custom.metrics.k8s.io or external.metrics.k8s.io, so no
// metric can ever be read. The controller says so exactly as the real one
// does when those APIs are missing (ScalingActive False,
// FailedGetResourceMetric and FailedComputeMetricsReplicas events) and
// still does what the real one does without metrics: it reads the
// target's scale (AbleToScale True, SucceededGetScale), scales a target
// below minReplicas up to it and one above maxReplicas down to it
// (SuccessfulRescale), leaves a target scaled to zero alone
// (ScalingDisabled), and keeps status.currentReplicas and desiredReplicas.
//
// Each autoscaler is synced when it changes and every 15 seconds after
// (--horizontal-pod-autoscaler-sync-period's default). The targets it can
// scale are the built-in kinds with a scale subresource (Deployments,
// ReplicaSets, StatefulSets, ReplicationControllers); any other is
// FailedGetScale. It imports api, client, client/record, informer and
// controllers/loop and workqueue; its sync runs on the loop's workers.
package podautoscaler
