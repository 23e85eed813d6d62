package client

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
		panic(fmt.Sprintf("client.For: %T is not a served kind", zero))
	}
	return Typed[T]{c: c, resource: resource}
}

// ResourceOf names the resource of an object by its Go type (objects that
// controllers build often leave their kind empty), or "" for a type the
// server does not serve. A nil pointer of a served type is named too. The
// names come from api's one registration of the served types
// (api.TypeInfoOf), so a new kind needs no case here.
func ResourceOf(obj api.Object) string {
	ti, ok := api.TypeInfoOf(obj)
	if !ok {
		return ""
	}
	return ti.Name
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
func (t Typed[T]) Create(ctx context.Context, obj T, opts ...WriteOption) (T, error) {
	return typedResult[T](t.c.Create(ctx, obj, opts...))
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
func (t Typed[T]) Update(ctx context.Context, obj T, opts ...WriteOption) (T, error) {
	return typedResult[T](t.c.Update(ctx, obj, opts...))
}

// UpdateStatus updates obj's status.
func (t Typed[T]) UpdateStatus(ctx context.Context, obj T, opts ...WriteOption) (T, error) {
	return typedResult[T](t.c.UpdateStatus(ctx, obj, opts...))
}

// Delete deletes an object and returns its last state.
func (t Typed[T]) Delete(ctx context.Context, namespace, name string, opts api.DeleteOptions) (T, error) {
	return typedResult[T](t.c.Delete(ctx, t.resource, namespace, name, opts))
}
