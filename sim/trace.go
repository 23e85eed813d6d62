package sim

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"strconv"
	"time"
	"unicode/utf8"
)

// Event is one line of a trace: what one step did, or one write it made.
// It is written as a JSON object with the fields in a fixed order, T as a
// duration string ("1m2.5s"), and Key and Detail left out when empty, so a
// trace is the same bytes on every run of a seed.
type Event struct {
	// T is the virtual time since the start of the run.
	T time.Duration
	// Actor names who acted: "m0/replicationcontroller", "m1/pods/reflector",
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
	tail  [traceTail][]byte
	err   error
	buf   []byte
}

func newTrace(w io.Writer) *Trace { return &Trace{w: w, h: sha256.New()} }

func (t *Trace) add(ev Event) {
	b := append(t.buf[:0], `{"t":`...)
	b = appendJSONString(b, ev.T.String())
	b = append(b, `,"actor":`...)
	b = appendJSONString(b, ev.Actor)
	b = append(b, `,"kind":`...)
	b = appendJSONString(b, ev.Kind)
	if ev.Key != "" {
		b = append(b, `,"key":`...)
		b = appendJSONString(b, ev.Key)
	}
	b = append(b, `,"rev":`...)
	b = strconv.AppendInt(b, ev.Rev, 10)
	if ev.Detail != "" {
		b = append(b, `,"detail":`...)
		b = appendJSONString(b, ev.Detail)
	}
	b = append(b, "}\n"...)
	t.buf = b
	t.h.Write(b)
	if t.w != nil && t.err == nil {
		_, t.err = t.w.Write(b)
	}
	slot := &t.tail[t.lines%traceTail]
	*slot = append((*slot)[:0], b[:len(b)-1]...)
	t.lines++
}

// appendJSONString appends s as a JSON string: quotes, backslashes and
// control characters escaped, invalid UTF-8 replaced, everything else as
// is.
func appendJSONString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\n':
			b = append(b, '\\', 'n')
		case r == '\t':
			b = append(b, '\\', 't')
		case r < 0x20:
			b = append(b, '\\', 'u', '0', '0', hexDigits[r>>4], hexDigits[r&0xf])
		default:
			b = utf8.AppendRune(b, r) // an invalid byte comes as RuneError: U+FFFD
		}
	}
	return append(b, '"')
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
		out = append(out, string(t.tail[i%traceTail]))
	}
	return out
}

// Err returns the first error writing to the trace's writer, if any.
func (t *Trace) Err() error { return t.err }
