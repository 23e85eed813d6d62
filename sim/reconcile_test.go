package sim_test

import (
	"context"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/controllers/loop"
	"github.com/miniplane/miniplane/controllers/loop/looptest"
	"github.com/miniplane/miniplane/controllers/manager"
	"github.com/miniplane/miniplane/sim"
)

// configPerService builds, for each controller-manager term, a
// controller written only as a reconcile function and its watches
// (loop.NewController over looptest.ConfigPerService).
var configPerService = manager.Descriptor{Name: "config-per-service", Init: func(ic manager.InitContext) (manager.Controller, int, error) {
	r := looptest.NewConfigPerService(ic.Client, ic.Factory)
	c, err := loop.NewController(loop.ControllerConfig{
		Name: "config-per-service", Factory: ic.Factory, Clock: ic.Clock, Logger: ic.Logger,
		Reconcile: r.Reconcile, Watches: r.Watches(),
	})
	return c, 1, err
}}

// everyServiceHasItsConfig is the controller's promise, checked when the
// system is quiet.
var everyServiceHasItsConfig = sim.Invariant{Name: "every-service-has-its-config", Check: func(ctx context.Context, s *sim.Sim) error {
	svcs, _, err := client.For[*api.Service](s.Client()).List(ctx, "default", client.ListOptions{})
	if err != nil {
		return err
	}
	for _, svc := range svcs {
		if len(svc.Spec.Selector) == 0 {
			continue // the kubernetes service
		}
		cm, err := client.For[*api.ConfigMap](s.Client()).Get(ctx, "default", looptest.ConfigName(svc.Metadata.Name))
		if err != nil {
			return fmt.Errorf("service %s: %w", svc.Metadata.Name, err)
		}
		if want := looptest.WantData(svc); !maps.Equal(cm.Data, want) {
			return fmt.Errorf("service %s: config holds %v, want %v", svc.Metadata.Name, cm.Data, want)
		}
	}
	return nil
}}

// TestReconcilerInSeedSweep runs a controller made with loop.NewController
// in the simulator's seed sweep, under write faults, stale caches, closed
// watches and crashes, while services come and change.
func TestReconcilerInSeedSweep(t *testing.T) {
	for seed := uint64(1); seed <= 8; seed++ {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			ctx := context.Background()
			s, err := sim.New(ctx, sim.Config{
				Seed:        seed,
				Faults:      sim.FaultSet(0).With(sim.Conflict).With(sim.ServerError).With(sim.StaleCache).With(sim.WatchClose).With(sim.Crash),
				FaultEvery:  5 * time.Second,
				Controllers: []manager.Descriptor{configPerService},
				Invariants:  []sim.Invariant{everyServiceHasItsConfig},
			})
			require.NoError(t, err)
			for i := range 6 {
				name := fmt.Sprint("svc-", i)
				s.At(time.Duration(i+1)*7*time.Second, func(ctx context.Context) {
					_, _ = s.Client().Create(ctx, &api.Service{
						TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "Service"},
						Metadata: api.ObjectMeta{Namespace: "default", Name: name},
						Spec:     api.ServiceSpec{Selector: map[string]string{"app": name}, Ports: []api.ServicePort{{Port: 80}}},
					})
				})
				s.At(time.Duration(i+1)*11*time.Second, func(ctx context.Context) {
					svc, err := client.For[*api.Service](s.Client()).Get(ctx, "default", name)
					if err != nil {
						return
					}
					svc = svc.DeepCopy()
					svc.Spec.Selector = map[string]string{"app": name, "v": "2"}
					_, _ = s.Client().Update(ctx, svc)
				})
			}
			require.NoError(t, s.RunFor(ctx, 2*time.Minute))
			require.NoError(t, s.RunUntilQuiet(ctx, 10*time.Minute))
			require.NoError(t, everyServiceHasItsConfig.Check(ctx, s), "checked once more at the end")
			cms, _, err := client.For[*api.ConfigMap](s.Client()).List(ctx, "default", client.ListOptions{})
			require.NoError(t, err)
			require.NotEmpty(t, cms, "the controller ran")
		})
	}
}
