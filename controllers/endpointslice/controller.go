package endpointslice

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/client/record"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/endpoints"
	"github.com/miniplane/miniplane/controllers/loop"
	"github.com/miniplane/miniplane/controllers/workqueue"
	"github.com/miniplane/miniplane/informer"
)

// DefaultWorkers is --concurrent-service-endpoint-syncs' default;
// MaxRetries is how often a failing service is retried before it waits
// for its next change.
const (
	DefaultWorkers = 5
	MaxRetries     = 15
)

// Client is what the controller writes through: EndpointSlices only.
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
	// Factory provides the shared pod, service, node and EndpointSlice
	// informers.
	Factory *informer.Factory
	// Clock is the controller's only source of time (the queue's delays).
	Clock clock.Clock
	// Logger is named "endpointslice" by New; nil means no logs.
	Logger *zap.Logger
	// Recorder, if set, records a Warning event on a service whose slices
	// could not be written.
	Recorder *record.EventRecorder
	// MaxEndpointsPerSlice bounds each slice (--max-endpoints-per-slice);
	// 0 means DefaultMaxEndpointsPerSlice.
	MaxEndpointsPerSlice int
	// Observer, if set, is told of every sync (loop.Observer).
	Observer loop.Observer
}

// Controller keeps the EndpointSlices of every service with a selector.
// See the package documentation.
type Controller struct {
	client   Client
	log      *zap.Logger
	recorder *record.EventRecorder
	max      int

	// podIndexer, svcIndexer and sliceIndexer are the caches behind pods,
	// services and slices, with the controller's indexes (index.go).
	podIndexer, svcIndexer, sliceIndexer *informer.Indexer
	pods                                 informer.Lister[*api.Pod]
	services                             informer.Lister[*api.Service]
	nodes                                informer.Lister[*api.Node]
	slices                               informer.Lister[*api.EndpointSlice]
	regs                                 []*informer.Registration // pods, services, slices
	queue                                *workqueue.Queue[string]

	*loop.Loop // HasSynced, ProcessOne and Run: a manager.Controller
	written    *WriteTracker
	triggers   *triggerTracker
}

// New returns a controller whose handlers are registered on cfg.Factory's
// informers. It starts nothing.
func New(cfg Config) (*Controller, error) {
	if err := loop.CheckRequired("endpointslice.New", cfg.Client, cfg.Factory, cfg.Clock); err != nil {
		return nil, err
	}
	if cfg.MaxEndpointsPerSlice < 0 || cfg.MaxEndpointsPerSlice > MaxEndpointsPerSliceLimit {
		return nil, fmt.Errorf("endpointslice.New: Config.MaxEndpointsPerSlice %d is not within 1 to %d", cfg.MaxEndpointsPerSlice, MaxEndpointsPerSliceLimit)
	}
	log := loop.Logger(cfg.Logger)
	podInf := cfg.Factory.ForResource(client.Pods)
	svcInf := cfg.Factory.ForResource(client.Services)
	nodeInf := cfg.Factory.ForResource(client.Nodes)
	sliceInf := cfg.Factory.ForResource(client.EndpointSlices)
	for _, ix := range []struct {
		inf  *informer.Informer
		name string
		f    informer.IndexFunc
	}{{podInf, podLabelIndex, podIndexFunc}, {svcInf, serviceSelectorIndex, serviceIndexFunc}, {sliceInf, sliceServiceIndex, sliceIndexFunc}} {
		if err := addIndex(ix.inf, ix.name, ix.f); err != nil {
			return nil, err
		}
	}
	c := &Controller{
		podIndexer:   podInf.Indexer(),
		svcIndexer:   svcInf.Indexer(),
		sliceIndexer: sliceInf.Indexer(),
		client:       cfg.Client,
		log:          log.Named("endpointslice"),
		recorder:     cfg.Recorder,
		max:          cmpOr(cfg.MaxEndpointsPerSlice, DefaultMaxEndpointsPerSlice),
		pods:         informer.NewLister[*api.Pod](podInf, apierrors.GroupResource{Resource: client.Pods}),
		services:     informer.NewLister[*api.Service](svcInf, apierrors.GroupResource{Resource: client.Services}),
		nodes:        informer.NewLister[*api.Node](nodeInf, apierrors.GroupResource{Resource: client.Nodes}),
		slices: informer.NewLister[*api.EndpointSlice](sliceInf,
			apierrors.GroupResource{Group: "discovery.k8s.io", Resource: client.EndpointSlices}),
		queue:    workqueue.New(workqueue.Config[string]{Name: "endpoint_slice", Clock: cfg.Clock}),
		written:  NewWriteTracker(),
		triggers: &triggerTracker{byService: map[string]triggerState{}},
	}
	enqueue := func(obj api.Object) { c.queue.Add(api.KeyOf(obj.GetObjectMeta())) }
	c.regs = []*informer.Registration{
		podInf.AddEventHandler(informer.HandlerFuncs{
			AddFunc: func(obj api.Object, _ bool) { c.addKeys(c.podServices(obj.(*api.Pod), nil)) },
			UpdateFunc: func(oldObj, newObj api.Object) {
				c.addKeys(endpoints.ServicesToUpdate(oldObj.(*api.Pod), newObj.(*api.Pod), c.podServices, nil))
			},
			DeleteFunc: func(obj any) {
				if pod, ok := deleted(obj).(*api.Pod); ok {
					c.addKeys(c.podServices(pod, nil))
				}
			},
		}, 0),
		svcInf.AddEventHandler(informer.HandlerFuncs{
			AddFunc:    func(obj api.Object, _ bool) { enqueue(obj) },
			UpdateFunc: func(_, obj api.Object) { enqueue(obj) },
			DeleteFunc: func(obj any) {
				if o := deleted(obj); o != nil {
					enqueue(o)
				}
			},
		}, 0),
		// Any change to a slice of the controller's queues its service: a
		// slice changed or deleted by someone else is put right, and one
		// the controller wrote shows the cache has caught up with the
		// write (WriteTracker). Kubernetes queues only the former and
		// retries the latter with backoff.
		sliceInf.AddEventHandler(informer.HandlerFuncs{
			AddFunc:    func(obj api.Object, _ bool) { c.onSlice(obj) },
			UpdateFunc: func(oldObj, newObj api.Object) { c.onSlice(oldObj); c.onSlice(newObj) },
			DeleteFunc: func(obj any) {
				if o := deleted(obj); o != nil {
					c.written.Gone(o.GetObjectMeta())
					c.onSlice(o)
				}
			},
		}, 0),
	}
	var err error
	c.Loop, err = loop.New(loop.Config{
		Registrations: c.regs,
		Name:          "endpointslice", Queue: c.queue, Sync: c.sync, Logger: c.log, Observer: cfg.Observer, Clock: cfg.Clock,
		Informers:  []*informer.Informer{podInf, svcInf, nodeInf, sliceInf},
		MaxRetries: MaxRetries,
	})
	if err != nil {
		return nil, fmt.Errorf("endpointslice.New: %w", err)
	}
	return c, nil
}

// Registrations returns the controller's handler registrations on the pod,
// service and EndpointSlice informers, for a simulator that dispatches
// notifications itself.
func (c *Controller) Registrations() []*informer.Registration { return slices.Clone(c.regs) }

func deleted(obj any) api.Object {
	o, _ := informer.DeletedObject(obj)
	return o
}

func (c *Controller) addKeys(keys []string) {
	for _, k := range keys {
		c.queue.Add(k)
	}
}

// onSlice queues the service of a slice this controller manages.
func (c *Controller) onSlice(obj api.Object) {
	m := obj.GetObjectMeta()
	if m.Labels[LabelManagedBy] != ControllerName || m.Labels[LabelServiceName] == "" {
		return
	}
	c.queue.Add(m.Namespace + "/" + m.Labels[LabelServiceName])
}

// sync reconciles one service's slices: observe (the service, its pods,
// its slices, the nodes' zones), decide (Reconcile), act. Kubernetes:
// Controller.syncService.
func (c *Controller) sync(ctx context.Context, key string) error {
	ns, name, err := api.SplitKey(key)
	if err != nil {
		c.log.Error("dropping malformed key", zap.String("key", key), zap.Error(err))
		return nil
	}
	svc, err := c.services.Namespace(ns).Get(name)
	if apierrors.IsNotFound(err) {
		// Its slices are the garbage collector's: they name the service
		// as their owner.
		c.written.Forget(key)
		c.triggers.forget(key)
		return nil
	}
	if err != nil {
		return err
	}
	// An ExternalName service is a DNS alias; a service without a
	// selector has its slices mirrored from hand-made Endpoints by the
	// endpointslice-mirroring controller.
	if svc.Spec.Type == api.ServiceTypeExternalName || svc.Spec.Selector == nil {
		return nil
	}
	pods, err := c.selectedPods(ns, svc.Spec.Selector)
	if err != nil {
		return err
	}
	own, err := informer.ByIndexOf[*api.EndpointSlice](c.sliceIndexer, sliceServiceIndex, key)
	if err != nil {
		return err
	}
	var existing []*api.EndpointSlice
	for _, s := range own {
		if s.Metadata.DeletionTimestamp == nil {
			existing = append(existing, s)
		}
	}
	if c.written.Stale(key, existing) {
		return fmt.Errorf("%w: the EndpointSlices of %s in the cache are older than this controller's last writes", errStaleCache, key)
	}
	triggeredAt := c.triggers.compute(key, svc, pods)
	changes := Reconcile(Desired{
		Service: svc, Pods: pods, Existing: existing, Node: c.zone,
		MaxEndpointsPerSlice: c.max, ControllerName: ControllerName,
	})
	if err := c.apply(ctx, key, svc, changes, triggeredAt); err != nil {
		c.warn(ctx, svc, "FailedToUpdateEndpointSlices", "Error updating Endpoint Slices for Service %s: %v", key, err)
		return err
	}
	if len(changes.Skipped) > 0 {
		return fmt.Errorf("service %s: pods %s left out: their nodes are not known", key, strings.Join(changes.Skipped, ", "))
	}
	return nil
}

// zone returns a node's zone label, and whether the node exists.
func (c *Controller) zone(name string) (string, bool) {
	node, err := c.nodes.Get(name)
	if err != nil {
		return "", false
	}
	return node.Metadata.Labels[LabelZone], true
}

// apply makes the writes Reconcile decided, with the trigger time set:
// creates (none while the service is being deleted, which would race the
// garbage collector), updates, deletes. Kubernetes: Reconciler.finalize.
func (c *Controller) apply(ctx context.Context, key string, svc *api.Service, ch Changes, triggeredAt time.Time) error {
	for _, s := range slices.Concat(ch.Create, ch.Update) {
		setTriggerTime(s, triggeredAt)
	}
	return c.written.Apply(ctx, c.client, c.log, "Service "+key, key, Writes{
		Create: ch.Create, Update: ch.Update, Delete: ch.Delete, NoCreates: svc.Metadata.DeletionTimestamp != nil,
	})
}

// setTriggerTime sets or clears the last-change-trigger-time annotation of
// a slice about to be written, cloning the annotations it may share with a
// cached slice. Kubernetes: addTriggerTimeAnnotation.
func setTriggerTime(s *api.EndpointSlice, at time.Time) {
	a := make(map[string]string, len(s.Metadata.Annotations)+1)
	for k, v := range s.Metadata.Annotations {
		a[k] = v
	}
	delete(a, endpoints.AnnotationLastChangeTriggerTime)
	if !at.IsZero() {
		a[endpoints.AnnotationLastChangeTriggerTime] = at.UTC().Format(time.RFC3339Nano)
	}
	s.Metadata.Annotations = a
}

func (c *Controller) warn(ctx context.Context, svc *api.Service, reason, format string, args ...any) {
	if c.recorder == nil {
		return
	}
	if err := c.recorder.Eventf(ctx, svc, api.EventTypeWarning, reason, format, args...); err != nil {
		c.log.Debug("recording event failed", zap.String("reason", reason), zap.Error(err))
	}
}

func cmpOr(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

// errStaleCache is what sync returns when the slice cache has not caught
// up with the controller's own writes. It wraps loop.ErrWait: the slice
// handler queues the service again when the cache moves.
var errStaleCache = fmt.Errorf("endpointslice cache is out of date (%w)", loop.ErrWait)
