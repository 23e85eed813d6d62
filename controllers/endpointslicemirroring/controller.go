package endpointslicemirroring

import (
	"context"
	"fmt"
	"slices"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/client/record"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/endpointslice"
	"github.com/miniplane/miniplane/controllers/loop"
	"github.com/miniplane/miniplane/controllers/workqueue"
	"github.com/miniplane/miniplane/informer"
)

// DefaultWorkers is --mirroring-concurrent-service-endpoint-syncs'
// default; MaxRetries is how often a failing key is retried before it
// waits for its next change.
const (
	DefaultWorkers = 5
	MaxRetries     = 15
)

// Client is what the controller writes through: EndpointSlices only, as
// package endpointslice's.
type Client = endpointslice.Client

// Config configures a Controller. Client, Factory and Clock are required.
type Config struct {
	// Client receives the controller's writes.
	Client Client
	// Factory provides the shared service, endpoints and EndpointSlice
	// informers.
	Factory *informer.Factory
	// Clock is the controller's only source of time (the queue's delays).
	Clock clock.Clock
	// Logger is named "endpointslice-mirroring" by New; nil means no logs.
	Logger *zap.Logger
	// Recorder, if set, records Warning events on Endpoints whose
	// addresses could not all be mirrored.
	Recorder *record.EventRecorder
	// MaxEndpointsPerSubset bounds the addresses mirrored from one subset
	// (--mirroring-max-endpoints-per-subset); 0 means
	// DefaultMaxEndpointsPerSubset.
	MaxEndpointsPerSubset int
	// Observer, if set, is told of every sync (loop.Observer).
	Observer loop.Observer
}

// Controller mirrors the hand-made Endpoints of selectorless services into
// EndpointSlices. See the package documentation.
type Controller struct {
	client   Client
	log      *zap.Logger
	recorder *record.EventRecorder
	max      int

	services  informer.Lister[*api.Service]
	endpoints informer.Lister[*api.Endpoints]
	slices    informer.Lister[*api.EndpointSlice]
	regs      []*informer.Registration // services, endpoints, slices
	queue     *workqueue.Queue[string]

	*loop.Loop // HasSynced, ProcessOne and Run: a manager.Controller
	written    *endpointslice.WriteTracker
}

// New returns a controller whose handlers are registered on cfg.Factory's
// informers. It starts nothing.
func New(cfg Config) (*Controller, error) {
	if err := loop.CheckRequired("endpointslicemirroring.New", cfg.Client, cfg.Factory, cfg.Clock); err != nil {
		return nil, err
	}
	if cfg.MaxEndpointsPerSubset < 0 || cfg.MaxEndpointsPerSubset > DefaultMaxEndpointsPerSubset {
		return nil, fmt.Errorf("endpointslicemirroring.New: Config.MaxEndpointsPerSubset %d is not within 1 to %d", cfg.MaxEndpointsPerSubset, DefaultMaxEndpointsPerSubset)
	}
	log := loop.Logger(cfg.Logger)
	svcInf := cfg.Factory.ForResource(client.Services)
	epInf := cfg.Factory.ForResource(client.Endpoints)
	sliceInf := cfg.Factory.ForResource(client.EndpointSlices)
	limit := cfg.MaxEndpointsPerSubset
	if limit == 0 {
		limit = DefaultMaxEndpointsPerSubset
	}
	c := &Controller{
		client:    cfg.Client,
		log:       log.Named("endpointslice-mirroring"),
		recorder:  cfg.Recorder,
		max:       limit,
		services:  informer.NewLister[*api.Service](svcInf, apierrors.GroupResource{Resource: client.Services}),
		endpoints: informer.NewLister[*api.Endpoints](epInf, apierrors.GroupResource{Resource: client.Endpoints}),
		slices: informer.NewLister[*api.EndpointSlice](sliceInf,
			apierrors.GroupResource{Group: "discovery.k8s.io", Resource: client.EndpointSlices}),
		queue:   workqueue.New(workqueue.Config[string]{Name: "endpoint_slice_mirroring", Clock: cfg.Clock}),
		written: endpointslice.NewWriteTracker(),
	}
	enqueue := func(obj api.Object) { c.queue.Add(api.KeyOf(obj.GetObjectMeta())) }
	onDelete := func(f func(api.Object)) func(any) {
		return func(obj any) {
			if o, _ := informer.DeletedObject(obj); o != nil {
				f(o)
			}
		}
	}
	// Endpoints that are not mirrored, before and after, change nothing.
	onEndpoints := func(objs ...api.Object) {
		for _, o := range objs {
			if ShouldMirror(o.(*api.Endpoints)) {
				enqueue(o)
				return
			}
		}
	}
	c.regs = []*informer.Registration{
		svcInf.AddEventHandler(informer.HandlerFuncs{
			AddFunc:    func(obj api.Object, _ bool) { enqueue(obj) },
			UpdateFunc: func(_, obj api.Object) { enqueue(obj) },
			DeleteFunc: onDelete(enqueue),
		}, 0),
		epInf.AddEventHandler(informer.HandlerFuncs{
			AddFunc:    func(obj api.Object, _ bool) { onEndpoints(obj) },
			UpdateFunc: func(oldObj, newObj api.Object) { onEndpoints(oldObj, newObj) },
			DeleteFunc: onDelete(func(o api.Object) { onEndpoints(o) }),
		}, 0),
		// As in package endpointslice: any change to a mirrored slice
		// queues its Endpoints.
		sliceInf.AddEventHandler(informer.HandlerFuncs{
			AddFunc:    func(obj api.Object, _ bool) { c.onSlice(obj) },
			UpdateFunc: func(oldObj, newObj api.Object) { c.onSlice(oldObj); c.onSlice(newObj) },
			DeleteFunc: onDelete(func(o api.Object) { c.written.Gone(o.GetObjectMeta()); c.onSlice(o) }),
		}, 0),
	}
	var err error
	c.Loop, err = loop.New(loop.Config{
		Registrations: c.regs,
		Name:          "endpointslice-mirroring", Queue: c.queue, Sync: c.sync, Logger: c.log, Observer: cfg.Observer, Clock: cfg.Clock,
		Informers:  []*informer.Informer{svcInf, epInf, sliceInf},
		MaxRetries: MaxRetries,
	})
	if err != nil {
		return nil, fmt.Errorf("endpointslicemirroring.New: %w", err)
	}
	return c, nil
}

// Registrations returns the controller's handler registrations on the
// service, endpoints and EndpointSlice informers.
func (c *Controller) Registrations() []*informer.Registration { return slices.Clone(c.regs) }

func (c *Controller) onSlice(obj api.Object) {
	m := obj.GetObjectMeta()
	if m.Labels[endpointslice.LabelManagedBy] != ControllerName || m.Labels[endpointslice.LabelServiceName] == "" {
		return
	}
	c.queue.Add(m.Namespace + "/" + m.Labels[endpointslice.LabelServiceName])
}

// errStaleCache: see package endpointslice.
var errStaleCache = fmt.Errorf("endpointslice cache is out of date (%w)", loop.ErrWait)

// sync mirrors one Endpoints object: observe (its service, it, its
// mirrored slices), decide (Reconcile), act. Its slices are deleted when
// the service is gone or has a selector, or the Endpoints are gone or not
// to be mirrored. Kubernetes: Controller.syncEndpoints.
func (c *Controller) sync(ctx context.Context, key string) error {
	ns, name, err := api.SplitKey(key)
	if err != nil {
		c.log.Error("dropping malformed key", zap.String("key", key), zap.Error(err))
		return nil
	}
	var existing []*api.EndpointSlice
	for _, s := range c.slices.Namespace(ns).List(api.SelectorFromSet(map[string]string{
		endpointslice.LabelServiceName: name, endpointslice.LabelManagedBy: ControllerName,
	})) {
		if s.Metadata.DeletionTimestamp == nil {
			existing = append(existing, s)
		}
	}
	svc, err := c.services.Namespace(ns).Get(name)
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	ep, err := c.endpoints.Namespace(ns).Get(name)
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	if svc == nil || svc.Spec.Selector != nil || !ShouldMirror(ep) {
		c.written.Forget(key)
		return c.apply(ctx, key, nil, Changes{Delete: existing})
	}
	if c.written.Stale(key, existing) {
		return fmt.Errorf("%w: the mirrored EndpointSlices of %s in the cache are older than this controller's last writes", errStaleCache, key)
	}
	ch := Reconcile(ep, existing, c.max)
	if ch.Invalid > 0 {
		c.warn(ctx, ep, "InvalidIPAddress", "Skipped %d invalid IP addresses when mirroring to EndpointSlices", ch.Invalid)
	}
	if ch.Skipped > ch.Invalid {
		c.warn(ctx, ep, "TooManyAddressesToMirror",
			"A max of %d addresses can be mirrored to EndpointSlices per Endpoints subset. %d addresses were skipped", c.max, ch.Skipped)
	}
	return c.apply(ctx, key, ep, ch)
}

// apply makes the writes: creates (none while the Endpoints are being
// deleted), updates, deletes. Kubernetes: reconciler.finalize.
func (c *Controller) apply(ctx context.Context, key string, ep *api.Endpoints, ch Changes) error {
	return c.written.Apply(ctx, c.client, c.log, "Endpoints "+key, key, endpointslice.Writes{
		Create: ch.Create, Update: ch.Update, Delete: ch.Delete, NoCreates: ep == nil || ep.Metadata.DeletionTimestamp != nil,
	})
}

func (c *Controller) warn(ctx context.Context, ep *api.Endpoints, reason, format string, args ...any) {
	if c.recorder == nil {
		return
	}
	if err := c.recorder.Eventf(ctx, ep, api.EventTypeWarning, reason, format, args...); err != nil {
		c.log.Debug("recording event failed", zap.String("reason", reason), zap.Error(err))
	}
}
