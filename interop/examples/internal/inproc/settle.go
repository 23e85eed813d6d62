package inproc

import (
	"bytes"
	"io"
	"net/http"
	"testing/synctest"
)

// A Settler makes the writes of a controller under test, and the test's
// own, take turns inside a testing/synctest bubble, each one in a world
// that has settled: before a write it waits until every other goroutine of
// the bubble is durably blocked, and after it waits again, so that the
// watch events the write caused have reached the informers and the
// workqueue before anyone takes the next step.
//
// Why: a seed draws its faults per stream, by the request's position in it
// (apiserver/faults), so a seed replays only if each stream gets the same
// requests. Virtual time alone does not give that: at one virtual instant
// the reconciler's worker, the informer delivering the event of the
// worker's own last write, and the test writing its next change are all
// runnable, and Go's scheduler decides who goes first. When the worker
// wins it reconciles again from a cache that does not yet hold its own
// write and sends one more status write, which takes the stream's next
// draw and shifts every later one: a seed that failed in a sweep passed
// alone, and the reverse. The order in which a controller-runtime
// priority queue hands out keys follows the order the events came in, so
// the test's writes racing the worker's reorder the keys too. A Settler
// picks one interleaving, always the same: the informers catch up after
// each write, as they do on a quiet cluster, and writes never overlap.
//
// The turn is a token in a channel: a goroutine waiting for it is durably
// blocked, so it does not hold up the holder's synctest.Wait (of which a
// bubble allows one at a time). The controller's writes are serialized
// with the test's; a controller whose writes come from one worker
// (controller-runtime's default, MaxConcurrentReconciles 1) gets one fixed
// interleaving, and what still races is only what never writes: its
// informers' relists after a closed watch against the worker's reads. A
// Settler must be made and used inside the bubble: synctest.Wait panics
// outside one.
type Settler struct {
	// token is held by whoever is writing, from the wait before the write
	// to the wait after it.
	token chan struct{}
}

// NewSettler returns a Settler; make it inside the bubble.
func NewSettler() *Settler { return &Settler{token: make(chan struct{}, 1)} }

// Do runs f, the test's writes, in a turn of its own: once the bubble has
// settled, and then settles it again.
func (s *Settler) Do(f func()) {
	s.token <- struct{}{}
	defer func() { <-s.token }()
	synctest.Wait()
	f()
	synctest.Wait()
}

// Transport wraps rt, the controller's transport, so that each write it
// sends (any method but GET) takes a turn as Do does. Reads, lists and
// watches pass through.
func (s *Settler) Transport(rt http.RoundTripper) http.RoundTripper {
	return &settled{next: rt, s: s}
}

type settled struct {
	next http.RoundTripper
	s    *Settler
}

func (t *settled) RoundTrip(r *http.Request) (resp *http.Response, err error) {
	if r.Method == http.MethodGet {
		return t.next.RoundTrip(r)
	}
	t.s.Do(func() {
		resp, err = t.next.RoundTrip(r)
		if err != nil {
			return
		}
		// The whole answer is read inside the turn: the handler's
		// goroutine ends with it.
		var body []byte
		body, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(body))
	})
	if err != nil {
		return nil, err
	}
	return resp, nil
}
