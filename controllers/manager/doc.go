// Package manager is miniplane's kube-controller-manager: it builds the
// controllers that are switched on, starts the shared informers once every
// controller has asked for the ones it needs, waits for their caches, and
// runs each controller with its number of workers until the context ends.
//
// It mirrors cmd/kube-controller-manager/app: a registry of named
// controllers with init functions, the --controllers flag (`*`, `name`,
// `-name`, first match wins), per-controller worker counts
// (--concurrent-rc-syncs, --concurrent-replicaset-syncs, --concurrent-deployment-syncs,
// --concurrent-daemonset-syncs, --concurrent-statefulset-syncs, --concurrent-job-syncs,
// --concurrent-cron-job-syncs, --concurrent-endpoint-syncs), the --leader-elect
// flags, and a health check per controller.
//
// A Manager only runs the controllers it is given. An Instance is one
// elected kube-controller-manager process: it campaigns for the lease
// (the election package) and, for each term it wins, builds a fresh Manager
// over a fresh informer factory, whose controllers and event recorders
// write through the elector's guard, so that they stop writing before any
// other instance can lead. Several instances may run in one process, each
// with its own caches. The simulated kubelets and scheduler are not part
// of kube-controller-manager: package plane runs them once per cluster,
// outside election. The live plane (package plane) and the simulator both
// build their instances' controllers from DefaultDescriptors, so a
// controller registered there runs in both.
//
// The package imports api, apiserver, informer, election, the controllers,
// clock and zap. A Manager's Run, and an Instance's, may be called once.
package manager
