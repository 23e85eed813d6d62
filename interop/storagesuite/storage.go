// Package storagesuite is k8s.io/apiserver's storage.Interface over
// miniplane's store, so that Kubernetes' own storage tests
// (k8s.io/apiserver/pkg/storage/testing, the suite kube-apiserver runs
// against its etcd3 store) run against both of miniplane's backends: the
// in-memory store.Store and etcdstore over etcd.
//
// Storage follows k8s.io/apiserver/pkg/storage/etcd3/store.go call for
// call, with the store's single-key writes in place of etcd's
// transactions: a create is store.Create (etcd3's put if ModRevision is 0),
// an update or delete names the ModRev it read (etcd3's compare on
// ModRevision) and, when that fails, reads the key again and retries, as
// etcd3 does with the value its failed transaction returned. Values are the
// objects encoded by the codec and passed through the transformer, with the
// key as authenticated data, as etcd3 stores them.
package storagesuite

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/value"

	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/store"
)

// Backend is the store Storage runs on: store.Store[[]byte] or
// etcdstore.Store[[]byte].
type Backend = store.Backend[[]byte]

// syncer is a backend whose reads may lag its source of truth (etcdstore):
// Sync waits until they no longer do.
type syncer interface{ Sync() error }

// Config configures a Storage.
type Config struct {
	Backend        Backend
	Codec          runtime.Codec
	Transformer    value.Transformer
	NewFunc        func() runtime.Object // the stored type, for bookmarks
	ResourcePrefix string                // every key is under it, e.g. "/pods/"
	// ProgressNotifyInterval is how often a watch that asked for progress
	// notifications (ListOptions.ProgressNotify) gets a bookmark, as
	// etcd's --experimental-watch-progress-notify-interval; 0: never.
	ProgressNotifyInterval time.Duration
	// Clock times the progress notifications; nil: clock.Real{}.
	Clock clock.Clock
}

// Storage is storage.Interface over a Backend.
type Storage struct {
	b           Backend
	codec       runtime.Codec
	versioner   storage.APIObjectVersioner
	newFunc     func() runtime.Object
	resPrefix   string
	progressDur time.Duration
	clock       clock.Clock
	mu          sync.Mutex
	transformer value.Transformer
	// watches are the live watches, told of RequestWatchProgress.
	watches map[*watchChan]struct{}
}

var _ storage.Interface = (*Storage)(nil)

// New returns a Storage over cfg.Backend.
func New(cfg Config) (*Storage, error) {
	if !strings.HasPrefix(cfg.ResourcePrefix, "/") || cfg.ResourcePrefix == "/" {
		return nil, fmt.Errorf("resourcePrefix %q must start with / and name a resource", cfg.ResourcePrefix)
	}
	t := cfg.Transformer
	if t == nil {
		t = identity{}
	}
	clk := cfg.Clock
	if clk == nil {
		clk = clock.Real{}
	}
	return &Storage{b: cfg.Backend, codec: cfg.Codec, transformer: t, newFunc: cfg.NewFunc,
		resPrefix: cfg.ResourcePrefix, progressDur: cfg.ProgressNotifyInterval, clock: clk,
		watches: make(map[*watchChan]struct{})}, nil
}

// identity is the transformer that stores data as it is.
type identity struct{}

func (identity) TransformFromStorage(_ context.Context, data []byte, _ value.Context) ([]byte, bool, error) {
	return data, false, nil
}
func (identity) TransformToStorage(_ context.Context, data []byte, _ value.Context) ([]byte, error) {
	return data, nil
}

// Transformer returns the transformer values pass through.
func (s *Storage) Transformer() value.Transformer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.transformer
}

// SetTransformer replaces the transformer and returns the previous one: the
// suite swaps it to store values a reader cannot transform.
func (s *Storage) SetTransformer(t value.Transformer) value.Transformer {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.transformer
	s.transformer = t
	return old
}

// authData is the key as the transformer's authenticated data.
type authData string

func (d authData) AuthenticatedData() []byte { return []byte(d) }

// Versioner is kube-apiserver's: resourceVersion is the store's ModRev.
func (s *Storage) Versioner() storage.Versioner { return s.versioner }

// ReadinessCheck: a Storage is ready once made.
func (s *Storage) ReadinessCheck() error { return nil }

// CompactRevision is the oldest revision the store can still read.
func (s *Storage) CompactRevision() int64 { return s.b.Stats().CompactRev }

// EnableResourceSizeEstimation is not supported: Stats counts objects only.
func (s *Storage) EnableResourceSizeEstimation(storage.KeysFunc) error {
	return errors.New("storagesuite: resource size estimation is not supported")
}

// prepareKey checks key as etcd3 does; the store's key is the prepared key.
func (s *Storage) prepareKey(key string, recursive bool) (string, error) {
	return storage.PrepareKey(s.resPrefix, key, recursive)
}

// current returns the store's revision as a consistent read sees it.
func (s *Storage) current() (int64, error) {
	if sy, ok := s.b.(syncer); ok {
		if err := sy.Sync(); err != nil {
			return 0, err
		}
	}
	return s.b.Rev(), nil
}

// GetCurrentResourceVersion returns the store's current revision.
func (s *Storage) GetCurrentResourceVersion(context.Context) (uint64, error) {
	rev, err := s.current()
	return uint64(rev), err
}

// Stats counts the objects under the resource prefix.
func (s *Storage) Stats(context.Context) (storage.Stats, error) {
	prefix, err := s.prepareKey(s.resPrefix, true)
	if err != nil {
		return storage.Stats{}, err
	}
	var n int64
	if _, _, err := s.b.Range(prefix, store.ListOptions{}, func(store.Record[[]byte]) bool { n++; return true }); err != nil {
		return storage.Stats{}, err
	}
	return storage.Stats{ObjectCount: n}, nil
}

// decode decodes data into out and stamps rev as its resourceVersion.
func (s *Storage) decode(data []byte, out runtime.Object, rev int64) error {
	if _, err := conversion.EnforcePtr(out); err != nil {
		return fmt.Errorf("unable to convert output object to pointer: %v", err)
	}
	if _, _, err := s.codec.Decode(data, nil, out); err != nil {
		return err
	}
	return s.versioner.UpdateObject(out, uint64(rev))
}

// validateMinimumResourceVersion is etcd3's: a read that asks for a
// revision the store has not reached fails with TooLargeResourceVersion.
func (s *Storage) validateMinimumResourceVersion(minimum string, actual int64) error {
	if minimum == "" {
		return nil
	}
	rv, err := s.versioner.ParseResourceVersion(minimum)
	if err != nil {
		return apierrors.NewBadRequest(fmt.Sprintf("invalid resource version: %v", err))
	}
	if rv > uint64(actual) {
		return storage.NewTooLargeResourceVersionError(rv, uint64(actual), 0)
	}
	return nil
}

// get reads key at the current revision: its record (nil when absent) and
// the revision read.
func (s *Storage) get(key string) (*store.Record[[]byte], int64, error) {
	rev, err := s.current()
	if err != nil {
		return nil, 0, err
	}
	r, err := s.b.Get(key, rev)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, rev, nil
	case err != nil:
		return nil, 0, err
	}
	return &r, rev, nil
}

// Get reads the object at key, as etcd3 does: at the current revision,
// which must be at least opts.ResourceVersion.
func (s *Storage) Get(ctx context.Context, key string, opts storage.GetOptions, out runtime.Object) error {
	key, err := s.prepareKey(key, false)
	if err != nil {
		return err
	}
	r, rev, err := s.get(key)
	if err != nil {
		return err
	}
	if err := s.validateMinimumResourceVersion(opts.ResourceVersion, rev); err != nil {
		return err
	}
	if r == nil {
		if opts.IgnoreNotFound {
			return runtime.SetZeroValue(out)
		}
		return storage.NewKeyNotFoundError(key, 0)
	}
	data, _, err := s.Transformer().TransformFromStorage(ctx, r.Value, authData(key))
	if err != nil {
		return storage.NewInternalError(err)
	}
	return s.decode(data, out, r.ModRev)
}

// Create stores obj under key if the key is free. A TTL is accepted and
// has no effect: the store has no leases (docs/storage-suite.md).
func (s *Storage) Create(ctx context.Context, key string, obj, out runtime.Object, ttl uint64) error {
	key, err := s.prepareKey(key, false)
	if err != nil {
		return err
	}
	if v, err := s.versioner.ObjectResourceVersion(obj); err == nil && v != 0 {
		return storage.ErrResourceVersionSetOnCreate
	}
	if err := s.versioner.PrepareObjectForStorage(obj); err != nil {
		return fmt.Errorf("PrepareObjectForStorage failed: %v", err)
	}
	data, err := runtime.Encode(s.codec, obj)
	if err != nil {
		return err
	}
	stored, err := s.Transformer().TransformToStorage(ctx, data, authData(key))
	if err != nil {
		return storage.NewInternalError(err)
	}
	r, err := s.b.Create(key, stored)
	if errors.Is(err, store.ErrExists) {
		return storage.NewKeyExistsError(key, 0)
	}
	if err != nil {
		return err
	}
	if out != nil {
		return s.decode(data, out, r.ModRev)
	}
	return nil
}

// objState is what an update or delete knows of the key: etcd3's.
type objState struct {
	obj   runtime.Object
	meta  storage.ResponseMeta
	rev   int64
	data  []byte
	stale bool
}

// stateOf decodes r (nil: the key is absent) into a new object of v's type.
func (s *Storage) stateOf(ctx context.Context, r *store.Record[[]byte], key string, v reflect.Value, ignoreNotFound, expectUndecodable bool) (*objState, error) {
	st := &objState{}
	if u, ok := v.Addr().Interface().(runtime.Unstructured); ok {
		st.obj = u.NewEmptyInstance()
	} else {
		st.obj = reflect.New(v.Type()).Interface().(runtime.Object)
	}
	if r == nil {
		if !ignoreNotFound {
			return nil, storage.NewKeyNotFoundError(key, 0)
		}
		if err := runtime.SetZeroValue(st.obj); err != nil {
			return nil, err
		}
		return st, nil
	}
	st.rev = r.ModRev
	st.meta.ResourceVersion = uint64(r.ModRev)
	data, stale, err := s.Transformer().TransformFromStorage(ctx, r.Value, authData(key))
	if err != nil {
		if !expectUndecodable {
			return nil, storage.NewInternalError(err)
		}
		st.obj, st.stale = nil, true
		return st, nil
	}
	st.data, st.stale = data, stale
	if err := s.decode(data, st.obj, st.rev); err != nil {
		if !expectUndecodable {
			return nil, err
		}
		st.obj = nil
		return st, nil
	}
	if expectUndecodable {
		return nil, storage.NewInvalidObjError(key, "unsafe deletion is not allowed because the object is decodable from storage")
	}
	return st, nil
}

// currentState reads key afresh and decodes it.
func (s *Storage) currentState(ctx context.Context, key string, v reflect.Value, ignoreNotFound, expectUndecodable bool) func() (*objState, error) {
	return func() (*objState, error) {
		r, _, err := s.get(key)
		if err != nil {
			return nil, err
		}
		return s.stateOf(ctx, r, key, v, ignoreNotFound, expectUndecodable)
	}
}

// stateFromObject is the state a caller's cached object describes.
func (s *Storage) stateFromObject(obj runtime.Object) (*objState, error) {
	rv, err := s.versioner.ObjectResourceVersion(obj)
	if err != nil {
		return nil, fmt.Errorf("couldn't get resource version: %v", err)
	}
	st := &objState{obj: obj, rev: int64(rv)}
	st.meta.ResourceVersion = rv
	// The object's resourceVersion is cleared to encode it as stored, and
	// put back: the caller still holds it.
	if err := s.versioner.PrepareObjectForStorage(obj); err != nil {
		return nil, fmt.Errorf("PrepareObjectForStorage failed: %v", err)
	}
	if st.data, err = runtime.Encode(s.codec, obj); err != nil {
		return nil, err
	}
	_ = s.versioner.UpdateObject(st.obj, rv)
	return st, nil
}

// attempt is an update's or a delete's view of its key, as etcd3's
// loops keep it: the state it works from, and whether that state was read
// from the store rather than taken from the caller's cached object.
type attempt struct {
	get     func() (*objState, error)
	state   *objState
	current bool
}

// start takes the cached object when there is one, else reads the key.
func (a *attempt) start(s *Storage, cached runtime.Object) error {
	if cached == nil {
		return a.refresh()
	}
	st, err := s.stateFromObject(cached)
	a.state = st
	return err
}

// refresh reads the key afresh.
func (a *attempt) refresh() error {
	st, err := a.get()
	if err != nil {
		return err
	}
	a.state, a.current = st, true
	return nil
}

// recheck is what follows a check that failed with checkErr on the
// state: the failure stands if the state was current or the key has not
// changed since the cached object; otherwise again is true and the caller
// tries with the fresh state.
func (a *attempt) recheck(checkErr error) (again bool, err error) {
	if a.current {
		return false, checkErr
	}
	cachedRev := a.state.rev
	if err := a.refresh(); err != nil {
		return false, err
	}
	if cachedRev == a.state.rev {
		return false, checkErr
	}
	return true, nil
}

// lostRace says whether a write failed because the key changed since it
// was read: the caller reads it again and retries, as etcd3 does when its
// transaction's comparison fails.
func lostRace(err error) bool {
	return errors.Is(err, store.ErrConflict) || errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrExists)
}

// Delete removes the object at key once preconditions and validateDeletion
// hold for its current state, as etcd3's conditionalDelete: a cached
// object is tried first and read afresh when a check fails on it.
func (s *Storage) Delete(ctx context.Context, key string, out runtime.Object, preconditions *storage.Preconditions,
	validateDeletion storage.ValidateObjectFunc, cachedExistingObject runtime.Object, opts storage.DeleteOptions) error {
	key, err := s.prepareKey(key, false)
	if err != nil {
		return err
	}
	v, err := conversion.EnforcePtr(out)
	if err != nil {
		return fmt.Errorf("unable to convert output object to pointer: %v", err)
	}
	expectUndecodable := unsafeDeletionEnabled() && opts.ExpectTransformOrDecodeError
	a := &attempt{get: s.currentState(ctx, key, v, false, expectUndecodable)}
	if expectUndecodable {
		cachedExistingObject = nil
	}
	if err := a.start(s, cachedExistingObject); err != nil {
		return err
	}
	for {
		checkErr := preconditions.Check(key, a.state.obj)
		if checkErr == nil {
			checkErr = validateDeletion(ctx, a.state.obj)
		}
		if checkErr != nil {
			if again, err := a.recheck(checkErr); !again {
				return err
			}
			continue
		}
		r, err := s.b.Delete(key, a.state.rev)
		if lostRace(err) {
			if err := a.refresh(); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		if expectUndecodable {
			return nil
		}
		// etcd3 stamps the deleted object with the delete's revision.
		return s.decode(a.state.data, out, s.deleteRev(r))
	}
}

// deleteRev is the revision of the delete that removed r: the store's
// current revision right after it, which no later write has moved yet
// unless another writer was quicker; store.Backend.Delete does not return
// it (docs/storage-suite.md).
func (s *Storage) deleteRev(store.Record[[]byte]) int64 { return s.b.Rev() }

// GuaranteedUpdate applies tryUpdate to the current object at key and
// stores the result if the key has not changed since it was read, retrying
// on conflict, as etcd3's does; an update that changes nothing writes
// nothing. A TTL is accepted and has no effect: the store has no leases,
// and the object never expires (docs/storage-suite.md).
func (s *Storage) GuaranteedUpdate(ctx context.Context, key string, destination runtime.Object, ignoreNotFound bool,
	preconditions *storage.Preconditions, tryUpdate storage.UpdateFunc, cachedExistingObject runtime.Object) error {
	key, err := s.prepareKey(key, false)
	if err != nil {
		return err
	}
	v, err := conversion.EnforcePtr(destination)
	if err != nil {
		return fmt.Errorf("unable to convert output object to pointer: %v", err)
	}
	a := &attempt{get: s.currentState(ctx, key, v, ignoreNotFound, false)}
	if err := a.start(s, cachedExistingObject); err != nil {
		return err
	}
	for {
		if err := preconditions.Check(key, a.state.obj); err != nil {
			if a.current {
				return err
			}
			if err := a.refresh(); err != nil {
				return err
			}
			continue
		}
		ret, _, updateErr := s.updateState(a.state, tryUpdate)
		if updateErr != nil {
			if again, err := a.recheck(updateErr); !again {
				return err
			}
			continue
		}
		data, err := runtime.Encode(s.codec, ret)
		if err != nil {
			return err
		}
		if !a.state.stale && bytes.Equal(data, a.state.data) {
			// Nothing changed: check against the current state, not a
			// cached one, before answering without a write.
			if !a.current {
				if err := a.refresh(); err != nil {
					return err
				}
				if !bytes.Equal(data, a.state.data) {
					continue
				}
			}
			if !a.state.stale {
				return s.decode(a.state.data, destination, a.state.rev)
			}
		}
		stored, err := s.Transformer().TransformToStorage(ctx, data, authData(key))
		if err != nil {
			return storage.NewInternalError(err)
		}
		var r store.Record[[]byte]
		if a.state.rev == 0 {
			r, err = s.b.Create(key, stored)
		} else {
			r, err = s.b.Update(key, stored, a.state.rev)
		}
		if lostRace(err) {
			if err := a.refresh(); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		return s.decode(data, destination, r.ModRev)
	}
}

// updateState runs the caller's update on st.
func (s *Storage) updateState(st *objState, update storage.UpdateFunc) (runtime.Object, uint64, error) {
	ret, ttl, err := update(st.obj, st.meta)
	if err != nil {
		return nil, 0, err
	}
	if err := s.versioner.PrepareObjectForStorage(ret); err != nil {
		return nil, 0, fmt.Errorf("PrepareObjectForStorage failed: %v", err)
	}
	if ttl != nil {
		return ret, *ttl, nil
	}
	return ret, 0, nil
}

// listError is etcd3's interpretation of a failed read for a list.
func (s *Storage) listError(err error, withRev int64, paging bool, continueKey, keyPrefix string) error {
	switch {
	case errors.Is(err, store.ErrFutureRev):
		cur, cerr := s.current()
		if cerr != nil {
			cur = 0
		}
		return storage.NewTooLargeResourceVersionError(uint64(withRev), uint64(cur), 0)
	case errors.Is(err, store.ErrCompacted) && paging:
		token, terr := storage.EncodeContinue(continueKey, keyPrefix, -1)
		if terr != nil {
			return apierrors.NewResourceExpired(continueExpired)
		}
		se := apierrors.NewResourceExpired(inconsistentContinue)
		se.ErrStatus.ListMeta.Continue = token
		return se
	case errors.Is(err, store.ErrCompacted):
		return apierrors.NewResourceExpired(expired)
	}
	return err
}

// etcd3's messages for lists at compacted revisions.
const (
	expired         = "The resourceVersion for the provided list is too old."
	continueExpired = "The provided continue parameter is too old " +
		"to display a consistent list result. You can start a new list without " +
		"the continue parameter."
	inconsistentContinue = "The provided continue parameter is too old " +
		"to display a consistent list result. You can start a new list without " +
		"the continue parameter, or use the continue token in this response to " +
		"retrieve the remainder of the results. Continuing with the provided " +
		"token results in an inconsistent list - objects that were created, " +
		"modified, or deleted between the time the first chunk was returned " +
		"and now may show up in the list."
)

// GetList lists the objects at key (one, or every one under it when
// opts.Recursive) that match opts.Predicate, a page at a time when it has
// a Limit, at the revision opts ask for, as etcd3's GetList.
func (s *Storage) GetList(ctx context.Context, key string, opts storage.ListOptions, listObj runtime.Object) error {
	keyPrefix, err := s.prepareKey(key, opts.Recursive)
	if err != nil {
		return err
	}
	listPtr, err := meta.GetItemsPtr(listObj)
	if err != nil {
		return err
	}
	v, err := conversion.EnforcePtr(listPtr)
	if err != nil || v.Kind() != reflect.Slice {
		return fmt.Errorf("need ptr to slice: %v", err)
	}
	withRev, continueKey, err := storage.ValidateListOptions(keyPrefix, s.versioner, opts)
	if err != nil {
		return err
	}
	pred := opts.Predicate
	paging := pred.Limit > 0
	readRev := withRev
	if readRev == 0 {
		if readRev, err = s.current(); err != nil {
			return err
		}
	}
	newItem := newItemFunc(v)
	errs := newListErrors()
	var (
		lastKey string
		hasMore bool
		count   int64 // keys from the start of the page to the end of the range
		walkErr error
	)
	visit := func(r store.Record[[]byte]) bool {
		if !opts.Recursive && r.Key != keyPrefix {
			return true
		}
		if r.Key < continueKey {
			return true
		}
		count++
		if hasMore {
			return true // counting what remains
		}
		if paging && int64(v.Len()) >= pred.Limit {
			hasMore = true
			return true
		}
		lastKey = r.Key
		if err := s.appendItem(ctx, r, pred, newItem, errs, v); err != nil {
			walkErr = err
			return false
		}
		return true
	}
	after := ""
	if strings.HasSuffix(continueKey, "\x00") {
		after = strings.TrimSuffix(continueKey, "\x00")
	}
	gotRev, _, err := s.b.Range(keyPrefix, store.ListOptions{Rev: readRev, After: after}, visit)
	if err != nil {
		return s.listError(err, readRev, len(pred.Continue) > 0, continueKey, keyPrefix)
	}
	if walkErr != nil {
		return walkErr
	}
	if withRev == 0 {
		if err := s.validateMinimumResourceVersion(opts.ResourceVersion, gotRev); err != nil {
			return err
		}
		withRev = gotRev
	}
	token, remaining, err := storage.PrepareContinueToken(lastKey, keyPrefix, withRev, count, hasMore, opts)
	if err != nil {
		return err
	}
	if err := errs.aggregate(); err != nil {
		return err
	}
	if v.IsNil() {
		v.Set(reflect.MakeSlice(v.Type(), 0, 0))
	}
	return s.versioner.UpdateList(listObj, uint64(withRev), token, remaining)
}

// appendItem decodes r and appends it to v if it matches pred.
func (s *Storage) appendItem(ctx context.Context, r store.Record[[]byte], pred storage.SelectionPredicate, newItem func() runtime.Object, errs *listErrors, v reflect.Value) error {
	data, _, err := s.Transformer().TransformFromStorage(ctx, r.Value, authData(r.Key))
	if err != nil {
		return errs.add(r.Key, storage.NewInternalError(fmt.Errorf("unable to transform key %q: %w", r.Key, err)))
	}
	obj := newItem()
	if err := s.decode(data, obj, r.ModRev); err != nil {
		return errs.add(r.Key, err)
	}
	if ok, err := pred.Matches(obj); err == nil && ok {
		v.Set(reflect.Append(v, reflect.ValueOf(obj).Elem()))
	}
	return nil
}

// newItemFunc makes the list's item type.
func newItemFunc(v reflect.Value) func() runtime.Object {
	elem := v.Type().Elem()
	return func() runtime.Object { return reflect.New(elem).Interface().(runtime.Object) }
}

// Watch starts a watch of key (or of every key under it when
// opts.Recursive) from opts.ResourceVersion.
func (s *Storage) Watch(ctx context.Context, key string, opts storage.ListOptions) (watch.Interface, error) {
	key, err := s.prepareKey(key, opts.Recursive)
	if err != nil {
		return nil, err
	}
	rev, err := s.versioner.ParseResourceVersion(opts.ResourceVersion)
	if err != nil {
		return nil, err
	}
	return s.watch(ctx, key, int64(rev), opts)
}

// RequestWatchProgress asks every live watch for a bookmark at the
// revision it has reached, as etcd's progress request does.
func (s *Storage) RequestWatchProgress(context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for w := range s.watches {
		select {
		case w.progress <- struct{}{}:
		default:
		}
	}
	return nil
}
