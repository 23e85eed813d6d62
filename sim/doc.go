// Package sim is miniplane's deterministic simulator: it runs the whole
// control plane — store and API server, the controller-manager instances
// with their informers, workqueues and controllers, and the simulated
// kubelet and scheduler — from one goroutine on a virtual clock, choosing
// at each step, from a seeded source, which of the runnable steps goes
// next. One seed gives one trace, byte for byte, on any machine.
//
// It has no single Kubernetes counterpart. It plays the part of the
// goroutines, network and wall clock of a real cluster, in the way of
// FoundationDB's simulation testing and of Sieve and Acto, which find
// controller bugs by delaying a controller's view of the cluster.
//
// # Steps
//
// Every component already has a step form (DESIGN.md, "Determinism",
// rule 4); a step of the simulator is one of them: a reflector's Step
// (list, watch, or hand over the watch's pending events), an informer's
// ProcessOne (one key's deltas into the cache), a Registration's
// DispatchOne (one notification to one handler), a due resync, a
// controller's ProcessOne (one work item), an elector's round, the server's
// Sweep of ended grace periods, a scripted user action, or a fault. Steps
// take no virtual time: when nothing is runnable the clock jumps to the
// next deadline (a delayed queue item, a backoff, a grace period, a lease
// renewal, a fault), firing the timers due then.
//
// # Faults
//
// Each is switchable (FaultSet, ParseFaults) and drawn from the seed: a
// watch closed; the history compacted (410 Gone, relist); writes failing
// with Conflict or a server error; an informer held back (a stale cache);
// a controller-manager instance crashing and restarting with empty
// caches; a leader's elector pausing; clock skew between instances; a pod
// crashing; a node going down and coming back. A fault comes due at a
// time drawn from the seed (Config.FaultEvery apart on average) and then
// strikes between two steps of whatever is going on — mid-reconcile,
// between a write and its delivery — rather than only when all is quiet;
// a due stale-cache fault may also strike right after a controller's own
// write, holding back the informer that would show it the write (Sieve's
// stale-state fault). Each fault heals after a drawn delay.
//
// # Invariants
//
// Checked at every step or write: the store's revisions only rise; a watch
// delivers each event once, in order, or ends with an error; no controller
// writes with a term older than one another instance has started leading
// with (so, in store order, terms never go back, and two leaders' writes
// never interleave), and no two instances share a term; a replication
// controller never owns more active pods than the most replicas it was
// asked for; an OrderedReady stateful set's pod is created only while the
// pods of every lower ordinal are Ready. Checked whenever
// the system is quiet and no fault is in force: every cache equals the
// store; every replication controller owns spec.replicas active pods and
// says so in its status; no pod has two controllers or a vanished owner;
// every service's Endpoints list exactly its pods' addresses; every
// deployment has finished its rollout (unless paused, or waiting for room
// no node has); every daemon set runs one pod of its current template on
// each node that should run one, and says so; and the invariants a test adds. After the last fault, the system must be quiet
// within Config.ConvergeWithin. The first violation stops the run (see
// Violation).
//
// # For controller authors
//
// Config.Controllers adds a controller to every instance, registered as
// the built-in ones are (a manager.Descriptor, whose Init gets an informer
// factory, a clock and a Client) and satisfying the same
// manager.Controller, whose ProcessOne the simulator steps; New,
// Step, RunFor, RunUntilQuiet, Inject, Check and Config.Invariants drive
// and judge the run. See the package example.
//
// # Leader election
//
// Config.Instances controller-manager instances (three by default) each
// run an elector of the election package on a shared Lease, each on its
// own view of the clock (Skew offsets it), with its own informers and
// caches. An instance builds its informers and controllers afresh each
// time it starts leading (kube-controller-manager starts its informers
// only once elected and exits when it loses the lease), steps them only
// while it leads, and drops its controllers when it loses the lease;
// their writes go through the elector's guard, and each write is recorded
// with the instance and the term. Config.Elect replaces the
// elector (a test may leave the guard out, to see the simulator catch
// it). The simulated kubelet runs once, outside the election.
//
// The package imports everything but cmd. A Sim is driven from one
// goroutine and is not safe for concurrent use; it starts no goroutine.
package sim
