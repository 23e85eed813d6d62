package plane

import (
	"crypto/ecdsa"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/apiserver"

	"github.com/miniplane/miniplane/apiserver/faults"
	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/manager"
	"github.com/miniplane/miniplane/controllers/nodelifecycle"
	"github.com/miniplane/miniplane/controllers/nodesim"
)

// Config says what control plane New builds. The zero value is a plane of
// one controller-manager instance running kube-controller-manager's
// default controllers, three simulated nodes with the built-in scheduler,
// on the real clock, seed 0, no faults and no listener.
type Config struct {
	// Clock is every component's clock; nil: clock.Real{}.
	Clock clock.Clock
	// Seed seeds the API server's generated names and uids, the electors'
	// jitter and the injected faults: one seed, the same pod names.
	Seed uint64
	// Logger receives every component's logs, each named after it; nil:
	// none.
	Logger *zap.Logger

	// CRDs are CustomResourceDefinition files, or directories of them, to
	// install before New returns, each established (ReadCRDs says what is
	// read: envtest's CRDDirectoryPaths). A file that does not parse, or a
	// definition the API server refuses, fails New with the file's name
	// and kube-apiserver's message.
	CRDs []string

	// Options are kube-controller-manager's settings, with its flag names
	// (manager.Options.AddFlags): which controllers run (--controllers),
	// their worker counts, the number of simulated nodes (--nodes; 0
	// registers none, and nodesim still runs pods on nodes created through
	// the API), who schedules (--scheduler: builtin or none) and the lease
	// settings (--leader-elect...). nil: manager.DefaultOptions().
	Options *manager.Options
	// Instances is how many controller-manager instances compete for the
	// lease; 0 means 1. With leader election off there must be one. When
	// Options.Controllers switches every controller off, none runs.
	Instances int
	// ReleaseOnCancel makes a stopping instance release its lease, as a
	// clean shutdown does; without it, stopping is a crash.
	ReleaseOnCancel bool
	// NodeSim tunes the simulated kubelets (their delays); its Client,
	// Factory, Clock, Logger, Recorders, Nodes and NodeLeases are filled
	// in. The scheduler beside them is the plane's, on Options.Scheduler.
	NodeSim nodesim.Config
	// NodeLifecycle tunes the node lifecycle controller beside them (its
	// eviction timeout); its Client, Factory, Clock, Logger and Recorder
	// are filled in.
	NodeLifecycle nodelifecycle.Config

	// Faults are the API-layer faults to inject in front of the HTTP API
	// (package apiserver/faults), for the listener and the in-memory
	// transport alike; none when empty. FaultRate is each one's chance per
	// request it applies to (0: faults.DefaultRate), and FaultTrace, when
	// set, receives the injector's trace. The in-process Server is never
	// faulted.
	Faults     faults.Set
	FaultRate  float64
	FaultTrace io.Writer

	// Listen is the address of a loopback HTTP listener ("127.0.0.1:0"
	// picks a free port); "": none, and the plane is reached in memory.
	Listen string
	// TLS, when set, makes the listener serve HTTPS with it; CAPEM is the
	// certificate authority that signed its certificate, for Kubeconfig.
	TLS   *tls.Config
	CAPEM []byte
	// Token, when set, is the bearer token every API request must carry
	// (httpapi.Config.Token).
	Token string
	// RBAC makes the API server authorize every request with the RBAC
	// roles and bindings (kube-apiserver's --authorization-mode=RBAC),
	// answering 403 to what they do not allow; off, everything is allowed
	// (AlwaysAllow), as a learner's first hour wants. It needs Token: the
	// token's user is in system:masters, bound to cluster-admin.
	RBAC bool
	// ServiceAccountKey signs the service-account tokens of the
	// TokenRequest API (`kubectl create token`); nil: a key derived from
	// Seed, reproducible and so not secret (serve passes one made with
	// crypto/rand).
	ServiceAccountKey *ecdsa.PrivateKey

	// CheckMutations makes the API server check that nothing changes a
	// stored object in place (apiserver.Config.CheckMutations;
	// Server().CheckMutations reports what did). planetest turns it on;
	// serve and demo leave it off, as it costs an encoding per write.
	CheckMutations bool

	// ServiceNodePortRange is where services' node ports come from
	// (apiserver.Config.ServiceNodePortRange); zero: 30000-32767.
	ServiceNodePortRange apiserver.PortRange

	// EtcdServers, when set, are the etcd members ("http://127.0.0.1:2379")
	// the API server keeps its objects in (apiserver.Config.Etcd), so that
	// they outlive the process; empty: in memory, as by default.
	EtcdServers []string
	// CompactEvery is how often the API server compacts its store, at the
	// revision it had one period before, as kube-apiserver compacts etcd
	// (--etcd-compaction-interval, every 5 minutes): reads and watches from
	// older resourceVersions then get 410 Gone, and a list's continue
	// token expires. 0: the in-memory store is never compacted on a timer
	// (its history window bounds it: the page's time travel reaches
	// further back), and etcd is compacted every 5 minutes
	// (apiserver.DefaultCompactEvery).
	CompactEvery time.Duration
	// EtcdTLS, when set, is how the etcd members' certificates are
	// checked and the client certificate they ask for (serve's
	// --etcd-cafile, --etcd-certfile, --etcd-keyfile).
	EtcdTLS *tls.Config
	// Identity, when set, prefixes the holder identities of the plane's
	// controller-manager instances ("<Identity>_cm-1"), as
	// kube-controller-manager's are its hostname and a uuid: planes over
	// one etcd then compete for one Lease as distinct holders. Empty:
	// "cm-1", "cm-2"...
	Identity string
}

// withDefaults fills in the zero fields and checks the rest.
func (c Config) withDefaults() (Config, error) {
	if c.Clock == nil {
		c.Clock = clock.Real{}
	}
	if c.Logger == nil {
		c.Logger = zap.NewNop()
	}
	if c.Options == nil {
		o := manager.DefaultOptions()
		c.Options = &o
	} else {
		o := *c.Options // the caller's stays theirs
		c.Options = &o
	}
	if c.Instances == 0 {
		c.Instances = 1
	}
	if c.Instances < 0 {
		return c, fmt.Errorf("plane: Instances must be at least 1, got %d", c.Instances)
	}
	if !c.Options.LeaderElection.LeaderElect && c.Instances > 1 {
		return c, fmt.Errorf("plane: with leader election off the controllers run unguarded: run 1 instance, not %d", c.Instances)
	}
	if err := c.Options.Validate(ControllerNames()); err != nil {
		return c, fmt.Errorf("plane: %w", err)
	}
	if c.Options.Nodes > nodesim.MaxNodes {
		return c, fmt.Errorf("plane: --nodes must be between 0 and %d, got %d", nodesim.MaxNodes, c.Options.Nodes)
	}
	if c.FaultRate < 0 || c.FaultRate > 1 {
		return c, fmt.Errorf("plane: FaultRate must be in [0, 1], got %v", c.FaultRate)
	}
	if c.TLS != nil && c.Listen == "" {
		return c, errors.New("plane: TLS is for the listener, and Listen is empty")
	}
	return c, nil
}

// ControllerNames are the controllers Options.Controllers may name, in
// the order the manager builds them.
func ControllerNames() []string {
	var names []string
	for _, d := range manager.DefaultDescriptors() {
		names = append(names, d.Name)
	}
	return names
}

// EnabledControllers names the controllers opts.Controllers switches on,
// in the order the manager starts them.
func EnabledControllers(opts manager.Options) []string {
	var on []string
	for _, d := range manager.DefaultDescriptors() {
		if manager.Enabled(opts.Controllers, d.Name, d.DisabledByDefault) {
			on = append(on, d.Name)
		}
	}
	return on
}

// idleControllers returns httpapi.Config.Idle for a plane of instances
// controller-manager instances running opts' controllers: why a
// kube-controller-manager controller does not act here, or "".
func idleControllers(opts manager.Options, instances int) func(string) string {
	on := EnabledControllers(opts)
	known := ControllerNames()
	return func(name string) string {
		switch {
		case !slices.Contains(known, name):
			return `miniplane has none; see DESIGN.md, "Deliberately left out"`
		case !slices.Contains(on, name):
			return "it is switched off: serve --controllers"
		case instances == 0:
			return "no controller-manager instance runs"
		}
		return ""
	}
}
