package manager

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Options are the controller manager's settings, with kube-controller-
// manager's flag names.
type Options struct {
	// Controllers lists which controllers run, in kube-controller-manager's
	// syntax: "*" for all that are on by default, "name" to switch one on,
	// "-name" to switch it off; for each controller the first entry that
	// names it (or "*") decides.
	Controllers []string
	// ConcurrentRCSyncs and ConcurrentEndpointSyncs are the worker counts
	// of the replication and endpoints controllers; ConcurrentGCSyncs of
	// the garbage collector.
	ConcurrentRCSyncs       int
	ConcurrentEndpointSyncs int
	ConcurrentGCSyncs       int
	// EndpointUpdatesBatchPeriod delays endpoint syncs after pod changes so
	// bursts coalesce (kube's --endpoint-updates-batch-period); 0: none.
	EndpointUpdatesBatchPeriod time.Duration
	// Nodes is how many simulated nodes nodesim registers.
	Nodes int
}

// DefaultOptions returns kube-controller-manager's defaults.
func DefaultOptions() Options {
	return Options{
		Controllers:             []string{"*"},
		ConcurrentRCSyncs:       5,
		ConcurrentEndpointSyncs: 5,
		ConcurrentGCSyncs:       20,
		Nodes:                   3,
	}
}

// AddFlags registers the options' flags on fs, with o's values as defaults.
func (o *Options) AddFlags(fs *flag.FlagSet) {
	fs.Func("controllers", "comma-separated controllers to run: '*' for all on by default, 'name' to enable one, '-name' to disable one (first match wins)", func(v string) error {
		o.Controllers = splitList(v)
		return nil
	})
	fs.IntVar(&o.ConcurrentRCSyncs, "concurrent-rc-syncs", o.ConcurrentRCSyncs, "replication controllers synced at once")
	fs.IntVar(&o.ConcurrentEndpointSyncs, "concurrent-endpoint-syncs", o.ConcurrentEndpointSyncs, "services whose endpoints are synced at once")
	fs.IntVar(&o.ConcurrentGCSyncs, "concurrent-gc-syncs", o.ConcurrentGCSyncs, "garbage collector workers")
	fs.DurationVar(&o.EndpointUpdatesBatchPeriod, "endpoint-updates-batch-period", o.EndpointUpdatesBatchPeriod, "how long the endpoints controller waits after a pod change so that bursts make one write")
	fs.IntVar(&o.Nodes, "nodes", o.Nodes, "simulated nodes the nodesim controller registers")
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
	}{
		{"--concurrent-rc-syncs", o.ConcurrentRCSyncs},
		{"--concurrent-endpoint-syncs", o.ConcurrentEndpointSyncs},
		{"--concurrent-gc-syncs", o.ConcurrentGCSyncs},
		{"--nodes", o.Nodes},
	} {
		if n.v < 1 {
			return fmt.Errorf("%s must be at least 1, got %d", n.flag, n.v)
		}
	}
	return nil
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
