// Package looptest holds ConfigPerService, a whole controller written as a
// reconcile function and its watches for loop.NewController: the example
// the loop's tests and the simulator's sweep run; and SyncCounter, an
// Observer that controllers' tests count syncs with. It imports api,
// apiserver, informer and controllers/loop.
package looptest

import (
	"context"
	"maps"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/controllers/loop"
	"github.com/miniplane/miniplane/informer"
)

// Client is what ConfigPerService writes through; client.Client and
// *apiserver.Server satisfy it.
type Client interface {
	Create(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error)
	Update(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error)
}

// ConfigPerService keeps, for every Service with a selector, a ConfigMap
// named ConfigName(service) in its namespace, owned by the service, whose
// data is WantData(service). Deleting the ConfigMap is left to the garbage
// collector.
type ConfigPerService struct {
	client     Client
	services   informer.Lister[*api.Service]
	configMaps informer.Lister[*api.ConfigMap]
}

// NewConfigPerService returns the reconciler, reading through listers of
// f's service and configmap informers.
func NewConfigPerService(cl Client, f *informer.Factory) *ConfigPerService {
	return &ConfigPerService{
		client:     cl,
		services:   informer.NewLister[*api.Service](f.ForResource(client.Services), apierrors.GroupResource{Resource: client.Services}),
		configMaps: informer.NewLister[*api.ConfigMap](f.ForResource(client.ConfigMaps), apierrors.GroupResource{Resource: client.ConfigMaps}),
	}
}

// Watches are the reconciler's: a service queues its own key, a ConfigMap
// its owning service's.
func (r *ConfigPerService) Watches() []loop.Watch {
	return []loop.Watch{
		{Resource: client.Services},
		{Resource: client.ConfigMaps, Keys: loop.OwnerKeys("Service")},
	}
}

// ConfigName is the name of a service's ConfigMap.
func ConfigName(service string) string { return service + "-config" }

// WantData is what a service's ConfigMap holds: its selector.
func WantData(svc *api.Service) map[string]string {
	return map[string]string{"selector": api.SelectorFromSet(svc.Spec.Selector).String()}
}

// Reconcile brings the ConfigMap of the service under key in line:
// observe (two listers), decide (WantData), act (create or update). An
// update from a stale cache conflicts and is retried by the loop.
func (r *ConfigPerService) Reconcile(ctx context.Context, key string) error {
	ns, name, err := api.SplitKey(key)
	if err != nil {
		return nil // not a service key: nothing will make it one
	}
	svc, err := r.services.Namespace(ns).Get(name)
	if apierrors.IsNotFound(err) || err == nil && len(svc.Spec.Selector) == 0 {
		return nil
	}
	if err != nil {
		return err
	}
	want := WantData(svc)
	cm, err := r.configMaps.Namespace(ns).Get(ConfigName(name))
	switch {
	case apierrors.IsNotFound(err):
		yes := true
		_, err = r.client.Create(ctx, &api.ConfigMap{
			TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			Metadata: api.ObjectMeta{Namespace: ns, Name: ConfigName(name), OwnerReferences: []api.OwnerReference{{
				APIVersion: "v1", Kind: "Service", Name: name, UID: svc.Metadata.UID, Controller: &yes,
			}}},
			Data: want,
		})
		return err
	case err != nil:
		return err
	case maps.Equal(cm.Data, want):
		return nil
	}
	cm = cm.DeepCopy() // what a lister returns is shared
	cm.Data = want
	_, err = r.client.Update(ctx, cm)
	return err
}
