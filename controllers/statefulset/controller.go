package statefulset

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/client/record"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/deployment"
	"github.com/miniplane/miniplane/controllers/history"
	"github.com/miniplane/miniplane/controllers/loop"
	"github.com/miniplane/miniplane/controllers/workqueue"
	"github.com/miniplane/miniplane/informer"
)

// maxRetries is how many times a stateful set's sync fails in a row before
// the key is dropped until its next change.
const maxRetries = 15

// Client is what the controller writes and reads through. client.Client
// and *apiserver.Server satisfy it.
type Client interface {
	Get(ctx context.Context, resource, namespace, name string, opts client.GetOptions) (api.Object, error)
	Create(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error)
	Update(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error)
	UpdateStatus(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error)
	Delete(ctx context.Context, resource, namespace, name string, opts api.DeleteOptions) (api.Object, error)
}

// Config configures a Controller. Client, Factory and Clock are required.
type Config struct {
	// Client carries every write.
	Client Client
	// Factory gives the shared stateful set, revision, pod and claim
	// informers.
	Factory *informer.Factory
	// Clock judges availability and times the queue.
	Clock clock.Clock
	// Logger is named "statefulset" by New; nil means no logs.
	Logger *zap.Logger
	// Recorder, if set, receives the sets' events (SuccessfulCreate,
	// SuccessfulDelete, FailedCreate, ...).
	Recorder *record.EventRecorder
	// RateLimiter is the queue's; nil means the default controller limiter.
	RateLimiter workqueue.RateLimiter[string]
	// Observer, if set, is told of every sync (loop.Observer).
	Observer loop.Observer
}

// Controller is the stateful set controller. See the package
// documentation.
type Controller struct {
	client   Client
	clock    clock.Clock
	log      *zap.Logger
	recorder *record.EventRecorder

	sets      informer.Lister[*api.StatefulSet]
	revisions informer.Lister[*api.ControllerRevision]
	pods      informer.Lister[*api.Pod]
	claims    informer.Lister[*api.PersistentVolumeClaim]

	informers []*informer.Informer
	regs      []*informer.Registration

	// queue holds the keys ("namespace/name") of stateful sets to sync.
	queue *workqueue.Queue[string]

	*loop.Loop // HasSynced, ProcessOne and Run: a manager.Controller
}

// New returns a controller whose handlers are registered on cfg.Factory's
// informers. It starts nothing.
func New(cfg Config) (*Controller, error) {
	if err := loop.CheckRequired("statefulset", cfg.Client, cfg.Factory, cfg.Clock); err != nil {
		return nil, err
	}
	log := loop.Logger(cfg.Logger)
	c := &Controller{
		client: cfg.Client, clock: cfg.Clock, log: log.Named("statefulset"), recorder: cfg.Recorder,
		queue: loop.NewQueue("statefulset", cfg.Clock, cfg.RateLimiter),
	}
	apps := func(r string) apierrors.GroupResource { return apierrors.GroupResource{Group: "apps", Resource: r} }
	setInf := cfg.Factory.ForResource(client.StatefulSets)
	crInf := cfg.Factory.ForResource(client.ControllerRevisions)
	podInf := cfg.Factory.ForResource(client.Pods)
	claimInf := cfg.Factory.ForResource(client.PersistentVolumeClaims)
	c.informers = []*informer.Informer{setInf, crInf, podInf, claimInf}
	c.sets = informer.NewLister[*api.StatefulSet](setInf, apps(client.StatefulSets))
	c.revisions = informer.NewLister[*api.ControllerRevision](crInf, apps(client.ControllerRevisions))
	c.pods = informer.NewLister[*api.Pod](podInf, apierrors.GroupResource{Resource: client.Pods})
	c.claims = informer.NewLister[*api.PersistentVolumeClaim](claimInf, apierrors.GroupResource{Resource: client.PersistentVolumeClaims})
	owned := informer.HandlerFuncs{
		AddFunc:    func(obj api.Object, _ bool) { c.enqueueFor(obj.GetObjectMeta()) },
		UpdateFunc: func(old, cur api.Object) { c.enqueueFor(old.GetObjectMeta(), cur.GetObjectMeta()) },
		DeleteFunc: func(obj any) {
			if o, _ := informer.DeletedObject(obj); o != nil {
				c.enqueueFor(o.GetObjectMeta())
			}
		},
	}
	c.regs = []*informer.Registration{
		setInf.AddEventHandler(informer.HandlerFuncs{
			AddFunc:    func(obj api.Object, _ bool) { c.enqueue(obj) },
			UpdateFunc: func(_, cur api.Object) { c.enqueue(cur) },
			DeleteFunc: func(obj any) {
				if o, _ := informer.DeletedObject(obj); o != nil {
					c.enqueue(o)
				}
			},
		}, 0),
		crInf.AddEventHandler(owned, 0),
		podInf.AddEventHandler(owned, 0),
		// A claim's owner references are kept by the sets; a claim deleted
		// or changed may unblock a pod's creation.
		claimInf.AddEventHandler(informer.HandlerFuncs{
			UpdateFunc: func(_, cur api.Object) { c.enqueueClaimSet(cur.GetObjectMeta()) },
			DeleteFunc: func(obj any) {
				if o, _ := informer.DeletedObject(obj); o != nil {
					c.enqueueClaimSet(o.GetObjectMeta())
				}
			},
		}, 0),
	}
	var err error
	c.Loop, err = loop.New(loop.Config{
		Registrations: c.regs,
		Name:          "statefulset", Queue: c.queue, Sync: c.sync, Logger: c.log, MaxRetries: maxRetries,
		Observer: cfg.Observer, Clock: cfg.Clock, Informers: c.informers,
	})
	if err != nil {
		return nil, fmt.Errorf("statefulset: %w", err)
	}
	return c, nil
}

func (c *Controller) enqueue(obj api.Object) { c.queue.Add(informer.KeyOf(obj)) }

// enqueueFor enqueues the set that controls each of metas, or, for
// an orphan, every set of its namespace that selects it
// (deployment.ControllerKeys).
func (c *Controller) enqueueFor(metas ...*api.ObjectMeta) {
	list := func(ns string) []*api.StatefulSet { return c.sets.Namespace(ns).List(api.Selector{}) }
	selector := func(o *api.StatefulSet) *api.LabelSelector { return o.Spec.Selector }
	for _, key := range deployment.ControllerKeys(controllerAPIVersion, controllerKind, list, selector, metas...) {
		c.queue.Add(key)
	}
}

// enqueueClaimSet enqueues the set whose claim template made claim m
// ("<template>-<set>-<ordinal>").
func (c *Controller) enqueueClaimSet(m *api.ObjectMeta) {
	for _, set := range c.sets.Namespace(m.Namespace).List(api.Selector{}) {
		for i := range set.Spec.VolumeClaimTemplates {
			prefix := set.Spec.VolumeClaimTemplates[i].Metadata.Name + "-"
			if parent, o := ParentAndOrdinal(m.Name); o >= 0 && parent == prefix+set.Metadata.Name {
				c.enqueue(set)
				return
			}
		}
	}
}

// sync reconciles one stateful set: its revisions, its pods and claims,
// its status, then its history's length. Kubernetes: syncStatefulSet and
// UpdateStatefulSet.
func (c *Controller) sync(ctx context.Context, key string) error {
	namespace, name, err := api.SplitKey(key)
	if err != nil {
		c.log.Error("bad key", zap.String("key", key), zap.Error(err))
		return nil
	}
	set, err := c.sets.Namespace(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	sel, err := api.LabelSelectorAsSelector(set.Spec.Selector)
	if err != nil {
		c.event(ctx, set, true, "InvalidSelector", fmt.Sprintf("Error parsing selector: %v", err))
		return nil
	}
	if sel.Empty() {
		c.event(ctx, set, true, "SelectingAll", "This statefulset is selecting all pods. A non-empty selector is required.")
		return nil
	}
	revisions, err := claim(ctx, c, set, c.revisions.Namespace(namespace).List(api.Selector{}))
	if err != nil {
		return err
	}
	pods, err := claim(ctx, c, set, slices.DeleteFunc(c.pods.Namespace(namespace).List(api.Selector{}), func(p *api.Pod) bool {
		return !IsMember(set, p)
	}))
	if err != nil {
		return err
	}
	s, old, err := c.revisionState(ctx, set, revisions)
	if err != nil {
		return err
	}
	s.Pods = pods
	s.Claims = map[string]*api.PersistentVolumeClaim{}
	for _, pvc := range c.claims.Namespace(namespace).List(api.Selector{}) {
		s.Claims[pvc.Metadata.Name] = pvc
	}
	d := Decide(s)
	errs := []error{c.act(ctx, set, d), d.Err}
	errs = append(errs, c.writeStatus(ctx, set, d.Status))
	if err := c.truncateHistory(ctx, set, pods, old, s); err != nil {
		errs = append(errs, err)
	}
	if d.RecheckAfter > 0 {
		c.queue.AddAfter(key, d.RecheckAfter)
	}
	return errors.Join(errs...)
}

// revisionState makes the set's update revision exist, numbered above the
// others, and finds its current one (status.currentRevision, or the update
// revision when that names none). It returns the revisions that are not
// the update revision. Kubernetes: getStatefulSetRevisions.
func (c *Controller) revisionState(ctx context.Context, set *api.StatefulSet, revisions []*api.ControllerRevision) (*State, []*api.ControllerRevision, error) {
	p := parent(set)
	h, err := history.Decide(p, revisions)
	if err != nil {
		return nil, nil, err
	}
	for _, r := range h.Label {
		if _, err := c.client.Update(ctx, r); err != nil {
			return nil, nil, err
		}
	}
	count := set.Status.CollisionCount
	update := h.Current
	switch {
	case h.Create != nil:
		update, count, err = history.Create(ctx, c.client, p, h.Create.Revision)
	case h.Renumber != nil:
		var obj api.Object
		obj, err = c.client.Update(ctx, h.Renumber)
		if err == nil {
			update = obj.(*api.ControllerRevision)
		}
	}
	if err != nil {
		return nil, nil, err
	}
	old := append(h.Old, h.Duplicates...)
	current := update
	if i := slices.IndexFunc(old, func(r *api.ControllerRevision) bool { return r.Metadata.Name == set.Status.CurrentRevision }); i >= 0 {
		current = old[i]
	}
	currentSet, err := ApplyRevision(set, current)
	if err != nil {
		return nil, nil, err
	}
	updateSet, err := ApplyRevision(set, update)
	if err != nil {
		return nil, nil, err
	}
	return &State{
		Set: set, CurrentSet: currentSet, UpdateSet: updateSet,
		CurrentRevision: current.Metadata.Name, UpdateRevision: update.Metadata.Name,
		CollisionCount: count, Now: c.clock.Now(),
	}, old, nil
}

// parent is set as the history package sees it.
func parent(set *api.StatefulSet) history.Parent {
	return history.Parent{
		Meta: &set.Metadata, Ref: controllerRef(set), Template: &set.Spec.Template,
		CollisionCount: set.Status.CollisionCount, HistoryLimit: set.Spec.RevisionHistoryLimit,
	}
}

// act makes d's writes in order, stopping at the first that fails.
// Kubernetes: StatefulPodControl's CreateStatefulPod, UpdateStatefulPod,
// DeleteStatefulPod and UpdatePodClaimForRetentionPolicy, with their
// events.
func (c *Controller) act(ctx context.Context, set *api.StatefulSet, d Decision) error {
	for _, a := range d.Actions {
		var err error
		switch a.Op {
		case CreateClaim:
			_, err = c.client.Create(ctx, a.Claim)
			if apierrors.IsAlreadyExists(err) {
				err = nil
			}
			c.claimEvent(ctx, "create", set, a, err)
		case UpdateClaim:
			_, err = c.client.Update(ctx, a.Claim)
		case CreatePod:
			_, err = c.client.Create(ctx, a.Pod, client.Handover())
			if apierrors.IsAlreadyExists(err) {
				// A stale cache: the pod is there; the informer brings it.
				err = nil
				break
			}
			c.podEvent(ctx, "create", set, a.Pod, err)
		case UpdatePod:
			_, err = c.client.Update(ctx, a.Pod)
			c.podEvent(ctx, "update", set, a.Pod, err)
		case DeletePod:
			_, err = c.client.Delete(ctx, client.Pods, a.Pod.Metadata.Namespace, a.Pod.Metadata.Name, api.DeleteOptions{})
			if apierrors.IsNotFound(err) {
				err = nil
				break
			}
			c.podEvent(ctx, "delete", set, a.Pod, err)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

var verbReasons = map[string]string{"create": "Create", "update": "Update", "delete": "Delete"}

// podEvent records a pod write as Kubernetes' recordPodEvent words it.
func (c *Controller) podEvent(ctx context.Context, verb string, set *api.StatefulSet, pod *api.Pod, err error) {
	if err == nil {
		c.event(ctx, set, false, "Successful"+verbReasons[verb],
			fmt.Sprintf("%s Pod %s in StatefulSet %s successful", verb, pod.Metadata.Name, set.Metadata.Name))
		return
	}
	c.event(ctx, set, true, "Failed"+verbReasons[verb],
		fmt.Sprintf("%s Pod %s in StatefulSet %s failed error: %s", verb, pod.Metadata.Name, set.Metadata.Name, err))
}

// claimEvent records a claim write as Kubernetes' recordClaimEvent words
// it.
func (c *Controller) claimEvent(ctx context.Context, verb string, set *api.StatefulSet, a Action, err error) {
	if err == nil {
		c.event(ctx, set, false, "Successful"+verbReasons[verb],
			fmt.Sprintf("%s Claim %s Pod %s in StatefulSet %s success", verb, a.Claim.Metadata.Name, a.Pod.Metadata.Name, set.Metadata.Name))
		return
	}
	c.event(ctx, set, true, "Failed"+verbReasons[verb],
		fmt.Sprintf("%s Claim %s for Pod %s in StatefulSet %s failed error: %s", verb, a.Claim.Metadata.Name, a.Pod.Metadata.Name, set.Metadata.Name, err))
}

// writeStatus writes st if it differs from set's. Kubernetes:
// updateStatefulSetStatus.
func (c *Controller) writeStatus(ctx context.Context, set *api.StatefulSet, st api.StatefulSetStatus) error {
	if reflect.DeepEqual(st, set.Status) {
		return nil
	}
	next := *set
	next.Status = st
	_, err := c.client.UpdateStatus(ctx, &next)
	return err
}

// truncateHistory deletes the oldest revisions beyond the history limit
// that are neither current, nor the update revision, nor run by a pod.
// Kubernetes: truncateHistory.
func (c *Controller) truncateHistory(ctx context.Context, set *api.StatefulSet, pods []*api.Pod, old []*api.ControllerRevision, s *State) error {
	live := map[string]bool{s.CurrentRevision: true, s.UpdateRevision: true}
	for _, p := range pods {
		live[revisionOf(p)] = true
	}
	dead := slices.DeleteFunc(slices.Clone(old), func(r *api.ControllerRevision) bool { return live[r.Metadata.Name] })
	var errs []error
	for _, r := range history.ToDelete(parent(set), dead, func(*api.ControllerRevision) bool { return false }) {
		if _, err := c.client.Delete(ctx, client.ControllerRevisions, r.Metadata.Namespace, r.Metadata.Name, api.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (c *Controller) event(ctx context.Context, set *api.StatefulSet, warning bool, reason, message string) {
	if c.recorder == nil {
		return
	}
	typ := api.EventTypeNormal
	if warning {
		typ = api.EventTypeWarning
	}
	_ = c.recorder.Event(ctx, set, typ, reason, message)
}

// claim returns the objects of set's namespace that set controls,
// adopting and releasing as deployment.ClaimAll does. Kubernetes:
// ClaimPods and ClaimControllerRevisions.
func claim[T api.Object](ctx context.Context, c *Controller, set *api.StatefulSet, objs []T) ([]T, error) {
	sel, err := api.LabelSelectorAsSelector(set.Spec.Selector)
	if err != nil {
		return nil, err
	}
	return deployment.ClaimAll(ctx, c.client, client.StatefulSets, controllerRef(set), &set.Metadata, sel, objs, c.log)
}
