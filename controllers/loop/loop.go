package loop

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/clock"
	"github.com/miniplane/miniplane/controllers/workqueue"
	"github.com/miniplane/miniplane/informer"
)

// ErrWait marks a sync error that is not a failure: the key waits for an
// event that queues it again (the endpoints controller's cache catching up
// with its own last write). Wrap it (fmt.Errorf("...: %w", loop.ErrWait)) and
// the loop neither backs off nor counts the error against MaxRetries: it
// logs it at Debug and calls Done only. A sync must be sure the event will
// come, or the key is never synced again.
var ErrWait = errors.New("waiting for an event to queue the key again")

// Observer is told of every reconcile a Loop runs, for a view of the
// control plane at work. Both methods are called on the worker's goroutine,
// around the sync: they must be quick and safe for concurrent use.
type Observer interface {
	// ReconcileStarted is called before the sync of info.Key.
	ReconcileStarted(info Info)
	// ReconcileEnded is called after it, with what the sync returned and
	// how long it took on the Loop's clock.
	ReconcileEnded(info Info, err error, took time.Duration)
}

// Config configures a Loop. Name, Queue and Sync are required, and Clock
// when Observer is set.
type Config struct {
	// Name is the controller's name, as in Info.Controller.
	Name string
	// Queue holds the keys to sync. The Loop takes them, settles them and
	// shuts the queue down when Run returns.
	Queue *workqueue.Queue[string]
	// Sync reconciles one key. It may be called from several goroutines at
	// once, never twice at once for one key.
	Sync func(ctx context.Context, key string) error
	// Informers are those whose handlers Run waits for before its workers
	// start (Informer.WaitForHandlers).
	Informers []*informer.Informer
	// Registrations are the controller's own handlers: HasSynced reports
	// whether each has been handed its informer's initial list.
	Registrations []*informer.Registration
	// Logger receives the loop's lines (starting, stopped, failures), as is:
	// name it after the controller. Nil logs nothing.
	Logger *zap.Logger
	// MaxRetries is the retry budget: a key that failed that many times in
	// a row is dropped, with a warning, until something queues it again.
	// Zero retries for ever, with the queue's backoff (the replication and
	// garbage collector controllers do; the endpoints controller gives up
	// after 15).
	MaxRetries int
	// Quiet reports whether a failure is expected in normal running (an
	// owner not in the cache yet) and is logged at Debug rather than Info.
	// It is still retried. Nil means no failure is quiet.
	Quiet func(err error) bool
	// OnSynced is called by Run once the handlers have synced, before the
	// workers start (the endpoints controller queues leftover Endpoints).
	OnSynced func()
	// Alongside, if set, runs on a goroutine of its own next to the
	// workers, from the same point, until ctx is done; Run waits for it to
	// return (nodesim's node leases).
	Alongside func(ctx context.Context)
	// StartFields are added to the "starting" log line.
	StartFields []zap.Field
	// Observer, if set, is told of every reconcile.
	Observer Observer
	// Clock times reconciles for the Observer. Required with Observer,
	// unused without.
	Clock clock.Clock
}

// Loop runs one controller's syncs over its queue. See the package
// documentation.
type Loop struct {
	cfg Config
	log *zap.Logger
	// seq is the last Info.Seq handed out.
	seq atomic.Uint64
}

// New returns a Loop for cfg. It starts nothing.
func New(cfg Config) (*Loop, error) {
	switch {
	case cfg.Name == "":
		return nil, errors.New("loop.New: Config.Name is required")
	case cfg.Queue == nil:
		return nil, errors.New("loop.New: Config.Queue is required")
	case cfg.Sync == nil:
		return nil, errors.New("loop.New: Config.Sync is required")
	case cfg.MaxRetries < 0:
		return nil, errors.New("loop.New: Config.MaxRetries is negative")
	case cfg.Observer != nil && cfg.Clock == nil:
		return nil, errors.New("loop.New: Config.Clock is required with an Observer")
	}
	log := Logger(cfg.Logger)
	return &Loop{cfg: cfg, log: log}, nil
}

// Name returns the controller's name.
func (l *Loop) Name() string { return l.cfg.Name }

// Queue returns the loop's queue.
func (l *Loop) Queue() *workqueue.Queue[string] { return l.cfg.Queue }

// HasSynced reports whether every one of Config.Registrations has been
// handed its informer's initial list. With HasSynced, ProcessOne and Run,
// a controller that embeds its *Loop is a manager.Controller.
func (l *Loop) HasSynced() bool {
	for _, r := range l.cfg.Registrations {
		if !r.HasSynced() {
			return false
		}
	}
	return true
}

// ProcessOne is the controller's step: if ctx is not done and a key is
// ready, it syncs the key, settles it with the queue and returns true;
// otherwise it returns false at once.
func (l *Loop) ProcessOne(ctx context.Context) bool {
	if ctx.Err() != nil {
		return false // the stop rule: no sync starts once ctx is done
	}
	key, ok, _ := l.cfg.Queue.TryGet()
	if !ok {
		return false
	}
	l.process(ctx, key)
	return true
}

// Run waits until the informers' handlers have synced, calls OnSynced,
// then runs workers goroutines (at least one) that sync keys until ctx is
// done, and Alongside next to them. It shuts the queue down and returns once
// every goroutine it started has exited; keys still queued then are dropped,
// not synced. Run does not start the informers: the factory's owner does.
func (l *Loop) Run(ctx context.Context, workers int) {
	q := l.cfg.Queue
	defer q.ShutDown()
	for _, inf := range l.cfg.Informers {
		if !inf.WaitForHandlers(ctx) {
			return
		}
	}
	if l.cfg.OnSynced != nil {
		l.cfg.OnSynced()
	}
	l.log.Info("starting", append([]zap.Field{zap.Int("workers", workers)}, l.cfg.StartFields...)...)
	var alongside sync.WaitGroup
	if l.cfg.Alongside != nil {
		alongside.Go(func() { l.cfg.Alongside(ctx) })
	}
	// Work hands back, unsynced, a key taken after ctx is done.
	q.Work(ctx, workers, func(key string) { l.process(ctx, key) })
	alongside.Wait()
	l.log.Info("stopped")
}

// process syncs one key under its identity and settles it.
func (l *Loop) process(ctx context.Context, key string) {
	q := l.cfg.Queue
	defer q.Done(key)
	sc := acquireContext(ctx, Info{Controller: l.cfg.Name, Key: key, Seq: l.seq.Add(1)})
	var err error
	if obs := l.cfg.Observer; obs != nil {
		start := l.cfg.Clock.Now()
		obs.ReconcileStarted(sc.info)
		err = l.cfg.Sync(sc, key)
		obs.ReconcileEnded(sc.info, err, l.cfg.Clock.Since(start))
	} else {
		err = l.cfg.Sync(sc, key)
	}
	releaseContext(sc)
	l.settle(key, err)
}

// settle tells the queue how the sync of key went. Done is the caller's.
func (l *Loop) settle(key string, err error) {
	q := l.cfg.Queue
	switch {
	case err == nil:
		q.Forget(key)
	case errors.Is(err, ErrWait):
		l.log.Debug("waiting", zap.String("key", key), zap.Error(err))
	case l.cfg.MaxRetries > 0 && q.NumRequeues(key) >= l.cfg.MaxRetries:
		l.log.Warn("sync failed too often; dropping", zap.String("key", key), zap.Int("retries", l.cfg.MaxRetries), zap.Error(err))
		q.Forget(key)
	default:
		if l.cfg.Quiet != nil && l.cfg.Quiet(err) {
			l.log.Debug("sync failed; retrying", zap.String("key", key), zap.Error(err))
		} else {
			l.log.Info("sync failed; retrying", zap.String("key", key), zap.Error(err))
		}
		q.AddRateLimited(key)
	}
}
