package etcdstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/store"
)

// Store is a store.Backend over etcd. Open one; Close it when done.
type Store[V any] struct {
	cfg    Config[V]
	cli    *Client
	cache  *store.Store[V]
	log    *zap.Logger
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{} // closed when the watch loop ends

	// mu guards applied, tick, pending and failed.
	mu sync.Mutex
	// applied is the etcd revision the cache has reached; tick is closed
	// and replaced whenever it moves, or the loop ends.
	applied int64
	tick    chan struct{}
	// pending are this process's writes in flight, by etcd key: the watch
	// loop puts the writer's own value into the cache, not a decoded copy.
	pending map[string][]*pendingWrite[V]
	// failed is why the watch loop ended, once it has.
	failed error

	// relists counts the snapshots the cache took after etcd's compaction
	// overtook it.
	relists atomic.Int64
}

type pendingWrite[V any] struct {
	data  []byte
	value V
}

var _ store.Backend[int] = (*Store[int])(nil)

// ErrClosed is returned by waits that the end of the watch loop cut short.
var ErrClosed = errors.New("etcdstore: closed")

// Open reads every key under cfg.Prefix into a new watch cache and starts
// following etcd from there.
func Open[V any](ctx context.Context, cfg Config[V]) (*Store[V], error) {
	if cfg.Client == nil || cfg.Codec == nil || cfg.Prefix == "" {
		return nil, errors.New("etcdstore: Config needs a Client, a Codec and a Prefix")
	}
	if cfg.ToEtcd == nil {
		cfg.ToEtcd = func(k string) string { return k }
	}
	if cfg.FromEtcd == nil {
		cfg.FromEtcd = func(k string) (string, bool) { return k, true }
	}
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	s := &Store[V]{cfg: cfg, cli: cfg.Client, log: cfg.Logger, done: make(chan struct{}),
		tick: make(chan struct{}), pending: make(map[string][]*pendingWrite[V])}
	// The cache starts as far back as its history window and etcd's
	// compaction allow, and replays etcd's history from there, so that a
	// restarted server serves watches from the revisions it handed out.
	cur, err := s.cli.get(ctx, rangeRequest{Key: []byte(cfg.Prefix), KeysOnly: true})
	if err != nil {
		return nil, fmt.Errorf("etcdstore: reading the current revision: %w", err)
	}
	now := int64(cur.Header.Revision)
	limit := int64(cfg.Cache.HistoryLimit)
	if limit <= 0 {
		limit = store.DefaultHistoryLimit
	}
	from := max(1, now-limit+1)
	recs, err := s.snapshot(ctx, from)
	if errors.Is(err, errCompacted) {
		if from, err = s.cli.compactRevision(ctx, from); err == nil {
			recs, err = s.snapshot(ctx, from)
		}
	}
	if err != nil {
		return nil, err
	}
	s.stampAll(recs)
	s.cache = store.NewAt(cfg.Cache, cfg.Stamp, from, recs)
	s.applied = from
	s.ctx, s.cancel = context.WithCancel(context.Background())
	go s.follow()
	if err := s.waitFor(ctx, now); err != nil {
		_ = s.Close()
		return nil, fmt.Errorf("etcdstore: replaying etcd's history: %w", err)
	}
	if cfg.CompactEvery > 0 {
		go s.compactLoop(now)
	}
	return s, nil
}

// snapshotPage is how many keys one read of the snapshot fetches.
const snapshotPage = 1000

// snapshot reads every key under the prefix at revision rev, a page at a
// time, and returns them as records with their store keys.
func (s *Store[V]) snapshot(ctx context.Context, rev int64) ([]store.Record[V], error) {
	var recs []store.Record[V]
	req := rangeRequest{Key: []byte(s.cfg.Prefix), RangeEnd: prefixEnd(s.cfg.Prefix), Limit: snapshotPage, Revision: rev}
	for {
		resp, err := s.cli.get(ctx, req)
		if errors.Is(err, errCompacted) {
			return nil, err
		}
		if err != nil {
			return nil, fmt.Errorf("etcdstore: reading %s: %w", s.cfg.Prefix, err)
		}
		for _, kv := range resp.Kvs {
			key, ok := s.cfg.FromEtcd(string(kv.Key))
			if !ok {
				continue
			}
			v, err := s.cfg.Codec.Decode(key, kv.Value)
			if err != nil {
				return nil, fmt.Errorf("etcdstore: decoding %s: %w", kv.Key, err)
			}
			recs = append(recs, record(key, v, kv))
		}
		if !resp.More || len(resp.Kvs) == 0 {
			return recs, nil
		}
		req.Key = append(resp.Kvs[len(resp.Kvs)-1].Key, 0)
	}
}

// stampAll stamps a snapshot's values with their revisions, as the cache
// stamps what it is written.
func (s *Store[V]) stampAll(recs []store.Record[V]) {
	if s.cfg.Stamp == nil {
		return
	}
	for _, r := range recs {
		s.cfg.Stamp(r.Value, r.ModRev)
	}
}

func record[V any](key string, v V, kv keyValue) store.Record[V] {
	return store.Record[V]{Key: key, Value: v, CreateRev: int64(kv.CreateRevision), ModRev: int64(kv.ModRevision), Version: int64(kv.Version)}
}

// retryEvery is how long the watch loop waits before it reopens a watch
// that broke (a member went away).
const retryEvery = 100 * time.Millisecond

// follow applies etcd's writes to the cache, in revision order, until the
// Store is closed. A watch that breaks is reopened from the next revision
// the cache lacks; when etcd's compaction overtook the cache, the cache
// relists (relist).
func (s *Store[V]) follow() {
	defer close(s.done)
	for {
		err := s.watchOnce()
		if errors.Is(err, errCompacted) {
			err = s.relist()
		}
		if s.ctx.Err() != nil {
			s.fail(ErrClosed)
			return
		}
		if err == nil {
			continue
		}
		s.log.Info("etcdstore: the watch broke; reopening it", zap.Error(err))
		t := s.cfg.Clock.NewTimer(retryEvery)
		select {
		case <-s.ctx.Done():
			t.Stop()
		case <-t.C():
		}
	}
}

// relist replaces the cache's state with a snapshot of every key at etcd's
// current revision, as kube-apiserver's cacher relists when its reflector's
// watch is too old: the writes the cache missed are in the snapshot only, so
// its watchers that had not seen them end with 410 Expired and their clients
// relist in turn (store.Store.Reset).
func (s *Store[V]) relist() error {
	ctx, cancel := s.reqCtx()
	defer cancel()
	cur, err := s.cli.get(ctx, rangeRequest{Key: []byte(s.cfg.Prefix), KeysOnly: true})
	if err != nil {
		return fmt.Errorf("etcdstore: relisting: reading the current revision: %w", err)
	}
	rev := int64(cur.Header.Revision)
	if rev <= s.cache.Rev() {
		// A member that had not yet applied what it compacted: ask again.
		return fmt.Errorf("etcdstore: relisting: etcd's revision %d is not past the cache's %d", rev, s.cache.Rev())
	}
	recs, err := s.snapshot(ctx, rev)
	if err != nil {
		return fmt.Errorf("etcdstore: relisting at %d: %w", rev, err)
	}
	s.stampAll(recs)
	s.log.Warn("etcdstore: the watch cache fell behind etcd's compaction; relisted", zap.Int64("from", s.cache.Rev()), zap.Int64("rev", rev))
	s.cache.Reset(rev, recs)
	s.relists.Add(1)
	s.advanced(rev)
	return nil
}

// watchOnce opens a watch of every key from the cache's next revision and
// applies what it sends until it ends.
func (s *Store[V]) watchOnce() error {
	w, err := s.cli.watch(s.ctx, []byte{0}, []byte{0}, s.cache.Rev()+1)
	if err != nil {
		return err
	}
	defer w.Close()
	for {
		resp, err := w.Next()
		if err != nil {
			return err
		}
		if resp.CompactRevision != 0 {
			return errCompacted
		}
		if resp.Canceled {
			return fmt.Errorf("etcd canceled the watch: %s", resp.CancelReason)
		}
		for _, ev := range resp.Events {
			s.apply(ev)
		}
		if len(resp.Events) == 0 && !resp.Created {
			// A progress notification: every write up to its revision
			// has been sent.
			s.cache.Advance(int64(resp.Header.Revision))
		}
		s.advanced(s.cache.Rev())
	}
}

// apply puts one etcd event into the cache at its revision.
func (s *Store[V]) apply(ev watchEvent) {
	rev := int64(ev.Kv.ModRevision)
	s.cache.Advance(rev - 1)
	if s.cache.Rev() >= rev {
		// A transaction of someone else's that wrote several keys at one
		// revision: the cache holds one write per revision.
		s.log.Warn("etcdstore: several writes at one revision; the cache skips all but the first", zap.Int64("rev", rev), zap.ByteString("key", ev.Kv.Key))
		return
	}
	ekey := string(ev.Kv.Key)
	key, ok := s.cfg.FromEtcd(ekey)
	if !ok {
		s.cache.Advance(rev)
		return
	}
	var err error
	if ev.Type == "DELETE" {
		_, err = s.cache.Delete(key, 0)
	} else {
		v, own := s.takePending(ekey, ev.Kv.Value)
		if !own {
			if v, err = s.cfg.Codec.Decode(key, ev.Kv.Value); err != nil {
				s.log.Error("etcdstore: cannot decode a watched value; the cache skips it", zap.String("key", ekey), zap.Error(err))
				s.cache.Advance(rev)
				return
			}
		}
		if ev.Kv.CreateRevision == ev.Kv.ModRevision {
			_, err = s.cache.Create(key, v)
		} else {
			_, err = s.cache.Update(key, v, 0)
		}
	}
	if err != nil {
		s.log.Error("etcdstore: the cache disagrees with etcd", zap.String("key", ekey), zap.Int64("rev", rev), zap.Error(err))
		s.cache.Advance(rev)
	}
}

// takePending returns the value of this process's own write of data under
// ekey, if there is one, and forgets it.
func (s *Store[V]) takePending(ekey string, data []byte) (v V, own bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, w := range s.pending[ekey] {
		if bytes.Equal(w.data, data) {
			s.dropPendingLocked(ekey, w)
			return w.value, true
		}
	}
	return v, false
}

func (s *Store[V]) dropPendingLocked(ekey string, w *pendingWrite[V]) {
	ws := s.pending[ekey]
	for i, x := range ws {
		if x == w {
			ws = append(ws[:i:i], ws[i+1:]...)
			break
		}
	}
	if len(ws) == 0 {
		delete(s.pending, ekey)
	} else {
		s.pending[ekey] = ws
	}
}

// addPending records a write about to be sent; the returned func forgets it
// if the watch loop did not take it.
func (s *Store[V]) addPending(ekey string, data []byte, v V) func() {
	w := &pendingWrite[V]{data: data, value: v}
	s.mu.Lock()
	s.pending[ekey] = append(s.pending[ekey], w)
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.dropPendingLocked(ekey, w)
	}
}

// advanced records that the cache reached rev and wakes the waiters.
func (s *Store[V]) advanced(rev int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rev > s.applied {
		s.applied = rev
		close(s.tick)
		s.tick = make(chan struct{})
	}
}

// fail ends the Store's service: waiters and later calls get err.
func (s *Store[V]) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failed == nil {
		s.failed = err
		if !errors.Is(err, ErrClosed) {
			s.log.Warn("etcdstore: the watch cache stopped following etcd", zap.Error(err))
		}
		close(s.tick)
	}
}

// waitFor returns once the cache has reached rev.
func (s *Store[V]) waitFor(ctx context.Context, rev int64) error {
	for {
		s.mu.Lock()
		applied, tick, failed := s.applied, s.tick, s.failed
		s.mu.Unlock()
		if applied >= rev {
			return nil
		}
		if failed != nil {
			return failed
		}
		select {
		case <-tick:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// RequestTimeout bounds each request to etcd.
const RequestTimeout = 30 * time.Second

func (s *Store[V]) reqCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(s.ctx, RequestTimeout)
}

// Sync waits until the cache holds every write etcd had acknowledged when
// it was called: what makes a read consistent. The watch covers all of
// etcd's keys, so the cache reaches any revision etcd has without a
// progress request.
func (s *Store[V]) Sync() error {
	ctx, cancel := s.reqCtx()
	defer cancel()
	// A linearizable read of one key tells etcd's revision.
	resp, err := s.cli.get(ctx, rangeRequest{Key: []byte(s.cfg.Prefix), KeysOnly: true})
	if err != nil {
		return fmt.Errorf("etcdstore: reading the current revision: %w", err)
	}
	return s.waitFor(ctx, int64(resp.Header.Revision))
}

// Rev returns the cache's revision.
func (s *Store[V]) Rev() int64 { return s.cache.Rev() }

// Relists returns how many times the cache relisted because etcd's
// compaction overtook it.
func (s *Store[V]) Relists() int64 { return s.relists.Load() }

// Stats returns the cache's counters.
func (s *Store[V]) Stats() store.Stats { return s.cache.Stats() }

// Create stores value under a new key.
func (s *Store[V]) Create(key string, value V) (store.Record[V], error) {
	ekey, data, err := s.encode(key, value)
	if err != nil {
		return store.Record[V]{}, err
	}
	forget := s.addPending(ekey, data, value)
	defer forget()
	ctx, cancel := s.reqCtx()
	defer cancel()
	resp, err := s.cli.txn(ctx, txnRequest{
		Compare: []compare{{Target: "MOD", Key: []byte(ekey), Result: "EQUAL", ModRevision: 0}},
		Success: []requestOp{{RequestPut: &putRequest{Key: []byte(ekey), Value: data}}},
	})
	if err != nil {
		return store.Record[V]{}, fmt.Errorf("etcdstore: create %q: %w", key, err)
	}
	if !resp.Succeeded {
		return store.Record[V]{}, fmt.Errorf("%w: %q", store.ErrExists, key)
	}
	rev := int64(resp.Header.Revision)
	return s.written(ctx, key, rev, store.Record[V]{Key: key, Value: value, CreateRev: rev, ModRev: rev, Version: 1})
}

// Update replaces the value under key, if its ModRev is expectedRev (any,
// when 0).
func (s *Store[V]) Update(key string, value V, expectedRev int64) (store.Record[V], error) {
	ekey, data, err := s.encode(key, value)
	if err != nil {
		return store.Record[V]{}, err
	}
	forget := s.addPending(ekey, data, value)
	defer forget()
	ctx, cancel := s.reqCtx()
	defer cancel()
	resp, err := s.conditional(ctx, "update", key, ekey, expectedRev, requestOp{RequestPut: &putRequest{Key: []byte(ekey), Value: data}})
	if err != nil {
		return store.Record[V]{}, err
	}
	rev := int64(resp.Header.Revision)
	return s.written(ctx, key, rev, store.Record[V]{Key: key, Value: value, ModRev: rev})
}

// conditional runs op on ekey in a transaction that holds if the key's
// ModRevision is expectedRev (modRevIs), and says why it did not hold.
func (s *Store[V]) conditional(ctx context.Context, verb, key, ekey string, expectedRev int64, op requestOp) (*txnResponse, error) {
	resp, err := s.cli.txn(ctx, txnRequest{
		Compare: []compare{modRevIs(ekey, expectedRev)},
		Success: []requestOp{op},
		Failure: []requestOp{{RequestRange: &rangeRequest{Key: []byte(ekey), KeysOnly: true}}},
	})
	if err != nil {
		return nil, fmt.Errorf("etcdstore: %s %q: %w", verb, key, err)
	}
	if !resp.Succeeded {
		return nil, failure(key, expectedRev, resp)
	}
	return resp, nil
}

// Delete removes key, if its ModRev is expectedRev (any, when 0).
func (s *Store[V]) Delete(key string, expectedRev int64) (store.Record[V], error) {
	ekey := s.cfg.ToEtcd(key)
	ctx, cancel := s.reqCtx()
	defer cancel()
	resp, err := s.conditional(ctx, "delete", key, ekey, expectedRev, requestOp{RequestDeleteRange: &deleteRangeRequest{Key: []byte(ekey), PrevKv: true}})
	if err != nil {
		return store.Record[V]{}, err
	}
	rev := int64(resp.Header.Revision)
	if err := s.waitFor(ctx, rev); err != nil {
		return store.Record[V]{}, err
	}
	if r, err := s.cache.Get(key, rev-1); err == nil {
		return r, nil
	}
	// The cache's window already moved past it: decode what etcd returned.
	var prev []keyValue
	if len(resp.Responses) > 0 && resp.Responses[0].ResponseDeleteRange != nil {
		prev = resp.Responses[0].ResponseDeleteRange.PrevKvs
	}
	if len(prev) == 0 {
		return store.Record[V]{}, fmt.Errorf("%w: %q", store.ErrNotFound, key)
	}
	v, err := s.cfg.Codec.Decode(key, prev[0].Value)
	if err != nil {
		return store.Record[V]{}, err
	}
	return record(key, v, prev[0]), nil
}

func (s *Store[V]) encode(key string, value V) (string, []byte, error) {
	data, err := s.cfg.Codec.Encode(key, value)
	if err != nil {
		return "", nil, fmt.Errorf("etcdstore: encoding %q: %w", key, err)
	}
	return s.cfg.ToEtcd(key), data, nil
}

// modRevIs is the transaction's condition: the key's ModRevision is
// expected, or, when expected is 0, the key exists.
func modRevIs(ekey string, expected int64) compare {
	if expected == 0 {
		return compare{Target: "MOD", Key: []byte(ekey), Result: "GREATER", ModRevision: 0}
	}
	return compare{Target: "MOD", Key: []byte(ekey), Result: "EQUAL", ModRevision: expected}
}

// failure tells why a conditional write failed, from its Failure read.
func failure(key string, expected int64, resp *txnResponse) error {
	var kvs []keyValue
	if len(resp.Responses) > 0 && resp.Responses[0].ResponseRange != nil {
		kvs = resp.Responses[0].ResponseRange.Kvs
	}
	if len(kvs) == 0 {
		return fmt.Errorf("%w: %q", store.ErrNotFound, key)
	}
	return &store.ConflictError{Key: key, Expected: expected, Actual: int64(kvs[0].ModRevision)}
}

// written waits for the cache to hold the write at rev and returns its
// record there (own, when the cache's window already moved past it).
func (s *Store[V]) written(ctx context.Context, key string, rev int64, own store.Record[V]) (store.Record[V], error) {
	if err := s.waitFor(ctx, rev); err != nil {
		return store.Record[V]{}, err
	}
	if r, err := s.cache.Get(key, rev); err == nil && r.ModRev == rev {
		return r, nil
	}
	return own, nil
}

// consistent waits, for a read at revision 0, until the cache has every
// write etcd acknowledged.
func (s *Store[V]) consistent(rev int64) error {
	if rev != 0 {
		return nil
	}
	return s.Sync()
}

// Get reads key from the cache; at revision 0 after a Sync.
func (s *Store[V]) Get(key string, rev int64) (store.Record[V], error) {
	if err := s.consistent(rev); err != nil {
		return store.Record[V]{}, err
	}
	return s.cache.Get(key, rev)
}

// List reads a page from the cache; at revision 0 after a Sync.
func (s *Store[V]) List(prefix string, opts store.ListOptions) (store.ListResult[V], error) {
	if err := s.consistent(opts.Rev); err != nil {
		return store.ListResult[V]{}, err
	}
	return s.cache.List(prefix, opts)
}

// Range walks a page of the cache; at revision 0 after a Sync.
func (s *Store[V]) Range(prefix string, opts store.ListOptions, fn func(store.Record[V]) bool) (int64, bool, error) {
	if err := s.consistent(opts.Rev); err != nil {
		return 0, false, err
	}
	return s.cache.Range(prefix, opts, fn)
}

// Watch watches the cache.
func (s *Store[V]) Watch(prefix string, fromRev int64) (*store.Watcher[V], error) {
	return s.cache.Watch(prefix, fromRev)
}

// Compact compacts etcd, then the cache, at rev: reads and watches before
// rev then fail with store.ErrCompacted (410 Gone).
func (s *Store[V]) Compact(rev int64) error {
	// The cache decides what is compacted already or not yet written: its
	// window may have moved past revisions etcd still keeps.
	if st := s.cache.Stats(); rev <= st.CompactRev {
		return &store.CompactedError{Rev: rev, CompactRev: st.CompactRev}
	} else if rev > st.Rev {
		return fmt.Errorf("%w: revision %d, current is %d", store.ErrFutureRev, rev, st.Rev)
	}
	ctx, cancel := s.reqCtx()
	defer cancel()
	if err := s.cli.compact(ctx, rev); err != nil {
		switch {
		case errors.Is(err, errCompacted):
			return &store.CompactedError{Rev: rev, CompactRev: s.cache.Stats().CompactRev}
		case errors.Is(err, errFutureRev):
			return fmt.Errorf("%w: revision %d", store.ErrFutureRev, rev)
		}
		return fmt.Errorf("etcdstore: compact at %d: %w", rev, err)
	}
	if err := s.waitFor(ctx, rev); err != nil {
		return err
	}
	if err := s.cache.Compact(rev); err != nil && !errors.Is(err, store.ErrCompacted) {
		return err
	}
	return nil
}

// compactLoop compacts, every CompactEvery, at the revision seen one
// period before, so that watchers have had a period to catch up.
func (s *Store[V]) compactLoop(last int64) {
	t := s.cfg.Clock.NewTimer(s.cfg.CompactEvery)
	defer t.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-t.C():
		}
		now := s.cache.Rev()
		if last > s.cache.Stats().CompactRev {
			if err := s.Compact(last); err != nil && !errors.Is(err, store.ErrCompacted) {
				s.log.Warn("etcdstore: compaction failed", zap.Int64("rev", last), zap.Error(err))
			}
		}
		last = now
		t.Reset(s.cfg.CompactEvery)
	}
}

// Close stops following etcd; later waits fail with ErrClosed.
func (s *Store[V]) Close() error {
	s.cancel()
	<-s.done
	return nil
}
