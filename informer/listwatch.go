package informer

import (
	"context"

	"github.com/miniplane/miniplane/apiserver"
)

// ListerWatcher is the source a Reflector reads: one resource, already
// scoped to a namespace and selectors. Kubernetes: cache.ListerWatcher.
type ListerWatcher interface {
	List(ctx context.Context, opts apiserver.ListOptions) (*apiserver.List, error)
	Watch(ctx context.Context, opts apiserver.ListOptions) (apiserver.Watcher, error)
}

// ListWatchClient is the part of apiserver.Client that informers use.
type ListWatchClient interface {
	List(ctx context.Context, resource, namespace string, opts apiserver.ListOptions) (*apiserver.List, error)
	Watch(ctx context.Context, resource, namespace string, opts apiserver.ListOptions) (apiserver.Watcher, error)
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
func (s Source) List(ctx context.Context, opts apiserver.ListOptions) (*apiserver.List, error) {
	return s.Client.List(ctx, s.Resource, s.Namespace, s.scope(opts))
}

// Watch implements ListerWatcher.
func (s Source) Watch(ctx context.Context, opts apiserver.ListOptions) (apiserver.Watcher, error) {
	return s.Client.Watch(ctx, s.Resource, s.Namespace, s.scope(opts))
}

func (s Source) scope(opts apiserver.ListOptions) apiserver.ListOptions {
	opts.LabelSelector, opts.FieldSelector = s.LabelSelector, s.FieldSelector
	return opts
}
