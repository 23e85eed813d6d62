package informer

import (
	"context"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
)

// Handler receives an informer's notifications. Calls to one handler are
// sequential and, per object, in order. OnDelete's obj is an api.Object, or a
// DeletedFinalStateUnknown when the deletion was missed (see DeletedObject).
// Kubernetes: cache.ResourceEventHandler.
type Handler interface {
	OnAdd(obj api.Object, isInInitialList bool)
	OnUpdate(oldObj, newObj api.Object)
	OnDelete(obj any)
}

// HandlerFuncs adapts functions to a Handler; nil ones are skipped.
type HandlerFuncs struct {
	AddFunc    func(obj api.Object, isInInitialList bool)
	UpdateFunc func(oldObj, newObj api.Object)
	DeleteFunc func(obj any)
}

// OnAdd implements Handler.
func (h HandlerFuncs) OnAdd(obj api.Object, isInInitialList bool) {
	if h.AddFunc != nil {
		h.AddFunc(obj, isInInitialList)
	}
}

// OnUpdate implements Handler.
func (h HandlerFuncs) OnUpdate(oldObj, newObj api.Object) {
	if h.UpdateFunc != nil {
		h.UpdateFunc(oldObj, newObj)
	}
}

// OnDelete implements Handler.
func (h HandlerFuncs) OnDelete(obj any) {
	if h.DeleteFunc != nil {
		h.DeleteFunc(obj)
	}
}

type notificationKind uint8

const (
	notifyAdd notificationKind = iota
	notifyUpdate
	notifyDelete
)

// notification is one call to make on a handler: obj is the api.Object of
// an add or update, or what OnDelete receives.
type notification struct {
	kind    notificationKind
	initial bool // an add from the initial list (or the synthetic adds of a late handler)
	old     api.Object
	obj     any
}

// backlogWarnAt is the first backlog size at which a registration warns; it
// warns again each time its backlog doubles past the last warning.
const backlogWarnAt = 1024

// Registration is one handler on an informer, with its own queue of
// notifications: a slow handler delays only itself. Kubernetes:
// ResourceEventHandlerRegistration and the processorListener behind it.
type Registration struct {
	handler  Handler
	resync   time.Duration
	informer *Informer
	log      *zap.Logger

	// mu guards the fields below.
	mu sync.Mutex
	// pending holds notifications not yet handed to the handler, oldest
	// first; head is the index of the oldest.
	pending []notification
	head    int
	// initialLeft counts the initial-list adds still pending: the
	// registration has synced when the informer has and it is 0.
	initialLeft int
	warnAt      int
	// nextResync is when the handler is next due a resync (zero: never);
	// guarded by informer.processMu, not mu.
	nextResync time.Time
	// ready is the channel Ready handed out while nothing was pending, or
	// nil: enqueue and removal close it and forget it, and Ready makes the
	// next one only when asked, so that a queue that empties and fills
	// again with nobody waiting costs no channel.
	ready   chan struct{}
	removed bool
	// sleeping says Run's dispatcher waits on wake; enqueue and removal
	// clear it and send wake its one token. The dispatcher runs dry after
	// nearly every notification, and waiting on a channel that closes
	// would cost a new channel each time (Ready's): wake is made once,
	// with the registration, and a token sent only to a dispatcher that
	// said it sleeps, so at most one is ever buffered.
	sleeping bool
	wake     chan struct{}
}

// appendNotification is append(list, n), storing n's fields one by one.
// While the GC marks, which it does for much of a large run, copying a
// struct this size into the heap goes through the bulk write barrier
// (runtime.wbMove, which walks the type's pointer bitmap); a store of each
// field takes the cheaper buffered one. Every enqueue appends, four times
// per pod event for the shared pod informer.
func appendNotification(list []notification, n notification) []notification {
	list = slices.Grow(list, 1)
	list = list[:len(list)+1]
	p := &list[len(list)-1]
	p.kind, p.initial, p.old, p.obj = n.kind, n.initial, n.old, n.obj
	return list
}

func (r *Registration) enqueue(n notification) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.removed {
		return
	}
	r.pending = appendNotification(r.pending, n)
	if n.initial {
		r.initialLeft++
	}
	if size := len(r.pending) - r.head; size >= r.warnAt {
		r.log.Warn("slow event handler: backlog growing", zap.Int("pending", size))
		r.warnAt *= 2
	}
	r.wakeLocked()
}

// wakeLocked closes the channel a waiter holds, if any, and wakes Run's
// dispatcher if it sleeps. The caller holds r.mu.
func (r *Registration) wakeLocked() {
	if r.ready != nil {
		close(r.ready)
		r.ready = nil
	}
	if r.sleeping {
		r.sleeping = false
		select {
		case r.wake <- struct{}{}:
		default: // a token already waits: one wakes the dispatcher as well as two
		}
	}
}

// sleep is Run's dispatcher running dry: it reports false if the
// registration is removed; otherwise it returns once a notification may
// be pending or ctx is done. A notification queued after the caller's
// DispatchOne found none but before sleep takes the lock is seen here,
// and one queued later sends the token, so none is missed.
func (r *Registration) sleep(ctx context.Context) bool {
	r.mu.Lock()
	switch {
	case r.removed:
		r.mu.Unlock()
		return false
	case r.head < len(r.pending):
		r.mu.Unlock()
		return true
	}
	r.sleeping = true
	r.mu.Unlock()
	select {
	case <-ctx.Done():
		// Nobody waits any more. A token sent meanwhile stays buffered:
		// the most it can do is wake a later sleep for nothing.
		r.mu.Lock()
		r.sleeping = false
		r.mu.Unlock()
	case <-r.wake:
	}
	return true
}

// DispatchOne hands the oldest pending notification to the handler and
// reports whether there was one. It is the registration's step.
func (r *Registration) DispatchOne() bool {
	r.mu.Lock()
	if r.head == len(r.pending) {
		r.mu.Unlock()
		return false
	}
	n := r.pending[r.head]
	p := &r.pending[r.head]
	p.kind, p.initial, p.old, p.obj = 0, false, nil, nil // not *p = notification{}: see appendNotification
	r.head++
	if r.head == len(r.pending) {
		if cap(r.pending) > shrinkBelow {
			r.pending = nil // let a big initial list's backlog go
		}
		r.pending, r.head = r.pending[:0], 0
	} else if r.head > 1024 && r.head*2 > len(r.pending) {
		r.pending = append(r.pending[:0], r.pending[r.head:]...)
		r.head = 0
	}
	r.mu.Unlock()

	switch n.kind {
	case notifyAdd:
		r.handler.OnAdd(n.obj.(api.Object), n.initial)
	case notifyUpdate:
		r.handler.OnUpdate(n.old, n.obj.(api.Object))
	case notifyDelete:
		r.handler.OnDelete(n.obj)
	}
	if n.initial {
		r.mu.Lock()
		r.initialLeft--
		done := r.initialLeft == 0
		r.mu.Unlock()
		if done {
			r.informer.noteHandlerProgress()
		}
	}
	return true
}

// Pending returns how many notifications wait for the handler.
func (r *Registration) Pending() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.pending) - r.head
}

// Ready returns a channel that is closed once notifications are pending
// (at once if some are) or the registration is removed.
func (r *Registration) Ready() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.removed || r.head < len(r.pending) {
		return closedChan
	}
	if r.ready == nil {
		r.ready = make(chan struct{})
	}
	return r.ready
}

// closedChan is a channel that is always closed: what Ready returns when
// there is no need to wait.
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// HasSynced reports whether the informer has synced and this handler has
// been handed every object of the initial list.
func (r *Registration) HasSynced() bool {
	if !r.informer.HasSynced() {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.initialLeft == 0
}
