package plane

import (
	"context"
	"slices"
	"time"

	"github.com/miniplane/miniplane/api"
	"github.com/miniplane/miniplane/client"
)

// Write is a successful write by an instance's controllers (a Lease write
// is the election's and does not count), as Writes records it.
type Write struct {
	Identity string    // the instance, "cm-1"
	At       time.Time // on the plane's clock
}

// Writes returns, in order, the first write of each run of writes by one
// instance: a new entry appears when an instance writes after another did.
// A failover shows as the old leader's entry followed by the new one's.
func (p *Plane) Writes() []Write {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.writes)
}

// FirstWriteAfter returns the time of the first controller write after t
// by an instance that was not the last to write before it: after a
// KillLeader at t, the new leader's first write.
func (p *Plane) FirstWriteAfter(t time.Time) (time.Time, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	i := slices.IndexFunc(p.writes, func(w Write) bool { return w.At.After(t) })
	if i < 0 {
		return time.Time{}, false
	}
	return p.writes[i].At, true
}

// recordWrite notes a controller write; only the first after another
// instance's matters, and that keeps memory flat.
func (p *Plane) recordWrite(identity string) {
	at := p.clock.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.writes); n > 0 && p.writes[n-1].Identity == identity {
		return // the same instance keeps writing: the first write of its run is recorded
	}
	p.writes = append(p.writes, Write{Identity: identity, At: at})
}

// recordingClient notes each successful write an instance's controllers
// make, so that a failover can be timed from the crash to the new
// leader's first write. Writes to leases are the election's.
type recordingClient struct {
	client.Client
	p        *Plane
	identity string
}

func (c *recordingClient) note(obj api.Object, err error) (api.Object, error) {
	if err == nil {
		if _, lease := obj.(*api.Lease); !lease {
			c.p.recordWrite(c.identity)
		}
	}
	return obj, err
}

func (c *recordingClient) Create(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error) {
	return c.note(c.Client.Create(ctx, obj, opts...))
}

func (c *recordingClient) Update(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error) {
	return c.note(c.Client.Update(ctx, obj, opts...))
}

func (c *recordingClient) UpdateStatus(ctx context.Context, obj api.Object, opts ...client.WriteOption) (api.Object, error) {
	return c.note(c.Client.UpdateStatus(ctx, obj, opts...))
}

func (c *recordingClient) Delete(ctx context.Context, resource, namespace, name string, opts api.DeleteOptions) (api.Object, error) {
	obj, err := c.Client.Delete(ctx, resource, namespace, name, opts)
	if err == nil && resource != client.Leases {
		c.p.recordWrite(c.identity)
	}
	return obj, err
}
