// Package storebench runs one write-and-watch workload against miniplane's
// store, embedded etcd and a bare google/btree, so the ratio between them is
// measured in one run rather than assumed.
//
// etcd is the store miniplane's store mirrors (go.etcd.io/etcd/server/v3's
// mvcc package behind kube-apiserver); the bare btree is the ceiling: the same
// key and value copy into the same tree, without revisions, history, lock or
// watch. The workload is N puts of 1 KiB values on keys shaped like
// kube-apiserver's (/registry/pods/default/pod-00000042), with and without a
// live watcher, and a watch that replays N past events from history.
//
// Each Backend is driven from the benchmark's goroutine; a watch runs on a
// goroutine of its own until it has the events it was asked for or its
// context ends. etcd listens on 127.0.0.1 only, on ports the OS picks.
package storebench

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"slices"
	"time"

	"github.com/google/btree"
	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.etcd.io/etcd/server/v3/etcdserver/api/v3client"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/miniplane/miniplane/store"
)

// Prefix is the key prefix the workload writes and watches.
const Prefix = "/registry/pods/"

// ValueSize is the size of the pod-like value of every put.
const ValueSize = 1024

// Key returns the key of object i: Prefix, "default/pod-", and i in eight
// zero-padded digits.
func Key(i int) string { return fmt.Sprintf("%sdefault/pod-%08d", Prefix, i) }

// Value returns a ValueSize value whose first byte is gen.
func Value(gen byte) []byte {
	v := make([]byte, ValueSize)
	for i := range v {
		v[i] = 'x'
	}
	v[0] = gen
	return v
}

// Backend is a versioned key-value store under test. Revisions are etcd's:
// one per successful write, and a delete of a missing key writes nothing.
type Backend interface {
	// Put writes value under key, creating it when create is true (the
	// caller knows, as the API server does), and returns the new revision.
	// The backend keeps its own copy of value.
	Put(ctx context.Context, key string, value []byte, create bool) (rev int64, err error)
	// Delete removes key; deleted is false, and the revision unchanged, when
	// it was missing.
	Delete(ctx context.Context, key string) (rev int64, deleted bool, err error)
	// Rev returns the current revision.
	Rev(ctx context.Context) (int64, error)
	// Watch follows the keys under prefix from revision from (inclusive, as
	// etcd's start_revision) until it has received n events. It returns once
	// the watch is registered, so later writes arrive as live events; the
	// result comes on the channel. Cancelling ctx ends the watch.
	Watch(ctx context.Context, prefix string, from int64, n int) (<-chan WatchResult, error)
	// Close releases the backend.
	Close() error
}

// WatchResult is what one watch received. The watch checked that every
// event's revision is the one after the previous event's.
type WatchResult struct {
	Created, Updated, Deleted int
	Done                      time.Time // when the n-th event arrived
	Err                       error
}

// Events is the number of events received.
func (r WatchResult) Events() int { return r.Created + r.Updated + r.Deleted }

// revChecker checks that revisions arrive one after the other.
type revChecker struct{ next int64 }

func (c *revChecker) check(rev int64) error {
	if c.next != 0 && rev != c.next {
		return fmt.Errorf("storebench: watch got revision %d, want %d", rev, c.next)
	}
	c.next = rev + 1
	return nil
}

// Store is miniplane's store as a Backend; its watcher is a live
// Ready/Poll loop.
type Store struct{ s *store.Store[[]byte] }

// NewStore returns an empty store whose history keeps historyLimit events.
func NewStore(historyLimit int) *Store {
	return &Store{s: store.New[[]byte](store.Options{HistoryLimit: historyLimit})}
}

// Put implements Backend.
func (b *Store) Put(_ context.Context, key string, value []byte, create bool) (int64, error) {
	var r store.Record[[]byte]
	var err error
	if create {
		r, err = b.s.Create(key, slices.Clone(value))
	} else {
		r, err = b.s.Update(key, slices.Clone(value), 0)
	}
	return r.ModRev, err
}

// Delete implements Backend.
func (b *Store) Delete(_ context.Context, key string) (int64, bool, error) {
	// Delete returns the record deleted; the deletion's revision is the
	// store's, and only this goroutine writes.
	_, err := b.s.Delete(key, 0)
	if errors.Is(err, store.ErrNotFound) {
		return b.s.Rev(), false, nil
	}
	return b.s.Rev(), err == nil, err
}

// Rev implements Backend.
func (b *Store) Rev(context.Context) (int64, error) { return b.s.Rev(), nil }

// Watch implements Backend.
func (b *Store) Watch(ctx context.Context, prefix string, from int64, n int) (<-chan WatchResult, error) {
	w, err := b.s.Watch(prefix, from)
	if err != nil {
		return nil, err
	}
	out := make(chan WatchResult, 1)
	go func() {
		defer w.Stop()
		var res WatchResult
		var c revChecker
		var buf []store.Event[[]byte]
		for res.Events() < n && res.Err == nil {
			select {
			case <-ctx.Done():
				res.Err = ctx.Err()
				continue
			case <-w.Ready():
			}
			evs, _, err := w.Poll(buf[:0], 0)
			for i := range evs {
				if res.Err = c.check(evs[i].Rev); res.Err != nil {
					break
				}
				switch evs[i].Type {
				case store.Created:
					res.Created++
				case store.Updated:
					res.Updated++
				case store.Deleted:
					res.Deleted++
				}
			}
			clear(evs)
			buf = evs
			if res.Err == nil {
				res.Err = err
			}
		}
		res.Done = time.Now()
		out <- res
	}()
	return out, nil
}

// Close implements Backend.
func (b *Store) Close() error { return nil }

// Etcd is a single-member embedded etcd as a Backend, reached through the
// in-process client (the clientv3 API without gRPC over the network).
type Etcd struct {
	e   *embed.Etcd
	cli *clientv3.Client
	// logLevel is etcd's; Close raises it so shutdown is not logged as an
	// error.
	logLevel zap.AtomicLevel
}

// StartEtcd starts etcd with its data in dir, listening on 127.0.0.1 ports
// the OS picks, logging errors only, to stderr. fsync false sets
// UnsafeNoFsync.
func StartEtcd(dir string, fsync bool) (*Etcd, error) {
	ports, err := freePorts(2)
	if err != nil {
		return nil, err
	}
	client := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", ports[0])}
	peer := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", ports[1])}
	cfg := embed.NewConfig()
	cfg.Name = "storebench"
	cfg.Dir = dir
	cfg.LogLevel = "error"
	level := zap.NewAtomicLevelAt(zap.ErrorLevel)
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.New(zapcore.NewCore(
		zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.Lock(os.Stderr), level)))
	cfg.UnsafeNoFsync = !fsync
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, fmt.Errorf("storebench: start etcd: %w", err)
	}
	timeout := time.NewTimer(time.Minute)
	defer timeout.Stop()
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		e.Close()
		return nil, fmt.Errorf("storebench: etcd failed to start: %w", err)
	case <-timeout.C:
		e.Close()
		return nil, errors.New("storebench: etcd not ready after a minute")
	}
	return &Etcd{e: e, cli: v3client.New(e.Server), logLevel: level}, nil
}

// freePorts returns n free TCP ports on 127.0.0.1 by letting the OS choose
// and closing the listeners again.
func freePorts(n int) ([]int, error) {
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// Put implements Backend. etcd's put creates and updates alike.
func (b *Etcd) Put(ctx context.Context, key string, value []byte, _ bool) (int64, error) {
	resp, err := b.cli.Put(ctx, key, string(value))
	if err != nil {
		return 0, err
	}
	return resp.Header.Revision, nil
}

// Delete implements Backend.
func (b *Etcd) Delete(ctx context.Context, key string) (int64, bool, error) {
	resp, err := b.cli.Delete(ctx, key)
	if err != nil {
		return 0, false, err
	}
	return resp.Header.Revision, resp.Deleted > 0, nil
}

// Rev implements Backend.
func (b *Etcd) Rev(ctx context.Context) (int64, error) {
	resp, err := b.cli.Get(ctx, "\x00", clientv3.WithCountOnly())
	if err != nil {
		return 0, err
	}
	return resp.Header.Revision, nil
}

// Watch implements Backend.
func (b *Etcd) Watch(ctx context.Context, prefix string, from int64, n int) (<-chan WatchResult, error) {
	ctx, cancel := context.WithCancel(ctx)
	wch := b.cli.Watch(ctx, prefix, clientv3.WithPrefix(), clientv3.WithRev(from), clientv3.WithCreatedNotify())
	if first, ok := <-wch; !ok || !first.Created {
		cancel()
		return nil, fmt.Errorf("storebench: etcd watch not created: %v", first.Err())
	}
	out := make(chan WatchResult, 1)
	go func() {
		defer cancel()
		var res WatchResult
		var c revChecker
		for res.Events() < n && res.Err == nil {
			resp, ok := <-wch
			if !ok {
				res.Err = fmt.Errorf("storebench: etcd watch closed after %d events: %w", res.Events(), ctx.Err())
				break
			}
			if res.Err = resp.Err(); res.Err != nil {
				break
			}
			for _, ev := range resp.Events {
				if res.Err = c.check(ev.Kv.ModRevision); res.Err != nil {
					break
				}
				switch {
				case ev.Type == mvccpb.DELETE:
					res.Deleted++
				case ev.IsCreate():
					res.Created++
				default:
					res.Updated++
				}
			}
		}
		res.Done = time.Now()
		out <- res
	}()
	return out, nil
}

// Close implements Backend. It stops etcd and waits until it has stopped.
func (b *Etcd) Close() error {
	b.logLevel.SetLevel(zap.FatalLevel) // listeners closing are not errors
	err := b.cli.Close()
	b.e.Close()
	if errors.Is(err, context.Canceled) { // the in-process client's usual answer
		err = nil
	}
	return err
}

// BTree is the ceiling: a bare google/btree of degree 32 (the store's and
// etcd's index width) holding keys and value copies. It has no revisions of
// its own, only a count of writes, and cannot watch.
type BTree struct {
	t   *btree.BTreeG[bareItem]
	rev int64
}

type bareItem struct {
	key string
	val []byte
}

// NewBTree returns an empty bare btree at revision 1.
func NewBTree() *BTree {
	return &BTree{t: btree.NewG(32, func(a, b bareItem) bool { return a.key < b.key }), rev: 1}
}

// Put implements Backend.
func (b *BTree) Put(_ context.Context, key string, value []byte, _ bool) (int64, error) {
	b.t.ReplaceOrInsert(bareItem{key, slices.Clone(value)})
	b.rev++
	return b.rev, nil
}

// Delete implements Backend.
func (b *BTree) Delete(_ context.Context, key string) (int64, bool, error) {
	if _, found := b.t.Delete(bareItem{key: key}); !found {
		return b.rev, false, nil
	}
	b.rev++
	return b.rev, true, nil
}

// Rev implements Backend.
func (b *BTree) Rev(context.Context) (int64, error) { return b.rev, nil }

// Len returns the number of keys held.
func (b *BTree) Len() int { return b.t.Len() }

// ErrNoWatch is BTree's answer to Watch.
var ErrNoWatch = errors.New("storebench: a bare btree cannot watch")

// Watch implements Backend: it fails with ErrNoWatch.
func (b *BTree) Watch(context.Context, string, int64, int) (<-chan WatchResult, error) {
	return nil, ErrNoWatch
}

// Close implements Backend.
func (b *BTree) Close() error { return nil }
