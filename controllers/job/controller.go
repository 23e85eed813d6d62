package job

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/client/record"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/deployment"
	"github.com/miniplane/miniplane/controllers/loop"
	"github.com/miniplane/miniplane/controllers/replication"
	"github.com/miniplane/miniplane/controllers/workqueue"
	"github.com/miniplane/miniplane/informer"
)

// The kind a pod's controller reference names when a job owns it.
const (
	controllerKind       = "Job"
	controllerAPIVersion = "batch/v1"
)

// maxRetries is how many times a job's sync fails in a row before the key
// is dropped until its next change.
const maxRetries = 15

// Client is what the controller writes through. client.Client and
// *apiserver.Server satisfy it.
type Client interface {
	Get(ctx context.Context, resource, namespace, name string, opts client.GetOptions) (api.Object, error)
	Create(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error)
	Update(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error)
	UpdateStatus(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error)
	Delete(ctx context.Context, resource, namespace, name string, opts api.DeleteOptions) (api.Object, error)
}

// Config configures a Controller. Client, Factory and Clock are required.
type Config struct {
	// Client carries every write.
	Client Client
	// Factory gives the shared job and pod informers.
	Factory *informer.Factory
	// Clock stamps conditions and times back-off, deadlines and the queue.
	Clock clock.Clock
	// Logger is named "job" by New; nil means no logs.
	Logger *zap.Logger
	// Recorder, if set, receives the jobs' events (SuccessfulCreate,
	// SuccessfulDelete, Completed, BackoffLimitExceeded, ...).
	Recorder *record.EventRecorder
	// RateLimiter is the queue's; nil means the default controller limiter.
	RateLimiter workqueue.RateLimiter[string]
	// Observer, if set, is told of every sync (loop.Observer).
	Observer loop.Observer
}

// Controller is the job controller. See the package documentation.
type Controller struct {
	client   Client
	clock    clock.Clock
	log      *zap.Logger
	recorder *record.EventRecorder

	jobs informer.Lister[*api.Job]
	pods informer.Lister[*api.Pod]
	// podIndex is the pod cache, with informer.ControllerIndex: a sync
	// reads its job's pods, not every pod of the namespace.
	podIndex *informer.Indexer

	informers []*informer.Informer
	regs      []*informer.Registration
	// expectations holds, per job key, the pod creations and deletions made
	// and not yet seen in the pod informer: a sync waits for them, so that
	// a stale cache never makes it create a pod twice.
	expectations *replication.Expectations
	// recorded holds, per job key, the uids a status write put in
	// uncountedTerminatedPods before their finalizers went: a sync waits
	// until the job cache shows them (recordings).
	recorded *recordings

	// queue holds the keys ("namespace/name") of jobs to sync.
	queue *workqueue.Queue[string]

	*loop.Loop // HasSynced, ProcessOne and Run: a manager.Controller
}

// New returns a controller whose handlers are registered on cfg.Factory's
// job and pod informers. It starts nothing.
func New(cfg Config) (*Controller, error) {
	if err := loop.CheckRequired("job", cfg.Client, cfg.Factory, cfg.Clock); err != nil {
		return nil, err
	}
	log := loop.Logger(cfg.Logger)
	c := &Controller{
		client: cfg.Client, clock: cfg.Clock, log: log.Named("job"), recorder: cfg.Recorder,
		expectations: replication.NewExpectations(cfg.Clock),
		recorded:     newRecordings(cfg.Clock),
		queue:        loop.NewQueue("job", cfg.Clock, cfg.RateLimiter),
	}
	jobInf := cfg.Factory.ForResource(client.Jobs)
	podInf := cfg.Factory.ForResource(client.Pods)
	c.informers = []*informer.Informer{jobInf, podInf}
	if err := informer.AddControllerIndex(podInf.Indexer()); err != nil {
		return nil, fmt.Errorf("job: %w", err)
	}
	c.podIndex = podInf.Indexer()
	c.jobs = informer.NewLister[*api.Job](jobInf, apierrors.GroupResource{Group: "batch", Resource: client.Jobs})
	c.pods = informer.NewLister[*api.Pod](podInf, apierrors.GroupResource{Resource: client.Pods})
	c.regs = []*informer.Registration{
		jobInf.AddEventHandler(informer.HandlerFuncs{
			AddFunc:    func(obj api.Object, _ bool) { c.enqueue(obj) },
			UpdateFunc: func(_, cur api.Object) { c.enqueue(cur) },
			DeleteFunc: func(obj any) {
				if o, _ := informer.DeletedObject(obj); o != nil {
					c.expectations.Delete(informer.KeyOf(o))
					c.recorded.Delete(informer.KeyOf(o))
					c.enqueue(o)
				}
			},
		}, 0),
		podInf.AddEventHandler(informer.HandlerFuncs{
			AddFunc: func(obj api.Object, _ bool) {
				p := obj.(*api.Pod)
				if key, ok := ownerKey(p); ok {
					c.expectations.CreationObserved(key)
					c.queue.Add(key)
					return
				}
				c.enqueueAdopters(p)
			},
			UpdateFunc: func(old, cur api.Object) {
				p := cur.(*api.Pod)
				if key, ok := ownerKey(old.(*api.Pod)); ok {
					if now, still := ownerKey(p); !still || now != key {
						c.queue.Add(key) // released or orphaned: its job counts again
					}
				}
				if _, ok := ownerKey(p); !ok {
					c.enqueueAdopters(p)
				}
				if key, ok := ownerKey(p); ok {
					// A deletion the job asked for shows first as the
					// deletionTimestamp; the pod may stay long after (its
					// finalizer is removed by a sync that must not wait
					// for it). Kubernetes: updatePod calls deletePod.
					if p.Metadata.DeletionTimestamp != nil && old.(*api.Pod).Metadata.DeletionTimestamp == nil {
						c.expectations.DeletionObserved(key, informer.KeyOf(p))
					}
					c.queue.Add(key)
				}
			},
			DeleteFunc: func(obj any) {
				o, _ := informer.DeletedObject(obj)
				if p, ok := o.(*api.Pod); ok {
					if key, ok := ownerKey(p); ok {
						c.expectations.DeletionObserved(key, informer.KeyOf(p))
						c.queue.Add(key)
					}
				}
			},
		}, 0),
	}
	var err error
	c.Loop, err = loop.New(loop.Config{
		Registrations: c.regs,
		Name:          "job", Queue: c.queue, Sync: c.sync, Logger: c.log, MaxRetries: maxRetries,
		Observer: cfg.Observer, Clock: cfg.Clock, Informers: c.informers,
	})
	if err != nil {
		return nil, fmt.Errorf("job: %w", err)
	}
	return c, nil
}

func (c *Controller) enqueue(obj api.Object) { c.queue.Add(informer.KeyOf(obj)) }

// enqueueAdopters queues the jobs that may adopt p, an orphan: those of
// its namespace whose selector selects it. Kubernetes: the job
// controller's addPod and updatePod for a pod without a controller.
func (c *Controller) enqueueAdopters(p *api.Pod) {
	list := func(ns string) []*api.Job { return c.jobs.Namespace(ns).List(api.Selector{}) }
	selector := func(j *api.Job) *api.LabelSelector { return j.Spec.Selector }
	for _, key := range deployment.ControllerKeys(controllerAPIVersion, controllerKind, list, selector, &p.Metadata) {
		c.queue.Add(key)
	}
}

// ownerKey is the key of the job that controls p, if one does.
func ownerKey(p *api.Pod) (string, bool) {
	ref := api.GetControllerOf(&p.Metadata)
	if ref == nil || ref.Kind != controllerKind || ref.APIVersion != controllerAPIVersion {
		return "", false
	}
	return p.Metadata.Namespace + "/" + ref.Name, true
}

// sync reconciles one job: observe (the job and its pods from the
// listers), decide (Decide), act (write). Kubernetes: syncJob.
func (c *Controller) sync(ctx context.Context, key string) error {
	namespace, name, err := api.SplitKey(key)
	if err != nil {
		c.log.Error("bad key", zap.String("key", key), zap.Error(err))
		return nil
	}
	job, err := c.jobs.Namespace(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		// The job is gone: its pods' tracking finalizers go too, or the
		// garbage collector could never remove them.
		return c.releaseOrphans(ctx, namespace, name)
	}
	if err != nil {
		return err
	}
	if m := job.Spec.ManagedBy; m != nil && *m != "kubernetes.io/job-controller" {
		return nil // another controller syncs it
	}
	if !c.expectations.Satisfied(key) {
		return nil // the next pod event brings the key back
	}
	if !c.recorded.Seen(key, &job.Status) {
		return nil // the job's cache is behind our last status write; its update brings the key back
	}
	pods, err := c.claimPods(ctx, job)
	if err != nil {
		return err
	}
	d := Decide(job, pods, c.clock.Now())
	return c.act(ctx, key, job, d)
}

// claimPods returns the pods job controls, in key order, after adopting
// the orphans its selector matches and releasing its pods it no longer
// matches; an adopted pod gets the tracking finalizer, so that its end is
// counted. Kubernetes: getPodsForJob.
func (c *Controller) claimPods(ctx context.Context, job *api.Job) ([]*api.Pod, error) {
	sel, err := api.LabelSelectorAsSelector(job.Spec.Selector)
	if err != nil || sel.Empty() {
		return nil, nil
	}
	candidates := informer.Controlled[*api.Pod](c.podIndex, job.Metadata.Namespace, job.Metadata.UID, true)
	ref := api.OwnerReference{APIVersion: controllerAPIVersion, Kind: controllerKind, Name: job.Metadata.Name,
		UID: job.Metadata.UID, Controller: ptr(true), BlockOwnerDeletion: ptr(true)}
	pods, err := deployment.ClaimAll(ctx, adopter{c.client}, client.Jobs, ref, &job.Metadata, sel, candidates, c.log)
	slices.SortFunc(pods, func(a, b *api.Pod) int { return strings.Compare(a.Metadata.Name, b.Metadata.Name) })
	return pods, err
}

// adopter is the job controller's client for claiming: an adopted pod that
// has not finished gets the tracking finalizer with its owner reference,
// in the same update, and a released pod loses it with its reference.
// Kubernetes: the PodControllerRefManager with finalizers that
// getPodsForJob makes.
type adopter struct{ Client }

func (a adopter) Update(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error) {
	p, ok := obj.(*api.Pod)
	if !ok {
		return a.Client.Update(ctx, obj, opts...)
	}
	tracked := slices.Contains(p.Metadata.Finalizers, api.JobTrackingFinalizer)
	switch adopted := api.GetControllerOf(&p.Metadata) != nil; {
	case adopted && !tracked && p.Status.Phase != api.PodSucceeded && p.Status.Phase != api.PodFailed:
		p.Metadata.Finalizers = append(slices.Clip(p.Metadata.Finalizers), api.JobTrackingFinalizer)
	case !adopted && tracked:
		p.Metadata.Finalizers = slices.DeleteFunc(slices.Clone(p.Metadata.Finalizers), func(f string) bool { return f == api.JobTrackingFinalizer })
	}
	return a.Client.Update(ctx, obj, opts...)
}

// releaseOrphans removes the tracking finalizer from the pods a deleted job
// named name controlled. Kubernetes: the orphan pods' finalizer removal.
func (c *Controller) releaseOrphans(ctx context.Context, namespace, name string) error {
	var errs []error
	for _, p := range c.pods.Namespace(namespace).List(api.Selector{}) {
		ref := api.GetControllerOf(&p.Metadata)
		if ref == nil || ref.Kind != controllerKind || ref.Name != name || !hasFinalizer(p) {
			continue
		}
		errs = append(errs, c.removeFinalizer(ctx, p))
	}
	return errors.Join(errs...)
}

// act makes d's writes: finalizers of counted pods first (so that their
// uids are recorded before they can go), the status, then pod deletions
// and creations, then events.
func (c *Controller) act(ctx context.Context, key string, job *api.Job, d Decision) error {
	var errs []error
	statusChanged := !statusEqual(&job.Status, &d.Status)
	if statusChanged && uncountedGrew(&job.Status, &d.Status) {
		// The uids must be in the status before the finalizers go: write it first.
		if err := c.writeStatus(ctx, job, d.Status); err != nil {
			return err
		}
		u := d.Status.UncountedTerminatedPods
		c.recorded.Expect(key, append(slices.Clone(u.Succeeded), u.Failed...))
		statusChanged = false
	}
	for _, p := range d.RemoveFinalizer {
		errs = append(errs, c.removeFinalizer(ctx, p))
	}
	if len(d.Delete) > 0 {
		keys := make([]string, len(d.Delete))
		for i, p := range d.Delete {
			keys[i] = informer.KeyOf(p)
		}
		c.expectations.ExpectDeletions(key, keys)
		for _, p := range d.Delete {
			_, err := c.client.Delete(ctx, client.Pods, p.Metadata.Namespace, p.Metadata.Name, api.DeleteOptions{})
			if err != nil && !apierrors.IsNotFound(err) {
				c.expectations.DeletionObserved(key, informer.KeyOf(p))
				errs = append(errs, err)
				continue
			}
			c.event(ctx, job, Event{Reason: "SuccessfulDelete", Message: "Deleted pod: " + p.Metadata.Name})
		}
	}
	if d.Create > 0 {
		c.expectations.ExpectCreations(key, d.Create)
		for i := 0; i < d.Create; i++ {
			index := -1
			if i < len(d.Indexes) {
				index = d.Indexes[i]
			}
			pod := NewPod(job, index)
			created, err := c.client.Create(ctx, pod, client.Handover())
			if err != nil {
				c.expectations.CreationObserved(key)
				c.event(ctx, job, Event{Warning: true, Reason: "FailedCreate", Message: "Error creating: " + err.Error()})
				errs = append(errs, err)
				continue
			}
			c.event(ctx, job, Event{Reason: "SuccessfulCreate", Message: "Created pod: " + created.GetObjectMeta().Name})
		}
	}
	if statusChanged {
		errs = append(errs, c.writeStatus(ctx, job, d.Status))
	}
	for _, e := range d.Events {
		c.event(ctx, job, e)
	}
	if d.RequeueAfter > 0 {
		c.queue.AddAfter(key, d.RequeueAfter)
	}
	return errors.Join(errs...)
}

func (c *Controller) writeStatus(ctx context.Context, job *api.Job, st api.JobStatus) error {
	j := *job
	j.Status = st
	_, err := c.client.UpdateStatus(ctx, &j)
	return err
}

// removeFinalizer writes p without the tracking finalizer. A pod already
// gone is fine.
func (c *Controller) removeFinalizer(ctx context.Context, p *api.Pod) error {
	np := *p
	np.Metadata.Finalizers = slices.DeleteFunc(slices.Clone(p.Metadata.Finalizers), func(f string) bool { return f == api.JobTrackingFinalizer })
	_, err := c.client.Update(ctx, &np)
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

func (c *Controller) event(ctx context.Context, job *api.Job, e Event) {
	if c.recorder == nil {
		return
	}
	typ := api.EventTypeNormal
	if e.Warning {
		typ = api.EventTypeWarning
	}
	_ = c.recorder.Event(ctx, job, typ, e.Reason, e.Message)
}

// NewPod is the pod a job creates: its template, named "<job>-" plus a
// suffix, controlled by the job, labelled with the job's name and uid, held
// by the tracking finalizer and, for an Indexed job, given its completion
// index (annotation, label and hostname "<job>-<index>"). index is -1 for a
// NonIndexed job. Kubernetes: podTemplate and addCompletionIndexEnvVariables.
func NewPod(job *api.Job, index int) *api.Pod {
	t := job.Spec.Template.DeepCopy()
	pod := &api.Pod{Metadata: t.Metadata, Spec: t.Spec}
	m := &pod.Metadata
	m.Name, m.Namespace, m.GenerateName = "", job.Metadata.Namespace, job.Metadata.Name+"-"
	if m.Labels == nil {
		m.Labels = map[string]string{}
	}
	m.Labels[api.JobNameLabel] = job.Metadata.Name
	m.Labels[api.LegacyJobNameLabel] = job.Metadata.Name
	m.Labels[api.ControllerUIDLabel] = string(job.Metadata.UID)
	m.Labels[api.LegacyControllerUIDLabel] = string(job.Metadata.UID)
	m.Finalizers = append(m.Finalizers, api.JobTrackingFinalizer)
	m.OwnerReferences = []api.OwnerReference{{
		APIVersion: controllerAPIVersion, Kind: controllerKind, Name: job.Metadata.Name, UID: job.Metadata.UID,
		Controller: ptr(true), BlockOwnerDeletion: ptr(true),
	}}
	if index >= 0 {
		i := strconv.Itoa(index)
		m.GenerateName = job.Metadata.Name + "-" + i + "-"
		if m.Annotations == nil {
			m.Annotations = map[string]string{}
		}
		m.Annotations[api.JobCompletionIndexAnnotation] = i
		m.Labels[api.JobCompletionIndexAnnotation] = i
		pod.Spec.Hostname = job.Metadata.Name + "-" + i
		for ci := range pod.Spec.Containers {
			pod.Spec.Containers[ci].Env = append(pod.Spec.Containers[ci].Env, api.EnvVar{Name: "JOB_COMPLETION_INDEX", Value: i})
		}
	}
	return pod
}

func uncountedGrew(old, cur *api.JobStatus) bool {
	n := func(u *api.UncountedTerminatedPods) []api.UID {
		if u == nil {
			return nil
		}
		return append(slices.Clone(u.Succeeded), u.Failed...)
	}
	was := n(old.UncountedTerminatedPods)
	for _, uid := range n(cur.UncountedTerminatedPods) {
		if !slices.Contains(was, uid) {
			return true
		}
	}
	return false
}

func statusEqual(a, b *api.JobStatus) bool { return reflect.DeepEqual(a, b) }
