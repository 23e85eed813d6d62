package informer

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
)

// Backoff between failed lists, as client-go's reflector: 800 ms doubling to
// 30 s, back to the start after two minutes without a failure. There is no
// jitter: every instance has its own clock and cache, and a reproducible run
// matters more here than spreading a thundering herd.
const (
	backoffInitial = 800 * time.Millisecond
	backoffMax     = 30 * time.Second
	backoffReset   = 2 * time.Minute
)

// reflectorSink is what a Reflector feeds: a DeltaFIFO.
type reflectorSink interface {
	Add(obj api.Object)
	Update(obj api.Object)
	Delete(obj api.Object)
	Replace(list []api.Object)
	// Full reports whether the sink holds so much that Run should wait,
	// and the channel closed once it does not.
	Full() (<-chan struct{}, bool)
}

// Reflector keeps a sink in step with a ListerWatcher: it lists, replaces
// the sink's contents with the list, then watches from the list's
// resourceVersion, turning each event into a delta. A watch that closes is
// reopened from the last resourceVersion seen, without a relist; a 410
// Gone (the history moved past it) or any other failure leads to a relist
// after a backoff. Kubernetes: cache.Reflector.
//
// Step does one unit of that and returns; Run loops it. Step must not be
// called concurrently with itself.
type Reflector struct {
	lw    ListerWatcher
	sink  reflectorSink
	clock clock.Clock
	log   *zap.Logger

	// State owned by the goroutine that steps the reflector.
	watch       client.Watcher // nil: list (or re-watch) next
	needList    bool           // the next step lists, rather than re-watches
	lastRV      string         // resourceVersion of the newest event applied
	notBefore   time.Time      // no list or watch before this (backoff)
	backoff     time.Duration
	lastFailure time.Time
	buf         []client.WatchEvent
	keys        []string // applyAll's, reused
	ents        []*entry // applyAll's cache hints, reused

	// lists and watches count the calls made to lw; atomic, so Stats may
	// read them while another goroutine steps the reflector.
	lists, watches atomic.Int64
}

// ReflectorStats counts what a Reflector has asked its ListerWatcher for.
type ReflectorStats struct {
	// Lists counts list attempts, failed ones included; a list retried at
	// once from the latest state after a 410 Gone counts once.
	Lists int
	// Watches counts watch attempts, the first after each list and every
	// re-watch, failed ones included.
	Watches int
}

// Stats returns the counts so far. It is safe to call from any goroutine;
// the simulator compares two readings to tell a list from a re-watch.
func (r *Reflector) Stats() ReflectorStats {
	return ReflectorStats{Lists: int(r.lists.Load()), Watches: int(r.watches.Load())}
}

// NewReflector returns a reflector that will list lw into sink. It starts
// nothing.
func NewReflector(lw ListerWatcher, sink reflectorSink, clk clock.Clock, log *zap.Logger) *Reflector {
	if log == nil {
		log = zap.NewNop()
	}
	return &Reflector{lw: lw, sink: sink, clock: clk, log: log, needList: true}
}

// LastSyncResourceVersion returns the resourceVersion the reflector has
// applied everything up to.
func (r *Reflector) LastSyncResourceVersion() string { return r.lastRV }

// maxEventsPerStep bounds one Step's work, so one busy watch cannot starve
// the steps of others in a simulation.
const maxEventsPerStep = 256

// Step does one unit of the reflector's work: a list and the start of a
// watch, a re-watch, or the delivery of the watch's pending events. It
// returns whether it did anything; false means wait on Wait's channels.
func (r *Reflector) Step(ctx context.Context) bool {
	if r.clock.Now().Before(r.notBefore) {
		return false
	}
	if r.watch == nil {
		if r.needList {
			return r.list(ctx)
		}
		return r.startWatch(ctx)
	}
	evs, err := r.watch.Poll(r.buf[:0], maxEventsPerStep)
	defer func() { clear(evs); r.buf = evs[:0] }()
	n := len(evs) // the events before the first error, if any
	for i, ev := range evs {
		if ev.Type == api.WatchError {
			n = i
			break
		}
	}
	r.applyAll(evs[:n])
	if n < len(evs) {
		r.stopWatch()
		status := evs[n].Status
		if status != nil && status.Code == 410 {
			r.log.Info("watch expired; relisting", zap.String("resourceVersion", r.lastRV), zap.String("reason", status.Message))
		} else {
			r.log.Warn("watch failed; relisting", zap.Any("status", status))
		}
		r.fail()
		return true
	}
	if errors.Is(err, client.ErrWatchClosed) {
		r.log.Debug("watch closed; watching again", zap.String("resourceVersion", r.lastRV))
		r.stopWatch()
		return true
	}
	return len(evs) > 0
}

// batchSink is a sink that takes a step's events at once, with their keys
// computed by the reflector: a DeltaFIFO. Computing a key touches the
// object, often for the first time, and allocates; doing it before taking
// the FIFO's lock, and taking the lock once per batch rather than per event,
// keeps the lock free for the goroutine popping the FIFO.
type batchSink interface {
	// pushEvents queues evs; keys[i] is evs[i]'s key, ents[i] nil or
	// what heldKeys found for it.
	pushEvents(evs []client.WatchEvent, keys []string, ents []*entry)
}

// heldKeySink is a sink that can hand back the key strings it already holds
// for the objects that events update or delete: a DeltaFIFO, through its
// cache. Reusing the cached key rather than making one per event spares an
// allocation per update and deletion (a third of the keys the reflector made
// in the scale benchmark), and the lookup touches what ProcessOne is about
// to touch for the same key.
type heldKeySink interface {
	// heldKeys sets keys[i], for each MODIFIED or DELETED event i whose
	// object's key the sink holds, to that key (equal to KeyOf, so the
	// same string value), and ents[i] to its cache entry, which the sink
	// takes back in pushEvents as a hint; it leaves the others as they
	// are.
	heldKeys(evs []client.WatchEvent, keys []string, ents []*entry)
}

// applyAll applies the events of one step, in order, and advances lastRV
// to the last one's. None is an error.
func (r *Reflector) applyAll(evs []client.WatchEvent) {
	if len(evs) == 0 {
		return
	}
	b, ok := r.sink.(batchSink)
	if !ok {
		for _, ev := range evs {
			r.apply(ev)
		}
		return
	}
	keys := append(r.keys[:0], make([]string, len(evs))...)
	ents := append(r.ents[:0], make([]*entry, len(evs))...)
	if h, ok := r.sink.(heldKeySink); ok {
		h.heldKeys(evs, keys, ents)
	}
	for i, ev := range evs {
		if keys[i] == "" && ev.Type != api.WatchBookmark {
			keys[i] = KeyOf(ev.Object)
		}
	}
	b.pushEvents(evs, keys, ents)
	clear(keys)
	clear(ents) // hold no entry the cache lets go of
	r.keys, r.ents = keys[:0], ents[:0]
	r.lastRV = evs[len(evs)-1].Object.GetObjectMeta().ResourceVersion
}

// apply turns one watch event into a delta and advances lastRV.
func (r *Reflector) apply(ev client.WatchEvent) {
	switch ev.Type {
	case api.WatchAdded:
		r.sink.Add(ev.Object)
	case api.WatchModified:
		r.sink.Update(ev.Object)
	case api.WatchDeleted:
		r.sink.Delete(ev.Object)
	case api.WatchBookmark:
	}
	r.lastRV = ev.Object.GetObjectMeta().ResourceVersion
}

// list lists the resource, replaces the sink's contents, and starts the
// watch from the list's revision.
func (r *Reflector) list(ctx context.Context) bool {
	r.lists.Add(1)
	l, err := r.lw.List(ctx, client.ListOptions{ResourceVersion: r.lastRV})
	if apierrors.IsGone(err) || apierrors.IsTimeout(err) {
		// The last revision seen is no longer (or not yet) servable: a
		// consistent list of the latest state does.
		l, err = r.lw.List(ctx, client.ListOptions{})
	}
	if err != nil {
		r.log.Warn("list failed", zap.Error(err))
		r.fail()
		return true
	}
	r.sink.Replace(l.Items)
	r.lastRV = l.Metadata.ResourceVersion
	r.needList = false
	r.log.Debug("listed", zap.Int("items", len(l.Items)), zap.String("resourceVersion", r.lastRV))
	r.startWatch(ctx)
	return true
}

// startWatch watches from lastRV: strictly after it, so nothing applied is
// applied twice and, because the store replays its history, nothing written
// since is missed.
func (r *Reflector) startWatch(ctx context.Context) bool {
	r.watches.Add(1)
	w, err := r.lw.Watch(ctx, client.ListOptions{ResourceVersion: r.lastRV, AllowWatchBookmarks: true})
	if err != nil {
		if !apierrors.IsGone(err) {
			r.log.Warn("watch failed", zap.Error(err))
		}
		r.fail()
		return true
	}
	r.watch = w
	return true
}

// fail schedules a relist after the backoff.
func (r *Reflector) fail() {
	now := r.clock.Now()
	switch {
	case r.backoff == 0 || now.Sub(r.lastFailure) > backoffReset:
		r.backoff = backoffInitial
	default:
		r.backoff = min(2*r.backoff, backoffMax)
	}
	r.lastFailure = now
	r.notBefore = now.Add(r.backoff)
	r.needList = true
}

func (r *Reflector) stopWatch() {
	if r.watch != nil {
		r.watch.Stop()
		r.watch = nil
	}
}

// NextWake returns when a backing-off reflector may step again.
func (r *Reflector) NextWake() (time.Time, bool) {
	if r.clock.Now().Before(r.notBefore) {
		return r.notBefore, true
	}
	return time.Time{}, false
}

// Pending reports whether Step may have work now: a list or a watch to
// start with no backoff in force, or a watch whose Ready channel is closed.
// A true answer may find nothing (a write under the watch's prefix that its
// selectors filter out, or an error already read); a false one means Step
// would return false. Like Step, it must be
// called from the goroutine that steps the reflector.
func (r *Reflector) Pending() bool {
	if r.clock.Now().Before(r.notBefore) {
		return false
	}
	if r.watch == nil {
		return true
	}
	select {
	case <-r.watch.Ready():
		return true
	default:
		return false
	}
}

// Run steps the reflector until ctx is done, waiting on its watch or its
// backoff timer between steps, and stops the watch on the way out. While the
// sink is Full it waits for room before stepping: the events stay in the
// watch (the store keeps them) rather than piling up in the FIFO, whose
// backlog would otherwise grow as fast as the watch delivers and go cold
// in memory before it is processed.
func (r *Reflector) Run(ctx context.Context) {
	defer r.stopWatch()
	for ctx.Err() == nil {
		if room, full := r.sink.Full(); full {
			select {
			case <-ctx.Done():
			case <-room:
			}
			continue
		}
		if r.Step(ctx) {
			continue
		}
		var ready <-chan struct{}
		if r.watch != nil {
			ready = r.watch.Ready()
		}
		var due <-chan time.Time
		var timer clock.Timer
		if at, ok := r.NextWake(); ok {
			timer = r.clock.NewTimer(at.Sub(r.clock.Now()))
			due = timer.C()
		}
		select {
		case <-ctx.Done():
		case <-ready:
		case <-due:
		}
		if timer != nil {
			timer.Stop()
		}
	}
}
