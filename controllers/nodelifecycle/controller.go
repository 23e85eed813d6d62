package nodelifecycle

import (
	"context"
	"errors"
	"fmt"
	"strings"
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

// Client is what the controller writes through: pods' status.
// client.Client and *apiserver.Server satisfy it.
type Client interface {
	UpdateStatus(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error)
}

// Component is the controller's name as the source of its events:
// kube-controller-manager's node lifecycle controller's.
const Component = "node-controller"

// DefaultEvictionTimeout is Config.EvictionTimeout's default.
const DefaultEvictionTimeout = 30 * time.Second

// Config configures a Controller.
type Config struct {
	// Client writes pods' status. Required.
	Client Client
	// Factory gives the shared pod and node informers. Required.
	Factory *informer.Factory
	// Clock times the outages and the conditions written. Required.
	Clock clock.Clock
	// Logger receives structured logs; nil means none.
	Logger *zap.Logger
	// Recorder records the controller's events (NodeNotReady, NodeLost),
	// as Component; nil: none.
	Recorder *record.EventRecorder
	// EvictionTimeout is how long pods stay on a node that is not ready
	// before they are marked Failed (NodeLost); 0 means
	// DefaultEvictionTimeout, a negative value none at all.
	EvictionTimeout time.Duration
	// Observer, if set, is told of every sync (loop.Observer).
	Observer loop.Observer
}

// Controller is the node lifecycle controller.
type Controller struct {
	client Client
	clock  clock.Clock
	log    *zap.Logger
	rec    *record.EventRecorder
	queue  *workqueue.Queue[string]
	loop   *loop.Loop
	// evictionTimeout is Config.EvictionTimeout, defaulted.
	evictionTimeout time.Duration

	podInf, nodeInf *informer.Informer
	podReg, nodeReg *informer.Registration
	pods            informer.Lister[*api.Pod]
	nodes           informer.Lister[*api.Node]

	// mu guards health.
	mu sync.Mutex
	// health is the controller's record of each node the node handler
	// delivered, by name, as upstream's nodeHealthMap and knownNodeSet:
	// dropped once the node's deletion has been recorded.
	health map[string]*nodeHealth
}

// nodeHealth is what the controller knows of one node's readiness.
type nodeHealth struct {
	ready bool
	// since is when the controller saw the node go not ready, or, for a
	// node not ready when first seen, its Ready condition's
	// lastTransitionTime. Zero while ready.
	since time.Time
	// told says the node's status change has been recorded (the
	// NodeNotReady event), or needs none: the node was not ready when
	// first seen.
	told bool
	// registered says the RegisteredNode event has been recorded.
	registered bool
	// gone is the node as last delivered, once the handler has seen it
	// deleted, until its RemovingNode event is recorded.
	gone *api.Node
}

// New returns a controller whose handlers are registered on the factory's
// pod and node informers. It starts nothing.
func New(cfg Config) (*Controller, error) {
	if cfg.Client == nil || cfg.Factory == nil || cfg.Clock == nil {
		return nil, errors.New("nodelifecycle: Config needs a Client, a Factory and a Clock")
	}
	log := cfg.Logger
	if log == nil {
		log = zap.NewNop()
	}
	switch {
	case cfg.EvictionTimeout == 0:
		cfg.EvictionTimeout = DefaultEvictionTimeout
	case cfg.EvictionTimeout < 0:
		cfg.EvictionTimeout = 0
	}
	c := &Controller{
		client: cfg.Client, clock: cfg.Clock, log: log.Named("nodelifecycle"), rec: cfg.Recorder,
		queue:           workqueue.New(workqueue.Config[string]{Name: "nodelifecycle", Clock: cfg.Clock, Metrics: true}),
		evictionTimeout: cfg.EvictionTimeout,
		podInf:          cfg.Factory.ForResource(client.Pods),
		nodeInf:         cfg.Factory.ForResource(client.Nodes),
		health:          make(map[string]*nodeHealth),
	}
	if err := informer.AddNodeNameIndex(c.podInf.Indexer()); err != nil {
		return nil, fmt.Errorf("nodelifecycle: %w", err)
	}
	c.pods = informer.NewLister[*api.Pod](c.podInf, apierrors.GroupResource{Resource: client.Pods})
	c.nodes = informer.NewLister[*api.Node](c.nodeInf, apierrors.GroupResource{Resource: client.Nodes})
	c.podReg = c.podInf.AddEventHandler(informer.HandlerFuncs{
		AddFunc:    func(obj api.Object, _ bool) { c.podChanged(obj) },
		UpdateFunc: func(_, newObj api.Object) { c.podChanged(newObj) },
	}, 0)
	c.nodeReg = c.nodeInf.AddEventHandler(informer.HandlerFuncs{
		AddFunc:    func(obj api.Object, _ bool) { c.nodeChanged(obj.(*api.Node)) },
		UpdateFunc: func(_, newObj api.Object) { c.nodeChanged(newObj.(*api.Node)) },
		DeleteFunc: func(obj any) {
			if n, _ := informer.DeletedObject(obj); n != nil {
				c.nodeDeleted(n.(*api.Node))
			}
		},
	}, 0)
	var err error
	c.loop, err = loop.New(loop.Config{
		Name: "nodelifecycle", Queue: c.queue, Sync: c.sync, Logger: c.log, Observer: cfg.Observer, Clock: cfg.Clock,
		Informers: []*informer.Informer{c.podInf, c.nodeInf},
		// A failed status write (a conflict, a fault the simulator
		// injected) is retried for ever, logged at Debug, as the
		// kubelets' writes are.
		Quiet: func(error) bool { return true },
	})
	if err != nil {
		return nil, fmt.Errorf("nodelifecycle: %w", err)
	}
	return c, nil
}

// Queue returns the controller's workqueue of node names and pod keys.
func (c *Controller) Queue() *workqueue.Queue[string] { return c.queue }

// HasSynced reports whether the pod and node handlers have been handed
// the informers' initial lists.
func (c *Controller) HasSynced() bool { return c.podReg.HasSynced() && c.nodeReg.HasSynced() }

// ProcessOne is the controller's step: unless ctx is done, it syncs one
// ready key and reports whether there was one.
func (c *Controller) ProcessOne(ctx context.Context) bool { return c.loop.ProcessOne(ctx) }

// Run waits for the informers' handlers to sync, then runs workers
// goroutines syncing keys until ctx is done; it shuts the queue down and
// returns once they have all exited.
func (c *Controller) Run(ctx context.Context, workers int) { c.loop.Run(ctx, workers) }

// nodeChanged records the node's readiness and queues the node when it is
// new (to record its registration) or not ready: a node seen going not
// ready is dated now, as upstream's tryUpdateNodeHealth dates a
// transition it observes.
func (c *Controller) nodeChanged(n *api.Node) {
	ready, since := nodeReady(n)
	name := n.Metadata.Name
	c.mu.Lock()
	h := c.health[name]
	isNew := h == nil || h.gone != nil
	switch {
	case isNew:
		h = &nodeHealth{ready: ready, told: true}
		if !ready {
			h.since = since // not ready when first seen: as its status says
		}
		c.health[name] = h
	case h.ready && !ready:
		h.ready, h.since, h.told = false, c.clock.Now(), false
	case ready:
		h.ready, h.since = true, time.Time{}
	}
	c.mu.Unlock()
	if isNew || !ready {
		c.queue.Add(name)
	}
}

// nodeDeleted marks the node's record gone and queues the node, whose
// sync records its removal.
func (c *Controller) nodeDeleted(n *api.Node) {
	c.mu.Lock()
	h := c.health[n.Metadata.Name]
	if h != nil {
		h.gone = n
	}
	c.mu.Unlock()
	if h != nil {
		c.queue.Add(n.Metadata.Name)
	}
}

// podChanged queues a pod bound to a node that is not ready: any other
// has nothing to do here.
func (c *Controller) podChanged(obj api.Object) {
	p, ok := obj.(*api.Pod)
	if !ok || p.Spec.NodeName == "" {
		return
	}
	c.mu.Lock()
	_, down := c.downSinceLocked(p.Spec.NodeName)
	c.mu.Unlock()
	if down {
		c.queue.Add(api.KeyOf(&p.Metadata))
	}
}

// downSinceLocked reports whether the node named name is known and not
// ready, and since when. Its caller holds mu.
func (c *Controller) downSinceLocked(name string) (time.Time, bool) {
	h := c.health[name]
	if h == nil || h.ready || h.gone != nil {
		return time.Time{}, false
	}
	return h.since, true
}

// sync handles a node name or a pod key.
func (c *Controller) sync(ctx context.Context, key string) error {
	if !strings.Contains(key, "/") {
		return c.syncNode(ctx, key)
	}
	ns, name, err := api.SplitKey(key)
	if err != nil {
		return nil // not a pod key: nothing will ever make it one
	}
	pod, err := c.pods.Namespace(ns).Get(name)
	if err != nil || pod.Spec.NodeName == "" {
		return nil // gone, or not bound: the handler queues it again if it matters
	}
	c.mu.Lock()
	since, down := c.downSinceLocked(pod.Spec.NodeName)
	c.mu.Unlock()
	if !down {
		return nil // ready again: the kubelet takes its pods back
	}
	now := c.clock.Now()
	act, wait := decide(pod, podFacts{Now: now, DownSince: since, EvictionTimeout: c.evictionTimeout})
	if wait > 0 {
		c.queue.AddAfter(key, wait)
	}
	var written *api.Pod
	switch act {
	case actNone:
		return nil
	case actNotReady:
		written = notReadyPod(pod, now)
	case actLost:
		written = lostPod(pod, now)
	}
	if _, err := c.client.UpdateStatus(ctx, written); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("nodelifecycle: %s %s: %w", act, key, err)
	}
	node := pod.Spec.NodeName
	switch act {
	case actNotReady:
		c.log.Info("pod not ready: node not ready", zap.String("pod", key), zap.String("node", node))
		c.event(ctx, written, api.EventTypeWarning, ReasonNodeNotReady, "Node is not ready")
	case actLost:
		c.log.Info("pod failed: node lost", zap.String("pod", key), zap.String("node", node))
		c.event(ctx, written, api.EventTypeWarning, ReasonNodeLost, fmt.Sprintf("Node %s is unresponsive", node))
	}
	return nil
}

// syncNode records, once each, a node's registration (RegisteredNode),
// its going not ready (NodeNotReady, as upstream's
// RecordNodeStatusChange) and its removal (RemovingNode), and queues the
// pods of a node that is not ready.
func (c *Controller) syncNode(ctx context.Context, name string) error {
	node, err := c.nodes.Get(name)
	c.mu.Lock()
	h := c.health[name]
	if h == nil {
		c.mu.Unlock()
		return nil // never seen, or its removal recorded
	}
	if err != nil || h.gone != nil {
		gone := h.gone
		if gone != nil {
			delete(c.health, name)
		}
		c.mu.Unlock()
		if gone != nil {
			c.log.Info("node removed", zap.String("node", name))
			c.event(ctx, gone, api.EventTypeNormal, "RemovingNode", fmt.Sprintf("Node %s event: Removing Node %s from Controller", name, name))
		}
		return nil // not in the cache yet: its delivery queues it again
	}
	register, down := !h.registered, !h.ready
	tell := down && !h.told
	h.registered, h.told = true, h.told || tell
	c.mu.Unlock()
	if register {
		c.event(ctx, node, api.EventTypeNormal, "RegisteredNode", fmt.Sprintf("Node %s event: Registered Node %s in Controller", name, name))
	}
	if tell {
		c.log.Info("node not ready", zap.String("node", name))
		c.event(ctx, node, api.EventTypeNormal, ReasonNodeNotReady, fmt.Sprintf("Node %s status is now: %s", name, ReasonNodeNotReady))
	}
	if !down {
		return nil
	}
	keys, _ := c.podInf.Indexer().IndexKeys(informer.NodeNameIndex, name) // New added the index
	for _, k := range keys {
		c.queue.Add(k)
	}
	return nil
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
