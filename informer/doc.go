// Package informer is miniplane's client-go tools/cache: the machinery that
// keeps a controller's local cache in step with the API server and tells it
// what changed.
//
// The pipeline is client-go's classic one, in small pieces a learner can read
// side by side with it:
//
//	ListerWatcher ──> Reflector ──> DeltaFIFO ──> Informer.ProcessOne ──> Indexer (the cache)
//	 (List, Watch)    list, then     per-key       store first, then   └─> one queue per handler
//	                  watch from     deltas        notify                  └─> Handler.OnAdd/OnUpdate/OnDelete
//	                  the list's RV
//
// A Reflector lists a resource, replaces the FIFO's contents with the list,
// and watches from the list's resourceVersion; when a watch closes it
// watches again from the last resourceVersion it saw, and when the server
// answers 410 Gone it lists again after a backoff on the injected clock.
// Objects that vanished while it was not watching come out of the FIFO as
// DeletedFinalStateUnknown tombstones.
//
// Every component's core is a step that does one unit of work and returns
// (DESIGN.md, "Determinism", rule 4): Reflector.Step pumps the watch once,
// Informer.ProcessOne pops one key's deltas, Registration.DispatchOne hands
// one notification to one handler. Informer.Run is a thin loop around them for
// the live binary; the simulator calls the steps itself, in an order drawn
// from its seed.
//
// Run keeps the pipeline's working set small, for speed on large caches: a
// list that arrives while the FIFO is empty is held as the list it is and
// keyed only as it is popped (a change to one of its keys meanwhile merges
// with it as usual), and the reflector stops reading its watch while more
// than 1024 keys are queued (DeltaFIFO.Full). The events it has not read
// wait in the store's history; a watcher that falls behind by more than the
// history window (10,000 events by default) gets 410 Gone and relists, so a
// burst of writes that outruns processing by that much costs a relist — and
// loses nothing — instead of an unbounded FIFO.
//
// Where client-go has known bugs, this package does better:
//   - an update whose object has the same resourceVersion as before is
//     delivered to every handler, not dropped for handlers without resync
//     (kubernetes/client-go#1312); only periodic resyncs are per handler;
//   - no delete is lost between the list and the watch: the watch starts at
//     the list's exact revision and the store replays everything after it;
//   - each handler has its own queue, so a slow handler delays only itself,
//     and its backlog is reported (Registration.Pending, and a warning in the
//     log each time it doubles past 1024) rather than growing unseen;
//   - Factory.WaitForCacheSync waits until the handlers, not only the caches,
//     have seen the initial list (kubernetes/kubernetes#113763);
//   - caches list in key order, so nothing downstream depends on map order.
//
// Objects in caches and notifications are shared: treat them as immutable and
// deep-copy before changing one.
//
// The package imports api, api/apierrors, client (for its Client and list/watch types),
// clock and zap. Indexer, DeltaFIFO and Informer are safe for
// concurrent use; a Reflector's Step must not run concurrently with itself.
package informer
