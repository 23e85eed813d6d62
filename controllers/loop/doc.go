// Package loop is the controller loop every miniplane controller runs, and
// the Reconcile adapter that makes a controller out of a reconcile function
// and its watches. Kubernetes has no one type for the loop: each controller
// in pkg/controller repeats processNextWorkItem and handleErr (the
// replication, endpoints and garbage collector controllers' copies differ in
// small ways); controller-runtime's internal/controller.Controller is the
// nearest counterpart of Loop, and its builder of Controller.
//
// A Loop owns what happens between the workqueue and a controller's sync:
//
//   - Run waits for the informers' handlers to have their initial lists,
//     then runs workers goroutines over the queue until ctx is done, shuts
//     the queue down and returns once every goroutine it started has exited.
//   - ProcessOne is the same work as one step for the simulator
//     (DESIGN.md, "Determinism", rule 4): it takes one ready key, syncs it
//     and settles it.
//   - Settling a key: Done always; Forget on success; on an error wrapping
//     ErrWait nothing more (the key waits for the event that queues it
//     again: no backoff, nothing counted); on any other error AddRateLimited
//     while the key's requeues are under Config.MaxRetries, else a warning
//     and Forget (the key is dropped until its next change).
//
// The stop rule, the same for Run and ProcessOne: a loop whose context is
// done starts no sync. ProcessOne returns false without taking a key, and a
// worker that takes a key after ctx is done hands it back with Done. A
// controller whose leadership ended (its context is the term's) therefore
// stops writing at once; a sync already running sees the done context in
// its own calls.
//
// Each sync gets a context that carries its identity (FromContext): the
// controller's name, the key and a sequence number per Loop, so logs,
// traces and the browser view can tell reconciles apart. An Observer, when
// set, is told when each reconcile starts and ends. With no Observer the
// loop reads no clock and allocates nothing per reconcile: the identity
// context is pooled (TestNoAllocationPerReconcile checks it, and
// BenchmarkProcessOne measures it).
//
// # Which to use
//
// Each gives a controller the one interface the controller manager runs and
// the simulator steps (controllers/manager.Controller: Run, ProcessOne,
// HasSynced); register either with a manager.Descriptor.
//
//   - NewController, first: when the work is "reconcile the object this key
//     names" and the keys follow from watched objects (their own key, their
//     owners', or any function of the object). It makes the queue and the
//     handlers, so the controller is its Reconcile function and its Watches
//     (looptest.ConfigPerService is the whole example).
//   - NewPeriodic: when the work is a sweep over caches on a timer rather
//     than a reaction to one object (podgc, csrcleaner). Its queue holds
//     one key, SweepKey, queued at start and again Period after each
//     sweep; the handlers it registers queue nothing and only say when the
//     caches are synced.
//   - New, a bare Loop: when the controller must own its handlers or its
//     queue, because they do more than map an object to keys —
//     expectations observed in the handlers (replication), batched or
//     delayed adds (endpoints, nodesim), a graph built from the events
//     (garbagecollector) — or it needs OnSynced, Alongside or Quiet. The
//     controller keeps its *Loop and forwards ProcessOne and Run to it,
//     and answers HasSynced from its own registrations.
//
// Imports: api, client, informer, controllers/workqueue, clock and zap,
// as the controllers' row of (DESIGN.md, "Packages and imports") allows.
// Concurrency: a Loop's methods are safe for concurrent use; Sync is called
// from Run's workers at once, never twice at once for one key (the queue's
// promise).
package loop
