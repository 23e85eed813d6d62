// Package cron is the cron grammar Kubernetes' CronJobs accept, and the
// arithmetic of when a schedule next fires. It mirrors
// github.com/robfig/cron/v3's ParseStandard and its schedules' Next, which
// kube-apiserver validates spec.schedule with and kube-controller-manager's
// cronjob controller runs: the facts and the test scenarios are ported, not
// the code.
//
// The grammar, field by field (minute hour day-of-month month day-of-week):
//
//   - a field is a comma-separated list of ranges; a range is "*" or "?"
//     (every value), a value, or "low-high", each optionally followed by
//     "/step" ("N/step" means "N-max/step");
//   - months take the names JAN..DEC and weekdays SUN..SAT, in any case;
//     weekdays run 0 (Sunday) to 6: there is no 7;
//   - a spec may start with "TZ=zone " or "CRON_TZ=zone ", an IANA zone;
//   - "@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight"
//     and "@hourly" stand for their five fields, and "@every <duration>"
//     fires at a fixed interval (at least a second) from the time given.
//
// When both day-of-month and day-of-week are restricted (neither starts
// with an unstepped "*" or "?"), a day matches if either does, as in
// Vixie cron; otherwise it must match both. A schedule that cannot fire in
// the next five years (February 30th) returns the zero time from Next.
//
// Where it differs from robfig/cron: a spec without a zone runs in the zone
// the caller passes to Parse (UTC when nil), not in the process's
// time.Local, which would make a run depend on the machine; and "TZ=zone"
// with nothing after it is an error where robfig's slicing panics.
//
// The package is pure and safe for concurrent use; it imports the standard
// library only, so that apiserver (which validates) and controllers/cronjob
// (which schedules) can share it.
package cron
