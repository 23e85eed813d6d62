package cronjob

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap/zaptest"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/client/record"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/informer"
	"github.com/miniplane/miniplane/internal/testenv"
)

// t0 is on a five-minute boundary, so that "*/5 * * * *" first fires at
// t0+5m.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// harness runs the controller against the real API server on a fake
// clock, stepping the informers and the controller by hand. No job
// controller runs: the tests finish jobs by writing their status.
type harness struct {
	t    *testing.T
	ctx  context.Context
	clk  *clock.Fake
	srv  *apiserver.Server
	c    *Controller
	cjs  client.Typed[*api.CronJob]
	jobs client.Typed[*api.Job]
}

func newHarness(t *testing.T) *harness {
	clk := clock.NewFake(t0)
	srv, err := apiserver.New(apiserver.Config{Clock: clk, Rand: rand.New(rand.NewPCG(1, 2))})
	require.NoError(t, err)
	log := zaptest.NewLogger(t)
	c, err := New(Config{
		Client: srv, Factory: informer.NewFactory(srv, "", clk, log), Clock: clk, Logger: log,
		Recorder: record.NewEventRecorder(srv, clk, "cronjob-controller", "test"),
	})
	require.NoError(t, err)
	h := &harness{t: t, ctx: t.Context(), clk: clk, srv: srv, c: c,
		cjs: client.For[*api.CronJob](srv), jobs: client.For[*api.Job](srv)}
	h.settle()
	require.True(t, c.HasSynced())
	return h
}

func (h *harness) syncInformers() bool {
	return testenv.SyncInformers(h.ctx, h.c.informers...)
}

// settle runs informers and controller until nothing is left to do now.
func (h *harness) settle() {
	for h.syncInformers() || h.c.ProcessOne(h.ctx) {
	}
}

// advance moves the clock to t0+d, settling at every timer on the way.
func (h *harness) advance(d time.Duration) {
	for {
		h.settle()
		next, ok := h.clk.NextDeadline()
		if !ok || next.After(t0.Add(d)) {
			break
		}
		h.clk.SetTime(later(next, h.clk.Now()))
	}
	h.clk.SetTime(t0.Add(d))
	h.settle()
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func (h *harness) createCronJob(mutate ...func(*api.CronJob)) {
	h.t.Helper()
	cj := &api.CronJob{Metadata: api.ObjectMeta{Namespace: "default", Name: "hello"}}
	cj.Spec.Schedule = "*/5 * * * *"
	cj.Spec.JobTemplate.Spec.Template.Spec = api.PodSpec{RestartPolicy: api.RestartPolicyOnFailure,
		Containers: []api.Container{{Name: "hello", Image: "busybox", Command: []string{"echo", "hello"}}}}
	for _, m := range mutate {
		m(cj)
	}
	_, err := h.cjs.Create(h.ctx, cj)
	require.NoError(h.t, err)
	h.settle()
}

func (h *harness) cronJob() *api.CronJob {
	h.t.Helper()
	cj, err := h.cjs.Get(h.ctx, "default", "hello")
	require.NoError(h.t, err)
	return cj
}

func (h *harness) update(mutate func(*api.CronJob)) {
	h.t.Helper()
	cj := h.cronJob().DeepCopy()
	mutate(cj)
	_, err := h.cjs.Update(h.ctx, cj)
	require.NoError(h.t, err)
	h.settle()
}

// jobNames returns the jobs' names, sorted.
func (h *harness) jobNames() []string {
	h.t.Helper()
	all, _, err := h.jobs.List(h.ctx, "default", client.ListOptions{})
	require.NoError(h.t, err)
	var names []string
	for _, j := range all {
		names = append(names, j.Metadata.Name)
	}
	slices.Sort(names)
	return names
}

func (h *harness) activeNames() []string {
	var names []string
	for _, r := range h.cronJob().Status.Active {
		names = append(names, r.Name)
	}
	return names
}

// finish marks a job Complete or Failed, as the job controller would.
func (h *harness) finish(name, how string) {
	h.t.Helper()
	j, err := h.jobs.Get(h.ctx, "default", name)
	require.NoError(h.t, err)
	j = j.DeepCopy()
	now := api.NewTime(h.clk.Now())
	j.Status.StartTime = &now
	j.Status.Conditions = append(j.Status.Conditions, api.JobCondition{Type: how, Status: api.ConditionTrue})
	if how == api.JobComplete {
		j.Status.CompletionTime = &now
	}
	_, err = h.jobs.UpdateStatus(h.ctx, j)
	require.NoError(h.t, err)
	h.settle()
}

// reasons returns the reasons of the events about the cron job, in order.
func (h *harness) reasons() []string {
	h.t.Helper()
	evs, _, err := client.For[*api.Event](h.srv).List(h.ctx, "default", client.ListOptions{})
	require.NoError(h.t, err)
	slices.SortStableFunc(evs, func(a, b *api.Event) int { return a.FirstTimestamp.Compare(b.FirstTimestamp.Time) })
	var out []string
	for _, e := range evs {
		out = append(out, e.Reason)
	}
	return out
}

// name is the job name for t0+d.
func name(d time.Duration) string { return "hello-" + itoa(t0.Add(d).Unix()/60) }

func itoa(n int64) string { return api.FromInt(int(n)).String() }

// TestSyncCronJob ports TestControllerV2SyncCronJob's scenarios: each
// concurrency policy with a job still running at the next time, a
// suspended cron job, a start past its deadline, and the history limits.
func TestSyncCronJob(t *testing.T) {
	t.Run("first run at the next schedule time", func(t *testing.T) {
		h := newHarness(t)
		h.createCronJob()
		h.advance(4*time.Minute + 59*time.Second)
		assert.Empty(t, h.jobNames(), "not yet")
		h.advance(5*time.Minute + time.Second)
		assert.Equal(t, []string{name(5 * time.Minute)}, h.jobNames())
		cj := h.cronJob()
		assert.Equal(t, []string{name(5 * time.Minute)}, h.activeNames())
		require.NotNil(t, cj.Status.LastScheduleTime)
		assert.True(t, cj.Status.LastScheduleTime.Equal(t0.Add(5*time.Minute)))
		j, err := h.jobs.Get(h.ctx, "default", name(5*time.Minute))
		require.NoError(t, err)
		assert.Equal(t, "2026-01-01T00:05:00Z", j.Metadata.Annotations[api.CronJobScheduledTimestampAnnotation])
		ref := api.GetControllerOf(&j.Metadata)
		require.NotNil(t, ref)
		assert.Equal(t, cj.Metadata.UID, ref.UID)
		assert.Equal(t, []string{"SuccessfulCreate"}, h.reasons())
	})
	for _, tt := range []struct {
		policy     string
		wantJobs   []string
		wantActive []string
		wantEvents []string
	}{
		{api.AllowConcurrent, []string{name(5 * time.Minute), name(10 * time.Minute)}, []string{name(5 * time.Minute), name(10 * time.Minute)},
			[]string{"SuccessfulCreate", "SuccessfulCreate"}},
		{api.ForbidConcurrent, []string{name(5 * time.Minute)}, []string{name(5 * time.Minute)},
			[]string{"SuccessfulCreate", "JobAlreadyActive"}},
		{api.ReplaceConcurrent, []string{name(10 * time.Minute)}, []string{name(10 * time.Minute)},
			[]string{"SuccessfulCreate", "SuccessfulDelete", "SuccessfulCreate"}},
	} {
		t.Run(tt.policy+" with a job still running", func(t *testing.T) {
			h := newHarness(t)
			h.createCronJob(func(cj *api.CronJob) { cj.Spec.ConcurrencyPolicy = tt.policy })
			h.advance(10*time.Minute + time.Second)
			assert.Equal(t, tt.wantJobs, h.jobNames())
			assert.Equal(t, tt.wantActive, h.activeNames())
			assert.Equal(t, tt.wantEvents, h.reasons())
		})
	}
	t.Run("Forbid runs again once the job finished", func(t *testing.T) {
		h := newHarness(t)
		h.createCronJob(func(cj *api.CronJob) { cj.Spec.ConcurrencyPolicy = api.ForbidConcurrent })
		h.advance(6 * time.Minute)
		h.finish(name(5*time.Minute), api.JobComplete)
		assert.Empty(t, h.activeNames())
		h.advance(10*time.Minute + time.Second)
		assert.Equal(t, []string{name(10 * time.Minute)}, h.activeNames())
		cj := h.cronJob()
		require.NotNil(t, cj.Status.LastSuccessfulTime)
		assert.True(t, cj.Status.LastSuccessfulTime.Equal(t0.Add(6*time.Minute)))
		assert.Equal(t, []string{"SuccessfulCreate", "SawCompletedJob", "SuccessfulCreate"}, h.reasons())
	})
	t.Run("suspended", func(t *testing.T) {
		h := newHarness(t)
		h.createCronJob(func(cj *api.CronJob) { cj.Spec.Suspend = ptr(true) })
		h.advance(time.Hour)
		assert.Empty(t, h.jobNames())
		// Resumed, it runs the most recent time it missed, at once.
		h.update(func(cj *api.CronJob) { cj.Spec.Suspend = ptr(false) })
		assert.Equal(t, []string{name(time.Hour)}, h.jobNames())
	})
	t.Run("past the starting deadline", func(t *testing.T) {
		h := newHarness(t)
		h.createCronJob(func(cj *api.CronJob) {
			cj.Spec.StartingDeadlineSeconds = ptr(int64(10))
			cj.Spec.Suspend = ptr(true)
		})
		h.advance(5*time.Minute + 30*time.Second)
		h.update(func(cj *api.CronJob) { cj.Spec.Suspend = ptr(false) })
		assert.Empty(t, h.jobNames(), "00:05 is 30s past, the deadline 10s")
		h.advance(10*time.Minute + time.Second)
		assert.Equal(t, []string{name(10 * time.Minute)}, h.jobNames())
	})
	t.Run("too many missed", func(t *testing.T) {
		h := newHarness(t)
		h.createCronJob(func(cj *api.CronJob) {
			cj.Spec.Schedule = "* * * * *"
			cj.Spec.Suspend = ptr(true)
		})
		h.advance(3 * time.Hour)
		h.update(func(cj *api.CronJob) { cj.Spec.Suspend = ptr(false) })
		assert.Equal(t, []string{name(3 * time.Hour)}, h.jobNames())
		assert.Equal(t, []string{"TooManyMissedTimes", "SuccessfulCreate"}, h.reasons())
	})
	t.Run("history limits", func(t *testing.T) {
		h := newHarness(t)
		h.createCronJob(func(cj *api.CronJob) {
			cj.Spec.SuccessfulJobsHistoryLimit = ptr(int32(1))
			cj.Spec.FailedJobsHistoryLimit = ptr(int32(0))
		})
		h.advance(5*time.Minute + time.Second)
		h.finish(name(5*time.Minute), api.JobComplete)
		h.advance(10*time.Minute + time.Second)
		h.finish(name(10*time.Minute), api.JobComplete)
		h.advance(15*time.Minute + time.Second)
		h.finish(name(15*time.Minute), api.JobFailed)
		assert.Equal(t, []string{name(10 * time.Minute)}, h.jobNames(), "the newest success is kept, no failure")
		assert.Empty(t, h.activeNames())
	})
	t.Run("an active job deleted by hand", func(t *testing.T) {
		h := newHarness(t)
		h.createCronJob()
		h.advance(5*time.Minute + time.Second)
		_, err := h.srv.Delete(h.ctx, client.Jobs, "default", name(5*time.Minute), api.DeleteOptions{})
		require.NoError(t, err)
		h.settle()
		assert.Empty(t, h.activeNames())
	})
	t.Run("a schedule change moves the next run", func(t *testing.T) {
		h := newHarness(t)
		h.createCronJob()
		h.update(func(cj *api.CronJob) { cj.Spec.Schedule = "0 * * * *" })
		h.advance(59 * time.Minute)
		assert.Empty(t, h.jobNames())
		h.advance(time.Hour + time.Second)
		assert.Equal(t, []string{name(time.Hour)}, h.jobNames())
	})
}
