package apiserver_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
)

// TestEvict evicts pods with the DeleteOptions kubectl drain sends and the
// ones it may: an eviction is the pod's delete, every one allowed (no
// PodDisruptionBudgets are served), and a refused one changes nothing.
func TestEvict(t *testing.T) {
	eviction := func(name string, opts *api.DeleteOptions) *api.Eviction {
		return &api.Eviction{
			TypeMeta: api.TypeMeta{APIVersion: "policy/v1", Kind: "Eviction"},
			Metadata: api.ObjectMeta{Namespace: "default", Name: name}, DeleteOptions: opts,
		}
	}
	otherUID := api.UID("not-the-pod")
	staleRV := "1"
	tests := []struct {
		name      string
		unbound   bool
		eviction  *api.Eviction
		wantGrace int64 // when the pod is left marked for deletion
		gone      bool  // the pod is removed at once
		kept      bool  // nothing changed (a refusal, or a dry run)
		is        func(error) bool
		wantErr   string
	}{
		{name: "the pod's grace period", eviction: eviction("p", nil), wantGrace: 30},
		{name: "drain's --grace-period", eviction: eviction("p", &api.DeleteOptions{GracePeriodSeconds: ptr(int64(5))}), wantGrace: 5},
		{name: "grace period 0", eviction: eviction("p", &api.DeleteOptions{GracePeriodSeconds: ptr(int64(0))}), gone: true},
		{name: "a pod on no node goes at once", unbound: true, eviction: eviction("p", nil), gone: true},
		{name: "dry run", eviction: eviction("p", &api.DeleteOptions{DryRun: []string{api.DryRunAll}}), kept: true},
		{name: "uid precondition", eviction: eviction("p", &api.DeleteOptions{Preconditions: &api.Preconditions{UID: &otherUID}}), kept: true,
			is: apierrors.IsConflict, wantErr: `Operation cannot be fulfilled on Pod "p": the UID in the precondition (not-the-pod) does not match the UID in record (`},
		{name: "resourceVersion precondition", eviction: eviction("p", &api.DeleteOptions{Preconditions: &api.Preconditions{ResourceVersion: &staleRV}}), kept: true,
			is: apierrors.IsConflict, wantErr: `Operation cannot be fulfilled on Pod "p": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (`},
		{name: "missing pod", eviction: eviction("nope", nil), kept: true,
			is: apierrors.IsNotFound, wantErr: `pods "nope" not found`},
		{name: "no name", eviction: eviction("", nil), kept: true,
			is: apierrors.IsBadRequest, wantErr: "the Eviction must name the pod to evict: metadata.name and metadata.namespace"},
		{name: "bad propagation policy", eviction: eviction("p", &api.DeleteOptions{PropagationPolicy: ptr(api.DeletionPropagation("Sideways"))}), kept: true,
			is: apierrors.IsInvalid, wantErr: `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newServer(t)
			pods := client.For[*api.Pod](s)
			var before *api.Pod
			if tt.unbound {
				before = mustCreate(t, s, pod("default", "p", nil))
			} else {
				before = boundPod(t, s, "p", nil)
			}
			rev := s.Store().Rev()

			got, err := s.Evict(ctx, tt.eviction)
			after, getErr := pods.Get(ctx, "default", "p")
			switch {
			case tt.is != nil:
				require.True(t, tt.is(err), "got %v", err)
				assert.Contains(t, err.Error(), tt.wantErr)
			default:
				require.NoError(t, err)
				assert.Equal(t, before.Metadata.UID, got.Metadata.UID, "the evicted pod's last state")
			}
			switch {
			case tt.kept:
				require.NoError(t, getErr)
				assert.Equal(t, before, after)
				assert.Equal(t, rev, s.Store().Rev(), "nothing written")
			case tt.gone:
				assert.True(t, apierrors.IsNotFound(getErr), "removed at once, got %v", getErr)
			default:
				require.NoError(t, getErr)
				require.NotNil(t, after.Metadata.DeletionTimestamp, "marked for deletion")
				assert.Equal(t, epoch.Add(time.Duration(tt.wantGrace)*time.Second), after.Metadata.DeletionTimestamp.Time)
				assert.Equal(t, tt.wantGrace, *after.Metadata.DeletionGracePeriodSeconds)
				assert.Equal(t, after, got)
			}
		})
	}
}

// TestEvictMarksTheDisruptionTarget: an eviction gives the pod the
// DisruptionTarget condition (EvictionByEvictionAPI) before it deletes
// it, as kube-apiserver does since PodDisruptionConditions; a dry run
// writes nothing, and a pod already marked keeps its transition time.
func TestEvictMarksTheDisruptionTarget(t *testing.T) {
	want := api.PodCondition{Type: "DisruptionTarget", Status: api.ConditionTrue, Reason: "EvictionByEvictionAPI",
		Message: "Eviction API: evicting", LastTransitionTime: api.NewTime(epoch)}
	target := func(p *api.Pod) *api.PodCondition {
		for i := range p.Status.Conditions {
			if p.Status.Conditions[i].Type == "DisruptionTarget" {
				return &p.Status.Conditions[i]
			}
		}
		return nil
	}
	tests := []struct {
		name   string
		opts   *api.DeleteOptions
		marked *api.PodCondition // the condition before the eviction
		want   *api.PodCondition
	}{
		{name: "marked, then deleted", want: &want},
		{name: "dry run: not marked", opts: &api.DeleteOptions{DryRun: []string{api.DryRunAll}}},
		{name: "marked already: its transition time kept", marked: &api.PodCondition{Type: "DisruptionTarget", Status: api.ConditionTrue,
			Reason: "PreemptionByScheduler", LastTransitionTime: api.NewTime(epoch.Add(-time.Hour))},
			want: &api.PodCondition{Type: "DisruptionTarget", Status: api.ConditionTrue, Reason: "EvictionByEvictionAPI",
				Message: "Eviction API: evicting", LastTransitionTime: api.NewTime(epoch.Add(-time.Hour))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newServer(t)
			p := boundPod(t, s, "p", nil)
			if tt.marked != nil {
				p = p.DeepCopy()
				p.Status.Conditions = append(p.Status.Conditions, *tt.marked)
				_, err := client.For[*api.Pod](s).UpdateStatus(ctx, p)
				require.NoError(t, err)
			}
			_, err := s.Evict(ctx, &api.Eviction{Metadata: api.ObjectMeta{Namespace: "default", Name: "p"}, DeleteOptions: tt.opts})
			require.NoError(t, err)
			after, err := client.For[*api.Pod](s).Get(ctx, "default", "p")
			require.NoError(t, err)
			assert.Equal(t, tt.want, target(after))
		})
	}
}

// TestEvictConsultsTheBudget evicts a pod a PodDisruptionBudget selects,
// on each of kube-apiserver's paths: the status code, reason, message and
// DisruptionBudget cause of a refusal (and nothing written), and the
// budget's status after an eviction it allows.
func TestEvictConsultsTheBudget(t *testing.T) {
	web := map[string]string{"app": "web"}
	type podState struct {
		phase    api.PodPhase
		ready    bool
		deleting bool
	}
	running, unready := podState{phase: api.PodRunning, ready: true}, podState{phase: api.PodRunning}
	st := func(allowed, current, desired int32) api.PodDisruptionBudgetStatus {
		return api.PodDisruptionBudgetStatus{DisruptionsAllowed: allowed, CurrentHealthy: current, DesiredHealthy: desired, ExpectedPods: current, ObservedGeneration: 1}
	}
	cause := func(msg string) []api.StatusCause {
		return []api.StatusCause{{Type: api.DisruptionBudgetCause, Message: msg}}
	}
	for _, tt := range []struct {
		name        string
		pod         podState
		budgets     int // budgets selecting the pod, named pdb, pdb2
		status      api.PodDisruptionBudgetStatus
		policy      string
		dryRun      bool
		wantCode    int32
		wantReason  api.StatusReason
		wantMsg     string
		wantCauses  []api.StatusCause
		wantRetry   int32
		wantAllowed int32 // the budget's disruptionsAllowed afterwards
		wantSpent   bool  // the pod is in the budget's disruptedPods
	}{
		{name: "no budget: the pod goes", pod: running},
		{name: "a budget that allows it: spent, then the pod goes", pod: running, budgets: 1, status: st(2, 3, 1), wantAllowed: 1, wantSpent: true},
		{name: "a budget that allows none", pod: running, budgets: 1, status: st(0, 2, 2),
			wantCode: 429, wantReason: api.StatusReasonTooManyRequests, wantMsg: "Cannot evict pod as it would violate the pod's disruption budget.",
			wantCauses: cause("The disruption budget pdb needs 2 healthy pods and has 2 currently")},
		{name: "a budget not yet observed", pod: running, budgets: 1, status: func() api.PodDisruptionBudgetStatus { s := st(5, 5, 0); s.ObservedGeneration = 0; return s }(),
			wantCode: 429, wantReason: api.StatusReasonTooManyRequests, wantMsg: "Cannot evict pod as it would violate the pod's disruption budget.",
			wantCauses: cause("The disruption budget pdb is still being processed by the server."), wantRetry: 10, wantAllowed: 5},
		{name: "a negative budget", pod: running, budgets: 1, status: st(-1, 0, 1),
			wantCode: 403, wantReason: api.StatusReasonForbidden, wantMsg: `poddisruptionbudget.policy "pdb" is forbidden: pdb disruptions allowed is negative`, wantAllowed: -1},
		{name: "two budgets", pod: running, budgets: 2, status: st(2, 3, 1),
			wantCode: 500, wantMsg: "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.", wantAllowed: 2},
		{name: "a pending pod ignores the budget", pod: podState{phase: api.PodPending}, budgets: 1, status: st(0, 2, 2)},
		{name: "a finished pod ignores the budget", pod: podState{phase: api.PodSucceeded}, budgets: 1, status: st(0, 2, 2)},
		{name: "a failed pod ignores the budget", pod: podState{phase: api.PodFailed}, budgets: 1, status: st(0, 2, 2)},
		{name: "an unready pod while the budget is healthy spends nothing", pod: unready, budgets: 1, status: st(0, 2, 2)},
		{name: "an unready pod while the budget is short is refused", pod: unready, budgets: 1, status: st(0, 1, 2),
			wantCode: 429, wantReason: api.StatusReasonTooManyRequests, wantMsg: "Cannot evict pod as it would violate the pod's disruption budget.",
			wantCauses: cause("The disruption budget pdb needs 2 healthy pods and has 1 currently")},
		{name: "an unready pod under AlwaysAllow goes whatever the budget", pod: unready, budgets: 1, status: st(0, 1, 2), policy: api.AlwaysAllow},
		{name: "an unready pod under IfHealthyBudget while short is refused", pod: unready, budgets: 1, status: st(0, 1, 2), policy: api.IfHealthyBudget,
			wantCode: 429, wantReason: api.StatusReasonTooManyRequests, wantMsg: "Cannot evict pod as it would violate the pod's disruption budget.",
			wantCauses: cause("The disruption budget pdb needs 2 healthy pods and has 1 currently")},
		{name: "a dry run spends nothing", pod: running, budgets: 1, status: st(2, 3, 1), dryRun: true, wantAllowed: 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, clk := newServer(t)
			p := mustCreate(t, s, pod("default", "p", web))
			p = p.DeepCopy()
			p.Status.Phase = tt.pod.phase
			if tt.pod.ready {
				p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue}}
			}
			_, err := s.UpdateStatus(ctx, p)
			require.NoError(t, err)
			for i := range tt.budgets {
				name := "pdb"
				if i > 0 {
					name = fmt.Sprintf("pdb%d", i+1)
				}
				pdb := &api.PodDisruptionBudget{Metadata: api.ObjectMeta{Namespace: "default", Name: name},
					Spec: api.PodDisruptionBudgetSpec{MinAvailable: &api.IntOrString{IntVal: 1}, Selector: &api.LabelSelector{MatchLabels: web}}}
				if tt.policy != "" {
					pdb.Spec.UnhealthyPodEvictionPolicy = ptr(tt.policy)
				}
				pdb = mustCreate(t, s, pdb).DeepCopy()
				pdb.Status = tt.status
				_, err := s.UpdateStatus(ctx, pdb)
				require.NoError(t, err)
			}
			clk.Step(time.Minute)
			rev := s.Store().Rev()
			ev := &api.Eviction{Metadata: api.ObjectMeta{Namespace: "default", Name: "p"}, DeleteOptions: &api.DeleteOptions{GracePeriodSeconds: ptr(int64(0))}}
			if tt.dryRun {
				ev.DeleteOptions.DryRun = []string{api.DryRunAll}
			}

			_, err = s.Evict(ctx, ev)
			_, getErr := s.Get(ctx, client.Pods, "default", "p", client.GetOptions{})
			if tt.wantCode != 0 {
				require.Error(t, err)
				got := apierrors.StatusOf(err)
				assert.Equal(t, tt.wantCode, got.Code)
				assert.Equal(t, tt.wantReason, got.Reason)
				assert.Equal(t, tt.wantMsg, got.Message)
				if got.Details != nil {
					assert.Equal(t, tt.wantCauses, got.Details.Causes)
					assert.Equal(t, tt.wantRetry, got.Details.RetryAfterSeconds)
				}
				assert.Equal(t, rev, s.Store().Rev(), "a refusal writes nothing")
				require.NoError(t, getErr, "the pod stays")
			} else {
				require.NoError(t, err)
				if tt.dryRun {
					require.NoError(t, getErr)
					assert.Equal(t, rev, s.Store().Rev(), "a dry run writes nothing")
				} else {
					assert.True(t, apierrors.IsNotFound(getErr), "the pod is gone, got %v", getErr)
				}
			}
			if tt.budgets == 0 {
				return
			}
			o, err := s.Get(ctx, client.PodDisruptionBudgets, "default", "pdb", client.GetOptions{})
			require.NoError(t, err)
			after := o.(*api.PodDisruptionBudget).Status
			if tt.wantCode == 0 && !tt.wantSpent {
				tt.wantAllowed = tt.status.DisruptionsAllowed
			}
			assert.Equal(t, tt.wantAllowed, after.DisruptionsAllowed)
			if tt.wantSpent {
				assert.Equal(t, map[string]api.Time{"p": api.NewTime(clk.Now())}, after.DisruptedPods)
			} else {
				assert.Empty(t, after.DisruptedPods)
			}
		})
	}
}

// TestEvictSpendingTheLastDisruptionSaysSo: the decrement to zero sets
// DisruptionAllowed False, as upstream's checkAndDecrement does.
func TestEvictSpendingTheLastDisruptionSaysSo(t *testing.T) {
	s, _ := newServer(t)
	web := map[string]string{"app": "web"}
	for _, name := range []string{"a", "b"} {
		p := mustCreate(t, s, pod("default", name, web)).DeepCopy()
		p.Status.Phase = api.PodRunning
		p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue}}
		_, err := s.UpdateStatus(ctx, p)
		require.NoError(t, err)
	}
	pdb := mustCreate(t, s, &api.PodDisruptionBudget{Metadata: api.ObjectMeta{Namespace: "default", Name: "pdb"},
		Spec: api.PodDisruptionBudgetSpec{MinAvailable: &api.IntOrString{IntVal: 1}, Selector: &api.LabelSelector{MatchLabels: web}}}).DeepCopy()
	pdb.Status = api.PodDisruptionBudgetStatus{DisruptionsAllowed: 1, CurrentHealthy: 2, DesiredHealthy: 1, ExpectedPods: 2, ObservedGeneration: 1,
		Conditions: []api.Condition{{Type: api.DisruptionAllowedCondition, Status: api.ConditionTrue, Reason: api.SufficientPodsReason, ObservedGeneration: 1}}}
	_, err := s.UpdateStatus(ctx, pdb)
	require.NoError(t, err)

	_, err = s.Evict(ctx, &api.Eviction{Metadata: api.ObjectMeta{Namespace: "default", Name: "a"}})
	require.NoError(t, err)
	o, err := s.Get(ctx, client.PodDisruptionBudgets, "default", "pdb", client.GetOptions{})
	require.NoError(t, err)
	c := api.FindStatusCondition(o.(*api.PodDisruptionBudget).Status.Conditions, api.DisruptionAllowedCondition)
	require.NotNil(t, c)
	assert.Equal(t, api.ConditionFalse, c.Status)
	assert.Equal(t, api.InsufficientPodsReason, c.Reason)

	_, err = s.Evict(ctx, &api.Eviction{Metadata: api.ObjectMeta{Namespace: "default", Name: "b"}})
	assert.True(t, apierrors.IsTooManyRequests(err), "the second eviction finds the budget spent: %v", err)
}
