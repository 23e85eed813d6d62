// Package election is leader election on a Lease, for controller managers
// that run as several instances of which one works: client-go's
// tools/leaderelection with its LeaseLock, plus a guard that closes the
// split-brain window client-go leaves open.
//
// # The lease
//
// Candidates share one coordination.k8s.io Lease (default
// kube-system/kube-controller-manager). An Elector's Step reads it and makes
// at most one write: it creates the lease when there is none, renews it
// (renewTime) while it holds it, and takes it over (holderIdentity, a new
// acquireTime, leaseTransitions+1) when it is free or has expired. Every
// write carries the resourceVersion that was read, so when two candidates
// race, the API server's optimistic concurrency lets exactly one win.
//
// Expiry is judged as client-go judges it: by the candidate's own clock,
// from the moment it first observed the lease's current version, plus the
// lease's leaseDurationSeconds. The record's renewTime is never compared with
// a local clock, so an offset between instances' clocks cannot shorten a
// lease. (The price, as in client-go: a new candidate waits a full lease
// duration even for a lease whose holder died long ago.) A released lease
// (no holder) may be taken at once.
//
// The knobs and their defaults are client-go's: LeaseDuration 15s,
// RenewDeadline 10s, RetryPeriod 2s, validated as LeaseDuration >
// RenewDeadline > 1.2 × RetryPeriod > 0.
//
// # Safe hand-over
//
// In client-go a deposed leader learns it has lost only when its renew loop
// gives up, and nothing stops its controllers' writes in the meantime: a
// leader whose process is paused (CPU starvation, a long GC, a stopped VM)
// can resume and write after another instance has started leading. Here
// every controller write goes through a Guard (Guard.Client wraps the API
// client; controllers and their event recorders get only the wrapped one).
//
//   - After each successful acquire or renew that began at local time t, the
//     guard is open until t + RenewDeadline. Guard.Check compares the
//     instance's clock with that deadline under a lock, so the guard closes
//     by time alone: a paused elector that stops calling Step cannot keep
//     it open, however long its controllers keep running.
//   - A failed renew (an API error, a conflict) does not move the deadline.
//   - Another candidate can take the lease only after LeaseDuration has
//     passed on its own clock since it observed the last renewal, and it
//     observed that renewal no earlier than the renewal was written, which
//     is no earlier than t.
//
// Since RenewDeadline < LeaseDuration, the old leader's guard closes at
// t + RenewDeadline, before t + LeaseDuration, the earliest moment anyone
// else can hold the lease. Stepping down (on finding another holder, or when
// RenewDeadline passes without a renewal) and Release close the guard at
// once. Release closes it before it writes the lease, so a cleanly released
// lease is never taken while the old leader's writes continue.
//
// The argument assumes:
//
//   - clocks run at the same rate; their offsets may be anything (a clock
//     running fast on the old leader, or slow on the new one, shrinks the
//     margin LeaseDuration − RenewDeadline; a rate difference larger than
//     that margin breaks the guarantee, as it breaks client-go's);
//   - a guarded write takes effect soon after the check that admitted it,
//     compared with the margin LeaseDuration − RenewDeadline (5s by
//     default). A guarded write holds the guard's read lock from check to
//     return, and stepping down and releasing take its write lock, so those
//     wait for writes in flight; expiry by time cannot wait, so a write that
//     is admitted just before the deadline and then stalls in the network
//     for longer than the margin is the one case not covered. In-process
//     (and in the simulator, where time moves only between steps) a write
//     is instantaneous.
//
// Lease writes are not guarded: the elector must be able to renew.
//
// Term is a fencing number that strictly increases with every change of
// holder (leaseTransitions at acquisition, plus one), for checks that want to
// tell terms apart. An elector that finds the lease held under its own
// identity but not from its own term (a restarted incarnation) treats it as
// another's and waits it out, so two incarnations never share a term.
//
// # Driving it
//
// Step is the unit of work, and returns when it wants to be called next; it
// starts nothing and calls only OnNewLeader. The simulator calls it directly.
// Run is the loop for the live binary: it calls Step on the clock, runs
// OnStartedLeading in a goroutine for each term (with a context cancelled
// when the term ends, and waited for before the next), releases the lease on
// cancel if asked, calls OnStoppedLeading once at the end if it ever led, and
// returns after its goroutines have exited.
//
// The package imports api, client (its Client), api/apierrors, the
// clock and zap. Elector and Guard are safe for concurrent use; Step and
// Release of one Elector are serialized.
package election
