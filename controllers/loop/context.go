package loop

import (
	"context"
	"sync"
)

// Info is the identity of one reconcile: which controller, which key, and
// the how-manieth sync of that Loop it is (Seq counts from 1 and grows by
// one per sync, across all workers).
type Info struct {
	Controller string
	Key        string
	Seq        uint64
}

// infoKey is the context key of an Info. Being an empty struct, converting
// it to an interface does not allocate.
type infoKey struct{}

// NewContext returns a context that carries info, for a caller that syncs
// outside a Loop (a test calling a sync function directly) and wants
// FromContext to answer as it would inside one.
func NewContext(ctx context.Context, info Info) context.Context {
	return context.WithValue(ctx, infoKey{}, &info)
}

// FromContext returns the identity of the reconcile ctx belongs to, and
// whether there is one: true inside a Loop's sync (and contexts derived from
// its), or under NewContext.
func FromContext(ctx context.Context) (Info, bool) {
	if p, ok := ctx.Value(infoKey{}).(*Info); ok {
		return *p, true
	}
	return Info{}, false
}

// syncContext is the context a Loop hands its sync: the caller's context
// plus the reconcile's Info. It is pooled so that a reconcile costs no
// allocation; a sync must not keep its context (or one derived from it) past
// its return, as Done, Err and Deadline may then answer for a later
// reconcile's parent and FromContext for a later reconcile.
type syncContext struct {
	context.Context
	info Info
}

// Value answers infoKey with the reconcile's Info (a pointer, so that no
// boxing allocates) and every other key from the parent.
func (c *syncContext) Value(key any) any {
	if _, ok := key.(infoKey); ok {
		return &c.info
	}
	return c.Context.Value(key)
}

var syncContexts = sync.Pool{New: func() any { return new(syncContext) }}

// acquireContext returns a pooled syncContext over parent carrying info.
func acquireContext(parent context.Context, info Info) *syncContext {
	c := syncContexts.Get().(*syncContext)
	c.Context, c.info = parent, info
	return c
}

// releaseContext returns c to the pool once its sync has returned. It keeps
// its parent (a nil one would make a wrongly kept context panic) but not the
// key.
func releaseContext(c *syncContext) {
	c.info = Info{}
	syncContexts.Put(c)
}
