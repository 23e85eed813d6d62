package apiserver

import (
	"context"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
)

// Evict evicts the pod an Eviction names, as the pods/eviction subresource
// does (what `kubectl drain` calls for every pod on the node), and returns
// the pod's last state: removed, or marked for deletion for its grace
// period. The eviction's DeleteOptions are the delete's: grace period,
// preconditions (a failed one is Conflict), dry run. A missing pod is
// NotFound.
//
// Kubernetes first looks for the PodDisruptionBudgets that select the pod
// and refuses, with 429 TooManyRequests, an eviction that would take it
// below its budget. miniplane serves no PodDisruptionBudgets, so every
// eviction is allowed and is exactly the pod's delete. Kubernetes:
// EvictionREST in pkg/registry/core/pod/storage/eviction.go.
func (s *Server) Evict(ctx context.Context, eviction *api.Eviction) (*api.Pod, error) {
	if eviction == nil {
		return nil, apierrors.NewBadRequest("no Eviction given")
	}
	m := eviction.Metadata
	if m.Name == "" || m.Namespace == "" {
		return nil, apierrors.NewBadRequest("the Eviction must name the pod to evict: metadata.name and metadata.namespace")
	}
	var opts api.DeleteOptions
	if eviction.DeleteOptions != nil {
		eviction.DeleteOptions.DeepCopyInto(&opts)
	}
	obj, err := s.Delete(ctx, client.Pods, m.Namespace, m.Name, opts)
	if err != nil {
		return nil, err
	}
	return obj.(*api.Pod), nil
}
