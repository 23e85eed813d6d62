package store

import (
	"errors"
	"fmt"
)

// Errors returned by the store. They are wrapped with details; test for them
// with errors.Is.
var (
	// ErrNotFound: the key does not exist (at the revision read).
	ErrNotFound = errors.New("store: key not found")
	// ErrExists: Create found the key already present.
	ErrExists = errors.New("store: key already exists")
	// ErrConflict: the key's ModRev is not the revision the write expected.
	ErrConflict = errors.New("store: revision conflict")
	// ErrCompacted: the revision asked for is older than the history window.
	ErrCompacted = errors.New("store: required revision has been compacted")
	// ErrFutureRev: the revision asked for has not been written yet.
	ErrFutureRev = errors.New("store: required revision is a future revision")
	// ErrTooSlow: a watcher fell so far behind that the history window moved
	// past the next event it had to deliver. It also matches ErrCompacted.
	ErrTooSlow = errors.New("store: watcher fell behind the history window")
	// ErrStopped: the watcher was stopped by its owner.
	ErrStopped = errors.New("store: watcher stopped")
)

// ConflictError is the ErrConflict of one write: which key, what revision the
// writer expected and what the key holds now.
type ConflictError struct {
	Key      string
	Expected int64 // the ModRev the writer expected
	Actual   int64 // the key's current ModRev
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("store: revision conflict on %q: expected revision %d, current is %d", e.Key, e.Expected, e.Actual)
}

// Is makes errors.Is(err, ErrConflict) true.
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

// CompactedError says which revision was asked for and which is the oldest
// still readable. Watching is true when a live watcher fell behind; then it
// matches ErrTooSlow as well as ErrCompacted.
type CompactedError struct {
	Rev        int64 // the revision asked for, or the watcher's next revision
	CompactRev int64 // the oldest revision still in history
	Watching   bool
}

func (e *CompactedError) Error() string {
	if e.Watching {
		return fmt.Sprintf("store: watcher fell behind the history window: next revision %d is compacted, oldest kept is %d", e.Rev, e.CompactRev)
	}
	return fmt.Sprintf("store: required revision %d has been compacted, oldest kept is %d", e.Rev, e.CompactRev)
}

// Is makes errors.Is match ErrCompacted, and ErrTooSlow for a watcher.
func (e *CompactedError) Is(target error) bool {
	return target == ErrCompacted || (e.Watching && target == ErrTooSlow)
}

func futureRev(rev, current int64) error {
	return fmt.Errorf("%w: revision %d, current is %d", ErrFutureRev, rev, current)
}
