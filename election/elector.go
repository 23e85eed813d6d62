package election

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/client"
)

// Elector is one candidate for one Lease. Create it with New; drive it with
// Run, or call Step from a simulator. Its methods are safe for concurrent
// use.
type Elector struct {
	cfg   Config
	log   *zap.Logger
	guard *Guard
	key   string // namespace/name of the lease

	// opMu serializes lease operations (Step and Release), so that at most
	// one read-then-write of the lease is in flight, and callbacks that
	// Step makes are never concurrent.
	opMu sync.Mutex

	// mu guards the fields below. Lock order: mu before guard.mu.
	mu sync.Mutex
	// observed is the last lease read or written; observedAt is the local
	// time its resourceVersion was first seen. Expiry of another holder's
	// lease is judged from observedAt, never from the record's renewTime,
	// so an offset between clocks cannot shorten a lease.
	observed   *api.Lease
	observedAt time.Time
	reported   string // the holder last seen by Step; OnNewLeader hears of changes
	// leading is true from a successful acquire until this elector steps
	// down, releases, or its Run ends; while it is true, transitions is
	// the lease's leaseTransitions for this term.
	leading     bool
	transitions int32
	term        int64     // transitions+1 of the current or last term; 0: never led
	acquiredAt  time.Time // local time the current or last term began
	renewedAt   time.Time // local time of the last successful acquire or renew
}

// New checks cfg (client-go's rules: LeaseDuration > RenewDeadline >
// JitterFactor × RetryPeriod > 0, Identity set) and returns an elector. It
// starts nothing and makes no request.
func New(cfg Config) (*Elector, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	key := cfg.Namespace + "/" + cfg.Name
	return &Elector{
		cfg:   cfg,
		log:   cfg.Logger.Named("election").With(zap.String("identity", cfg.Identity), zap.String("lease", key)),
		guard: newGuard(cfg.Clock, key),
		key:   key,
	}, nil
}

// Guard returns the elector's guard: hand Guard().Client(c) to the
// controllers so that they write only while this elector surely leads.
func (e *Elector) Guard() *Guard { return e.guard }

// Identity returns the holder identity the elector writes.
func (e *Elector) Identity() string { return e.cfg.Identity }

// IsLeader reports whether the elector holds the lease by its last
// successful Step and its guard is still open.
func (e *Elector) IsLeader() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.leading && e.guard.Check() == nil
}

// Leader returns the holder identity last observed on the lease; "" when
// nobody holds it or it was never read.
func (e *Elector) Leader() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return holderOf(e.observed)
}

// Term returns the fencing term of the elector's current (or last) term:
// the lease's leaseTransitions at acquisition plus one. Every change of
// holder increments leaseTransitions, and an update that changes the holder
// succeeds only against the version it read, so terms strictly increase
// across all candidates. 0 means the elector never led.
func (e *Elector) Term() int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.term
}

// Status is a snapshot of an elector's state, for health reports.
type Status struct {
	Identity string
	// Leading is IsLeader.
	Leading bool
	// Holder is Leader: the last observed holder.
	Holder string
	// Term is Term.
	Term int64
	// AcquiredAt and LastRenew are the local times the current (or last)
	// term began and was last renewed; zero if never led.
	AcquiredAt, LastRenew time.Time
	// GuardUntil is when the guard closes by itself; zero if closed.
	GuardUntil time.Time
}

// Status returns a snapshot of the elector's state.
func (e *Elector) Status() Status {
	e.mu.Lock()
	defer e.mu.Unlock()
	return Status{
		Identity:   e.cfg.Identity,
		Leading:    e.leading && e.guard.Check() == nil,
		Holder:     holderOf(e.observed),
		Term:       e.term,
		AcquiredAt: e.acquiredAt,
		LastRenew:  e.renewedAt,
		GuardUntil: e.guard.Until(),
	}
}

// Step makes one attempt to acquire or renew the lease now: one Get, then at
// most one Create or Update. On success the guard opens until the time Step
// began plus RenewDeadline. A leader whose renewals have failed for
// RenewDeadline, or that finds the lease held by another, steps down and
// closes its guard. Step starts no goroutine and calls no callback but
// OnNewLeader, synchronously. It returns the local time at which Step
// should next be called.
func (e *Elector) Step(ctx context.Context) (next time.Time) {
	e.opMu.Lock()
	defer e.opMu.Unlock()
	now := e.cfg.Clock.Now()
	ok := e.tryAcquireOrRenew(ctx, now)

	e.mu.Lock()
	switch {
	case e.leading && ok:
		next = now.Add(e.cfg.RetryPeriod)
	case e.leading: // retry, but do not sleep past the renew deadline
		next = minTime(now.Add(e.cfg.RetryPeriod), e.renewedAt.Add(e.cfg.RenewDeadline))
	default:
		next = now.Add(e.cfg.RetryPeriod)
		if e.cfg.Rand != nil {
			next = next.Add(time.Duration(e.cfg.Rand.Float64() * JitterFactor * float64(e.cfg.RetryPeriod)))
		}
	}
	holder := holderOf(e.observed)
	report := false
	if holder != e.reported {
		e.reported = holder
		report = holder != ""
	}
	e.mu.Unlock()

	if report {
		e.log.Info("new leader observed", zap.String("holder", holder))
		if e.cfg.Callbacks.OnNewLeader != nil {
			e.cfg.Callbacks.OnNewLeader(holder)
		}
	}
	return next
}

// tryAcquireOrRenew is client-go's algorithm of the same name, with the
// guard. now is the local time the attempt began.
func (e *Elector) tryAcquireOrRenew(ctx context.Context, now time.Time) bool {
	obj, err := e.cfg.Client.Get(ctx, client.Leases, e.cfg.Namespace, e.cfg.Name, client.GetOptions{})
	if apierrors.IsNotFound(err) {
		created, err := e.cfg.Client.Create(ctx, e.newLease(now))
		if err != nil {
			e.failed(now, "create", err)
			return false
		}
		e.won(now, created.(*api.Lease), true)
		return true
	}
	if err != nil {
		e.failed(now, "get", err)
		return false
	}
	lease, ok := obj.(*api.Lease)
	if !ok {
		e.failed(now, "get", fmt.Errorf("got %T, want *api.Lease", obj))
		return false
	}

	e.mu.Lock()
	e.observeLocked(lease, now)
	holder := holderOf(lease)
	mine := e.leading && holder == e.cfg.Identity && transitionsOf(lease) == e.transitions
	expires := e.observedAt.Add(e.durationOf(lease))
	if !mine && e.leading {
		// Someone else changed the holder or the term: we lost the lease
		// (only an outside edit or unequal clock rates can cause this).
		e.stepDownLocked(now, "lease taken by "+holder)
	}
	e.mu.Unlock()

	if !mine && holder != "" && now.Before(expires) {
		e.log.Debug("lease held by another", zap.String("holder", holder), zap.Time("expiresNoSoonerThan", expires))
		return false
	}

	next := lease.DeepCopy()
	next.Spec.HolderIdentity = ptr(e.cfg.Identity)
	next.Spec.LeaseDurationSeconds = ptr(e.cfg.leaseSeconds())
	next.Spec.RenewTime = ptr(api.NewMicroTime(now))
	if !mine {
		next.Spec.AcquireTime = ptr(api.NewMicroTime(now))
		next.Spec.LeaseTransitions = ptr(transitionsOf(lease) + 1)
	}
	updated, err := e.cfg.Client.Update(ctx, next)
	if err != nil {
		e.failed(now, "update", err)
		return false
	}
	e.won(now, updated.(*api.Lease), !mine)
	return true
}

// newLease is the lease a first candidate creates.
func (e *Elector) newLease(now time.Time) *api.Lease {
	t := api.NewMicroTime(now)
	return &api.Lease{
		Metadata: api.ObjectMeta{Namespace: e.cfg.Namespace, Name: e.cfg.Name},
		Spec: api.LeaseSpec{
			HolderIdentity:       ptr(e.cfg.Identity),
			LeaseDurationSeconds: ptr(e.cfg.leaseSeconds()),
			AcquireTime:          ptr(t),
			RenewTime:            ptr(t),
			LeaseTransitions:     ptr(int32(0)),
		},
	}
}

// won records a successful acquire (newTerm) or renew begun at now, and
// opens the guard until now+RenewDeadline.
func (e *Elector) won(now time.Time, lease *api.Lease, newTerm bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.observeLocked(lease, now)
	e.renewedAt = now
	if newTerm {
		e.leading = true
		e.transitions = transitionsOf(lease)
		e.term = int64(e.transitions) + 1
		e.acquiredAt = now
		e.log.Info("became leader", zap.Int64("term", e.term))
	}
	e.guard.open(now.Add(e.cfg.RenewDeadline), e.term)
}

// failed handles a failed attempt begun at now: a leader keeps its term
// until RenewDeadline has passed since its last renewal, then steps down.
func (e *Elector) failed(now time.Time, op string, err error) {
	e.log.Debug("lease "+op+" failed", zap.Error(err))
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.leading && !now.Before(e.renewedAt.Add(e.cfg.RenewDeadline)) {
		e.stepDownLocked(now, "renew deadline passed: "+err.Error())
	}
}

// stepDownLocked ends the term and closes the guard.
func (e *Elector) stepDownLocked(now time.Time, why string) {
	if !e.leading {
		return
	}
	e.leading = false
	e.guard.close()
	e.log.Info("stopped leading", zap.Int64("term", e.term), zap.String("reason", why), zap.Time("at", now))
}

// observeLocked remembers lease, and the local time now if its version is
// new to us.
func (e *Elector) observeLocked(lease *api.Lease, now time.Time) {
	if e.observed == nil || e.observed.Metadata.ResourceVersion != lease.Metadata.ResourceVersion {
		e.observedAt = now
	}
	e.observed = lease
}

// durationOf is how long a lease lasts after it was observed: the record's
// own duration (as client-go, since kubernetes#114872), or ours when the
// record has none.
func (e *Elector) durationOf(l *api.Lease) time.Duration {
	if d := l.Spec.LeaseDurationSeconds; d != nil && *d > 0 {
		return time.Duration(*d) * time.Second
	}
	return e.cfg.LeaseDuration
}

// Release gives the lease up now, if this elector holds it: it closes the
// guard (waiting for guarded writes in flight), then writes the lease with
// no holder and a one-second duration, keeping leaseTransitions, so that
// another candidate acquires it at its next attempt. Stop the controllers
// before calling it. It returns nil when there was nothing to release.
func (e *Elector) Release(ctx context.Context) error {
	e.opMu.Lock()
	defer e.opMu.Unlock()
	e.mu.Lock()
	if !e.leading {
		e.mu.Unlock()
		return nil
	}
	lease, transitions := e.observed, e.transitions
	e.stepDownLocked(e.cfg.Clock.Now(), "released")
	e.mu.Unlock()

	for attempt := 0; ; attempt++ {
		now := e.cfg.Clock.Now()
		next := lease.DeepCopy()
		next.Spec.HolderIdentity = nil
		next.Spec.LeaseDurationSeconds = ptr(int32(1))
		next.Spec.AcquireTime = ptr(api.NewMicroTime(now))
		next.Spec.RenewTime = ptr(api.NewMicroTime(now))
		updated, err := e.cfg.Client.Update(ctx, next)
		if err == nil {
			e.mu.Lock()
			e.observeLocked(updated.(*api.Lease), now)
			e.mu.Unlock()
			e.log.Info("released lease")
			return nil
		}
		if !apierrors.IsConflict(err) || attempt == 2 {
			return fmt.Errorf("election: releasing lease %s: %w", e.key, err)
		}
		obj, err := e.cfg.Client.Get(ctx, client.Leases, e.cfg.Namespace, e.cfg.Name, client.GetOptions{})
		if err != nil {
			return fmt.Errorf("election: releasing lease %s: %w", e.key, err)
		}
		fresh, ok := obj.(*api.Lease)
		if !ok || holderOf(fresh) != e.cfg.Identity || transitionsOf(fresh) != transitions {
			return nil // no longer ours: nothing to release
		}
		lease = fresh
	}
}

func holderOf(l *api.Lease) string {
	if l == nil || l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

func transitionsOf(l *api.Lease) int32 {
	if l == nil || l.Spec.LeaseTransitions == nil {
		return 0
	}
	return *l.Spec.LeaseTransitions
}

func ptr[T any](v T) *T { return &v }

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
