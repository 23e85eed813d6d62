package apiserver

import (
	"context"
	"fmt"

	"github.com/miniplane/miniplane/api"
)

// Typed is a typed view of one resource through a Client, so callers get
// *api.Pod rather than api.Object: For[*api.Pod](c).Get(ctx, "default", "web-1").
type Typed[T api.Object] struct {
	c        Client
	resource string
}

// For returns the typed view of T's resource. It panics for a type the
// server does not serve: that is a programming error, not a runtime one.
func For[T api.Object](c Client) Typed[T] {
	var zero T
	resource := ResourceOf(zero)
	if resource == "" {
		panic(fmt.Sprintf("apiserver.For: %T is not a served kind", zero))
	}
	return Typed[T]{c: c, resource: resource}
}

// ResourceOf names the resource of an object by its Go type (objects that
// controllers build often leave their kind empty), or "" for a type the
// server does not serve. A nil pointer of a served type is named too.
func ResourceOf(obj api.Object) string {
	switch obj.(type) {
	case *api.Namespace:
		return Namespaces
	case *api.Pod:
		return Pods
	case *api.ReplicationController:
		return ReplicationControllers
	case *api.Service:
		return Services
	case *api.Endpoints:
		return Endpoints
	case *api.Node:
		return Nodes
	case *api.Lease:
		return Leases
	case *api.Event:
		return Events
	case *api.EventsV1Event:
		return EventsK8sIO
	case *api.ConfigMap:
		return ConfigMaps
	case *api.Secret:
		return Secrets
	case *api.ServiceAccount:
		return ServiceAccounts
	case *api.PersistentVolume:
		return PersistentVolumes
	case *api.PersistentVolumeClaim:
		return PersistentVolumeClaims
	case *api.StorageClass:
		return StorageClasses
	case *api.CSINode:
		return CSINodes
	case *api.CSIDriver:
		return CSIDrivers
	case *api.CSIStorageCapacity:
		return CSIStorageCapacities
	case *api.VolumeAttachment:
		return VolumeAttachments
	case *api.PodDisruptionBudget:
		return PodDisruptionBudgets
	case *api.ReplicaSet:
		return ReplicaSets
	case *api.StatefulSet:
		return StatefulSets
	}
	return ""
}

// Resource returns the resource name the view reads and writes.
func (t Typed[T]) Resource() string { return t.resource }

func typedResult[T api.Object](obj api.Object, err error) (T, error) {
	if err != nil {
		var zero T
		return zero, err
	}
	return obj.(T), nil
}

// Create creates obj.
func (t Typed[T]) Create(ctx context.Context, obj T) (T, error) {
	return typedResult[T](t.c.Create(ctx, obj))
}

// Get returns one object.
func (t Typed[T]) Get(ctx context.Context, namespace, name string) (T, error) {
	return typedResult[T](t.c.Get(ctx, t.resource, namespace, name, GetOptions{}))
}

// List returns the selected objects and the resourceVersion of the list.
func (t Typed[T]) List(ctx context.Context, namespace string, opts ListOptions) ([]T, string, error) {
	l, err := t.c.List(ctx, t.resource, namespace, opts)
	if err != nil {
		return nil, "", err
	}
	out := make([]T, len(l.Items))
	for i, obj := range l.Items {
		out[i] = obj.(T)
	}
	return out, l.Metadata.ResourceVersion, nil
}

// Update updates obj's metadata and spec.
func (t Typed[T]) Update(ctx context.Context, obj T) (T, error) {
	return typedResult[T](t.c.Update(ctx, obj))
}

// UpdateStatus updates obj's status.
func (t Typed[T]) UpdateStatus(ctx context.Context, obj T) (T, error) {
	return typedResult[T](t.c.UpdateStatus(ctx, obj))
}

// Delete deletes an object and returns its last state.
func (t Typed[T]) Delete(ctx context.Context, namespace, name string, opts api.DeleteOptions) (T, error) {
	return typedResult[T](t.c.Delete(ctx, t.resource, namespace, name, opts))
}
