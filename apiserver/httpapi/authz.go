package httpapi

import (
	"context"
	"crypto/subtle"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/apiserver/rbac"
)

// Authentication, impersonation and authorization of a request, in
// kube-apiserver's order: who the request is (the configured token, or a
// service account's token), who it acts as (Impersonate-User and
// Impersonate-Group, each checked with the impersonate verb), then
// whether the authorizer allows what it asks. Kubernetes:
// k8s.io/apiserver's filters WithAuthentication, WithImpersonation and
// WithAuthorization, and RequestInfoFactory for what a request asks.

// Authorizer decides whether a user may do what a request asks, and lists
// what a user may do: *rbac.Authorizer. A Handler without one allows
// everything (kube-apiserver's --authorization-mode=AlwaysAllow).
type Authorizer interface {
	Authorize(ctx context.Context, a rbac.Attributes) (allowed bool, reason string)
	Rules(ctx context.Context, user rbac.User, namespace string) (rules []api.PolicyRule, incomplete bool)
	// RoleRefRules are the rules of the role a binding refers to, for the
	// escalation check of bindings (escalation.go).
	RoleRefRules(ctx context.Context, ref api.RoleRef, namespace string) ([]api.PolicyRule, error)
}

// TokenAuthenticator recognises bearer tokens other than the configured
// one: the service-account tokens the TokenRequest API issues.
type TokenAuthenticator interface {
	// AuthenticateToken returns the user token is and the audiences it
	// was issued for, or ok false when it is not a valid token.
	AuthenticateToken(ctx context.Context, token string) (user rbac.User, audiences []string, ok bool)
}

// tokenUser is who a request with the configured token is: TokenUser, in
// system:masters, as with a static token file.
func tokenUser() rbac.User {
	return rbac.User{Name: TokenUser, Groups: []string{rbac.GroupMasters, rbac.GroupAuthenticated}}
}

// anonymous is who a request is when the server takes no token.
func anonymous() rbac.User {
	return rbac.User{Name: anonymousUser, Groups: []string{rbac.GroupUnauthenticated}}
}

// authenticate returns who r is: with a token configured, the token's
// user or a service account whose token it is, else ok false; without
// one, anonymous.
func (h *Handler) authenticate(r *http.Request) (rbac.User, bool) {
	if h.token == "" {
		return anonymous(), true
	}
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return rbac.User{}, false
	}
	return h.userOfToken(r.Context(), strings.TrimSpace(got))
}

// userOfToken returns who a bearer token is, and whether it is anyone.
func (h *Handler) userOfToken(ctx context.Context, token string) (rbac.User, bool) {
	if h.token != "" && subtle.ConstantTimeCompare([]byte(token), []byte(h.token)) == 1 {
		return tokenUser(), true
	}
	if h.tokens != nil {
		// A token is taken as the API server's own when it was issued
		// for the API server's audience (--api-audiences).
		if u, aud, ok := h.tokens.AuthenticateToken(ctx, token); ok && slices.Contains(aud, APIAudience) {
			return u, true
		}
	}
	return rbac.User{}, false
}

// Impersonation headers. Kubernetes: authenticationv1.ImpersonateUserHeader
// and ImpersonateGroupHeader.
const (
	headerImpersonateUser  = "Impersonate-User"
	headerImpersonateGroup = "Impersonate-Group"
)

// impersonate returns who r acts as: u itself, or the user and groups its
// Impersonate-* headers name, once u may impersonate each (the
// impersonate verb on users, or on the service account, and on groups).
// A service account impersonated without groups gets its own; every
// impersonated user but anonymous is in system:authenticated.
// Kubernetes: filters.WithImpersonation.
func (h *Handler) impersonate(r *http.Request, u rbac.User) (rbac.User, error) {
	name := r.Header.Get(headerImpersonateUser)
	groups := r.Header.Values(headerImpersonateGroup)
	if name == "" {
		if len(groups) > 0 {
			return u, apierrors.NewBadRequest("requested [{Group  " + groups[0] + "  authentication.k8s.io/v1  }] without impersonating a user")
		}
		return u, nil
	}
	check := func(a rbac.Attributes) error {
		a.User, a.Verb, a.ResourceRequest = u, "impersonate", true
		if h.authz == nil {
			return nil
		}
		if ok, reason := h.authz.Authorize(r.Context(), a); !ok {
			return forbidden(a, reason)
		}
		return nil
	}
	out := rbac.User{Name: name}
	if ns, sa, ok := rbac.SplitServiceAccountUserName(name); ok {
		if err := check(rbac.Attributes{Resource: "serviceaccounts", Namespace: ns, Name: sa}); err != nil {
			return u, err
		}
		if len(groups) == 0 {
			out.Groups = rbac.ServiceAccountUser(ns, sa, "").Groups
		}
	} else if err := check(rbac.Attributes{Resource: "users", Name: name}); err != nil {
		return u, err
	}
	for _, g := range groups {
		if err := check(rbac.Attributes{Resource: "groups", Name: g}); err != nil {
			return u, err
		}
		out.Groups = append(out.Groups, g)
	}
	if name != anonymousUser && !slices.Contains(out.Groups, rbac.GroupAuthenticated) {
		out.Groups = append(out.Groups, rbac.GroupAuthenticated)
	}
	return out, nil
}

// authorize checks that u may do what r asks, answering 403 with
// kube-apiserver's message when not. The public paths (isHealthPath) are
// not checked, as the default system:public-info-viewer binding allows
// them to everyone.
func (h *Handler) authorize(r *http.Request, u rbac.User) error {
	if h.authz == nil || isHealthPath(r.URL.Path) {
		return nil
	}
	a := requestAttributes(r)
	a.User = u
	if ok, reason := h.authz.Authorize(r.Context(), a); !ok {
		return forbidden(a, reason)
	}
	return nil
}

// forbidden is the 403 of a denied request, in kube-apiserver's words:
// `pods is forbidden: User "x" cannot list resource "pods" in API group ""
// in the namespace "default"`, the authorizer's reason after a colon when
// it gave one. Kubernetes: responsewriters.Forbidden, forbiddenMessage.
func forbidden(a rbac.Attributes, reason string) error {
	var msg string
	switch {
	case !a.ResourceRequest:
		msg = fmt.Sprintf("User %q cannot %s path %q", a.User.Name, a.Verb, a.Path)
	default:
		resource := a.Resource
		if a.Subresource != "" {
			resource += "/" + a.Subresource
		}
		if a.Namespace != "" {
			msg = fmt.Sprintf("User %q cannot %s resource %q in API group %q in the namespace %q", a.User.Name, a.Verb, resource, a.APIGroup, a.Namespace)
		} else {
			msg = fmt.Sprintf("User %q cannot %s resource %q in API group %q at the cluster scope", a.User.Name, a.Verb, resource, a.APIGroup)
		}
	}
	if reason != "" {
		msg += ": " + reason
	}
	return apierrors.NewForbidden(apierrors.GroupResource{Group: a.APIGroup, Resource: a.Resource}, a.Name, msg)
}

// requestAttributes is what r asks, as kube-apiserver's RequestInfoFactory
// reads it from the method and path: under /api/v1 or
// /apis/GROUP/VERSION, a resource (in a namespace, perhaps a named object
// and a subresource) with a verb from the method (a GET of a collection
// is list, or watch with ?watch=true; a DELETE of one is
// deletecollection); anything else a path with the method as verb.
func requestAttributes(r *http.Request) rbac.Attributes {
	a := rbac.Attributes{Path: r.URL.Path, Verb: strings.ToLower(r.Method)}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case len(parts) >= 3 && parts[0] == "api":
		a.APIVersion, parts = parts[1], parts[2:]
	case len(parts) >= 4 && parts[0] == "apis":
		a.APIGroup, a.APIVersion, parts = parts[1], parts[2], parts[3:]
	default:
		return a
	}
	if parts[0] == "" {
		return a // "/api/v1//x": no resource to name, a path as any other
	}
	a.ResourceRequest = true
	switch r.Method {
	case http.MethodPost:
		a.Verb = "create"
	case http.MethodGet, http.MethodHead:
		a.Verb = "get"
	case http.MethodPut:
		a.Verb = "update"
	case http.MethodPatch:
		a.Verb = "patch"
	case http.MethodDelete:
		a.Verb = "delete"
	}
	if parts[0] == "watch" && len(parts) > 1 { // the deprecated /watch/ paths
		a.Verb, parts = "watch", parts[1:]
	}
	if parts[0] == "namespaces" && len(parts) > 1 {
		a.Namespace = parts[1]
		if len(parts) > 2 && parts[2] != "status" && parts[2] != "finalize" {
			parts = parts[2:]
		}
	}
	a.Resource = parts[0]
	if a.Resource == "" {
		return rbac.Attributes{Path: r.URL.Path, Verb: strings.ToLower(r.Method)}
	}
	if len(parts) > 1 {
		a.Name = parts[1]
	}
	if len(parts) > 2 {
		a.Subresource = parts[2]
	}
	if a.Name == "" {
		switch a.Verb {
		case "get":
			a.Verb = "list"
			if w := r.URL.Query().Get("watch"); w == "true" || w == "1" {
				a.Verb = "watch"
			}
		case "delete":
			a.Verb = "deletecollection"
		}
	}
	return a
}

// userKey is the context key of the user a request acts as.
type userKey struct{}

// userOf returns the user r acts as, set by ServeHTTP.
func userOf(r *http.Request) rbac.User {
	if u, ok := r.Context().Value(userKey{}).(rbac.User); ok {
		return u
	}
	return anonymous()
}
