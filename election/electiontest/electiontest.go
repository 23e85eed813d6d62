// Package electiontest holds fakes for testing leader election and what it
// guards: a Client that records writes and injects faults, and a Clock that
// reads another clock with an offset (a skewed instance).
//
// They are small real implementations, not mocks; the simulator may use them
// too. Both are safe for concurrent use.
package electiontest

import (
	"context"
	"sync"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
	"github.com/miniplane/miniplane/clock"
)

// Op is one request through a Client.
type Op struct {
	// Verb is "create", "get", "list", "watch", "update", "updatestatus"
	// or "delete".
	Verb string
	// Resource is the resource name (client.Pods, ...); for Create and
	// Update it is derived from the object's kind.
	Resource        string
	Namespace, Name string
}

// IsWrite reports whether the op changes stored state.
func (o Op) IsWrite() bool {
	switch o.Verb {
	case "create", "update", "updatestatus", "delete":
		return true
	}
	return false
}

// Write is a write that reached the server and succeeded, with the time on
// the Client's clock when it returned.
type Write struct {
	Op
	At time.Time
}

// Client wraps an client.Client: a fault function may fail any request
// before it reaches the server, and successful writes are recorded.
type Client struct {
	client.Client
	clock clock.Clock

	// mu guards fault and writes.
	mu     sync.Mutex
	fault  func(Op) error
	writes []Write
}

// NewClient returns a Client over c, timing writes with clk.
func NewClient(c client.Client, clk clock.Clock) *Client {
	return &Client{Client: c, clock: clk}
}

// SetFault makes every later request first ask f: a non-nil error fails the
// request with it, and the server is not called. Nil heals.
func (c *Client) SetFault(f func(Op) error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fault = f
}

// Writes returns the successful writes so far, in the order they returned.
func (c *Client) Writes() []Write {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Write(nil), c.writes...)
}

// do runs call unless the fault says otherwise, and records it if it is a
// successful write.
func (c *Client) do(op Op, call func() error) error {
	c.mu.Lock()
	f := c.fault
	c.mu.Unlock()
	if f != nil {
		if err := f(op); err != nil {
			return err
		}
	}
	if err := call(); err != nil {
		return err
	}
	if op.IsWrite() {
		c.mu.Lock()
		c.writes = append(c.writes, Write{Op: op, At: c.clock.Now()})
		c.mu.Unlock()
	}
	return nil
}

func objectOp(verb string, obj api.Object) Op {
	m := obj.GetObjectMeta()
	return Op{Verb: verb, Resource: client.ResourceOf(obj), Namespace: m.Namespace, Name: m.Name}
}

// Create passes to the server unless faulted.
func (c *Client) Create(ctx context.Context, obj api.Object, opts ...client.WriteOption) (out api.Object, err error) {
	err = c.do(objectOp("create", obj), func() error { out, err = c.Client.Create(ctx, obj, opts...); return err })
	return out, err
}

// Get passes to the server unless faulted.
func (c *Client) Get(ctx context.Context, resource, namespace, name string, opts client.GetOptions) (out api.Object, err error) {
	err = c.do(Op{"get", resource, namespace, name}, func() error {
		out, err = c.Client.Get(ctx, resource, namespace, name, opts)
		return err
	})
	return out, err
}

// List passes to the server unless faulted.
func (c *Client) List(ctx context.Context, resource, namespace string, opts client.ListOptions) (out *client.List, err error) {
	err = c.do(Op{"list", resource, namespace, ""}, func() error {
		out, err = c.Client.List(ctx, resource, namespace, opts)
		return err
	})
	return out, err
}

// Watch passes to the server unless faulted.
func (c *Client) Watch(ctx context.Context, resource, namespace string, opts client.ListOptions) (out client.Watcher, err error) {
	err = c.do(Op{"watch", resource, namespace, ""}, func() error {
		out, err = c.Client.Watch(ctx, resource, namespace, opts)
		return err
	})
	return out, err
}

// Update passes to the server unless faulted.
func (c *Client) Update(ctx context.Context, obj api.Object, opts ...client.WriteOption) (out api.Object, err error) {
	err = c.do(objectOp("update", obj), func() error { out, err = c.Client.Update(ctx, obj, opts...); return err })
	return out, err
}

// UpdateStatus passes to the server unless faulted.
func (c *Client) UpdateStatus(ctx context.Context, obj api.Object, opts ...client.WriteOption) (out api.Object, err error) {
	err = c.do(objectOp("updatestatus", obj), func() error { out, err = c.Client.UpdateStatus(ctx, obj, opts...); return err })
	return out, err
}

// Delete passes to the server unless faulted.
func (c *Client) Delete(ctx context.Context, resource, namespace, name string, opts api.DeleteOptions) (out api.Object, err error) {
	err = c.do(Op{"delete", resource, namespace, name}, func() error {
		out, err = c.Client.Delete(ctx, resource, namespace, name, opts)
		return err
	})
	return out, err
}

// SkewedClock reads another clock plus a fixed offset: an instance whose
// clock is ahead (positive) or behind (negative). Timers run at the base
// clock's rate, so durations are unaffected.
type SkewedClock struct {
	Base   clock.Clock
	Offset time.Duration
}

var _ clock.Clock = SkewedClock{}

// Now returns Base.Now() plus Offset.
func (s SkewedClock) Now() time.Time { return s.Base.Now().Add(s.Offset) }

// Since returns Now().Sub(t).
func (s SkewedClock) Since(t time.Time) time.Duration { return s.Now().Sub(t) }

// NewTimer is Base's.
func (s SkewedClock) NewTimer(d time.Duration) clock.Timer { return s.Base.NewTimer(d) }

// AfterFunc is Base's.
func (s SkewedClock) AfterFunc(d time.Duration, f func()) clock.Timer { return s.Base.AfterFunc(d, f) }
