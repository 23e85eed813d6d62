package replication

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
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

// statusUpdateRetries is how many times a failed status write is retried,
// each after a fresh GET, before the sync gives up and requeues.
const statusUpdateRetries = 1

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
	// Factory gives the shared informers of pods and of the kind managed.
	Factory *informer.Factory
	// Clock times expectations, minReadySeconds and the queue.
	Clock clock.Clock
	// Logger is named "replication" by New, "replicaset" by
	// NewReplicaSet; nil means no logs.
	Logger *zap.Logger
	// Recorder, if set, receives SuccessfulCreate, SuccessfulDelete,
	// FailedCreate and FailedDelete events about the objects managed
	// (Kubernetes reports them as "replication-controller" and
	// "replicaset-controller").
	Recorder *record.EventRecorder
	// BurstReplicas caps the creates or deletes of one sync; 0 means
	// DefaultBurstReplicas.
	BurstReplicas int
	// RateLimiter is the queue's; nil means the default controller limiter.
	RateLimiter workqueue.RateLimiter[string]
	// WithoutExpectations plants a known bug, for testing a simulator or an
	// invariant checker, never for running a cluster: every sync first
	// forgets the controller's expectations, so it acts on a pod cache that
	// may not have seen its own last creations and deletions yet, and
	// creates or deletes too many pods.
	WithoutExpectations bool
	// Observer, if set, is told of every sync (loop.Observer).
	Observer loop.Observer
}

// Controller is the replication controller, or the replica set controller:
// it keeps, for every ReplicationController (New) or ReplicaSet
// (NewReplicaSet), spec.replicas active pods matching its selector, and
// reports what it sees in status. See the package documentation.
type Controller struct {
	// kind is the front-end: the kind managed, and its adapter.
	kind     kind
	client   Client
	clock    clock.Clock
	log      *zap.Logger
	recorder *record.EventRecorder
	burst    int
	// withoutExpectations is Config.WithoutExpectations: the planted bug.
	withoutExpectations bool

	// owners lists the kind's objects (of kind.resource), as cached.
	owners informer.Lister[api.Object]
	pods   informer.Lister[*api.Pod]

	podInformer, ownerInformer *informer.Informer
	podReg, ownerReg           *informer.Registration

	// expectations guard against acting twice on one gap; they are keyed
	// like the queue.
	expectations *Expectations
	// queue holds the keys ("namespace/name") of controllers to sync.
	queue *workqueue.Queue[string]
	// loop syncs the queue's keys; a failed key is retried for ever, with
	// backoff, as Kubernetes' ReplicaSet controller does.
	loop *loop.Loop
	// scratches lends *scratch to sync, one per sync in flight (the
	// workers run syncs concurrently).
	scratches sync.Pool
	// indexValues gives the pod index its lists; keys gives the pod
	// handlers the controllers' keys.
	indexValues indexValues
	keys        keyTable
}

// New returns the replication controller, whose handlers are registered on
// cfg.Factory's pod and replication controller informers. It starts
// nothing.
func New(cfg Config) (*Controller, error) { return newController(cfg, rcKind()) }

// NewReplicaSet returns the replica set controller, whose handlers are
// registered on cfg.Factory's pod and replica set informers: the same
// controller as New's, for the apps/v1 kind with a set-based selector. It
// starts nothing.
func NewReplicaSet(cfg Config) (*Controller, error) { return newController(cfg, rsKind()) }

// newController returns the controller of the kind k.
func newController(cfg Config, k kind) (*Controller, error) {
	if err := loop.CheckRequired(k.name, cfg.Client, cfg.Factory, cfg.Clock); err != nil {
		return nil, err
	}
	log := loop.Logger(cfg.Logger)
	burst := cfg.BurstReplicas
	if burst <= 0 {
		burst = DefaultBurstReplicas
	}
	c := &Controller{
		kind:                k,
		client:              cfg.Client,
		clock:               cfg.Clock,
		log:                 log.Named(k.name),
		recorder:            cfg.Recorder,
		burst:               burst,
		withoutExpectations: cfg.WithoutExpectations,
		expectations:        NewExpectations(cfg.Clock),
		queue:               loop.NewQueue(k.queue, cfg.Clock, cfg.RateLimiter),
	}
	c.podInformer = cfg.Factory.ForResource(client.Pods)
	c.pods = informer.NewLister[*api.Pod](c.podInformer, apierrors.GroupResource{Resource: client.Pods})
	if err := addPodIndexes(c.podInformer.Indexer(), &c.indexValues); err != nil {
		return nil, err
	}
	c.ownerInformer = cfg.Factory.ForResource(k.resource)
	c.owners = informer.NewLister[api.Object](c.ownerInformer, apierrors.GroupResource{Resource: k.resource})
	c.ownerReg = c.ownerInformer.AddEventHandler(informer.HandlerFuncs{
		AddFunc:    func(obj api.Object, _ bool) { c.addOwner(obj) },
		UpdateFunc: c.updateOwner,
		DeleteFunc: c.deleteOwner,
	}, 0)
	c.podReg = c.podInformer.AddEventHandler(informer.HandlerFuncs{
		AddFunc:    func(obj api.Object, _ bool) { c.addPod(obj) },
		UpdateFunc: c.updatePod,
		DeleteFunc: c.deletePod,
	}, 0)
	var err error
	c.loop, err = loop.New(loop.Config{
		Name: k.name, Queue: c.queue, Sync: c.sync, Logger: c.log, Observer: cfg.Observer, Clock: cfg.Clock,
		Informers: []*informer.Informer{c.ownerInformer, c.podInformer},
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", k.name, err)
	}
	return c, nil
}

// Queue returns the controller's work queue, for the simulator and tests.
func (c *Controller) Queue() *workqueue.Queue[string] { return c.queue }

// Outstanding returns the pod creations and deletions the controller has
// issued for the ReplicationController or ReplicaSet with key
// ("namespace/name") but not
// yet seen through its pod informer, and whether it waits for any record at
// all. It only reads: for narrating a run and for tests.
func (c *Controller) Outstanding(key string) (creations, deletions int, ok bool) {
	return c.expectations.Get(key)
}

// HasSynced reports whether both of the controller's handlers have been
// handed their informers' initial lists.
func (c *Controller) HasSynced() bool { return c.ownerReg.HasSynced() && c.podReg.HasSynced() }

// ProcessOne is the controller's step: if ctx is not done and a key is
// ready in the queue, it syncs it and returns true; otherwise it returns
// false at once.
func (c *Controller) ProcessOne(ctx context.Context) bool { return c.loop.ProcessOne(ctx) }

// Run waits for the informers' handlers to sync, then runs workers
// goroutines that sync keys until ctx is done. It shuts the queue down and
// returns once every goroutine it started has exited; keys still queued
// then are dropped, not synced. Run does not start the informers: the
// factory's owner does.
func (c *Controller) Run(ctx context.Context, workers int) { c.loop.Run(ctx, workers) }

// ---- event handlers ----

// The handlers of the kind's informer read only metadata: they are the
// same for both kinds. Kubernetes: addRS, updateRS, deleteRS.

func (c *Controller) enqueue(obj api.Object) {
	c.queue.Add(c.keys.keyOf(obj.GetObjectMeta()))
}

func (c *Controller) addOwner(obj api.Object) { c.enqueue(obj) }

// updateOwner enqueues on every update, status-only ones too: expectations,
// not the handler, keep that from causing churn. A changed UID means the
// object was deleted and recreated under the same name while the watch
// was away: the old one is handled as deleted first.
func (c *Controller) updateOwner(old, cur api.Object) {
	if oldMeta := old.GetObjectMeta(); oldMeta.UID != cur.GetObjectMeta().UID {
		c.deleteOwner(informer.DeletedFinalStateUnknown{Key: api.KeyOf(oldMeta), Obj: old})
	}
	c.enqueue(cur)
}

func (c *Controller) deleteOwner(obj any) {
	o, _ := informer.DeletedObject(obj)
	if o == nil {
		c.log.Warn("delete of an unexpected object", zap.Any("object", obj))
		return
	}
	key := api.KeyOf(o.GetObjectMeta())
	c.expectations.Delete(key)
	c.queue.Add(key)
}

// addPod: a new pod with a controller reference to one of ours is a
// creation observed; an orphan wakes every controller that could adopt it.
func (c *Controller) addPod(obj api.Object) {
	pod := obj.(*api.Pod)
	if pod.Metadata.DeletionTimestamp != nil {
		// Seen for the first time already being deleted (e.g. after a
		// relist): it must not count as a creation.
		c.deletePod(pod)
		return
	}
	if ref := controllerRefOf(&pod.Metadata); ref != nil {
		owner := c.resolveControllerRef(pod.Metadata.Namespace, ref)
		if owner == nil {
			return
		}
		key := c.keys.keyOf(owner.GetObjectMeta())
		c.expectations.CreationObserved(key)
		c.queue.Add(key)
		return
	}
	// An orphan: wake the controllers that may adopt it. Their
	// expectations are not lowered: they did not create it.
	for _, owner := range c.podControllers(pod) {
		c.enqueue(owner)
	}
}

// updatePod wakes the controllers a pod change concerns: its owner, its
// former owner if the controller reference changed, and, for an orphan
// whose labels or references changed, every controller that could adopt
// it.
func (c *Controller) updatePod(oldObj, newObj api.Object) {
	old, cur := oldObj.(*api.Pod), newObj.(*api.Pod)
	if old.Metadata.ResourceVersion == cur.Metadata.ResourceVersion {
		return // a resync: nothing changed
	}
	labelsChanged := !api.SameLabels(old.Metadata.Labels, cur.Metadata.Labels)
	if cur.Metadata.DeletionTimestamp != nil {
		// A graceful deletion began: the pod stops counting now, so
		// treat it as deleted rather than wait for the final delete.
		c.deletePod(cur)
		if labelsChanged {
			c.deletePod(old)
		}
		return
	}
	curRef, oldRef := controllerRefOf(&cur.Metadata), controllerRefOf(&old.Metadata)
	refChanged := !sameRef(curRef, oldRef)
	if refChanged && oldRef != nil {
		if owner := c.resolveControllerRef(old.Metadata.Namespace, oldRef); owner != nil {
			c.enqueue(owner)
		}
	}
	if curRef != nil {
		owner := c.resolveControllerRef(cur.Metadata.Namespace, curRef)
		if owner == nil {
			return
		}
		c.enqueue(owner)
		// The pod may become available minReadySeconds from now; look
		// again then (one second late, to be past the boundary).
		if !api.IsPodReady(old) && api.IsPodReady(cur) {
			if v := c.kind.view(owner); v.minReadySeconds > 0 {
				c.queue.AddAfter(c.keys.keyOf(v.meta), time.Duration(v.minReadySeconds)*time.Second+time.Second)
			}
		}
		return
	}
	if labelsChanged || refChanged {
		for _, owner := range c.podControllers(cur) {
			c.enqueue(owner)
		}
	}
}

// deletePod counts the deletion of an owned pod against its controller's
// expectations and wakes the controller. Orphans are ignored: a controller
// that wanted one would have adopted it.
func (c *Controller) deletePod(obj any) {
	o, _ := informer.DeletedObject(obj)
	pod, ok := o.(*api.Pod)
	if !ok {
		c.log.Warn("delete of an unexpected object", zap.Any("object", obj))
		return
	}
	ref := controllerRefOf(&pod.Metadata)
	if ref == nil {
		return
	}
	owner := c.resolveControllerRef(pod.Metadata.Namespace, ref)
	if owner == nil {
		return
	}
	key := c.keys.keyOf(owner.GetObjectMeta())
	c.expectations.DeletionObserved(key, api.KeyOf(&pod.Metadata))
	c.queue.Add(key)
}

// matchesSet reports whether labels hold every pair of set:
// api.SelectorFromSet(set).Matches(labels) without making the selector,
// for a set matched against one object. A set matched against many pods
// is read once into pairs (pairsOf): ranging over a map costs more than
// the lookups.
func matchesSet(set, labels map[string]string) bool {
	for k, v := range set {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// sameRef reports whether two controller references (nil for none) are
// equal in every field.
func sameRef(a, b *api.OwnerReference) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.APIVersion == b.APIVersion && a.Kind == b.Kind && a.Name == b.Name && a.UID == b.UID &&
		equalBool(a.Controller, b.Controller) && equalBool(a.BlockOwnerDeletion, b.BlockOwnerDeletion)
}

func equalBool(a, b *bool) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// resolveControllerRef returns the cached object a controller reference
// names, or nil if it names another kind, no such object is cached, or the
// cached one has another UID (a namesake, not the owner).
func (c *Controller) resolveControllerRef(namespace string, ref *api.OwnerReference) api.Object {
	if ref.Kind != c.kind.kindName {
		return nil
	}
	owner, err := c.owners.Namespace(namespace).Get(ref.Name)
	if err != nil || owner.GetObjectMeta().UID != ref.UID {
		return nil
	}
	return owner
}

// podControllers returns the cached objects in the pod's namespace whose
// selector matches its labels. A pod without labels, and an object with an
// empty or invalid selector, match nothing.
func (c *Controller) podControllers(pod *api.Pod) []api.Object {
	if len(pod.Metadata.Labels) == 0 {
		return nil
	}
	var out []api.Object
	for _, owner := range c.owners.Namespace(pod.Metadata.Namespace).List(api.Selector{}) {
		if v := c.kind.view(owner); !v.selectsNothing() && v.matches(pod.Metadata.Labels) {
			out = append(out, owner)
		}
	}
	return out
}

// ---- sync ----

// sync reconciles one object: observe (cache, expectations), decide (the
// pure functions of manage.go, rank.go and status.go), act (writes through
// the Client). The order of its steps matters; see the package
// documentation.
func (c *Controller) sync(ctx context.Context, key string) error {
	namespace, name, err := api.SplitKey(key)
	if err != nil {
		c.log.Error("bad key", zap.String("key", key), zap.Error(err))
		return nil // retrying cannot fix it
	}
	obj, err := c.owners.Namespace(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		c.expectations.Delete(key)
		return nil
	}
	if err != nil {
		return err
	}
	v := c.kind.view(obj)
	// Read the expectations before listing pods: a pod created after the
	// list but before the check would otherwise make the sync see the
	// expectations met and a pod missing, and create one too many.
	if c.withoutExpectations {
		c.expectations.Delete(key) // the planted bug: act as if nothing were in flight
	}
	needsSync := c.expectations.Satisfied(key)

	if v.selectsNothing() {
		// The apiserver requires a selector; one that selects everything
		// would claim every pod of the namespace.
		c.log.Error("empty selector; not syncing", zap.String("key", key))
		return nil
	}
	var buf [4]api.LabelPair // a selector's pairs: most have one or two
	sel, err := v.matcher(buf[:0])
	if err != nil {
		// Only a selector the server would have refused; retrying cannot
		// fix it (Kubernetes logs it and stops too).
		c.log.Error("invalid selector; not syncing", zap.String("key", key), zap.Error(err))
		return nil
	}
	s, _ := c.scratches.Get().(*scratch)
	if s == nil {
		s = new(scratch)
	}
	defer func() {
		s.reset()
		c.scratches.Put(s)
	}()
	active, allOwned, err := c.claimablePods(v.meta, s)
	if err != nil {
		return err
	}
	owned, err := c.claimPods(ctx, &v, &sel, active, allOwned)
	if err != nil {
		return err
	}

	var manageErr error
	if needsSync && v.meta.DeletionTimestamp == nil {
		manageErr = c.manageReplicas(ctx, key, &v, owned, s)
	}

	now := c.clock.Now()
	status := calculateStatus(&v, c.kind.status(obj), owned, manageErr, now)
	updated, err := c.updateStatus(ctx, &v, status)
	if err != nil {
		return err
	}
	// The last line of defence against a missed ready transition: while
	// pods are ready but not yet available, look again when they may be.
	if manageErr == nil {
		u := c.kind.view(updated)
		if st := c.kind.status(updated); u.minReadySeconds > 0 &&
			st.ReadyReplicas == u.replicas && st.AvailableReplicas != u.replicas {
			c.queue.AddAfter(key, time.Duration(u.minReadySeconds)*time.Second)
		}
	}
	return manageErr
}

// manageReplicas creates or deletes pods to close the gap between owned
// (the active pods v owns) and spec.replicas, at most the burst at a time,
// recording expectations before it writes. s is the sync's scratch.
func (c *Controller) manageReplicas(ctx context.Context, key string, v *rsView, owned []*api.Pod, s *scratch) error {
	create, del := Diff(len(owned), v.replicas, c.burst)
	switch {
	case create > 0:
		c.log.Info("too few replicas, creating", zap.String("key", key),
			zap.Int32("want", v.replicas), zap.Int("have", len(owned)), zap.Int("creating", create))
		// Expect before writing: the creations may be observed before
		// the create calls even return.
		c.expectations.ExpectCreations(key, create)
		successes, err := SlowStart(create, SlowStartInitialBatchSize, func() error {
			return c.createPod(ctx, key, v, s)
		})
		// Creates that failed or were never attempted will never be
		// observed: stop waiting for them.
		for range create - successes {
			c.expectations.CreationObserved(key)
		}
		return err
	case del > 0:
		c.log.Info("too many replicas, deleting", zap.String("key", key),
			zap.Int32("want", v.replicas), zap.Int("have", len(owned)), zap.Int("deleting", del))
		rankedAt := c.clock.Now()
		victims := PodsToDelete(owned, c.relatedPods(v), del, rankedAt)
		// Formatted once for every deletion's event.
		rankedAtText := ""
		if c.recorder != nil {
			rankedAtText = rankedAt.UTC().Format(time.RFC3339Nano)
		}
		podKeys := make([]string, len(victims))
		for i, p := range victims {
			podKeys[i] = api.KeyOf(&p.Metadata)
		}
		c.expectations.ExpectDeletions(key, podKeys)
		var first error
		for i, p := range victims {
			if err := c.deletePodFor(ctx, key, v, p, rankedAtText, s); err != nil {
				// This deletion will not be observed (or already was).
				c.expectations.DeletionObserved(key, podKeys[i])
				if !apierrors.IsNotFound(err) && first == nil {
					first = err
				}
			}
		}
		return first
	}
	return nil
}

// relatedPods returns the pods of every object of the kind that shares v's
// controller owner (v included; for a ReplicaSet, its Deployment's other
// ReplicaSets) that its selector matches, each pod once: the pods whose
// nodes count for doubling up in the deletion ranking. An object without a
// controller owner (the usual RC) has none, so co-location does not rank
// its pods, as in Kubernetes (getIndirectlyRelatedPods).
//
// The pods are read through podControllerIndex, each sibling's own and the
// namespace's orphans, not by listing the namespace's pods per sibling as
// upstream does: that list is every pod of the namespace, and a rollout
// scales its sets down once per step. The one difference: a pod that
// another controller owns and a sibling's selector matches (overlapping
// selectors, which Kubernetes calls a user error) is not counted.
func (c *Controller) relatedPods(v *rsView) []*api.Pod {
	owner := controllerRefOf(v.meta)
	if owner == nil {
		return nil
	}
	ns := v.meta.Namespace
	x := c.podInformer.Indexer()
	orphans, err := informer.ByIndexOf[*api.Pod](x, podControllerIndex, orphanIndexValue(ns))
	if err != nil {
		return nil // the index is added by New: a broken invariant, ranked without co-location
	}
	seen := map[api.UID]bool{}
	var out []*api.Pod
	for _, other := range c.owners.Namespace(ns).List(api.Selector{}) {
		if ref := controllerRefOf(other.GetObjectMeta()); ref == nil || ref.UID != owner.UID {
			continue
		}
		ov := c.kind.view(other)
		sel, err := ov.selector()
		if err != nil || ov.selectsNothing() {
			continue // selects nothing, as an invalid selector upstream
		}
		own, _ := informer.ByIndexOf[*api.Pod](x, podControllerIndex, string(other.GetObjectMeta().UID))
		for _, pods := range [][]*api.Pod{own, orphans} {
			for _, p := range pods {
				if p.Metadata.Namespace == ns && !seen[p.Metadata.UID] && sel.Matches(p.Metadata.Labels) {
					seen[p.Metadata.UID] = true
					out = append(out, p)
				}
			}
		}
	}
	return out
}

// createPod creates one pod from v's template, owned by v's object, whose
// key is key. Its SuccessfulCreate event carries the expectations as they
// were just before the create (expectationAnnotations), written in s.
func (c *Controller) createPod(ctx context.Context, key string, v *rsView, s *scratch) error {
	// The pod is built for this create, in one allocation with its owner
	// reference, and handed over to the Client, which stores it rather than
	// a copy (see newPod for what it shares with the object).
	pod, err := c.kind.newPod(v)
	if err == nil {
		facts := c.expectationAnnotations(s, key)
		var created api.Object
		created, err = c.client.Create(ctx, pod, client.Handover())
		if err == nil {
			p := created.(*api.Pod)
			if ce := c.log.Check(zap.DebugLevel, "created pod"); ce != nil {
				ce.Write(zap.String("pod", api.KeyOf(&p.Metadata)))
			}
			c.annotatedEvent(ctx, v, facts, api.EventTypeNormal, ReasonSuccessfulCreate, "Created pod: %s", p.Metadata.Name)
			return nil
		}
		if apierrors.HasStatusCause(err, api.NamespaceTerminatingCause) {
			return nil // the namespace is going, and the object with it: nothing to do
		}
	}
	c.event(ctx, v, api.EventTypeWarning, ReasonFailedCreate, "Error creating: %v", err)
	return err
}

// deletePodFor deletes one of v's pods. NotFound is returned as is (the
// caller does not count it as a failure) and gets no event. Its event's
// annotations are written in s, with rankedAt, the time PodsToDelete ranked
// at in RFC 3339.
func (c *Controller) deletePodFor(ctx context.Context, key string, v *rsView, pod *api.Pod, rankedAt string, s *scratch) error {
	facts := c.expectationAnnotations(s, key)
	if facts != nil {
		facts[AnnotationRankedAt] = rankedAt
	}
	_, err := c.client.Delete(ctx, client.Pods, pod.Metadata.Namespace, pod.Metadata.Name, api.DeleteOptions{})
	switch {
	case err == nil:
		c.annotatedEvent(ctx, v, facts, api.EventTypeNormal, ReasonSuccessfulDelete, "Deleted pod: %s", pod.Metadata.Name)
		return nil
	case apierrors.IsNotFound(err):
		return err
	}
	c.event(ctx, v, api.EventTypeWarning, ReasonFailedDelete, "Error deleting: %v", err)
	return fmt.Errorf("unable to delete pod %s: %w", pod.Metadata.Name, err)
}

// PodFromTemplate returns the pod rc creates: its template's labels,
// annotations and spec, in rc's namespace, named "<rc name>-<random>" by
// the server, with rc as its controller. The pod shares nothing with rc.
func PodFromTemplate(rc *api.ReplicationController) (*api.Pod, error) {
	k := rcKind()
	v := k.view(rc)
	pod, err := k.newPod(&v)
	if err != nil {
		return nil, err
	}
	return pod.DeepCopy(), nil
}

// ReplicaSetPodFromTemplate is PodFromTemplate for a ReplicaSet: the pod
// has rs as its controller (kind ReplicaSet, apiVersion apps/v1).
func ReplicaSetPodFromTemplate(rs *api.ReplicaSet) (*api.Pod, error) {
	k := rsKind()
	v := k.view(rs)
	pod, err := k.newPod(&v)
	if err != nil {
		return nil, err
	}
	return pod.DeepCopy(), nil
}

// ownerRef is a pod's owner reference and the reference's two flags, in
// one allocation apart from the pod: every later version of the pod shares
// it, and were it in the pod's block it would keep the first version's
// whole pod alive for as long as the pod lives (90 MB at 100,000 pods).
type ownerRef struct {
	refs               [1]api.OwnerReference
	controller, blocks bool
}

// newPod returns PodFromTemplate's pod but sharing the template's labels
// and annotations with v's object, a cached object that nobody changes: the
// pod's spec is its own (the server's defaults may fill it in), its maps
// are not. createPod hands it over to the Client (client.Handover), whose
// server changes no labels or annotations: 100 pods of one controller
// share one labels map, and each pod costs one copy of the spec.
func (k kind) newPod(v *rsView) (*api.Pod, error) {
	t := v.template
	if t == nil {
		return nil, fmt.Errorf("%s: %s has no pod template", k.name, k.kindName)
	}
	if len(t.Metadata.Labels) == 0 {
		return nil, fmt.Errorf("%s: unable to create pods, no labels", k.name)
	}
	ref := &ownerRef{controller: true, blocks: true}
	ref.refs[0] = api.OwnerReference{
		APIVersion: k.apiVersion, Kind: k.kindName,
		Name: v.meta.Name, UID: v.meta.UID,
		Controller: &ref.controller, BlockOwnerDeletion: &ref.blocks,
	}
	pod := &api.Pod{
		TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		Metadata: api.ObjectMeta{
			GenerateName:    v.meta.Name + "-",
			Namespace:       v.meta.Namespace,
			Labels:          t.Metadata.Labels,
			Annotations:     t.Metadata.Annotations,
			OwnerReferences: ref.refs[:],
		},
	}
	t.Spec.DeepCopyInto(&pod.Spec)
	return pod, nil
}

// controllerRef is the owner reference that makes the object of meta,
// of kind k, a pod's controller.
func (k kind) controllerRef(meta *api.ObjectMeta) api.OwnerReference {
	yes := true
	block := true
	return api.OwnerReference{
		APIVersion: k.apiVersion, Kind: k.kindName,
		Name: meta.Name, UID: meta.UID,
		Controller: &yes, BlockOwnerDeletion: &block,
	}
}

// Annotations on the SuccessfulCreate and SuccessfulDelete events: the
// creations and deletions the controller still waited for, for the object,
// just before it made that create or delete (so the pod it names counts
// among them). A reader that asked the controller later would get a later
// answer: the informer may have seen the pod meanwhile. The demo narrates
// these. A SuccessfulDelete event also carries the time the controller
// ranked its pods at (PodsToDelete's now): ages are compared in log2
// buckets, so the same pods can rank differently a moment later.
const (
	AnnotationExpectedCreations = "replication.miniplane.io/expected-creations"
	AnnotationExpectedDeletions = "replication.miniplane.io/expected-deletions"
	AnnotationRankedAt          = "replication.miniplane.io/ranked-at"
)

// expectationAnnotations reads the expectations of the object with key
// now, into s.facts, which it empties first and returns (nil without a
// recorder). The map is the sync's, reused for each of its events: the
// recorder copies the annotations it keeps, and most events of a burst are
// dropped by its spam filter, so a map per event would be garbage at once.
func (c *Controller) expectationAnnotations(s *scratch, key string) map[string]string {
	if c.recorder == nil {
		return nil
	}
	add, del, _ := c.expectations.Get(key)
	if s.facts == nil {
		s.facts = make(map[string]string, 3)
	}
	clear(s.facts)
	s.facts[AnnotationExpectedCreations] = strconv.Itoa(max(add, 0))
	s.facts[AnnotationExpectedDeletions] = strconv.Itoa(max(del, 0))
	return s.facts
}

// event records an event about v's object when the controller has a
// recorder. A failure to record is logged, not returned: events are best
// effort.
func (c *Controller) event(ctx context.Context, v *rsView, typ, reason, format string, args ...any) {
	c.annotatedEvent(ctx, v, nil, typ, reason, format, args...)
}

// annotatedEvent is event with annotations on the Event.
func (c *Controller) annotatedEvent(ctx context.Context, v *rsView, annotations map[string]string, typ, reason, format string, args ...any) {
	if c.recorder == nil {
		return
	}
	// The recorder reads the object's type and metadata and keeps none of
	// it.
	if err := c.recorder.AnnotatedEventf(ctx, c.kind.typed(v.obj), annotations, typ, reason, format, args...); err != nil {
		c.log.Debug("recording event failed", zap.String("reason", reason), zap.Error(err))
	}
}

// updateStatus writes status to v's object unless nothing would change,
// retrying once on a fresh copy, and returns the object as written.
func (c *Controller) updateStatus(ctx context.Context, v *rsView, status api.ReplicaSetStatus) (api.Object, error) {
	if !statusNeedsUpdate(c.kind.status(v.obj), v.meta.Generation, status) {
		return v.obj, nil
	}
	status.ObservedGeneration = v.meta.Generation
	cur := v.obj
	for i := 0; ; i++ {
		// A shallow copy is enough: status is this sync's own, and the
		// Client neither changes nor keeps what it is given.
		written, err := c.client.UpdateStatus(ctx, c.kind.withStatus(cur, status))
		if err == nil {
			return written, nil
		}
		if i >= statusUpdateRetries {
			return nil, err
		}
		fresh, getErr := c.client.Get(ctx, c.kind.resource, v.meta.Namespace, v.meta.Name, client.GetOptions{})
		if getErr != nil {
			return nil, getErr
		}
		cur = fresh
	}
}

// ---- claiming: adoption and release ----

// claimPods returns the pods of active that v's object owns after this
// sync's adoptions and releases (Kubernetes:
// PodControllerRefManager.ClaimPods), sel being v's selector:
//
//   - a pod controlled by another object is left alone;
//   - a pod controlled by the object is kept while the selector matches
//     it, and released (its reference to the object removed) when it no
//     longer does, unless the object is being deleted;
//   - an orphan that the selector matches is adopted (a controller
//     reference to the object added), unless the object or the pod is
//     being deleted, and only after an uncached read has confirmed that
//     the object still exists with the same UID and is not being deleted.
//
// Errors of adoptions and releases are joined and returned, so that the
// sync is retried; a pod that has vanished is not an error.
//
// The owned pods are filtered into active's array, in order, whose rest is
// cleared: the caller hands over active. allOwned says that every pod of
// active has a controller reference with the object's UID
// (claimablePods): their references are not read again.
func (c *Controller) claimPods(ctx context.Context, v *rsView, sel *labelMatcher, active []*api.Pod, allOwned bool) ([]*api.Pod, error) {
	matches := func(p *api.Pod) bool { return sel.matches(p.Metadata.Labels) }
	var (
		owned   = active[:0]
		errs    []error
		checked bool
		adoptOK error
	)
	canAdopt := func() error {
		if !checked {
			checked, adoptOK = true, c.recheck(ctx, v)
		}
		return adoptOK
	}
	uid := v.meta.UID
	beingDeleted := v.meta.DeletionTimestamp != nil
	for _, p := range active {
		controlled := allOwned
		if !allOwned {
			ref := controllerRefOf(&p.Metadata) // read only: no copy
			if ref != nil && ref.UID != uid {
				continue // another controller's pod
			}
			controlled = ref != nil
		}
		switch {
		case controlled && matches(p):
			owned = append(owned, p)
		case controlled:
			if beingDeleted {
				continue
			}
			if err := c.release(ctx, v, p); err != nil {
				errs = append(errs, err)
			}
		case beingDeleted || !matches(p) || p.Metadata.DeletionTimestamp != nil:
			// An orphan that is not ours to adopt, or not now.
		default:
			if err := canAdopt(); err != nil {
				errs = append(errs, fmt.Errorf("can't adopt pod %s: %w", api.KeyOf(&p.Metadata), err))
				continue
			}
			adopted, err := c.adopt(ctx, v, p)
			switch {
			case err == nil:
				owned = append(owned, adopted)
			case !apierrors.IsNotFound(err):
				errs = append(errs, err)
			}
		}
	}
	clear(active[len(owned):])
	return owned, errors.Join(errs...)
}

// recheck reads v's object from the server, not the cache, and refuses
// adoption if it is gone, has been replaced (another UID) or is being
// deleted: a pod adopted by a dying controller would be deleted with it.
func (c *Controller) recheck(ctx context.Context, v *rsView) error {
	obj, err := c.client.Get(ctx, c.kind.resource, v.meta.Namespace, v.meta.Name, client.GetOptions{})
	if err != nil {
		return fmt.Errorf("can't recheck deletionTimestamp: %w", err)
	}
	fresh := obj.GetObjectMeta()
	if fresh.UID != v.meta.UID {
		return fmt.Errorf("original %s is gone: got uid %s, wanted %s", api.KeyOf(v.meta), fresh.UID, v.meta.UID)
	}
	if fresh.DeletionTimestamp != nil {
		return fmt.Errorf("%s has just been deleted at %s", api.KeyOf(v.meta), fresh.DeletionTimestamp.Time)
	}
	return nil
}

// adopt makes v's object the controller of pod: a reference to it that is
// already there (as a plain owner) becomes the controller reference;
// otherwise one is added next to the pod's other owners. The update is
// conditional on the cached resourceVersion and the pod's UID.
func (c *Controller) adopt(ctx context.Context, v *rsView, pod *api.Pod) (*api.Pod, error) {
	next := pod.DeepCopy()
	ref := c.kind.controllerRef(v.meta)
	replaced := false
	for i := range next.Metadata.OwnerReferences {
		if next.Metadata.OwnerReferences[i].UID == v.meta.UID {
			next.Metadata.OwnerReferences[i] = ref
			replaced = true
		}
	}
	if !replaced {
		next.Metadata.OwnerReferences = append(next.Metadata.OwnerReferences, ref)
	}
	written, err := c.client.Update(ctx, next)
	if err != nil {
		return nil, fmt.Errorf("adopting pod %s: %w", api.KeyOf(&pod.Metadata), err)
	}
	c.log.Info("adopted pod", zap.String("owner", api.KeyOf(v.meta)), zap.String("pod", api.KeyOf(&pod.Metadata)))
	return written.(*api.Pod), nil
}

// release removes v's object's references from pod. A pod that vanished or
// can no longer be updated (Invalid) needs no release.
func (c *Controller) release(ctx context.Context, v *rsView, pod *api.Pod) error {
	next := pod.DeepCopy()
	next.Metadata.OwnerReferences = slices.DeleteFunc(next.Metadata.OwnerReferences, func(r api.OwnerReference) bool {
		return r.UID == v.meta.UID
	})
	if len(next.Metadata.OwnerReferences) == 0 {
		next.Metadata.OwnerReferences = nil
	}
	_, err := c.client.Update(ctx, next)
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsInvalid(err) {
		return fmt.Errorf("releasing pod %s: %w", api.KeyOf(&pod.Metadata), err)
	}
	if err == nil {
		c.log.Info("released pod", zap.String("owner", api.KeyOf(v.meta)), zap.String("pod", api.KeyOf(&pod.Metadata)))
	}
	return nil
}
