// Package rbac is kube-apiserver's RBAC authorizer: who a request's user
// is ([User]), what the request asks ([Attributes]), and whether the
// Roles, ClusterRoles and their bindings allow it ([Authorizer]), with
// the reason kube-apiserver gives. It also holds the default cluster roles
// and bindings kube-apiserver creates at start ([BootstrapClusterRoles],
// [BootstrapClusterRoleBindings]).
//
// Kubernetes: plugin/pkg/auth/authorizer/rbac (rbac.go, the rule matching
// and the reasons), pkg/registry/rbac/validation (the rule resolver that
// walks bindings), plugin/pkg/auth/authorizer/rbac/bootstrappolicy.
//
// It reads roles and bindings through a [Source] the caller gives;
// [FromClient] reads them through a client.Client (the Server's own
// latest state, as an informer's cache would hold it once synced). It
// imports api, api/apierrors and client. An Authorizer holds no mutable
// state and is safe for concurrent use.
package rbac
