package informer

import (
	"context"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/clock"
)

// minResync is the shortest resync period a handler can ask for, as in
// client-go.
const minResync = time.Second

// Config configures an Informer. Clock is required.
type Config struct {
	Clock  clock.Clock
	Logger *zap.Logger
	// Indexers are extra indexes on the cache (the namespace index is
	// always there).
	Indexers map[string]IndexFunc
}

// Informer is a shared informer: one reflector, one cache, any number of
// handlers. Kubernetes: cache.SharedIndexInformer.
type Informer struct {
	clock     clock.Clock
	log       *zap.Logger
	indexer   *Indexer
	fifo      *DeltaFIFO
	reflector *Reflector

	// processMu is held while a popped delta is applied to the cache and
	// its notifications queued, so a late handler's synthetic adds and the
	// live notifications never interleave wrongly.
	processMu sync.Mutex

	// mu guards the fields below.
	mu            sync.Mutex
	registrations []*Registration
	started       bool
	synced        chan struct{} // closed once the initial list is in the cache
	handlersWake  chan struct{} // closed when a registration is added
	syncWake      chan struct{} // closed when some handler may have synced
}

// New returns an informer over lw. It starts nothing: call Run, or drive the
// steps (Reflector().Step, ProcessOne, Registration.DispatchOne).
func New(lw ListerWatcher, cfg Config) *Informer {
	log := cfg.Logger
	if log == nil {
		log = zap.NewNop()
	}
	i := &Informer{
		clock:        cfg.Clock,
		log:          log,
		indexer:      NewIndexer(cfg.Indexers),
		synced:       make(chan struct{}),
		handlersWake: make(chan struct{}),
		syncWake:     make(chan struct{}),
	}
	i.fifo = NewDeltaFIFO(i.indexer)
	i.reflector = NewReflector(lw, i.fifo, cfg.Clock, log)
	return i
}

// Indexer returns the informer's cache. Do not write to it.
func (i *Informer) Indexer() *Indexer { return i.indexer }

// Reflector returns the informer's reflector, for its step.
func (i *Informer) Reflector() *Reflector { return i.reflector }

// FIFO returns the informer's queue of deltas, for tests and the simulator.
func (i *Informer) FIFO() *DeltaFIFO { return i.fifo }

// HasSynced reports whether the initial list is in the cache.
func (i *Informer) HasSynced() bool {
	select {
	case <-i.synced:
		return true
	default:
		return false
	}
}

// Synced returns a channel closed once the initial list is in the cache.
func (i *Informer) Synced() <-chan struct{} { return i.synced }

// AddEventHandler registers h. A handler added after the informer has
// started receives an add for every cached object (isInInitialList true)
// before any live notification, and its registration syncs once it has
// been handed them all. resync > 0 asks for an OnUpdate(obj, obj) for every
// cached object every resync period (at least a second); 0 means never.
func (i *Informer) AddEventHandler(h Handler, resync time.Duration) *Registration {
	if resync > 0 {
		resync = max(resync, minResync)
	}
	r := &Registration{
		handler: h, resync: resync, informer: i, log: i.log,
		warnAt: backlogWarnAt, wake: make(chan struct{}, 1),
	}
	if resync > 0 {
		r.nextResync = i.clock.Now().Add(resync)
	}
	i.processMu.Lock()
	defer i.processMu.Unlock()
	for _, obj := range i.indexer.List() {
		r.enqueue(notification{kind: notifyAdd, obj: obj, initial: true})
	}
	i.mu.Lock()
	i.registrations = append(i.registrations, r)
	close(i.handlersWake)
	i.handlersWake = make(chan struct{})
	i.mu.Unlock()
	return r
}

// RemoveEventHandler stops notifications to a registration; what it had
// pending is dropped.
func (i *Informer) RemoveEventHandler(r *Registration) {
	i.processMu.Lock()
	defer i.processMu.Unlock()
	i.mu.Lock()
	defer i.mu.Unlock()
	for n, x := range i.registrations {
		if x == r {
			i.registrations = append(i.registrations[:n:n], i.registrations[n+1:]...)
		}
	}
	r.mu.Lock()
	r.removed, r.pending, r.head, r.initialLeft = true, nil, 0, 0
	r.wakeLocked() // its dispatcher, so it can see it is removed
	r.mu.Unlock()
}

// Registrations returns the informer's handler registrations, in the order
// they were added, for a simulator that dispatches notifications itself.
// The slice is shared: do not modify it.
func (i *Informer) Registrations() []*Registration { return i.snapshotRegistrations() }

// snapshotRegistrations returns the registrations. The slice is never
// written in place — AddEventHandler appends past every snapshot's length
// and RemoveEventHandler makes a new array — so it needs no copy.
func (i *Informer) snapshotRegistrations() []*Registration {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.registrations
}

// ProcessOne pops one key's deltas from the FIFO, applies them to the cache
// and queues the notifications for every handler (the cache first, so a
// handler's lister is never behind its notification). It reports whether
// there was anything to pop. It is the informer's step.
func (i *Informer) ProcessOne() bool {
	i.processMu.Lock()
	defer i.processMu.Unlock()
	key, deltas, hint, initial, fifoSynced, ok := i.fifo.popReusing()
	if !ok {
		i.checkSyncedLocked() // an empty first list syncs with nothing to pop
		return false
	}
	regs := i.snapshotRegistrations()
	for _, d := range deltas {
		switch d.Type {
		case Deleted:
			_, existed := i.indexer.removeHinted(key, hint)
			hint = nil
			if existed {
				for _, r := range regs {
					r.enqueue(notification{kind: notifyDelete, obj: d.Object})
				}
			}
		default:
			obj := d.Object.(api.Object)
			var old api.Object
			var existed bool
			old, existed, hint = i.indexer.setHinted(key, obj, hint)
			for _, r := range regs {
				switch {
				case !existed:
					r.enqueue(notification{kind: notifyAdd, obj: obj, initial: initial})
				case d.Type == Sync && d.targets != nil && !slices.Contains(*d.targets, r):
					// A resync goes only to the handlers it is for; a real
					// update, even with an unchanged resourceVersion, goes
					// to all of them.
				default:
					r.enqueue(notification{kind: notifyUpdate, old: old, obj: obj})
				}
			}
		}
	}
	if fifoSynced {
		i.markSyncedLocked()
	}
	return true
}

// checkSyncedLocked marks the informer synced once the FIFO has handed out
// the whole first list. The caller holds processMu.
func (i *Informer) checkSyncedLocked() {
	if i.fifo.HasSynced() {
		i.markSyncedLocked()
	}
}

// markSyncedLocked marks the informer synced, once: the FIFO has handed out
// the whole first list. The caller holds processMu.
func (i *Informer) markSyncedLocked() {
	if !i.HasSynced() {
		close(i.synced)
		i.noteHandlerProgress()
	}
}

// noteHandlerProgress wakes WaitForHandlers.
func (i *Informer) noteHandlerProgress() {
	i.mu.Lock()
	defer i.mu.Unlock()
	close(i.syncWake)
	i.syncWake = make(chan struct{})
}

// Resync queues a resync for the handlers whose period is due, and returns
// when the next one is due (zero: no handler resyncs). It is a step too:
// Run calls it on a timer.
func (i *Informer) Resync() time.Time {
	now := i.clock.Now()
	var next time.Time
	var due []*Registration
	i.processMu.Lock()
	defer i.processMu.Unlock()
	for _, r := range i.snapshotRegistrations() {
		if r.resync == 0 {
			continue
		}
		if !now.Before(r.nextResync) {
			due = append(due, r)
			r.nextResync = now.Add(r.resync)
		}
		if next.IsZero() || r.nextResync.Before(next) {
			next = r.nextResync
		}
	}
	if len(due) > 0 {
		i.fifo.resync(&due)
	}
	return next
}

// Run runs the informer until ctx is done: the reflector, the processing of
// deltas, one dispatcher per handler (including handlers added later), and
// the resync timer. It returns once every goroutine it started has exited.
func (i *Informer) Run(ctx context.Context) {
	i.mu.Lock()
	if i.started {
		i.mu.Unlock()
		panic("informer: Run called twice")
	}
	i.started = true
	i.mu.Unlock()

	var wg sync.WaitGroup
	wg.Go(func() { i.reflector.Run(ctx) })
	wg.Go(func() { i.runProcessing(ctx) })
	wg.Go(func() { i.runResync(ctx) })
	wg.Go(func() { i.runDispatchers(ctx, &wg) })
	wg.Wait()
}

func (i *Informer) runProcessing(ctx context.Context) {
	for ctx.Err() == nil {
		if i.ProcessOne() {
			continue
		}
		i.fifo.sleep(ctx)
	}
}

// runDispatchers starts a dispatcher for every registration, as they come.
func (i *Informer) runDispatchers(ctx context.Context, wg *sync.WaitGroup) {
	running := map[*Registration]bool{}
	for {
		i.mu.Lock()
		wake := i.handlersWake
		regs := append([]*Registration(nil), i.registrations...)
		i.mu.Unlock()
		for _, r := range regs {
			if !running[r] {
				running[r] = true
				wg.Go(func() { r.run(ctx) })
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-wake:
		}
	}
}

func (r *Registration) run(ctx context.Context) {
	for ctx.Err() == nil {
		if r.DispatchOne() {
			continue
		}
		if !r.sleep(ctx) {
			return // removed
		}
	}
}

func (i *Informer) runResync(ctx context.Context) {
	for {
		next := i.Resync()
		var due <-chan time.Time
		var t clock.Timer
		if !next.IsZero() {
			t = i.clock.NewTimer(next.Sub(i.clock.Now()))
			due = t.C()
		}
		i.mu.Lock()
		wake := i.handlersWake
		i.mu.Unlock()
		select {
		case <-ctx.Done():
		case <-due:
		case <-wake:
		}
		if t != nil {
			t.Stop()
		}
		if ctx.Err() != nil {
			return
		}
	}
}

// WaitForHandlers waits until the informer has synced and every
// registration has been handed the initial list, or ctx ends; it reports
// whether they all synced.
func (i *Informer) WaitForHandlers(ctx context.Context) bool {
	for {
		i.mu.Lock()
		wake := i.syncWake
		i.mu.Unlock()
		all := i.HasSynced()
		for _, r := range i.snapshotRegistrations() {
			all = all && r.HasSynced()
		}
		if all {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-wake:
		}
	}
}
