package job

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
)

var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func newJob(parallelism, completions, backoffLimit int32) *api.Job {
	j := &api.Job{Metadata: api.ObjectMeta{Namespace: "default", Name: "foobar", UID: "job-uid"}}
	j.Spec.Parallelism, j.Spec.BackoffLimit = ptr(parallelism), ptr(backoffLimit)
	if completions >= 0 {
		j.Spec.Completions = ptr(completions)
	}
	j.Spec.CompletionMode = ptr(api.NonIndexedCompletion)
	j.Spec.PodReplacementPolicy = ptr(api.TerminatingOrFailedPodReplacement)
	j.Status.StartTime = &api.Time{Time: now.Add(-time.Minute)}
	j.Status.UncountedTerminatedPods = &api.UncountedTerminatedPods{}
	return j
}

// pods makes n pods of a phase, tracked by the finalizer unless counted.
func pods(phase api.PodPhase, n int, tracked bool) []*api.Pod {
	var out []*api.Pod
	for i := 0; i < n; i++ {
		p := &api.Pod{Metadata: api.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("%s-%d", phase, i), UID: api.UID(fmt.Sprintf("%s-%d", phase, i))}}
		p.Status.Phase = phase
		if tracked {
			p.Metadata.Finalizers = []string{api.JobTrackingFinalizer}
		}
		if phase == api.PodFailed {
			p.Status.ContainerStatuses = []api.ContainerStatus{{Name: "main", State: api.ContainerState{Terminated: &api.ContainerStateTerminated{ExitCode: 1, FinishedAt: api.Time{Time: now.Add(-time.Hour)}}}}}
		}
		out = append(out, p)
	}
	return out
}

func cat(groups ...[]*api.Pod) []*api.Pod {
	var out []*api.Pod
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

func condTypes(st api.JobStatus) []string {
	var out []string
	for _, c := range st.Conditions {
		out = append(out, c.Type+"="+string(c.Status)+"/"+c.Reason)
	}
	return out
}

// TestDecide ports the applicable rows of upstream's TestControllerSyncJob
// (job_controller_test.go, v1.32), counting through finalizers as
// upstream does since JobTrackingWithFinalizers: a finished pod that still
// holds the finalizer is uncounted first, counted once it lets go.
// Not ported: the rows on expectations and on pod creation or deletion
// errors (act's; covered by the end-to-end tests), the job-managed-by and
// elastic Indexed rows, backoffLimitPerIndex and successPolicy rows (not
// acted on here), and the rows on adopting orphans.
func TestDecide(t *testing.T) {
	withStatus := func(j *api.Job, succeeded, failed int32) *api.Job {
		j.Status.Succeeded, j.Status.Failed = succeeded, failed
		return j
	}
	suspended := func(j *api.Job) *api.Job { j.Spec.Suspend = ptr(true); return j }
	deadline := func(j *api.Job, s int64) *api.Job { j.Spec.ActiveDeadlineSeconds = ptr(s); return j }
	uncounted := func(j *api.Job, succ, fail []api.UID) *api.Job {
		j.Status.UncountedTerminatedPods = &api.UncountedTerminatedPods{Succeeded: succ, Failed: fail}
		return j
	}
	tests := []struct {
		name          string
		job           *api.Job
		pods          []*api.Pod
		wantCreate    int
		wantDelete    int
		wantActive    int32
		wantSucceeded int32
		wantFailed    int32
		wantUncounted int
		wantConds     []string
		wantRemove    int
	}{
		{name: "job start", job: newJob(2, 5, 6), wantCreate: 2, wantActive: 2},
		{name: "WQ job start", job: newJob(2, -1, 6), wantCreate: 2, wantActive: 2},
		{name: "pending pods", job: newJob(2, 5, 6), pods: pods(api.PodPending, 2, true), wantActive: 2},
		{name: "correct # of pods", job: newJob(2, 5, 6), pods: pods(api.PodRunning, 2, true), wantActive: 2},
		{name: "too few active pods", job: withStatus(newJob(2, 5, 6), 1, 0),
			pods: cat(pods(api.PodRunning, 1, true), pods(api.PodSucceeded, 1, false)), wantCreate: 1, wantActive: 2, wantSucceeded: 1},
		{name: "a succeeded pod is uncounted first, its finalizer removed", job: newJob(2, 5, 6),
			pods: cat(pods(api.PodRunning, 1, true), pods(api.PodSucceeded, 1, true)), wantCreate: 1, wantActive: 2, wantUncounted: 1, wantRemove: 1},
		{name: "an uncounted pod without its finalizer is counted", job: uncounted(newJob(2, 5, 6), []api.UID{"Succeeded-0"}, nil),
			pods: cat(pods(api.PodRunning, 2, true), pods(api.PodSucceeded, 1, false)), wantActive: 2, wantSucceeded: 1},
		{name: "too many active pods", job: newJob(2, 5, 6), pods: pods(api.PodRunning, 3, true), wantActive: 3},
		{name: "failed + succeed pods: reached limit", job: withStatus(newJob(2, 5, 0), 1, 1),
			pods: cat(pods(api.PodRunning, 2, true), pods(api.PodFailed, 1, false)), wantDelete: 2, wantSucceeded: 1, wantFailed: 1,
			wantConds: []string{"FailureTarget=True/BackoffLimitExceeded"}},
		{name: "new failed pod past the limit, counted and the job fails", job: uncounted(withStatus(newJob(2, 5, 1), 0, 1), nil, []api.UID{"Failed-0"}),
			pods: pods(api.PodFailed, 1, false), wantFailed: 2,
			wantConds: []string{"FailureTarget=True/BackoffLimitExceeded", "Failed=True/BackoffLimitExceeded"}},
		{name: "only new failed pod: back-off holds creation", job: withStatus(newJob(2, 5, 6), 0, 1),
			pods: cat(pods(api.PodRunning, 1, true), failedAt(now.Add(-5*time.Second))), wantActive: 1, wantFailed: 1},
		{name: "failed pod after its back-off is replaced", job: withStatus(newJob(2, 5, 6), 0, 1),
			pods: cat(pods(api.PodRunning, 1, true), failedAt(now.Add(-11*time.Second))), wantCreate: 1, wantActive: 2, wantFailed: 1},
		{name: "job finish", job: withStatus(newJob(2, 5, 6), 5, 0), pods: pods(api.PodSucceeded, 5, false), wantSucceeded: 5,
			wantConds: []string{"SuccessCriteriaMet=True/CompletionsReached", "Complete=True/CompletionsReached"}},
		{name: "WQ job finishing: the last pod runs on", job: withStatus(newJob(2, -1, 6), 1, 0),
			pods: cat(pods(api.PodRunning, 1, true), pods(api.PodSucceeded, 1, false)), wantActive: 1, wantSucceeded: 1},
		{name: "WQ job all finished", job: withStatus(newJob(2, -1, 6), 2, 0), pods: pods(api.PodSucceeded, 2, false), wantSucceeded: 2,
			wantConds: []string{"SuccessCriteriaMet=True/CompletionsReached", "Complete=True/CompletionsReached"}},
		{name: "more active pods than completions", job: withStatus(newJob(2, 1, 6), 1, 0),
			pods: cat(pods(api.PodRunning, 1, true), pods(api.PodSucceeded, 1, false)), wantDelete: 1, wantSucceeded: 1,
			wantConds: []string{"SuccessCriteriaMet=True/CompletionsReached"}},
		{name: "past the active deadline", job: deadline(newJob(2, 5, 6), 10), pods: pods(api.PodRunning, 2, true), wantDelete: 2,
			wantConds: []string{"FailureTarget=True/DeadlineExceeded"}},
		{name: "suspending a job with active pods", job: suspended(newJob(2, 5, 6)), pods: pods(api.PodRunning, 2, true), wantDelete: 2,
			wantConds: []string{"Suspended=True/JobSuspended"}},
		{name: "a suspended job is not past its deadline", job: deadline(suspended(newJob(2, 5, 6)), 10),
			wantConds: []string{"Suspended=True/JobSuspended"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Decide(tt.job, tt.pods, now)
			assert.Equal(t, tt.wantCreate, d.Create, "create")
			assert.Len(t, d.Delete, tt.wantDelete, "delete")
			assert.Equal(t, tt.wantActive, d.Status.Active, "active")
			assert.Equal(t, tt.wantSucceeded, d.Status.Succeeded, "succeeded")
			assert.Equal(t, tt.wantFailed, d.Status.Failed, "failed")
			u := d.Status.UncountedTerminatedPods
			assert.Equal(t, tt.wantUncounted, len(u.Succeeded)+len(u.Failed), "uncounted")
			assert.Equal(t, tt.wantConds, condTypes(d.Status), "conditions")
			assert.Len(t, d.RemoveFinalizer, tt.wantRemove, "finalizers removed")
		})
	}
}

func failedAt(t time.Time) []*api.Pod {
	p := pods(api.PodFailed, 1, false)
	p[0].Status.ContainerStatuses[0].State.Terminated.FinishedAt = api.Time{Time: t}
	return p
}

func TestBackOff(t *testing.T) {
	// 10s doubling: the 7th failure's 640s is past the 10-minute cap.
	for failures, want := range map[int32]time.Duration{1: 10 * time.Second, 2: 20 * time.Second, 3: 40 * time.Second, 6: 320 * time.Second, 7: MaxBackOff, 30: MaxBackOff} {
		assert.Equal(t, want, backOff(failures), "%d failures", failures)
	}
}

func TestIndexed(t *testing.T) {
	j := newJob(2, 4, 6)
	j.Spec.CompletionMode = ptr(api.IndexedCompletion)
	done := NewPod(j, 0)
	done.Status.Phase = api.PodSucceeded
	running := NewPod(j, 2)
	running.Status.Phase = api.PodRunning
	d := Decide(j, []*api.Pod{done, running}, now)
	assert.Equal(t, []int{1}, d.Indexes, "the lowest index neither done nor running")
	assert.Equal(t, "0", d.Status.CompletedIndexes)
	assert.Equal(t, int32(1), d.Status.Succeeded)

	p := NewPod(j, 3)
	assert.Equal(t, "3", p.Metadata.Annotations[api.JobCompletionIndexAnnotation])
	assert.Equal(t, "3", p.Metadata.Labels[api.JobCompletionIndexAnnotation])
	assert.Equal(t, "foobar-3", p.Spec.Hostname)
	assert.Equal(t, "foobar-3-", p.Metadata.GenerateName)
}

func TestFormatIndexes(t *testing.T) {
	for in, want := range map[string]string{"": "", "0": "0", "0,1": "0-1", "1,3-5,7": "1,3-5,7", "0-2,4": "0-2,4"} {
		assert.Equal(t, want, formatIndexes(parseIndexes(in)), in)
	}
}

func TestFailJobRule(t *testing.T) {
	j := newJob(1, 1, 6)
	j.Spec.PodFailurePolicy = &api.PodFailurePolicy{Rules: []api.PodFailurePolicyRule{
		{Action: api.PodFailurePolicyActionIgnore, OnExitCodes: &api.PodFailurePolicyOnExitCodesRequirement{Operator: "In", Values: []int32{2}}},
		{Action: api.PodFailurePolicyActionFailJob, OnExitCodes: &api.PodFailurePolicyOnExitCodesRequirement{Operator: "In", Values: []int32{1}}},
	}}
	d := Decide(j, pods(api.PodFailed, 1, true), now)
	assert.Equal(t, []string{"FailureTarget=True/PodFailurePolicy"}, condTypes(d.Status))
	assert.Contains(t, d.Status.Conditions[0].Message, "Container main for pod default/Failed-0 failed with exit code 1 matching FailJob rule at index 1")
}
