package informer_test

import (
	"context"
	"sync"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/informer"
)

// faultyLW is a fake ListerWatcher: it passes every call through to a real
// one (an informer.Source over the API server) and injects the faults a
// reflector must survive, when a test asks for them:
//   - FailLists / FailWatches: the next n calls fail with an error;
//   - CloseWatch: the current watch ends as if the server closed it;
//   - Hold / Release: the current and later watches deliver nothing until
//     released, then everything they held, in order (a slow network);
//   - AfterList: a function runs after a list is read and before the
//     reflector sees it, to write between the list and the watch.
//
// It also records the options of every call and the Status of every ERROR
// event its watches delivered. It is safe for concurrent use.
// A live loop blocked in Ready sees CloseWatch only at its next wake-up (a
// new event); Release wakes it at once.
type faultyLW struct {
	lw informer.ListerWatcher

	// mu guards everything below.
	mu          sync.Mutex
	listErrs    []error // the next List calls fail with these, oldest first
	watchErrs   []error // the next Watch calls fail with these, oldest first
	afterList   func()
	held        bool
	wake        chan struct{} // closed and replaced by Release and CloseWatch
	current     *faultyWatch  // the newest watch
	lists       []client.ListOptions
	watches     []client.ListOptions
	errorEvents []api.Status // the Status of every ERROR event a watch delivered
}

var _ informer.ListerWatcher = (*faultyLW)(nil)

func newFaultyLW(lw informer.ListerWatcher) *faultyLW {
	return &faultyLW{lw: lw, wake: make(chan struct{})}
}

// FailLists makes the next n List calls fail with err.
func (f *faultyLW) FailLists(n int, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for range n {
		f.listErrs = append(f.listErrs, err)
	}
}

// FailWatches makes the next n Watch calls fail with err.
func (f *faultyLW) FailWatches(n int, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for range n {
		f.watchErrs = append(f.watchErrs, err)
	}
}

// AfterList sets a function to run after each successful List, before the
// list is returned; nil clears it.
func (f *faultyLW) AfterList(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.afterList = fn
}

// CloseWatch ends the current watch as if the server had closed it: its next
// Poll returns client.ErrWatchClosed, whatever it had not yet delivered.
func (f *faultyLW) CloseWatch() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.current != nil {
		f.current.closed = true
	}
	f.wakeLocked()
}

// Hold makes watches deliver nothing until Release.
func (f *faultyLW) Hold() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.held = true
}

// Release ends a Hold: watches deliver what they held, then carry on.
func (f *faultyLW) Release() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.held = false
	f.wakeLocked()
}

func (f *faultyLW) wakeLocked() {
	close(f.wake)
	f.wake = make(chan struct{})
}

// Lists returns the options of every List call so far.
func (f *faultyLW) Lists() []client.ListOptions {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]client.ListOptions(nil), f.lists...)
}

// Watches returns the options of every Watch call so far.
func (f *faultyLW) Watches() []client.ListOptions {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]client.ListOptions(nil), f.watches...)
}

// WatchErrors returns the Status of every ERROR event watches delivered.
func (f *faultyLW) WatchErrors() []api.Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]api.Status(nil), f.errorEvents...)
}

// List implements informer.ListerWatcher.
func (f *faultyLW) List(ctx context.Context, opts client.ListOptions) (*client.List, error) {
	f.mu.Lock()
	f.lists = append(f.lists, opts)
	if len(f.listErrs) > 0 {
		err := f.listErrs[0]
		f.listErrs = f.listErrs[1:]
		f.mu.Unlock()
		return nil, err
	}
	after := f.afterList
	f.mu.Unlock()

	l, err := f.lw.List(ctx, opts)
	if err == nil && after != nil {
		after()
	}
	return l, err
}

// Watch implements informer.ListerWatcher.
func (f *faultyLW) Watch(ctx context.Context, opts client.ListOptions) (client.Watcher, error) {
	f.mu.Lock()
	f.watches = append(f.watches, opts)
	if len(f.watchErrs) > 0 {
		err := f.watchErrs[0]
		f.watchErrs = f.watchErrs[1:]
		f.mu.Unlock()
		return nil, err
	}
	f.mu.Unlock()

	inner, err := f.lw.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	w := &faultyWatch{f: f, inner: inner}
	f.mu.Lock()
	f.current = w
	f.mu.Unlock()
	return w, nil
}

// faultyWatch is a watch that CloseWatch can end and Hold can pause.
type faultyWatch struct {
	f      *faultyLW
	inner  client.Watcher
	closed bool // guarded by f.mu
}

// Poll implements client.Watcher. It holds f.mu throughout, so once Hold
// or CloseWatch has returned no poll in flight can still deliver an event.
func (w *faultyWatch) Poll(dst []client.WatchEvent, limit int) ([]client.WatchEvent, error) {
	w.f.mu.Lock()
	defer w.f.mu.Unlock()
	switch {
	case w.closed:
		w.inner.Stop()
		return dst, client.ErrWatchClosed
	case w.f.held:
		return dst, nil
	}
	n := len(dst)
	dst, err := w.inner.Poll(dst, limit)
	for _, ev := range dst[n:] {
		if ev.Type == api.WatchError && ev.Status != nil {
			w.f.errorEvents = append(w.f.errorEvents, *ev.Status)
		}
	}
	return dst, err
}

// Ready implements client.Watcher.
func (w *faultyWatch) Ready() <-chan struct{} {
	w.f.mu.Lock()
	closed, held, wake := w.closed, w.f.held, w.f.wake
	w.f.mu.Unlock()
	switch {
	case closed:
		c := make(chan struct{})
		close(c)
		return c
	case held:
		return wake
	}
	return w.inner.Ready()
}

// Stop implements client.Watcher.
func (w *faultyWatch) Stop() { w.inner.Stop() }
