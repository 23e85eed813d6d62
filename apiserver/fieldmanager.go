package apiserver

import (
	"context"
	"sync"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
)

// writeOptions are a write's options: the client's, and the in-process
// writer ctx names (client.WithFieldManager).
type writeOptions struct {
	client.WriteOptions
	fieldManager string
	// ctx is the request's, for what waits (admitServiceAccount); nil
	// for the server's own writes.
	ctx context.Context
	// ownWrite marks the server's own write of an object it keeps (the
	// kubernetes Endpoints, which may name a loopback address): the
	// kind's validation is skipped.
	ownWrite bool
	// finalize marks a write through a namespace's finalize subresource,
	// the one that may change its spec.finalizers.
	finalize bool
	// approval marks a write through a CertificateSigningRequest's
	// approval subresource (UpdateApproval).
	approval bool
	// ephemeralContainers marks a write through a pod's
	// ephemeralcontainers subresource (UpdateEphemeralContainers).
	ephemeralContainers bool
}

// writeOptionsOf gathers a write's options.
func writeOptionsOf(ctx context.Context, opts []client.WriteOption) writeOptions {
	return writeOptions{WriteOptions: client.NewWriteOptions(opts...), fieldManager: client.FieldManager(ctx), ctx: ctx}
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
	if n := len(entries); n > 0 {
		if last := &entries[n-1]; isStampOf(last, manager, subresource) && last.APIVersion == apiVersion && last.Time != nil && last.Time.Time == now.Time {
			return entries
		}
	}
	out := make([]api.ManagedFieldsEntry, 0, len(entries)+1)
	for i := range entries {
		if !isStampOf(&entries[i], manager, subresource) {
			out = append(out, entries[i])
		}
	}
	return append(out, api.ManagedFieldsEntry{Manager: manager, Operation: "Update", APIVersion: apiVersion, Time: now, Subresource: subresource})
}

// isStampOf reports whether e is the "Update" entry of manager through
// subresource.
func isStampOf(e *api.ManagedFieldsEntry, manager, subresource string) bool {
	return e.Manager == manager && e.Operation == "Update" && e.Subresource == subresource
}

// maxSharedStamps bounds the stamps shared in one second (stamps.shared).
const maxSharedStamps = 256

// stamps shares managedFields between the objects written in one second:
// every pod a controller creates in a second gets the same one-entry list,
// and every pod the kubelet then updates from that list gets the same
// two-entry list. Stored objects are never changed, so one list can serve
// them all; a list per object was a tenth of the live heap of 100,000 pods
// and their events.
type stamps struct {
	mu     sync.Mutex
	at     *api.Time // the second of shared; nil before the first stamp
	shared map[stampKey][]api.ManagedFieldsEntry
}

// stampKey names one stamp of a second: the list it was made from (by its
// first element and length, so lists are told apart by identity, which is
// enough, as shared lists come from here), and the manager's entry.
type stampKey struct {
	from                             *api.ManagedFieldsEntry
	n                                int
	manager, subresource, apiVersion string
}

// stamp is stampManager at the server's current second, with its result
// shared with every other stamp of the same list by the same entry in that
// second (at most maxSharedStamps such results; past them, lists are made
// per object, as before).
func (s *Server) stamp(entries []api.ManagedFieldsEntry, manager, subresource, apiVersion string) []api.ManagedFieldsEntry {
	if manager == "" {
		return entries
	}
	now := s.stampTime()
	k := stampKey{n: len(entries), manager: manager, subresource: subresource, apiVersion: apiVersion}
	if len(entries) > 0 {
		k.from = &entries[0]
	}
	st := &s.stamps
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.at != now {
		st.at = now
		clear(st.shared)
	}
	if out, ok := st.shared[k]; ok {
		return out
	}
	out := stampManager(entries, manager, subresource, apiVersion, now)
	if st.shared == nil {
		st.shared = make(map[stampKey][]api.ManagedFieldsEntry)
	}
	if len(st.shared) < maxSharedStamps {
		st.shared[k] = out
	}
	return out
}

// stampTime returns the time a write's managedFields entry records: now,
// as a pointer shared by every write in the same second (the stamp keeps
// seconds, as Kubernetes' does), so that a stamp does not allocate one.
func (s *Server) stampTime() *api.Time {
	now := s.clock.Now()
	if p := s.lastStamp.Load(); p != nil && p.Unix() == now.Unix() {
		return p // the same second: what api.NewTime would make is p
	}
	p := &api.Time{Time: api.NewTime(now).Time} // to the second, as Kubernetes records it
	s.lastStamp.Store(p)
	return p
}
