package endpoints

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
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

// Defaults, as in kube-controller-manager.
const (
	// DefaultWorkers is --concurrent-endpoint-syncs.
	DefaultWorkers = 5
	// DefaultBatchPeriod is --endpoint-updates-batch-period: pod changes
	// are not batched.
	DefaultBatchPeriod = time.Duration(0)
	// MaxRetries is how many times a failing service key is retried, with
	// backoff, before it is dropped until its next change.
	MaxRetries = 15
)

// Client is what the controller writes through: Endpoints only.
// client.Client and *apiserver.Server satisfy it.
type Client interface {
	Create(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error)
	Update(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error)
	Delete(ctx context.Context, resource, namespace, name string, opts api.DeleteOptions) (api.Object, error)
}

// Config configures a Controller. Client, Factory and Clock are required.
type Config struct {
	// Client receives the controller's writes.
	Client Client
	// Factory provides the shared pod, service and endpoints informers.
	Factory *informer.Factory
	// Clock is the controller's only source of time (the queue's delays).
	Clock clock.Clock
	// Logger is named "endpoints" by New; nil means no logs.
	Logger *zap.Logger
	// Recorder, if set, records Warning events on a service whose
	// Endpoints could not be written.
	Recorder *record.EventRecorder
	// BatchPeriod delays the syncs a pod change triggers, so a burst of pod
	// changes makes one write. Kubernetes: --endpoint-updates-batch-period,
	// default 0.
	BatchPeriod time.Duration
	// Observer, if set, is told of every sync (loop.Observer).
	Observer loop.Observer
}

// Controller keeps one Endpoints object per selector service. See the
// package documentation.
type Controller struct {
	client      Client
	clock       clock.Clock
	log         *zap.Logger
	recorder    *record.EventRecorder
	batchPeriod time.Duration

	pods      informer.Lister[*api.Pod]
	services  informer.Lister[*api.Service]
	endpoints informer.Lister[*api.Endpoints]
	// podIndexer and svcIndexer are the caches behind pods and services,
	// with podLabelIndex and serviceSelectorIndex.
	podIndexer *informer.Indexer
	svcIndexer *informer.Indexer
	// labels makes the index values of both indexes, and of the lookups.
	labels    *labelValues
	informers []*informer.Informer     // pods, services, endpoints
	regs      []*informer.Registration // this controller's handlers, same order

	queue *workqueue.Queue[string]

	*loop.Loop // HasSynced, ProcessOne and Run: a manager.Controller
	stale      *staleTracker
	triggers   *triggerTracker
	// packers holds *packer for syncs to reuse: a sync packs every pod of
	// its service, and the scratch space would otherwise be garbage each
	// time.
	packers sync.Pool
	// svcBuffers holds *[]*api.Service for podServices, which reads the
	// service index on every pod event.
	svcBuffers sync.Pool
	// keyBuffers holds *[]string for the pod handlers' service keys.
	keyBuffers sync.Pool
	// checkUnchanged, set by tests only, is called when a sync writes
	// nothing because its service's Endpoints were found right before and
	// nothing moved since (trackedService.unchanged), with what it read:
	// the tests compute the Endpoints the plain way and fail if a write
	// was due.
	checkUnchanged func(svc *api.Service, pods []*api.Pod, current *api.Endpoints)
}

// New returns a controller whose handlers are registered on cfg.Factory's
// pod, service and endpoints informers. It starts nothing.
func New(cfg Config) (*Controller, error) {
	if err := loop.CheckRequired("endpoints.New", cfg.Client, cfg.Factory, cfg.Clock); err != nil {
		return nil, err
	}
	if cfg.BatchPeriod < 0 {
		return nil, fmt.Errorf("endpoints.New: Config.BatchPeriod %v is negative", cfg.BatchPeriod)
	}
	log := loop.Logger(cfg.Logger)
	podInf := cfg.Factory.ForResource(client.Pods)
	svcInf := cfg.Factory.ForResource(client.Services)
	epInf := cfg.Factory.ForResource(client.Endpoints)
	labels := newLabelValues()
	if err := addIndex(podInf, podLabelIndex, labels.podIndexFunc); err != nil {
		return nil, err
	}
	if err := addIndex(svcInf, serviceSelectorIndex, labels.serviceIndexFunc); err != nil {
		return nil, err
	}
	c := &Controller{
		client:      cfg.Client,
		clock:       cfg.Clock,
		log:         log.Named("endpoints"),
		recorder:    cfg.Recorder,
		batchPeriod: cfg.BatchPeriod,
		pods:        informer.NewLister[*api.Pod](podInf, apierrors.GroupResource{Resource: client.Pods}),
		services:    informer.NewLister[*api.Service](svcInf, apierrors.GroupResource{Resource: client.Services}),
		endpoints:   informer.NewLister[*api.Endpoints](epInf, apierrors.GroupResource{Resource: client.Endpoints}),
		podIndexer:  podInf.Indexer(),
		svcIndexer:  svcInf.Indexer(),
		labels:      labels,
		informers:   []*informer.Informer{podInf, svcInf, epInf},
		queue:       loop.NewQueue("endpoint", cfg.Clock, nil),
		stale:       &staleTracker{entries: map[string]*staleEntry{}},
		triggers:    &triggerTracker{states: map[string]*trackedService{}},
		packers:     sync.Pool{New: func() any { return new(packer) }},
	}
	c.regs = []*informer.Registration{
		podInf.AddEventHandler(informer.HandlerFuncs{
			AddFunc:    func(obj api.Object, _ bool) { c.onPodAdd(obj) },
			UpdateFunc: c.onPodUpdate,
			DeleteFunc: c.onPodDelete,
		}, 0),
		svcInf.AddEventHandler(informer.HandlerFuncs{
			AddFunc:    func(obj api.Object, _ bool) { c.enqueueService(obj) },
			UpdateFunc: func(_, obj api.Object) { c.enqueueService(obj) },
			DeleteFunc: func(obj any) {
				if o, _ := informer.DeletedObject(obj); o != nil {
					c.enqueueService(o)
				}
			},
		}, 0),
		// A deleted Endpoints object is recreated if its service still
		// wants one. Updates are mostly the controller's own doing; they
		// matter only to a sync waiting for the cache to show its last
		// write (staleTracker). Adds need no handler: the cache can only
		// move off a version by an add after a delete, which queues the
		// service already.
		epInf.AddEventHandler(informer.HandlerFuncs{
			UpdateFunc: c.onEndpointsUpdate,
			DeleteFunc: func(obj any) {
				if o, _ := informer.DeletedObject(obj); o != nil {
					c.queue.Add(api.KeyOf(o.GetObjectMeta()))
				}
			},
		}, 0),
	}
	var err error
	c.Loop, err = loop.New(loop.Config{
		Registrations: c.regs,
		Name:          "endpoints", Queue: c.queue, Sync: c.sync, Logger: c.log, Observer: cfg.Observer, Clock: cfg.Clock,
		Informers: c.informers, OnSynced: c.EnqueueLeftovers,
		// A key failing MaxRetries times is dropped until its service or
		// pods change. A stale cache (errStaleCache wraps loop.ErrWait) is
		// a wait, not a failure: the Endpoints handler queues the key when
		// the cache catches up, however long it lags, and a retry budget
		// spent on the wait would drop the key and leave the Endpoints
		// wrong for good.
		MaxRetries: MaxRetries,
	})
	if err != nil {
		return nil, fmt.Errorf("endpoints.New: %w", err)
	}
	return c, nil
}

// Registrations returns the controller's handler registrations on the pod,
// service and endpoints informers, in that order, for a simulator that
// dispatches notifications itself.
func (c *Controller) Registrations() []*informer.Registration { return slices.Clone(c.regs) }

// EnqueueLeftovers queues the key of every cached Endpoints object, so that
// Endpoints whose service is gone (deleted while no controller ran) are
// deleted, except those used as leader-election locks. Run calls it once
// the caches have synced; a simulator calls it as a step. Kubernetes:
// checkLeftoverEndpoints.
func (c *Controller) EnqueueLeftovers() {
	for _, ep := range c.endpoints.List(api.Selector{}) {
		if _, isLock := ep.Metadata.Annotations[AnnotationLeader]; isLock {
			continue
		}
		c.queue.Add(api.KeyOf(&ep.Metadata))
	}
}

// onEndpointsUpdate queues the service of Endpoints the cache has just
// changed, if a sync found the cache stale and waits for it to catch up.
// Kubernetes' EndpointSlice controller queues the service from its slice
// handlers in the same case.
func (c *Controller) onEndpointsUpdate(oldObj, newObj api.Object) {
	key := api.KeyOf(newObj.GetObjectMeta())
	if c.stale.cacheMoved(key, oldObj.GetObjectMeta().ResourceVersion, newObj.GetObjectMeta().ResourceVersion) {
		c.log.Debug("endpoints cache caught up; syncing again", zap.String("service", key))
		c.queue.Add(key)
	}
}

// enqueueService queues a service's key at once.
func (c *Controller) enqueueService(obj api.Object) {
	c.queue.Add(api.KeyOf(obj.GetObjectMeta()))
}

// enqueueAfterBatch queues service keys after the batch period.
func (c *Controller) enqueueAfterBatch(keys []string) {
	for _, key := range keys {
		c.queue.AddAfter(key, c.batchPeriod)
	}
}

func (c *Controller) onPodAdd(obj api.Object) {
	c.enqueueServices(func(dst []string) []string { return c.podServices(obj.(*api.Pod), dst) })
}

func (c *Controller) onPodUpdate(oldObj, newObj api.Object) {
	old, cur := oldObj.(*api.Pod), newObj.(*api.Pod)
	c.enqueueServices(func(dst []string) []string { return ServicesToUpdate(old, cur, c.podServices, dst) })
}

func (c *Controller) onPodDelete(obj any) {
	if o, _ := informer.DeletedObject(obj); o != nil {
		if pod, ok := o.(*api.Pod); ok {
			c.enqueueServices(func(dst []string) []string { return c.podServices(pod, dst) })
		}
	}
}

// enqueueServices queues, after the batch period, the service keys that
// services appends to the list it is given: a buffer lent to the pod
// handler, which runs on every pod event.
func (c *Controller) enqueueServices(services func(dst []string) []string) {
	keys, _ := c.keyBuffers.Get().(*[]string)
	if keys == nil {
		keys = new([]string)
	}
	*keys = services((*keys)[:0])
	c.enqueueAfterBatch(*keys)
	clear(*keys)
	*keys = (*keys)[:0]
	c.keyBuffers.Put(keys)
}

// ServicesToUpdate returns the services a pod update concerns, sorted:
// none if nothing endpoint-relevant changed; the services of the new labels
// if only the pod changed; if only the labels changed, the services that
// gained or lost the pod; if both, the services of old and new labels.
// Kubernetes: GetServicesToUpdateOnPodChange. memberships appends a pod's
// services to a list, as ServicesToUpdate appends its answer to dst.
func ServicesToUpdate(oldPod, newPod *api.Pod, memberships func(*api.Pod, []string) []string, dst []string) []string {
	if oldPod.Metadata.ResourceVersion == newPod.Metadata.ResourceVersion {
		return dst // a resync: nothing changed
	}
	podChanged := podEndpointsChanged(oldPod, newPod)
	labelsChanged := !api.SameLabels(oldPod.Metadata.Labels, newPod.Metadata.Labels)
	if !podChanged && !labelsChanged {
		return dst
	}
	if !labelsChanged {
		return memberships(newPod, dst)
	}
	now := memberships(newPod, nil)
	before := memberships(oldPod, nil)
	set := map[string]int{}
	for _, k := range before {
		set[k] |= 1
	}
	for _, k := range now {
		set[k] |= 2
	}
	out := dst
	for _, k := range slices.Sorted(maps.Keys(set)) {
		if podChanged || set[k] != 3 {
			out = append(out, k)
		}
	}
	return out
}

// podEndpointsChanged reports whether a pod changed in a way that can
// change its place in Endpoints: deletion started, readiness, IPs, phase
// reaching an end, hostname and subdomain, or node once the pod has an IP.
// Kubernetes: podEndpointsChanged, which misses a not-ready pod that
// finishes; this one does not. Kubernetes ignores the node: "NodeName is
// immutable once initially set, which happens before the pod gets an IP",
// so the binding of a pod (a scheduler's write, one per pod) queues
// nothing, as the pod is in no Endpoints without an IP. This one does not
// rely on that order, which the server does not enforce (a client may
// write an IP on an unbound pod): a node set or changed while the pod
// has an IP counts.
func podEndpointsChanged(oldPod, newPod *api.Pod) bool {
	terminal := func(p *api.Pod) bool {
		return p.Status.Phase == api.PodSucceeded || p.Status.Phase == api.PodFailed
	}
	hasIP := func(p *api.Pod) bool { return p.Status.PodIP != "" || len(p.Status.PodIPs) > 0 }
	return (oldPod.Metadata.DeletionTimestamp == nil) != (newPod.Metadata.DeletionTimestamp == nil) ||
		api.IsPodReady(oldPod) != api.IsPodReady(newPod) ||
		oldPod.Status.PodIP != newPod.Status.PodIP ||
		!slices.Equal(oldPod.Status.PodIPs, newPod.Status.PodIPs) ||
		terminal(oldPod) != terminal(newPod) ||
		oldPod.Spec.NodeName != newPod.Spec.NodeName && (hasIP(oldPod) || hasIP(newPod)) ||
		oldPod.Spec.Hostname != newPod.Spec.Hostname ||
		oldPod.Spec.Subdomain != newPod.Spec.Subdomain
}
