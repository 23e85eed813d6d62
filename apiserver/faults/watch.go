package faults

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"sync"
	"time"

	"github.com/miniplane/miniplane/api/apierrors"
	"github.com/miniplane/miniplane/api/protobuf"
	"github.com/miniplane/miniplane/apiserver/httpapi"
)

// errWatchEnded is what the Handler's writes get once a fault has ended
// its watch: to the Handler it reads as a client that went away.
var errWatchEnded = errors.New("faults: the watch was ended by a fault")

// serveWatch serves a watch through the Handler with the faults p planned
// for its stream: Gone, WatchClose and Lag. The Handler opens the watch
// as usual (so a watch it refuses is refused as usual, and no fault
// strikes); the faults act on the events it writes.
func (in *Injector) serveWatch(w http.ResponseWriter, r *http.Request, ev Event, p plan) {
	ctx, endInner := context.WithCancel(r.Context())
	defer endInner()
	ww := &watchWriter{in: in, ev: ev, p: p, w: w, endInner: endInner}
	if p.lag > 0 {
		ww.lagged = newLagQueue()
		done := make(chan struct{})
		go func() {
			defer close(done)
			ww.pump(r.Context())
		}()
		defer func() {
			ww.lagged.close()
			<-done // every lagged event is out, or the client has gone
		}()
	}
	in.next.ServeHTTP(ww, r.WithContext(ctx))
}

// watchWriter is the ResponseWriter the Handler streams a faulty watch to.
// The Handler's goroutine calls its methods; with Lag, the pump writes w
// too, so every use of w holds wmu.
type watchWriter struct {
	in       *Injector
	ev       Event // the request, for the trace
	p        plan
	w        http.ResponseWriter
	endInner context.CancelFunc // ends the Handler's watch

	wroteHeader bool
	passThrough bool // the answer is not a watch stream: leave it alone
	ended       bool // a fault ended the watch
	frames      framer
	sent        int // events passed on

	wmu    sync.Mutex
	lagged *lagQueue // nil without Lag
}

func (ww *watchWriter) Header() http.Header { return ww.w.Header() }

// WriteHeader passes the status on. A watch stream (200) is where the
// faults start: Gone answers its one ERROR event at once and ends it.
func (ww *watchWriter) WriteHeader(code int) {
	if ww.wroteHeader {
		return
	}
	ww.wroteHeader = true
	ct := ww.w.Header().Get("Content-Type")
	ww.passThrough = code != http.StatusOK
	ww.frames.protobuf = isProtobuf(ct)
	ww.wmu.Lock()
	ww.w.WriteHeader(code)
	ww.wmu.Unlock()
	if ww.passThrough {
		return
	}
	switch {
	case ww.p.gone:
		ww.answerGone(ct)
	case ww.p.lag > 0:
		ww.in.strike(ww.ev, Lag, 0, fmt.Sprintf("every event delayed by %v", ww.p.lag))
	}
}

// answerGone writes the ERROR event of 410 Expired that a watch cache
// sends for a resourceVersion that has left its window, and ends the
// watch.
func (ww *watchWriter) answerGone(contentType string) {
	oldest := max(ww.in.srv.Store().Rev(), ww.p.goneFrom+1)
	gone := apierrors.NewTooOldResourceVersion(ww.p.goneFrom, oldest)
	b, err := httpapi.WatchErrorEvent(contentType, gone)
	ww.end()
	if err != nil {
		return // a Status always encodes; the stream just ends
	}
	ww.in.strike(ww.ev, Gone, 0, gone.Error())
	ww.wmu.Lock()
	defer ww.wmu.Unlock()
	if _, err := ww.w.Write(b); err == nil {
		flush(ww.w)
	}
}

// Write passes the Handler's events on, one whole event at a time: at
// once, or after the lag. Once WatchClose's count is reached it ends the
// watch cleanly, after a whole event.
func (ww *watchWriter) Write(b []byte) (int, error) {
	if !ww.wroteHeader {
		ww.WriteHeader(http.StatusOK)
	}
	if ww.passThrough {
		ww.wmu.Lock()
		defer ww.wmu.Unlock()
		return ww.w.Write(b)
	}
	if ww.ended {
		return 0, errWatchEnded
	}
	for _, ev := range ww.frames.add(b) {
		if ww.p.closeAfter > 0 && ww.sent == ww.p.closeAfter {
			ww.in.strike(ww.ev, WatchClose, 0, fmt.Sprintf("closed after %d events", ww.sent))
			ww.end()
			return 0, errWatchEnded
		}
		if err := ww.forward(ev); err != nil {
			return 0, err
		}
		ww.sent++
	}
	return len(b), nil
}

// forward sends one event on, or queues it until its lag has passed.
func (ww *watchWriter) forward(ev []byte) error {
	if ww.lagged != nil {
		ww.lagged.push(lagged{due: ww.in.clock.Now().Add(ww.p.lag), b: ev})
		return nil
	}
	ww.wmu.Lock()
	defer ww.wmu.Unlock()
	_, err := ww.w.Write(ev)
	return err
}

// Flush sends on what has been written. Lagged events are not written
// yet: the pump flushes each as it writes it.
func (ww *watchWriter) Flush() {
	if !ww.wroteHeader {
		ww.WriteHeader(http.StatusOK)
	}
	ww.wmu.Lock()
	defer ww.wmu.Unlock()
	flush(ww.w)
}

// end stops the Handler's watch: its next write fails, and its request's
// context is cancelled so that a watch waiting for events returns.
func (ww *watchWriter) end() {
	ww.ended = true
	ww.endInner()
}

// pump writes the lagged events, in order, each once its time has come,
// until the queue is closed and empty or ctx (the client's) ends.
func (ww *watchWriter) pump(ctx context.Context) {
	for {
		ev, ok := ww.lagged.pop(ctx)
		if !ok {
			return
		}
		if d := ev.due.Sub(ww.in.clock.Now()); d > 0 {
			t := ww.in.clock.NewTimer(d)
			select {
			case <-t.C():
			case <-ctx.Done():
				t.Stop()
				return
			}
		}
		ww.wmu.Lock()
		_, err := ww.w.Write(ev.b)
		if err == nil {
			flush(ww.w)
		}
		ww.wmu.Unlock()
		if err != nil {
			ww.endInner() // the client went away
			return
		}
	}
}

func flush(w http.ResponseWriter) { _ = http.NewResponseController(w).Flush() }

func isProtobuf(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == protobuf.MediaType
}

// framer cuts a watch stream into whole events: JSON lines, or protobuf
// frames of a 4-byte big-endian length and that many bytes.
type framer struct {
	protobuf bool
	partial  []byte // the start of an event not yet whole
}

// add takes the next bytes of the stream and returns the events they
// complete, each in a slice of its own.
func (f *framer) add(b []byte) [][]byte {
	f.partial = append(f.partial, b...)
	var out [][]byte
	for {
		n := f.next()
		if n == 0 {
			break
		}
		out = append(out, append([]byte(nil), f.partial[:n]...))
		f.partial = f.partial[n:]
	}
	if len(f.partial) == 0 {
		f.partial = nil // let the buffer go
	}
	return out
}

// next returns the length of the first whole event in partial, or 0.
func (f *framer) next() int {
	if f.protobuf {
		if len(f.partial) < 4 {
			return 0
		}
		n := 4 + int(binary.BigEndian.Uint32(f.partial))
		if len(f.partial) < n {
			return 0
		}
		return n
	}
	for i, c := range f.partial {
		if c == '\n' {
			return i + 1
		}
	}
	return 0
}

// lagged is one event waiting for its time.
type lagged struct {
	due time.Time
	b   []byte
}

// lagQueue holds a lagging watch's events between the Handler's goroutine
// and the pump. Nothing bounds it but the watch's own events; they are
// delayed, never dropped.
type lagQueue struct {
	// mu guards items and closed.
	mu     sync.Mutex
	items  []lagged
	closed bool
	wake   chan struct{} // has a value when items or closed changed
}

func newLagQueue() *lagQueue { return &lagQueue{wake: make(chan struct{}, 1)} }

func (q *lagQueue) push(ev lagged) {
	q.mu.Lock()
	q.items = append(q.items, ev)
	q.mu.Unlock()
	q.signal()
}

// close says no more events will come; pop returns the ones queued first.
func (q *lagQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.signal()
}

func (q *lagQueue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// pop returns the oldest event, waiting for one; false once the queue is
// closed and empty, or ctx has ended.
func (q *lagQueue) pop(ctx context.Context) (lagged, bool) {
	for {
		q.mu.Lock()
		if len(q.items) > 0 {
			ev := q.items[0]
			q.items[0] = lagged{}
			q.items = q.items[1:]
			q.mu.Unlock()
			return ev, true
		}
		closed := q.closed
		q.mu.Unlock()
		if closed {
			return lagged{}, false
		}
		select {
		case <-q.wake:
		case <-ctx.Done():
			return lagged{}, false
		}
	}
}
