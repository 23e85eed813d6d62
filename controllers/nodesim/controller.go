package nodesim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/netip"
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
	"github.com/miniplane/miniplane/controllers/nodesim/container"
	"github.com/miniplane/miniplane/controllers/scheduler/fit"
	"github.com/miniplane/miniplane/controllers/workqueue"
	"github.com/miniplane/miniplane/informer"
)

// Client is what the simulator writes through: nodes are created and their
// status updated, pods' status updated and their deletion confirmed.
// client.Client and *apiserver.Server satisfy it.
type Client interface {
	Create(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error)
	Get(ctx context.Context, resource, namespace, name string, opts client.GetOptions) (api.Object, error)
	UpdateStatus(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error)
	Delete(ctx context.Context, resource, namespace, name string, opts api.DeleteOptions) (api.Object, error)
}

// Defaults of Config's knobs.
const (
	DefaultNodes          = 3
	DefaultNodeNamePrefix = "node-"
	DefaultPodsPerNode    = 110
	DefaultNodeCPU        = "4"
	DefaultNodeMemory     = "16Gi"
	DefaultStartDelay     = time.Second
	DefaultReadyDelay     = time.Second
	// maxTerminationDelay caps the default TerminationDelay: a simulated
	// container stops within a second of SIGTERM, or at once with grace 0.
	maxTerminationDelay = time.Second
	// KubeletVersion is what the simulated nodes report: the API server's
	// version, as on a cluster whose kubelets match it.
	KubeletVersion = "v1.32.0-miniplane" // apiserver.GitVersion; a test holds them equal
)

// MaxNodes is the most nodes nodesim simulates: one /24 pod range each in
// 10.244.0.0 through 10.255.255.0.
const MaxNodes = 12 * 256

// Config configures a Controller. Zero durations and counts mean the
// defaults; a negative duration means no delay at all.
type Config struct {
	// Client is where nodes and pod status are written. Required.
	Client Client
	// Factory gives the shared pod and node informers. Required.
	Factory *informer.Factory
	// Clock times every transition. Required.
	Clock clock.Clock
	// Logger receives structured logs; nil means none.
	Logger *zap.Logger
	// Recorders, if set, makes each node's kubelet's event recorder
	// (component "kubelet", host the node's name), as each speaks for
	// itself in Kubernetes (an event's source). It is called once per
	// node.
	Recorders func(component, host string) *record.EventRecorder
	// Recorder, if set and Recorders is not, records every component's
	// events.
	Recorder *record.EventRecorder
	// Images is the image rule's configuration (package container):
	// images that exist or not beyond what the rule says.
	Images container.Images
	// Tokens, if set, issues the service account tokens the kubelets write
	// into token volumes: one of pod's account for audience ("" for the API
	// server's), valid for expirationSeconds, as a kubelet asks TokenRequest.
	// nil: the token files say no token was issued (podenv.TokenPlaceholder).
	Tokens func(pod *api.Pod, audience string, expirationSeconds int64) (string, error)
	// AllowedUnsafeSysctls are the sysctls, besides the safe ones, the
	// kubelets let pods set: names, or prefixes ending in "*" (the
	// kubelet's --allowed-unsafe-sysctls). A pod setting another is
	// rejected (SysctlForbidden).
	AllowedUnsafeSysctls []string

	// Nodes is how many nodes EnsureNodes creates: NodeNamePrefix0, 1, ...
	// (default 3, at most MaxNodes: node i's pod range is 10.244.i.0/24,
	// continuing into 10.245.0.0/16 and up past the 256th).
	Nodes          int
	NodeNamePrefix string // default "node-"
	// PodsPerNode is each node's pod capacity (status.allocatable.pods);
	// default 110, Kubernetes' default max-pods.
	PodsPerNode int
	// NodeCPU and NodeMemory are each node's cpu and memory, as quantities
	// (default "4" and "16Gi"): its capacity, and its allocatable too (no
	// reservation for the system is simulated).
	NodeCPU, NodeMemory string
	// StartDelay is how long a bound pod stays Pending before its
	// containers run, and how long a crashed container takes to restart.
	StartDelay time.Duration
	// ReadyDelay is how long a running pod whose containers have readiness
	// probes takes to become Ready; a pod without any is Ready as soon as
	// it runs, as with a real kubelet.
	ReadyDelay time.Duration
	// TerminationDelay is how long the kubelet takes to stop a terminating
	// pod's containers before it confirms the deletion with grace 0;
	// default min(the pod's grace period, 1s).
	TerminationDelay time.Duration
	// NodeLeases makes Run keep a Lease per node that is up, renewed every
	// NodeLeaseRenewInterval (leases.go), as kubelets do; Client must then
	// implement Updater, and the namespace api.NamespaceNodeLease
	// exist. Off by default: the renewals are writes that would change
	// every recorded run of the simulator.
	NodeLeases bool
	// Observer, if set, is told of every sync (loop.Observer).
	Observer loop.Observer
}

// Controller is the simulated kubelets.
type Controller struct {
	cfg    Config
	client Client
	clock  clock.Clock
	log    *zap.Logger
	rec    *record.EventRecorder // every kubelet's, unless Config.Recorders
	queue  *workqueue.Queue[string]
	loop   *loop.Loop

	podInf, nodeInf *informer.Informer
	podReg, nodeReg *informer.Registration
	pods            informer.Lister[*api.Pod]
	nodes           informer.Lister[*api.Node]
	// configMaps, secrets and services are what a kubelet reads to hand a
	// container its environment and volumes (podenv).
	configMaps informer.Lister[*api.ConfigMap]
	secrets    informer.Lister[*api.Secret]
	services   informer.Lister[*api.Service]
	// readInfs are their informers, whose caches HasSynced waits for.
	readInfs []*informer.Informer

	// mu guards the maps below, and the podStates in state (with the
	// containers' logs they hold).
	mu sync.Mutex
	// state is what nodesim remembers of each pod, by pod key: the pod as
	// the pod handler last delivered it, and what its kubelet remembers of
	// it, logs included. One entry holds them all, so that a
	// sync or a delivery looks the pod up once: the map holds every pod,
	// and each lookup is a cache miss. An entry that holds nothing is
	// dropped (podState.empty, dropLocked).
	state map[string]*podState
	// ips holds nodesim's record of each node, by name (ipam.go): the pod
	// addresses it handed out there, and the node as a sync last read it.
	// A record is made for every node name a pod was bound to, and kept.
	ips map[string]*nodeIPs
	// hostFiles holds each node's files that hostPath volumes show and
	// write, by node name then absolute path (sharedvol.go); each FS is
	// replaced, never changed, as syncs read it without mu.
	hostFiles map[string]container.FS
	// down holds the nodes taken down by NodeDown.
	down map[string]bool
	// up holds the nodes brought back by NodeUp whose Ready status the
	// node cache has not shown yet: they count as up meanwhile.
	up map[string]bool
	// nodeGen counts the node handler's deliveries: a node record's node
	// read at the current count is the cache's while nothing waits for
	// the handler (nodeLocked).
	nodeGen uint64
	// leased holds the nodes whose Lease nodesim has written (guarded by
	// mu); leaseWake wakes runNodeLeases when a node is added (leases.go).
	leased    map[string]bool
	leaseWake chan struct{}

	// carriers lends the pods that carry status writes (kubelet.go).
	carriers carriers

	// lives holds the kubelet's memory of each pod on the life path
	// (life.go), by key, from its first sync there until it is forgotten:
	// few pods take it, so it is not in podState, which every pod has.
	lives map[string]*podLife
	// lastImage is the image kindOfLocked last asked the image rule
	// about (if lastImageSet), and lastImageOK its verdict (life.go).
	// Guarded by mu.
	lastImage                 string
	lastImageOK, lastImageSet bool

	// readCache makes every sync read the pod from the cache, never the
	// pod the handler kept (keptPodLocked): the plain way, which the tests
	// hold the kept pod to. Set before Run, never after.
	readCache bool
}

// podState is what nodesim remembers of one pod: its kubelet's memory of
// it and its containers' logs, kept until a sync finds the pod gone
// (forget); and the pod as the handler last delivered it, kept until the
// handler sees it gone. Its fields are guarded by mu.
type podState struct {
	// key is the pod's key, the one string of it that the handler and
	// the queue pass around, so that a delivery need not make another.
	key string
	kubeletState
	// pod is the pod as the handler last delivered it; nil when it
	// delivered its deletion, or nothing yet. A sync reads it instead of
	// the cache when it is sure to be the cache's (keptPodLocked).
	pod *api.Pod
	// logs are the runs of the pod's containers (logs.go).
	logs podLogs
	// dropped says the entry has left state: a sync that looked it up
	// before must look the pod's up again (liveLocked).
	dropped bool
	// deleted says the handler's last delivery of the pod was its
	// deletion (knownGoneLocked).
	deleted bool
	// execWrites are the changes exec'd commands made to the pod's shared
	// volumes and its containers' own files that no sync has kept yet
	// (PodExec).
	execWrites []volumeWrite
}

// kubeletState is the kubelet's memory of one pod.
type kubeletState struct {
	seen  bool      // the kubelet has synced the pod once: stage is set
	crash bool      // CrashPod asked for a crash not yet written
	kind  podKind   // the path the pod takes (life.go), set at the first sync
	stage stage     // stageOf the pod when last synced
	since time.Time // when stage was first seen
	// ips is the record of the node the pod runs on (ipam.go): where its
	// address is, if it has one (addr), and the node as a sync last read
	// it; before the kubelet's first sync, the record of the node the
	// scheduler bound it to, if it did. Its name says which node it is.
	ips  *nodeIPs
	addr netip.Addr
	want *bool // SetPodReady's override; see podFacts.WantReady
	// ownRV is the resourceVersion of the kubelet's last write, when the
	// sync its delivery would queue has nothing to do (foresee):
	// the pod handler does not queue that version. "" when none.
	ownRV string
	// readRV is the resourceVersion of the pod the last sync that read
	// the cache read, parsed (or a sentinel: rvUnknown, rvGone), until the
	// handler delivers a pod at least as new: 0 then. keptPodLocked
	// reads it.
	readRV uint64
}

// empty reports whether st holds nothing but its key: its entry can go.
func (st *podState) empty() bool {
	return st.kubeletState == kubeletState{} && st.pod == nil && st.logs.empty()
}

// New returns a controller whose handlers are registered on the factory's
// pod and node informers. It starts nothing.
func New(cfg Config) (*Controller, error) {
	if cfg.Client == nil || cfg.Factory == nil || cfg.Clock == nil {
		return nil, errors.New("nodesim: Config needs a Client, a Factory and a Clock")
	}
	cfg = withDefaults(cfg)
	if _, ok := cfg.Client.(Updater); cfg.NodeLeases && !ok {
		return nil, errors.New("nodesim: Config.NodeLeases needs a Client that can update objects (Updater)")
	}
	if err := CheckNodeSize(cfg.NodeCPU, cfg.NodeMemory); err != nil {
		return nil, fmt.Errorf("nodesim: %w", err)
	}
	if cfg.Nodes > MaxNodes {
		return nil, fmt.Errorf("nodesim: %d nodes: at most %d pod ranges fit in 10.244.0.0-10.255.255.0", cfg.Nodes, MaxNodes)
	}
	log := cfg.Logger
	if log == nil {
		log = zap.NewNop()
	}
	c := &Controller{
		cfg: cfg, client: cfg.Client, clock: cfg.Clock, log: log.Named("nodesim"), rec: cfg.Recorder,
		queue:     workqueue.New(workqueue.Config[string]{Name: "nodesim", Clock: cfg.Clock, Metrics: true}),
		podInf:    cfg.Factory.ForResource(client.Pods),
		nodeInf:   cfg.Factory.ForResource(client.Nodes),
		state:     make(map[string]*podState, presize(cfg)),
		ips:       make(map[string]*nodeIPs),
		down:      make(map[string]bool),
		up:        make(map[string]bool),
		leased:    make(map[string]bool),
		lives:     make(map[string]*podLife),
		leaseWake: make(chan struct{}, 1),
		carriers:  carriers{share: newStatusShare()},
	}
	if err := informer.AddNodeNameIndex(c.podInf.Indexer()); err != nil {
		return nil, fmt.Errorf("nodesim: %w", err)
	}
	c.pods = informer.NewLister[*api.Pod](c.podInf, apierrors.GroupResource{Resource: client.Pods})
	cmInf, secretInf, svcInf := cfg.Factory.ForResource(client.ConfigMaps), cfg.Factory.ForResource(client.Secrets), cfg.Factory.ForResource(client.Services)
	c.readInfs = []*informer.Informer{cmInf, secretInf, svcInf}
	c.configMaps = informer.NewLister[*api.ConfigMap](cmInf, apierrors.GroupResource{Resource: client.ConfigMaps})
	c.secrets = informer.NewLister[*api.Secret](secretInf, apierrors.GroupResource{Resource: client.Secrets})
	c.services = informer.NewLister[*api.Service](svcInf, apierrors.GroupResource{Resource: client.Services})
	c.nodes = informer.NewLister[*api.Node](c.nodeInf, apierrors.GroupResource{Resource: client.Nodes})
	c.podReg = c.podInf.AddEventHandler(informer.HandlerFuncs{
		// A pod is the kubelets' once it is bound: until then the
		// handler only keeps it.
		AddFunc: func(obj api.Object, _ bool) {
			if key := c.observePod(obj, false); bound(obj) {
				c.queue.Add(key)
			}
		},
		UpdateFunc: func(oldObj, newObj api.Object) {
			if key, own := c.observeUpdate(newObj); !own && bound(newObj) {
				c.queue.Add(key)
			}
		},
		DeleteFunc: func(obj any) {
			if o, _ := informer.DeletedObject(obj); o != nil {
				c.queue.Add(c.observePod(o, true))
			} else if t, ok := obj.(informer.DeletedFinalStateUnknown); ok {
				c.mu.Lock()
				c.observePodLocked(t.Key, c.state[t.Key], nil)
				c.mu.Unlock()
			}
		},
	}, 0)
	c.nodeReg = c.nodeInf.AddEventHandler(informer.HandlerFuncs{
		AddFunc: func(obj api.Object, _ bool) {
			c.nodesChanged()
			if c.cfg.NodeLeases {
				c.wakeNodeLeases() // a kubelet writes its Lease once it has registered
			}
			c.enqueueNode(obj.GetObjectMeta().Name) // pods bound before the node was cached
		},
		UpdateFunc: func(oldObj, newObj api.Object) {
			c.nodesChanged()
			if nodeReady(oldObj.(*api.Node)) != nodeReady(newObj.(*api.Node)) {
				c.enqueueNode(newObj.GetObjectMeta().Name) // its kubelet stops or resumes
			}
		},
		DeleteFunc: func(any) { c.nodesChanged() },
	}, 0)
	var alongside func(context.Context)
	if c.cfg.NodeLeases {
		alongside = c.runNodeLeases
	}
	var err error
	c.loop, err = loop.New(loop.Config{
		Name: "nodesim", Queue: c.queue, Sync: c.sync, Logger: c.log, Observer: cfg.Observer, Clock: cfg.Clock,
		Informers: []*informer.Informer{c.podInf, c.nodeInf, cmInf, secretInf, svcInf}, Alongside: alongside,
		StartFields: []zap.Field{zap.Bool("nodeLeases", c.cfg.NodeLeases)},
		// A simulated kubelet's failed write (a conflict, a fault the
		// simulator injected) is routine: retried for ever, logged at
		// Debug.
		Quiet: func(error) bool { return true },
	})
	if err != nil {
		return nil, fmt.Errorf("nodesim: %w", err)
	}
	return c, nil
}

// maxPresized bounds presize: about 4 MB a map.
const maxPresized = 1 << 17

// presize is how many pods the per-pod maps are made room for up front:
// as many as the nodes hold, so that filling them does not grow them step
// by step, up to maxPresized.
func presize(cfg Config) int { return max(0, min(cfg.Nodes*cfg.PodsPerNode, maxPresized)) }

func withDefaults(cfg Config) Config {
	if cfg.Nodes == 0 {
		cfg.Nodes = DefaultNodes
	}
	if cfg.NodeNamePrefix == "" {
		cfg.NodeNamePrefix = DefaultNodeNamePrefix
	}
	if cfg.PodsPerNode == 0 {
		cfg.PodsPerNode = DefaultPodsPerNode
	}
	if cfg.NodeCPU == "" {
		cfg.NodeCPU = DefaultNodeCPU
	}
	if cfg.NodeMemory == "" {
		cfg.NodeMemory = DefaultNodeMemory
	}
	cfg.StartDelay = durationOr(cfg.StartDelay, DefaultStartDelay)
	cfg.ReadyDelay = durationOr(cfg.ReadyDelay, DefaultReadyDelay)
	return cfg
}

// CheckNodeSize reports a node cpu or memory that is not a quantity
// ("" stands for the default).
func CheckNodeSize(cpu, memory string) error {
	for _, q := range []struct{ flag, v string }{{"--node-cpu", cpu}, {"--node-memory", memory}} {
		if q.v != "" && !fit.IsQuantity(q.v) {
			return fmt.Errorf("%s: %q is not a quantity (such as 4, 500m or 16Gi)", q.flag, q.v)
		}
	}
	return nil
}

// durationOr is d, or def when d is zero, or 0 when d is negative.
func durationOr(d, def time.Duration) time.Duration {
	switch {
	case d == 0:
		return def
	case d < 0:
		return 0
	}
	return d
}

// Queue returns the controller's workqueue of pod keys.
func (c *Controller) Queue() *workqueue.Queue[string] { return c.queue }

// HasSynced reports whether the pod and node handlers have been handed the
// informers' initial lists, and the ConfigMap, Secret and Service caches
// hold theirs.
func (c *Controller) HasSynced() bool {
	for _, inf := range c.readInfs {
		if !inf.HasSynced() {
			return false
		}
	}
	return c.podReg.HasSynced() && c.nodeReg.HasSynced()
}

// ProcessOne is the controller's step: unless ctx is done, it syncs one
// ready pod key and reports whether there was one.
func (c *Controller) ProcessOne(ctx context.Context) bool { return c.loop.ProcessOne(ctx) }

// Run waits for the informers' handlers to sync, then runs workers
// goroutines syncing pod keys (and, with Config.NodeLeases, the kubelets'
// lease heartbeats) until ctx is done; it shuts the queue down and returns
// once they have all exited.
func (c *Controller) Run(ctx context.Context, workers int) { c.loop.Run(ctx, workers) }

// observePod hands what the pod handler delivers to the scheduler's counts
// and returns the pod's key, for the handler to queue.
// A pod nodesim holds state of has its key made once: the delivery looks
// the state up with the key built in a buffer, which needs no allocation.
func (c *Controller) observePod(obj api.Object, gone bool) (key string) {
	key, _ = c.observe(obj, gone)
	return key
}

// observeUpdate is observePod for an update, and also reports whether the
// update is the kubelet's own write whose sync foresee spared.
func (c *Controller) observeUpdate(obj api.Object) (key string, own bool) {
	return c.observe(obj, false)
}

func (c *Controller) observe(obj api.Object, gone bool) (key string, own bool) {
	m := obj.GetObjectMeta()
	p, ok := obj.(*api.Pod)
	if !ok || m.Namespace == "" {
		return api.KeyOf(m), false
	}
	if gone {
		p = nil
	}
	var buf [128]byte
	k := api.AppendKey(buf[:0], m.Namespace, m.Name)
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.state[string(k)]
	if st != nil {
		key = st.key
		if p != nil && st.ownRV != "" && st.ownRV == m.ResourceVersion {
			own = true
			st.ownRV = ""
		}
	} else {
		key = string(k)
	}
	c.observePodLocked(key, st, p)
	return key, own
}

// sync moves the pod under key one step, as its kubelet, once it is
// bound.
func (c *Controller) sync(ctx context.Context, key string) error {
	if _, _, err := api.SplitKey(key); err != nil {
		return nil // not a pod key: nothing will ever make it one
	}
	c.mu.Lock()
	st := c.state[key]
	pod := c.keptPodLocked(st)
	if pod == nil && c.knownGoneLocked(st) {
		c.forgetLocked(key, st) // the kubelet's last sync of a pod: the cache need not be asked
		c.mu.Unlock()
		return nil
	}
	c.mu.Unlock()
	if pod == nil {
		// The cache by key, not the lister by namespace and name, which
		// would make the key again.
		obj, ok := c.podInf.Indexer().Get(key)
		if !ok {
			c.forget(key, st)
			return nil
		}
		if pod, ok = obj.(*api.Pod); !ok {
			return nil // not a pod: the pod informer holds none
		}
		c.mu.Lock()
		st = c.liveLocked(key, st)
		st.readRV = parseRV(pod.Metadata.ResourceVersion)
		c.mu.Unlock()
	}
	if pod.Spec.NodeName == "" {
		return nil // the scheduler binds it; the pod handler queues it again then
	}
	return c.runPod(ctx, key, st, pod)
}

// A sync reads the pod the handler last delivered (podState.pod) instead
// of looking it up in the cache, as the kubelet's pod manager keeps the
// pods its config source delivered, but only when that is the cache's pod
// now, so that a sync sees what it would have read from the cache: the
// cache changes first, then queues the change to every handler (informer
// ProcessOne), so when nothing waits for the pod handler it has been given
// every change the cache holds (in a goroutine that applies a change and
// has not queued it yet, the sync takes the pod as it was a moment
// before, as if it had run then). And it never reads a pod older than one
// a sync already read: the dispatcher takes a change off the queue before
// the handler records it, so a sync that read the cache while the change
// waited could otherwise read the version before it next (readRV).

// Sentinels of kubeletState.readRV, above every parsed resourceVersion:
// rvUnknown, the last pod read had a resourceVersion that is not a number;
// rvGone, the last sync found the pod gone while the handler had not
// delivered its deletion yet. Either makes keptPodLocked read the cache.
const (
	rvUnknown = math.MaxUint64
	rvGone    = math.MaxUint64 - 1
)

// parseRV returns a resourceVersion as a number, rvUnknown if it is not a
// decimal number of at most 19 digits: the API server's are the store's
// revisions.
func parseRV(rv string) uint64 {
	if rv == "" || len(rv) > 19 {
		return rvUnknown
	}
	var n uint64
	for i := 0; i < len(rv); i++ {
		d := rv[i] - '0'
		if d > 9 {
			return rvUnknown
		}
		n = n*10 + uint64(d)
	}
	return n
}

// keptPodLocked returns the pod whose state is st as the cache holds it,
// when the pod the handler last delivered is sure to be that one, else nil:
// nothing waits for the handler, it did not deliver the pod's deletion, and
// the pod is no older than the last one a sync read. Its caller holds mu.
func (c *Controller) keptPodLocked(st *podState) *api.Pod {
	if st == nil || st.pod == nil || c.readCache || c.podReg.Pending() != 0 {
		return nil
	}
	if st.readRV == 0 {
		return st.pod // the usual case: no sync read the cache since the handler's last delivery
	}
	if rv := parseRV(st.pod.Metadata.ResourceVersion); rv == rvUnknown || rv < st.readRV {
		return nil
	}
	return st.pod
}

// knownGoneLocked reports whether the cache is sure to hold no pod whose
// state is st, by the reasoning of keptPodLocked: the handler's last
// delivery was the pod's deletion, nothing waits for the handler, and no
// sync read a pod since (readRV), which would be a pod made again under
// the same key, newer than the deletion. A sync then forgets the pod
// without looking it up in the cache: after a scale-down, every removed
// pod's last sync. Its caller holds mu.
func (c *Controller) knownGoneLocked(st *podState) bool {
	return st != nil && st.deleted && st.readRV == 0 && !c.readCache && c.podReg.Pending() == 0
}

// liveLocked returns st if it is still the state of the pod under key, else
// the pod's state now, making it if it has none: st is what a sync looked
// up earlier (nil if none), and the handler may have dropped it since.
func (c *Controller) liveLocked(key string, st *podState) *podState {
	if st != nil && !st.dropped {
		return st
	}
	return c.stateLocked(key)
}

// dropLocked takes st, which holds nothing, out of state.
func (c *Controller) dropLocked(st *podState) {
	delete(c.state, st.key)
	st.dropped = true
}

// forget drops what is remembered of a pod a sync found gone, freeing its
// IP; st is its state as the sync looked it up (nil if none).
func (c *Controller) forget(key string, st *podState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.forgetLocked(key, st)
}

// forgetLocked is forget with mu held.
func (c *Controller) forgetLocked(key string, st *podState) {
	if st == nil || st.dropped {
		if st = c.state[key]; st == nil {
			return
		}
	}
	if n := st.ips; st.addr.IsValid() && n != nil {
		n.free(st, key)
	}
	st.logs.forget()
	if st.kind == kindLife {
		delete(c.lives, key)
	}
	st.kubeletState = kubeletState{}
	if st.pod != nil {
		// The handler has not delivered the deletion: its pod is older
		// than what this sync found, until it does.
		st.readRV = rvGone
	}
	if st.empty() {
		c.dropLocked(st) // else the pod handler drops it when it sees the pod gone
	}
}

// bound reports whether obj is a pod bound to a node, or not a pod.
func bound(obj api.Object) bool {
	p, ok := obj.(*api.Pod)
	return !ok || p.Spec.NodeName != ""
}

func finished(p *api.Pod) bool {
	return p.Status.Phase == api.PodSucceeded || p.Status.Phase == api.PodFailed
}

// event records an event through rec when there is one; a failure to
// record is logged, never fatal.
func (c *Controller) event(ctx context.Context, rec *record.EventRecorder, obj api.Object, typ, reason, format string, args ...any) {
	if rec == nil {
		return
	}
	if err := rec.Eventf(ctx, obj, typ, reason, format, args...); err != nil {
		c.log.Debug("event not recorded", zap.String("reason", reason), zap.Error(err))
	}
}

// eventMessage is event with its message made: the per-pod events (two a
// pod) spare a Sprintf and the boxing of its arguments.
func (c *Controller) eventMessage(ctx context.Context, rec *record.EventRecorder, obj api.Object, typ, reason, message string) {
	if rec == nil {
		return
	}
	if err := rec.Event(ctx, obj, typ, reason, message); err != nil {
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
	return c.cfg.PodsPerNode
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

// nodeDownLocked reports whether the node's kubelet is down: taken down
// by NodeDown, or its node reported not ready by its status (for example
// by an earlier run of the simulator).
func (c *Controller) nodeDownLocked(n *api.Node) bool {
	return c.downLocked(n.Metadata.Name, nodeReady(n))
}

// downLocked is nodeDownLocked of the node name whose nodeReady is ready:
// a sync has it in the node's record (nodeIPs.setNode).
func (c *Controller) downLocked(name string, ready bool) bool {
	if c.down[name] {
		return true
	}
	if c.up[name] {
		if ready {
			delete(c.up, name) // the cache has caught up
		}
		return false
	}
	return !ready
}

// kubeletRecorderLocked returns the event recorder of the kubelet of the
// node whose record is n: its own when Config.Recorders makes one, made
// the first time and kept in the record. Its caller holds mu.
func (c *Controller) kubeletRecorderLocked(n *nodeIPs) *record.EventRecorder {
	if c.cfg.Recorders == nil {
		return c.rec
	}
	if n.events == nil {
		n.events = c.cfg.Recorders("kubelet", n.name)
	}
	return n.events
}
