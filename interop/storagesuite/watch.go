package storagesuite

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/features"
	"k8s.io/apiserver/pkg/storage"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	utilflowcontrol "k8s.io/apiserver/pkg/util/flowcontrol"

	"github.com/miniplane/miniplane/store"
)

// outgoingBuf is how many events a watch holds for a slow reader: etcd3's.
const outgoingBuf = 100

// unsafeDeletionEnabled says whether deleting objects that no longer
// decode is allowed (AllowUnsafeMalformedObjectDeletion).
func unsafeDeletionEnabled() bool {
	return utilfeature.DefaultFeatureGate.Enabled(features.AllowUnsafeMalformedObjectDeletion)
}

// listErrors keeps the first error of a list: etcd3's default, which ends
// the list there.
type listErrors struct{ err error }

func newListErrors() *listErrors { return &listErrors{} }

// add records err and returns it: the list stops.
func (l *listErrors) add(_ string, err error) error {
	l.err = err
	return err
}

func (l *listErrors) aggregate() error { return l.err }

// watchChan is one watch: a store.Watcher whose events it decodes,
// filters and sends, as etcd3's watchChan does with etcd's.
type watchChan struct {
	s         *Storage
	key       string
	recursive bool
	pred      storage.SelectionPredicate
	// initialRev is the revision the watch starts after.
	initialRev     int64
	progressNotify bool // bookmarks every Storage.progressDur
	initialEvents  bool // send the state at start as Added events first
	endBookmark    bool // then a bookmark that says they are all sent
	ctx            context.Context
	cancel         context.CancelFunc
	result         chan watch.Event
	progress       chan struct{} // RequestWatchProgress was called
	resetTimer     func()        // restarts the progress notification timer
}

// watch starts a watch of key after revision rev, as etcd3's watcher.Watch.
func (s *Storage) watch(ctx context.Context, key string, rev int64, opts storage.ListOptions) (watch.Interface, error) {
	if opts.ProgressNotify && s.newFunc == nil {
		return nil, apierrors.NewInternalError(errors.New("progressNotify for watch is unsupported by the etcd storage because no newFunc was provided"))
	}
	watchList := utilfeature.DefaultFeatureGate.Enabled(features.WatchList)
	sendInitial := opts.SendInitialEvents != nil && *opts.SendInitialEvents
	if rev == 0 && watchList && opts.SendInitialEvents != nil && !sendInitial {
		// Not the state, and no older events: from now on.
		cur, err := s.current()
		if err != nil {
			return nil, err
		}
		rev = cur
	}
	w := &watchChan{
		s:              s,
		key:            key,
		recursive:      opts.Recursive,
		pred:           opts.Predicate,
		initialRev:     rev,
		progressNotify: opts.ProgressNotify && s.progressDur > 0,
		initialEvents:  (opts.SendInitialEvents == nil && rev == 0) || (watchList && sendInitial),
		endBookmark:    watchList && sendInitial && opts.Predicate.AllowWatchBookmarks,
		result:         make(chan watch.Event, outgoingBuf),
		progress:       make(chan struct{}, 1),
	}
	if w.pred.Empty() {
		w.pred = storage.Everything
	}
	w.ctx, w.cancel = context.WithCancel(ctx)
	s.mu.Lock()
	s.watches[w] = struct{}{}
	s.mu.Unlock()
	go w.run()
	utilflowcontrol.WatchInitialized(ctx)
	return w, nil
}

// Stop ends the watch; its result channel closes.
func (w *watchChan) Stop() { w.cancel() }

// ResultChan is where the events arrive.
func (w *watchChan) ResultChan() <-chan watch.Event { return w.result }

// run sends the initial state if asked, then every event from the store.
func (w *watchChan) run() {
	defer func() {
		w.s.mu.Lock()
		delete(w.s.watches, w)
		w.s.mu.Unlock()
		w.cancel()
		close(w.result)
	}()
	if w.initialEvents {
		if !w.sync() {
			return
		}
	}
	if w.endBookmark {
		if !w.bookmark(w.initialRev, true) {
			return
		}
	}
	// A watch from a resourceVersion the store has compacted away is too
	// old, as a list at it is, even when every event after it is still
	// kept: etcd3 cannot give the first one its previous value then, and
	// kube-apiserver's watch cache drops the events up to the compaction.
	if rev := w.initialRev; rev > 0 && rev < w.s.CompactRevision() {
		w.sendError(store.ErrCompacted)
		return
	}
	bw, err := w.s.b.Watch(w.key, w.initialRev+1)
	if err != nil {
		w.sendError(err)
		return
	}
	defer bw.Stop()
	var buf []store.Event[[]byte]
	wantProgress := false
	// tick is the progress notification timer; nil when not asked for.
	var tick <-chan time.Time
	if w.progressNotify {
		timer := w.s.clock.NewTimer(w.s.progressDur)
		defer timer.Stop()
		tick = timer.C()
		w.resetTimer = func() { timer.Reset(w.s.progressDur) }
	}
	for {
		select {
		case <-w.ctx.Done():
			return
		case <-bw.Ready():
		case <-w.progress:
			wantProgress = true
		case <-tick:
			wantProgress = true
			w.resetTimer()
		}
		events, progress, err := bw.Poll(buf[:0], 0)
		for _, ev := range events {
			if !w.recursive && ev.Key != w.key {
				continue
			}
			out, err := w.transform(ev)
			if err != nil {
				w.sendError(err)
				return
			}
			if out != nil && !w.send(*out) {
				return
			}
		}
		if err != nil {
			w.sendError(err)
			return
		}
		if wantProgress {
			if !w.bookmark(progress, false) {
				return
			}
			wantProgress = false
		}
		buf = events
	}
}

// sync sends the state at the current revision as Added events and makes
// it the watch's start, as etcd3's sync does; a watch from a revision the
// store has not reached fails.
func (w *watchChan) sync() bool {
	cur, err := w.s.current()
	if err != nil {
		w.sendError(err)
		return false
	}
	if w.initialRev > cur {
		w.sendError(storage.NewTooLargeResourceVersionError(uint64(w.initialRev), uint64(cur), 1))
		return false
	}
	var errOut error
	ok := true
	rev, _, err := w.s.b.Range(w.key, store.ListOptions{Rev: cur}, func(r store.Record[[]byte]) bool {
		if !w.recursive && r.Key != w.key {
			return true
		}
		obj, err := w.s.decodeEvent(w.ctx, r.Key, r.Value, r.ModRev)
		if err != nil {
			errOut = err
			return false
		}
		if w.filter(obj) {
			ok = w.send(watch.Event{Type: watch.Added, Object: obj})
		}
		return ok
	})
	if err == nil {
		err = errOut
	}
	if err != nil {
		w.sendError(err)
		return false
	}
	w.initialRev = rev
	return ok
}

// bookmark sends a Bookmark at rev.
func (w *watchChan) bookmark(rev int64, initialEventsEnd bool) bool {
	obj := w.s.newFunc()
	if err := w.s.versioner.UpdateObject(obj, uint64(rev)); err != nil {
		w.sendError(fmt.Errorf("failed to propagate object resource version: %w", err))
		return false
	}
	if initialEventsEnd {
		if err := storage.AnnotateInitialEventsEndBookmark(obj); err != nil {
			w.sendError(err)
			return false
		}
	}
	return w.send(watch.Event{Type: watch.Bookmark, Object: obj})
}

// filter says whether obj matches the watch's predicate.
func (w *watchChan) filter(obj runtime.Object) bool {
	if w.pred.Empty() {
		return true
	}
	ok, err := w.pred.Matches(obj)
	return err == nil && ok
}

// transform turns a store event into the watch event the predicate makes
// of it (nil: none), as etcd3's: an update that moves an object into or
// out of the selection is an Added or a Deleted.
func (w *watchChan) transform(ev store.Event[[]byte]) (*watch.Event, error) {
	var cur, old runtime.Object
	var err error
	if ev.Type != store.Deleted {
		if cur, err = w.s.decodeEvent(w.ctx, ev.Key, ev.Record.Value, ev.Rev); err != nil {
			return nil, err
		}
	}
	if ev.Type == store.Deleted || (ev.Type == store.Updated && !w.pred.Empty()) {
		if old, err = w.s.decodeEvent(w.ctx, ev.Key, ev.Prev.Value, ev.Rev); err != nil {
			return nil, err
		}
	}
	switch ev.Type {
	case store.Created:
		if w.filter(cur) {
			return &watch.Event{Type: watch.Added, Object: cur}, nil
		}
	case store.Deleted:
		if w.filter(old) {
			return &watch.Event{Type: watch.Deleted, Object: old}, nil
		}
	default:
		if w.pred.Empty() {
			return &watch.Event{Type: watch.Modified, Object: cur}, nil
		}
		curIn, oldIn := w.filter(cur), w.filter(old)
		switch {
		case curIn && oldIn:
			return &watch.Event{Type: watch.Modified, Object: cur}, nil
		case curIn:
			return &watch.Event{Type: watch.Added, Object: cur}, nil
		case oldIn:
			return &watch.Event{Type: watch.Deleted, Object: old}, nil
		}
	}
	return nil, nil
}

// decodeEvent transforms and decodes a stored value, stamped with rev.
func (s *Storage) decodeEvent(ctx context.Context, key string, data []byte, rev int64) (runtime.Object, error) {
	plain, _, err := s.Transformer().TransformFromStorage(ctx, data, authData(key))
	if err != nil {
		return nil, err
	}
	obj, err := runtime.Decode(s.codec, plain)
	if err != nil {
		return nil, err
	}
	if err := s.versioner.UpdateObject(obj, uint64(rev)); err != nil {
		return nil, fmt.Errorf("failure to version api object (%d) %#v: %v", rev, obj, err)
	}
	return obj, nil
}

// send delivers e unless the watch was stopped.
func (w *watchChan) send(e watch.Event) bool {
	select {
	case w.result <- e:
		return true
	case <-w.ctx.Done():
		return false
	}
}

// sendError delivers err as an Error event, as etcd3's: a compacted
// revision is 410 Expired.
func (w *watchChan) sendError(err error) {
	if errors.Is(err, context.Canceled) || errors.Is(err, store.ErrStopped) {
		return
	}
	if errors.Is(err, store.ErrCompacted) {
		err = apierrors.NewResourceExpired("The resourceVersion for the provided watch is too old.")
	}
	var st apierrors.APIStatus
	if !errors.As(err, &st) {
		st = apierrors.NewInternalError(err)
	}
	status := st.Status()
	w.send(watch.Event{Type: watch.Error, Object: &status})
}
