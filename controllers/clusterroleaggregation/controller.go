package clusterroleaggregation

import (
	"context"
	"fmt"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/loop"
	"github.com/miniplane/miniplane/controllers/workqueue"
	"github.com/miniplane/miniplane/informer"
)

// Client is what the controller writes through: cluster role updates.
// client.Client and *apiserver.Server satisfy it.
type Client interface {
	Update(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error)
}

// Config configures a Controller. Client, Factory and Clock are required.
type Config struct {
	// Client receives the controller's writes.
	Client Client
	// Factory provides the shared cluster role informer.
	Factory *informer.Factory
	// Clock is the controller's only source of time (the queue's backoff).
	Clock clock.Clock
	// Logger is named "clusterrole-aggregation" by New; nil: no logs.
	Logger *zap.Logger
	// Observer, if set, is told of every sync (loop.Observer).
	Observer loop.Observer
}

// Controller keeps aggregated cluster roles' rules. See the package
// documentation.
type Controller struct {
	client Client
	log    *zap.Logger
	roles  informer.Lister[*api.ClusterRole]
	queue  *workqueue.Queue[string] // names of aggregating cluster roles

	*loop.Loop // HasSynced, ProcessOne and Run: a manager.Controller
}

// New returns a controller whose handler is registered on cfg.Factory's
// cluster role informer. It starts nothing.
func New(cfg Config) (*Controller, error) {
	if err := loop.CheckRequired("clusterroleaggregation.New", cfg.Client, cfg.Factory, cfg.Clock); err != nil {
		return nil, err
	}
	log := loop.Logger(cfg.Logger)
	inf := cfg.Factory.ForResource(client.ClusterRoles)
	c := &Controller{
		client: cfg.Client,
		log:    log.Named("clusterrole-aggregation"),
		roles:  informer.NewLister[*api.ClusterRole](inf, apierrors.GroupResource{Group: api.RBACGroupName, Resource: client.ClusterRoles}),
		queue:  workqueue.New(workqueue.Config[string]{Name: "ClusterRoleAggregator", Clock: cfg.Clock}),
	}
	// Any change may change what any aggregating role selects: queue them
	// all, as Kubernetes' enqueue does.
	enqueueAll := func() {
		for _, r := range c.roles.List(api.Selector{}) {
			if r.AggregationRule != nil {
				c.queue.Add(r.Metadata.Name)
			}
		}
	}
	reg := inf.AddEventHandler(informer.HandlerFuncs{
		AddFunc:    func(api.Object, bool) { enqueueAll() },
		UpdateFunc: func(_, _ api.Object) { enqueueAll() },
		DeleteFunc: func(any) { enqueueAll() },
	}, 0)
	var err error
	c.Loop, err = loop.New(loop.Config{
		Registrations: []*informer.Registration{reg},
		Name:          "clusterrole-aggregation", Queue: c.queue, Sync: c.sync, Logger: c.log,
		Observer: cfg.Observer, Clock: cfg.Clock, Informers: []*informer.Informer{inf},
	})
	if err != nil {
		return nil, fmt.Errorf("clusterroleaggregation.New: %w", err)
	}
	return c, nil
}

// sync writes the aggregated rules of the cluster role name when they
// changed. Kubernetes: syncClusterRole.
func (c *Controller) sync(ctx context.Context, name string) error {
	role, err := c.roles.Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	rules, ok := Aggregate(role, c.roles.List(api.Selector{}))
	if !ok || SameRules(rules, role.Rules) {
		return nil
	}
	updated := role.DeepCopy()
	updated.Rules = rules
	if _, err := c.client.Update(ctx, updated, client.Handover()); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("aggregating cluster role %s: %w", name, err)
	}
	c.log.Debug("aggregated", zap.String("clusterrole", name), zap.Int("rules", len(rules)))
	return nil
}
