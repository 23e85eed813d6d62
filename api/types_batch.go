package api

// The labels and annotations of batch/v1, which the job controller writes on a
// job's pods and the apiserver on a job's generated selector. Kubernetes:
// batchv1's constants.
const (
	// JobNameLabel names the job a pod belongs to (also written without the
	// prefix, as LegacyJobNameLabel).
	JobNameLabel = "batch.kubernetes.io/job-name"
	// LegacyJobNameLabel is JobNameLabel's older name, still written.
	LegacyJobNameLabel = "job-name"
	// ControllerUIDLabel holds the job's uid; the generated selector selects on
	// it (also written without the prefix, as LegacyControllerUIDLabel).
	ControllerUIDLabel = "batch.kubernetes.io/controller-uid"
	// LegacyControllerUIDLabel is ControllerUIDLabel's older name, still written.
	LegacyControllerUIDLabel = "controller-uid"
	// JobCompletionIndexAnnotation holds an Indexed job's pod's completion index;
	// the same key is also a label.
	JobCompletionIndexAnnotation = "batch.kubernetes.io/job-completion-index"
	// JobTrackingFinalizer keeps a job's finished pod until the job controller
	// has counted it in the job's status.
	JobTrackingFinalizer = "batch.kubernetes.io/job-tracking"
	// CronJobScheduledTimestampAnnotation holds the time a cron job's job was
	// scheduled for (RFC 3339).
	CronJobScheduledTimestampAnnotation = "batch.kubernetes.io/cronjob-scheduled-timestamp"
)

// Job runs pods from a template until a number of them succeed. Kubernetes:
// batchv1.Job.
type Job struct {
	TypeMeta `json:",inline"`
	// Metadata is the job's identity.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the desired behaviour of the job.
	Spec JobSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is the job's observed state.
	Status JobStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// GetObjectMeta returns the job's metadata.
func (j *Job) GetObjectMeta() *ObjectMeta { return &j.Metadata }

// JobList is a list of jobs. Kubernetes: batchv1.JobList.
type JobList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the list's resource version.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the jobs.
	Items []Job `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// The completion modes (JobSpec.CompletionMode).
const (
	// NonIndexedCompletion: the job is complete when completions pods succeeded;
	// its pods are interchangeable.
	NonIndexedCompletion = "NonIndexed"
	// IndexedCompletion: each pod has a completion index from 0 to completions-1,
	// and the job is complete when one pod of each index succeeded.
	IndexedCompletion = "Indexed"
)

// The actions of a pod failure policy rule (PodFailurePolicyRule.Action).
const (
	// PodFailurePolicyActionFailJob fails the job and terminates its pods.
	PodFailurePolicyActionFailJob = "FailJob"
	// PodFailurePolicyActionFailIndex fails the pod's index (with backoffLimitPerIndex).
	PodFailurePolicyActionFailIndex = "FailIndex"
	// PodFailurePolicyActionIgnore does not count the failure against backoffLimit.
	PodFailurePolicyActionIgnore = "Ignore"
	// PodFailurePolicyActionCount counts the failure, as without a policy.
	PodFailurePolicyActionCount = "Count"
)

// The operators of an exit-code requirement (PodFailurePolicyOnExitCodesRequirement.Operator).
const (
	// PodFailurePolicyOnExitCodesOpIn matches when an exit code is among the values.
	PodFailurePolicyOnExitCodesOpIn = "In"
	// PodFailurePolicyOnExitCodesOpNotIn matches when an exit code is not among them.
	PodFailurePolicyOnExitCodesOpNotIn = "NotIn"
)

// The pod replacement policies (JobSpec.PodReplacementPolicy).
const (
	// TerminatingOrFailedPodReplacement replaces a pod as soon as it is terminating.
	TerminatingOrFailedPodReplacement = "TerminatingOrFailed"
	// FailedPodReplacement waits until the pod has failed.
	FailedPodReplacement = "Failed"
)

// PodFailurePolicyOnExitCodesRequirement matches a failed pod by its
// containers' exit codes. Kubernetes: batchv1.PodFailurePolicyOnExitCodesRequirement.
type PodFailurePolicyOnExitCodesRequirement struct {
	// ContainerName restricts the check to one container; nil checks them all.
	ContainerName *string `json:"containerName,omitempty" protobuf:"bytes,1,opt,name=containerName"`
	// Operator is In or NotIn.
	Operator string `json:"operator" protobuf:"bytes,2,opt,name=operator"`
	// Values are the exit codes, ascending, without 0 for In.
	Values []int32 `json:"values" protobuf:"varint,3,rep,name=values"`
}

// PodFailurePolicyOnPodConditionsPattern matches a failed pod by a condition.
// Kubernetes: batchv1.PodFailurePolicyOnPodConditionsPattern.
type PodFailurePolicyOnPodConditionsPattern struct {
	// Type is the pod condition's type (DisruptionTarget, ...).
	Type string `json:"type" protobuf:"bytes,1,opt,name=type"`
	// Status is the condition's status to match; defaults to True.
	Status ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status"`
}

// PodFailurePolicyRule is one rule of a pod failure policy: an action and the
// failures it applies to (onExitCodes or onPodConditions, not both).
// Kubernetes: batchv1.PodFailurePolicyRule.
type PodFailurePolicyRule struct {
	// Action is FailJob, FailIndex, Ignore or Count.
	Action string `json:"action" protobuf:"bytes,1,opt,name=action"`
	// OnExitCodes matches on the containers' exit codes.
	OnExitCodes *PodFailurePolicyOnExitCodesRequirement `json:"onExitCodes,omitempty" protobuf:"bytes,2,opt,name=onExitCodes"`
	// OnPodConditions matches on the pod's conditions; any one pattern matches.
	OnPodConditions []PodFailurePolicyOnPodConditionsPattern `json:"onPodConditions,omitempty" protobuf:"bytes,3,rep,name=onPodConditions"`
}

// PodFailurePolicy decides what a failed pod does to its job: the first rule
// that matches applies. Kubernetes: batchv1.PodFailurePolicy.
type PodFailurePolicy struct {
	// Rules are evaluated in order; at most 20.
	Rules []PodFailurePolicyRule `json:"rules" protobuf:"bytes,1,rep,name=rules"`
}

// SuccessPolicy lets an Indexed job succeed before all its indexes did.
// Kubernetes: batchv1.SuccessPolicy.
type SuccessPolicy struct {
	// Rules: the job succeeds when any one is met.
	Rules []SuccessPolicyRule `json:"rules" protobuf:"bytes,1,rep,name=rules"`
}

// SuccessPolicyRule is met when the named indexes, or a number of them, succeeded.
// Kubernetes: batchv1.SuccessPolicyRule.
type SuccessPolicyRule struct {
	// SucceededIndexes is a set of indexes in completedIndexes' form ("1,3-5").
	SucceededIndexes *string `json:"succeededIndexes,omitempty" protobuf:"bytes,1,opt,name=succeededIndexes"`
	// SucceededCount is how many of SucceededIndexes (or of all) must succeed.
	SucceededCount *int32 `json:"succeededCount,omitempty" protobuf:"varint,2,opt,name=succeededCount"`
}

// JobSpec is the desired behaviour of a job. Kubernetes: batchv1.JobSpec.
type JobSpec struct {
	// Parallelism is how many pods may run at once; defaults to 1.
	Parallelism *int32 `json:"parallelism,omitempty" protobuf:"varint,1,opt,name=parallelism"`
	// Completions is how many pods must succeed; nil means any one success, once
	// all pods ended, completes the job (a work queue).
	Completions *int32 `json:"completions,omitempty" protobuf:"varint,2,opt,name=completions"`
	// ActiveDeadlineSeconds bounds the job's run from its start time; past it the
	// job fails with DeadlineExceeded.
	ActiveDeadlineSeconds *int64 `json:"activeDeadlineSeconds,omitempty" protobuf:"varint,3,opt,name=activeDeadlineSeconds"`
	// PodFailurePolicy decides, per failed pod, whether it fails the job, is
	// ignored, or counts towards backoffLimit.
	PodFailurePolicy *PodFailurePolicy `json:"podFailurePolicy,omitempty" protobuf:"bytes,11,opt,name=podFailurePolicy"`
	// SuccessPolicy lets an Indexed job succeed early.
	SuccessPolicy *SuccessPolicy `json:"successPolicy,omitempty" protobuf:"bytes,16,opt,name=successPolicy"`
	// BackoffLimit is how many pod failures the job tolerates; defaults to 6.
	BackoffLimit *int32 `json:"backoffLimit,omitempty" protobuf:"varint,7,opt,name=backoffLimit"`
	// BackoffLimitPerIndex is how many failures each index of an Indexed job tolerates.
	BackoffLimitPerIndex *int32 `json:"backoffLimitPerIndex,omitempty" protobuf:"varint,12,opt,name=backoffLimitPerIndex"`
	// MaxFailedIndexes is how many indexes may fail before the job does.
	MaxFailedIndexes *int32 `json:"maxFailedIndexes,omitempty" protobuf:"varint,13,opt,name=maxFailedIndexes"`
	// Selector selects the job's pods; generated from the job's uid unless
	// ManualSelector.
	Selector *LabelSelector `json:"selector,omitempty" protobuf:"bytes,4,opt,name=selector"`
	// ManualSelector says the selector was written by the user, not generated.
	ManualSelector *bool `json:"manualSelector,omitempty" protobuf:"varint,5,opt,name=manualSelector"`
	// Template is the pod the job runs; its restartPolicy is Never or OnFailure.
	Template PodTemplateSpec `json:"template" protobuf:"bytes,6,opt,name=template"`
	// TTLSecondsAfterFinished is how long a finished job is kept before the
	// ttl-after-finished controller deletes it; nil keeps it.
	TTLSecondsAfterFinished *int32 `json:"ttlSecondsAfterFinished,omitempty" protobuf:"varint,8,opt,name=ttlSecondsAfterFinished"`
	// CompletionMode is NonIndexed (the default) or Indexed.
	CompletionMode *string `json:"completionMode,omitempty" protobuf:"bytes,9,opt,name=completionMode"`
	// Suspend stops the job: its active pods are deleted and none are created
	// until it is false again.
	Suspend *bool `json:"suspend,omitempty" protobuf:"varint,10,opt,name=suspend"`
	// PodReplacementPolicy is when a replacement pod is created: TerminatingOrFailed
	// (the default) or Failed (the default with a podFailurePolicy).
	PodReplacementPolicy *string `json:"podReplacementPolicy,omitempty" protobuf:"bytes,14,opt,name=podReplacementPolicy"`
	// ManagedBy names the controller that syncs the job; nil or
	// "kubernetes.io/job-controller" is the built-in one.
	ManagedBy *string `json:"managedBy,omitempty" protobuf:"bytes,15,opt,name=managedBy"`
}

// JobStatus is the observed state of a job. Kubernetes: batchv1.JobStatus.
type JobStatus struct {
	// Conditions are Suspended, FailureTarget, SuccessCriteriaMet, Complete and Failed.
	Conditions []JobCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,1,rep,name=conditions"`
	// StartTime is when the controller first started the job (or resumed it).
	StartTime *Time `json:"startTime,omitempty" protobuf:"bytes,2,opt,name=startTime"`
	// CompletionTime is when the job completed; set only on success.
	CompletionTime *Time `json:"completionTime,omitempty" protobuf:"bytes,3,opt,name=completionTime"`
	// Active counts the pending and running pods that are not terminating.
	Active int32 `json:"active,omitempty" protobuf:"varint,4,opt,name=active"`
	// Succeeded counts the pods that succeeded and were counted.
	Succeeded int32 `json:"succeeded,omitempty" protobuf:"varint,5,opt,name=succeeded"`
	// Failed counts the pods that failed and were counted.
	Failed int32 `json:"failed,omitempty" protobuf:"varint,6,opt,name=failed"`
	// Terminating counts the pods being deleted that have not ended.
	Terminating *int32 `json:"terminating,omitempty" protobuf:"varint,11,opt,name=terminating"`
	// CompletedIndexes are an Indexed job's succeeded indexes, as ranges ("1,3-5").
	CompletedIndexes string `json:"completedIndexes,omitempty" protobuf:"bytes,7,opt,name=completedIndexes"`
	// FailedIndexes are the failed indexes with backoffLimitPerIndex, in the same form.
	FailedIndexes *string `json:"failedIndexes,omitempty" protobuf:"bytes,10,opt,name=failedIndexes"`
	// UncountedTerminatedPods are the uids of ended pods the controller has not yet
	// added to Succeeded or Failed; their tracking finalizer is being removed.
	UncountedTerminatedPods *UncountedTerminatedPods `json:"uncountedTerminatedPods,omitempty" protobuf:"bytes,8,opt,name=uncountedTerminatedPods"`
	// Ready counts the active pods with the Ready condition.
	Ready *int32 `json:"ready,omitempty" protobuf:"varint,9,opt,name=ready"`
}

// UncountedTerminatedPods holds ended pods between the removal of their
// tracking finalizer and their count in the status. Kubernetes:
// batchv1.UncountedTerminatedPods.
type UncountedTerminatedPods struct {
	// Succeeded are the uids of succeeded pods.
	Succeeded []UID `json:"succeeded,omitempty" protobuf:"bytes,1,rep,name=succeeded"`
	// Failed are the uids of failed pods.
	Failed []UID `json:"failed,omitempty" protobuf:"bytes,2,rep,name=failed"`
}

// The job condition types (JobCondition.Type).
const (
	// JobSuspended: the job is suspended.
	JobSuspended = "Suspended"
	// JobComplete: the job succeeded; terminal.
	JobComplete = "Complete"
	// JobFailed: the job failed; terminal.
	JobFailed = "Failed"
	// JobFailureTarget: the job is failing; Failed follows once its pods ended.
	JobFailureTarget = "FailureTarget"
	// JobSuccessCriteriaMet: the job is succeeding; Complete follows once its pods ended.
	JobSuccessCriteriaMet = "SuccessCriteriaMet"
)

// The reasons of the job conditions.
const (
	// JobReasonPodFailurePolicy: a FailJob rule of the pod failure policy matched.
	JobReasonPodFailurePolicy = "PodFailurePolicy"
	// JobReasonBackoffLimitExceeded: more pods failed than backoffLimit allows.
	JobReasonBackoffLimitExceeded = "BackoffLimitExceeded"
	// JobReasonDeadlineExceeded: the job ran past activeDeadlineSeconds.
	JobReasonDeadlineExceeded = "DeadlineExceeded"
	// JobReasonMaxFailedIndexesExceeded: more indexes failed than maxFailedIndexes.
	JobReasonMaxFailedIndexesExceeded = "MaxFailedIndexesExceeded"
	// JobReasonFailedIndexes: the job ended with failed indexes.
	JobReasonFailedIndexes = "FailedIndexes"
	// JobReasonSuccessPolicy: a success policy rule was met.
	JobReasonSuccessPolicy = "SuccessPolicy"
	// JobReasonCompletionsReached: completions pods (or indexes) succeeded.
	JobReasonCompletionsReached = "CompletionsReached"
)

// JobCondition is one fact about a job. Kubernetes: batchv1.JobCondition.
type JobCondition struct {
	// Type is Suspended, FailureTarget, SuccessCriteriaMet, Complete or Failed.
	Type string `json:"type" protobuf:"bytes,1,opt,name=type"`
	// Status is True, False or Unknown.
	Status ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status"`
	// LastProbeTime is when the condition was last checked.
	LastProbeTime Time `json:"lastProbeTime,omitempty" protobuf:"bytes,3,opt,name=lastProbeTime"`
	// LastTransitionTime is when Status last changed.
	LastTransitionTime Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,4,opt,name=lastTransitionTime"`
	// Reason is a CamelCase reason for the last transition.
	Reason string `json:"reason,omitempty" protobuf:"bytes,5,opt,name=reason"`
	// Message is a human-readable account of the last transition.
	Message string `json:"message,omitempty" protobuf:"bytes,6,opt,name=message"`
}

// JobTemplateSpec is the job a cron job creates. Kubernetes: batchv1.JobTemplateSpec.
type JobTemplateSpec struct {
	// Metadata is copied to each job made from the template.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is each job's spec.
	Spec JobSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

// CronJob creates jobs on a schedule. Kubernetes: batchv1.CronJob.
type CronJob struct {
	TypeMeta `json:",inline"`
	// Metadata is the cron job's identity.
	Metadata ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the schedule and the job template.
	Spec CronJobSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is the cron job's observed state.
	Status CronJobStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// GetObjectMeta returns the cron job's metadata.
func (c *CronJob) GetObjectMeta() *ObjectMeta { return &c.Metadata }

// CronJobList is a list of cron jobs. Kubernetes: batchv1.CronJobList.
type CronJobList struct {
	TypeMeta `json:",inline"`
	// Metadata holds the list's resource version.
	Metadata ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the cron jobs.
	Items []CronJob `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// The concurrency policies (CronJobSpec.ConcurrencyPolicy).
const (
	// AllowConcurrent lets jobs run concurrently (the default).
	AllowConcurrent = "Allow"
	// ForbidConcurrent skips a run while the previous one is still running.
	ForbidConcurrent = "Forbid"
	// ReplaceConcurrent replaces the running job with the new one.
	ReplaceConcurrent = "Replace"
)

// CronJobSpec is a cron job's schedule and job. Kubernetes: batchv1.CronJobSpec.
type CronJobSpec struct {
	// Schedule is in cron format ("*/5 * * * *").
	Schedule string `json:"schedule" protobuf:"bytes,1,opt,name=schedule"`
	// TimeZone is the schedule's time zone name; nil is the controller's local zone.
	TimeZone *string `json:"timeZone,omitempty" protobuf:"bytes,8,opt,name=timeZone"`
	// StartingDeadlineSeconds is how late a missed run may still start.
	StartingDeadlineSeconds *int64 `json:"startingDeadlineSeconds,omitempty" protobuf:"varint,2,opt,name=startingDeadlineSeconds"`
	// ConcurrencyPolicy is Allow (the default), Forbid or Replace.
	ConcurrencyPolicy string `json:"concurrencyPolicy,omitempty" protobuf:"bytes,3,opt,name=concurrencyPolicy"`
	// Suspend stops new runs; running jobs are left alone.
	Suspend *bool `json:"suspend,omitempty" protobuf:"varint,4,opt,name=suspend"`
	// JobTemplate is the job each run creates.
	JobTemplate JobTemplateSpec `json:"jobTemplate" protobuf:"bytes,5,opt,name=jobTemplate"`
	// SuccessfulJobsHistoryLimit is how many finished successful jobs are kept; defaults to 3.
	SuccessfulJobsHistoryLimit *int32 `json:"successfulJobsHistoryLimit,omitempty" protobuf:"varint,6,opt,name=successfulJobsHistoryLimit"`
	// FailedJobsHistoryLimit is how many finished failed jobs are kept; defaults to 1.
	FailedJobsHistoryLimit *int32 `json:"failedJobsHistoryLimit,omitempty" protobuf:"varint,7,opt,name=failedJobsHistoryLimit"`
}

// CronJobStatus is a cron job's observed state. Kubernetes: batchv1.CronJobStatus.
type CronJobStatus struct {
	// Active are the jobs of the cron job that are running.
	Active []ObjectReference `json:"active,omitempty" protobuf:"bytes,1,rep,name=active"`
	// LastScheduleTime is when a job was last scheduled.
	LastScheduleTime *Time `json:"lastScheduleTime,omitempty" protobuf:"bytes,4,opt,name=lastScheduleTime"`
	// LastSuccessfulTime is when a job last completed successfully.
	LastSuccessfulTime *Time `json:"lastSuccessfulTime,omitempty" protobuf:"bytes,5,opt,name=lastSuccessfulTime"`
}
