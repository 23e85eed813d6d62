package deployment

import (
	"context"
	"fmt"
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

// The kind a replica set's controller reference names when a deployment
// owns it. Kubernetes: controllerKind.
const (
	controllerKind       = "Deployment"
	controllerAPIVersion = "apps/v1"
)

// maxRetries is how many times a deployment's sync fails in a row before
// the key is dropped until its next change. Kubernetes: maxRetries (15).
const maxRetries = 15

// Client is what the controller writes through, and the uncached read it
// makes before adopting. client.Client and *apiserver.Server satisfy it.
type Client interface {
	Create(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error)
	Get(ctx context.Context, resource, namespace, name string, opts client.GetOptions) (api.Object, error)
	Update(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error)
	UpdateStatus(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error)
	Delete(ctx context.Context, resource, namespace, name string, opts api.DeleteOptions) (api.Object, error)
}

// Config configures a Controller. Client, Factory and Clock are required.
type Config struct {
	// Client carries every write and the uncached recheck before adoption.
	Client Client
	// Factory gives the shared deployment, replica set and pod informers.
	Factory *informer.Factory
	// Clock stamps the conditions, times the progress deadline and the
	// queue.
	Clock clock.Clock
	// Logger is named "deployment" by New; nil means no logs.
	Logger *zap.Logger
	// Recorder, if set, receives ScalingReplicaSet, SelectingAll and
	// ReplicaSetCreateError events about the deployments.
	Recorder *record.EventRecorder
	// RateLimiter is the queue's; nil means the default controller limiter.
	RateLimiter workqueue.RateLimiter[string]
	// Observer, if set, is told of every sync (loop.Observer).
	Observer loop.Observer
}

// Controller is the deployment controller. See the package documentation.
type Controller struct {
	client   Client
	clock    clock.Clock
	log      *zap.Logger
	recorder *record.EventRecorder

	deployments informer.Lister[*api.Deployment]
	rss         informer.Lister[*api.ReplicaSet]
	pods        informer.Lister[*api.Pod]
	// rsInformer holds informer.ControllerIndex.
	rsInformer *informer.Informer

	informers []*informer.Informer
	regs      []*informer.Registration

	// queue holds the keys ("namespace/name") of deployments to sync.
	queue *workqueue.Queue[string]

	*loop.Loop // HasSynced, ProcessOne and Run: a manager.Controller
}

// New returns a controller whose handlers are registered on cfg.Factory's
// deployment, replica set and pod informers. It starts nothing.
func New(cfg Config) (*Controller, error) {
	if err := loop.CheckRequired("deployment", cfg.Client, cfg.Factory, cfg.Clock); err != nil {
		return nil, err
	}
	log := loop.Logger(cfg.Logger)
	c := &Controller{
		client: cfg.Client, clock: cfg.Clock, log: log.Named("deployment"), recorder: cfg.Recorder,
		queue: loop.NewQueue("deployment", cfg.Clock, cfg.RateLimiter),
	}
	dInf := cfg.Factory.ForResource(client.Deployments)
	rsInf := cfg.Factory.ForResource(client.ReplicaSets)
	podInf := cfg.Factory.ForResource(client.Pods)
	c.informers = []*informer.Informer{dInf, rsInf, podInf}
	c.rsInformer = rsInf
	if err := informer.AddControllerIndex(rsInf.Indexer()); err != nil {
		return nil, err
	}
	c.deployments = informer.NewLister[*api.Deployment](dInf, apierrors.GroupResource{Group: "apps", Resource: client.Deployments})
	c.rss = informer.NewLister[*api.ReplicaSet](rsInf, apierrors.GroupResource{Group: "apps", Resource: client.ReplicaSets})
	c.pods = informer.NewLister[*api.Pod](podInf, apierrors.GroupResource{Resource: client.Pods})
	c.regs = []*informer.Registration{
		dInf.AddEventHandler(informer.HandlerFuncs{
			AddFunc:    func(obj api.Object, _ bool) { c.enqueue(obj.(*api.Deployment)) },
			UpdateFunc: func(_, cur api.Object) { c.enqueue(cur.(*api.Deployment)) },
			DeleteFunc: c.deleteDeployment,
		}, 0),
		rsInf.AddEventHandler(informer.HandlerFuncs{
			AddFunc:    func(obj api.Object, _ bool) { c.addReplicaSet(obj.(*api.ReplicaSet)) },
			UpdateFunc: c.updateReplicaSet,
			DeleteFunc: c.deleteReplicaSet,
		}, 0),
		// Pods matter only when they go: a Recreate rollout waits for the
		// last old one.
		podInf.AddEventHandler(informer.HandlerFuncs{DeleteFunc: c.deletePod}, 0),
	}
	var err error
	c.Loop, err = loop.New(loop.Config{
		Registrations: c.regs,
		Name:          "deployment", Queue: c.queue, Sync: c.sync, Logger: c.log, MaxRetries: maxRetries,
		Observer: cfg.Observer, Clock: cfg.Clock, Informers: c.informers,
	})
	if err != nil {
		return nil, fmt.Errorf("deployment: %w", err)
	}
	return c, nil
}

// ---- event handlers: they queue keys and call nothing ----

func (c *Controller) enqueue(d *api.Deployment) { c.queue.Add(api.KeyOf(&d.Metadata)) }

func (c *Controller) deleteDeployment(obj any) {
	if o, _ := informer.DeletedObject(obj); o != nil {
		if d, ok := o.(*api.Deployment); ok {
			c.enqueue(d)
		}
	}
}

// addReplicaSet wakes the set's deployment or, for an orphan, every
// deployment that could adopt it. Kubernetes: addReplicaSet.
func (c *Controller) addReplicaSet(rs *api.ReplicaSet) {
	if rs.Metadata.DeletionTimestamp != nil {
		c.deleteReplicaSet(rs) // seen for the first time already going
		return
	}
	if ref := api.GetControllerOf(&rs.Metadata); ref != nil {
		if d := c.resolveControllerRef(rs.Metadata.Namespace, ref); d != nil {
			c.enqueue(d)
		}
		return
	}
	for _, d := range c.deploymentsFor(rs) {
		c.enqueue(d)
	}
}

// updateReplicaSet wakes the deployments a set's change concerns: its
// former and current owners, and for an orphan whose labels or owner
// changed every deployment that could adopt it. Kubernetes:
// updateReplicaSet.
func (c *Controller) updateReplicaSet(oldObj, newObj api.Object) {
	old, cur := oldObj.(*api.ReplicaSet), newObj.(*api.ReplicaSet)
	if old.Metadata.ResourceVersion == cur.Metadata.ResourceVersion {
		return // a resync
	}
	curRef, oldRef := api.GetControllerOf(&cur.Metadata), api.GetControllerOf(&old.Metadata)
	refChanged := (curRef == nil) != (oldRef == nil) || (curRef != nil && curRef.UID != oldRef.UID)
	if refChanged && oldRef != nil {
		if d := c.resolveControllerRef(old.Metadata.Namespace, oldRef); d != nil {
			c.enqueue(d)
		}
	}
	if curRef != nil {
		if d := c.resolveControllerRef(cur.Metadata.Namespace, curRef); d != nil {
			c.enqueue(d)
		}
		return
	}
	if refChanged || !api.SameLabels(old.Metadata.Labels, cur.Metadata.Labels) {
		for _, d := range c.deploymentsFor(cur) {
			c.enqueue(d)
		}
	}
}

// deleteReplicaSet wakes the deleted set's deployment. Kubernetes:
// deleteReplicaSet.
func (c *Controller) deleteReplicaSet(obj any) {
	o, _ := informer.DeletedObject(obj)
	rs, ok := o.(*api.ReplicaSet)
	if !ok {
		return
	}
	if ref := api.GetControllerOf(&rs.Metadata); ref != nil {
		if d := c.resolveControllerRef(rs.Metadata.Namespace, ref); d != nil {
			c.enqueue(d)
		}
	}
}

// deletePod wakes a Recreate deployment once its last pod is gone.
// Kubernetes: deletePod.
func (c *Controller) deletePod(obj any) {
	o, _ := informer.DeletedObject(obj)
	pod, ok := o.(*api.Pod)
	if !ok {
		return
	}
	d := c.deploymentForPod(pod)
	if d == nil || d.Spec.Strategy.Type != api.RecreateDeploymentStrategyType {
		return
	}
	rsList := c.ownedReplicaSets(d)
	n := 0
	for _, pods := range c.podMap(d, rsList) {
		n += len(pods)
	}
	if n == 0 {
		c.enqueue(d)
	}
}

// deploymentForPod returns the deployment that owns the replica set that
// owns pod, from the caches, or nil.
func (c *Controller) deploymentForPod(pod *api.Pod) *api.Deployment {
	ref := api.GetControllerOf(&pod.Metadata)
	if ref == nil || ref.Kind != "ReplicaSet" {
		return nil
	}
	rs, err := c.rss.Namespace(pod.Metadata.Namespace).Get(ref.Name)
	if err != nil || rs.Metadata.UID != ref.UID {
		return nil
	}
	rsRef := api.GetControllerOf(&rs.Metadata)
	if rsRef == nil {
		return nil
	}
	return c.resolveControllerRef(rs.Metadata.Namespace, rsRef)
}

// resolveControllerRef returns the cached deployment a controller
// reference names, or nil if it names another kind, none is cached, or the
// cached one is a namesake (another UID).
func (c *Controller) resolveControllerRef(namespace string, ref *api.OwnerReference) *api.Deployment {
	if ref.Kind != controllerKind {
		return nil
	}
	d, err := c.deployments.Namespace(namespace).Get(ref.Name)
	if err != nil || d.Metadata.UID != ref.UID {
		return nil
	}
	return d
}

// deploymentsFor returns the cached deployments of rs's namespace whose
// selector matches its labels (an empty or invalid selector matches
// nothing). Kubernetes: getDeploymentsForReplicaSet.
func (c *Controller) deploymentsFor(rs *api.ReplicaSet) []*api.Deployment {
	if len(rs.Metadata.Labels) == 0 {
		return nil
	}
	var out []*api.Deployment
	for _, d := range c.deployments.Namespace(rs.Metadata.Namespace).List(api.Selector{}) {
		sel, err := api.LabelSelectorAsSelector(d.Spec.Selector)
		if err != nil || sel.Empty() {
			continue
		}
		if sel.Matches(rs.Metadata.Labels) {
			out = append(out, d)
		}
	}
	return out
}

// ---- observe: the sets and pods of a deployment ----

// ownedReplicaSets returns the cached sets of d's namespace that d
// controls, whether or not its selector still matches them.
func (c *Controller) ownedReplicaSets(d *api.Deployment) []*api.ReplicaSet {
	return c.claimableReplicaSets(d, false)
}

// podMap returns the pods d's selector matches, grouped by the set of
// rsList that controls them; every set has an entry. Inactive pods count:
// a Recreate rollout waits until no old pod runs at all. Kubernetes:
// getPodMapForDeployment.
func (c *Controller) podMap(d *api.Deployment, rsList []*api.ReplicaSet) map[api.UID][]*api.Pod {
	out := make(map[api.UID][]*api.Pod, len(rsList))
	for _, rs := range rsList {
		out[rs.Metadata.UID] = nil
	}
	sel, err := api.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return out
	}
	for _, p := range c.pods.Namespace(d.Metadata.Namespace).List(sel) {
		ref := api.GetControllerOf(&p.Metadata)
		if ref == nil {
			continue
		}
		if pods, ok := out[ref.UID]; ok {
			out[ref.UID] = append(pods, p)
		}
	}
	return out
}

// ---- the sync ----

// sync reconciles one deployment. Kubernetes: syncDeployment. The order
// of its steps is upstream's; see the package documentation.
func (c *Controller) sync(ctx context.Context, key string) error {
	namespace, name, err := api.SplitKey(key)
	if err != nil {
		c.log.Error("bad key", zap.String("key", key), zap.Error(err))
		return nil
	}
	cached, err := c.deployments.Namespace(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		return nil // the garbage collector deletes its sets
	}
	if err != nil {
		return err
	}
	return c.syncDeployment(ctx, cached.DeepCopy())
}

// syncDeployment reconciles d, the sync's own copy: decisions write into
// it.
func (c *Controller) syncDeployment(ctx context.Context, d *api.Deployment) error {
	if d.Spec.Selector != nil && len(d.Spec.Selector.MatchLabels) == 0 && len(d.Spec.Selector.MatchExpressions) == 0 {
		c.event(ctx, d, nil, api.EventTypeWarning, "SelectingAll", "This deployment is selecting all pods. A non-empty selector is required.")
		if d.Status.ObservedGeneration < d.Metadata.Generation {
			d.Status.ObservedGeneration = d.Metadata.Generation
			_, _ = c.client.UpdateStatus(ctx, d)
		}
		return nil
	}
	rsList, err := c.claimReplicaSets(ctx, d)
	if err != nil {
		return err
	}

	if d.Metadata.DeletionTimestamp != nil {
		return c.syncStatusOnly(ctx, d, rsList)
	}
	// An Unknown condition on pausing and resuming: a deployment resumed
	// after longer than its deadline must not time out at once.
	if err := c.checkPausedConditions(ctx, d); err != nil {
		return err
	}
	if d.Spec.Paused {
		return c.syncScale(ctx, d, rsList)
	}
	newRS := FindNewReplicaSet(d, rsList)
	_, oldRSs := FindOldReplicaSets(d, rsList)
	if IsScalingEvent(d, append(oldRSs, newRS)) {
		return c.syncScale(ctx, d, rsList)
	}
	switch d.Spec.Strategy.Type {
	case api.RecreateDeploymentStrategyType:
		// Only Recreate reads the pods: podMap lists the namespace's, a
		// cost upstream pays on every sync of every deployment.
		return c.rolloutRecreate(ctx, d, rsList, c.podMap(d, rsList))
	case api.RollingUpdateDeploymentStrategyType:
		return c.rolloutRolling(ctx, d, rsList)
	}
	return fmt.Errorf("unexpected deployment strategy type: %s", d.Spec.Strategy.Type)
}

// ---- act: the writes ----

// writeStatus writes d's status (d is the sync's own) and takes the
// written resourceVersion into d, so that a later write of this sync is
// not refused as stale.
func (c *Controller) writeStatus(ctx context.Context, d *api.Deployment) error {
	written, err := c.client.UpdateStatus(ctx, d)
	if err != nil {
		return err
	}
	d.Metadata.ResourceVersion = written.GetObjectMeta().ResourceVersion
	return nil
}

// writeMeta writes d's metadata and spec (its revision annotation), as
// writeStatus does its status. Kubernetes writes the annotation with the
// status (its status strategy keeps annotation changes), and miniplane's
// API server now stores a Deployment's annotations from a status update
// too (for KCM's controller); this controller still writes them with a
// main update of their own.
func (c *Controller) writeMeta(ctx context.Context, d *api.Deployment) error {
	written, err := c.client.Update(ctx, d)
	if err != nil {
		return err
	}
	d.Metadata.ResourceVersion = written.GetObjectMeta().ResourceVersion
	return nil
}

// scaleReplicaSet applies one Scale: it writes the set's new size and its
// desired- and max-replicas annotations when either differs, and records a
// ScalingReplicaSet event when the size changed, annotated with the
// scale's Fenceposts if it has them. It returns the set as
// written (rs when nothing was written) and whether the size changed.
// Kubernetes: scaleReplicaSet.
func (c *Controller) scaleReplicaSet(ctx context.Context, d *api.Deployment, s Scale) (*api.ReplicaSet, bool, error) {
	rs := s.RS
	desired, maxReplicas := desiredReplicas(d), desiredReplicas(d)+MaxSurge(d)
	sizeChanged := specReplicas(rs) != s.To
	if !sizeChanged && !ReplicasAnnotationsNeedUpdate(rs, desired, maxReplicas) {
		return rs, false, nil
	}
	from := specReplicas(rs)
	next := rs.DeepCopy()
	next.Spec.Replicas = &s.To
	SetReplicasAnnotations(next, desired, maxReplicas)
	written, err := c.client.Update(ctx, next)
	if err != nil {
		return nil, false, err
	}
	out := written.(*api.ReplicaSet)
	if sizeChanged {
		var why map[string]string
		if s.Why != nil {
			why = s.Why.Annotations()
		}
		c.event(ctx, d, why, api.EventTypeNormal, ReasonScalingReplicaSet, fmt.Sprintf("Scaled %s replica set %s from %d to %d", s.Op, out.Metadata.Name, from, s.To))
		c.log.Info("scaled replica set", zap.String("deployment", api.KeyOf(&d.Metadata)),
			zap.String("replicaSet", out.Metadata.Name), zap.Int32("from", from), zap.Int32("to", s.To))
	}
	return out, sizeChanged, nil
}

// applyScales applies scales in order, stopping at the first failure, and
// reports whether any set's size changed. A set resized twice (cleanup,
// then scale-down) is written the second time over the first write, as
// upstream carries the updated set from one step to the next.
func (c *Controller) applyScales(ctx context.Context, d *api.Deployment, scales []Scale) (bool, error) {
	scaled := false
	written := map[api.UID]*api.ReplicaSet{}
	for _, s := range scales {
		if w, ok := written[s.RS.Metadata.UID]; ok {
			s.RS = w
		}
		w, changed, err := c.scaleReplicaSet(ctx, d, s)
		if err != nil {
			return scaled, err
		}
		written[w.Metadata.UID] = w
		scaled = scaled || changed
	}
	return scaled, nil
}

// event records an event about d, with annotations (nil for none), when
// the controller has a recorder; a failure to record is logged only.
func (c *Controller) event(ctx context.Context, d *api.Deployment, annotations map[string]string, typ, reason, msg string) {
	if c.recorder == nil {
		return
	}
	obj := *d // shallow: the recorder reads the kind and metadata only
	obj.TypeMeta = api.TypeMeta{APIVersion: controllerAPIVersion, Kind: controllerKind}
	if err := c.recorder.AnnotatedEventf(ctx, &obj, annotations, typ, reason, "%s", msg); err != nil {
		c.log.Debug("recording event failed", zap.String("reason", reason), zap.Error(err))
	}
}

// requeue queues key after the delay RequeueAfter computed: at once (rate
// limited) for 0, a second past the deadline otherwise.
func (c *Controller) requeue(d *api.Deployment, after time.Duration) {
	key := api.KeyOf(&d.Metadata)
	switch {
	case after == 0:
		c.queue.AddRateLimited(key)
	case after > 0:
		c.queue.AddAfter(key, after+time.Second)
	}
}
