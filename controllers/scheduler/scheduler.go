package scheduler

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
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
	"github.com/miniplane/miniplane/controllers/scheduler/fit"
	"github.com/miniplane/miniplane/controllers/workqueue"
	"github.com/miniplane/miniplane/informer"
)

// Client is what the scheduler writes through: the status of a pod it
// cannot place, and the preemption of its victims (their DisruptionTarget
// condition, then their deletion). client.Client and *apiserver.Server
// satisfy it.
type Client interface {
	UpdateStatus(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error)
	Delete(ctx context.Context, resource, namespace, name string, opts api.DeleteOptions) (api.Object, error)
}

// Binder binds a pending pod to a node: the pods/binding subresource.
// *apiserver.Server satisfies it.
type Binder interface {
	Bind(ctx context.Context, namespace, name, node string) (*api.Pod, error)
}

// The values of the plane's --scheduler: this package's scheduler, or
// none (another scheduler, a real kube-scheduler, binds the pods).
const (
	Builtin = "builtin"
	None    = "none"
)

// Component is the scheduler's name as the source of its events:
// kube-scheduler's default profile's.
const Component = "default-scheduler"

// DefaultPodsPerNode is the pod capacity of a node that states none: the
// kubelet's default max-pods.
const DefaultPodsPerNode = 110

// unschedulableFlush is how long a pod no node could take waits before the
// scheduler tries it again without any event to prompt it: kube-scheduler
// moves a pod that has sat in its unschedulable queue for
// podMaxInUnschedulablePodsDuration (5 minutes) back to be tried.
const unschedulableFlush = 5 * time.Minute

// Config configures a Controller.
type Config struct {
	// Client writes pod status and deletes preempted pods. Required.
	Client Client
	// Binder binds pods; nil means Client, which must then implement it.
	Binder Binder
	// Factory gives the shared pod, node, claim and PodDisruptionBudget
	// informers. Required.
	Factory *informer.Factory
	// Clock times the retries and the conditions written. Required.
	Clock clock.Clock
	// Logger receives structured logs; nil means none.
	Logger *zap.Logger
	// Recorder records the scheduler's events (Scheduled,
	// FailedScheduling, Preempted), as Component; nil: none.
	Recorder *record.EventRecorder
	// PodsPerNode is the pod capacity of a node whose status states none;
	// 0 means DefaultPodsPerNode.
	PodsPerNode int
	// Observer, if set, is told of every sync (loop.Observer).
	Observer loop.Observer
}

// Controller is the scheduler.
type Controller struct {
	client Client
	binder Binder
	clock  clock.Clock
	log    *zap.Logger
	rec    *record.EventRecorder
	queue  *workqueue.Queue[string]
	loop   *loop.Loop
	// podsPerNode is Config.PodsPerNode, defaulted.
	podsPerNode int

	podInf, nodeInf                   *informer.Informer
	podReg, nodeReg, claimReg, pdbReg *informer.Registration
	nodes                             informer.Lister[*api.Node]
	claims                            informer.Lister[*api.PersistentVolumeClaim]
	pdbs                              informer.Lister[*api.PodDisruptionBudget]

	// mu guards the fields below.
	mu sync.Mutex
	// pods is what the scheduler counts of each pod, by key (counts.go);
	// an entry that holds nothing is dropped.
	pods map[string]*podInfo
	// nodeRecs is the scheduler's record of each node it counted a pod
	// against, by name: its pod count and requests, its place in the heap.
	// A record is kept once made.
	nodeRecs map[string]*nodeRec
	// unschedulable holds the keys of pending pods no node could take;
	// they are tried again when room may have been made.
	unschedulable map[string]bool
	// nodeList is the node cache's list as of the node handler's last
	// delivery, nil when a node event has come since, and nodeFits the
	// filters' view of each (without its pods); fitBuf is schedule's
	// scratch space. See nodesLocked.
	nodeList []*api.Node
	nodeFits []fit.Node
	fitBuf   []fit.Node
	// load is a heap of the nodes that take any pod, by pod count, then
	// name; loadOK false means it is to be rebuilt, and loadGen counts the
	// rebuilds: a node's record points at its entry of the heap built at
	// its loadGen. loadLeftOut counts the nodes the heap leaves out
	// (keepsPodsOff). See leastloaded.go.
	load        loadHeap
	loadOK      bool
	loadGen     uint64
	loadLeftOut int
}

// New returns a scheduler whose handlers are registered on the factory's
// informers. It starts nothing.
func New(cfg Config) (*Controller, error) {
	if cfg.Client == nil || cfg.Factory == nil || cfg.Clock == nil {
		return nil, errors.New("scheduler: Config needs a Client, a Factory and a Clock")
	}
	binder := cfg.Binder
	if binder == nil {
		b, ok := cfg.Client.(Binder)
		if !ok {
			return nil, errors.New("scheduler: Config.Client cannot bind pods; set Config.Binder")
		}
		binder = b
	}
	log := cfg.Logger
	if log == nil {
		log = zap.NewNop()
	}
	if cfg.PodsPerNode == 0 {
		cfg.PodsPerNode = DefaultPodsPerNode
	}
	c := &Controller{
		client: cfg.Client, binder: binder, clock: cfg.Clock, log: log.Named("scheduler"), rec: cfg.Recorder,
		queue:         workqueue.New(workqueue.Config[string]{Name: "scheduler", Clock: cfg.Clock, Metrics: true}),
		podsPerNode:   cfg.PodsPerNode,
		podInf:        cfg.Factory.ForResource(client.Pods),
		nodeInf:       cfg.Factory.ForResource(client.Nodes),
		pods:          make(map[string]*podInfo),
		nodeRecs:      make(map[string]*nodeRec),
		unschedulable: make(map[string]bool),
	}
	if err := informer.AddNodeNameIndex(c.podInf.Indexer()); err != nil {
		return nil, fmt.Errorf("scheduler: %w", err)
	}
	claimInf := cfg.Factory.ForResource(client.PersistentVolumeClaims)
	pdbInf := cfg.Factory.ForResource(client.PodDisruptionBudgets)
	c.nodes = informer.NewLister[*api.Node](c.nodeInf, apierrors.GroupResource{Resource: client.Nodes})
	c.claims = informer.NewLister[*api.PersistentVolumeClaim](claimInf, apierrors.GroupResource{Resource: client.PersistentVolumeClaims})
	c.pdbs = informer.NewLister[*api.PodDisruptionBudget](pdbInf, apierrors.GroupResource{Group: "policy", Resource: client.PodDisruptionBudgets})
	c.podReg = c.podInf.AddEventHandler(informer.HandlerFuncs{
		AddFunc: func(obj api.Object, _ bool) {
			if key, pending := c.observe(obj, false); pending {
				c.queue.Add(key)
			}
		},
		UpdateFunc: func(oldObj, newObj api.Object) {
			// A pending pod whose status alone changed (the scheduler's
			// own write, most often) is not tried again for it, as
			// kube-scheduler's queue ignores such an update (isPodUpdated).
			if key, pending := c.observe(newObj, false); pending && !statusOnly(oldObj.(*api.Pod), newObj.(*api.Pod)) {
				c.queue.Add(key)
			}
			if finished(newObj.(*api.Pod)) && !finished(oldObj.(*api.Pod)) {
				c.retryUnschedulable() // a finished pod frees its slot
			}
		},
		DeleteFunc: func(obj any) {
			if o, _ := informer.DeletedObject(obj); o != nil {
				c.observe(o, true)
			} else if t, ok := obj.(informer.DeletedFinalStateUnknown); ok {
				c.mu.Lock()
				c.observePodLocked(t.Key, c.pods[t.Key], nil)
				c.mu.Unlock()
			}
			c.retryUnschedulable()
		},
	}, 0)
	nodeChanged := func() {
		c.nodesChanged()
		c.retryUnschedulable()
	}
	c.nodeReg = c.nodeInf.AddEventHandler(informer.HandlerFuncs{
		AddFunc:    func(api.Object, bool) { nodeChanged() },
		UpdateFunc: func(api.Object, api.Object) { nodeChanged() },
		DeleteFunc: func(any) { nodeChanged() },
	}, 0)
	// A claim bound may let a pod that waits on it be scheduled.
	c.claimReg = claimInf.AddEventHandler(informer.HandlerFuncs{
		AddFunc: func(api.Object, bool) { c.retryUnschedulable() },
		UpdateFunc: func(oldObj, newObj api.Object) {
			if oldObj.(*api.PersistentVolumeClaim).Status.Phase != newObj.(*api.PersistentVolumeClaim).Status.Phase {
				c.retryUnschedulable()
			}
		},
	}, 0)
	// The budgets are read when a preemption picks its victims; a
	// handler that does nothing makes HasSynced wait for their cache.
	c.pdbReg = pdbInf.AddEventHandler(informer.HandlerFuncs{}, 0)
	var err error
	c.loop, err = loop.New(loop.Config{
		Name: "scheduler", Queue: c.queue, Sync: c.sync, Logger: c.log, Observer: cfg.Observer, Clock: cfg.Clock,
		Informers: []*informer.Informer{c.podInf, c.nodeInf, claimInf, pdbInf},
		// A failed binding or status write is retried for ever, logged
		// at Debug, as the kubelets' writes are.
		Quiet: func(error) bool { return true },
	})
	if err != nil {
		return nil, fmt.Errorf("scheduler: %w", err)
	}
	return c, nil
}

// Queue returns the scheduler's workqueue of pod keys.
func (c *Controller) Queue() *workqueue.Queue[string] { return c.queue }

// HasSynced reports whether every handler has been handed its informer's
// initial list.
func (c *Controller) HasSynced() bool {
	return c.podReg.HasSynced() && c.nodeReg.HasSynced() && c.claimReg.HasSynced() && c.pdbReg.HasSynced()
}

// ProcessOne is the scheduler's step: unless ctx is done, it syncs one
// ready pod key and reports whether there was one.
func (c *Controller) ProcessOne(ctx context.Context) bool { return c.loop.ProcessOne(ctx) }

// Run waits for the informers' handlers to sync, then runs workers
// goroutines scheduling pods until ctx is done; it shuts the queue down
// and returns once they have all exited.
func (c *Controller) Run(ctx context.Context, workers int) { c.loop.Run(ctx, workers) }

// sync schedules the pod under key if it is still pending.
func (c *Controller) sync(ctx context.Context, key string) error {
	obj, ok := c.podInf.Indexer().Get(key)
	var pod *api.Pod
	if ok {
		pod, _ = obj.(*api.Pod)
	}
	if pod == nil || pod.Spec.NodeName != "" {
		c.mu.Lock()
		delete(c.unschedulable, key) // gone, or bound: nothing to retry
		c.mu.Unlock()
		return nil
	}
	return c.schedule(ctx, key, pod)
}

// retryUnschedulable queues every pod that found no node, in key order.
func (c *Controller) retryUnschedulable() {
	c.mu.Lock()
	if len(c.unschedulable) == 0 {
		c.mu.Unlock()
		return // the usual case, at every pod that finishes or goes
	}
	keys := slices.Sorted(maps.Keys(c.unschedulable))
	c.mu.Unlock()
	for _, k := range keys {
		c.queue.Add(k)
	}
}

// statusOnly reports whether new differs from old, both unbound, in its
// status and resourceVersion alone.
func statusOnly(old, new *api.Pod) bool {
	if old.Spec.NodeName != "" || old.Metadata.DeletionTimestamp != nil {
		return false
	}
	o, n := old.Metadata, new.Metadata
	o.ResourceVersion, n.ResourceVersion = "", ""
	o.ManagedFields, n.ManagedFields = nil, nil
	return reflect.DeepEqual(o, n) && reflect.DeepEqual(old.Spec, new.Spec)
}

func finished(p *api.Pod) bool {
	return p.Status.Phase == api.PodSucceeded || p.Status.Phase == api.PodFailed
}

// event records an event when there is a recorder; a failure to record
// is logged, never fatal.
func (c *Controller) event(ctx context.Context, obj api.Object, typ, reason, message string) {
	if c.rec == nil {
		return
	}
	if err := c.rec.Event(ctx, obj, typ, reason, message); err != nil {
		c.log.Debug("event not recorded", zap.String("reason", reason), zap.Error(err))
	}
}

// nodeCapacity is a node's pod capacity: allocatable, else capacity, else
// the configured default.
func (c *Controller) nodeCapacity(n *api.Node) int {
	for _, l := range []api.ResourceList{n.Status.Allocatable, n.Status.Capacity} {
		if v, err := strconv.Atoi(l[api.ResourcePods]); err == nil {
			return v
		}
	}
	return c.podsPerNode
}

// nodeReady reports whether a node is ready: its Ready condition is True,
// or it has none (a node registered by hand, say with kubectl).
func nodeReady(n *api.Node) bool {
	for _, cond := range n.Status.Conditions {
		if cond.Type == api.NodeReady {
			return cond.Status == api.ConditionTrue
		}
	}
	return true
}
