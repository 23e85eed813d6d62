package apiserver

import (
	"context"
	"fmt"
	"net/http"
	"slices"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
)

// evictionRetries is how many times an eviction re-reads and retries after
// a conflict on the pod or its budget. Kubernetes: EvictionsRetry's Steps
// (upstream also waits half a second between tries; here every try is in
// process, so the next one sees the write it lost to at once).
const evictionRetries = 20

// maxDisruptedPods is how many evictions a budget's disruptedPods may hold
// before the disruption controller confirms them; past it evictions are
// refused. Kubernetes: MaxDisruptedPodSize.
const maxDisruptedPods = 2000

// msgEvictionViolates is kube-apiserver's message for an eviction a budget
// refuses.
const msgEvictionViolates = "Cannot evict pod as it would violate the pod's disruption budget."

// pdbSingular is the resource the eviction's Forbidden errors name:
// upstream's policy.Resource("poddisruptionbudget"), singular.
var pdbSingular = apierrors.GroupResource{Group: "policy", Resource: "poddisruptionbudget"}

// Evict evicts the pod an Eviction names, as the pods/eviction subresource
// does (what `kubectl drain` calls for every pod on the node), and returns
// the pod's last state: removed, or marked for deletion for its grace
// period. The eviction's DeleteOptions are the delete's: grace period,
// preconditions (a failed one is Conflict), dry run. A missing pod is
// NotFound.
//
// A pod that is Pending, Succeeded, Failed or already being deleted is
// deleted at once: its going disrupts nothing. Otherwise the
// PodDisruptionBudgets selecting it decide: more than one is a 500; a
// budget whose status is behind its spec, or allows no disruption, refuses
// with 429 TooManyRequests and a DisruptionBudget cause; one that allows
// it has disruptionsAllowed decremented and the pod added to its
// disruptedPods (a status update, retried on conflict) before the pod is
// deleted. A running pod that is not Ready is deleted without spending the
// budget when the budget's unhealthyPodEvictionPolicy is AlwaysAllow, or
// (IfHealthyBudget, the default) while the budget has the healthy pods it
// needs — on the condition that the pod has not changed since it was
// read. Before it is deleted, the pod is given the DisruptionTarget
// condition (markEvicted), unless the eviction is a dry run. Kubernetes:
// EvictionREST.Create in pkg/registry/core/pod/storage/eviction.go.
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
	// Bad options are refused before the pod is marked (markEvicted):
	// nothing is written.
	k, err := s.kindFor(client.Pods)
	if err != nil {
		return nil, err
	}
	if _, err := propagation(k, opts); err != nil {
		return nil, err
	}
	pod, done, err := s.evictIgnoringBudgets(ctx, m.Namespace, m.Name, opts)
	if err != nil || done != nil {
		return done, err
	}
	pdb, err := s.budgetOf(ctx, pod)
	if err != nil || pdb == nil {
		if err != nil {
			return nil, err
		}
		return s.deletePod(ctx, pod, opts)
	}
	if !api.IsPodReady(pod) && unhealthyMayGo(pdb) {
		// Not healthy, so not counted: evicting it spends nothing, as
		// long as it does not become ready meanwhile.
		guarded := withResourceVersion(opts, pod.Metadata.ResourceVersion)
		out, err := s.deletePod(ctx, pod, guarded)
		if apierrors.IsConflict(err) && !hasResourceVersion(opts) {
			return nil, stillProcessing(pdb.Metadata.Name)
		}
		return out, err
	}
	if err := s.spendBudget(ctx, pdb, pod.Metadata.Name, slices.Contains(opts.DryRun, api.DryRunAll)); err != nil {
		return nil, err
	}
	return s.deletePod(ctx, pod, opts)
}

// evictIgnoringBudgets reads the pod and, when no budget can object to its
// going (canIgnorePDB), deletes it, retrying on conflict unless the caller
// gave a resourceVersion precondition. It returns the pod it read when the
// budgets must decide, or the deleted pod.
func (s *Server) evictIgnoringBudgets(ctx context.Context, namespace, name string, opts api.DeleteOptions) (pod, deleted *api.Pod, err error) {
	for try := 0; ; try++ {
		obj, err := s.Get(ctx, client.Pods, namespace, name, client.GetOptions{})
		if err != nil {
			return nil, nil, err
		}
		pod = obj.(*api.Pod)
		if !budgetsMayIgnore(pod) {
			return pod, nil, nil
		}
		o := opts
		if shouldEnforceResourceVersion(pod) && !hasResourceVersion(opts) {
			o = withResourceVersion(opts, pod.Metadata.ResourceVersion)
		}
		deleted, err = s.deletePod(ctx, pod, o)
		if apierrors.IsConflict(err) && !hasResourceVersion(opts) && try < evictionRetries {
			continue
		}
		return nil, deleted, err
	}
}

// budgetsMayIgnore: a pod that is not running yet, has finished or is
// already going is deleted without asking its budgets. Kubernetes:
// canIgnorePDB.
func budgetsMayIgnore(p *api.Pod) bool {
	ph := p.Status.Phase
	return ph == api.PodSucceeded || ph == api.PodFailed || ph == api.PodPending || p.Metadata.DeletionTimestamp != nil
}

// shouldEnforceResourceVersion: a pending pod is deleted only as it was
// read, so that it cannot become ready and slip past its budget.
// Kubernetes: shouldEnforceResourceVersion.
func shouldEnforceResourceVersion(p *api.Pod) bool {
	ph := p.Status.Phase
	return ph != api.PodSucceeded && ph != api.PodFailed && p.Metadata.DeletionTimestamp == nil
}

// unhealthyMayGo says whether a running, not ready pod may be evicted
// without spending pdb. Kubernetes: the IsPodReady branch of Create.
func unhealthyMayGo(pdb *api.PodDisruptionBudget) bool {
	if p := pdb.Spec.UnhealthyPodEvictionPolicy; p != nil && *p == api.AlwaysAllow {
		return true
	}
	return pdb.Status.CurrentHealthy >= pdb.Status.DesiredHealthy && pdb.Status.DesiredHealthy > 0
}

// budgetOf returns the one budget selecting pod, nil for none, and a 500
// for several. Kubernetes: getPodDisruptionBudgets and its caller.
func (s *Server) budgetOf(ctx context.Context, pod *api.Pod) (*api.PodDisruptionBudget, error) {
	l, err := s.List(ctx, client.PodDisruptionBudgets, pod.Metadata.Namespace, client.ListOptions{})
	if err != nil {
		return nil, err
	}
	var found []*api.PodDisruptionBudget
	for _, o := range l.Items {
		if pdb := o.(*api.PodDisruptionBudget); api.BudgetSelects(pdb, pod.Metadata.Labels) {
			found = append(found, pdb)
		}
	}
	switch len(found) {
	case 0:
		return nil, nil
	case 1:
		return found[0], nil
	}
	// Upstream returns this Status as the result, with code 500 and no reason.
	return nil, &apierrors.StatusError{Status: api.Status{
		TypeMeta: api.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: api.StatusFailure, Code: http.StatusInternalServerError,
		Message: "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
	}}
}

// spendBudget checks that pdb allows one more disruption and records it:
// disruptionsAllowed one less, the pod in disruptedPods at the server's
// now. A conflict re-reads the budget and tries again. Kubernetes: the
// RetryOnConflict around checkAndDecrement.
func (s *Server) spendBudget(ctx context.Context, pdb *api.PodDisruptionBudget, podName string, dryRun bool) error {
	for try := 0; ; try++ {
		next, err := checkAndDecrement(pdb, podName, s.now())
		if err != nil || dryRun {
			return err
		}
		_, err = s.UpdateStatus(ctx, next)
		if !apierrors.IsConflict(err) {
			return err
		}
		if try == evictionRetries {
			return apierrors.NewTimeoutError(fmt.Sprintf("couldn't update PodDisruptionBudget %q due to conflicts", pdb.Metadata.Name), 10)
		}
		obj, err := s.Get(ctx, client.PodDisruptionBudgets, pdb.Metadata.Namespace, pdb.Metadata.Name, client.GetOptions{})
		if err != nil {
			return err
		}
		pdb = obj.(*api.PodDisruptionBudget)
	}
}

// checkAndDecrement returns pdb with one disruption spent on podName, or
// the refusal: 429 while the disruption controller has not seen the
// budget's spec or while it allows none, 403 when its status is broken.
// pdb itself is not changed. Kubernetes: checkAndDecrement.
func checkAndDecrement(pdb *api.PodDisruptionBudget, podName string, now api.Time) (*api.PodDisruptionBudget, error) {
	st := &pdb.Status
	switch {
	case st.ObservedGeneration < pdb.Metadata.Generation:
		return nil, stillProcessing(pdb.Metadata.Name)
	case st.DisruptionsAllowed < 0:
		return nil, apierrors.NewForbidden(pdbSingular, pdb.Metadata.Name, "pdb disruptions allowed is negative")
	case len(st.DisruptedPods) > maxDisruptedPods:
		return nil, apierrors.NewForbidden(pdbSingular, pdb.Metadata.Name, "DisruptedPods map too big - too many evictions not confirmed by PDB controller")
	case st.DisruptionsAllowed == 0:
		return nil, violates(0, fmt.Sprintf("The disruption budget %s needs %d healthy pods and has %d currently",
			pdb.Metadata.Name, st.DesiredHealthy, st.CurrentHealthy))
	}
	next := pdb.DeepCopy()
	next.Status.DisruptionsAllowed--
	if next.Status.DisruptionsAllowed == 0 {
		api.UpdateDisruptionAllowedCondition(next, now.Time)
	}
	if next.Status.DisruptedPods == nil {
		next.Status.DisruptedPods = map[string]api.Time{}
	}
	next.Status.DisruptedPods[podName] = now
	return next, nil
}

// stillProcessing is the 429 for a budget whose status is not yet its
// spec's. Kubernetes: createTooManyRequestsError.
func stillProcessing(name string) error {
	return violates(10, fmt.Sprintf("The disruption budget %s is still being processed by the server.", name))
}

// violates is the 429 a budget's refusal is, with its cause.
func violates(retryAfter int32, cause string) error {
	err := apierrors.NewTooManyRequests(msgEvictionViolates, retryAfter)
	err.Status.Details.Causes = append(err.Status.Details.Causes, api.StatusCause{Type: api.DisruptionBudgetCause, Message: cause})
	return err
}

func (s *Server) deletePod(ctx context.Context, pod *api.Pod, opts api.DeleteOptions) (*api.Pod, error) {
	if !slices.Contains(opts.DryRun, api.DryRunAll) {
		marked, err := s.markEvicted(ctx, pod.Metadata.Namespace, pod.Metadata.Name, opts.Preconditions)
		if err != nil {
			return nil, err
		}
		if hasResourceVersion(opts) {
			// The condition's write is the eviction's own: the delete's
			// precondition moves to the version it made.
			opts = withResourceVersion(opts, marked.Metadata.ResourceVersion)
		}
	}
	obj, err := s.Delete(ctx, client.Pods, pod.Metadata.Namespace, pod.Metadata.Name, opts)
	if err != nil {
		return nil, err
	}
	return obj.(*api.Pod), nil
}

// The DisruptionTarget condition an eviction gives the pod before deleting
// it, as kube-apiserver does since PodDisruptionConditions (GA in 1.31):
// a Job's podFailurePolicy can match it (onPodConditions).
const (
	conditionDisruptionTarget api.PodConditionType = "DisruptionTarget"
	reasonEvictionByAPI                            = "EvictionByEvictionAPI"
	messageEvictionByAPI                           = "Eviction API: evicting"
)

// markEvicted gives the pod, as stored now, the DisruptionTarget
// condition (its transition time kept if it was True already), through
// its status, after checking the eviction's preconditions against it; it
// returns the pod written. A write that loses to another re-reads and
// tries again. Kubernetes: addConditionAndDeletePod's update.
func (s *Server) markEvicted(ctx context.Context, namespace, name string, pre *api.Preconditions) (*api.Pod, error) {
	for try := 0; ; try++ {
		obj, err := s.Get(ctx, client.Pods, namespace, name, client.GetOptions{})
		if err != nil {
			return nil, err
		}
		pod := obj.(*api.Pod)
		if pre != nil {
			gr := apierrors.GroupResource{Resource: "Pod"}
			if uid := pre.UID; uid != nil && *uid != "" && *uid != pod.Metadata.UID {
				return nil, apierrors.NewConflict(gr, name, fmt.Sprintf("the UID in the precondition (%s) does not match the UID in record (%s). The object might have been deleted and then recreated", *uid, pod.Metadata.UID))
			}
			if rv := pre.ResourceVersion; rv != nil && *rv != "" && *rv != pod.Metadata.ResourceVersion {
				return nil, apierrors.NewConflict(gr, name, fmt.Sprintf("the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%s). The object might have been modified", *rv, pod.Metadata.ResourceVersion))
			}
		}
		marked := pod.DeepCopy()
		cond := api.PodCondition{Type: conditionDisruptionTarget, Status: api.ConditionTrue, Reason: reasonEvictionByAPI,
			Message: messageEvictionByAPI, LastTransitionTime: s.now()}
		found := false
		for i, c := range marked.Status.Conditions {
			if c.Type == cond.Type {
				if c.Status == cond.Status {
					cond.LastTransitionTime = c.LastTransitionTime
				}
				marked.Status.Conditions[i], found = cond, true
			}
		}
		if !found {
			marked.Status.Conditions = append(marked.Status.Conditions, cond)
		}
		written, err := s.UpdateStatus(ctx, marked)
		if apierrors.IsConflict(err) && try < evictionRetries {
			continue
		}
		if err != nil {
			return nil, err
		}
		return written.(*api.Pod), nil
	}
}

func hasResourceVersion(opts api.DeleteOptions) bool {
	return opts.Preconditions != nil && opts.Preconditions.ResourceVersion != nil
}

// withResourceVersion is opts with a resourceVersion precondition, on a
// copy of its preconditions.
func withResourceVersion(opts api.DeleteOptions, rv string) api.DeleteOptions {
	p := api.Preconditions{}
	if opts.Preconditions != nil {
		p = *opts.Preconditions
	}
	p.ResourceVersion = &rv
	opts.Preconditions = &p
	return opts
}
