package clusterroleaggregation_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/controllers/clusterroleaggregation"
)

func role(name string, labels map[string]string, rules ...api.PolicyRule) *api.ClusterRole {
	return &api.ClusterRole{Metadata: api.ObjectMeta{Name: name, Labels: labels}, Rules: rules}
}

func aggregating(name string, labels ...map[string]string) *api.ClusterRole {
	r := role(name, nil)
	r.AggregationRule = &api.AggregationRule{}
	for _, l := range labels {
		r.AggregationRule.ClusterRoleSelectors = append(r.AggregationRule.ClusterRoleSelectors, api.LabelSelector{MatchLabels: l})
	}
	return r
}

func verbRule(verb string) api.PolicyRule {
	return api.PolicyRule{Verbs: []string{verb}, APIGroups: []string{""}, Resources: []string{"pods"}}
}

// TestAggregate ports the scenarios of Kubernetes'
// clusterroleaggregation_controller_test.go TestSyncClusterRole.
func TestAggregate(t *testing.T) {
	hammer := map[string]string{"foo": "bar"}
	other := map[string]string{"foo": "other"}
	tests := []struct {
		name   string
		target *api.ClusterRole
		roles  []*api.ClusterRole
		want   []api.PolicyRule
		ok     bool
	}{
		{name: "not aggregating", target: role("plain", nil), ok: false},
		{name: "nothing selected", target: aggregating("target", hammer),
			roles: []*api.ClusterRole{role("one", other, verbRule("get"))}, want: []api.PolicyRule{}, ok: true},
		{name: "union by name, duplicates once", target: aggregating("target", hammer),
			roles: []*api.ClusterRole{role("two", hammer, verbRule("list"), verbRule("get")), role("one", hammer, verbRule("get"))},
			want:  []api.PolicyRule{verbRule("get"), verbRule("list")}, ok: true},
		{name: "selectors in order", target: aggregating("target", other, hammer),
			roles: []*api.ClusterRole{role("a", hammer, verbRule("get")), role("b", other, verbRule("watch"))},
			want:  []api.PolicyRule{verbRule("watch"), verbRule("get")}, ok: true},
		{name: "itself skipped", target: func() *api.ClusterRole {
			r := aggregating("target", hammer)
			r.Metadata.Labels = hammer
			r.Rules = []api.PolicyRule{verbRule("delete")}
			return r
		}(), roles: []*api.ClusterRole{role("one", hammer, verbRule("get"))}, want: []api.PolicyRule{verbRule("get")}, ok: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := clusterroleaggregation.Aggregate(tt.target, append(tt.roles, tt.target))
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestSameRules(t *testing.T) {
	a := api.PolicyRule{Verbs: []string{"get"}, ResourceNames: []string{}}
	b := api.PolicyRule{Verbs: []string{"get"}}
	assert.True(t, clusterroleaggregation.SameRules([]api.PolicyRule{a}, []api.PolicyRule{b}), "empty is missing")
	assert.True(t, clusterroleaggregation.SameRules(nil, []api.PolicyRule{}))
	assert.False(t, clusterroleaggregation.SameRules([]api.PolicyRule{a}, []api.PolicyRule{verbRule("get")}))
}
