// Package cronjob is miniplane's cronjob controller: for every batch/v1
// CronJob it creates a Job from the cron job's jobTemplate at each time its
// schedule names, in its spec.timeZone, on the injected clock; keeps
// status.active, lastScheduleTime and lastSuccessfulTime; applies the
// concurrency policy (Allow, Forbid, Replace), startingDeadlineSeconds and
// suspend; and deletes the oldest finished jobs beyond the history limits.
// It writes Jobs only: the job controller makes their pods.
//
// It mirrors kube-controller-manager's pkg/controller/cronjob, the v2
// controller (cronjob_controllerv2.go, utils.go). Read them side by side:
//
//	Kubernetes                                        miniplane
//	cronjob_controllerv2.go  NewControllerV2           controller.go  New, the handlers
//	cronjob_controllerv2.go  sync                      controller.go  sync
//	cronjob_controllerv2.go  syncCronJob               controller.go  syncCronJob
//	cronjob_controllerv2.go  cleanupFinishedJobs,
//	                         removeOldestJobs          decide.go      JobsToDelete; controller.go cleanupFinishedJobs
//	cronjob_controllerv2.go  getJobName, formatSchedule decide.go     JobName, Schedule
//	utils.go   mostRecentScheduleTime                  decide.go      MostRecentScheduleTime
//	utils.go   nextScheduleTime, nextScheduleTimeDuration decide.go   NextScheduleTime, RequeueAfter
//	utils.go   getJobFromTemplate2                     decide.go      JobFromTemplate
//	utils.go   getFinishedStatus, byJobStartTime       decide.go      FinishedStatus, byStartTime
//	robfig/cron/v3 ParseStandard, Next                 internal/cron  Parse, Next
//
// # One sync
//
//  1. Get the cron job from the cache (gone: nothing to do, the garbage
//     collector deletes its jobs) and the jobs it controls, by their
//     controller reference's name, as upstream; deep-copy the cron job.
//  2. Delete the finished jobs beyond successfulJobsHistoryLimit and
//     failedJobsHistoryLimit, oldest start first (SuccessfulDelete).
//  3. Reconcile status.active with the jobs: a finished active job leaves
//     it (SawCompletedJob), a completed job moves lastSuccessfulTime, an
//     unfinished job not in it is UnexpectedJob unless an uncached read of
//     the cron job shows it, an active job that is gone from the cache and
//     the server leaves it (MissingJob).
//  4. Being deleted, an unloadable zone (UnknownTimeZone), suspended, or an
//     unparseable schedule (UnparseableSchedule): write the status and wait
//     for the next change.
//  5. Find the most recent unmet schedule time since the last one (or the
//     creation), within startingDeadlineSeconds; more than 100 missed warn
//     TooManyMissedTimes. None: queue the key again at the next time, plus
//     100ms. Past the deadline: MissSchedule. Already scheduled (its job
//     active, or lastScheduleTime equal): nothing.
//  6. Forbid with an active job: JobAlreadyActive, nothing. Replace: delete
//     the active jobs. Then create the job "<name>-<minutes since the
//     epoch>" with the batch.kubernetes.io/cronjob-scheduled-timestamp
//     annotation and a controller reference (SuccessfulCreate); one that
//     already exists and is ours joins the active list. Set
//     lastScheduleTime, write the status once, and queue the key at the
//     next schedule time.
//
// # Where it differs from Kubernetes
//
//   - A cron job without spec.timeZone runs in UTC, not in the
//     controller-manager's local zone (which a container usually has as
//     UTC anyway): what a run does must not depend on the machine.
//   - The schedule is parsed in the cron job's zone directly, not through
//     a "TZ=" prefix added to the schedule (formatSchedule); a TZ= or
//     CRON_TZ= in the schedule itself still wins, with upstream's
//     UnsupportedSchedule warning.
//   - Time comes from the injected clock; the queue's AddAfter waits on it.
//   - Jobs are owned by their cron job's uid for the handlers (a job whose
//     owner's uid is not the cached cron job's wakes nothing), by name for
//     the sync, as upstream.
//   - The job's creationTimestamp is the server's, not the scheduled time
//     (upstream sets it in the request, and the server overwrites it).
//   - No metrics (CronJobCreationSkew).
//
// # Upstream tests ported
//
// utils_test.go's TestMostRecentScheduleTime, TestNextScheduleTime and
// TestNextScheduleTimeDuration → the tables in decide_test.go under the
// same names; TestGetJobFromTemplate2 → TestJobFromTemplate;
// cronjob_controllerv2_test.go's TestControllerV2CleanupFinishedJobs →
// TestJobsToDelete; TestControllerV2SyncCronJob's scenarios (each
// concurrency policy, with and without an active job, suspended, before,
// on and after the schedule time, within and past the deadline) →
// TestSyncCronJob, against a real API server on a fake clock.
//
// # Concurrency
//
// New registers handlers on the factory's cron job and job informers and
// starts nothing; the handlers queue keys and make no API calls.
// ProcessOne is the step: it syncs one ready key, from the caller's
// goroutine. Run waits for the handlers to sync and then runs workers
// goroutines until its context is done; the queue guarantees that no key
// is synced by two of them at once. Listers' objects are shared: a sync
// deep-copies before it changes one.
//
// The package imports api, api/apierrors, client, client/record, informer,
// controllers/loop, controllers/workqueue, internal/cron, clock and zap.
package cronjob
