package garbagecollector

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

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

// Client is what the collector needs of the API server: live reads of
// owners and dependents, and the writes that delete or release them.
// client.Client and *apiserver.Server satisfy it.
type Client interface {
	Get(ctx context.Context, resource, namespace, name string, opts client.GetOptions) (api.Object, error)
	Update(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error)
	Delete(ctx context.Context, resource, namespace, name string, opts api.DeleteOptions) (api.Object, error)
}

// Config configures a Controller.
type Config struct {
	// Client reads owners live and writes. Required.
	Client Client
	// Factory provides one shared informer per watched resource. Required.
	Factory *informer.Factory
	// Clock drives the queue's backoff. Required.
	Clock clock.Clock
	// Logger is named "garbagecollector" by New; nil logs nothing.
	Logger *zap.Logger
	// Recorder, when set, records a Warning event on a dependent whose
	// ownerReference cannot be valid (a namespaced owner of a
	// cluster-scoped object). Nil records nothing.
	Recorder *record.EventRecorder
	// Resources are the resources whose objects are graphed, as owners and
	// as dependents; nil means DefaultResources (all that the server serves
	// but events, as Kubernetes' --enable-garbage-collector ignores them).
	Resources []string
	// Observer, if set, is told of every sync (loop.Observer).
	Observer loop.Observer
	// CustomResources: also graph the objects of every established
	// CustomResourceDefinition, following them as they come and go
	// (monitors.go). Run follows them itself; a collector that is stepped
	// follows them through MonitorsPending, SyncMonitors and Monitors.
	CustomResources bool
}

// Controller is the garbage collector. Kubernetes: GarbageCollector with
// its GraphBuilder.
type Controller struct {
	client   Client
	log      *zap.Logger
	recorder *record.EventRecorder
	graph    *graph
	queue    *workqueue.Queue[string]
	loop     *loop.Loop
	// watched holds the resources whose objects the informers show.
	watched map[string]bool

	informers     []*informer.Informer
	registrations []*informer.Registration

	// With Config.CustomResources: the definitions' informer and handler,
	// the factory the monitors' informers come from, and crdsChanged, a
	// pending signal that a definition changed (buffered, one).
	factory     *informer.Factory
	crds        *informer.Informer
	crdReg      *informer.Registration
	crdsChanged chan struct{}
	// monMu guards monitors, by resource. It is taken before the graph's
	// mutex, never after.
	monMu    sync.Mutex
	monitors map[string]*monitor
}

// conflictRetries bounds how often a read-modify-write is retried in place
// on a Conflict before the sync fails and is retried after a backoff.
const conflictRetries = 5

// New returns a collector that graphs the objects of cfg.Resources, with
// its handlers registered on the factory's informers. It starts nothing.
func New(cfg Config) (*Controller, error) {
	if err := loop.CheckRequired("garbagecollector", cfg.Client, cfg.Factory, cfg.Clock); err != nil {
		return nil, err
	}
	log := loop.Logger(cfg.Logger)
	resources := cfg.Resources
	if resources == nil {
		resources = DefaultResources()
	}
	c := &Controller{
		client:   cfg.Client,
		log:      log.Named("garbagecollector"),
		recorder: cfg.Recorder,
		graph:    newGraph(),
		queue:    loop.NewQueue("garbagecollector", cfg.Clock, nil),
		watched:  make(map[string]bool, len(resources)),
	}
	for _, res := range resources {
		k, ok := kindByResource(res)
		if !ok {
			return nil, fmt.Errorf("garbagecollector: resource %q is not served", res)
		}
		inf := cfg.Factory.ForResource(res)
		kind := &k // one per resource, shared by the nodes of its objects
		reg := inf.AddEventHandler(c.handler(kind), 0)
		c.watched[res] = true
		c.informers = append(c.informers, inf)
		c.registrations = append(c.registrations, reg)
	}
	waitFor := c.informers
	if cfg.CustomResources {
		c.factory, c.crdsChanged, c.monitors = cfg.Factory, make(chan struct{}, 1), make(map[string]*monitor)
		c.crds = cfg.Factory.ForResource(client.CustomResourceDefinitions)
		changed := func(api.Object) { c.definitionsChanged() }
		c.crdReg = c.crds.AddEventHandler(informer.HandlerFuncs{
			AddFunc:    func(obj api.Object, _ bool) { changed(obj) },
			UpdateFunc: func(_, obj api.Object) { changed(obj) },
			DeleteFunc: func(any) { c.definitionsChanged() },
		}, 0)
		waitFor = append(slices.Clone(waitFor), c.crds)
	}
	var err error
	c.loop, err = loop.New(loop.Config{
		Name: "garbagecollector", Queue: c.queue, Sync: c.sync, Logger: c.log, Observer: cfg.Observer, Clock: cfg.Clock,
		Informers: waitFor,
		// An owner the live read finds but the informer does not show yet
		// is retried with backoff like any failure, but it is routine.
		Quiet: func(err error) bool { return errors.Is(err, errNotShownYet) },
	})
	if err != nil {
		return nil, fmt.Errorf("garbagecollector: %w", err)
	}
	return c, nil
}

// handler graphs the objects of kind that an informer shows.
func (c *Controller) handler(kind *kindInfo) informer.HandlerFuncs {
	return informer.HandlerFuncs{
		AddFunc: func(obj api.Object, _ bool) { c.enqueue(c.graph.observe(kind, obj)) },
		UpdateFunc: func(old, obj api.Object) {
			if !unchangedForGraph(old.GetObjectMeta(), obj.GetObjectMeta()) {
				c.enqueue(c.graph.observe(kind, obj))
			}
		},
		DeleteFunc: func(obj any) {
			if o, _ := informer.DeletedObject(obj); o != nil {
				c.enqueue(c.graph.remove(o))
			}
		},
	}
}

func (c *Controller) enqueue(keys []string) {
	for _, k := range keys {
		c.queue.Add(k)
	}
}

// Queue returns the collector's work queue, for the simulator and tests.
func (c *Controller) Queue() *workqueue.Queue[string] { return c.queue }

// HasSynced reports whether every handler of the collector has been handed
// its informer's initial list.
func (c *Controller) HasSynced() bool {
	for _, r := range c.registrations {
		if !r.HasSynced() {
			return false
		}
	}
	return c.crdReg == nil || c.crdReg.HasSynced()
}

// ProcessOne is the collector's step: unless ctx is done, it syncs one
// ready work item and reports whether there was one.
func (c *Controller) ProcessOne(ctx context.Context) bool { return c.loop.ProcessOne(ctx) }

// Run waits for the informers' handlers to sync, then runs workers
// goroutines syncing work items until ctx is done; it shuts the queue down
// and returns once they have all exited. Kubernetes runs 20
// (--concurrent-gc-syncs).
// With Config.CustomResources it also follows the definitions, and stops
// its monitors before it returns.
func (c *Controller) Run(ctx context.Context, workers int) {
	if c.crds == nil {
		c.loop.Run(ctx, workers)
		return
	}
	var wg sync.WaitGroup
	wg.Go(func() { c.runMonitors(ctx) })
	c.loop.Run(ctx, workers)
	wg.Wait()
}

func (c *Controller) sync(ctx context.Context, key string) error {
	if uid, ok := strings.CutPrefix(key, deletePrefix); ok {
		return c.attemptToDelete(ctx, api.UID(uid))
	}
	if uid, ok := strings.CutPrefix(key, orphanPrefix); ok {
		return c.attemptToOrphan(ctx, api.UID(uid))
	}
	c.log.Error("unknown work key", zap.String("key", key))
	return nil
}

// get reads an object live; it returns nil, nil when the server says
// NotFound or holds another object (another UID) under the name.
func (c *Controller) get(ctx context.Context, id identity) (api.Object, error) {
	obj, err := c.client.Get(ctx, id.kind.resource, id.namespace, id.name, client.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if obj.GetObjectMeta().UID != id.uid {
		return nil, nil
	}
	return obj, nil
}

// update applies change to a fresh copy of the object of id and writes it
// with its resourceVersion, re-reading and retrying on a Conflict. change
// reports whether it changed anything; a gone object is not an error.
func (c *Controller) update(ctx context.Context, id identity, change func(api.Object) bool) error {
	var err error
	for range conflictRetries {
		var cur api.Object
		cur, err = c.get(ctx, id)
		if err != nil || cur == nil {
			return err
		}
		next := cur.DeepCopyObject()
		if !change(next) {
			return nil
		}
		_, err = c.client.Update(ctx, next)
		if apierrors.IsNotFound(err) {
			return nil
		}
		if !apierrors.IsConflict(err) {
			return err
		}
	}
	return err
}

func (id identity) String() string {
	if id.namespace == "" {
		return id.kind.kind + " " + id.name
	}
	return id.kind.kind + " " + id.namespace + "/" + id.name
}

func (id identity) fields() []zap.Field {
	return []zap.Field{zap.String("object", id.String()), zap.String("uid", string(id.uid))}
}
