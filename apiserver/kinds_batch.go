package apiserver

import (
	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
)

// batchKinds returns the batch/v1 kinds: Jobs, run by controllers/job, and
// CronJobs, run by controllers/cronjob. Jobs' columns need the time
// (DURATION), so kubectl's printer for them is the HTTP front's
// (apiserver/httpapi/table.go); a cron job's LAST SCHEDULE is a time
// column, which the declared printer shows as an age.
func batchKinds() []*kind {
	return []*kind{
		typed(&kind{
			gr: apierrors.GroupResource{Group: "batch", Resource: "jobs"}, kind: "Job", apiVersion: "batch/v1", namespaced: true,
			categories: []string{"all"}, uidBeforeDefaults: true,
			newObj: func() api.Object { return &api.Job{} }, resetStatusOnCreate: true,
			// The Job and CronJob status strategies reset only the spec: a
			// status patch's annotations are stored with it (conformance:
			// "should support CronJob API operations").
			status: statusOf(func(o *api.Job) *api.JobStatus { return &o.Status }), statusTakesAnnotations: true,
		}, defaultJob, validateJob, validateJobUpdate),
		typed(&kind{
			gr: apierrors.GroupResource{Group: "batch", Resource: "cronjobs"}, kind: "CronJob", apiVersion: "batch/v1", namespaced: true,
			shortNames: []string{"cj"}, categories: []string{"all"},
			newObj: func() api.Object { return &api.CronJob{} }, resetStatusOnCreate: true,
			status: statusOf(func(o *api.CronJob) *api.CronJobStatus { return &o.Status }), statusTakesAnnotations: true,
			columns: cronJobColumns,
		}, defaultCronJob, validateCronJob, validateCronJobUpdate),
	}
}

// cronJobColumns are kubectl's columns of a cron job. Kubernetes:
// printCronJob.
var cronJobColumns = []Column{nameColumn,
	{Name: "Schedule", Type: "string", Description: "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.",
		Cell: func(o api.Object) any { return o.(*api.CronJob).Spec.Schedule }},
	{Name: "Timezone", Type: "string", Description: "The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. If not specified, this will default to the time zone of the kube-controller-manager process.",
		Cell: func(o api.Object) any {
			if z := o.(*api.CronJob).Spec.TimeZone; z != nil {
				return *z
			}
			return "<none>"
		}},
	{Name: "Suspend", Type: "boolean", Description: "This flag tells the controller to suspend subsequent executions, it does not apply to already started executions.  Defaults to false.",
		Cell: func(o api.Object) any {
			switch s := o.(*api.CronJob).Spec.Suspend; {
			case s == nil:
				return "<unset>"
			case *s:
				return "True"
			}
			return "False"
		}},
	{Name: "Active", Type: "integer", Description: "A list of pointers to currently running jobs.",
		Cell: func(o api.Object) any { return int64(len(o.(*api.CronJob).Status.Active)) }},
	{Name: "Last Schedule", Type: "string", Description: "Information when was the last time the job was successfully scheduled.",
		Cell: func(o api.Object) any {
			if t := o.(*api.CronJob).Status.LastScheduleTime; t != nil {
				return *t // printed as its age
			}
			return "<none>"
		}},
	ageColumn,
	containersColumn(func(o api.Object) *api.PodTemplateSpec { return &o.(*api.CronJob).Spec.JobTemplate.Spec.Template }),
	imagesColumn(func(o api.Object) *api.PodTemplateSpec { return &o.(*api.CronJob).Spec.JobTemplate.Spec.Template }),
	{Name: "Selector", Type: "string", Priority: 1, Description: "A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors",
		Cell: func(o api.Object) any {
			return api.FormatLabelSelector(o.(*api.CronJob).Spec.JobTemplate.Spec.Selector)
		}},
}
