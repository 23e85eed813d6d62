package api

import "time"

// The DisruptionAllowed condition of a PodDisruptionBudget and its reasons.
// Kubernetes: the constants of policy/v1.
const (
	// DisruptionAllowedCondition is True when the budget allows at least one
	// disruption now.
	DisruptionAllowedCondition = "DisruptionAllowed"
	// SufficientPodsReason: more healthy pods than the budget needs.
	SufficientPodsReason = "SufficientPods"
	// InsufficientPodsReason: no more healthy pods than the budget needs.
	InsufficientPodsReason = "InsufficientPods"
	// SyncFailedReason: the disruption controller could not compute the
	// budget's status, and allows no disruption until it can.
	SyncFailedReason = "SyncFailed"
	// DisruptionBudgetCause is the cause type of an eviction refused by a
	// budget.
	DisruptionBudgetCause = "DisruptionBudget"
)

// The values of PodDisruptionBudgetSpec.UnhealthyPodEvictionPolicy.
const (
	// IfHealthyBudget evicts a running but not ready pod only while the
	// budget has its healthy pods (the default).
	IfHealthyBudget = "IfHealthyBudget"
	// AlwaysAllow evicts a running but not ready pod whatever the budget.
	AlwaysAllow = "AlwaysAllow"
)

// SetStatusCondition sets c in conds: in place when a condition of its type
// is there (its LastTransitionTime moves to now only when its status
// changes), appended otherwise. Kubernetes: meta.SetStatusCondition.
func SetStatusCondition(conds *[]Condition, c Condition, now time.Time) {
	for i := range *conds {
		old := &(*conds)[i]
		if old.Type != c.Type {
			continue
		}
		if old.Status != c.Status {
			old.Status = c.Status
			old.LastTransitionTime = NewTime(now)
		}
		old.Reason, old.Message, old.ObservedGeneration = c.Reason, c.Message, c.ObservedGeneration
		return
	}
	if c.LastTransitionTime.IsZero() {
		c.LastTransitionTime = NewTime(now)
	}
	*conds = append(*conds, c)
}

// FindStatusCondition returns the condition of type typ, or nil.
// Kubernetes: meta.FindStatusCondition.
func FindStatusCondition(conds []Condition, typ string) *Condition {
	for i := range conds {
		if conds[i].Type == typ {
			return &conds[i]
		}
	}
	return nil
}

// UpdateDisruptionAllowedCondition sets pdb's DisruptionAllowed condition
// from its status: True (SufficientPods) when it allows a disruption, False
// (InsufficientPods) otherwise. pdb is changed in place: pass a copy.
// Kubernetes: UpdateDisruptionAllowedCondition in
// k8s.io/component-helpers/apps/poddisruptionbudget.
func UpdateDisruptionAllowedCondition(pdb *PodDisruptionBudget, now time.Time) {
	c := Condition{
		Type: DisruptionAllowedCondition, Status: ConditionFalse, Reason: InsufficientPodsReason,
		ObservedGeneration: pdb.Status.ObservedGeneration,
	}
	if pdb.Status.DisruptionsAllowed > 0 {
		c.Status, c.Reason = ConditionTrue, SufficientPodsReason
	}
	SetStatusCondition(&pdb.Status.Conditions, c, now)
}

// DisruptionConditionUpToDate reports whether pdb's DisruptionAllowed
// condition agrees with its status and its status with its generation.
// Kubernetes: ConditionsAreUpToDate in component-helpers.
func DisruptionConditionUpToDate(pdb *PodDisruptionBudget) bool {
	c := FindStatusCondition(pdb.Status.Conditions, DisruptionAllowedCondition)
	if c == nil || pdb.Status.ObservedGeneration != pdb.Metadata.Generation {
		return false
	}
	if pdb.Status.DisruptionsAllowed > 0 {
		return c.Status == ConditionTrue && c.Reason == SufficientPodsReason
	}
	return c.Status == ConditionFalse && c.Reason == InsufficientPodsReason
}

// BudgetSelects reports whether pdb guards pods labelled labels against
// eviction: an invalid, missing or empty selector guards nothing here (the
// disruption controller, by policy/v1's rule, counts every pod for an empty
// one). Kubernetes: EvictionREST's getPodDisruptionBudgets.
func BudgetSelects(pdb *PodDisruptionBudget, labels map[string]string) bool {
	if pdb.Spec.Selector == nil {
		return false
	}
	sel, err := LabelSelectorAsSelector(pdb.Spec.Selector)
	return err == nil && !sel.Empty() && sel.Matches(labels)
}
