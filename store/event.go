package store

// EventType says what a write did to its key.
type EventType uint8

// The kinds of write events.
const (
	Created EventType = iota + 1 // the key did not exist before
	Updated                      // the key existed and has a new value
	Deleted                      // the key was removed
)

func (t EventType) String() string {
	switch t {
	case Created:
		return "Created"
	case Updated:
		return "Updated"
	case Deleted:
		return "Deleted"
	}
	return "EventType(?)"
}

// Event is one write as a watcher sees it.
type Event[V any] struct {
	Type EventType
	Key  string
	Rev  int64 // the revision of the write
	// Record is the key's state after the write; the zero Record for Deleted.
	Record Record[V]
	// Prev is the key's state before the write; the zero Record for Created.
	Prev Record[V]
}

// event is one revision in the history log. cur is nil for a delete and prev
// is nil for a create; both point at immutable records.
type event[V any] struct {
	cur, prev *rec[V]
}

func (e event[V]) key() string {
	if e.cur != nil {
		return e.cur.key
	}
	return e.prev.key
}

// toEvent expands a history entry at revision rev into an Event.
func (e event[V]) toEvent(rev int64) Event[V] {
	out := Event[V]{Key: e.key(), Rev: rev}
	switch {
	case e.prev == nil:
		out.Type = Created
	case e.cur == nil:
		out.Type = Deleted
	default:
		out.Type = Updated
	}
	if e.cur != nil {
		out.Record = e.cur.record()
	}
	if e.prev != nil {
		out.Prev = e.prev.record()
	}
	return out
}
