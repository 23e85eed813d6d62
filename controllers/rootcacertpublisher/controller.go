package rootcacertpublisher

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

// Client is what the controller writes through: ConfigMap creates and
// updates. client.Client and *apiserver.Server satisfy it.
type Client interface {
	Create(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error)
	Update(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error)
}

// Config configures a Controller. Client, Factory and Clock are required.
type Config struct {
	// Client receives the controller's writes.
	Client Client
	// Factory provides the shared namespace and config map informers.
	Factory *informer.Factory
	// Clock is the controller's only source of time (the queue's backoff).
	Clock clock.Clock
	// RootCA is the PEM bundle to publish; empty: PlaceholderCA.
	// Kubernetes: --root-ca-file, else the controller manager's own CA.
	RootCA []byte
	// Logger is named "root-ca-certificate-publisher" by New; nil: no logs.
	Logger *zap.Logger
	// Observer, if set, is told of every sync (loop.Observer).
	Observer loop.Observer
}

// Controller keeps kube-root-ca.crt in every namespace. See the package
// documentation.
type Controller struct {
	client     Client
	log        *zap.Logger
	rootCA     string
	configMaps informer.Lister[*api.ConfigMap]
	informers  []*informer.Informer     // namespaces, config maps
	regs       []*informer.Registration // this controller's handlers, same order
	queue      *workqueue.Queue[string] // namespace names

	*loop.Loop // HasSynced, ProcessOne and Run: a manager.Controller
}

// New returns a controller whose handlers are registered on cfg.Factory's
// namespace and config map informers. It starts nothing.
func New(cfg Config) (*Controller, error) {
	if err := loop.CheckRequired("rootcacertpublisher.New", cfg.Client, cfg.Factory, cfg.Clock); err != nil {
		return nil, err
	}
	log := loop.Logger(cfg.Logger)
	rootCA := string(cfg.RootCA)
	if rootCA == "" {
		rootCA = PlaceholderCA
	}
	nsInf := cfg.Factory.ForResource(client.Namespaces)
	cmInf := cfg.Factory.ForResource(client.ConfigMaps)
	c := &Controller{
		client:     cfg.Client,
		log:        log.Named("root-ca-certificate-publisher"),
		rootCA:     rootCA,
		configMaps: informer.NewLister[*api.ConfigMap](cmInf, apierrors.GroupResource{Resource: client.ConfigMaps}),
		informers:  []*informer.Informer{nsInf, cmInf},
		queue:      workqueue.New(workqueue.Config[string]{Name: "root_ca_cert_publisher", Clock: cfg.Clock}),
	}
	enqueueNamespace := func(obj api.Object) { c.queue.Add(obj.GetObjectMeta().Name) }
	// enqueueOwn queues the namespace of a kube-root-ca.crt that changed or
	// went; other config maps are none of the publisher's business.
	enqueueOwn := func(obj api.Object) {
		if m := obj.GetObjectMeta(); m.Name == ConfigMapName {
			c.queue.Add(m.Namespace)
		}
	}
	c.regs = []*informer.Registration{
		nsInf.AddEventHandler(informer.HandlerFuncs{
			AddFunc:    func(obj api.Object, _ bool) { enqueueNamespace(obj) },
			UpdateFunc: func(_, obj api.Object) { enqueueNamespace(obj) },
		}, 0),
		cmInf.AddEventHandler(informer.HandlerFuncs{
			UpdateFunc: func(_, obj api.Object) { enqueueOwn(obj) },
			DeleteFunc: func(obj any) {
				if o, _ := informer.DeletedObject(obj); o != nil {
					enqueueOwn(o)
				}
			},
		}, 0),
	}
	var err error
	c.Loop, err = loop.New(loop.Config{
		Registrations: c.regs,
		Name:          "root-ca-certificate-publisher", Queue: c.queue, Sync: c.sync, Logger: c.log,
		Observer: cfg.Observer, Clock: cfg.Clock, Informers: c.informers,
	})
	if err != nil {
		return nil, fmt.Errorf("rootcacertpublisher.New: %w", err)
	}
	return c, nil
}

// sync makes namespace's kube-root-ca.crt what it should be. Kubernetes:
// syncNamespace.
func (c *Controller) sync(ctx context.Context, namespace string) error {
	cm, err := c.configMaps.Namespace(namespace).Get(ConfigMapName)
	switch {
	case apierrors.IsNotFound(err):
		cm = nil
	case err != nil:
		return err
	}
	create, update := Desired(namespace, cm, c.rootCA)
	switch {
	case create != nil:
		_, err = c.client.Create(ctx, create, client.Handover())
		// A namespace that is gone or terminating takes nothing new: no
		// retry. AlreadyExists (the cache is behind) is retried, as in
		// Kubernetes: the next sync sees the object and checks it.
		if apierrors.IsNotFound(err) || apierrors.HasStatusCause(err, api.NamespaceTerminatingCause) {
			return nil
		}
	case update != nil:
		_, err = c.client.Update(ctx, update, client.Handover())
		if apierrors.IsNotFound(err) {
			return nil // deleted meanwhile: its delete event queues the namespace
		}
	}
	if err != nil {
		return fmt.Errorf("publishing %s/%s: %w", namespace, ConfigMapName, err)
	}
	return nil
}
