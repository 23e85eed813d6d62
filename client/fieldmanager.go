package client

import "context"

// fieldManagerKey is the context key of WithFieldManager.
type fieldManagerKey struct{}

// WithFieldManager returns ctx naming the in-process writer that acts under
// it, as an HTTP client names itself by its fieldManager parameter or its
// User-Agent. A Create, Update or UpdateStatus called with such a context
// that stores something stamps that writer's managedFields entry (operation
// Update, the subresource, the time), as kube-apiserver records every write
// that is not an apply. The controller manager runs each controller under
// its name; the live plane runs the simulated kubelets as "kubelet".
// Without a name nothing is recorded: the simulator's and the tests'
// in-process writes stay as they were.
//
// Unlike the HTTP front, it records no field set (fieldsV1): computing one
// costs a JSON round trip of the object per write, ten times the write
// itself, on the controllers' hot path. So the entry says who wrote and
// when, not which fields they own; server-side apply sees no conflict with
// an in-process writer, and the HTTP front drops such entries when it next
// tracks a write.
func WithFieldManager(ctx context.Context, manager string) context.Context {
	return context.WithValue(ctx, fieldManagerKey{}, manager)
}

// FieldManager returns the writer's name WithFieldManager put in ctx, or "".
func FieldManager(ctx context.Context) string {
	m, _ := ctx.Value(fieldManagerKey{}).(string)
	return m
}
