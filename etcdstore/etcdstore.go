// Package etcdstore is a store.Backend whose source of truth is etcd v3, laid
// out as kube-apiserver's etcd3 storage lays it out (DESIGN.md, "The etcd
// backend").
//
// The store's revision is etcd's. Create, Update and Delete are each one
// single-key etcd transaction comparing the key's ModRevision, as
// k8s.io/apiserver/pkg/storage/etcd3/store.go does: create if ModRevision is
// 0, update and delete if it is the revision the writer read (or, for an
// unconditional write, if the key exists). Reads and watches are served from
// a store.Store kept as a watch cache: it starts from a snapshot of every key
// under the prefix and follows one watch of etcd's whole key space with
// previous values and progress notifications, so that its revisions stay
// etcd's: a write outside the prefix moves the cache's revision on with a
// placeholder (store.Store.Advance). A write returns once the cache holds
// it; a read at revision 0 (a consistent read) first waits for the cache to
// reach etcd's current revision. A cache that etcd's compaction overtook
// relists, as kube-apiserver's cacher does: a snapshot at etcd's current
// revision replaces its state, and its watchers that missed writes end with
// store.ErrCompacted (410 Expired).
package etcdstore

import (
	"time"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/store"
)

// Codec turns the store's values into etcd values and back. key is the
// store's key (not etcd's).
type Codec[V any] interface {
	Encode(key string, value V) ([]byte, error)
	Decode(key string, data []byte) (V, error)
}

// Config configures a Store.
type Config[V any] struct {
	// Client talks to etcd; the Store does not close it.
	Client *Client
	// Prefix is the etcd key prefix the Store holds and watches, e.g.
	// "/registry/".
	Prefix string
	// Codec encodes values.
	Codec Codec[V]
	// ToEtcd maps a store key to its etcd key, under Prefix; FromEtcd maps
	// back, false for an etcd key the store does not hold (its write then
	// only moves the revision on). nil means the identity.
	ToEtcd   func(key string) string
	FromEtcd func(etcdKey string) (string, bool)
	// Cache configures the watch cache (its history window).
	Cache store.Options
	// Stamp is called as store.NewStamped's, for every value the cache
	// takes in, before any reader sees it.
	Stamp func(value V, rev int64)
	// Clock times compaction and the watch's reconnection; nil:
	// clock.Real{}. Every CompactEvery the Store compacts etcd and its
	// cache to the revision it saw one period before, as kube-apiserver
	// compacts every five minutes; 0: no compaction on a timer (Compact
	// still works).
	Clock        clock.Clock
	CompactEvery time.Duration
	// Logger receives what goes wrong in the background; nil means none.
	Logger *zap.Logger
}
