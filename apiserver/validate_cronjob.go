package apiserver

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/internal/cron"
)

// defaultCronJob fills a cron job's spec as SetDefaults_CronJob does
// (concurrencyPolicy Allow, not suspended, 3 successful and 1 failed jobs
// kept) and its job template's pod spec as a pod's. The job template gets
// no job defaults: each job gets them when the controller creates it.
func defaultCronJob(cj *api.CronJob) {
	s := &cj.Spec
	if s.ConcurrencyPolicy == "" {
		s.ConcurrencyPolicy = api.AllowConcurrent
	}
	if s.Suspend == nil {
		s.Suspend = ptr(false)
	}
	if s.SuccessfulJobsHistoryLimit == nil {
		s.SuccessfulJobsHistoryLimit = ptr(int32(3))
	}
	if s.FailedJobsHistoryLimit == nil {
		s.FailedJobsHistoryLimit = ptr(int32(1))
	}
	defaultPodSpec(&s.JobTemplate.Spec.Template.Spec)
}

// cronJobNameMax is 63 less the 11 characters of the "-<minutes>" suffix
// the controller gives each job. Kubernetes: ValidateCronJobCreate.
const cronJobNameMax = 52

func validateCronJob(cj *api.CronJob) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &cj.Metadata, batchMeta, metadataPath)
	if len(cj.Metadata.Name) > cronJobNameMax {
		errs = append(errs, Invalid(metadataPath.child("name").path(), cj.Metadata.Name, fmt.Sprintf("must be no more than %d characters", cronJobNameMax)))
	}
	return validateCronJobSpec(errs, &cj.Spec, nil, pathAt("spec"))
}

func validateCronJobUpdate(cj, old *api.CronJob) apierrors.FieldErrors {
	errs := validateObjectMeta(nil, &cj.Metadata, batchMeta, metadataPath)
	errs = validateObjectMetaUpdate(errs, &cj.Metadata, &old.Metadata, metadataPath)
	return validateCronJobSpec(errs, &cj.Spec, &old.Spec, pathAt("spec"))
}

// validateCronJobSpec checks a cron job's spec; old is the stored one on
// an update. Kubernetes: validateCronJobSpec.
func validateCronJobSpec(errs apierrors.FieldErrors, s, old *api.CronJobSpec, p fieldPath) apierrors.FieldErrors {
	sp := p.child("schedule").path()
	if s.Schedule == "" {
		errs = append(errs, Required(sp, ""))
	} else {
		if _, err := cron.Parse(s.Schedule, nil); err != nil {
			errs = append(errs, Invalid(sp, s.Schedule, err.Error()))
		}
		// A schedule stored with a zone before v1.27 may keep it.
		allowTZ := old != nil && strings.Contains(old.Schedule, "TZ")
		switch {
		case allowTZ && strings.Contains(s.Schedule, "TZ") && s.TimeZone != nil:
			errs = append(errs, Invalid(sp, s.Schedule, "cannot use both timeZone field and TZ or CRON_TZ in schedule"))
		case !allowTZ && strings.Contains(s.Schedule, "TZ"):
			errs = append(errs, Invalid(sp, s.Schedule, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"))
		}
	}
	if d := s.StartingDeadlineSeconds; d != nil {
		errs = validateNonNegative(errs, *d, p.child("startingDeadlineSeconds"))
	}
	if old == nil || !equalPtr(old.TimeZone, s.TimeZone) {
		errs = validateTimeZone(errs, s.TimeZone, p.child("timeZone"))
	}
	cp := p.child("concurrencyPolicy").path()
	switch s.ConcurrencyPolicy {
	case api.AllowConcurrent, api.ForbidConcurrent, api.ReplaceConcurrent:
	case "":
		errs = append(errs, Required(cp, ""))
	default:
		errs = append(errs, NotSupported(cp, s.ConcurrencyPolicy, api.AllowConcurrent, api.ForbidConcurrent, api.ReplaceConcurrent))
	}
	errs = validateJobTemplateSpec(errs, &s.JobTemplate, p.child("jobTemplate"))
	if l := s.SuccessfulJobsHistoryLimit; l != nil {
		errs = validateNonNegative(errs, int64(*l), p.child("successfulJobsHistoryLimit"))
	}
	if l := s.FailedJobsHistoryLimit; l != nil {
		errs = validateNonNegative(errs, int64(*l), p.child("failedJobsHistoryLimit"))
	}
	return errs
}

// validateJobTemplateSpec checks a job template as a job's spec, but for
// the selector, which each job made from it has generated: the template
// may not set one. Kubernetes: ValidateJobTemplateSpec.
func validateJobTemplateSpec(errs apierrors.FieldErrors, t *api.JobTemplateSpec, p fieldPath) apierrors.FieldErrors {
	sp := p.child("spec")
	spec := t.Spec
	// validateJobSpec also checks a job's selector (required, matching the
	// template); the empty selector passes both, as no selector does in
	// upstream's validateJobSpec.
	spec.Selector = &api.LabelSelector{}
	errs = validateJobSpec(errs, &spec, sp)
	if t.Spec.Selector != nil {
		errs = append(errs, Invalid(sp.child("selector").path(), t.Spec.Selector, "`selector` will be auto-generated"))
	}
	if m := t.Spec.ManualSelector; m != nil && *m {
		errs = append(errs, NotSupported(sp.child("manualSelector").path(), m, "nil", "false"))
	}
	return errs
}

// validTimeZonePart is what one slash-separated part of a zone name may
// be; it keeps paths out of time.LoadLocation. Kubernetes:
// validTimeZoneCharacters.
var validTimeZonePart = regexp.MustCompile(`^[A-Za-z\.\-_0-9+]{1,14}$`)

// validateTimeZone checks spec.timeZone names a zone in the IANA
// database. Kubernetes: validateTimeZone.
func validateTimeZone(errs apierrors.FieldErrors, tz *string, p fieldPath) apierrors.FieldErrors {
	if tz == nil {
		return errs
	}
	fp := p.path()
	if *tz == "" {
		return append(errs, Invalid(fp, *tz, "timeZone must be nil or non-empty string"))
	}
	for _, part := range strings.Split(*tz, "/") {
		if part == "." || part == ".." || strings.HasPrefix(part, "-") || !validTimeZonePart.MatchString(part) {
			return append(errs, Invalid(fp, *tz, "unknown time zone "+*tz))
		}
	}
	if strings.EqualFold(*tz, "Local") {
		errs = append(errs, Invalid(fp, *tz, "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"))
	}
	if _, err := time.LoadLocation(*tz); err != nil {
		errs = append(errs, Invalid(fp, *tz, err.Error()))
	}
	return errs
}

func equalPtr[T comparable](a, b *T) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}
