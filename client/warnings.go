package client

import "context"

// warningsKey is the context key of WithWarnings.
type warningsKey struct{}

// WithWarnings returns ctx whose writes report the server's warnings to
// warn, as kube-apiserver answers them in Warning headers (a
// ValidatingAdmissionPolicy bound with the Warn action). The HTTP front
// puts its response's headers behind it; warn is called on the request's
// goroutine, before the write returns.
func WithWarnings(ctx context.Context, warn func(text string)) context.Context {
	return context.WithValue(ctx, warningsKey{}, warn)
}

// Warn reports text to the warn function WithWarnings put in ctx, if any.
func Warn(ctx context.Context, text string) {
	if ctx == nil {
		return
	}
	if warn, _ := ctx.Value(warningsKey{}).(func(string)); warn != nil {
		warn(text)
	}
}
