// Package ttlafterfinished is kube-controller-manager's ttl-after-finished
// controller (Kubernetes: pkg/controller/ttlafterfinished): a Job that has
// finished (its Complete or Failed condition true) and sets
// spec.ttlSecondsAfterFinished is deleted that many seconds after it
// finished, with foreground propagation, so that its pods go first and the
// Job last.
//
// The finish time is the lastTransitionTime of the finishing condition;
// the controller queues the job back (AddAfter, on the injected clock) at
// that time plus the TTL. Before it deletes, it reads the job afresh from
// the API server and decides again (a TTL changed meanwhile counts), and
// deletes on the precondition of the uid it read, so that a job of the
// same name made since is not touched.
//
// The decision is expiry, a pure function; sync observes, decides and
// acts. Kubernetes' ttlafterfinished_controller_test.go tests timeLeft
// (ported as TestExpiry) and jobFinishTime (TestFinishTime); its metrics
// (job_deletion_duration_seconds) are not kept.
package ttlafterfinished
