package serviceaccount

import (
	"context"
	"errors"
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

// Client is what the controller writes through: creates only.
// client.Client and *apiserver.Server satisfy it.
type Client interface {
	Create(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error)
}

// Config configures a Controller. Client, Factory and Clock are required.
type Config struct {
	// Client receives the controller's creates.
	Client Client
	// Factory provides the shared namespace and service account informers.
	Factory *informer.Factory
	// Clock is the controller's only source of time (the queue's backoff).
	Clock clock.Clock
	// Logger is named "serviceaccount" by New; nil means no logs.
	Logger *zap.Logger
	// Observer, if set, is told of every sync (loop.Observer).
	Observer loop.Observer
}

// Controller keeps the default ServiceAccount in every active namespace.
// See the package documentation.
type Controller struct {
	client     Client
	log        *zap.Logger
	namespaces informer.Lister[*api.Namespace]
	accounts   informer.Lister[*api.ServiceAccount]
	informers  []*informer.Informer     // namespaces, service accounts
	regs       []*informer.Registration // this controller's handlers, same order
	queue      *workqueue.Queue[string] // namespace names

	*loop.Loop // HasSynced, ProcessOne and Run: a manager.Controller
	// wanted are the accounts every namespace gets: DefaultName.
	// Kubernetes: ServiceAccountsControllerOptions.ServiceAccounts.
	wanted []string
}

// New returns a controller whose handlers are registered on cfg.Factory's
// namespace and service account informers. It starts nothing.
func New(cfg Config) (*Controller, error) {
	if err := loop.CheckRequired("serviceaccount.New", cfg.Client, cfg.Factory, cfg.Clock); err != nil {
		return nil, err
	}
	log := loop.Logger(cfg.Logger)
	nsInf := cfg.Factory.ForResource(client.Namespaces)
	saInf := cfg.Factory.ForResource(client.ServiceAccounts)
	c := &Controller{
		client:     cfg.Client,
		log:        log.Named("serviceaccount"),
		namespaces: informer.NewLister[*api.Namespace](nsInf, apierrors.GroupResource{Resource: client.Namespaces}),
		accounts:   informer.NewLister[*api.ServiceAccount](saInf, apierrors.GroupResource{Resource: client.ServiceAccounts}),
		informers:  []*informer.Informer{nsInf, saInf},
		queue:      workqueue.New(workqueue.Config[string]{Name: "serviceaccount", Clock: cfg.Clock}),
		wanted:     []string{DefaultName},
	}
	enqueueNamespace := func(obj api.Object) { c.queue.Add(obj.GetObjectMeta().Name) }
	c.regs = []*informer.Registration{
		// A namespace added, or one whose phase may have changed, may
		// lack its accounts.
		nsInf.AddEventHandler(informer.HandlerFuncs{
			AddFunc:    func(obj api.Object, _ bool) { enqueueNamespace(obj) },
			UpdateFunc: func(_, obj api.Object) { enqueueNamespace(obj) },
		}, 0),
		// A deleted account is created again. Adds and updates change
		// nothing the controller wants.
		saInf.AddEventHandler(informer.HandlerFuncs{
			DeleteFunc: func(obj any) {
				if o, _ := informer.DeletedObject(obj); o != nil {
					c.queue.Add(o.GetObjectMeta().Namespace)
				}
			},
		}, 0),
	}
	var err error
	c.Loop, err = loop.New(loop.Config{
		Registrations: c.regs,
		Name:          "serviceaccount", Queue: c.queue, Sync: c.sync, Logger: c.log,
		Observer: cfg.Observer, Clock: cfg.Clock, Informers: c.informers,
	})
	if err != nil {
		return nil, fmt.Errorf("serviceaccount.New: %w", err)
	}
	return c, nil
}

// sync creates the accounts namespace lacks. Kubernetes: syncNamespace.
func (c *Controller) sync(ctx context.Context, namespace string) error {
	ns, err := c.namespaces.Get(namespace)
	if apierrors.IsNotFound(err) {
		return nil // deleted: nothing to keep
	}
	if err != nil {
		return err
	}
	in := c.accounts.Namespace(namespace)
	var errs []error
	for _, name := range Missing(ns, c.wanted, func(name string) bool { _, err := in.Get(name); return err == nil }) {
		sa := &api.ServiceAccount{Metadata: api.ObjectMeta{Namespace: namespace, Name: name}}
		_, err := c.client.Create(ctx, sa, client.Handover())
		switch {
		case err == nil:
			c.log.Debug("created service account", zap.String("namespace", namespace), zap.String("name", name))
		case apierrors.IsAlreadyExists(err), apierrors.HasStatusCause(err, api.NamespaceTerminatingCause):
			// The cache was behind, or the namespace is going away:
			// nothing to retry.
		default:
			errs = append(errs, fmt.Errorf("creating service account %s/%s: %w", namespace, name, err))
		}
	}
	return errors.Join(errs...)
}
