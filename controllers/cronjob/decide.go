package cronjob

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/internal/cron"
)

// nextScheduleDelta pads every requeue, so that a clock a little early
// still finds the schedule time passed. Kubernetes: nextScheduleDelta.
const nextScheduleDelta = 100 * time.Millisecond

// maxMissed is how many missed start times a sync still acts on the most
// recent of without warning TooManyMissedTimes: "more than 80, less than
// lots", as upstream says.
const maxMissed = 100

// Missed says how many start times passed unmet since the last one the
// cron job scheduled. Kubernetes: missedSchedulesType.
type Missed int

// The answers of MostRecentScheduleTime about missed start times.
const (
	NoneMissed Missed = iota // no start time passed, or one
	FewMissed                // some passed unmet
	ManyMissed               // more than 100: the TooManyMissedTimes warning
)

// errTooClose is upstream's answer for a schedule whose next two times
// coincide (a February 31st parses but never fires).
var errTooClose = errors.New("time difference between two schedules is less than 1 second")

// Schedule parses the cron job's schedule in its spec.timeZone (UTC when
// unset). A TZ= or CRON_TZ= prefix in the schedule wins over the zone, as
// upstream's formatSchedule lets it; tz says whether the schedule has one,
// for the UnsupportedSchedule warning. An unloadable zone is not an error
// here: sync checks it first and stops with UnknownTimeZone.
func Schedule(cj *api.CronJob) (sched cron.Schedule, tz bool, err error) {
	var loc *time.Location
	if z := cj.Spec.TimeZone; z != nil && !strings.Contains(cj.Spec.Schedule, "TZ") {
		loc, _ = time.LoadLocation(*z)
	}
	sched, err = cron.Parse(cj.Spec.Schedule, loc)
	return sched, strings.Contains(cj.Spec.Schedule, "TZ"), err
}

// MostRecentScheduleTime returns the earliest time the cron job may still
// schedule from (its last schedule time, else its creation; with
// includeDeadline, no earlier than now less startingDeadlineSeconds), the
// most recent start time after it that is not after now (nil if none),
// and how many start times passed. Kubernetes: mostRecentScheduleTime.
//
// It counts the missed times by the interval between the first two, as
// upstream does, so that a cron job decades behind costs no more than one
// a minute behind.
func MostRecentScheduleTime(cj *api.CronJob, now time.Time, sched cron.Schedule, includeDeadline bool) (time.Time, *time.Time, Missed, error) {
	earliest := cj.Metadata.CreationTimestamp.Time
	if t := cj.Status.LastScheduleTime; t != nil {
		earliest = t.Time
	}
	if d := cj.Spec.StartingDeadlineSeconds; includeDeadline && d != nil {
		if deadline := now.Add(-time.Duration(*d) * time.Second); deadline.After(earliest) {
			earliest = deadline
		}
	}
	t1 := sched.Next(earliest)
	t2 := sched.Next(t1)
	if now.Before(t1) {
		return earliest, nil, NoneMissed, nil
	}
	if now.Before(t2) {
		return earliest, &t1, NoneMissed, nil
	}
	between := int64(t2.Sub(t1).Round(time.Second).Seconds())
	if between < 1 {
		return earliest, nil, NoneMissed, errTooClose
	}
	elapsed := int64(now.Sub(t1).Seconds())
	n := elapsed/between + 1
	// Start one interval early, so that @every and irregular schedules
	// land on the true most recent time.
	var recent time.Time
	from := t1.Add(time.Duration((n-2)*between) * time.Second)
	for t := sched.Next(from); !t.After(now); t = sched.Next(t) {
		recent = t
	}
	missed := FewMissed
	if n > maxMissed {
		missed = ManyMissed
	}
	if recent.IsZero() {
		return earliest, nil, missed, nil
	}
	return earliest, &recent, missed, nil
}

// NextScheduleTime returns the most recent unmet start time at or before
// now, within the starting deadline, or nil. Kubernetes: nextScheduleTime
// (the caller records TooManyMissedTimes when missed is ManyMissed).
func NextScheduleTime(cj *api.CronJob, now time.Time, sched cron.Schedule) (*time.Time, Missed, error) {
	_, recent, missed, err := MostRecentScheduleTime(cj, now, sched, true)
	if recent == nil || recent.After(now) {
		return nil, missed, err
	}
	return recent, missed, err
}

// RequeueAfter returns how long from now the cron job's next start time
// is, padded by 100ms. Kubernetes: nextScheduleTimeDuration.
func RequeueAfter(cj *api.CronJob, now time.Time, sched cron.Schedule) time.Duration {
	earliest, recent, missed, err := MostRecentScheduleTime(cj, now, sched, false)
	switch {
	case err != nil:
		recent = &now
	case recent == nil && missed == NoneMissed:
		recent = &earliest
	case recent == nil:
		recent = &now
	}
	return sched.Next(*recent).Add(nextScheduleDelta).Sub(now)
}

// JobName is the name of the job for a scheduled time: the cron job's
// name and the time in minutes since the epoch, so that one time makes one
// job however often the sync runs. Kubernetes: getJobName.
func JobName(cj *api.CronJob, scheduled time.Time) string {
	return cj.Metadata.Name + "-" + strconv.FormatInt(scheduled.Unix()/60, 10)
}

// JobFromTemplate makes the job for a scheduled time from the cron job's
// template: its labels and annotations, the scheduled-timestamp
// annotation (RFC 3339 in the cron job's zone), the controller reference.
// Kubernetes: getJobFromTemplate2.
func JobFromTemplate(cj *api.CronJob, scheduled time.Time) (*api.Job, error) {
	loc := time.UTC
	if z := cj.Spec.TimeZone; z != nil {
		var err error
		if loc, err = time.LoadLocation(*z); err != nil {
			return nil, err
		}
	}
	tmpl := cj.Spec.JobTemplate.DeepCopy()
	annotations := tmpl.Metadata.Annotations
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[api.CronJobScheduledTimestampAnnotation] = scheduled.In(loc).Format(time.RFC3339)
	yes := true
	return &api.Job{
		TypeMeta: api.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		Metadata: api.ObjectMeta{
			Name:        JobName(cj, scheduled),
			Namespace:   cj.Metadata.Namespace,
			Labels:      tmpl.Metadata.Labels,
			Annotations: annotations,
			OwnerReferences: []api.OwnerReference{{
				APIVersion: controllerAPIVersion, Kind: controllerKind,
				Name: cj.Metadata.Name, UID: cj.Metadata.UID, Controller: &yes, BlockOwnerDeletion: &yes,
			}},
		},
		Spec: tmpl.Spec,
	}, nil
}

// FinishedStatus returns whether the job has finished, and how: Complete
// or Failed. Kubernetes: getFinishedStatus.
func FinishedStatus(j *api.Job) (bool, string) {
	for _, c := range j.Status.Conditions {
		if (c.Type == api.JobComplete || c.Type == api.JobFailed) && c.Status == api.ConditionTrue {
			return true, c.Type
		}
	}
	return false, ""
}

// JobsToDelete returns the finished jobs beyond the cron job's history
// limits, oldest first: the successful ones past successfulJobsHistoryLimit
// and the failed ones past failedJobsHistoryLimit, ordered by start time
// (a job not started is newest) and then name. Kubernetes:
// cleanupFinishedJobs and removeOldestJobs.
func JobsToDelete(cj *api.CronJob, jobs []*api.Job) []*api.Job {
	var succeeded, failed []*api.Job
	for _, j := range jobs {
		switch _, how := FinishedStatus(j); how {
		case api.JobComplete:
			succeeded = append(succeeded, j)
		case api.JobFailed:
			failed = append(failed, j)
		}
	}
	var del []*api.Job
	for _, g := range []struct {
		jobs  []*api.Job
		limit *int32
	}{{succeeded, cj.Spec.SuccessfulJobsHistoryLimit}, {failed, cj.Spec.FailedJobsHistoryLimit}} {
		if g.limit == nil || len(g.jobs) <= int(*g.limit) {
			continue
		}
		slices.SortStableFunc(g.jobs, byStartTime)
		del = append(del, g.jobs[:len(g.jobs)-int(*g.limit)]...)
	}
	return del
}

// byStartTime orders jobs by start time, unstarted last, then by name.
// Kubernetes: byJobStartTime.
func byStartTime(a, b *api.Job) int {
	as, bs := a.Status.StartTime, b.Status.StartTime
	switch {
	case as == nil && bs == nil:
		return strings.Compare(a.Metadata.Name, b.Metadata.Name)
	case as == nil:
		return 1
	case bs == nil:
		return -1
	case as.Equal(bs.Time):
		return strings.Compare(a.Metadata.Name, b.Metadata.Name)
	}
	return as.Compare(bs.Time)
}

// missMessage is the MissSchedule event's message.
func missMessage(t time.Time) string {
	return fmt.Sprintf("Missed scheduled time to start a job: %s", t.UTC().Format(time.RFC1123Z))
}
