// Package manager is miniplane's kube-controller-manager: it builds the
// controllers that are switched on, starts the shared informers once every
// controller has asked for the ones it needs, waits for their caches, and
// runs each controller with its number of workers until the context ends.
//
// It mirrors cmd/kube-controller-manager/app: a registry of named
// controllers with init functions, the --controllers flag (`*`, `name`,
// `-name`, first match wins), per-controller worker counts
// (--concurrent-rc-syncs, --concurrent-endpoint-syncs), and a health check
// per controller. Leader election wraps a Manager from the outside (the
// election package): a Manager only runs.
//
// The package imports api, apiserver, informer, the controllers, clock and
// zap. A Manager's Run may be called once.
package manager
