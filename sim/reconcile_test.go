package sim_test

import (
	"context"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/apiserver"
	"github.com/miniplane/miniplane/controllers/loop"
	"github.com/miniplane/miniplane/informer"
	"github.com/miniplane/miniplane/sim"
)

// configPerServiceFunc builds, for each controller-manager term, a
// controller written only as a reconcile function and its watches
// (loop.NewController): it keeps a ConfigMap "<service>-config" whose data
// records the service's selector.
var configPerServiceFunc = sim.ControllerFunc{Name: "config-per-service", New: func(cc sim.ControllerContext) (sim.Controller, error) {
	services := informer.NewLister[*api.Service](cc.Factory.ForResource(apiserver.Services), apiserver.GroupResource{Resource: apiserver.Services})
	configMaps := informer.NewLister[*api.ConfigMap](cc.Factory.ForResource(apiserver.ConfigMaps), apiserver.GroupResource{Resource: apiserver.ConfigMaps})
	reconcile := func(ctx context.Context, key string) error {
		ns, name, err := api.SplitKey(key)
		if err != nil {
			return nil
		}
		svc, err := services.Namespace(ns).Get(name)
		if apiserver.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		want := map[string]string{"selector": api.SelectorFromSet(svc.Spec.Selector).String()}
		cm, err := configMaps.Namespace(ns).Get(name + "-config")
		switch {
		case apiserver.IsNotFound(err):
			_, err = cc.Client.Create(ctx, &api.ConfigMap{
				TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
				Metadata: api.ObjectMeta{Namespace: ns, Name: name + "-config", OwnerReferences: []api.OwnerReference{{
					APIVersion: "v1", Kind: "Service", Name: name, UID: svc.Metadata.UID,
				}}},
				Data: want,
			})
			return err
		case err != nil:
			return err
		case maps.Equal(cm.Data, want):
			return nil
		}
		cm = cm.DeepCopy()
		cm.Data = want
		_, err = cc.Client.Update(ctx, cm)
		return err
	}
	return loop.NewController(loop.ControllerConfig{
		Name: "config-per-service", Factory: cc.Factory, Clock: cc.Clock, Logger: cc.Logger, Reconcile: reconcile,
		Watches: []loop.Watch{
			{Resource: apiserver.Services},
			{Resource: apiserver.ConfigMaps, Keys: loop.OwnerKeys("Service")},
		},
	})
}}

// everyServiceHasItsConfig is the controller's promise, checked when the
// system is quiet.
var everyServiceHasItsConfig = sim.Invariant{Name: "every-service-has-its-config", Check: func(ctx context.Context, s *sim.Sim) error {
	svcs, _, err := apiserver.For[*api.Service](s.Client()).List(ctx, "default", apiserver.ListOptions{})
	if err != nil {
		return err
	}
	for _, svc := range svcs {
		if len(svc.Spec.Selector) == 0 {
			continue // the kubernetes service
		}
		cm, err := apiserver.For[*api.ConfigMap](s.Client()).Get(ctx, "default", svc.Metadata.Name+"-config")
		if err != nil {
			return fmt.Errorf("service %s: %w", svc.Metadata.Name, err)
		}
		if want := api.SelectorFromSet(svc.Spec.Selector).String(); cm.Data["selector"] != want {
			return fmt.Errorf("service %s: config says %q, want %q", svc.Metadata.Name, cm.Data["selector"], want)
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
				Controllers: []sim.ControllerFunc{configPerServiceFunc},
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
					svc, err := apiserver.For[*api.Service](s.Client()).Get(ctx, "default", name)
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
			cms, _, err := apiserver.For[*api.ConfigMap](s.Client()).List(ctx, "default", apiserver.ListOptions{})
			require.NoError(t, err)
			require.NotEmpty(t, cms, "the controller ran")
		})
	}
}
