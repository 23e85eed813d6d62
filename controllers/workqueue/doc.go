// Package workqueue is the queue between a controller's event handlers and
// its workers: handlers add object keys, workers take them one at a time,
// reconcile, and report back.
//
// It mirrors client-go's k8s.io/client-go/util/workqueue — the typed
// rate-limiting queue (TypedRateLimitingInterface), which is a delaying
// queue, which is a plain queue — as one generic type, Queue[T], made by New.
// The rate limiters (ItemExponentialFailureRateLimiter, BucketRateLimiter,
// MaxOf, DefaultControllerRateLimiter) and the metrics (MetricsSnapshot) keep
// client-go's figures and meanings. It imports the standard library and
// clock only.
//
// # Guarantees
//
// As client-go's, the queue is fair and stingy:
//
//   - Items are handed out in the order they were first added: an item added
//     again while it waits keeps its place, and many adds of a waiting item
//     collapse into one processing.
//   - An item is never handed to two workers at once: between Get and Done it
//     is in flight, and an add in that time does not queue it.
//   - An item added while in flight is queued again, exactly once, by Done.
//   - Once shutdown starts, every add is dropped (Add, AddAfter,
//     AddRateLimited); what was already accepted is still handed out.
//
// # The worker loop
//
//	for {
//		key, shutdown := q.Get()
//		if shutdown {
//			return
//		}
//		err := reconcile(key)
//		switch {
//		case err == nil:
//			q.Forget(key) // clear the key's backoff
//		case q.NumRequeues(key) < maxRetries:
//			q.AddRateLimited(key) // retry after a backoff
//		default:
//			q.Forget(key) // give up
//		}
//		q.Done(key) // always, or the key is never handed out again
//	}
//
// # Delayed items and shutdown
//
// AddAfter and AddRateLimited park an item until a ready time on the queue's
// clock; if the item is parked already, the earlier time wins. A parked item
// is invisible to Len and Get until it is due, and then it is added as by
// Add. Nothing parked is ever lost without the caller being told:
//
//   - ShutDown discards the parked items and returns them, earliest first,
//     for the caller to log or persist. Queued items are still handed out.
//   - ShutDownWithDrain keeps them: it returns once everything queued, in
//     flight and parked has been handed out and Done, parked items when they
//     come due — with the default limiter, up to 1000 s away. Until then Get
//     does not report shutdown. If its ctx ends first it returns ctx.Err()
//     and leaves the items parked; call ShutDown to discard them and learn
//     which they were.
//
// # Metrics
//
// With Config.Metrics, the queue keeps client-go's workqueue metrics —
// depth, adds, retries, queue and work duration histograms, unfinished work
// and the longest-running processor — and Metrics returns a copy. Durations
// come from the queue's clock, so on a clock.Fake they are exact. Keeping
// them costs three clock reads per item (add, Get, Done), none per
// duplicate add while the lock is free, and no map operation; the
// unfinished-work figures are computed when read. The clock is read outside
// the lock except by an add of a new item that found the lock free. Without
// Config.Metrics the queue never reads the clock except for delayed adds.
//
// # What it does better than client-go
//
//   - ShutDownWithDrain waits for queued items as well as in-flight ones
//     (client-go's returns with items still queued: kubernetes/kubernetes#141079),
//     and takes a context instead of blocking forever.
//   - Delayed items are never dropped silently at shutdown.
//   - The queue owns no goroutine: client-go runs one for delayed items and
//     one for metrics. Here a single timer from the injected clock is armed
//     for the earliest parked item, and the unfinished-work metrics are
//     computed when read. On a clock.Fake, parked items come due inside the
//     Step that reaches their time, in time order, so a run is deterministic.
//   - The clock is required and is the only source of time.
//   - TryGet and NextDelayed let the simulator drive the queue from one
//     goroutine: take one ready item, or move the fake clock to the next
//     ready time.
//   - Done of an item that is not in flight is ignored; client-go queues a
//     duplicate.
//
// # Concurrency
//
// A Queue is safe for concurrent use by any number of producers and workers;
// one mutex guards its state and Get waits on a condition variable. Item
// values are map keys: they must not change while the queue holds them. A
// queue holding 4,096 items or more keeps up to 4,096 it has let go in its
// map until its next sweep, so that a key added again soon costs no insert
// into a large map; those values stay reachable until then. The
// only code the queue runs outside its callers' goroutines is its timer's
// callback, which the clock calls (clock.Real: a short-lived goroutine of the
// Go runtime; clock.Fake: the goroutine moving the clock). The rate limiters
// are safe for concurrent use too.
package workqueue
