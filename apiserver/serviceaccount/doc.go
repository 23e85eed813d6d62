// Package serviceaccount issues and checks service accounts' tokens: the
// signed JWTs of the TokenRequest API (serviceaccounts/{name}/token,
// `kubectl create token`), which TokenReview and the API server's
// authentication accept as the account they name while the account (and
// the pod the token is bound to) still exists.
//
// Kubernetes: pkg/serviceaccount (jwt.go's signer and validator,
// claims.go's private claims). Tokens are ES256 JWTs signed with the
// key the caller gives, made with the standard library only. It imports
// api, api/apierrors, client and apiserver/rbac (for the user a token is),
// and reads time from the injected clock. An Issuer holds no mutable state
// and is safe for concurrent use.
package serviceaccount
