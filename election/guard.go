package election

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
)

// ErrNotLeader is wrapped by every error a Guard returns: this instance may
// not write now, because it does not hold the lease or can no longer be
// sure that it does.
var ErrNotLeader = errors.New("not the leader")

// Guard decides whether this instance's controllers may write now. It is
// open until a deadline on the instance's own clock, which the elector moves
// to t+RenewDeadline after each successful acquire or renew begun at local
// time t, and closes when it steps down or releases. Time alone closes it:
// an elector that stops being scheduled cannot keep it open.
//
// A Guard is safe for concurrent use.
type Guard struct {
	clock clock.Clock
	lease string // namespace/name, for error messages

	// mu guards until and term. Guarded writes hold it for reading from
	// their check to their return, and the elector holds it for writing to
	// move the deadline, so closing the guard waits for writes in flight.
	mu    sync.RWMutex
	until time.Time // writes are allowed while Now() is before until
	term  int64     // the elector's term while open
}

func newGuard(c clock.Clock, lease string) *Guard {
	return &Guard{clock: c, lease: lease}
}

// Check returns nil when writes are allowed now, and otherwise an error
// wrapping ErrNotLeader that says why.
func (g *Guard) Check() error {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.checkLocked()
}

// checkLocked is Check for a caller holding mu (for reading or writing).
func (g *Guard) checkLocked() error {
	if g.until.IsZero() {
		return fmt.Errorf("%w of lease %s: guard closed", ErrNotLeader, g.lease)
	}
	if now := g.clock.Now(); !now.Before(g.until) {
		return fmt.Errorf("%w of lease %s: guard expired at %s without a renewal",
			ErrNotLeader, g.lease, g.until.Format(time.RFC3339Nano))
	}
	return nil
}

// Until returns the local time at which the guard closes by itself; zero
// when it is closed.
func (g *Guard) Until() time.Time {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.until
}

// Term returns the elector's term for which the guard was last opened.
func (g *Guard) Term() int64 {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.term
}

// open extends the guard to until for term. It waits for guarded writes in
// flight.
func (g *Guard) open(until time.Time, term int64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.until, g.term = until, term
}

// close shuts the guard now. When it returns, no guarded write is in flight
// and none will start until the guard is opened again.
func (g *Guard) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.until = time.Time{}
}

// do runs write if the guard is open, holding the guard open until write
// returns.
func (g *Guard) do(write func() (api.Object, error)) (api.Object, error) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if err := g.checkLocked(); err != nil {
		return nil, err
	}
	return write()
}

// Client returns c with its writes guarded: Create, Update, UpdateStatus and
// Delete fail with an error wrapping ErrNotLeader, and reach no server, when
// Check fails; Get, List and Watch pass through. Give controllers, and the
// event recorders they write through, this client; give the elector the
// plain one.
func (g *Guard) Client(c client.Client) client.Client {
	return guardedClient{Client: c, g: g}
}

// guardedClient is the Client a Guard returns.
type guardedClient struct {
	client.Client
	g *Guard
}

func (c guardedClient) Create(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error) {
	return c.g.do(func() (api.Object, error) { return c.Client.Create(ctx, obj, opts...) })
}

func (c guardedClient) Update(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error) {
	return c.g.do(func() (api.Object, error) { return c.Client.Update(ctx, obj, opts...) })
}

func (c guardedClient) UpdateStatus(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error) {
	return c.g.do(func() (api.Object, error) { return c.Client.UpdateStatus(ctx, obj, opts...) })
}

func (c guardedClient) Delete(ctx context.Context, resource, namespace, name string, opts api.DeleteOptions) (api.Object, error) {
	return c.g.do(func() (api.Object, error) { return c.Client.Delete(ctx, resource, namespace, name, opts) })
}
