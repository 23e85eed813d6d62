package loop

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/workqueue"
	"github.com/miniplane/miniplane/informer"
)

// Watch says which objects a Controller watches and which keys their
// changes queue.
type Watch struct {
	// Resource is the resource whose shared informer the factory gives
	// (client.Services). Required.
	Resource string
	// Keys maps an object to the keys its add, update or delete queues;
	// nil means OwnKey. On an update both the old and the new object are
	// mapped, so an object that moves from one key to another queues both.
	Keys func(obj api.Object) []string
	// Resync, if positive, hands every cached object to the handler again
	// this often (informer.Informer.AddEventHandler).
	Resync time.Duration
}

// OwnKey maps an object to its own key, "namespace/name" (or "name").
func OwnKey(obj api.Object) []string { return []string{api.KeyOf(obj.GetObjectMeta())} }

// OwnerKeys returns a Keys function mapping an object to the keys of its
// owners of kind, from its ownerReferences: a ConfigMap owned by a Service
// queues the Service's key. Owners are in the object's namespace, as
// namespaced owner references always are.
func OwnerKeys(kind string) func(obj api.Object) []string {
	return func(obj api.Object) []string {
		m := obj.GetObjectMeta()
		var keys []string
		for _, ref := range m.OwnerReferences {
			if ref.Kind == kind {
				keys = append(keys, api.KeyOf(&api.ObjectMeta{Namespace: m.Namespace, Name: ref.Name}))
			}
		}
		return keys
	}
}

// ControllerConfig configures a Controller. Name, Factory, Clock, Reconcile
// and at least one Watch are required.
type ControllerConfig struct {
	// Name names the controller, its queue and its logger.
	Name string
	// Factory gives the shared informers of the Watches.
	Factory *informer.Factory
	// Clock is the queue's and the Observer's.
	Clock clock.Clock
	// Logger is named Name; nil logs nothing.
	Logger *zap.Logger
	// Reconcile brings the world in line with what key names. It returns
	// nil when done, an error wrapping ErrWait to wait for the next event,
	// or any other error to be retried with backoff. It reads through
	// Listers made from the Factory and writes through a client.
	Reconcile func(ctx context.Context, key string) error
	// Watches say which changes queue which keys.
	Watches []Watch
	// MaxRetries, RateLimiter and Observer are as in Config and
	// workqueue.Config.
	MaxRetries  int
	RateLimiter workqueue.RateLimiter[string]
	Observer    Observer
}

// Controller is a controller made of a reconcile function and its watches:
// it owns the queue, the handlers that fill it and the Loop that drains it.
// It satisfies controllers/manager's Controller (Run, ProcessOne,
// HasSynced), so a manager.Descriptor's Init may return it to the manager
// or the simulator; Queue lets the simulator see whether it has work.
// Kubernetes: controller-runtime's
// builder.ControllerManagedBy(mgr).For(...).Owns(...).
type Controller struct {
	*Loop // Queue, HasSynced, ProcessOne and Run
	queue *workqueue.Queue[string]
	regs  []*informer.Registration
}

// NewController registers the watches' handlers on cfg.Factory's
// informers and returns the controller. It starts nothing.
func NewController(cfg ControllerConfig) (*Controller, error) {
	switch {
	case cfg.Name == "":
		return nil, errors.New("loop.NewController: ControllerConfig.Name is required")
	case cfg.Factory == nil:
		return nil, fmt.Errorf("loop.NewController %s: ControllerConfig.Factory is required", cfg.Name)
	case cfg.Clock == nil:
		return nil, fmt.Errorf("loop.NewController %s: ControllerConfig.Clock is required", cfg.Name)
	case cfg.Reconcile == nil:
		return nil, fmt.Errorf("loop.NewController %s: ControllerConfig.Reconcile is required", cfg.Name)
	case len(cfg.Watches) == 0:
		return nil, fmt.Errorf("loop.NewController %s: ControllerConfig.Watches is empty", cfg.Name)
	}
	for i, w := range cfg.Watches {
		if w.Resource == "" {
			return nil, fmt.Errorf("loop.NewController %s: Watches[%d].Resource is required", cfg.Name, i)
		}
	}
	log := Logger(cfg.Logger)
	c := &Controller{queue: NewQueue(cfg.Name, cfg.Clock, cfg.RateLimiter)}
	var informers []*informer.Informer
	for _, w := range cfg.Watches {
		inf := cfg.Factory.ForResource(w.Resource)
		if !slices.Contains(informers, inf) {
			informers = append(informers, inf)
		}
		keys := w.Keys
		if keys == nil {
			keys = OwnKey
		}
		enqueue := func(obj api.Object) {
			for _, k := range keys(obj) {
				c.queue.Add(k)
			}
		}
		c.regs = append(c.regs, inf.AddEventHandler(informer.HandlerFuncs{
			AddFunc: func(obj api.Object, _ bool) { enqueue(obj) },
			UpdateFunc: func(oldObj, newObj api.Object) {
				enqueue(oldObj)
				enqueue(newObj)
			},
			DeleteFunc: func(obj any) {
				if o, _ := informer.DeletedObject(obj); o != nil {
					enqueue(o)
				}
			},
		}, w.Resync))
	}
	l, err := New(Config{
		Name: cfg.Name, Queue: c.queue, Sync: cfg.Reconcile, Informers: informers, Registrations: c.regs, Logger: log.Named(cfg.Name),
		MaxRetries: cfg.MaxRetries, Observer: cfg.Observer, Clock: cfg.Clock,
	})
	if err != nil {
		return nil, err
	}
	c.Loop = l
	return c, nil
}

// Registrations returns the controller's handler registrations, one per
// Watch, in order.
func (c *Controller) Registrations() []*informer.Registration { return slices.Clone(c.regs) }
