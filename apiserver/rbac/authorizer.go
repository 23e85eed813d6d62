package rbac

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
)

// Well-known users and groups. Kubernetes: k8s.io/apiserver's
// authentication/user and serviceaccount packages.
const (
	// GroupMasters is the group every action is allowed to, through the
	// default cluster-admin binding.
	GroupMasters = "system:masters"
	// GroupAuthenticated is every authenticated user's group.
	GroupAuthenticated = "system:authenticated"
	// GroupUnauthenticated is the anonymous user's group.
	GroupUnauthenticated = "system:unauthenticated"
	// UserAnonymous is who a request without credentials is.
	UserAnonymous = "system:anonymous"
	// GroupServiceAccounts is every service account's group.
	GroupServiceAccounts = "system:serviceaccounts"
	// serviceAccountPrefix starts a service account's user name.
	serviceAccountPrefix = "system:serviceaccount:"
)

// User is who a request is, as authentication found. Kubernetes:
// user.Info.
type User struct {
	// Name is the user name ("jane", "system:serviceaccount:ns:sa").
	Name string
	// UID is the user's uid, when the authenticator knows one.
	UID string
	// Groups are the user's groups.
	Groups []string
	// Extra is what the authenticator adds about the user (a token's id,
	// the pod and node it is bound to); the authorizer does not read it.
	Extra map[string][]string
}

// ServiceAccountUser is the user a service account's token authenticates
// as: its name, uid and groups. Kubernetes: serviceaccount.UserInfo.
func ServiceAccountUser(namespace, name, uid string) User {
	return User{Name: ServiceAccountUserName(namespace, name), UID: uid,
		Groups: []string{GroupServiceAccounts, GroupServiceAccounts + ":" + namespace, GroupAuthenticated}}
}

// ServiceAccountUserName is "system:serviceaccount:NAMESPACE:NAME".
func ServiceAccountUserName(namespace, name string) string {
	return serviceAccountPrefix + namespace + ":" + name
}

// SplitServiceAccountUserName returns the namespace and name of a service
// account's user name, and whether it is one. Kubernetes:
// serviceaccount.SplitUsername.
func SplitServiceAccountUserName(user string) (namespace, name string, ok bool) {
	rest, ok := strings.CutPrefix(user, serviceAccountPrefix)
	if !ok {
		return "", "", false
	}
	namespace, name, ok = strings.Cut(rest, ":")
	if !ok || namespace == "" || name == "" || strings.Contains(name, ":") {
		return "", "", false
	}
	return namespace, name, true
}

// Attributes are what a request asks: a verb on a resource (of an API
// group, in a namespace, perhaps one object or a subresource), or a verb
// on a non-resource path. Kubernetes: authorizer.Attributes.
type Attributes struct {
	User User
	// Verb is "get", "list", "watch", "create", "update", "patch",
	// "delete", "deletecollection", "impersonate", ...
	Verb string
	// ResourceRequest says the request is for a resource; otherwise Path
	// is what it asks for.
	ResourceRequest bool
	Namespace       string
	APIGroup        string
	APIVersion      string
	Resource        string
	Subresource     string
	Name            string
	Path            string
}

// Source gives the roles and bindings the authorizer reads. The objects
// are shared: never change them.
type Source interface {
	ClusterRoleBindings(ctx context.Context) ([]*api.ClusterRoleBinding, error)
	RoleBindings(ctx context.Context, namespace string) ([]*api.RoleBinding, error)
	ClusterRole(ctx context.Context, name string) (*api.ClusterRole, error)
	Role(ctx context.Context, namespace, name string) (*api.Role, error)
}

// FromClient reads roles and bindings through c.
func FromClient(c client.Client) Source { return clientSource{c} }

type clientSource struct{ c client.Client }

func (s clientSource) ClusterRoleBindings(ctx context.Context) ([]*api.ClusterRoleBinding, error) {
	items, _, err := client.For[*api.ClusterRoleBinding](s.c).List(ctx, "", client.ListOptions{})
	return items, err
}

func (s clientSource) RoleBindings(ctx context.Context, namespace string) ([]*api.RoleBinding, error) {
	items, _, err := client.For[*api.RoleBinding](s.c).List(ctx, namespace, client.ListOptions{})
	return items, err
}

func (s clientSource) ClusterRole(ctx context.Context, name string) (*api.ClusterRole, error) {
	return client.For[*api.ClusterRole](s.c).Get(ctx, "", name)
}

func (s clientSource) Role(ctx context.Context, namespace, name string) (*api.Role, error) {
	return client.For[*api.Role](s.c).Get(ctx, namespace, name)
}

// Authorizer decides requests from RBAC roles and bindings. Create it with
// New.
type Authorizer struct{ src Source }

// New returns an Authorizer over src.
func New(src Source) *Authorizer { return &Authorizer{src: src} }

// Authorize reports whether a's user may do what a asks: the cluster role
// bindings are tried first, then the role bindings of a's namespace; the
// first rule that allows it decides, and the reason names the binding, as
// kube-apiserver's does ("RBAC: allowed by ClusterRoleBinding "x" of
// ClusterRole "y" to User "z""). A denial's reason lists the bindings
// that could not be resolved, or is empty. Kubernetes:
// RBACAuthorizer.Authorize.
func (z *Authorizer) Authorize(ctx context.Context, a Attributes) (allowed bool, reason string) {
	var errs []error
	z.visitRules(ctx, a.User, a.Namespace, func(source fmt.Stringer, rule *api.PolicyRule, err error) bool {
		if err != nil {
			errs = append(errs, err)
			return true
		}
		if RuleAllows(a, rule) {
			reason = "RBAC: allowed by " + source.String()
			allowed = true
			return false
		}
		return true
	})
	if allowed {
		return true, reason
	}
	if len(errs) > 0 {
		return false, "RBAC: " + aggregate(errs)
	}
	return false, ""
}

// Rules returns every rule granted to user in namespace (the cluster role
// bindings' and the namespace's role bindings'), and whether some binding
// could not be resolved (the list is then incomplete). Kubernetes:
// RBACAuthorizer.RulesFor.
func (z *Authorizer) Rules(ctx context.Context, user User, namespace string) (rules []api.PolicyRule, incomplete bool) {
	z.visitRules(ctx, user, namespace, func(_ fmt.Stringer, rule *api.PolicyRule, err error) bool {
		if err != nil {
			incomplete = true
			return true
		}
		rules = append(rules, *rule)
		return true
	})
	return rules, incomplete
}

// visitRules calls visit with each rule granted to user: first through the
// cluster role bindings, then through the role bindings of namespace (if
// any), each with the binding that grants it; an error is a binding or
// list that could not be read. It stops when visit returns false.
// Kubernetes: DefaultRuleResolver.VisitRulesFor.
func (z *Authorizer) visitRules(ctx context.Context, user User, namespace string, visit func(fmt.Stringer, *api.PolicyRule, error) bool) {
	crbs, err := z.src.ClusterRoleBindings(ctx)
	if err != nil && !visit(nil, nil, err) {
		return
	}
	for _, b := range crbs {
		subject, ok := appliesTo(user, b.Subjects, "")
		if !ok {
			continue
		}
		rules, err := z.roleRules(ctx, b.RoleRef, "")
		if err != nil {
			if !visit(nil, nil, err) {
				return
			}
			continue
		}
		d := describer{kind: "ClusterRoleBinding", name: b.Metadata.Name, ref: b.RoleRef, subject: subject}
		for i := range rules {
			if !visit(d, &rules[i], nil) {
				return
			}
		}
	}
	if namespace == "" {
		return
	}
	rbs, err := z.src.RoleBindings(ctx, namespace)
	if err != nil && !visit(nil, nil, err) {
		return
	}
	for _, b := range rbs {
		subject, ok := appliesTo(user, b.Subjects, namespace)
		if !ok {
			continue
		}
		rules, err := z.roleRules(ctx, b.RoleRef, namespace)
		if err != nil {
			if !visit(nil, nil, err) {
				return
			}
			continue
		}
		d := describer{kind: "RoleBinding", name: b.Metadata.Name + "/" + b.Metadata.Namespace, ref: b.RoleRef, subject: subject, namespace: namespace}
		for i := range rules {
			if !visit(d, &rules[i], nil) {
				return
			}
		}
	}
}

// roleRules are the rules of the role ref names. Kubernetes:
// GetRoleReferenceRules.
func (z *Authorizer) roleRules(ctx context.Context, ref api.RoleRef, namespace string) ([]api.PolicyRule, error) {
	switch ref.Kind {
	case "Role":
		r, err := z.src.Role(ctx, namespace, ref.Name)
		if err != nil {
			return nil, err
		}
		return r.Rules, nil
	case "ClusterRole":
		r, err := z.src.ClusterRole(ctx, ref.Name)
		if err != nil {
			return nil, err
		}
		return r.Rules, nil
	}
	return nil, fmt.Errorf("unsupported role reference kind: %q", ref.Kind)
}

// appliesTo returns the first subject that names user, and whether there
// is one; namespace is a role binding's, the default namespace of its
// service accounts. Kubernetes: appliesTo, appliesToUser.
func appliesTo(user User, subjects []api.Subject, namespace string) (*api.Subject, bool) {
	for i := range subjects {
		s := &subjects[i]
		switch s.Kind {
		case api.SubjectKindUser:
			if user.Name == s.Name {
				return s, true
			}
		case api.SubjectKindGroup:
			if slices.Contains(user.Groups, s.Name) {
				return s, true
			}
		case api.SubjectKindServiceAccount:
			ns := namespace
			if s.Namespace != "" {
				ns = s.Namespace
			}
			if ns != "" && user.Name == ServiceAccountUserName(ns, s.Name) {
				return s, true
			}
		}
	}
	return nil, false
}

// describer names the binding a rule came through, in kube-apiserver's
// words: `ClusterRoleBinding "x" of ClusterRole "y" to User "z"`.
type describer struct {
	kind, name string
	ref        api.RoleRef
	subject    *api.Subject
	namespace  string // a role binding's, for its service accounts
}

func (d describer) String() string {
	return fmt.Sprintf("%s %q of %s %q to %s", d.kind, d.name, d.ref.Kind, d.ref.Name, describeSubject(d.subject, d.namespace))
}

func describeSubject(s *api.Subject, namespace string) string {
	if s.Kind == api.SubjectKindServiceAccount {
		if s.Namespace != "" {
			namespace = s.Namespace
		}
		return fmt.Sprintf("%s %q", s.Kind, s.Name+"/"+namespace)
	}
	return fmt.Sprintf("%s %q", s.Kind, s.Name)
}

// aggregate joins errors as apimachinery's utilerrors.NewAggregate prints
// them: one alone, or several in brackets.
func aggregate(errs []error) string {
	if len(errs) == 1 {
		return errs[0].Error()
	}
	msgs := make([]string, len(errs))
	for i, err := range errs {
		msgs[i] = err.Error()
	}
	return "[" + strings.Join(msgs, ", ") + "]"
}

// RuleAllows reports whether rule allows a: the verb, and either the API
// group, resource (with its subresource, "*" and "*/sub" matching) and
// name, or the non-resource path ("*" and a trailing "*" matching).
// Kubernetes: RuleAllows.
func RuleAllows(a Attributes, rule *api.PolicyRule) bool {
	if !matches(rule.Verbs, a.Verb) {
		return false
	}
	if !a.ResourceRequest {
		return pathMatches(rule.NonResourceURLs, a.Path)
	}
	combined := a.Resource
	if a.Subresource != "" {
		combined += "/" + a.Subresource
	}
	return matches(rule.APIGroups, a.APIGroup) && resourceMatches(rule.Resources, combined, a.Subresource) &&
		(len(rule.ResourceNames) == 0 || slices.Contains(rule.ResourceNames, a.Name))
}

// matches reports whether values hold want or the wildcard.
func matches(values []string, want string) bool {
	for _, v := range values {
		if v == api.RBACAll || v == want {
			return true
		}
	}
	return false
}

func resourceMatches(resources []string, combined, subresource string) bool {
	for _, r := range resources {
		if r == api.RBACAll || r == combined {
			return true
		}
		if subresource != "" && r == "*/"+subresource {
			return true
		}
	}
	return false
}

func pathMatches(urls []string, path string) bool {
	for _, u := range urls {
		if u == api.RBACAll || u == path {
			return true
		}
		if prefix, ok := strings.CutSuffix(u, "*"); ok && strings.HasPrefix(path, prefix) {
			return true
		}
	}
	return false
}
