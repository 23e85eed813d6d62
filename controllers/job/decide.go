package job

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/miniplane/miniplane/api"
)

// The pod failure back-off: a job whose pods failed n times waits
// DefaultBackOff·2^(n-1), at most MaxBackOff, after the last failure before
// it creates a pod again. Kubernetes: DefaultJobPodFailureBackOff and
// MaxJobPodFailureBackOff (v1.32: 10s and 10 minutes).
const (
	DefaultBackOff = 10 * time.Second
	MaxBackOff     = 10 * time.Minute
)

// Decision is what one sync of a job does: the status to write and the pod
// writes to make, in the order act makes them. Kubernetes: the outcome of
// syncJob, manageJob and trackJobStatusAndRemoveFinalizers.
type Decision struct {
	// Status is the job's status after this sync.
	Status api.JobStatus
	// Create is how many pods to create; for an Indexed job, Indexes are
	// their completion indexes.
	Create  int
	Indexes []int
	// Delete are the active pods to delete (suspended or finished jobs).
	Delete []*api.Pod
	// RemoveFinalizer are the pods whose tracking finalizer goes: ended pods
	// recorded in Status.UncountedTerminatedPods, or every pod once the job
	// is being deleted.
	RemoveFinalizer []*api.Pod
	// Events are the job's events: reason and message, Normal unless Warning.
	Events []Event
	// RequeueAfter, if positive, is when to sync again (back-off, deadline).
	RequeueAfter time.Duration
}

// Event is one event on the job.
type Event struct {
	Warning         bool
	Reason, Message string
}

// Decide works out a job's sync from the job and the pods it owns (selected
// and controlled by it), at now. It is pure: it reads job and pods and
// returns new values. Kubernetes: syncJob, with manageJob and the
// finalizer-based counting (trackJobStatusAndRemoveFinalizers) folded in.
func Decide(job *api.Job, pods []*api.Pod, now time.Time) Decision {
	spec, old := &job.Spec, &job.Status
	d := Decision{Status: *old.DeepCopy()}
	st := &d.Status
	if job.Metadata.DeletionTimestamp != nil {
		// A job being deleted only lets go of its pods.
		d.RemoveFinalizer = withFinalizer(pods)
		return d
	}
	if finished(job) {
		d.RemoveFinalizer = withFinalizer(pods)
		return d
	}
	indexed := deref(spec.CompletionMode) == api.IndexedCompletion
	suspended := deref(spec.Suspend)

	// Count: ended pods not yet counted join uncountedTerminatedPods (their
	// finalizer is removed by act); uncounted pods whose finalizer is gone
	// join succeeded or failed.
	unc := api.UncountedTerminatedPods{}
	if old.UncountedTerminatedPods != nil {
		unc = *old.UncountedTerminatedPods.DeepCopy()
	}
	byUID := map[api.UID]*api.Pod{}
	var active, terminating []*api.Pod
	var lastFailure time.Time
	var failJob *string // the message of a FailJob rule that matched
	for _, p := range pods {
		byUID[p.Metadata.UID] = p
		failed := podFailed(p, spec)
		if failed {
			if t := finishedAt(p); t.After(lastFailure) {
				lastFailure = t
			}
		}
		switch {
		case p.Status.Phase == api.PodSucceeded:
			if hasFinalizer(p) && !slices.Contains(unc.Succeeded, p.Metadata.UID) {
				unc.Succeeded = append(unc.Succeeded, p.Metadata.UID)
			}
		case failed:
			if hasFinalizer(p) && !slices.Contains(unc.Failed, p.Metadata.UID) {
				action, msg := matchFailurePolicy(spec.PodFailurePolicy, p)
				switch action {
				case api.PodFailurePolicyActionIgnore:
					d.RemoveFinalizer = append(d.RemoveFinalizer, p) // let go uncounted
					continue
				case api.PodFailurePolicyActionFailJob:
					failJob = &msg
				}
				unc.Failed = append(unc.Failed, p.Metadata.UID)
			}
		case p.Metadata.DeletionTimestamp != nil:
			terminating = append(terminating, p)
		default:
			active = append(active, p)
		}
	}
	counted := func(uids []api.UID) (done, left []api.UID) {
		for _, uid := range uids {
			if p, ok := byUID[uid]; ok && hasFinalizer(p) {
				left = append(left, uid)
			} else {
				done = append(done, uid)
			}
		}
		return done, left
	}
	succ, succLeft := counted(unc.Succeeded)
	fail, failLeft := counted(unc.Failed)
	st.Succeeded += int32(len(succ))
	st.Failed += int32(len(fail))
	unc.Succeeded, unc.Failed = succLeft, failLeft
	for _, uid := range append(slices.Clone(succLeft), failLeft...) {
		if p := byUID[uid]; p != nil {
			d.RemoveFinalizer = append(d.RemoveFinalizer, p)
		}
	}
	st.UncountedTerminatedPods = &unc
	uncounted := len(unc.Succeeded) + len(unc.Failed)

	// Indexed jobs count succeeded indexes, not pods.
	var completed []int
	if indexed {
		completed = completedIndexes(old.CompletedIndexes, pods, deref(spec.Completions))
		st.CompletedIndexes = formatIndexes(completed)
		st.Succeeded = int32(len(completed))
	}

	if st.StartTime == nil && !suspended {
		st.StartTime = &api.Time{Time: now}
	}

	// Decide whether the job is finishing: a condition that ends it once its
	// pods have all ended and been counted.
	interim := conditionOf(st.Conditions, api.JobFailureTarget)
	if interim == nil {
		interim = conditionOf(st.Conditions, api.JobSuccessCriteriaMet)
	}
	if interim == nil {
		completions := deref(spec.Completions)
		totalFailed := st.Failed + int32(len(unc.Failed))
		totalSucceeded := st.Succeeded + int32(len(unc.Succeeded))
		if indexed {
			totalSucceeded = int32(len(completed))
		}
		switch {
		case failJob != nil:
			interim = newCondition(api.JobFailureTarget, api.JobReasonPodFailurePolicy, *failJob, now)
		case totalFailed > deref(spec.BackoffLimit):
			interim = newCondition(api.JobFailureTarget, api.JobReasonBackoffLimitExceeded, "Job has reached the specified backoff limit", now)
		case pastDeadline(job, st, now):
			interim = newCondition(api.JobFailureTarget, api.JobReasonDeadlineExceeded, "Job was active longer than specified deadline", now)
		case spec.Completions != nil && totalSucceeded >= completions,
			spec.Completions == nil && totalSucceeded > 0 && len(active) == 0:
			interim = newCondition(api.JobSuccessCriteriaMet, api.JobReasonCompletionsReached, "Reached expected number of succeeded pods", now)
		}
		if interim != nil {
			st.Conditions = append(st.Conditions, *interim)
		}
	}

	if interim != nil {
		// Finishing: no new pods, the active ones go; the terminal condition
		// follows once none is left running or uncounted.
		d.Delete = active
		st.Active, st.Ready = 0, ptr(int32(0))
		st.Terminating = ptr(int32(len(terminating) + len(active)))
		if len(active)+len(terminating)+uncounted == 0 {
			if interim.Type == api.JobSuccessCriteriaMet {
				st.Conditions = append(st.Conditions, *newCondition(api.JobComplete, interim.Reason, interim.Message, now))
				st.CompletionTime = &api.Time{Time: now}
				d.Events = append(d.Events, Event{Reason: "Completed", Message: "Job completed"})
			} else {
				st.Conditions = append(st.Conditions, *newCondition(api.JobFailed, interim.Reason, interim.Message, now))
				d.Events = append(d.Events, Event{Warning: true, Reason: interim.Reason, Message: interim.Message})
			}
		}
		return d
	}

	// Suspended: no pods run; the Suspended condition says so.
	if cond := conditionOf(st.Conditions, api.JobSuspended); suspended && (cond == nil || cond.Status != api.ConditionTrue) {
		st.Conditions = setCondition(st.Conditions, api.JobSuspended, api.ConditionTrue, "JobSuspended", "Job suspended", now)
		d.Events = append(d.Events, Event{Reason: "Suspended", Message: "Job suspended"})
	} else if !suspended && cond != nil && cond.Status == api.ConditionTrue {
		st.Conditions = setCondition(st.Conditions, api.JobSuspended, api.ConditionFalse, "JobResumed", "Job resumed", now)
		st.StartTime = &api.Time{Time: now} // the deadline counts from the resume
		d.Events = append(d.Events, Event{Reason: "Resumed", Message: "Job resumed"})
	}
	st.Terminating = ptr(int32(len(terminating)))
	if suspended {
		d.Delete = active
		st.Active, st.Ready = 0, ptr(int32(0))
		st.Terminating = ptr(int32(len(terminating) + len(active)))
		return d
	}

	// Manage: keep min(parallelism, remaining) pods active.
	want := wantActive(spec, st.Succeeded+int32(len(unc.Succeeded)), completed, indexed)
	ready := int32(0)
	for _, p := range active {
		if api.IsPodReady(p) {
			ready++
		}
	}
	st.Active, st.Ready = int32(len(active)), &ready
	// With podReplacementPolicy Failed, a terminating pod still holds its place.
	holding := len(active)
	if deref(spec.PodReplacementPolicy) == api.FailedPodReplacement {
		holding += len(terminating)
	}
	if n := int(want) - holding; n > 0 {
		if failures := st.Failed + int32(len(unc.Failed)); failures > 0 && !lastFailure.IsZero() {
			if wait := lastFailure.Add(backOff(failures)).Sub(now); wait > 0 {
				d.RequeueAfter = wait
				n = 0
			}
		}
		if n > 0 {
			if indexed {
				d.Indexes = missingIndexes(deref(spec.Completions), completed, active, n)
				n = len(d.Indexes)
			}
			d.Create = n
			st.Active += int32(n)
		}
	}
	if ads := spec.ActiveDeadlineSeconds; ads != nil && st.StartTime != nil {
		left := st.StartTime.Add(time.Duration(*ads) * time.Second).Sub(now)
		if d.RequeueAfter == 0 || left < d.RequeueAfter {
			d.RequeueAfter = left
		}
	}
	return d
}

// wantActive is how many pods should be active: parallelism, but no more
// than the completions left. A work queue (no completions) runs parallelism
// pods until one succeeds, then lets the rest finish. Kubernetes: manageJob's
// wantActive.
func wantActive(spec *api.JobSpec, succeeded int32, completed []int, indexed bool) int32 {
	parallelism := deref(spec.Parallelism)
	if spec.Completions == nil {
		if succeeded > 0 {
			return 0
		}
		return parallelism
	}
	left := *spec.Completions - succeeded
	if indexed {
		left = *spec.Completions - int32(len(completed))
	}
	return max(0, min(parallelism, left))
}

// backOff is the wait after failures pod failures. Kubernetes:
// getRemainingTime's exponential back-off.
func backOff(failures int32) time.Duration {
	d := DefaultBackOff
	for i := int32(1); i < failures && d < MaxBackOff; i++ {
		d *= 2
	}
	return min(d, MaxBackOff)
}

// pastDeadline reports whether the job has run past activeDeadlineSeconds.
// Kubernetes: pastActiveDeadline.
func pastDeadline(job *api.Job, st *api.JobStatus, now time.Time) bool {
	ads := job.Spec.ActiveDeadlineSeconds
	if ads == nil || st.StartTime == nil || deref(job.Spec.Suspend) {
		return false
	}
	return !now.Before(st.StartTime.Add(time.Duration(*ads) * time.Second))
}

// podFailed reports whether a pod counts as failed: it failed or, unless
// only failed pods are replaced (podReplacementPolicy Failed, or a pod
// failure policy, whose rules need the pod's terminal status) or the job
// is suspended, it is being deleted before it succeeded (an orphan may
// never reach Failed). Kubernetes: isPodFailed, onlyReplaceFailedPods.
func podFailed(p *api.Pod, spec *api.JobSpec) bool {
	if p.Status.Phase == api.PodFailed {
		return true
	}
	if deref(spec.PodReplacementPolicy) == api.FailedPodReplacement || spec.PodFailurePolicy != nil || deref(spec.Suspend) {
		return false
	}
	return p.Metadata.DeletionTimestamp != nil && p.Status.Phase != api.PodSucceeded
}

// matchFailurePolicy returns the action of the first rule of policy that
// matches the failed pod p ("" when none does, which counts the failure)
// and, for FailJob, the failure's message: exit-code rules, and
// condition rules (an evicted or preempted pod has DisruptionTarget, which
// the kubelet keeps when it writes the pod's terminal phase).
// Kubernetes: matchPodFailurePolicy.
func matchFailurePolicy(policy *api.PodFailurePolicy, p *api.Pod) (string, string) {
	if policy == nil {
		return "", ""
	}
	for i, rule := range policy.Rules {
		if rule.OnExitCodes != nil {
			if name, code, ok := matchExitCodes(rule.OnExitCodes, p); ok {
				msg := fmt.Sprintf("Container %s for pod %s/%s failed with exit code %d matching %s rule at index %d",
					name, p.Metadata.Namespace, p.Metadata.Name, code, rule.Action, i)
				return rule.Action, msg
			}
		}
		for _, pattern := range rule.OnPodConditions {
			for _, c := range p.Status.Conditions {
				if string(c.Type) == pattern.Type && c.Status == pattern.Status {
					msg := fmt.Sprintf("Pod %s/%s has condition %s matching %s rule at index %d",
						p.Metadata.Namespace, p.Metadata.Name, pattern.Type, rule.Action, i)
					return rule.Action, msg
				}
			}
		}
	}
	return "", ""
}

// matchExitCodes finds the first container of p that ended with a non-zero
// code matching req. Kubernetes: getMatchingContainerFromList.
func matchExitCodes(req *api.PodFailurePolicyOnExitCodesRequirement, p *api.Pod) (string, int32, bool) {
	for _, cs := range p.Status.ContainerStatuses {
		if req.ContainerName != nil && *req.ContainerName != cs.Name {
			continue
		}
		t := cs.State.Terminated
		if t == nil || t.ExitCode == 0 {
			continue
		}
		in := slices.Contains(req.Values, t.ExitCode)
		if (req.Operator == api.PodFailurePolicyOnExitCodesOpIn) == in {
			return cs.Name, t.ExitCode, true
		}
	}
	return "", 0, false
}

// finishedAt is when the pod's last container ended, or zero.
func finishedAt(p *api.Pod) time.Time {
	var t time.Time
	for _, cs := range p.Status.ContainerStatuses {
		if term := cs.State.Terminated; term != nil && term.FinishedAt.After(t) {
			t = term.FinishedAt.Time
		}
	}
	return t
}

func finished(job *api.Job) bool {
	for _, c := range job.Status.Conditions {
		if (c.Type == api.JobComplete || c.Type == api.JobFailed) && c.Status == api.ConditionTrue {
			return true
		}
	}
	return false
}

func hasFinalizer(p *api.Pod) bool {
	return slices.Contains(p.Metadata.Finalizers, api.JobTrackingFinalizer)
}

func withFinalizer(pods []*api.Pod) []*api.Pod {
	var out []*api.Pod
	for _, p := range pods {
		if hasFinalizer(p) {
			out = append(out, p)
		}
	}
	return out
}

func conditionOf(conds []api.JobCondition, typ string) *api.JobCondition {
	for i := range conds {
		if conds[i].Type == typ && (conds[i].Status == api.ConditionTrue || typ == api.JobSuspended) {
			return &conds[i]
		}
	}
	return nil
}

func newCondition(typ, reason, msg string, now time.Time) *api.JobCondition {
	t := api.Time{Time: now}
	return &api.JobCondition{Type: typ, Status: api.ConditionTrue, Reason: reason, Message: msg, LastProbeTime: t, LastTransitionTime: t}
}

// setCondition sets the condition of typ, in place when there is one.
func setCondition(conds []api.JobCondition, typ string, status api.ConditionStatus, reason, msg string, now time.Time) []api.JobCondition {
	c := *newCondition(typ, reason, msg, now)
	c.Status = status
	for i := range conds {
		if conds[i].Type == typ {
			conds[i] = c
			return conds
		}
	}
	return append(conds, c)
}

// ---- Indexed jobs ----

// podIndex is the completion index of an Indexed job's pod, or -1.
func podIndex(p *api.Pod) int {
	v, ok := p.Metadata.Annotations[api.JobCompletionIndexAnnotation]
	if !ok {
		return -1
	}
	i, err := strconv.Atoi(v)
	if err != nil || i < 0 {
		return -1
	}
	return i
}

// completedIndexes are the indexes below completions that the status
// already lists or that a succeeded pod has, ascending. Kubernetes:
// calculateSucceededIndexes.
func completedIndexes(status string, pods []*api.Pod, completions int32) []int {
	set := map[int]bool{}
	for _, i := range parseIndexes(status) {
		set[i] = true
	}
	for _, p := range pods {
		if p.Status.Phase == api.PodSucceeded {
			set[podIndex(p)] = true
		}
	}
	var out []int
	for i := range set {
		if i >= 0 && i < int(completions) {
			out = append(out, i)
		}
	}
	slices.Sort(out)
	return out
}

// missingIndexes are the n lowest indexes below completions that are
// neither completed nor held by an active pod. Kubernetes:
// firstPendingIndexes.
func missingIndexes(completions int32, completed []int, active []*api.Pod, n int) []int {
	taken := map[int]bool{}
	for _, i := range completed {
		taken[i] = true
	}
	for _, p := range active {
		taken[podIndex(p)] = true
	}
	var out []int
	for i := 0; i < int(completions) && len(out) < n; i++ {
		if !taken[i] {
			out = append(out, i)
		}
	}
	return out
}

// formatIndexes writes ascending indexes in completedIndexes' form: a run
// of consecutive indexes as "a-b", a lone one as "a" ("1,3-5,7").
// Kubernetes: succeededIndexesToString.
func formatIndexes(idx []int) string {
	var b strings.Builder
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && idx[j+1] == idx[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(idx[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(idx[j]))
		}
		i = j + 1
	}
	return b.String()
}

// parseIndexes reads formatIndexes' form back; malformed parts are skipped.
func parseIndexes(s string) []int {
	var out []int
	for _, part := range strings.Split(s, ",") {
		if part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			continue
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil {
				continue
			}
		}
		for i := a; i <= b; i++ {
			out = append(out, i)
		}
	}
	return out
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func ptr[T any](v T) *T { return &v }
