package apiserver

// Pieces of stored objects shared between the objects written in the same
// second, as managedFields are (stamps): a stored object is never changed
// (client.Client's contract; DESIGN.md, "Contracts every package keeps"),
// so every object that would hold an equal piece may hold the same one.
// Each memory keeps the last piece made; writes in one second ask for equal
// ones, so one piece serves a whole second of a scale-up or scale-down.
// Nothing a client reads changes: the values are those each write made for
// itself before.

import (
	"sync/atomic"

	"github.com/miniplane/miniplane/api"
)

// sharedPieces are the server's memories of recent pieces.
type sharedPieces struct {
	// scheduled is the last condition list of a pod bound with no
	// conditions before: its PodScheduled condition alone.
	scheduled atomic.Pointer[[]api.PodCondition]
	// mark is the last deletion timestamp and grace period a delete set.
	mark atomic.Pointer[deletionMark]
}

// deletionMark is a deletion's timestamp and grace period, in one block.
type deletionMark struct {
	at    api.Time
	grace int64
}

// scheduledConditions returns the conditions of a pod bound at now that had
// none: PodScheduled, True since now. The list has no room to grow, so that
// an append to it by a careless reader copies it.
func (p *sharedPieces) scheduledConditions(now api.Time) []api.PodCondition {
	if c := p.scheduled.Load(); c != nil && (*c)[0].LastTransitionTime.Time == now.Time {
		return *c
	}
	c := []api.PodCondition{{Type: api.PodScheduled, Status: api.ConditionTrue, LastTransitionTime: now}}
	p.scheduled.Store(&c)
	return c
}

// deletionMark returns a deletion timestamp of at and a grace period of
// grace, as pointers for an object's metadata: the last call's when it
// asked for the same (every pod a scale-down marks in a second, with its
// spec's grace period), else new ones made in one allocation.
func (p *sharedPieces) deletionMark(at api.Time, grace int64) (*api.Time, *int64) {
	if m := p.mark.Load(); m != nil && m.at.Time == at.Time && m.grace == grace {
		return &m.at, &m.grace
	}
	m := &deletionMark{at: at, grace: grace}
	p.mark.Store(m)
	return &m.at, &m.grace
}
