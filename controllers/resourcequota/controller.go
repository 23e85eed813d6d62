package resourcequota

import (
	"context"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/api/quota"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/loop"
	"github.com/miniplane/miniplane/informer"
)

// DefaultResync is how often every quota is recounted in full: Kubernetes'
// --resource-quota-sync-period.
const DefaultResync = 5 * time.Minute

// Counted are the resources whose objects count against quotas, by group:
// the namespaced kinds miniplane serves that a learner creates.
var Counted = []apierrors.GroupResource{
	{Resource: client.Pods}, {Resource: client.Services}, {Resource: client.ConfigMaps},
	{Resource: client.Secrets}, {Resource: client.ReplicationControllers},
	{Resource: client.PersistentVolumeClaims}, {Resource: client.ResourceQuotas},
	{Group: "apps", Resource: client.ReplicaSets}, {Group: "apps", Resource: client.Deployments},
	{Group: "apps", Resource: client.StatefulSets},
	{Group: "batch", Resource: client.Jobs}, {Group: "batch", Resource: client.CronJobs},
}

// Client is what the controller writes through. client.Client satisfies it.
type Client interface {
	UpdateStatus(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error)
}

// Config configures a Controller. Client, Factory and Clock are required.
type Config struct {
	Client  Client
	Factory *informer.Factory
	// Clock is the queue's, the resync's and "now" for pods past their
	// deletion grace period.
	Clock clock.Clock
	// Resync is how often each quota is recounted; 0 means DefaultResync.
	Resync time.Duration
	// Logger is named "resourcequota" by New; nil means no logs.
	Logger *zap.Logger
	// Observer, if set, is told of every sync (loop.Observer).
	Observer loop.Observer
}

// Controller is the resourcequota controller. See the package documentation.
type Controller struct {
	client  Client
	clock   clock.Clock
	resync  time.Duration
	log     *zap.Logger
	quotas  informer.Lister[*api.ResourceQuota]
	objects []counted

	*loop.Controller // Queue, HasSynced, ProcessOne and Run
}

// counted is one counted resource and its cache.
type counted struct {
	gr    apierrors.GroupResource
	cache informer.Lister[api.Object]
}

// New returns a controller whose handlers are registered on cfg.Factory's
// informers of the quotas and of every Counted resource. It starts nothing.
func New(cfg Config) (*Controller, error) {
	if err := loop.CheckRequired("resourcequota", cfg.Client, cfg.Factory, cfg.Clock); err != nil {
		return nil, err
	}
	log := loop.Logger(cfg.Logger)
	c := &Controller{client: cfg.Client, clock: cfg.Clock, resync: cfg.Resync, log: log.Named("resourcequota")}
	if c.resync <= 0 {
		c.resync = DefaultResync
	}
	c.quotas = informer.NewLister[*api.ResourceQuota](cfg.Factory.ForResource(client.ResourceQuotas), apierrors.GroupResource{Resource: client.ResourceQuotas})
	watches := []loop.Watch{{Resource: client.ResourceQuotas, Keys: func(obj api.Object) []string {
		// A quota is recounted when its hard limits are not yet enforced
		// as they are written, as Kubernetes' addQuota and updateQuota
		// filter; its own status writes queue nothing.
		if q, ok := obj.(*api.ResourceQuota); ok && needsSync(q) {
			return loop.OwnKey(obj)
		}
		return nil
	}}}
	for _, gr := range Counted {
		inf := cfg.Factory.ForResource(gr.Resource)
		c.objects = append(c.objects, counted{gr: gr, cache: informer.NewLister[api.Object](inf, gr)})
		if gr.Resource == client.ResourceQuotas {
			continue
		}
		watches = append(watches, loop.Watch{Resource: gr.Resource, Keys: c.quotasOf})
	}
	var err error
	c.Controller, err = loop.NewController(loop.ControllerConfig{
		Name: "resourcequota", Factory: cfg.Factory, Clock: cfg.Clock, Logger: log,
		Reconcile: c.sync, Observer: cfg.Observer, Watches: watches,
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// quotasOf maps a counted object to the keys of its namespace's quotas.
func (c *Controller) quotasOf(obj api.Object) []string {
	var keys []string
	for _, q := range c.quotas.Namespace(obj.GetObjectMeta().Namespace).List(api.Selector{}) {
		keys = append(keys, api.KeyOf(&q.Metadata))
	}
	return keys
}

// needsSync: Kubernetes' check that status.hard is spec.hard and every
// hard resource has a used.
func needsSync(q *api.ResourceQuota) bool {
	if !quota.Equal(q.Spec.Hard, q.Status.Hard) {
		return true
	}
	for name := range q.Spec.Hard {
		if _, ok := q.Status.Used[name]; !ok {
			return true
		}
	}
	return false
}

// sync recounts the quota under key and writes its status if it changed,
// then queues it again for the next resync. Kubernetes: syncResourceQuota.
func (c *Controller) sync(ctx context.Context, key string) error {
	ns, name, err := api.SplitKey(key)
	if err != nil {
		return nil // not a quota key: nothing will ever make it one
	}
	q, err := c.quotas.Namespace(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	var objects []Object
	for _, oc := range c.objects {
		for _, obj := range oc.cache.Namespace(ns).List(api.Selector{}) {
			objects = append(objects, Object{Group: oc.gr.Group, Resource: oc.gr.Resource, Obj: obj})
		}
	}
	used := Used(q, objects, c.clock.Now())
	if quota.Equal(q.Status.Hard, q.Spec.Hard) && quota.Equal(q.Status.Used, used) {
		c.Queue().AddAfter(key, c.resync)
		return nil
	}
	next := q.DeepCopy()
	next.Status = api.ResourceQuotaStatus{Hard: q.Spec.Hard.DeepCopy(), Used: used}
	if _, err := c.client.UpdateStatus(ctx, next); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("update status of quota %s: %w", key, err)
	}
	c.log.Debug("quota recounted", zap.String("quota", key), zap.Any("used", used))
	c.Queue().AddAfter(key, c.resync)
	return nil
}

// Object is one cached object of a counted resource.
type Object struct {
	Group, Resource string
	Obj             api.Object
}

// Used is what objects, all of the quota's namespace, use of each resource
// in q's spec.hard at now: the sum of the usage of each object q's scopes
// select, "0" for a resource nothing uses. Kubernetes: CalculateUsage.
func Used(q *api.ResourceQuota, objects []Object, now time.Time) api.ResourceList {
	hard := make([]string, 0, len(q.Spec.Hard))
	for name := range q.Spec.Hard {
		hard = append(hard, name)
	}
	used := api.ResourceList{}
	for _, o := range objects {
		if quota.Selects(q, o.Obj) {
			used = quota.Add(used, quota.Mask(quota.Usage(o.Group, o.Resource, o.Obj, now), hard))
		}
	}
	for _, name := range hard {
		if _, ok := used[name]; !ok {
			used[name] = "0"
		}
	}
	return used
}
