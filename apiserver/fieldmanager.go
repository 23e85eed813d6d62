package apiserver

import (
	"context"

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
// now, moved last: entries itself when that entry is already last and
// stamped now, else a new slice (entries may be shared with a stored
// object), made in one allocation. now is shared by every entry stamped
// at that time, and never changed. Without a manager it returns entries.
func stampManager(entries []api.ManagedFieldsEntry, manager, subresource, apiVersion string, now *api.Time) []api.ManagedFieldsEntry {
	if manager == "" {
		return entries
	}
	mine := func(e *api.ManagedFieldsEntry) bool {
		return e.Manager == manager && e.Operation == "Update" && e.Subresource == subresource
	}
	if n := len(entries); n > 0 {
		if last := &entries[n-1]; mine(last) && last.APIVersion == apiVersion && last.Time != nil && last.Time.Time == now.Time {
			return entries
		}
	}
	out := make([]api.ManagedFieldsEntry, 0, len(entries)+1)
	for i := range entries {
		if !mine(&entries[i]) {
			out = append(out, entries[i])
		}
	}
	return append(out, api.ManagedFieldsEntry{Manager: manager, Operation: "Update", APIVersion: apiVersion, Time: now, Subresource: subresource})
}

// stampTime returns the time a write's managedFields entry records: now,
// as a pointer shared by every write in the same second (the stamp keeps
// seconds, as Kubernetes' does), so that a
// stamp does not allocate one.
func (s *Server) stampTime() *api.Time {
	now := s.now() // to the second, as Kubernetes records it
	if p := s.lastStamp.Load(); p != nil && p.Time == now.Time {
		return p
	}
	p := &now
	s.lastStamp.Store(p)
	return p
}
