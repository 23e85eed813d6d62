package clusterroleaggregation

import (
	"reflect"
	"slices"
	"strings"

	"github.com/miniplane/miniplane/api"
)

// Aggregate returns the rules role aggregates from roles: for each of its
// selectors in order, the matching roles by name (role itself excepted),
// each rule once, in the order first met. ok is false when role does not
// aggregate or a selector does not parse. Kubernetes: syncClusterRole's
// loop and ruleExists.
func Aggregate(role *api.ClusterRole, roles []*api.ClusterRole) (rules []api.PolicyRule, ok bool) {
	if role.AggregationRule == nil {
		return nil, false
	}
	sorted := slices.Clone(roles)
	slices.SortFunc(sorted, func(a, b *api.ClusterRole) int { return strings.Compare(a.Metadata.Name, b.Metadata.Name) })
	rules = []api.PolicyRule{}
	for i := range role.AggregationRule.ClusterRoleSelectors {
		sel, err := api.LabelSelectorAsSelector(&role.AggregationRule.ClusterRoleSelectors[i])
		if err != nil {
			return nil, false
		}
		for _, r := range sorted {
			if r.Metadata.Name == role.Metadata.Name || !sel.Matches(r.Metadata.Labels) {
				continue
			}
			for _, rule := range r.Rules {
				if !slices.ContainsFunc(rules, func(have api.PolicyRule) bool { return sameRule(have, rule) }) {
					rules = append(rules, rule)
				}
			}
		}
	}
	return rules, true
}

// sameRule compares rules as Kubernetes' equality.Semantic does: an empty
// list is a missing one.
func sameRule(a, b api.PolicyRule) bool {
	return sameList(a.Verbs, b.Verbs) && sameList(a.APIGroups, b.APIGroups) && sameList(a.Resources, b.Resources) &&
		sameList(a.ResourceNames, b.ResourceNames) && sameList(a.NonResourceURLs, b.NonResourceURLs)
}

func sameList(a, b []string) bool { return len(a) == 0 && len(b) == 0 || reflect.DeepEqual(a, b) }

// SameRules reports whether two rule lists are equal, an empty list being
// a missing one.
func SameRules(a, b []api.PolicyRule) bool {
	return slices.EqualFunc(a, b, sameRule)
}
