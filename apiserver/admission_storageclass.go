package apiserver

import (
	"context"
	"fmt"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
)

// DefaultStorageClassName, DefaultProvisioner: the class Config.DefaultStorageClass
// makes, whose volumes the persistent volume controller's simulated
// provisioner makes.
const (
	DefaultStorageClassName = "standard"
	DefaultProvisioner      = "miniplane.io/simulated"
)

// admitDefaultStorageClass is kube-apiserver's DefaultStorageClass
// admission plugin (plugin/pkg/admission/storage/storageclass/setdefault)
// for a claim being created: a claim that names no class (nil, not "")
// and carries no beta class annotation gets the default class, the most
// recently created of those annotated is-default-class "true" (then the
// first by name); with none, it is left as it is.
func (s *Server) admitDefaultStorageClass(ctx context.Context, pvc *api.PersistentVolumeClaim) error {
	if pvc.Spec.StorageClassName != nil {
		return nil
	}
	if _, ok := pvc.Metadata.Annotations[betaStorageClassAnnotation]; ok {
		return nil
	}
	l, err := s.List(ctx, client.StorageClasses, "", client.ListOptions{})
	if err != nil {
		return fmt.Errorf("unable to list storage classes: %w", err)
	}
	var chosen *api.StorageClass
	for _, o := range l.Items {
		sc := o.(*api.StorageClass)
		if !isDefaultStorageClass(sc) {
			continue
		}
		if chosen == nil || sc.Metadata.CreationTimestamp.After(chosen.Metadata.CreationTimestamp.Time) ||
			(sc.Metadata.CreationTimestamp.Equal(chosen.Metadata.CreationTimestamp.Time) && sc.Metadata.Name < chosen.Metadata.Name) {
			chosen = sc
		}
	}
	if chosen != nil {
		name := chosen.Metadata.Name
		pvc.Spec.StorageClassName = &name
	}
	return nil
}

// newDefaultStorageClass is the class Config.DefaultStorageClass makes: the
// default, provisioned by the simulated provisioner, volumes deleted with
// their claims, bound at once.
func newDefaultStorageClass() *api.StorageClass {
	reclaim := api.PersistentVolumeReclaimDelete
	mode := api.VolumeBindingImmediate
	return &api.StorageClass{
		Metadata: api.ObjectMeta{Name: DefaultStorageClassName,
			Annotations: map[string]string{isDefaultStorageClassAnnotation: "true"}},
		Provisioner: DefaultProvisioner, ReclaimPolicy: &reclaim, VolumeBindingMode: &mode,
	}
}
