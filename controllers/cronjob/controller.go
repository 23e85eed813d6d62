package cronjob

import (
	"context"
	"fmt"
	"slices"
	"time"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/client/record"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/loop"
	"github.com/miniplane/miniplane/controllers/workqueue"
	"github.com/miniplane/miniplane/informer"
)

// The kind a job's controller reference names when a cron job owns it.
// Kubernetes: controllerKind.
const (
	controllerKind       = "CronJob"
	controllerAPIVersion = "batch/v1"
)

// Client is what the controller writes through, and the uncached reads it
// makes of a job its cache does not have. client.Client and
// *apiserver.Server satisfy it.
type Client interface {
	Create(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error)
	Get(ctx context.Context, resource, namespace, name string, opts client.GetOptions) (api.Object, error)
	UpdateStatus(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error)
	Delete(ctx context.Context, resource, namespace, name string, opts api.DeleteOptions) (api.Object, error)
}

// Config configures a Controller. Client, Factory and Clock are required.
type Config struct {
	// Client carries every write and the uncached reads.
	Client Client
	// Factory gives the shared cron job and job informers.
	Factory *informer.Factory
	// Clock is what "now" is for the schedules, and the queue's.
	Clock clock.Clock
	// Logger is named "cronjob" by New; nil means no logs.
	Logger *zap.Logger
	// Recorder, if set, receives the events about the cron jobs.
	Recorder *record.EventRecorder
	// RateLimiter is the queue's; nil means the default controller limiter.
	RateLimiter workqueue.RateLimiter[string]
	// Observer, if set, is told of every sync (loop.Observer).
	Observer loop.Observer
}

// Controller is the cronjob controller. See the package documentation.
type Controller struct {
	client   Client
	clock    clock.Clock
	log      *zap.Logger
	recorder *record.EventRecorder

	cronJobs informer.Lister[*api.CronJob]
	jobs     informer.Lister[*api.Job]

	informers []*informer.Informer
	regs      []*informer.Registration

	// queue holds the keys ("namespace/name") of cron jobs to sync, some
	// waiting for their next schedule time.
	queue *workqueue.Queue[string]

	*loop.Loop // HasSynced, ProcessOne and Run: a manager.Controller
}

// New returns a controller whose handlers are registered on cfg.Factory's
// cron job and job informers. It starts nothing.
func New(cfg Config) (*Controller, error) {
	if err := loop.CheckRequired("cronjob", cfg.Client, cfg.Factory, cfg.Clock); err != nil {
		return nil, err
	}
	log := loop.Logger(cfg.Logger)
	c := &Controller{
		client: cfg.Client, clock: cfg.Clock, log: log.Named("cronjob"), recorder: cfg.Recorder,
		queue: loop.NewQueue("cronjob", cfg.Clock, cfg.RateLimiter),
	}
	cjInf := cfg.Factory.ForResource(client.CronJobs)
	jobInf := cfg.Factory.ForResource(client.Jobs)
	c.informers = []*informer.Informer{cjInf, jobInf}
	c.cronJobs = informer.NewLister[*api.CronJob](cjInf, apierrors.GroupResource{Group: "batch", Resource: client.CronJobs})
	c.jobs = informer.NewLister[*api.Job](jobInf, apierrors.GroupResource{Group: "batch", Resource: client.Jobs})
	c.regs = []*informer.Registration{
		cjInf.AddEventHandler(informer.HandlerFuncs{
			AddFunc:    func(obj api.Object, _ bool) { c.enqueue(obj.(*api.CronJob)) },
			UpdateFunc: c.updateCronJob,
			DeleteFunc: func(obj any) {
				if o, _ := informer.DeletedObject(obj); o != nil {
					if cj, ok := o.(*api.CronJob); ok {
						c.enqueue(cj)
					}
				}
			},
		}, 0),
		jobInf.AddEventHandler(informer.HandlerFuncs{
			AddFunc: func(obj api.Object, _ bool) { c.jobChanged(obj) },
			UpdateFunc: func(old, cur api.Object) {
				if old.GetObjectMeta().ResourceVersion == cur.GetObjectMeta().ResourceVersion {
					return // a resync
				}
				if o, n := api.GetControllerOf(old.GetObjectMeta()), api.GetControllerOf(cur.GetObjectMeta()); o != nil && (n == nil || o.UID != n.UID) {
					c.jobChanged(old)
				}
				c.jobChanged(cur)
			},
			DeleteFunc: func(obj any) {
				if o, _ := informer.DeletedObject(obj); o != nil {
					c.jobChanged(o)
				}
			},
		}, 0),
	}
	var err error
	c.Loop, err = loop.New(loop.Config{
		Registrations: c.regs,
		Name:          "cronjob", Queue: c.queue, Sync: c.sync, Logger: c.log,
		Observer: cfg.Observer, Clock: cfg.Clock, Informers: c.informers,
	})
	if err != nil {
		return nil, fmt.Errorf("cronjob: %w", err)
	}
	return c, nil
}

// ---- event handlers: they queue keys and call nothing ----

func (c *Controller) enqueue(cj *api.CronJob) { c.queue.Add(api.KeyOf(&cj.Metadata)) }

// updateCronJob queues the cron job at its next schedule time when its
// schedule or zone changed, and at once otherwise. Kubernetes:
// updateCronJob.
func (c *Controller) updateCronJob(oldObj, curObj api.Object) {
	old, cur := oldObj.(*api.CronJob), curObj.(*api.CronJob)
	if old.Spec.Schedule == cur.Spec.Schedule && equalPtr(old.Spec.TimeZone, cur.Spec.TimeZone) {
		c.enqueue(cur)
		return
	}
	sched, _, err := Schedule(cur)
	if err != nil {
		return // the sync reports it, at the next change
	}
	c.queue.AddAfter(api.KeyOf(&cur.Metadata), RequeueAfter(cur, c.clock.Now(), sched))
}

// jobChanged wakes the cron job that controls the job. Kubernetes:
// addJob, updateJob, deleteJob.
func (c *Controller) jobChanged(obj api.Object) {
	meta := obj.GetObjectMeta()
	ref := api.GetControllerOf(meta)
	if ref == nil || ref.Kind != controllerKind {
		return
	}
	cj, err := c.cronJobs.Namespace(meta.Namespace).Get(ref.Name)
	if err != nil || cj.Metadata.UID != ref.UID {
		return
	}
	c.enqueue(cj)
}

func equalPtr[T comparable](a, b *T) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// ---- the sync ----

// sync reconciles one cron job with its jobs: it deletes finished jobs
// beyond the history limits, updates the active list and the last
// successful time, creates the job of the most recent unmet schedule time
// as the concurrency policy allows, writes the status once if it changed,
// and queues the key again at the next schedule time. Kubernetes: sync.
func (c *Controller) sync(ctx context.Context, key string) error {
	ns, name, err := api.SplitKey(key)
	if err != nil {
		return nil
	}
	cached, err := c.cronJobs.Namespace(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return nil // its jobs go with the garbage collector
	}
	if err != nil {
		return err
	}
	var jobs []*api.Job
	for _, j := range c.jobs.Namespace(ns).List(api.Selector{}) {
		if ref := api.GetControllerOf(&j.Metadata); ref != nil && ref.Kind == controllerKind && ref.Name == cached.Metadata.Name {
			jobs = append(jobs, j)
		}
	}
	cj := cached.DeepCopy()
	changed := c.cleanupFinishedJobs(ctx, cj, jobs)
	after, synced, syncErr := c.syncCronJob(ctx, cj, jobs)
	if changed || synced {
		if _, err := c.client.UpdateStatus(ctx, cj); err != nil {
			return fmt.Errorf("updating the status of cron job %s: %w", key, err)
		}
	}
	if after != nil {
		c.queue.AddAfter(key, *after)
		return nil
	}
	return syncErr
}

// cleanupFinishedJobs deletes the finished jobs beyond the history
// limits, and drops them from the active list. Kubernetes:
// cleanupFinishedJobs.
func (c *Controller) cleanupFinishedJobs(ctx context.Context, cj *api.CronJob, jobs []*api.Job) bool {
	changed := false
	for _, j := range JobsToDelete(cj, jobs) {
		if c.deleteJob(ctx, cj, j) {
			changed = true
		}
	}
	return changed
}

// deleteJob deletes a job (its pods in the background) and its reference
// from the active list. Kubernetes: deleteJob.
func (c *Controller) deleteJob(ctx context.Context, cj *api.CronJob, j *api.Job) bool {
	bg := api.DeletePropagationBackground
	_, err := c.client.Delete(ctx, client.Jobs, j.Metadata.Namespace, j.Metadata.Name, api.DeleteOptions{PropagationPolicy: &bg})
	if err != nil && !apierrors.IsNotFound(err) {
		c.event(ctx, cj, api.EventTypeWarning, "FailedDelete", fmt.Sprintf("Deleted job: %v", err))
		return false
	}
	deleteFromActive(cj, j.Metadata.UID)
	c.event(ctx, cj, api.EventTypeNormal, "SuccessfulDelete", "Deleted job "+j.Metadata.Name)
	return true
}

// syncCronJob is upstream's syncCronJob: it returns when to look again
// (nil: only at the next change), whether the status changed, and an
// error to retry on.
func (c *Controller) syncCronJob(ctx context.Context, cj *api.CronJob, jobs []*api.Job) (*time.Duration, bool, error) {
	now := c.clock.Now()
	changed := false
	children := map[api.UID]bool{}
	for _, j := range jobs {
		children[j.Metadata.UID] = true
		active := inActive(cj, j.Metadata.UID)
		finished, how := FinishedStatus(j)
		switch {
		case !active && !finished:
			fresh, err := c.client.Get(ctx, client.CronJobs, cj.Metadata.Namespace, cj.Metadata.Name, client.GetOptions{})
			if err != nil {
				return nil, changed, err
			}
			if f := fresh.(*api.CronJob); inActive(f, j.Metadata.UID) {
				// The cache is behind our own status write: take it.
				rv := f.Metadata.ResourceVersion
				cj.Status.Active = f.DeepCopy().Status.Active
				cj.Metadata.ResourceVersion = rv
				continue
			}
			c.event(ctx, cj, api.EventTypeWarning, "UnexpectedJob", "Saw a job that the controller did not create or forgot: "+j.Metadata.Name)
		case active && finished:
			deleteFromActive(cj, j.Metadata.UID)
			c.event(ctx, cj, api.EventTypeNormal, "SawCompletedJob", fmt.Sprintf("Saw completed job: %s, status: %v", j.Metadata.Name, how))
			changed = true
		case how == api.JobComplete:
			if ct := j.Status.CompletionTime; ct != nil && (cj.Status.LastSuccessfulTime == nil || ct.After(cj.Status.LastSuccessfulTime.Time)) {
				t := *ct
				cj.Status.LastSuccessfulTime = &t
				changed = true
			}
		}
	}
	// An active job that is gone from the cache and the server is gone.
	for _, ref := range slices.Clone(cj.Status.Active) {
		if children[ref.UID] {
			continue
		}
		_, err := c.client.Get(ctx, client.Jobs, ref.Namespace, ref.Name, client.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			c.event(ctx, cj, api.EventTypeNormal, "MissingJob", "Active job went missing: "+ref.Name)
			deleteFromActive(cj, ref.UID)
			changed = true
		case err != nil:
			return nil, changed, err
		}
	}

	if cj.Metadata.DeletionTimestamp != nil {
		return nil, changed, nil
	}
	if z := cj.Spec.TimeZone; z != nil {
		if _, err := time.LoadLocation(*z); err != nil {
			c.event(ctx, cj, api.EventTypeWarning, "UnknownTimeZone", fmt.Sprintf("invalid timeZone: %q: %s", *z, err))
			return nil, changed, nil
		}
	}
	if cj.Spec.Suspend != nil && *cj.Spec.Suspend {
		return nil, changed, nil
	}
	sched, tz, err := Schedule(cj)
	if tz {
		c.event(ctx, cj, api.EventTypeWarning, "UnsupportedSchedule", fmt.Sprintf("CRON_TZ or TZ used in schedule %q is not officially supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details", cj.Spec.Schedule))
	}
	if err != nil {
		c.event(ctx, cj, api.EventTypeWarning, "UnparseableSchedule", fmt.Sprintf("unparseable schedule: %q : %s", cj.Spec.Schedule, err))
		return nil, changed, nil
	}
	next := func() *time.Duration { d := RequeueAfter(cj, now, sched); return &d }

	scheduled, missed, err := NextScheduleTime(cj, now, sched)
	if missed == ManyMissed {
		c.event(ctx, cj, api.EventTypeWarning, "TooManyMissedTimes", "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew")
	}
	if err != nil {
		c.event(ctx, cj, api.EventTypeWarning, "InvalidSchedule", fmt.Sprintf("invalid schedule: %s : %s", cj.Spec.Schedule, err))
		return nil, changed, nil
	}
	if scheduled == nil {
		return next(), changed, nil
	}
	if d := cj.Spec.StartingDeadlineSeconds; d != nil && scheduled.Add(time.Duration(*d)*time.Second).Before(now) {
		c.event(ctx, cj, api.EventTypeWarning, "MissSchedule", missMessage(*scheduled))
		return next(), changed, nil
	}
	name := JobName(cj, *scheduled)
	if slices.ContainsFunc(cj.Status.Active, func(r api.ObjectReference) bool { return r.Name == name && r.Namespace == cj.Metadata.Namespace }) ||
		cj.Status.LastScheduleTime != nil && cj.Status.LastScheduleTime.Equal(*scheduled) {
		return next(), changed, nil
	}
	if cj.Spec.ConcurrencyPolicy == api.ForbidConcurrent && len(cj.Status.Active) > 0 {
		c.event(ctx, cj, api.EventTypeNormal, "JobAlreadyActive", "Not starting job because prior execution is running and concurrency policy is Forbid")
		return next(), changed, nil
	}
	if cj.Spec.ConcurrencyPolicy == api.ReplaceConcurrent {
		for _, ref := range slices.Clone(cj.Status.Active) {
			obj, err := c.client.Get(ctx, client.Jobs, ref.Namespace, ref.Name, client.GetOptions{})
			if err != nil {
				c.event(ctx, cj, api.EventTypeWarning, "FailedGet", fmt.Sprintf("Get job: %v", err))
				return nil, changed, err
			}
			if !c.deleteJob(ctx, cj, obj.(*api.Job)) {
				return nil, changed, fmt.Errorf("could not replace job %s/%s", ref.Namespace, ref.Name)
			}
			changed = true
		}
	}

	req, err := JobFromTemplate(cj, *scheduled)
	if err != nil {
		return nil, changed, err
	}
	created, err := c.client.Create(ctx, req, client.Handover())
	switch {
	case apierrors.IsAlreadyExists(err):
		obj, err := c.client.Get(ctx, client.Jobs, cj.Metadata.Namespace, name, client.GetOptions{})
		if err != nil {
			return nil, changed, err
		}
		ref := api.GetControllerOf(obj.GetObjectMeta())
		if ref == nil || ref.UID != cj.Metadata.UID || inActive(cj, obj.GetObjectMeta().UID) {
			return nil, changed, nil
		}
		created = obj
	case err != nil:
		c.event(ctx, cj, api.EventTypeWarning, "FailedCreate", fmt.Sprintf("Error creating job: %v", err))
		return nil, changed, err
	default:
		c.event(ctx, cj, api.EventTypeNormal, "SuccessfulCreate", "Created job "+created.GetObjectMeta().Name)
	}
	m := created.GetObjectMeta()
	cj.Status.Active = append(cj.Status.Active, api.ObjectReference{
		Kind: "Job", Namespace: m.Namespace, Name: m.Name, UID: m.UID,
		APIVersion: controllerAPIVersion, ResourceVersion: m.ResourceVersion,
	})
	t := api.NewTime(*scheduled)
	cj.Status.LastScheduleTime = &t
	return next(), true, nil
}

func inActive(cj *api.CronJob, uid api.UID) bool {
	return slices.ContainsFunc(cj.Status.Active, func(r api.ObjectReference) bool { return r.UID == uid })
}

func deleteFromActive(cj *api.CronJob, uid api.UID) {
	cj.Status.Active = slices.DeleteFunc(cj.Status.Active, func(r api.ObjectReference) bool { return r.UID == uid })
}

// event records an event about cj when the controller has a recorder; a
// failure to record is logged only.
func (c *Controller) event(ctx context.Context, cj *api.CronJob, typ, reason, msg string) {
	c.log.Debug("event", zap.String("cronjob", api.KeyOf(&cj.Metadata)), zap.String("reason", reason), zap.String("message", msg))
	if c.recorder == nil {
		return
	}
	obj := *cj // shallow: the recorder reads the kind and metadata only
	obj.TypeMeta = api.TypeMeta{APIVersion: controllerAPIVersion, Kind: controllerKind}
	if err := c.recorder.Eventf(ctx, &obj, typ, reason, "%s", msg); err != nil {
		c.log.Debug("recording event failed", zap.String("reason", reason), zap.Error(err))
	}
}
