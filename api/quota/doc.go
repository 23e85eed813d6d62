// Package quota is what a ResourceQuota counts: the usage an object adds to
// its namespace (a pod's count and compute requests and limits, a Service's
// node ports, any object's count/<resource>.<group>), whether a quota's
// scopes select it, the requests a quota makes a pod spell out, and the
// arithmetic of quantities that sums them. The resourcequota controller
// recomputes a quota's status.used with it and the API server's quota
// admission charges a write against it, so both count alike.
//
// Kubernetes: k8s.io/apiserver/pkg/quota/v1 (Add, Subtract,
// LessThanOrEqual, Mask) and pkg/quota/v1/evaluator/core (the pod,
// service and object-count evaluators).
//
// It imports only api. Its functions are pure and safe for concurrent use;
// they never change the objects they are given.
package quota
