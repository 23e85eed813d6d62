package rbac

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/miniplane/miniplane/api"
)

// TestCovers ports the scenarios of Kubernetes' TestCoversExactMatch and
// its neighbours (component-helpers auth/rbac/validation).
func TestCovers(t *testing.T) {
	r := func(verbs, groups, resources []string) api.PolicyRule {
		return api.PolicyRule{Verbs: verbs, APIGroups: groups, Resources: resources}
	}
	s := func(v ...string) []string { return v }
	tests := []struct {
		name        string
		owner       []api.PolicyRule
		servant     []api.PolicyRule
		wantCovered bool
		wantMissing []api.PolicyRule
	}{
		{name: "exact match", owner: []api.PolicyRule{r(s("get"), s("v1"), s("builds"))}, servant: []api.PolicyRule{r(s("get"), s("v1"), s("builds"))}, wantCovered: true},
		{name: "sub-resource wildcard", owner: []api.PolicyRule{r(s("get"), s("v1"), s("*/scale"))}, servant: []api.PolicyRule{r(s("get"), s("v1"), s("foo/scale"))}, wantCovered: true},
		{name: "sub-resource wildcard does not cover the resource", owner: []api.PolicyRule{r(s("get"), s("v1"), s("*/scale"))}, servant: []api.PolicyRule{r(s("get"), s("v1"), s("foo"))},
			wantMissing: []api.PolicyRule{r(s("get"), s("v1"), s("foo"))}},
		{name: "verb wildcard", owner: []api.PolicyRule{r(s("*"), s("v1"), s("builds"))}, servant: []api.PolicyRule{r(s("get", "delete"), s("v1"), s("builds"))}, wantCovered: true},
		{name: "missing verb", owner: []api.PolicyRule{r(s("get"), s("v1"), s("builds"))}, servant: []api.PolicyRule{r(s("get", "delete"), s("v1"), s("builds"))},
			wantMissing: []api.PolicyRule{r(s("delete"), s("v1"), s("builds"))}},
		{name: "split across owner rules", owner: []api.PolicyRule{r(s("get"), s("v1"), s("builds")), r(s("delete"), s("v1"), s("builds"))},
			servant: []api.PolicyRule{r(s("get", "delete"), s("v1"), s("builds"))}, wantCovered: true},
		{name: "resource names restrict the owner", owner: []api.PolicyRule{{Verbs: s("get"), APIGroups: s("v1"), Resources: s("builds"), ResourceNames: s("foo")}},
			servant:     []api.PolicyRule{r(s("get"), s("v1"), s("builds"))},
			wantMissing: []api.PolicyRule{r(s("get"), s("v1"), s("builds"))}},
		{name: "resource names covered", owner: []api.PolicyRule{{Verbs: s("get"), APIGroups: s("v1"), Resources: s("builds"), ResourceNames: s("foo", "bar")}},
			servant: []api.PolicyRule{{Verbs: s("get"), APIGroups: s("v1"), Resources: s("builds"), ResourceNames: s("foo")}}, wantCovered: true},
		{name: "non-resource URL prefix", owner: []api.PolicyRule{{Verbs: s("get"), NonResourceURLs: s("/apis/*")}},
			servant: []api.PolicyRule{{Verbs: s("get"), NonResourceURLs: s("/apis/v1", "/apis/apps/v1")}}, wantCovered: true},
		{name: "non-resource URL outside the prefix", owner: []api.PolicyRule{{Verbs: s("get"), NonResourceURLs: s("/apis/*")}},
			servant: []api.PolicyRule{{Verbs: s("get"), NonResourceURLs: s("/healthz")}}, wantMissing: []api.PolicyRule{{Verbs: s("get"), NonResourceURLs: s("/healthz")}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			covered, missing := Covers(tt.owner, tt.servant)
			assert.Equal(t, tt.wantCovered, covered)
			assert.Equal(t, tt.wantMissing, missing)
		})
	}
}

func TestConfirmNoEscalationMessage(t *testing.T) {
	owner := []api.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}}
	err := ConfirmNoEscalation(User{Name: "jane", Groups: []string{"system:authenticated"}}, owner, []api.PolicyRule{
		{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{"", "apps"}, Resources: []string{"pods", "deployments"}},
		{Verbs: []string{"get"}, NonResourceURLs: []string{"/metrics"}},
	})
	assert.EqualError(t, err, `user "jane" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:
{APIGroups:[""], Resources:["deployments"], Verbs:["get" "list" "watch"]}
{APIGroups:[""], Resources:["pods"], Verbs:["list" "watch"]}
{APIGroups:["apps"], Resources:["deployments"], Verbs:["get" "list" "watch"]}
{APIGroups:["apps"], Resources:["pods"], Verbs:["get" "list" "watch"]}
{NonResourceURLs:["/metrics"], Verbs:["get"]}`)
	assert.NoError(t, ConfirmNoEscalation(User{Name: "jane"}, owner, owner[:1]))
}

func TestEscalationAllowed(t *testing.T) {
	assert.True(t, EscalationAllowed(User{Name: "admin", Groups: []string{GroupMasters}}))
	assert.False(t, EscalationAllowed(User{Name: "jane", Groups: []string{GroupAuthenticated}}))
}
