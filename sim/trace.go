package sim

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"hash"
	"io"
	"time"
)

// Event is one line of a trace: what one step did, or one write it made.
// It is written as a JSON object with the fields in a fixed order and T as
// a duration string ("1m2.5s"), so a trace is the same bytes on every run
// of a seed.
type Event struct {
	// T is the virtual time since the start of the run.
	T time.Duration
	// Actor names who acted: "m0/replication", "m1/pods/reflector",
	// "nodesim", "user", "fault", ...
	Actor string
	// Kind says what it did: "sync", "list", "watch", "events", "pop",
	// "dispatch", "create", "update", "status", "delete", "fault", ...
	Kind string
	// Key is the object concerned ("namespace/name"), if any.
	Key string
	// Rev is the store's revision after the step (for a write: the
	// revision it made).
	Rev int64
	// Detail is a short free-form note.
	Detail string
}

// traceTail is how many lines a Trace keeps for a violation report.
const traceTail = 20

// Trace records a run's events as JSON lines: it hashes them (the run's
// fingerprint), keeps the last few, and copies them to an optional writer.
type Trace struct {
	w     io.Writer
	h     hash.Hash
	lines int
	tail  [traceTail]string
	err   error
	buf   []byte
}

func newTrace(w io.Writer) *Trace { return &Trace{w: w, h: sha256.New()} }

// line is an Event as written: the time as a duration string.
type line struct {
	T      string `json:"t"`
	Actor  string `json:"actor"`
	Kind   string `json:"kind"`
	Key    string `json:"key,omitempty"`
	Rev    int64  `json:"rev"`
	Detail string `json:"detail,omitempty"`
}

func (t *Trace) add(ev Event) {
	b, err := json.Marshal(line{T: ev.T.String(), Actor: ev.Actor, Kind: ev.Kind, Key: ev.Key, Rev: ev.Rev, Detail: ev.Detail})
	if err != nil {
		panic("sim: trace event does not marshal: " + err.Error()) // plain strings and ints cannot fail
	}
	t.buf = append(append(t.buf[:0], b...), '\n')
	t.h.Write(t.buf)
	if t.w != nil && t.err == nil {
		_, t.err = t.w.Write(t.buf)
	}
	t.tail[t.lines%traceTail] = string(b)
	t.lines++
}

// Lines returns how many events have been recorded.
func (t *Trace) Lines() int { return t.lines }

// Fingerprint returns "sha256:" and the hex sha256 of the trace so far.
func (t *Trace) Fingerprint() string {
	return "sha256:" + hex.EncodeToString(t.h.Sum(nil))
}

// Tail returns up to n of the last lines recorded, oldest first.
func (t *Trace) Tail(n int) []string {
	n = min(n, traceTail, t.lines)
	out := make([]string, 0, n)
	for i := t.lines - n; i < t.lines; i++ {
		out = append(out, t.tail[i%traceTail])
	}
	return out
}

// Err returns the first error writing to the trace's writer, if any.
func (t *Trace) Err() error { return t.err }
