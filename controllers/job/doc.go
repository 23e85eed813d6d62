// Package job is miniplane's job controller: for every batch/v1 Job it
// creates pods from the template until completions of them succeeded
// (min(parallelism, remaining) active at a time), counts succeeded and
// failed pods through the batch.kubernetes.io/job-tracking finalizer and
// status.uncountedTerminatedPods, recreates failed pods after an
// exponential back-off (10s doubling, at most 10 minutes, on the injected
// clock) until backoffLimit, fails the job past activeDeadlineSeconds or on
// a FailJob rule of its podFailurePolicy (exit-code rules), suspends and
// resumes it, runs Indexed jobs (one pod per completion index, the index
// in an annotation, a label, the hostname and JOB_COMPLETION_INDEX), and
// finishes it as v1.32 does: FailureTarget or SuccessCriteriaMet first,
// then Failed or Complete once no pod is left running or uncounted.
//
// It mirrors kube-controller-manager's pkg/controller/job (v1.32). Read
// them side by side:
//
//	Kubernetes                                        miniplane
//	job_controller.go  NewController, add/update/deletePod, enqueueSyncJobImmediately
//	                                                  controller.go  New, the handlers
//	job_controller.go  syncJob                        controller.go  sync; decide.go Decide
//	job_controller.go  manageJob                      decide.go      Decide (its last part), wantActive
//	job_controller.go  trackJobStatusAndRemoveFinalizers, flushUncountedAndRemoveFinalizers
//	                                                  decide.go      Decide (counting); controller.go act
//	job_controller.go  pastActiveDeadline, isPodFailed pastDeadline, podFailed
//	backoff_utils.go   getRemainingTime               decide.go      backOff
//	pod_failure_policy.go  matchPodFailurePolicy     decide.go      matchFailurePolicy, matchExitCodes
//	indexed_job_utils.go   calculateSucceededIndexes, firstPendingIndexes, succeededIndexesToString
//	                                                  decide.go      completedIndexes, missingIndexes, formatIndexes
//	job_controller.go  podTemplate (with the index)   controller.go  NewPod
//	job_controller.go  finalizerExpectations          recorded.go    the uids a status write counted,
//	                                                  waited for in the job cache (see below)
//
// Where it differs: upstream waits only for the pod cache to show a
// counted pod's finalizer gone; here a sync also waits for the job cache
// to show the status write that counted it (recorded.go), because a pod
// cache newer than the job cache made the job controller ask for a second
// pod of a finished job (found by the simulator, sim/cronjobs_test.go).
//
// A sync claims its pods as getPodsForJob does: an orphan its selector
// matches is adopted (with the tracking finalizer), a pod it no longer
// matches is released (without it), through deployment.ClaimAll.
//
// Left out: successPolicy, backoffLimitPerIndex and maxFailedIndexes (the
// fields are served and validated, not acted on), elastic Indexed jobs,
// and the per-index failure annotations.
//
// It may import api, client, informer and its controllers siblings
// (loop, workqueue, replication's Expectations and deployment's claiming); writes go through
// its Client only. Concurrency: handlers only queue keys; syncs run from
// the loop's workers, never two at once for one key.
package job
