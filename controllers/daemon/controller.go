package daemon

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/client/record"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/deployment"
	"github.com/miniplane/miniplane/controllers/loop"
	"github.com/miniplane/miniplane/controllers/replication"
	"github.com/miniplane/miniplane/controllers/workqueue"
	"github.com/miniplane/miniplane/informer"
)

// The kind a pod's and a revision's controller reference names when a
// daemon set owns it.
const (
	controllerKind       = "DaemonSet"
	controllerAPIVersion = "apps/v1"
)

// maxRetries is how many times a daemon set's sync fails in a row before
// the key is dropped until its next change.
const maxRetries = 15

// burstReplicas bounds the pods one sync creates or deletes. Kubernetes:
// BurstReplicas.
const burstReplicas = 250

// The back-off between deletions of a node's failed daemon pods.
// Kubernetes: the failedPodsBackoff of NewDaemonSetsController.
const (
	failedPodsBackoffBase = time.Second
	failedPodsBackoffMax  = 15 * time.Minute
)

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
	// Factory gives the shared daemon set, revision, pod and node informers.
	Factory *informer.Factory
	// Clock judges availability, times back-off and the queue.
	Clock clock.Clock
	// Logger is named "daemonset" by New; nil means no logs.
	Logger *zap.Logger
	// Recorder, if set, receives the daemon sets' events (SuccessfulCreate,
	// SuccessfulDelete, FailedDaemonPod, ...).
	Recorder *record.EventRecorder
	// RateLimiter is the queue's; nil means the default controller limiter.
	RateLimiter workqueue.RateLimiter[string]
	// Observer, if set, is told of every sync (loop.Observer).
	Observer loop.Observer
}

// Controller is the daemon set controller. See the package documentation.
type Controller struct {
	client   Client
	clock    clock.Clock
	log      *zap.Logger
	recorder *record.EventRecorder

	sets      informer.Lister[*api.DaemonSet]
	revisions informer.Lister[*api.ControllerRevision]
	pods      informer.Lister[*api.Pod]
	podIndex  *informer.Indexer // the pod cache, with informer.ControllerIndex
	nodes     informer.Lister[*api.Node]

	informers []*informer.Informer
	regs      []*informer.Registration
	// expectations holds, per daemon set key, the pod creations and
	// deletions made and not yet seen in the pod informer: until they are,
	// a sync only writes status, so a stale cache never doubles a pod.
	expectations *replication.Expectations
	// backoff is the failed-pod deletion back-off per "<ds key>/<node>".
	backoff *backoff

	// queue holds the keys ("namespace/name") of daemon sets to sync.
	queue *workqueue.Queue[string]

	*loop.Loop // HasSynced, ProcessOne and Run: a manager.Controller
}

// New returns a controller whose handlers are registered on cfg.Factory's
// informers. It starts nothing.
func New(cfg Config) (*Controller, error) {
	if err := loop.CheckRequired("daemonset", cfg.Client, cfg.Factory, cfg.Clock); err != nil {
		return nil, err
	}
	log := loop.Logger(cfg.Logger)
	c := &Controller{
		client: cfg.Client, clock: cfg.Clock, log: log.Named("daemonset"), recorder: cfg.Recorder,
		expectations: replication.NewExpectations(cfg.Clock),
		backoff:      &backoff{entries: map[string]backoffEntry{}},
		queue:        loop.NewQueue("daemonset", cfg.Clock, cfg.RateLimiter),
	}
	apps := func(r string) apierrors.GroupResource { return apierrors.GroupResource{Group: "apps", Resource: r} }
	dsInf := cfg.Factory.ForResource(client.DaemonSets)
	crInf := cfg.Factory.ForResource(client.ControllerRevisions)
	podInf := cfg.Factory.ForResource(client.Pods)
	nodeInf := cfg.Factory.ForResource(client.Nodes)
	c.informers = []*informer.Informer{dsInf, crInf, podInf, nodeInf}
	c.sets = informer.NewLister[*api.DaemonSet](dsInf, apps(client.DaemonSets))
	c.revisions = informer.NewLister[*api.ControllerRevision](crInf, apps(client.ControllerRevisions))
	c.pods = informer.NewLister[*api.Pod](podInf, apierrors.GroupResource{Resource: client.Pods})
	if err := informer.AddControllerIndex(podInf.Indexer()); err != nil {
		return nil, fmt.Errorf("daemon: %w", err)
	}
	c.podIndex = podInf.Indexer()
	c.nodes = informer.NewLister[*api.Node](nodeInf, apierrors.GroupResource{Resource: client.Nodes})
	c.regs = []*informer.Registration{
		dsInf.AddEventHandler(informer.HandlerFuncs{
			AddFunc:    func(obj api.Object, _ bool) { c.enqueue(obj) },
			UpdateFunc: func(_, cur api.Object) { c.enqueue(cur) },
			DeleteFunc: func(obj any) {
				if o, _ := informer.DeletedObject(obj); o != nil {
					key := informer.KeyOf(o)
					c.expectations.Delete(key)
					c.backoff.forget(key)
					c.queue.Add(key)
				}
			},
		}, 0),
		crInf.AddEventHandler(informer.HandlerFuncs{
			// As Kubernetes' addHistory: a new revision with a controller is only
			// observed (the set's next sync reads it; a revision someone adds beside
			// the set's own must not make it sync and fold the two at once); an
			// orphan wakes the sets that select it.
			AddFunc: func(obj api.Object, _ bool) {
				switch m := obj.GetObjectMeta(); {
				case m.DeletionTimestamp != nil:
					c.enqueueOwner(m)
				case api.GetControllerOf(m) == nil:
					c.enqueueFor(m)
				}
			},
			UpdateFunc: func(old, cur api.Object) { c.enqueueFor(old.GetObjectMeta(), cur.GetObjectMeta()) },
			DeleteFunc: func(obj any) {
				if o, _ := informer.DeletedObject(obj); o != nil {
					c.enqueueOwner(o.GetObjectMeta())
				}
			},
		}, 0),
		podInf.AddEventHandler(informer.HandlerFuncs{
			AddFunc: func(obj api.Object, _ bool) {
				m := obj.GetObjectMeta()
				if key, ok := ownerKey(m); ok {
					c.expectations.CreationObserved(key)
				}
				c.enqueueFor(m)
			},
			UpdateFunc: func(old, cur api.Object) {
				m := cur.GetObjectMeta()
				if key, ok := ownerKey(m); ok && m.DeletionTimestamp != nil && old.GetObjectMeta().DeletionTimestamp == nil {
					c.expectations.DeletionObserved(key, informer.KeyOf(cur))
				}
				c.enqueueFor(old.GetObjectMeta(), m)
			},
			DeleteFunc: func(obj any) {
				if o, _ := informer.DeletedObject(obj); o != nil {
					if key, ok := ownerKey(o.GetObjectMeta()); ok {
						c.expectations.DeletionObserved(key, informer.KeyOf(o))
						c.queue.Add(key)
					}
				}
			},
		}, 0),
		nodeInf.AddEventHandler(informer.HandlerFuncs{
			AddFunc:    func(obj api.Object, _ bool) { c.nodeChanged(nil, obj.(*api.Node)) },
			UpdateFunc: func(old, cur api.Object) { c.nodeChanged(old.(*api.Node), cur.(*api.Node)) },
			DeleteFunc: func(obj any) {
				if o, _ := informer.DeletedObject(obj); o != nil {
					c.nodeChanged(nil, o.(*api.Node))
				}
			},
		}, 0),
	}
	var err error
	c.Loop, err = loop.New(loop.Config{
		Registrations: c.regs,
		Name:          "daemonset", Queue: c.queue, Sync: c.sync, Logger: c.log, MaxRetries: maxRetries,
		Observer: cfg.Observer, Clock: cfg.Clock, Informers: c.informers,
	})
	if err != nil {
		return nil, fmt.Errorf("daemonset: %w", err)
	}
	return c, nil
}

func (c *Controller) enqueue(obj api.Object) { c.queue.Add(informer.KeyOf(obj)) }

// ownerKey is the key of the daemon set that controls m, if one does.
func ownerKey(m *api.ObjectMeta) (string, bool) {
	ref := api.GetControllerOf(m)
	if ref == nil || ref.Kind != controllerKind || ref.APIVersion != controllerAPIVersion {
		return "", false
	}
	return m.Namespace + "/" + ref.Name, true
}

func (c *Controller) enqueueOwner(m *api.ObjectMeta) {
	if key, ok := ownerKey(m); ok {
		c.queue.Add(key)
	}
}

// enqueueFor enqueues the daemon set that controls each of metas, or, for
// an orphan, every daemon set of its namespace that selects it
// (deployment.ControllerKeys).
func (c *Controller) enqueueFor(metas ...*api.ObjectMeta) {
	list := func(ns string) []*api.DaemonSet { return c.sets.Namespace(ns).List(api.Selector{}) }
	selector := func(o *api.DaemonSet) *api.LabelSelector { return o.Spec.Selector }
	for _, key := range deployment.ControllerKeys(controllerAPIVersion, controllerKind, list, selector, metas...) {
		c.queue.Add(key)
	}
}

// nodeChanged enqueues the daemon sets whose verdict on the node changed:
// every one that wants it when it comes or goes, and on an update those
// for which ShouldRun answers differently. Kubernetes: addNode, updateNode
// and deleteNode (which enqueues all).
func (c *Controller) nodeChanged(old, cur *api.Node) {
	for _, ds := range c.sets.List(api.Selector{}) {
		run, cont := ShouldRun(cur, ds)
		if old == nil {
			if run || cont {
				c.enqueue(ds)
			}
			continue
		}
		if oldRun, oldCont := ShouldRun(old, ds); oldRun != run || oldCont != cont {
			c.enqueue(ds)
		}
	}
}

// sync reconciles one daemon set: its revisions, then its pods node by
// node, then its status. Kubernetes: syncDaemonSet.
func (c *Controller) sync(ctx context.Context, key string) error {
	namespace, name, err := api.SplitKey(key)
	if err != nil {
		c.log.Error("bad key", zap.String("key", key), zap.Error(err))
		return nil
	}
	ds, err := c.sets.Namespace(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		c.expectations.Delete(key)
		return nil
	}
	if err != nil {
		return err
	}
	if sel := ds.Spec.Selector; sel != nil && len(sel.MatchLabels)+len(sel.MatchExpressions) == 0 {
		c.event(ctx, ds, Event{Warning: true, Reason: reasonSelectingAll, Message: "This daemon set is selecting all pods. A non-empty selector is required."})
		return nil
	}
	if ds.Metadata.DeletionTimestamp != nil {
		// Its revisions may be going; its status cannot be counted.
		return nil
	}
	hist, err := c.revisionHistory(ctx, ds)
	if err != nil {
		return err
	}
	hash := hist.Current.Metadata.Labels[api.DaemonSetUniqueLabelKey]
	pods, err := c.claimPods(ctx, ds)
	if err != nil {
		return err
	}
	now := c.clock.Now()
	s := &State{DS: ds, Nodes: c.sortedNodes(), PodsByNode: podsByNode(pods, false), Hash: hash, Now: now,
		BackedOff: c.backoff.backedOff(key, now)}
	satisfied := c.expectations.Satisfied(key)
	var errs []error
	if satisfied {
		d := Decide(s)
		errs = append(errs, c.act(ctx, key, ds, d, hash))
		if err := c.cleanupHistory(ctx, ds, hist.Old, pods); err != nil {
			errs = append(errs, fmt.Errorf("failed to clean up revisions of DaemonSet: %w", err))
		}
	}
	errs = append(errs, c.writeStatus(ctx, ds, Status(s), satisfied))
	if ds.Spec.MinReadySeconds > 0 {
		if st := Status(s); st.NumberReady != st.NumberAvailable {
			c.queue.AddAfter(key, time.Duration(ds.Spec.MinReadySeconds)*time.Second)
		}
	}
	if delay, ok := c.backoff.soonest(key, now); ok {
		c.queue.AddAfter(key, delay)
	}
	return errors.Join(errs...)
}

func (c *Controller) sortedNodes() []*api.Node {
	nodes := c.nodes.List(api.Selector{})
	slices.SortFunc(nodes, func(a, b *api.Node) int {
		switch {
		case a.Metadata.Name < b.Metadata.Name:
			return -1
		case a.Metadata.Name > b.Metadata.Name:
			return 1
		}
		return 0
	})
	return nodes
}

// podsByNode groups pods by the node each is for, leaving out pods that
// name none and, unless includeDeletedTerminal, terminal pods already
// being deleted. Kubernetes: getNodesToDaemonPods.
func podsByNode(pods []*api.Pod, includeDeletedTerminal bool) map[string][]*api.Pod {
	out := map[string][]*api.Pod{}
	for _, p := range pods {
		terminal := p.Status.Phase == api.PodSucceeded || p.Status.Phase == api.PodFailed
		if !includeDeletedTerminal && terminal && p.Metadata.DeletionTimestamp != nil {
			continue
		}
		if node, ok := TargetNode(p); ok {
			out[node] = append(out[node], p)
		}
	}
	return out
}

// act makes d's writes: pod deletions, then creations (at most
// burstReplicas of each), with expectations set first, then the events.
// Kubernetes: syncNodes.
func (c *Controller) act(ctx context.Context, key string, ds *api.DaemonSet, d Decision, hash string) error {
	var errs []error
	for _, node := range d.FailedNodes {
		c.backoff.next(key+"/"+node, c.clock.Now())
	}
	for _, e := range d.Events {
		c.event(ctx, ds, e)
	}
	deletes := d.Delete[:min(len(d.Delete), burstReplicas)]
	creates := d.Create[:min(len(d.Create), burstReplicas)]
	if len(deletes) > 0 {
		keys := make([]string, len(deletes))
		for i, p := range deletes {
			keys[i] = informer.KeyOf(p)
		}
		c.expectations.ExpectDeletions(key, keys)
		for _, p := range deletes {
			_, err := c.client.Delete(ctx, client.Pods, p.Metadata.Namespace, p.Metadata.Name, api.DeleteOptions{})
			if err != nil {
				c.expectations.DeletionObserved(key, informer.KeyOf(p))
				if !apierrors.IsNotFound(err) {
					c.event(ctx, ds, Event{Warning: true, Reason: "FailedDelete", Message: "Error deleting: " + err.Error()})
					errs = append(errs, err)
				}
				continue
			}
			c.event(ctx, ds, Event{Reason: "SuccessfulDelete", Message: "Deleted pod: " + p.Metadata.Name})
		}
	}
	if len(creates) > 0 {
		c.expectations.ExpectCreations(key, len(creates))
		template := podTemplate(ds, hash)
		for _, node := range creates {
			created, err := c.client.Create(ctx, NewPod(ds, &template, node), client.Handover())
			if err != nil {
				c.expectations.CreationObserved(key)
				c.event(ctx, ds, Event{Warning: true, Reason: "FailedCreate", Message: "Error creating: " + err.Error()})
				errs = append(errs, err)
				continue
			}
			c.event(ctx, ds, Event{Reason: "SuccessfulCreate", Message: "Created pod: " + created.GetObjectMeta().Name})
		}
	}
	return errors.Join(errs...)
}

// podTemplate is ds's template as its pods run it: with the daemon
// tolerations, the template generation's label and the revision's hash
// label. Kubernetes: CreatePodTemplate.
func podTemplate(ds *api.DaemonSet, hash string) api.PodTemplateSpec {
	t := *ds.Spec.Template.DeepCopy()
	AddDaemonTolerations(&t.Spec)
	if t.Metadata.Labels == nil {
		t.Metadata.Labels = map[string]string{}
	}
	if gen := TemplateGeneration(ds); gen != nil {
		t.Metadata.Labels[api.DaemonSetTemplateGenerationLabel] = strconv.FormatInt(*gen, 10)
	}
	if hash != "" {
		t.Metadata.Labels[api.DaemonSetUniqueLabelKey] = hash
	}
	return t
}

// NewPod is the pod ds runs on node, from template (podTemplate's): named
// "<ds>-" plus a suffix, controlled by ds, and pinned to node by its
// required node affinity, left for the scheduler to bind. Kubernetes:
// syncNodes and the pod control's CreatePods.
func NewPod(ds *api.DaemonSet, template *api.PodTemplateSpec, node string) *api.Pod {
	t := template.DeepCopy()
	pod := &api.Pod{Metadata: t.Metadata, Spec: t.Spec}
	m := &pod.Metadata
	m.Name, m.Namespace, m.GenerateName = "", ds.Metadata.Namespace, ds.Metadata.Name+"-"
	m.OwnerReferences = []api.OwnerReference{controllerRef(ds)}
	pod.Spec.Affinity = PinToNode(pod.Spec.Affinity, node)
	return pod
}

// controllerRef is the owner reference that makes ds a pod's or a
// revision's controller.
func controllerRef(ds *api.DaemonSet) api.OwnerReference {
	return deployment.NewControllerRef(controllerAPIVersion, controllerKind, &ds.Metadata)
}

// writeStatus writes st if it differs from ds's, with observedGeneration
// raised to the generation when the sync acted on it. Kubernetes:
// storeDaemonSetStatus.
func (c *Controller) writeStatus(ctx context.Context, ds *api.DaemonSet, st api.DaemonSetStatus, observed bool) error {
	if observed {
		st.ObservedGeneration = ds.Metadata.Generation
	}
	if reflect.DeepEqual(st, ds.Status) {
		return nil
	}
	next := *ds
	next.Status = st
	_, err := c.client.UpdateStatus(ctx, &next)
	return err
}

func (c *Controller) event(ctx context.Context, ds *api.DaemonSet, e Event) {
	if c.recorder == nil {
		return
	}
	typ := api.EventTypeNormal
	if e.Warning {
		typ = api.EventTypeWarning
	}
	_ = c.recorder.Event(ctx, ds, typ, e.Reason, e.Message)
}

// backoff is the failed-pod deletion back-off: a key's delay starts at
// failedPodsBackoffBase and doubles at each deletion up to
// failedPodsBackoffMax; a key idle for twice the maximum starts over.
// Kubernetes: flowcontrol.Backoff with IsInBackOffSinceUpdate.
type backoff struct {
	// mu guards entries.
	mu      sync.Mutex
	entries map[string]backoffEntry // by "<ds key>/<node>"
}

type backoffEntry struct {
	delay   time.Duration
	updated time.Time
}

func (b *backoff) next(key string, now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	e, ok := b.entries[key]
	if !ok || now.Sub(e.updated) > 2*failedPodsBackoffMax {
		e.delay = failedPodsBackoffBase
	} else {
		e.delay = min(2*e.delay, failedPodsBackoffMax)
	}
	e.updated = now
	b.entries[key] = e
}

// backedOff are the nodes of daemon set dsKey still in back-off at now.
func (b *backoff) backedOff(dsKey string, now time.Time) map[string]bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := map[string]bool{}
	for k, e := range b.entries {
		if node, ok := strings.CutPrefix(k, dsKey+"/"); ok && now.Sub(e.updated) < e.delay {
			out[node] = true
		}
	}
	return out
}

// soonest is how long until the first of dsKey's back-offs ends.
func (b *backoff) soonest(dsKey string, now time.Time) (time.Duration, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var best time.Duration
	found := false
	for k, e := range b.entries {
		if _, ok := strings.CutPrefix(k, dsKey+"/"); !ok {
			continue
		}
		if left := e.delay - now.Sub(e.updated); left > 0 && (!found || left < best) {
			best, found = left, true
		}
	}
	return best, found
}

func (b *backoff) forget(dsKey string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for k := range b.entries {
		if _, ok := strings.CutPrefix(k, dsKey+"/"); ok {
			delete(b.entries, k)
		}
	}
}
