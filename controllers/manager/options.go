package manager

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/miniplane/miniplane/controllers/endpointslice"
	"github.com/miniplane/miniplane/controllers/endpointslicemirroring"
	"github.com/miniplane/miniplane/controllers/nodesim"
	"github.com/miniplane/miniplane/controllers/podgc"
	"github.com/miniplane/miniplane/controllers/resourcequota"
	"github.com/miniplane/miniplane/controllers/scheduler"
	"github.com/miniplane/miniplane/election"
)

// Options are the controller manager's settings, with kube-controller-
// manager's flag names.
type Options struct {
	// Controllers lists which controllers run, in kube-controller-manager's
	// syntax: "*" for all that are on by default, "name" to switch one on,
	// "-name" to switch it off; for each controller the first entry that
	// names it (or "*") decides.
	Controllers []string
	// ConcurrentRCSyncs, ConcurrentRSSyncs and ConcurrentEndpointSyncs are
	// the worker counts of the replication, replica set and endpoints
	// controllers; ConcurrentGCSyncs of the garbage collector.
	ConcurrentRCSyncs       int
	ConcurrentRSSyncs       int
	ConcurrentEndpointSyncs int
	ConcurrentGCSyncs       int
	// GCCustomResources makes the garbage collector follow
	// CustomResourceDefinitions and collect custom resources by their
	// ownerReferences, as kube-controller-manager's does through
	// discovery. The simulator, which steps the collector rather than
	// running it, steps its monitors too.
	GCCustomResources bool
	// ConcurrentServiceEndpointSyncs is the endpointslice controller's
	// worker count; MaxEndpointsPerSlice bounds its slices (1 to 1000).
	ConcurrentServiceEndpointSyncs int
	MaxEndpointsPerSlice           int
	// MirroringConcurrentServiceEndpointSyncs is the endpointslice-mirroring
	// controller's worker count; MirroringMaxEndpointsPerSubset bounds the
	// addresses it mirrors from one Endpoints subset (1 to 1000).
	MirroringConcurrentServiceEndpointSyncs int
	MirroringMaxEndpointsPerSubset          int
	// ConcurrentDeploymentSyncs is the deployment controller's worker
	// count.
	ConcurrentDeploymentSyncs int
	// ConcurrentDaemonSetSyncs is the daemon set controller's worker
	// count.
	ConcurrentDaemonSetSyncs int
	// ConcurrentStatefulSetSyncs is the stateful set controller's worker
	// count.
	ConcurrentStatefulSetSyncs int
	// ConcurrentJobSyncs is the job controller's worker count.
	ConcurrentJobSyncs int
	// ConcurrentCronJobSyncs is the cronjob controller's worker count.
	ConcurrentCronJobSyncs int
	// ConcurrentResourceQuotaSyncs is the resourcequota controller's
	// worker count.
	ConcurrentResourceQuotaSyncs int
	// ResourceQuotaSyncPeriod is how often every quota is recounted.
	ResourceQuotaSyncPeriod time.Duration
	// ConcurrentTTLAfterFinishedSyncs is the ttl-after-finished
	// controller's worker count.
	ConcurrentTTLAfterFinishedSyncs int
	// TerminatedPodGCThreshold is how many terminated pods the podgc
	// controller keeps; 0 keeps them all.
	TerminatedPodGCThreshold int
	// EndpointUpdatesBatchPeriod delays endpoint syncs after pod changes so
	// bursts coalesce (kube's --endpoint-updates-batch-period); 0: none.
	EndpointUpdatesBatchPeriod time.Duration
	// Nodes is how many simulated nodes nodesim registers; 0 registers
	// none (nodesim still schedules pods onto nodes created through the
	// API).
	Nodes int
	// NodeCPU and NodeMemory are each simulated node's capacity, which is
	// also its allocatable (quantities: "4", "16Gi"); "" means nodesim's
	// defaults.
	NodeCPU, NodeMemory string
	// Scheduler is who binds pending pods: scheduler.Builtin
	// (controllers/scheduler; also "") or scheduler.None (another
	// scheduler, a real kube-scheduler; nodesim's kubelets still run what
	// it binds).
	Scheduler string
	// LeaderElection configures how an Instance is elected.
	LeaderElection LeaderElectionOptions
	// RootCA is the PEM CA bundle the root CA certificate publisher puts in
	// every namespace's kube-root-ca.crt (kube-controller-manager's
	// --root-ca-file); empty: rootcacertpublisher.PlaceholderCA. serve
	// sets its serving CA when it speaks TLS. No flag sets it.
	RootCA []byte
	// ReplicationWithoutExpectations plants a known bug, for testing the
	// simulator itself: the replication and replica set controllers are
	// built with replication.Config.WithoutExpectations. No flag sets it.
	ReplicationWithoutExpectations bool
}

// LeaderElectionOptions are kube-controller-manager's leader election
// settings (componentbaseconfig.LeaderElectionConfiguration), with its flag
// names. The lease is always a coordination.k8s.io Lease.
type LeaderElectionOptions struct {
	// LeaderElect makes an Instance run its controllers only while it
	// holds the lease (--leader-elect, default true). Off, it runs them at
	// once, unguarded: run one instance only.
	LeaderElect bool
	// LeaseDuration, RenewDeadline and RetryPeriod are election.Config's
	// (--leader-elect-lease-duration, --leader-elect-renew-deadline,
	// --leader-elect-retry-period; defaults 15s, 10s, 2s).
	LeaseDuration time.Duration
	RenewDeadline time.Duration
	RetryPeriod   time.Duration
	// ResourceName and ResourceNamespace locate the lease
	// (--leader-elect-resource-name, --leader-elect-resource-namespace;
	// defaults kube-controller-manager, kube-system).
	ResourceName      string
	ResourceNamespace string
}

// Validate checks the election settings as client-go does: when election is
// on, LeaseDuration > RenewDeadline > 1.2 × RetryPeriod > 0 and the lease
// is named.
func (o LeaderElectionOptions) Validate() error {
	if !o.LeaderElect {
		return nil
	}
	for _, d := range []struct {
		flag string
		v    time.Duration
	}{
		{"--leader-elect-lease-duration", o.LeaseDuration},
		{"--leader-elect-renew-deadline", o.RenewDeadline},
		{"--leader-elect-retry-period", o.RetryPeriod},
	} {
		if d.v <= 0 {
			return fmt.Errorf("%s must be greater than zero, got %s", d.flag, d.v)
		}
	}
	switch {
	case o.LeaseDuration <= o.RenewDeadline:
		return fmt.Errorf("--leader-elect-lease-duration (%s) must be greater than --leader-elect-renew-deadline (%s)", o.LeaseDuration, o.RenewDeadline)
	case float64(o.RenewDeadline) <= election.JitterFactor*float64(o.RetryPeriod):
		return fmt.Errorf("--leader-elect-renew-deadline (%s) must be greater than %v × --leader-elect-retry-period (%s)", o.RenewDeadline, election.JitterFactor, o.RetryPeriod)
	case o.ResourceName == "":
		return errors.New("--leader-elect-resource-name must not be empty")
	case o.ResourceNamespace == "":
		return errors.New("--leader-elect-resource-namespace must not be empty")
	}
	return nil
}

// DefaultOptions returns kube-controller-manager's defaults.
func DefaultOptions() Options {
	return Options{
		Controllers:                             []string{"*"},
		ConcurrentRCSyncs:                       5,
		ConcurrentRSSyncs:                       5,
		ConcurrentEndpointSyncs:                 5,
		ConcurrentGCSyncs:                       20,
		GCCustomResources:                       true,
		ConcurrentServiceEndpointSyncs:          endpointslice.DefaultWorkers,
		MaxEndpointsPerSlice:                    endpointslice.DefaultMaxEndpointsPerSlice,
		MirroringConcurrentServiceEndpointSyncs: endpointslicemirroring.DefaultWorkers,
		MirroringMaxEndpointsPerSubset:          endpointslicemirroring.DefaultMaxEndpointsPerSubset,
		ConcurrentDeploymentSyncs:               5,
		ConcurrentDaemonSetSyncs:                2,
		ConcurrentStatefulSetSyncs:              5,
		ConcurrentJobSyncs:                      5,
		ConcurrentCronJobSyncs:                  5,
		ConcurrentTTLAfterFinishedSyncs:         5,
		ConcurrentResourceQuotaSyncs:            5,
		ResourceQuotaSyncPeriod:                 resourcequota.DefaultResync,
		TerminatedPodGCThreshold:                podgc.DefaultTerminatedPodThreshold,
		Nodes:                                   3,
		NodeCPU:                                 nodesim.DefaultNodeCPU,
		NodeMemory:                              nodesim.DefaultNodeMemory,
		Scheduler:                               scheduler.Builtin,
		LeaderElection: LeaderElectionOptions{
			LeaderElect:       true,
			LeaseDuration:     election.DefaultLeaseDuration,
			RenewDeadline:     election.DefaultRenewDeadline,
			RetryPeriod:       election.DefaultRetryPeriod,
			ResourceName:      election.DefaultName,
			ResourceNamespace: election.DefaultNamespace,
		},
	}
}

// AddFlags registers the options' flags on fs, with o's values as defaults.
func (o *Options) AddFlags(fs *flag.FlagSet) {
	var known []string
	for _, d := range DefaultDescriptors() {
		known = append(known, d.Name)
	}
	fs.Func("controllers", "comma-separated controllers to run: '*' for all on by default, 'name' to enable one, '-name' to disable one (first match wins); known: "+strings.Join(known, ", "), func(v string) error {
		o.Controllers = splitList(v)
		return nil
	})
	fs.IntVar(&o.ConcurrentRCSyncs, "concurrent-rc-syncs", o.ConcurrentRCSyncs, "replication controllers synced at once")
	fs.IntVar(&o.ConcurrentRSSyncs, "concurrent-replicaset-syncs", o.ConcurrentRSSyncs, "replica sets synced at once")
	fs.IntVar(&o.ConcurrentEndpointSyncs, "concurrent-endpoint-syncs", o.ConcurrentEndpointSyncs, "services whose endpoints are synced at once")
	fs.IntVar(&o.ConcurrentServiceEndpointSyncs, "concurrent-service-endpoint-syncs", o.ConcurrentServiceEndpointSyncs, "services whose endpoint slices are synced at once")
	fs.IntVar(&o.MaxEndpointsPerSlice, "max-endpoints-per-slice", o.MaxEndpointsPerSlice, "the most endpoints the endpointslice controller puts in one slice (1 to 1000)")
	fs.IntVar(&o.MirroringConcurrentServiceEndpointSyncs, "mirroring-concurrent-service-endpoint-syncs", o.MirroringConcurrentServiceEndpointSyncs, "selectorless services whose Endpoints are mirrored to slices at once")
	fs.IntVar(&o.MirroringMaxEndpointsPerSubset, "mirroring-max-endpoints-per-subset", o.MirroringMaxEndpointsPerSubset, "the most addresses of one Endpoints subset mirrored to a slice (1 to 1000)")
	fs.IntVar(&o.ConcurrentGCSyncs, "concurrent-gc-syncs", o.ConcurrentGCSyncs, "garbage collector workers")
	fs.IntVar(&o.ConcurrentDeploymentSyncs, "concurrent-deployment-syncs", o.ConcurrentDeploymentSyncs, "deployments synced at once")
	fs.IntVar(&o.ConcurrentDaemonSetSyncs, "concurrent-daemonset-syncs", o.ConcurrentDaemonSetSyncs, "daemon sets synced at once")
	fs.IntVar(&o.ConcurrentStatefulSetSyncs, "concurrent-statefulset-syncs", o.ConcurrentStatefulSetSyncs, "stateful sets synced at once")
	fs.IntVar(&o.ConcurrentJobSyncs, "concurrent-job-syncs", o.ConcurrentJobSyncs, "jobs synced at once")
	fs.IntVar(&o.ConcurrentCronJobSyncs, "concurrent-cron-job-syncs", o.ConcurrentCronJobSyncs, "cron jobs synced at once")
	fs.IntVar(&o.TerminatedPodGCThreshold, "terminated-pod-gc-threshold", o.TerminatedPodGCThreshold, "terminated pods kept before the pod garbage collector deletes the oldest; 0 keeps them all")
	fs.IntVar(&o.ConcurrentResourceQuotaSyncs, "concurrent-resource-quota-syncs", o.ConcurrentResourceQuotaSyncs, "resource quotas recounted at once")
	fs.DurationVar(&o.ResourceQuotaSyncPeriod, "resource-quota-sync-period", o.ResourceQuotaSyncPeriod, "how often every resource quota is recounted in full")
	fs.IntVar(&o.ConcurrentTTLAfterFinishedSyncs, "concurrent-ttl-after-finished-syncs", o.ConcurrentTTLAfterFinishedSyncs, "finished jobs checked for their TTL at once")
	fs.DurationVar(&o.EndpointUpdatesBatchPeriod, "endpoint-updates-batch-period", o.EndpointUpdatesBatchPeriod, "how long the endpoints controller waits after a pod change so that bursts make one write")
	fs.IntVar(&o.Nodes, "nodes", o.Nodes, "simulated nodes the nodesim controller registers")
	fs.StringVar(&o.NodeCPU, "node-cpu", o.NodeCPU, "each simulated node's cpu capacity and allocatable, a quantity such as 4 or 3500m")
	fs.StringVar(&o.NodeMemory, "node-memory", o.NodeMemory, "each simulated node's memory capacity and allocatable, a quantity such as 16Gi")
	fs.StringVar(&o.Scheduler, "scheduler", o.Scheduler, "who binds pending pods: 'builtin' (miniplane's scheduler) or 'none' (another scheduler, such as kube-scheduler; the simulated kubelets still run the pods it binds)")
	le := &o.LeaderElection
	fs.BoolVar(&le.LeaderElect, "leader-elect", le.LeaderElect, "run the controllers only while this instance holds the leader lease")
	fs.DurationVar(&le.LeaseDuration, "leader-elect-lease-duration", le.LeaseDuration, "how long other instances wait, after they last saw the leader renew, before they may take the lease")
	fs.DurationVar(&le.RenewDeadline, "leader-elect-renew-deadline", le.RenewDeadline, "how long the leader may go without renewing before it stops writing and steps down; less than the lease duration")
	fs.DurationVar(&le.RetryPeriod, "leader-elect-retry-period", le.RetryPeriod, "how often instances try to acquire or renew the lease")
	fs.StringVar(&le.ResourceName, "leader-elect-resource-name", le.ResourceName, "name of the Lease that leader election uses")
	fs.StringVar(&le.ResourceNamespace, "leader-elect-resource-namespace", le.ResourceNamespace, "namespace of the Lease that leader election uses")
}

func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// Validate checks the options against the known controller names.
func (o Options) Validate(known []string) error {
	for _, c := range o.Controllers {
		name := strings.TrimPrefix(c, "-")
		if c != "*" && !slices.Contains(known, name) {
			return fmt.Errorf("--controllers: %q is not a known controller; known: %s", c, strings.Join(known, ", "))
		}
	}
	for _, n := range []struct {
		flag string
		v    int
		min  int
	}{
		{"--concurrent-rc-syncs", o.ConcurrentRCSyncs, 1},
		{"--concurrent-replicaset-syncs", o.ConcurrentRSSyncs, 1},
		{"--concurrent-endpoint-syncs", o.ConcurrentEndpointSyncs, 1},
		{"--concurrent-gc-syncs", o.ConcurrentGCSyncs, 1},
		{"--concurrent-service-endpoint-syncs", o.ConcurrentServiceEndpointSyncs, 1},
		{"--max-endpoints-per-slice", o.MaxEndpointsPerSlice, 1},
		{"--mirroring-concurrent-service-endpoint-syncs", o.MirroringConcurrentServiceEndpointSyncs, 1},
		{"--mirroring-max-endpoints-per-subset", o.MirroringMaxEndpointsPerSubset, 1},
		{"--concurrent-deployment-syncs", o.ConcurrentDeploymentSyncs, 1},
		{"--concurrent-daemonset-syncs", o.ConcurrentDaemonSetSyncs, 1},
		{"--concurrent-statefulset-syncs", o.ConcurrentStatefulSetSyncs, 1},
		{"--concurrent-job-syncs", o.ConcurrentJobSyncs, 1},
		{"--concurrent-cron-job-syncs", o.ConcurrentCronJobSyncs, 1},
		{"--concurrent-ttl-after-finished-syncs", o.ConcurrentTTLAfterFinishedSyncs, 1},
		{"--concurrent-resource-quota-syncs", o.ConcurrentResourceQuotaSyncs, 1},
		{"--terminated-pod-gc-threshold", o.TerminatedPodGCThreshold, 0},
		{"--nodes", o.Nodes, 0},
	} {
		if n.v < n.min {
			return fmt.Errorf("%s must be at least %d, got %d", n.flag, n.min, n.v)
		}
	}
	// kube-controller-manager's EndpointSliceControllerOptions and
	// EndpointSliceMirroringControllerOptions bound these from above too.
	if o.MaxEndpointsPerSlice > endpointslice.MaxEndpointsPerSliceLimit {
		return fmt.Errorf("--max-endpoints-per-slice must not be more than %d, but got %d", endpointslice.MaxEndpointsPerSliceLimit, o.MaxEndpointsPerSlice)
	}
	if o.MirroringMaxEndpointsPerSubset > endpointslicemirroring.DefaultMaxEndpointsPerSubset {
		return fmt.Errorf("--mirroring-max-endpoints-per-subset must not be more than %d, but got %d", endpointslicemirroring.DefaultMaxEndpointsPerSubset, o.MirroringMaxEndpointsPerSubset)
	}
	if err := nodesim.CheckNodeSize(o.NodeCPU, o.NodeMemory); err != nil {
		return err
	}
	if o.Scheduler != "" && o.Scheduler != scheduler.Builtin && o.Scheduler != scheduler.None {
		return fmt.Errorf("--scheduler must be %q or %q, got %q", scheduler.Builtin, scheduler.None, o.Scheduler)
	}
	return o.LeaderElection.Validate()
}

// Enabled reports whether the controller name runs under the
// --controllers list, kube-controller-manager's way: the first entry that
// is "name", "-name" or "*" decides; "*" does not switch on a controller
// that is off by default; a controller no entry names is off.
func Enabled(controllers []string, name string, disabledByDefault bool) bool {
	for _, c := range controllers {
		switch c {
		case name:
			return true
		case "-" + name:
			return false
		case "*":
			return !disabledByDefault
		}
	}
	return false
}
