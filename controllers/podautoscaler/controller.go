package podautoscaler

import (
	"context"
	"fmt"
	"reflect"
	"strings"
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

// SyncPeriod is how often each autoscaler is synced again. Kubernetes:
// --horizontal-pod-autoscaler-sync-period's default.
const SyncPeriod = 15 * time.Second

// Client is what the controller reads targets through and writes with.
// client.Client satisfies it.
type Client interface {
	Get(ctx context.Context, resource, namespace, name string, opts client.GetOptions) (api.Object, error)
	Update(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error)
	UpdateStatus(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error)
}

// Config configures a Controller. Client, Factory and Clock are required.
type Config struct {
	// Client reads the targets and carries every write.
	Client Client
	// Factory gives the shared autoscaler informer.
	Factory *informer.Factory
	// Clock is the controller's only source of time.
	Clock clock.Clock
	// Recorder, if set, receives the autoscalers' events.
	Recorder *record.EventRecorder
	// Logger is named "horizontal-pod-autoscaler" by New; nil: no logs.
	Logger *zap.Logger
}

// Controller syncs HorizontalPodAutoscalers. See the package
// documentation.
type Controller struct {
	client   Client
	clock    clock.Clock
	recorder *record.EventRecorder
	log      *zap.Logger
	hpas     informer.Lister[*api.HorizontalPodAutoscaler]
	queue    *workqueue.Queue[string] // namespace/name of autoscalers

	*loop.Loop // HasSynced, ProcessOne and Run: a manager.Controller
}

// New returns a controller whose handler is registered on cfg.Factory's
// autoscaler informer. It starts nothing.
func New(cfg Config) (*Controller, error) {
	if err := loop.CheckRequired("podautoscaler.New", cfg.Client, cfg.Factory, cfg.Clock); err != nil {
		return nil, err
	}
	log := loop.Logger(cfg.Logger)
	inf := cfg.Factory.ForResource(client.HorizontalPodAutoscalers)
	c := &Controller{
		client: cfg.Client, clock: cfg.Clock, recorder: cfg.Recorder, log: log.Named("horizontal-pod-autoscaler"),
		hpas:  informer.NewLister[*api.HorizontalPodAutoscaler](inf, apierrors.GroupResource{Group: "autoscaling", Resource: client.HorizontalPodAutoscalers}),
		queue: workqueue.New(workqueue.Config[string]{Name: "horizontalpodautoscaler", Clock: cfg.Clock}),
	}
	enqueue := func(o api.Object) { c.queue.Add(api.KeyOf(o.GetObjectMeta())) }
	reg := inf.AddEventHandler(informer.HandlerFuncs{
		AddFunc:    func(o api.Object, _ bool) { enqueue(o) },
		UpdateFunc: func(_, o api.Object) { enqueue(o) },
	}, 0)
	var err error
	c.Loop, err = loop.New(loop.Config{
		Registrations: []*informer.Registration{reg},
		Name:          "horizontal-pod-autoscaler", Queue: c.queue, Sync: c.sync, Logger: c.log,
		Clock: cfg.Clock, Informers: []*informer.Informer{inf},
	})
	if err != nil {
		return nil, fmt.Errorf("podautoscaler.New: %w", err)
	}
	return c, nil
}

// sync reconciles one autoscaler and queues it again a sync period later,
// as the real controller's resync does.
func (c *Controller) sync(ctx context.Context, key string) error {
	ns, name, _ := strings.Cut(key, "/")
	shared, err := c.hpas.Namespace(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	defer c.queue.AddAfter(key, SyncPeriod)
	hpa := shared.DeepCopy()
	now := c.clock.Now()
	target, resource, err := c.target(ctx, hpa)
	if err != nil {
		c.event(ctx, hpa, Event{"Warning", "FailedGetScale", err.Error()})
		setCondition(&hpa.Status, "AbleToScale", api.ConditionFalse, "FailedGetScale", "the HPA controller was unable to get the target's current scale: "+err.Error(), now)
		return c.writeStatus(ctx, shared, hpa)
	}
	d := decide(hpa, replicasOf(target), now)
	if d.Rescale {
		scaled := target.DeepCopyObject()
		setReplicas(scaled, d.Desired)
		if _, err := c.client.Update(ctx, scaled); err != nil {
			c.event(ctx, hpa, Event{"Warning", "FailedRescale", fmt.Sprintf("New size: %d; error: %v", d.Desired, err)})
			setCondition(&hpa.Status, "AbleToScale", api.ConditionFalse, "FailedUpdateScale", "the HPA controller was unable to update the target scale: "+err.Error(), now)
			_ = c.writeStatus(ctx, shared, hpa)
			return fmt.Errorf("failed to rescale %s: %w", resource, err)
		}
	}
	for _, e := range d.Events {
		c.event(ctx, hpa, e)
	}
	hpa.Status = d.Status
	return c.writeStatus(ctx, shared, hpa)
}

// writeStatus writes hpa's status when it differs from shared's.
// Kubernetes: updateStatusIfNeeded.
func (c *Controller) writeStatus(ctx context.Context, shared, hpa *api.HorizontalPodAutoscaler) error {
	if reflect.DeepEqual(shared.Status, hpa.Status) {
		return nil
	}
	_, err := c.client.UpdateStatus(ctx, hpa)
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

func (c *Controller) event(ctx context.Context, hpa *api.HorizontalPodAutoscaler, e Event) {
	if c.recorder != nil {
		_ = c.recorder.Event(ctx, hpa, e.Type, e.Reason, e.Message)
	}
}

// scalable are the kinds whose scale the controller reads, by group and
// kind, with their resource.
var scalable = map[[2]string]string{
	{"", "ReplicationController"}: client.ReplicationControllers,
	{"apps", "ReplicaSet"}:        client.ReplicaSets,
	{"apps", "Deployment"}:        client.Deployments,
	{"apps", "StatefulSet"}:       client.StatefulSets,
}

// target reads the autoscaler's target. Kubernetes: the RESTMapping and
// scale client calls of reconcileAutoscaler.
func (c *Controller) target(ctx context.Context, hpa *api.HorizontalPodAutoscaler) (api.Object, string, error) {
	ref := hpa.Spec.ScaleTargetRef
	group, _, _ := strings.Cut(ref.APIVersion, "/")
	if !strings.Contains(ref.APIVersion, "/") {
		group = ""
	}
	resource, ok := scalable[[2]string{group, ref.Kind}]
	if !ok {
		return nil, "", fmt.Errorf("no matches for kind %q in group %q", ref.Kind, group)
	}
	obj, err := c.client.Get(ctx, resource, hpa.Metadata.Namespace, ref.Name, client.GetOptions{})
	if err != nil {
		return nil, resource, err
	}
	return obj, resource, nil
}

// replicasOf is a target's spec.replicas, defaulted as its kind defaults it.
func replicasOf(o api.Object) int32 {
	var p *int32
	switch t := o.(type) {
	case *api.ReplicationController:
		p = t.Spec.Replicas
	case *api.ReplicaSet:
		p = t.Spec.Replicas
	case *api.Deployment:
		p = t.Spec.Replicas
	case *api.StatefulSet:
		p = t.Spec.Replicas
	}
	if p == nil {
		return 1
	}
	return *p
}

// setReplicas sets a target's spec.replicas; o is the caller's copy.
func setReplicas(o api.Object, n int32) {
	switch t := o.(type) {
	case *api.ReplicationController:
		t.Spec.Replicas = &n
	case *api.ReplicaSet:
		t.Spec.Replicas = &n
	case *api.Deployment:
		t.Spec.Replicas = &n
	case *api.StatefulSet:
		t.Spec.Replicas = &n
	}
}
