package apiserver

// A terminating namespace's last steps: the finalize subresource, the
// NamespaceDeletion* conditions said while its content goes, and its removal
// once no finalizer is left. Kubernetes: the namespace registry's
// FinalizeREST and ShouldDeleteNamespaceDuringUpdate
// (pkg/registry/core/namespace/storage), and the namespace controller's
// condition updater (pkg/controller/namespace/deletion/status_condition_utils.go).

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
)

// FinalizeNamespace replaces a namespace's spec.finalizers (and its metadata,
// as any update does; its status is kept): the namespaces/finalize
// subresource. The namespace controller removes its "kubernetes" finalizer
// this way once the namespace is empty; a terminating namespace left with no
// finalizer of either kind is deleted by the write. A plain update keeps
// spec.finalizers as stored.
func (s *Server) FinalizeNamespace(ctx context.Context, ns *api.Namespace, opts ...client.WriteOption) (*api.Namespace, error) {
	o := writeOptionsOf(ctx, opts)
	o.finalize = true
	out, err := s.update(ns, false, o)
	if err != nil {
		return nil, err
	}
	return out.(*api.Namespace), nil
}

// keepNamespaceFinalizers runs after defaulting on an update of a namespace:
// spec.finalizers change only through the finalize subresource (which may
// empty them, where defaulting would put "kubernetes" back); any other update
// keeps them as stored.
func keepNamespaceFinalizers(in, old api.Object, finalize bool, asSent []string) {
	ns, ok := in.(*api.Namespace)
	if !ok {
		return
	}
	if finalize {
		ns.Spec.Finalizers = asSent
		return
	}
	ns.Spec.Finalizers = old.(*api.Namespace).Spec.Finalizers
}

// goneAfterUpdate reports whether an update leaves m's object to be deleted
// rather than stored: marked for deletion, its grace over, no finalizer left
// (for a namespace, none in spec.finalizers either).
func (s *Server) goneAfterUpdate(obj api.Object) bool {
	m := obj.GetObjectMeta()
	if m.DeletionTimestamp == nil || len(m.Finalizers) > 0 || !graceOver(m, s.clock.Now()) {
		return false
	}
	ns, ok := obj.(*api.Namespace)
	return !ok || len(ns.Spec.Finalizers) == 0
}

// The namespace deletion conditions, in the order the namespace controller
// keeps them, with the reason and message each has when all is well.
var namespaceConditionTypes = []struct{ typ, okReason, okMessage string }{
	{"NamespaceDeletionDiscoveryFailure", "ResourcesDiscovered", "All resources successfully discovered"},
	{"NamespaceDeletionGroupVersionParsingFailure", "ParsedGroupVersions", "All legacy kube types successfully parsed"},
	{"NamespaceDeletionContentFailure", "ContentDeleted", "All content successfully deleted, may be waiting on finalization"},
	{"NamespaceContentRemaining", "ContentRemoved", "All content successfully removed"},
	{"NamespaceFinalizersRemaining", "ContentHasNoFinalizers", "All content-preserving finalizers finished"},
}

// namespaceRemains is what is left in a terminating namespace after a pass
// deleted what it could: objects per resource ("pods." for the core group,
// "jobs.batch"), and objects per finalizer that holds them.
type namespaceRemains struct {
	byResource  map[string]int
	byFinalizer map[string]int
}

// empty reports whether nothing is left.
func (r namespaceRemains) empty() bool { return len(r.byResource) == 0 }

// namespaceConditions returns the deletion conditions for what remains,
// given the ones stored: a condition whose status, reason and message are
// unchanged keeps its transition time. Conditions of other types are
// dropped, as the namespace controller drops them.
func namespaceConditions(stored []api.NamespaceCondition, left namespaceRemains, now api.Time) []api.NamespaceCondition {
	bad := map[string]api.NamespaceCondition{}
	if len(left.byResource) > 0 {
		bad["NamespaceContentRemaining"] = api.NamespaceCondition{Reason: "SomeResourcesRemain",
			Message: "Some resources are remaining: " + countsOf(left.byResource, "%s has %d resource instances")}
	}
	if len(left.byFinalizer) > 0 {
		bad["NamespaceFinalizersRemaining"] = api.NamespaceCondition{Reason: "SomeFinalizersRemain",
			Message: "Some content in the namespace has finalizers remaining: " + countsOf(left.byFinalizer, "%s in %d resource instances")}
	}
	out := make([]api.NamespaceCondition, 0, len(namespaceConditionTypes))
	for _, t := range namespaceConditionTypes {
		want, isBad := bad[t.typ]
		want.Type = t.typ
		if isBad {
			want.Status = api.ConditionTrue
		} else {
			want.Status, want.Reason, want.Message = api.ConditionFalse, t.okReason, t.okMessage
		}
		want.LastTransitionTime = now
		i := slices.IndexFunc(stored, func(c api.NamespaceCondition) bool { return c.Type == t.typ })
		if i >= 0 && stored[i].Status == want.Status && stored[i].Reason == want.Reason && stored[i].Message == want.Message {
			want = stored[i]
		}
		out = append(out, want)
	}
	return out
}

// countsOf lists counts with format, sorted, joined by ", ".
func countsOf(counts map[string]int, format string) string {
	var parts []string
	for name, n := range counts {
		if n > 0 {
			parts = append(parts, fmt.Sprintf(format, name, n))
		}
	}
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}
