package harness

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/go-logr/logr"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// ManagerOptions are controller-runtime manager options that are right
// inside a testing/synctest bubble, with one manager per seed in one
// process: no metrics server, no health probes and no pprof (each would
// listen on a real socket, which a bubble cannot wait on),
// SkipNameValidation (every seed builds the same controllers), and a
// logger that discards. Leader election is off, as by default. Change
// what else the test needs.
func ManagerOptions() ctrl.Options {
	return ctrl.Options{
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		PprofBindAddress:       "",
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
		Logger:                 logr.Discard(),
	}
}

// ErrNotInBubble is what NewManager's refusals wrap: an option that makes
// the manager wait on a real socket, which a bubble cannot.
var ErrNotInBubble = errors.New("harness: the manager would listen on a real socket, which a testing/synctest bubble cannot wait on (the test would hang until -timeout)")

// NewManager builds a controller-runtime manager of the controller under
// test on p.RESTConfig(). It refuses options that would hang a bubble,
// naming the option (see ManagerOptions), and sets SkipNameValidation when
// the options leave it unset, since a sweep builds the same controllers
// once per seed.
func NewManager(p *Plane, opts ctrl.Options) (ctrl.Manager, error) {
	if err := checkOptions(opts); err != nil {
		return nil, err
	}
	if opts.Controller.SkipNameValidation == nil {
		opts.Controller.SkipNameValidation = ptr.To(true)
	}
	return ctrl.NewManager(p.RESTConfig(), opts)
}

// checkOptions names the first option that would make a manager listen.
func checkOptions(opts ctrl.Options) error {
	switch {
	case opts.Metrics.BindAddress != "0":
		return fmt.Errorf(`%w: Metrics.BindAddress is %q (controller-runtime's default is ":8080"); set Metrics: metricsserver.Options{BindAddress: "0"}`,
			ErrNotInBubble, opts.Metrics.BindAddress)
	case opts.HealthProbeBindAddress != "" && opts.HealthProbeBindAddress != "0":
		return fmt.Errorf(`%w: HealthProbeBindAddress is %q; leave it empty or "0"`, ErrNotInBubble, opts.HealthProbeBindAddress)
	case opts.PprofBindAddress != "" && opts.PprofBindAddress != "0":
		return fmt.Errorf(`%w: PprofBindAddress is %q; leave it empty or "0"`, ErrNotInBubble, opts.PprofBindAddress)
	case opts.WebhookServer != nil:
		return fmt.Errorf("%w: WebhookServer is set; a manager in a bubble serves no webhooks", ErrNotInBubble)
	}
	return nil
}

// StartManager starts mgr on a goroutine of its own, and when tb ends
// stops it and waits for it, failing tb if it stopped with an error.
func StartManager(tb testing.TB, mgr ctrl.Manager) {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- mgr.Start(ctx) }()
	tb.Cleanup(func() {
		cancel()
		if err := <-stopped; err != nil {
			tb.Errorf("harness: the manager stopped: %v", err)
		}
	})
}
