package rbac

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/miniplane/miniplane/api"
)

// Escalation prevention: kube-apiserver refuses to store a role granting
// what its writer does not hold, or a binding to a role its writer could
// not grant, unless the writer may "escalate" the role or "bind" it
// (Kubernetes: pkg/registry/rbac/escalation_check.go, role/policybased,
// rolebinding/policybased and validation.ConfirmNoEscalation). The HTTP
// front applies it under --authorization-mode=RBAC; the functions here are
// the rule arithmetic.

// RoleRefRules returns the rules of the role a binding in namespace refers
// to. Kubernetes: GetRoleReferenceRules.
func (z *Authorizer) RoleRefRules(ctx context.Context, ref api.RoleRef, namespace string) ([]api.PolicyRule, error) {
	return z.roleRules(ctx, ref, namespace)
}

// EscalationAllowed reports whether u escapes every escalation check: a
// member of system:masters. Kubernetes: EscalationAllowed.
func EscalationAllowed(u User) bool { return slices.Contains(u.Groups, GroupMasters) }

// ConfirmNoEscalation returns nil when owner's rules cover every one of
// rules, else the error kube-apiserver words, listing the missing
// permissions one compact rule a line, sorted.
func ConfirmNoEscalation(u User, owner, rules []api.PolicyRule) error {
	covered, missing := Covers(owner, rules)
	if covered {
		return nil
	}
	var lines []string
	for _, r := range CompactRules(missing) {
		if line := CompactString(r); !slices.Contains(lines, line) {
			lines = append(lines, line)
		}
	}
	slices.Sort(lines)
	groups := u.Groups
	if groups == nil {
		groups = []string{}
	}
	return fmt.Errorf("user %q (groups=%q) is attempting to grant RBAC permissions not currently held:\n%s", u.Name, groups, strings.Join(lines, "\n"))
}

// Covers reports whether owner's rules cover every rule of servant, and
// the single-verb, single-resource rules they do not. Kubernetes:
// validation.Covers.
func Covers(owner, servant []api.PolicyRule) (bool, []api.PolicyRule) {
	var uncovered []api.PolicyRule
	for _, s := range servant {
		for _, sub := range BreakdownRule(s) {
			if !slices.ContainsFunc(owner, func(o api.PolicyRule) bool { return ruleCovers(o, sub) }) {
				uncovered = append(uncovered, sub)
			}
		}
	}
	return len(uncovered) == 0, uncovered
}

// BreakdownRule splits a rule into rules of one group, resource, verb and
// resource name each, and one non-resource URL and verb each.
// Kubernetes: BreakdownRule.
func BreakdownRule(r api.PolicyRule) []api.PolicyRule {
	var out []api.PolicyRule
	for _, g := range r.APIGroups {
		for _, res := range r.Resources {
			for _, v := range r.Verbs {
				if len(r.ResourceNames) == 0 {
					out = append(out, api.PolicyRule{APIGroups: []string{g}, Resources: []string{res}, Verbs: []string{v}})
					continue
				}
				for _, n := range r.ResourceNames {
					out = append(out, api.PolicyRule{APIGroups: []string{g}, Resources: []string{res}, Verbs: []string{v}, ResourceNames: []string{n}})
				}
			}
		}
	}
	for _, u := range r.NonResourceURLs {
		for _, v := range r.Verbs {
			out = append(out, api.PolicyRule{NonResourceURLs: []string{u}, Verbs: []string{v}})
		}
	}
	return out
}

// ruleCovers reports whether owner covers sub, a rule from BreakdownRule.
// Kubernetes: ruleCovers.
func ruleCovers(owner, sub api.PolicyRule) bool {
	verbs := slices.Contains(owner.Verbs, "*") || hasAll(owner.Verbs, sub.Verbs)
	groups := slices.Contains(owner.APIGroups, "*") || hasAll(owner.APIGroups, sub.APIGroups)
	names := len(owner.ResourceNames) == 0 || len(sub.ResourceNames) > 0 && hasAll(owner.ResourceNames, sub.ResourceNames)
	return verbs && groups && resourcesCover(owner.Resources, sub.Resources) && names && urlsCover(owner.NonResourceURLs, sub.NonResourceURLs)
}

func hasAll(set, want []string) bool {
	for _, w := range want {
		if !slices.Contains(set, w) {
			return false
		}
	}
	return true
}

// resourcesCover: "*", the resource itself, or "*/subresource".
func resourcesCover(set, want []string) bool {
	if slices.Contains(set, "*") {
		return true
	}
	for _, p := range want {
		if slices.Contains(set, p) {
			continue
		}
		_, sub, ok := strings.Cut(p, "/")
		if !ok || !slices.Contains(set, "*/"+sub) {
			return false
		}
	}
	return true
}

// urlsCover: each path equal to an owner path or under one ending in "*".
func urlsCover(set, want []string) bool {
	for _, p := range want {
		if !slices.ContainsFunc(set, func(o string) bool {
			return o == p || strings.HasSuffix(o, "*") && strings.HasPrefix(p, strings.TrimRight(o, "*"))
		}) {
			return false
		}
	}
	return true
}

// CompactRules merges rules of one group, resource and at most one
// resource name into one rule with all their verbs, in first-seen order.
// Kubernetes: validation.CompactRules.
func CompactRules(rules []api.PolicyRule) []api.PolicyRule {
	type simple struct {
		group, resource, name string
		named                 bool
	}
	var out []api.PolicyRule
	at := map[simple]int{}
	for _, r := range rules {
		if len(r.ResourceNames) > 1 || len(r.NonResourceURLs) > 0 || len(r.APIGroups) != 1 || len(r.Resources) != 1 {
			out = append(out, r)
			continue
		}
		key := simple{group: r.APIGroups[0], resource: r.Resources[0]}
		if len(r.ResourceNames) == 1 {
			key.name, key.named = r.ResourceNames[0], true
		}
		if i, ok := at[key]; ok {
			out[i].Verbs = append(slices.Clip(out[i].Verbs), r.Verbs...)
			continue
		}
		at[key] = len(out)
		out = append(out, *r.DeepCopy())
	}
	return out
}

// CompactString is a rule as the escalation error lists it:
// {APIGroups:["apps"], Resources:["deployments"], Verbs:["get" "list"]}.
// Kubernetes: rbacv1helpers.CompactString.
func CompactString(r api.PolicyRule) string {
	var parts []string
	for _, f := range []struct {
		name   string
		values []string
	}{{"APIGroups", r.APIGroups}, {"Resources", r.Resources}, {"NonResourceURLs", r.NonResourceURLs}, {"ResourceNames", r.ResourceNames}, {"Verbs", r.Verbs}} {
		if len(f.values) > 0 {
			parts = append(parts, fmt.Sprintf("%s:%q", f.name, f.values))
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
