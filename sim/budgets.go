package sim

import (
	"context"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/controllers/disruption"
)

// checkBudgets enforces, when the system is quiet, that every
// PodDisruptionBudget whose status reflects its spec counts its healthy
// pods as the store holds them and allows no more disruptions than it has
// healthy pods beyond those it needs (budget-status): an eviction trusts
// that figure.
func (s *Sim) checkBudgets(ctx context.Context) error {
	l, err := s.srv.List(ctx, client.PodDisruptionBudgets, "", client.ListOptions{})
	if err != nil {
		return err
	}
	for _, o := range l.Items {
		pdb := o.(*api.PodDisruptionBudget)
		st := &pdb.Status
		if st.ObservedGeneration != pdb.Metadata.Generation {
			return failed("budget-status", "PodDisruptionBudget %s: observedGeneration %d, generation %d",
				api.KeyOf(&pdb.Metadata), st.ObservedGeneration, pdb.Metadata.Generation)
		}
		if st.DisruptionsAllowed > max(0, st.CurrentHealthy-st.DesiredHealthy) {
			return failed("budget-status", "PodDisruptionBudget %s allows %d disruptions with %d healthy of %d desired",
				api.KeyOf(&pdb.Metadata), st.DisruptionsAllowed, st.CurrentHealthy, st.DesiredHealthy)
		}
		var selected []*api.Pod
		for _, p := range s.pods(pdb.Metadata.Namespace) {
			if disruption.Selects(pdb, p.Metadata.Labels) {
				selected = append(selected, p)
			}
		}
		if n := disruption.CountHealthy(selected, st.DisruptedPods, s.clock.Now()); n != st.CurrentHealthy {
			return failedOn([]string{"PodDisruptionBudget " + api.KeyOf(&pdb.Metadata)}, "budget-status",
				"PodDisruptionBudget %s says %d healthy pods; the store has %d", api.KeyOf(&pdb.Metadata), st.CurrentHealthy, n)
		}
	}
	return nil
}
