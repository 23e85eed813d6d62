package informer

import (
	"context"

	"github.com/miniplane/miniplane/client"
)

// ListerWatcher is the source a Reflector reads: one resource, already
// scoped to a namespace and selectors. Kubernetes: cache.ListerWatcher.
type ListerWatcher interface {
	List(ctx context.Context, opts client.ListOptions) (*client.List, error)
	Watch(ctx context.Context, opts client.ListOptions) (client.Watcher, error)
}

// ListWatchClient is the part of client.Client that informers use.
type ListWatchClient interface {
	List(ctx context.Context, resource, namespace string, opts client.ListOptions) (*client.List, error)
	Watch(ctx context.Context, resource, namespace string, opts client.ListOptions) (client.Watcher, error)
}

// Source is a ListerWatcher over a client: one resource in one namespace
// ("" for all), with optional label and field selectors applied to every
// list and watch.
type Source struct {
	Client        ListWatchClient
	Resource      string
	Namespace     string
	LabelSelector string
	FieldSelector string
}

var _ ListerWatcher = Source{}

// List implements ListerWatcher.
func (s Source) List(ctx context.Context, opts client.ListOptions) (*client.List, error) {
	return s.Client.List(ctx, s.Resource, s.Namespace, s.scope(opts))
}

// Watch implements ListerWatcher.
func (s Source) Watch(ctx context.Context, opts client.ListOptions) (client.Watcher, error) {
	return s.Client.Watch(ctx, s.Resource, s.Namespace, s.scope(opts))
}

func (s Source) scope(opts client.ListOptions) client.ListOptions {
	opts.LabelSelector, opts.FieldSelector = s.LabelSelector, s.FieldSelector
	return opts
}
