package persistentvolume

import (
	"context"
	"fmt"
	"strings"

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

// maxRetries is how many times a key's sync fails in a row before it is
// dropped until its next change.
const maxRetries = 15

// The queue's keys: "claim/<namespace>/<name>" and "volume/<name>".
const (
	claimPrefix  = "claim/"
	volumePrefix = "volume/"
)

// Client is what the controller writes and reads through. client.Client
// and *apiserver.Server satisfy it.
type Client interface {
	Create(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error)
	Update(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error)
	UpdateStatus(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error)
	Delete(ctx context.Context, resource, namespace, name string, opts api.DeleteOptions) (api.Object, error)
}

// Config configures a Controller. Client, Factory and Clock are required.
type Config struct {
	// Client carries every write.
	Client Client
	// Factory gives the shared claim, volume and class informers.
	Factory *informer.Factory
	// Clock times the queue.
	Clock clock.Clock
	// Logger is named "persistentvolume-binder" by New; nil means no logs.
	Logger *zap.Logger
	// Recorder, if set, receives the claims' events (FailedBinding,
	// ProvisioningSucceeded, ...).
	Recorder *record.EventRecorder
	// Observer, if set, is told of every sync (loop.Observer).
	Observer loop.Observer
}

// Controller is the persistent volume binder with its simulated
// provisioner. See the package documentation.
type Controller struct {
	client   Client
	log      *zap.Logger
	recorder *record.EventRecorder

	claims  informer.Lister[*api.PersistentVolumeClaim]
	volumes informer.Lister[*api.PersistentVolume]
	classes informer.Lister[*api.StorageClass]

	informers []*informer.Informer
	regs      []*informer.Registration
	queue     *workqueue.Queue[string]

	*loop.Loop // HasSynced, ProcessOne and Run: a manager.Controller
}

// New returns a controller whose handlers are registered on cfg.Factory's
// informers. It starts nothing.
func New(cfg Config) (*Controller, error) {
	if err := loop.CheckRequired("persistentvolume", cfg.Client, cfg.Factory, cfg.Clock); err != nil {
		return nil, err
	}
	log := loop.Logger(cfg.Logger)
	c := &Controller{
		client: cfg.Client, log: log.Named("persistentvolume-binder"), recorder: cfg.Recorder,
		queue: loop.NewQueue("persistentvolume-binder", cfg.Clock, nil),
	}
	claimInf := cfg.Factory.ForResource(client.PersistentVolumeClaims)
	volumeInf := cfg.Factory.ForResource(client.PersistentVolumes)
	classInf := cfg.Factory.ForResource(client.StorageClasses)
	c.informers = []*informer.Informer{claimInf, volumeInf, classInf}
	c.claims = informer.NewLister[*api.PersistentVolumeClaim](claimInf, apierrors.GroupResource{Resource: client.PersistentVolumeClaims})
	c.volumes = informer.NewLister[*api.PersistentVolume](volumeInf, apierrors.GroupResource{Resource: client.PersistentVolumes})
	c.classes = informer.NewLister[*api.StorageClass](classInf, apierrors.GroupResource{Group: "storage.k8s.io", Resource: client.StorageClasses})
	each := func(f func(api.Object)) informer.HandlerFuncs {
		return informer.HandlerFuncs{
			AddFunc:    func(obj api.Object, _ bool) { f(obj) },
			UpdateFunc: func(_, cur api.Object) { f(cur) },
			DeleteFunc: func(obj any) {
				if o, _ := informer.DeletedObject(obj); o != nil {
					f(o)
				}
			},
		}
	}
	c.regs = []*informer.Registration{
		claimInf.AddEventHandler(each(func(o api.Object) {
			c.queue.Add(claimPrefix + informer.KeyOf(o))
			if v := o.(*api.PersistentVolumeClaim).Spec.VolumeName; v != "" {
				c.queue.Add(volumePrefix + v)
			}
		}), 0),
		volumeInf.AddEventHandler(each(func(o api.Object) {
			pv := o.(*api.PersistentVolume)
			c.queue.Add(volumePrefix + pv.Metadata.Name)
			if ref := pv.Spec.ClaimRef; ref != nil {
				c.queue.Add(claimPrefix + ref.Namespace + "/" + ref.Name)
			} else {
				c.enqueuePending()
			}
		}), 0),
		classInf.AddEventHandler(each(func(api.Object) { c.enqueuePending() }), 0),
	}
	var err error
	c.Loop, err = loop.New(loop.Config{
		Registrations: c.regs,
		Name:          "persistentvolume-binder", Queue: c.queue, Sync: c.sync, Logger: c.log, MaxRetries: maxRetries,
		Observer: cfg.Observer, Clock: cfg.Clock, Informers: c.informers,
	})
	if err != nil {
		return nil, fmt.Errorf("persistentvolume: %w", err)
	}
	return c, nil
}

// enqueuePending enqueues every claim not yet bound: a volume freed or a
// class made may be what it waits for.
func (c *Controller) enqueuePending() {
	for _, pvc := range c.claims.List(api.Selector{}) {
		if pvc.Status.Phase != api.ClaimBound {
			c.queue.Add(claimPrefix + informer.KeyOf(pvc))
		}
	}
}

func (c *Controller) sync(ctx context.Context, key string) error {
	if name, ok := strings.CutPrefix(key, volumePrefix); ok {
		return c.syncVolume(ctx, name)
	}
	namespace, name, err := api.SplitKey(strings.TrimPrefix(key, claimPrefix))
	if err != nil {
		c.log.Error("bad key", zap.String("key", key), zap.Error(err))
		return nil
	}
	claim, err := c.claims.Namespace(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	return c.syncClaim(ctx, claim)
}

// syncClaim binds an unbound claim, provisioning its volume first when it
// must, and marks a bound claim whose volume is gone Lost. Kubernetes:
// syncClaim, syncUnboundClaim and syncBoundClaim.
func (c *Controller) syncClaim(ctx context.Context, claim *api.PersistentVolumeClaim) error {
	if claim.Metadata.DeletionTimestamp != nil {
		return nil
	}
	if claim.Spec.VolumeName != "" && claim.Metadata.Annotations[AnnBindCompleted] == "yes" {
		pv, err := c.volumes.Get(claim.Spec.VolumeName)
		if apierrors.IsNotFound(err) {
			if claim.Status.Phase == api.ClaimLost {
				return nil
			}
			c.event(ctx, claim, Event{Warning: true, Reason: "ClaimLost", Message: "Bound claim has lost its PersistentVolume. Data on the volume is lost!"})
			next := claim.DeepCopy()
			next.Status.Phase = api.ClaimLost
			_, err = c.client.UpdateStatus(ctx, next)
			return err
		}
		if err != nil {
			return err
		}
		return c.bind(ctx, claim, pv)
	}
	var volumes []*api.PersistentVolume
	if claim.Spec.VolumeName != "" {
		// Pre-bound by its author: that volume or none.
		if pv, err := c.volumes.Get(claim.Spec.VolumeName); err == nil && (pv.Spec.ClaimRef == nil || boundTo(pv, claim)) {
			volumes = []*api.PersistentVolume{pv}
		} else {
			c.event(ctx, claim, Event{Reason: "FailedBinding", Message: fmt.Sprintf("volume %q not found or already bound to a different claim", claim.Spec.VolumeName)})
			return nil
		}
	} else {
		volumes = c.volumes.List(api.Selector{})
	}
	classes := map[string]*api.StorageClass{}
	for _, sc := range c.classes.List(api.Selector{}) {
		classes[sc.Metadata.Name] = sc
	}
	d := DecideClaim(claim, volumes, classes)
	switch {
	case d.Bind != nil:
		return c.bind(ctx, claim, d.Bind)
	case d.Provision != nil:
		_, err := c.client.Create(ctx, d.Provision)
		if apierrors.IsAlreadyExists(err) {
			return nil // made by an earlier sync; its event brings the claim back
		}
		if err != nil {
			c.event(ctx, claim, Event{Warning: true, Reason: "ProvisioningFailed", Message: err.Error()})
			return err
		}
		c.event(ctx, claim, Event{Reason: "ProvisioningSucceeded",
			Message: fmt.Sprintf("Successfully provisioned volume %s using %s", d.Provision.Metadata.Name, Provisioner)})
	case d.Event != nil:
		c.event(ctx, claim, *d.Event)
	}
	return nil
}

// bind writes the binding in Kubernetes' order: the volume's claimRef,
// its phase, the claim's volumeName and annotations, its phase. Each write
// is skipped when already made, so a sync that failed half way resumes.
// Kubernetes: bind.
func (c *Controller) bind(ctx context.Context, claim *api.PersistentVolumeClaim, pv *api.PersistentVolume) error {
	if next := BindVolume(pv, claim); next != nil {
		obj, err := c.client.Update(ctx, next)
		if err != nil {
			return err
		}
		pv = obj.(*api.PersistentVolume)
	}
	if pv.Status.Phase != api.VolumeBound {
		next := pv.DeepCopy()
		next.Status.Phase = api.VolumeBound
		if _, err := c.client.UpdateStatus(ctx, next); err != nil {
			return err
		}
	}
	if next := BindClaim(claim, pv); next != nil {
		obj, err := c.client.Update(ctx, next)
		if err != nil {
			return err
		}
		claim = obj.(*api.PersistentVolumeClaim)
	}
	if claim.Status.Phase != api.ClaimBound {
		next := claim.DeepCopy()
		next.Status = ClaimStatus(claim, pv)
		if _, err := c.client.UpdateStatus(ctx, next); err != nil {
			return err
		}
	}
	return nil
}

// syncVolume keeps a volume's phase and deletes a released one this
// controller provisioned with policy Delete. Kubernetes: syncVolume and
// reclaimVolume.
func (c *Controller) syncVolume(ctx context.Context, name string) error {
	pv, err := c.volumes.Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil || pv.Metadata.DeletionTimestamp != nil {
		return err
	}
	var claim *api.PersistentVolumeClaim
	if ref := pv.Spec.ClaimRef; ref != nil {
		claim, err = c.claims.Namespace(ref.Namespace).Get(ref.Name)
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	d := DecideVolume(pv, claim)
	if d.Phase != pv.Status.Phase {
		next := pv.DeepCopy()
		next.Status.Phase = d.Phase
		if _, err := c.client.UpdateStatus(ctx, next); err != nil {
			return err
		}
	}
	if d.Delete {
		_, err := c.client.Delete(ctx, client.PersistentVolumes, "", name, api.DeleteOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	}
	return nil
}

func (c *Controller) event(ctx context.Context, claim *api.PersistentVolumeClaim, e Event) {
	if c.recorder == nil {
		return
	}
	typ := api.EventTypeNormal
	if e.Warning {
		typ = api.EventTypeWarning
	}
	_ = c.recorder.Event(ctx, claim, typ, e.Reason, e.Message)
}
