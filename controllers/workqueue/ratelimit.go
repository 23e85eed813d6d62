package workqueue

import (
	"slices"
	"sync"
	"time"

	"github.com/miniplane/miniplane/clock"
)

// RateLimiter decides how long a failed item waits before it is retried. It
// mirrors client-go's TypedRateLimiter. Implementations must be safe for
// concurrent use: every worker calls them.
type RateLimiter[T comparable] interface {
	// When records a failure of item and returns how long to wait before
	// retrying it.
	When(item T) time.Duration
	// Forget clears what the limiter remembers of item, after it succeeded
	// or was given up on.
	Forget(item T)
	// NumRequeues returns the failures of item recorded since it was last
	// forgotten.
	NumRequeues(item T) int
}

// AddRateLimited adds item after the delay the queue's rate limiter gives
// it, recording a failure of item. After shutdown it does nothing, and does
// not ask the limiter (a dropped retry is not a failure).
func (q *Queue[T]) AddRateLimited(item T) {
	if q.ShuttingDown() {
		return
	}
	q.AddAfter(item, q.limiter.When(item))
}

// Forget tells the rate limiter to clear item's failures. It does not take
// item out of the queue: the worker must still call Done.
func (q *Queue[T]) Forget(item T) { q.limiter.Forget(item) }

// NumRequeues returns the failures of item the rate limiter has recorded.
func (q *Queue[T]) NumRequeues(item T) int { return q.limiter.NumRequeues(item) }

// DefaultControllerRateLimiter returns client-go's default controller rate
// limiter: the larger of a per-item exponential backoff (5 ms doubling to
// 1000 s) and an overall token bucket (10 per second, bursts of 100) on clk.
func DefaultControllerRateLimiter[T comparable](clk clock.Clock) RateLimiter[T] {
	return MaxOf(
		NewItemExponentialFailureRateLimiter[T](5*time.Millisecond, 1000*time.Second),
		NewBucketRateLimiter[T](clk, 10, 100),
	)
}

// ItemExponentialFailureRateLimiter backs off each item on its own: the first
// failure since the item was last forgotten waits base, and each further one
// twice as long as the one before, never more than max.
type ItemExponentialFailureRateLimiter[T comparable] struct {
	base, max time.Duration

	mu       sync.Mutex
	failures map[T]int // guarded by mu; items with no failure are absent
}

// NewItemExponentialFailureRateLimiter returns a per-item exponential backoff
// from base up to max.
func NewItemExponentialFailureRateLimiter[T comparable](base, max time.Duration) *ItemExponentialFailureRateLimiter[T] {
	return &ItemExponentialFailureRateLimiter[T]{base: base, max: max, failures: make(map[T]int)}
}

// When records a failure and returns base·2^(failures before this one),
// capped at max.
func (r *ItemExponentialFailureRateLimiter[T]) When(item T) time.Duration {
	r.mu.Lock()
	n := r.failures[item]
	r.failures[item] = n + 1
	r.mu.Unlock()
	return backoff(r.base, r.max, n)
}

// backoff returns base·2^n, or max if that is larger or does not fit.
func backoff(base, max time.Duration, n int) time.Duration {
	if base <= 0 {
		return 0
	}
	if n >= 63 || base > max>>n {
		return max
	}
	return min(base<<n, max)
}

// Forget clears item's failures.
func (r *ItemExponentialFailureRateLimiter[T]) Forget(item T) {
	r.mu.Lock()
	delete(r.failures, item)
	r.mu.Unlock()
}

// NumRequeues returns item's failures since it was last forgotten.
func (r *ItemExponentialFailureRateLimiter[T]) NumRequeues(item T) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failures[item]
}

// BucketRateLimiter is a token bucket shared by all items, on an injected
// clock: it holds up to burst tokens and gains qps per second; every When
// takes one. When the bucket is empty, When still takes a token — on credit
// — and returns how long until that token will have been earned, as
// golang.org/x/time/rate's Reserve does. A reservation is never given back,
// so a burst of failures delays every later one: with 10 per second and a
// burst of 100, failures 1–100 at one instant wait 0, the 101st 100 ms, and
// the 110th 1 s.
type BucketRateLimiter[T comparable] struct {
	clock    clock.Clock
	interval time.Duration // time to earn one token: 1/qps
	window   time.Duration // time to earn a full bucket: burst·interval

	mu sync.Mutex
	// empty, guarded by mu, is the instant at which the bucket holds (or
	// held, or will hold) no tokens: tokens at t are (t−empty)/interval,
	// capped at burst. Taking a token moves it one interval later.
	empty   time.Time
	started bool // guarded by mu; before the first When the bucket is full
}

// NewBucketRateLimiter returns a token bucket of burst tokens refilled at qps
// per second on clk. It panics unless qps > 0 and burst ≥ 1.
func NewBucketRateLimiter[T comparable](clk clock.Clock, qps float64, burst int) *BucketRateLimiter[T] {
	if !(qps > 0) || burst < 1 {
		panic("workqueue.NewBucketRateLimiter: need qps > 0 and burst >= 1")
	}
	interval := time.Duration(float64(time.Second) / qps)
	return &BucketRateLimiter[T]{clock: clk, interval: interval, window: time.Duration(burst) * interval}
}

// When takes a token and returns how long until it is earned: 0 if the
// bucket had one.
func (r *BucketRateLimiter[T]) When(T) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.clock.Now()
	if full := now.Add(-r.window); !r.started || r.empty.Before(full) {
		r.empty, r.started = full, true
	}
	r.empty = r.empty.Add(r.interval)
	if r.empty.After(now) {
		return r.empty.Sub(now)
	}
	return 0
}

// Forget does nothing: the bucket remembers no item.
func (r *BucketRateLimiter[T]) Forget(T) {}

// NumRequeues returns 0: the bucket counts no item's failures.
func (r *BucketRateLimiter[T]) NumRequeues(T) int { return 0 }

// MaxOf returns a limiter that asks every one of limiters and waits the
// longest: When records the failure in each, NumRequeues is the largest of
// theirs, and Forget forgets in each.
func MaxOf[T comparable](limiters ...RateLimiter[T]) RateLimiter[T] {
	return maxOf[T](slices.Clone(limiters))
}

type maxOf[T comparable] []RateLimiter[T]

func (m maxOf[T]) When(item T) time.Duration {
	var d time.Duration
	for _, l := range m {
		d = max(d, l.When(item))
	}
	return d
}

func (m maxOf[T]) Forget(item T) {
	for _, l := range m {
		l.Forget(item)
	}
}

func (m maxOf[T]) NumRequeues(item T) int {
	var n int
	for _, l := range m {
		n = max(n, l.NumRequeues(item))
	}
	return n
}
