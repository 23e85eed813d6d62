// Package store is miniplane's etcd: an in-memory, versioned key-value store
// with MVCC reads and watch.
//
// It mirrors etcd's mvcc package (go.etcd.io/etcd/server/v3/storage/mvcc) as
// kube-apiserver uses it, and knows nothing of Kubernetes: keys are strings,
// values are opaque and immutable, and the API server above it decides what
// they mean.
//
// # Revisions
//
// The store has one global revision. It starts at 1 for the empty store and
// every successful write (create, update, delete) increments it by exactly one;
// a failed write changes nothing. Each stored value carries the revision of the
// write that created it (CreateRev) and of its last write (ModRev, which the API
// server exposes as resourceVersion), and how many writes it has seen since it
// was created (Version).
//
// # Reads and history
//
// Get and List read the latest state or the state at any past revision still
// in history. The current state is a google/btree ordered by key, holding one
// immutable record per key; history is a log of the write events, one per
// revision. A read at a past revision R takes a copy-on-write Clone of the
// tree (O(1)) and looks back through the events after R to restore the keys
// they changed, so every page of a paged list reads the same revision without
// copying the tree or blocking writers.
//
// History is a bounded window: it keeps at most Options.HistoryLimit events and
// Compact drops older ones on request. A read or watch that needs a revision
// before the window fails with an error matching ErrCompacted (the API server's
// 410 Gone), never with a silent gap.
//
// # Watch
//
// Watch returns a Watcher on a key prefix that delivers, from a start revision,
// every later event under the prefix exactly once, in revision order, each with
// the new record and (for updates and deletes) the previous one. Delivery is a
// step the caller drives: Watcher.Poll returns what is pending and returns at
// once, so the simulator decides when each watcher sees its events;
// Watcher.Ready is a channel for live loops that wait for more. A caught-up
// watcher parks on its own Ready channel, which only a write under its prefix
// (or a compaction) closes: writes elsewhere move its cursor on without waking
// it, so a busy store does not wake every watcher for every write.
//
// Watchers read the shared history log through their own cursor, so a slow
// watcher holds no memory of its own and writers never wait for it. A watcher
// that falls so far behind that the window moves past its cursor is ended with
// an error matching ErrTooSlow (and ErrCompacted): its owner must relist.
// All watchers together hold at most the window.
//
// # Concurrency
//
// A Store is safe for concurrent use. Writes are serialised by one mutex and
// never block on readers for longer than a Clone or a history scan. A Watcher
// may be polled from one goroutine at a time; Stop may be called from any.
//
// The package imports the standard library and github.com/google/btree only.
package store
