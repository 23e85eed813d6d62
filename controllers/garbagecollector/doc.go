// Package garbagecollector deletes the objects whose owners are gone: it is
// cascading deletion by ownerReferences, the small version of
// kube-controller-manager's garbage collector
// (pkg/controller/garbagecollector: graph_builder.go, garbagecollector.go).
//
// Without it, `kubectl delete rc web` would leave web's pods behind: the API
// server only records how a delete should propagate, and this controller
// carries it out.
//
//   - Background: the server removes the owner at once; the collector then
//     finds the owner's dependents orphaned of every owner and deletes them.
//   - Foreground: the server keeps the owner, with a deletionTimestamp and
//     the "foregroundDeletion" finalizer; the collector deletes its
//     dependents and removes the finalizer once no dependent that blocks
//     (ownerReference with blockOwnerDeletion: true) is left. A dependent
//     in its grace period still blocks: it is still there.
//   - Orphan (the default for replication controllers): the server keeps the
//     owner with the "orphan" finalizer; the collector removes the owner's
//     ownerReference from every dependent, then the finalizer, and the
//     server removes the owner.
//
// # How it works
//
// A graph (graph.go) holds one node per object the informers have shown, by
// UID, with its owners and dependents; an owner referenced but not yet seen,
// or removed while dependents still name it, is a virtual node. A virtual
// node is checked against the server whenever a dependent newly names it
// (a dependent may reach the graph only after its owner went: made from a
// stale cache during an orphaning deletion), and checked again with
// backoff while the server has it but no informer shows it. Informer
// notifications update the graph under one mutex and say which nodes need
// work. The work goes through one
// rate-limited workqueue of keys "delete/<uid>" (Kubernetes' attemptToDelete
// queue) and "orphan/<uid>" (attemptToOrphan). A sync observes (the graph,
// and live Gets through the Client — the collector acts on an absent owner
// only when the server itself says NotFound or shows another UID under the
// owner's name, never on a cache), decides with the pure functions of
// decide.go, and acts with uid- and resourceVersion-guarded writes.
//
// Custom resources (Config.CustomResources, monitors.go): the collector
// watches CustomResourceDefinitions and runs an informer of its own per
// established definition, stopped when the definition goes, as
// Kubernetes' collector follows discovery; owners of a custom kind are
// resolved through the definitions seen so far.
//
// Simplifications against Kubernetes: the built-in kinds are the ones this
// server serves, known statically (kinds.go), so there is no discovery, and a
// reference to any other kind is treated as an owner that exists (the
// dependent is left alone) until a definition of it is established; there is no absent-owner cache (every decision
// reads its owners live); an object the server no longer has but the cache
// still shows stays in the graph until the informer's delete notification
// (Kubernetes drops it at once with a virtual delete event).
//
// The package imports api, api/apierrors, client, client/record, informer, controllers/loop, controllers/workqueue,
// clock and zap. Event handlers run concurrently with workers; one
// mutex guards the graph, and the queue guarantees a key is never synced by
// two workers at once.
package garbagecollector
