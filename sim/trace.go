package sim

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"strconv"
	"time"
	"unicode/utf8"
)

// Event is one line of a trace: what one step did, or one write it made.
// It is written as a JSON object with the fields in a fixed order, T as a
// duration string ("1m2.5s"), and the optional fields left out when
// empty, so a trace is the same bytes on every run of a seed:
//
//	{"step":41,"t":"2.1s","actor":"m0/replicationcontroller","kind":"create","key":"Pod default/web-x2k9q","rev":17,"obj":{...},"detail":"term=1"}
//	{"step":41,"t":"2.1s","actor":"m0/replicationcontroller","kind":"sync","key":"ReplicationController default/web","rev":17,"outcome":"ok","queue":0}
//	{"step":90,"t":"14s","actor":"fault","kind":"crash","target":"m1","rev":40,"fault":true,"detail":"down for 12s"}
//	{"step":212,"t":"1m3s","actor":"sim","kind":"violation","rev":88,"invariant":"rc-no-overshoot","objects":["ReplicationController default/web","Pod default/web-x2k9q"],"detail":"..."}
//
// The lines of one step share its number: a controller's writes come
// before the sync line of the step that made them. Step 0 is the set-up
// before the first step.
type Event struct {
	// Step is the number of the step that made the event (0 before the
	// first step, Sim.Steps()+1 during one).
	Step int
	// T is the virtual time since the start of the run.
	T time.Duration
	// Actor names who acted: "m0/replicationcontroller", "m1/pods" (an informer),
	// "m0/elector", "nodesim" (the kubelets), "scheduler",
	// "nodelifecycle" (the node lifecycle controller), "user" (the
	// scenario's client), "apiserver", "fault", "sim".
	Actor string
	// Kind says what it did: "sync", "list", "watch", "events", "pop",
	// "dispatch", "create", "update", "status", "bind", "delete", "monitors"
	// (the garbage collector's informers of custom resources), "fault",
	// "heal", a fault's name, "violation", ...
	Kind string
	// Key is the object concerned, with its kind: "Pod default/web-1",
	// "Node node-0". Empty if none.
	Key string
	// Target is the component a fault struck or a heal restored
	// ("m1", "m0/pods", "m2/elector"), when it is not an object.
	Target string
	// Rev is the store's revision after the step (for a write: the
	// revision it made).
	Rev int64
	// Outcome is a sync's: "ok", "error" (the key was queued again with
	// backoff), "requeue" (queued again without a failure) or "idle"
	// (the step found no key, as a controller without a queue may).
	Outcome string
	// Queue is the length of the controller's queue after a sync, or -1
	// when the controller shows no queue. Written only on sync lines.
	Queue int
	// Fault marks a fault injected by the simulator.
	Fault bool
	// Invariant names the invariant a violation line reports, and
	// Objects the objects it concerns, as keys with their kinds.
	Invariant string
	Objects   []string
	// Obj is, on a write line, the written object's state as far as the
	// trace's readers need it, as one compact JSON object (see
	// objectState); `{"gone":true}` when the write removed it.
	Obj string
	// Detail is a short free-form note.
	Detail string
}

// TraceDetail is how much of a run a trace file shows.
type TraceDetail uint8

const (
	// TraceFolded, the default, leaves out the informers' pops and
	// dispatches, the bulk of a run: the next line written says how many
	// it folded ("folded":N).
	TraceFolded TraceDetail = iota
	// TraceFull writes every line.
	TraceFull
)

// String returns "folded" or "full".
func (d TraceDetail) String() string {
	if d == TraceFull {
		return "full"
	}
	return "folded"
}

// ParseTraceDetail parses "folded" or "full".
func ParseTraceDetail(s string) (TraceDetail, error) {
	switch s {
	case "folded", "":
		return TraceFolded, nil
	case "full":
		return TraceFull, nil
	}
	return 0, fmt.Errorf("unknown trace detail %q: want folded or full", s)
}

// folds reports whether a line of kind is left out of a folded trace.
func folds(kind string) bool { return kind == "pop" || kind == "dispatch" }

// traceTail is how many lines a Trace keeps for a violation report.
const traceTail = 20

// Trace records a run's events as JSON lines: it hashes every line (the
// run's fingerprint, the same whatever the detail), keeps the last few
// written, and copies them to an optional writer at its detail.
type Trace struct {
	w      io.Writer
	detail TraceDetail
	h      hash.Hash
	lines  int // lines hashed
	kept   int // lines kept in tail
	folded int // lines folded since the last one written
	tail   [traceTail][]byte
	err    error
	buf    []byte
}

func newTrace(w io.Writer, detail TraceDetail) *Trace {
	return &Trace{w: w, detail: detail, h: sha256.New()}
}

func (t *Trace) add(ev Event) {
	b := appendEvent(t.buf[:0], ev, 0)
	t.buf = b
	t.h.Write(b)
	t.lines++
	if t.detail == TraceFolded && folds(ev.Kind) {
		t.folded++
		return
	}
	if t.folded > 0 {
		b = appendEvent(b[:0], ev, t.folded)
		t.buf = b
		t.folded = 0
	}
	if t.w != nil && t.err == nil {
		_, t.err = t.w.Write(b)
	}
	slot := &t.tail[t.kept%traceTail]
	*slot = append((*slot)[:0], b[:len(b)-1]...)
	t.kept++
}

// appendEvent appends ev's line, newline included; folded > 0 adds how
// many lines were folded before it.
func appendEvent(b []byte, ev Event, folded int) []byte {
	b = append(b, `{"step":`...)
	b = strconv.AppendInt(b, int64(ev.Step), 10)
	b = append(b, `,"t":`...)
	b = appendJSONString(b, ev.T.String())
	b = append(b, `,"actor":`...)
	b = appendJSONString(b, ev.Actor)
	b = append(b, `,"kind":`...)
	b = appendJSONString(b, ev.Kind)
	b = appendField(b, "key", ev.Key)
	b = appendField(b, "target", ev.Target)
	b = append(b, `,"rev":`...)
	b = strconv.AppendInt(b, ev.Rev, 10)
	b = appendField(b, "outcome", ev.Outcome)
	if ev.Kind == "sync" && ev.Queue >= 0 {
		b = append(b, `,"queue":`...)
		b = strconv.AppendInt(b, int64(ev.Queue), 10)
	}
	if ev.Fault {
		b = append(b, `,"fault":true`...)
	}
	b = appendField(b, "invariant", ev.Invariant)
	if len(ev.Objects) > 0 {
		b = append(b, `,"objects":[`...)
		for i, o := range ev.Objects {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, o)
		}
		b = append(b, ']')
	}
	if ev.Obj != "" {
		b = append(b, `,"obj":`...)
		b = append(b, ev.Obj...)
	}
	if folded > 0 {
		b = append(b, `,"folded":`...)
		b = strconv.AppendInt(b, int64(folded), 10)
	}
	b = appendField(b, "detail", ev.Detail)
	return append(b, "}\n"...)
}

func appendField(b []byte, name, value string) []byte {
	if value == "" {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return appendJSONString(b, value)
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

// Lines returns how many events have been recorded, folded ones included.
func (t *Trace) Lines() int { return t.lines }

// Fingerprint returns "sha256:" and the hex sha256 of the trace so far.
func (t *Trace) Fingerprint() string {
	return "sha256:" + hex.EncodeToString(t.h.Sum(nil))
}

// Tail returns up to n of the last lines written (at the trace's
// detail), oldest first.
func (t *Trace) Tail(n int) []string {
	n = min(n, traceTail, t.kept)
	out := make([]string, 0, n)
	for i := t.kept - n; i < t.kept; i++ {
		out = append(out, string(t.tail[i%traceTail]))
	}
	return out
}

// Err returns the first error writing to the trace's writer, if any.
func (t *Trace) Err() error { return t.err }
