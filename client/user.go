package client

import "context"

// User is who a request acts as, as the API server's authentication found
// it. Kubernetes: user.Info (less its extra attributes).
type User struct {
	// Name is the user name ("miniplane-admin", "system:serviceaccount:ns:sa").
	Name string
	// UID is the user's uid, when the authenticator knows one.
	UID string
	// Groups are the user's groups.
	Groups []string
}

// userKey is the context key of WithUser.
type userKey struct{}

// WithUser returns ctx carrying the user a write acts as. The HTTP front
// sets it on every authenticated request; the Server reads it where
// kube-apiserver's strategies read the request's user (a
// CertificateSigningRequest's spec.username, uid and groups). In-process
// writers without one act as nobody in particular.
func WithUser(ctx context.Context, u User) context.Context {
	return context.WithValue(ctx, userKey{}, u)
}

// UserFrom returns the user WithUser put in ctx, and whether there is one.
func UserFrom(ctx context.Context) (User, bool) {
	if ctx == nil {
		return User{}, false
	}
	u, ok := ctx.Value(userKey{}).(User)
	return u, ok
}
