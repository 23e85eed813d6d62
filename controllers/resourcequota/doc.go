// Package resourcequota is kube-controller-manager's resourcequota
// controller (Kubernetes: pkg/controller/resourcequota, with the usage
// evaluators of pkg/quota/v1/evaluator/core, here api/quota): it keeps
// each ResourceQuota's status, status.hard a copy of spec.hard and
// status.used what the namespace's objects that the quota's scopes select
// use of each hard resource — object counts ("pods", "services",
// "count/replicasets.apps", ...), the compute requests and limits of pods
// that have not finished, services' node ports and load balancers,
// claims' storage.
//
// A quota is synced when it is created or its spec.hard differs from its
// status.hard, when an object of a counted kind in its namespace changes,
// and again every resync period (5 minutes, kube-controller-manager's
// --resource-quota-sync-period) on the injected clock. The API server's
// quota admission charges a create to status.used at once; the controller
// is what gives back what deletions and finished pods release.
//
// The decision is Used, a pure function of the quota, the cached objects
// and the time; sync observes, decides and writes the status only when it
// changed. The controller talks to the server through its Client only.
package resourcequota
