package cronjob

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/internal/cron"
)

// topOfTheHour is upstream's reference time: 2016-05-19T10:00:00Z.
var topOfTheHour = time.Date(2016, 5, 19, 10, 0, 0, 0, time.UTC)

func at(d time.Duration) *time.Time { t := topOfTheHour.Add(d); return &t }

func apiTime(t time.Time) *api.Time { v := api.NewTime(t); return &v }

func ptr[T any](v T) *T { return &v }

func cronJob(schedule string, created time.Time, last *time.Time) *api.CronJob {
	cj := &api.CronJob{Metadata: api.ObjectMeta{Name: "mycronjob", Namespace: "default", UID: "1a2b3c", CreationTimestamp: api.NewTime(created)}}
	cj.Spec.Schedule = schedule
	if last != nil {
		cj.Status.LastScheduleTime = apiTime(*last)
	}
	return cj
}

func mustSchedule(t *testing.T, cj *api.CronJob) cron.Schedule {
	t.Helper()
	s, _, err := Schedule(cj)
	require.NoError(t, err)
	return s
}

func TestMostRecentScheduleTime(t *testing.T) {
	tests := []struct {
		name            string
		cj              *api.CronJob
		now             time.Time
		includeDeadline bool
		wantEarliest    time.Time
		wantRecent      *time.Time
		wantMissed      Missed
		wantErr         bool
	}{
		{name: "now before the next schedule", cj: cronJob("0 * * * *", topOfTheHour, nil),
			now: *at(30 * time.Second), wantEarliest: topOfTheHour},
		{name: "now just after the next schedule", cj: cronJob("0 * * * *", topOfTheHour, nil),
			now: *at(61 * time.Minute), wantEarliest: topOfTheHour, wantRecent: at(time.Hour)},
		{name: "missed 5 schedules", cj: cronJob("0 * * * *", topOfTheHour.Add(10*time.Second), nil),
			now: *at(5*time.Hour + 10*time.Second), wantEarliest: topOfTheHour.Add(10 * time.Second), wantRecent: at(5 * time.Hour), wantMissed: FewMissed},
		{name: "complex schedule", cj: cronJob("30 6-16/4 * * 1-5", time.Date(2016, 5, 19, 14, 0, 0, 0, time.UTC), nil),
			now: time.Date(2016, 5, 19, 22, 0, 0, 0, time.UTC), wantEarliest: time.Date(2016, 5, 19, 14, 0, 0, 0, time.UTC),
			wantRecent: ptr(time.Date(2016, 5, 19, 14, 30, 0, 0, time.UTC))},
		{name: "another complex schedule", cj: cronJob("30 10,11,12 * * 1-5", time.Date(2016, 5, 19, 10, 0, 0, 0, time.UTC), nil),
			// The missed times are estimated from the first interval (an hour),
			// so the search starts at 20:30 and finds none before now: upstream
			// gives up on 12:30 too.
			now: time.Date(2016, 5, 19, 22, 0, 0, 0, time.UTC), wantEarliest: topOfTheHour, wantMissed: FewMissed},
		{name: "complex schedule over a weekend", cj: cronJob("30 6-16/4 * * 1-5", time.Date(2016, 5, 20, 15, 0, 0, 0, time.UTC), nil),
			now: time.Date(2016, 5, 23, 7, 0, 0, 0, time.UTC), wantEarliest: time.Date(2016, 5, 20, 15, 0, 0, 0, time.UTC),
			wantRecent: ptr(time.Date(2016, 5, 23, 6, 30, 0, 0, time.UTC))},
		{name: "@every schedule", cj: cronJob("@every 1h", topOfTheHour.Add(-3*time.Hour-10*time.Minute), ptr(topOfTheHour.Add(-10*time.Minute))),
			now: *at(2*time.Hour + 5*time.Minute), wantEarliest: topOfTheHour.Add(-10 * time.Minute),
			wantRecent: at(time.Hour + 50*time.Minute), wantMissed: FewMissed},
		{name: "rogue cron job", cj: cronJob("59 23 31 2 *", topOfTheHour, nil),
			now: *at(time.Hour), wantEarliest: topOfTheHour, wantErr: true},
		{name: "earliest is the last schedule time", cj: cronJob("0 * * * *", topOfTheHour.Add(-24*time.Hour), ptr(topOfTheHour)),
			now: *at(30 * time.Minute), wantEarliest: topOfTheHour},
		{name: "within 100 missed", cj: cronJob("*/1 * * * *", topOfTheHour, nil),
			now: *at(100 * time.Minute), wantEarliest: topOfTheHour, wantRecent: at(100 * time.Minute), wantMissed: FewMissed},
		{name: "more than 100 missed", cj: cronJob("*/1 * * * *", topOfTheHour, nil),
			now: *at(101 * time.Minute), wantEarliest: topOfTheHour, wantRecent: at(101 * time.Minute), wantMissed: ManyMissed},
		{name: "the deadline moves the earliest", includeDeadline: true,
			cj: func() *api.CronJob {
				cj := cronJob("*/1 * * * *", topOfTheHour, nil)
				cj.Spec.StartingDeadlineSeconds = ptr(int64(300))
				return cj
			}(),
			now: *at(1000 * time.Minute), wantEarliest: topOfTheHour.Add(995 * time.Minute), wantRecent: at(1000 * time.Minute), wantMissed: FewMissed},
		{name: "the deadline is ignored unless asked",
			cj: func() *api.CronJob {
				cj := cronJob("*/1 * * * *", topOfTheHour, nil)
				cj.Spec.StartingDeadlineSeconds = ptr(int64(300))
				return cj
			}(),
			now: *at(1000 * time.Minute), wantEarliest: topOfTheHour, wantRecent: at(1000 * time.Minute), wantMissed: ManyMissed},
		{name: "in the cron job's zone", cj: func() *api.CronJob {
			cj := cronJob("0 6 * * *", topOfTheHour.Add(-time.Hour), nil)
			cj.Spec.TimeZone = ptr("America/New_York")
			return cj
		}(), now: *at(2 * time.Hour), wantEarliest: topOfTheHour.Add(-time.Hour), wantRecent: at(0)}, // 06:00 EDT
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			earliest, recent, missed, err := MostRecentScheduleTime(tt.cj, tt.now, mustSchedule(t, tt.cj), tt.includeDeadline)
			if tt.wantErr {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.True(t, tt.wantEarliest.Equal(earliest), "earliest: want %v, got %v", tt.wantEarliest, earliest)
			if tt.wantRecent == nil {
				assert.Nil(t, recent)
			} else if assert.NotNil(t, recent) {
				assert.True(t, tt.wantRecent.Equal(*recent), "recent: want %v, got %v", tt.wantRecent, recent)
			}
			assert.Equal(t, tt.wantMissed, missed)
		})
	}
}

func TestNextScheduleTime(t *testing.T) {
	deadline := func(cj *api.CronJob, s int64) *api.CronJob { cj.Spec.StartingDeadlineSeconds = &s; return cj }
	tests := []struct {
		name string
		cj   *api.CronJob
		now  time.Time
		want *time.Time
	}{
		{"not yet", cronJob("0 * * * *", topOfTheHour.Add(-59*time.Minute), nil), *at(-time.Minute), nil},
		{"on time", cronJob("0 * * * *", topOfTheHour.Add(-59*time.Minute), nil), topOfTheHour, at(0)},
		{"just after", cronJob("0 * * * *", topOfTheHour.Add(-59*time.Minute), nil), *at(2 * time.Minute), at(0)},
		{"already scheduled", cronJob("0 * * * *", topOfTheHour.Add(-2*time.Hour), ptr(topOfTheHour)), *at(2 * time.Minute), nil},
		{"two missed: the most recent", cronJob("0 * * * *", topOfTheHour.Add(-2*time.Hour), ptr(topOfTheHour)), *at(2*time.Hour + time.Minute), at(2 * time.Hour)},
		{"within the deadline", deadline(cronJob("0 * * * *", topOfTheHour.Add(-59*time.Minute), nil), 600), *at(5 * time.Minute), at(0)},
		{"past the deadline", deadline(cronJob("0 * * * *", topOfTheHour.Add(-59*time.Minute), nil), 60), *at(5 * time.Minute), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := NextScheduleTime(tt.cj, tt.now, mustSchedule(t, tt.cj))
			require.NoError(t, err)
			if tt.want == nil {
				assert.Nil(t, got)
			} else if assert.NotNil(t, got) {
				assert.True(t, tt.want.Equal(*got), "want %v, got %v", tt.want, got)
			}
		})
	}
}

func TestNextScheduleTimeDuration(t *testing.T) {
	tests := []struct {
		name string
		cj   *api.CronJob
		now  time.Time
		want time.Duration
	}{
		{"complex schedule skipping the weekend", cronJob("30 6-16/4 * * 1-5", time.Date(2016, 5, 20, 14, 0, 0, 0, time.UTC), ptr(time.Date(2016, 5, 20, 14, 30, 0, 0, time.UTC))),
			time.Date(2016, 5, 20, 15, 0, 0, 0, time.UTC), 63*time.Hour + 30*time.Minute + nextScheduleDelta},
		{"just scheduled", cronJob("*/5 * * * *", topOfTheHour, ptr(topOfTheHour.Add(5*time.Minute))), *at(5 * time.Minute), 5*time.Minute + nextScheduleDelta},
		{"nothing scheduled yet", cronJob("*/5 * * * *", topOfTheHour.Add(30*time.Second), nil), *at(time.Minute), 4*time.Minute + nextScheduleDelta},
		{"missed ones: from now", cronJob("*/5 * * * *", topOfTheHour, nil), *at(12 * time.Minute), 3*time.Minute + nextScheduleDelta},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, RequeueAfter(tt.cj, tt.now, mustSchedule(t, tt.cj)))
		})
	}
}

func TestJobFromTemplate(t *testing.T) {
	cj := cronJob("*/5 * * * *", topOfTheHour, nil)
	cj.Spec.TimeZone = ptr("Asia/Tokyo")
	cj.Spec.JobTemplate.Metadata.Labels = map[string]string{"a": "b"}
	cj.Spec.JobTemplate.Metadata.Annotations = map[string]string{"x": "y"}
	cj.Spec.JobTemplate.Spec.Template.Spec.RestartPolicy = "OnFailure"
	scheduled := *at(5 * time.Minute)
	j, err := JobFromTemplate(cj, scheduled)
	require.NoError(t, err)
	assert.Equal(t, "mycronjob-24394205", j.Metadata.Name, "minutes since the epoch")
	assert.Equal(t, "default", j.Metadata.Namespace)
	assert.Equal(t, map[string]string{"a": "b"}, j.Metadata.Labels)
	assert.Equal(t, map[string]string{"x": "y", api.CronJobScheduledTimestampAnnotation: "2016-05-19T19:05:00+09:00"}, j.Metadata.Annotations)
	ref := api.GetControllerOf(&j.Metadata)
	require.NotNil(t, ref)
	assert.Equal(t, api.OwnerReference{APIVersion: "batch/v1", Kind: "CronJob", Name: "mycronjob", UID: "1a2b3c", Controller: ptr(true), BlockOwnerDeletion: ptr(true)}, *ref)
	assert.Equal(t, "OnFailure", string(j.Spec.Template.Spec.RestartPolicy))
	assert.NotContains(t, cj.Spec.JobTemplate.Metadata.Annotations, api.CronJobScheduledTimestampAnnotation, "the template is not changed")

	cj.Spec.TimeZone = ptr("Mars/Olympus")
	_, err = JobFromTemplate(cj, scheduled)
	assert.Error(t, err)
}

func TestJobsToDelete(t *testing.T) {
	job := func(name string, started *time.Time, how string) *api.Job {
		j := &api.Job{Metadata: api.ObjectMeta{Name: name}}
		if started != nil {
			j.Status.StartTime = apiTime(*started)
		}
		if how != "" {
			j.Status.Conditions = []api.JobCondition{{Type: how, Status: api.ConditionTrue}}
		}
		return j
	}
	jobs := []*api.Job{
		job("s3", at(3*time.Hour), api.JobComplete),
		job("s1", at(time.Hour), api.JobComplete),
		job("s2", at(2*time.Hour), api.JobComplete),
		job("s-unstarted", nil, api.JobComplete),
		job("f1", at(time.Hour), api.JobFailed),
		job("f2", at(2*time.Hour), api.JobFailed),
		job("running", at(0), ""),
		{Metadata: api.ObjectMeta{Name: "false-complete"}, Status: api.JobStatus{Conditions: []api.JobCondition{{Type: api.JobComplete, Status: api.ConditionFalse}}}},
	}
	names := func(js []*api.Job) []string {
		var out []string
		for _, j := range js {
			out = append(out, j.Metadata.Name)
		}
		return out
	}
	tests := []struct {
		name             string
		succeeded, faild *int32
		want             []string
	}{
		{"no limits", nil, nil, nil},
		{"the defaults", ptr(int32(3)), ptr(int32(1)), []string{"s1", "f1"}},
		{"keep none", ptr(int32(0)), ptr(int32(0)), []string{"s1", "s2", "s3", "s-unstarted", "f1", "f2"}},
		{"keep more than there are", ptr(int32(10)), ptr(int32(10)), nil},
		{"successful only", ptr(int32(2)), nil, []string{"s1", "s2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cj := cronJob("* * * * *", topOfTheHour, nil)
			cj.Spec.SuccessfulJobsHistoryLimit, cj.Spec.FailedJobsHistoryLimit = tt.succeeded, tt.faild
			assert.Equal(t, tt.want, names(JobsToDelete(cj, append([]*api.Job(nil), jobs...))))
		})
	}
}
