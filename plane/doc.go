// Package plane assembles a whole miniplane control plane in one process:
// the store and the API server, its HTTP front (with the API-layer fault
// injector in front of it when asked), the simulated kubelets and
// scheduler (controllers/nodesim), and one or more kube-controller-manager
// instances (controllers/manager) competing for the leader lease, each
// with its own informers and caches, as separate processes would have.
// It is the one place the live control plane is put together: the
// binary's serve and demo use it, and so do tests of controllers written
// against a real Kubernetes API (see planetest).
//
// A Plane is reached three ways, all serving the same requests:
//
//   - in process, through Server (the *apiserver.Server, an
//     client.Client);
//   - over HTTP in memory, through Transport and Host, which a stock
//     client-go takes as rest.Config{Host: p.Host(), Transport:
//     p.Transport()}: no socket, so a test inside a testing/synctest
//     bubble works, watches included;
//   - over a loopback listener, when Config.Listen names an address
//     (kubectl, with the file Kubeconfig returns).
//
// Handler is the http.Handler all three HTTP paths serve: the API (behind
// the fault injector when Config.Faults is set) and any handlers mounted
// with Handle, such as a browser view at /ui/.
//
// Lifecycle: New checks the Config and builds everything, starting
// nothing. Run starts every component, serves until its context ends, and
// returns after every goroutine it started has exited; call it once.
// Ready is closed once every readiness check passes (the simulated nodes'
// informers have synced and their nodes are registered and, when any
// controller is on, an instance leads with synced controllers); the same
// checks are served on /readyz.
//
// Time comes from Config.Clock (clock.Real by default, which inside a
// testing/synctest bubble is the bubble's virtual clock) and every random
// draw from Config.Seed.
//
// The package imports apiserver (httpapi, inmem, faults), informer,
// election, the controllers (manager, nodesim, workqueue), clock and zap.
package plane
