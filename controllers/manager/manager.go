package manager

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/workqueue"
	"github.com/miniplane/miniplane/informer"
)

// Controller is the one interface of a controller: the manager runs it
// (Run) in the live plane, and the simulator steps it (ProcessOne) from one
// goroutine (DESIGN.md, "Determinism", rule 4). Every controller package's
// *Controller satisfies it, and so do controllers/loop's Loop-backed
// Controller and any controller built on a loop.Loop, which give both
// methods from one sync function.
type Controller interface {
	// Run works until ctx is done with the given number of workers, and
	// returns once they have all stopped.
	Run(ctx context.Context, workers int)
	// ProcessOne does one unit of work, if one is ready and ctx is not
	// done, and reports whether it did.
	ProcessOne(ctx context.Context) bool
	// HasSynced reports whether the controller's handlers have been
	// handed their informers' initial lists; the simulator steps a
	// controller only then, as Run starts its workers only then.
	HasSynced() bool
}

// InitContext is what an init function gets to build its controller.
type InitContext struct {
	// Client is what the controllers and their event recorders write
	// through (an Instance's is wrapped in its elector's guard).
	Client client.Client
	// ClientFor, if set, gives each controller a client of its own, by
	// its descriptor's name, in place of Client: the simulator wraps each
	// one so that its trace names the writer. It is called once per
	// controller, when Build constructs it, and what it returns carries
	// that controller's writes and its events.
	ClientFor func(controller string) client.Client
	Factory   *informer.Factory
	Clock     clock.Clock
	Logger    *zap.Logger
	Options   Options
	// Instance names this manager (a host name in Kubernetes): events it
	// records say so.
	Instance string
	// Binder binds pods to nodes (the API server's pods/binding); nodesim
	// needs it.
	Binder interface {
		Bind(ctx context.Context, namespace, name, node string) (*api.Pod, error)
	}
}

// InitFunc builds one controller and says how many workers it runs with.
// It must start nothing: the manager starts the informers and then calls
// Run.
type InitFunc func(ic InitContext) (c Controller, workers int, err error)

// Descriptor registers a controller: with the manager
// (DefaultDescriptors), or with the simulator (sim.Config.Controllers),
// which builds it through the same Init for each term an instance leads.
type Descriptor struct {
	Name              string
	Init              InitFunc
	DisabledByDefault bool
	// Periodic says the controller queues its work on a timer whatever
	// happens (podgc's sweep every 20s): the simulator counts its delayed
	// keys as periodic, as lease renewals, not as work left to do.
	Periodic bool
}

// Health is what the manager knows of one controller.
type Health struct {
	Name    string
	Enabled bool
	Running bool // Run was called and has not returned
	Synced  bool
}

// Manager builds and runs the enabled controllers. Create it with New.
type Manager struct {
	ic          InitContext
	descriptors []Descriptor

	// mu guards built, workers, running and ran.
	mu      sync.Mutex
	built   map[string]Controller
	workers map[string]int
	running map[string]bool
	ran     bool
}

// New returns a manager of the given controllers. It checks the options
// (unknown controller names, worker counts) and starts nothing.
func New(ic InitContext, descriptors []Descriptor) (*Manager, error) {
	if ic.Logger == nil {
		ic.Logger = zap.NewNop()
	}
	seen := map[string]bool{}
	var names []string
	for _, d := range descriptors {
		if seen[d.Name] {
			return nil, fmt.Errorf("manager: controller %q registered twice", d.Name)
		}
		seen[d.Name] = true
		names = append(names, d.Name)
	}
	if err := ic.Options.Validate(names); err != nil {
		return nil, err
	}
	return &Manager{ic: ic, descriptors: descriptors, built: map[string]Controller{}, workers: map[string]int{}, running: map[string]bool{}}, nil
}

// Build constructs every enabled controller, in registration order, so
// that they register their informers. Run calls it; the simulator calls it
// to step the controllers itself. It is idempotent.
func (m *Manager) Build() (map[string]Controller, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, d := range m.descriptors {
		if _, ok := m.built[d.Name]; ok || !Enabled(m.ic.Options.Controllers, d.Name, d.DisabledByDefault) {
			continue
		}
		ic := m.ic
		ic.Logger = m.ic.Logger.Named(d.Name)
		if ic.ClientFor != nil {
			ic.Client, ic.ClientFor = ic.ClientFor(d.Name), nil
		}
		c, workers, err := d.Init(ic)
		if err != nil {
			return nil, fmt.Errorf("manager: starting %s: %w", d.Name, err)
		}
		m.built[d.Name], m.workers[d.Name] = c, max(workers, 1)
		m.ic.Logger.Debug("controller built", zap.String("controller", d.Name))
	}
	out := make(map[string]Controller, len(m.built))
	for k, v := range m.built {
		out[k] = v
	}
	return out, nil
}

// Run builds the enabled controllers, starts the shared informers they
// asked for, waits for the caches, and runs every controller until ctx is
// done. It returns after every controller and informer has stopped; the
// error is from building a controller, or ctx's if it ended before the
// caches synced.
func (m *Manager) Run(ctx context.Context) error {
	m.mu.Lock()
	if m.ran {
		m.mu.Unlock()
		return errors.New("manager: Run called twice")
	}
	m.ran = true
	m.mu.Unlock()

	built, err := m.Build()
	if err != nil {
		return err
	}
	m.ic.Factory.Start(ctx) // after every controller asked for its informers
	defer m.ic.Factory.Shutdown()
	for resource, ok := range m.ic.Factory.WaitForCacheSync(ctx) {
		if !ok {
			return fmt.Errorf("manager: cache of %s did not sync: %w", resource, context.Cause(ctx))
		}
	}

	var wg sync.WaitGroup
	for _, d := range m.descriptors {
		c, ok := built[d.Name]
		if !ok {
			continue
		}
		m.mu.Lock()
		workers := m.workers[d.Name]
		m.running[d.Name] = true
		m.mu.Unlock()
		wg.Go(func() {
			defer m.setRunning(d.Name, false)
			// Each controller writes under its own name, as each of
			// kube-controller-manager's has a client of its own.
			c.Run(client.WithFieldManager(ctx, d.Name), workers)
		})
		m.ic.Logger.Info("controller started", zap.String("controller", d.Name), zap.Int("workers", workers))
	}
	wg.Wait()
	return nil
}

// Controllers returns the controllers built so far, by name, for a caller
// that wants to look inside one (the demo shows the replication
// controller's expectations). It builds nothing.
func (m *Manager) Controllers() map[string]Controller {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]Controller, len(m.built))
	for k, v := range m.built {
		out[k] = v
	}
	return out
}

// QueueMetrics returns the workqueue metrics of every built controller
// that has a queue, in registration order.
func (m *Manager) QueueMetrics() []workqueue.MetricsSnapshot {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []workqueue.MetricsSnapshot
	for _, d := range m.descriptors {
		if q, ok := m.built[d.Name].(interface {
			Queue() *workqueue.Queue[string]
		}); ok {
			out = append(out, q.Queue().Metrics())
		}
	}
	return out
}

func (m *Manager) setRunning(name string, on bool) {
	m.mu.Lock()
	m.running[name] = on
	m.mu.Unlock()
}

// Health reports every registered controller, in registration order.
func (m *Manager) Health() []Health {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Health, 0, len(m.descriptors))
	for _, d := range m.descriptors {
		c, built := m.built[d.Name]
		h := Health{Name: d.Name, Enabled: Enabled(m.ic.Options.Controllers, d.Name, d.DisabledByDefault), Running: m.running[d.Name]}
		if built {
			h.Synced = c.HasSynced()
		}
		out = append(out, h)
	}
	return out
}

// The names of the controllers miniplane has, as kube-controller-manager
// names them (nodesim is miniplane's own).
const (
	ReplicationController = "replicationcontroller"
	ReplicaSet            = "replicaset"
	Deployment            = "deployment"
	DaemonSet             = "daemonset"
	StatefulSet           = "statefulset"
	Job                   = "job"
	CronJob               = "cronjob"
	// ResourceQuota keeps each ResourceQuota's status.used.
	ResourceQuota = "resourcequota"
	// TTLAfterFinished deletes finished jobs whose TTL ran out.
	TTLAfterFinished = "ttl-after-finished"
	// PodGC deletes orphaned, unscheduled terminating and excess
	// terminated pods.
	PodGC = "podgc"
	// TaintEviction deletes the pods a node's NoExecute taints no longer
	// let stay.
	TaintEviction = "taint-eviction-controller"
	// PersistentVolumeBinder binds claims to volumes, provisioning those
	// of the simulated provisioner.
	PersistentVolumeBinder = "persistentvolume-binder"
	// Disruption keeps PodDisruptionBudgets' status.
	Disruption = "disruption"
	Endpoint   = "endpoint"
	// EndpointSlice keeps the EndpointSlices of selector services.
	EndpointSlice = "endpointslice"
	// EndpointSliceMirroring mirrors selectorless services' Endpoints
	// into EndpointSlices.
	EndpointSliceMirroring = "endpointslice-mirroring"
	GarbageCollector       = "garbagecollector"
	ServiceAccount         = "serviceaccount"
	// RootCACertificatePublisher keeps kube-root-ca.crt in every namespace.
	RootCACertificatePublisher = "root-ca-cert-publisher"
	// ClusterRoleAggregation fills aggregated cluster roles' rules.
	ClusterRoleAggregation = "clusterrole-aggregation"
	// CSRCleaner deletes CertificateSigningRequests once done or stale.
	CSRCleaner = "csrcleaner"
	// HorizontalPodAutoscaling keeps autoscalers' targets within their
	// bounds and says that no metrics can be read.
	HorizontalPodAutoscaling = "horizontalpodautoscaling"
	NodeSim                  = "nodesim"
	// Scheduler is the scheduler (controllers/scheduler), kube-scheduler's
	// counterpart, run beside the simulated kubelets.
	Scheduler = "scheduler"
	// NodeLifecycle is the node lifecycle controller
	// (controllers/nodelifecycle), run beside the simulated kubelets.
	NodeLifecycle = "node-lifecycle-controller"
)
