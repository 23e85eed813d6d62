package apiserver

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
)

func validCronJob() *api.CronJob {
	cj := &api.CronJob{Metadata: api.ObjectMeta{Name: "hello", Namespace: "default"}}
	cj.Spec.Schedule = "*/1 * * * *"
	cj.Spec.JobTemplate.Spec.Template.Spec = api.PodSpec{RestartPolicy: api.RestartPolicyOnFailure,
		Containers: []api.Container{{Name: "hello", Image: "busybox", Command: []string{"echo", "hello"}}}}
	return cj
}

func TestDefaultCronJob(t *testing.T) {
	cj := validCronJob()
	defaultCronJob(cj)
	s := cj.Spec
	assert.Equal(t, api.AllowConcurrent, s.ConcurrencyPolicy)
	assert.Equal(t, ptr(false), s.Suspend)
	assert.Equal(t, ptr(int32(3)), s.SuccessfulJobsHistoryLimit)
	assert.Equal(t, ptr(int32(1)), s.FailedJobsHistoryLimit)
	assert.Nil(t, s.JobTemplate.Spec.Selector, "a job's selector is generated per job")
	assert.Nil(t, s.JobTemplate.Spec.BackoffLimit, "no job defaults in the template")
	assert.Equal(t, api.DNSClusterFirst, s.JobTemplate.Spec.Template.Spec.DNSPolicy, "the pod spec's defaults")
}

func TestValidateCronJob(t *testing.T) {
	runKindCases(t, validCronJob, defaultCronJob, validateCronJob, []kindCase[*api.CronJob]{
		{name: "valid", change: func(*api.CronJob) {}},
		{name: "macro", change: func(cj *api.CronJob) { cj.Spec.Schedule = "@hourly" }},
		{name: "every", change: func(cj *api.CronJob) { cj.Spec.Schedule = "@every 5m" }},
		{name: "names and steps", change: func(cj *api.CronJob) { cj.Spec.Schedule = "1-10/2 */3 ? JAN-mar MON,fri" }},
		{name: "a zone", change: func(cj *api.CronJob) { cj.Spec.TimeZone = ptr("Europe/Paris") }},
		{name: "no schedule", change: func(cj *api.CronJob) { cj.Spec.Schedule = "" },
			want: "spec.schedule: Required value", causes: []cause{{required, "spec.schedule"}}},
		{name: "minute out of range", change: func(cj *api.CronJob) { cj.Spec.Schedule = "61 * * * *" },
			want:   `spec.schedule: Invalid value: "61 * * * *": end of range (61) above maximum (59): 61`,
			causes: []cause{{invalid, "spec.schedule"}}},
		{name: "six fields", change: func(cj *api.CronJob) { cj.Spec.Schedule = "0 * * * * *" },
			want:   `spec.schedule: Invalid value: "0 * * * * *": expected exactly 5 fields, found 6: [0 * * * * *]`,
			causes: []cause{{invalid, "spec.schedule"}}},
		{name: "unknown macro", change: func(cj *api.CronJob) { cj.Spec.Schedule = "@reboot" },
			want:   `spec.schedule: Invalid value: "@reboot": unrecognized descriptor: @reboot`,
			causes: []cause{{invalid, "spec.schedule"}}},
		{name: "TZ in the schedule", change: func(cj *api.CronJob) { cj.Spec.Schedule = "TZ=UTC 0 * * * *" },
			want:   `spec.schedule: Invalid value: "TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead`,
			causes: []cause{{invalid, "spec.schedule"}}},
		{name: "unknown zone", change: func(cj *api.CronJob) { cj.Spec.TimeZone = ptr("Mars/Olympus") },
			want:   `spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus`,
			causes: []cause{{invalid, "spec.timeZone"}}},
		{name: "a path for a zone", change: func(cj *api.CronJob) { cj.Spec.TimeZone = ptr("../etc/passwd") },
			want:   `spec.timeZone: Invalid value: "../etc/passwd": unknown time zone ../etc/passwd`,
			causes: []cause{{invalid, "spec.timeZone"}}},
		{name: "empty zone", change: func(cj *api.CronJob) { cj.Spec.TimeZone = ptr("") },
			want:   `spec.timeZone: Invalid value: "": timeZone must be nil or non-empty string`,
			causes: []cause{{invalid, "spec.timeZone"}}},
		{name: "Local", change: func(cj *api.CronJob) { cj.Spec.TimeZone = ptr("Local") },
			want:   `spec.timeZone: Invalid value: "Local": timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones`,
			causes: []cause{{invalid, "spec.timeZone"}}},
		{name: "bad policy", change: func(cj *api.CronJob) { cj.Spec.ConcurrencyPolicy = "Sometimes" },
			want:   `spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"`,
			causes: []cause{{notSupported, "spec.concurrencyPolicy"}}},
		{name: "negative deadline and limits", change: func(cj *api.CronJob) {
			cj.Spec.StartingDeadlineSeconds = ptr(int64(-1))
			cj.Spec.SuccessfulJobsHistoryLimit = ptr(int32(-1))
			cj.Spec.FailedJobsHistoryLimit = ptr(int32(-2))
		},
			want:   `[spec.startingDeadlineSeconds: Invalid value: -1: must be greater than or equal to 0, spec.successfulJobsHistoryLimit: Invalid value: -1: must be greater than or equal to 0, spec.failedJobsHistoryLimit: Invalid value: -2: must be greater than or equal to 0]`,
			causes: []cause{{invalid, "spec.startingDeadlineSeconds"}, {invalid, "spec.successfulJobsHistoryLimit"}, {invalid, "spec.failedJobsHistoryLimit"}}},
		{name: "restartPolicy Always", change: func(cj *api.CronJob) { cj.Spec.JobTemplate.Spec.Template.Spec.RestartPolicy = api.RestartPolicyAlways },
			want:   `spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"`,
			causes: []cause{{required, "spec.jobTemplate.spec.template.spec.restartPolicy"}}},
		{name: "a selector", change: func(cj *api.CronJob) {
			cj.Spec.JobTemplate.Spec.Selector = &api.LabelSelector{MatchLabels: map[string]string{"a": "b"}}
		},
			// Kubernetes prints a struct's Go value too (%#v), of its own types.
			want:   "spec.jobTemplate.spec.selector: Invalid value: api.LabelSelector{MatchLabels:map[string]string{\"a\":\"b\"}, MatchExpressions:[]api.LabelSelectorRequirement(nil)}: `selector` will be auto-generated",
			causes: []cause{{invalid, "spec.jobTemplate.spec.selector"}}},
		{name: "no containers", change: func(cj *api.CronJob) { cj.Spec.JobTemplate.Spec.Template.Spec.Containers = nil },
			want: "spec.jobTemplate.spec.template.spec.containers: Required value", causes: []cause{{required, "spec.jobTemplate.spec.template.spec.containers"}}},
		{name: "name too long", change: func(cj *api.CronJob) { cj.Metadata.Name = strings.Repeat("a", 53) },
			want:   `metadata.name: Invalid value: "` + strings.Repeat("a", 53) + `": must be no more than 52 characters`,
			causes: []cause{{invalid, "metadata.name"}}},
	})
}

func TestValidateCronJobUpdate(t *testing.T) {
	old := validCronJob()
	old.Spec.Schedule = "TZ=UTC 0 * * * *"
	defaultCronJob(old)
	cj := old.DeepCopy()
	cj.Spec.Schedule = "TZ=UTC 5 * * * *"
	assert.Nil(t, validateCronJobUpdate(cj, old), "a schedule stored with TZ may keep it")
	cj.Spec.TimeZone = ptr("UTC")
	assertErrors(t, validateCronJobUpdate(cj, old), `spec.schedule: Invalid value: "TZ=UTC 5 * * * *": cannot use both timeZone field and TZ or CRON_TZ in schedule`,
		[]cause{{invalid, "spec.schedule"}})
}
