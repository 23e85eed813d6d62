package sim_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/sim"
)

// cronHour runs an hour of a "*/5 * * * *" CronJob that keeps every Job,
// and returns the Jobs' names and the run's start.
func cronHour(tb testing.TB) ([]string, time.Time) {
	s, err := sim.New(tb.Context(), sim.Config{Seed: 1})
	require.NoError(tb, err)
	start := s.Clock().Now()
	s.At(0, func(ctx context.Context) {
		keep := int32(100)
		cj := &api.CronJob{Metadata: api.ObjectMeta{Namespace: "default", Name: "tick"}}
		cj.Spec.Schedule = "*/5 * * * *"
		cj.Spec.SuccessfulJobsHistoryLimit, cj.Spec.FailedJobsHistoryLimit = &keep, &keep
		cj.Spec.JobTemplate.Spec.Template.Spec = api.PodSpec{RestartPolicy: api.RestartPolicyNever,
			Containers: []api.Container{{Name: "tick", Image: "busybox", Command: []string{"echo", "tick"}}}}
		_, err := s.Client().Create(ctx, cj)
		require.NoError(tb, err)
	})
	require.NoError(tb, s.RunFor(tb.Context(), time.Hour+time.Second))
	jobs, _, err := client.For[*api.Job](s.Server()).List(tb.Context(), "default", client.ListOptions{})
	require.NoError(tb, err)
	var names []string
	for _, j := range jobs {
		names = append(names, j.Metadata.Name)
	}
	return names, start
}

// TestCronJobHour: an hour of a "*/5 * * * *" CronJob, in virtual time,
// creates its 12 Jobs, named after their scheduled minute.
func TestCronJobHour(t *testing.T) {
	names, start := cronHour(t)
	// The first run is at the first five-minute boundary after the start.
	first := start.Truncate(5 * time.Minute).Add(5 * time.Minute)
	var want []string
	for at := first; !at.After(start.Add(time.Hour)); at = at.Add(5 * time.Minute) {
		want = append(want, "tick-"+api.FromInt(int(at.Unix()/60)).String())
	}
	assert.Len(t, want, 12)
	assert.ElementsMatch(t, want, names)
}

// BenchmarkCronJobHour is the wall time of that virtual hour: go test
// ./sim -run '^$' -bench CronJobHour.
func BenchmarkCronJobHour(b *testing.B) {
	for b.Loop() {
		if names, _ := cronHour(b); len(names) != 12 {
			b.Fatalf("%d jobs in an hour, want 12", len(names))
		}
	}
}

// TestCronJobWithJobController runs an hour of the same schedule with the
// defaults: the job controller runs each job's pod to completion, and the
// cron job sees them finish and keeps the three newest successful jobs.
func TestCronJobWithJobController(t *testing.T) {
	s, err := sim.New(t.Context(), sim.Config{Seed: 1})
	require.NoError(t, err)
	start := s.Clock().Now()
	s.At(0, func(ctx context.Context) {
		cj := &api.CronJob{Metadata: api.ObjectMeta{Namespace: "default", Name: "tick"}}
		cj.Spec.Schedule = "*/5 * * * *"
		cj.Spec.JobTemplate.Spec.Template.Spec = api.PodSpec{RestartPolicy: api.RestartPolicyNever,
			Containers: []api.Container{{Name: "tick", Image: "busybox", Command: []string{"echo", "tick"}}}}
		_, err := s.Client().Create(ctx, cj)
		require.NoError(t, err)
	})
	require.NoError(t, s.RunFor(t.Context(), time.Hour+time.Minute))

	jobs, _, err := client.For[*api.Job](s.Server()).List(t.Context(), "default", client.ListOptions{})
	require.NoError(t, err)
	last := start.Truncate(5 * time.Minute).Add(5 * time.Minute)
	for last.Add(5 * time.Minute).Before(start.Add(time.Hour + time.Minute)) {
		last = last.Add(5 * time.Minute)
	}
	var names []string
	for _, j := range jobs {
		names = append(names, j.Metadata.Name)
		assert.True(t, slices.ContainsFunc(j.Status.Conditions, func(c api.JobCondition) bool {
			return c.Type == api.JobComplete && c.Status == api.ConditionTrue
		}), "%s completed", j.Metadata.Name)
	}
	var want []string
	for i := range 3 {
		want = append(want, "tick-"+api.FromInt(int(last.Add(-time.Duration(i)*5*time.Minute).Unix()/60)).String())
	}
	assert.ElementsMatch(t, want, names, "the three newest successful jobs are kept")

	cj, err := client.For[*api.CronJob](s.Server()).Get(t.Context(), "default", "tick")
	require.NoError(t, err)
	assert.Empty(t, cj.Status.Active)
	require.NotNil(t, cj.Status.LastScheduleTime)
	assert.True(t, cj.Status.LastScheduleTime.Equal(last))
	assert.NotNil(t, cj.Status.LastSuccessfulTime)
}
