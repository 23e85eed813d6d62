package apiserver

import (
	"context"
	"slices"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
)

// writeOptions are a write's options: the client's, and the in-process
// writer ctx names (client.WithFieldManager).
type writeOptions struct {
	client.WriteOptions
	fieldManager string
}

// writeOptionsOf gathers a write's options.
func writeOptionsOf(ctx context.Context, opts []client.WriteOption) writeOptions {
	return writeOptions{WriteOptions: client.NewWriteOptions(opts...), fieldManager: client.FieldManager(ctx)}
}

// stampManager returns entries with manager's entry for subresource set to
// now, moved last; a new slice, as entries may be shared with a stored
// object. Without a manager it returns entries.
func stampManager(entries []api.ManagedFieldsEntry, manager, subresource, apiVersion string, now api.Time) []api.ManagedFieldsEntry {
	if manager == "" {
		return entries
	}
	out := slices.DeleteFunc(slices.Clone(entries), func(e api.ManagedFieldsEntry) bool {
		return e.Manager == manager && e.Operation == "Update" && e.Subresource == subresource
	})
	return append(out, api.ManagedFieldsEntry{Manager: manager, Operation: "Update", APIVersion: apiVersion, Time: &now, Subresource: subresource})
}
