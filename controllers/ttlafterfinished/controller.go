package ttlafterfinished

import (
	"context"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/loop"
	"github.com/miniplane/miniplane/informer"
)

// Client is what the controller reads afresh and deletes through.
// client.Client and *apiserver.Server satisfy it.
type Client interface {
	Get(ctx context.Context, resource, namespace, name string, opts client.GetOptions) (api.Object, error)
	Delete(ctx context.Context, resource, namespace, name string, opts api.DeleteOptions) (api.Object, error)
}

// Config configures a Controller. Client, Factory and Clock are required.
type Config struct {
	Client  Client
	Factory *informer.Factory
	// Clock is what "now" is for expiry, and the queue's.
	Clock clock.Clock
	// Logger is named "ttl-after-finished" by New; nil means no logs.
	Logger *zap.Logger
	// Observer, if set, is told of every sync (loop.Observer).
	Observer loop.Observer
}

// Controller is the ttl-after-finished controller. See the package
// documentation.
type Controller struct {
	client Client
	clock  clock.Clock
	log    *zap.Logger
	jobs   informer.Lister[*api.Job]

	*loop.Controller // Queue, HasSynced, ProcessOne and Run
}

// New returns a controller whose handler is registered on cfg.Factory's
// job informer. It starts nothing.
func New(cfg Config) (*Controller, error) {
	if err := loop.CheckRequired("ttl-after-finished", cfg.Client, cfg.Factory, cfg.Clock); err != nil {
		return nil, err
	}
	log := loop.Logger(cfg.Logger)
	c := &Controller{client: cfg.Client, clock: cfg.Clock, log: log.Named("ttl-after-finished")}
	c.jobs = informer.NewLister[*api.Job](cfg.Factory.ForResource(client.Jobs), apierrors.GroupResource{Group: "batch", Resource: client.Jobs})
	var err error
	c.Controller, err = loop.NewController(loop.ControllerConfig{
		Name: "ttl-after-finished", Factory: cfg.Factory, Clock: cfg.Clock, Logger: log,
		Reconcile: c.sync, Observer: cfg.Observer,
		// Only a finished job with a TTL is queued, as Kubernetes' addJob
		// and updateJob filter; its deletion queues nothing.
		Watches: []loop.Watch{{Resource: client.Jobs, Keys: func(obj api.Object) []string {
			if j, ok := obj.(*api.Job); ok && j.Metadata.DeletionTimestamp == nil && needsCleanup(j) {
				return loop.OwnKey(obj)
			}
			return nil
		}}},
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// sync deletes the job under key once its TTL after finishing has run
// out, or queues it back for then. Kubernetes: processJob.
func (c *Controller) sync(ctx context.Context, key string) error {
	ns, name, err := api.SplitKey(key)
	if err != nil {
		return nil // not a job key: nothing will ever make it one
	}
	job, err := c.jobs.Namespace(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if expired, err := c.expired(key, job); err != nil || !expired {
		return err
	}
	// The cached TTL may be stale: decide again on the job as it is now.
	obj, err := c.client.Get(ctx, client.Jobs, ns, name, client.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	fresh := obj.(*api.Job)
	if expired, err := c.expired(key, fresh); err != nil || !expired {
		return err
	}
	fg := api.DeletePropagationForeground
	uid := fresh.Metadata.UID
	_, err = c.client.Delete(ctx, client.Jobs, ns, name, api.DeleteOptions{
		PropagationPolicy: &fg, Preconditions: &api.Preconditions{UID: &uid},
	})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("delete job %s: %w", key, err)
	}
	c.log.Info("deleted finished job: its TTL ran out", zap.String("job", key), zap.Int32("ttlSecondsAfterFinished", *fresh.Spec.TTLSecondsAfterFinished))
	return nil
}

// expired reports whether job is to be deleted now; when its TTL runs
// out later, it queues key back for then. Kubernetes: processTTL.
func (c *Controller) expired(key string, job *api.Job) (bool, error) {
	if job.Metadata.DeletionTimestamp != nil || !needsCleanup(job) {
		return false, nil
	}
	now := c.clock.Now()
	left, finishedAt, err := expiry(job, now)
	if err != nil {
		return false, err
	}
	if finishedAt.After(now) {
		c.log.Info("job finished in the future: clock skew; its cleanup is deferred", zap.String("job", key))
	}
	if left > 0 {
		c.Queue().AddAfter(key, left)
		return false, nil
	}
	return true, nil
}

// needsCleanup reports whether j has finished and sets a TTL.
func needsCleanup(j *api.Job) bool {
	return j.Spec.TTLSecondsAfterFinished != nil && finishCondition(j) != nil
}

// finishCondition is j's Complete or Failed condition if it is true.
func finishCondition(j *api.Job) *api.JobCondition {
	for i := range j.Status.Conditions {
		cond := &j.Status.Conditions[i]
		if (cond.Type == api.JobComplete || cond.Type == api.JobFailed) && cond.Status == api.ConditionTrue {
			return cond
		}
	}
	return nil
}

// expiry returns how long the finished job j with a TTL has left at now
// (zero or less: it expired) and when it finished. Kubernetes: timeLeft,
// jobFinishTime.
func expiry(j *api.Job, now time.Time) (left time.Duration, finishedAt time.Time, err error) {
	cond := finishCondition(j)
	if cond == nil || j.Spec.TTLSecondsAfterFinished == nil {
		return 0, time.Time{}, fmt.Errorf("job %s/%s should not be cleaned up", j.Metadata.Namespace, j.Metadata.Name)
	}
	if cond.LastTransitionTime.IsZero() {
		return 0, time.Time{}, fmt.Errorf("unable to find the time when the Job %s/%s finished", j.Metadata.Namespace, j.Metadata.Name)
	}
	finishedAt = cond.LastTransitionTime.Time
	expireAt := finishedAt.Add(time.Duration(*j.Spec.TTLSecondsAfterFinished) * time.Second)
	return expireAt.Sub(now), finishedAt, nil
}
