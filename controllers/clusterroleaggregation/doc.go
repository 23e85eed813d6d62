// Package clusterroleaggregation is miniplane's clusterrole-aggregation
// controller: a ClusterRole with an aggregationRule gets as its rules the
// union of the rules of every other cluster role its selectors match, kept
// up to date as those roles come, change and go — the way
// kube-controller-manager's clusterrole-aggregation controller
// (pkg/controller/clusterroleaggregation) does. It is what fills the
// default admin, edit and view roles from the system:aggregate-to-* roles
// and from any role a user labels rbac.authorization.k8s.io/aggregate-to-view.
//
// Read it beside Kubernetes':
//
//	Kubernetes  clusterroleaggregation_controller.go   miniplane
//	enqueue (every aggregating role, on any change)    controller.go  New's handler
//	syncClusterRole                                    controller.go  sync, aggregate.go  Aggregate
//
// The queue holds names of aggregating cluster roles. A sync reads every
// cluster role from the cache, computes the aggregated rules (Aggregate,
// pure) and writes them when they differ. Kubernetes runs it with five
// workers; so does the manager.
//
// Imports: api, api/apierrors, client, clock, informer, controllers/loop,
// controllers/workqueue and zap, as the controllers' row of
// (DESIGN.md, "Packages and imports") allows.
// Concurrency: the handlers and ProcessOne are safe for concurrent use; a
// role is never synced twice at once (the queue's promise).
package clusterroleaggregation
