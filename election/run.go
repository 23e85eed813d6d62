package election

import (
	"context"
	"time"

	"go.uber.org/zap"
)

// Run loops Step on the elector's clock until ctx is done. At the start of
// each term it calls OnStartedLeading in a goroutine with a context that it
// cancels when the term ends; it waits for that goroutine to return before it
// tries to lead again, so two terms of one elector never overlap. When ctx is
// done it ends the term, closes the guard, releases the lease if
// ReleaseOnCancel is set (otherwise the lease is left to expire, as after a
// crash), calls OnStoppedLeading if it ever led, and returns. Run may be
// called once.
func (e *Elector) Run(ctx context.Context) {
	var t *runningTerm
	everLed := false
	for {
		next := e.Step(ctx)
		if ctx.Err() != nil {
			break
		}
		st := e.Status()
		if t != nil && (!st.Leading || st.Term != t.term) {
			t.stop()
			t = nil
		}
		if t == nil && st.Leading {
			everLed = true
			t = e.startTerm(ctx, st.Term)
		}
		if !e.wait(ctx, next) {
			break
		}
	}
	if t != nil {
		t.stop()
	}
	if e.cfg.ReleaseOnCancel {
		if err := e.Release(context.WithoutCancel(ctx)); err != nil {
			e.log.Warn("release on cancel failed", zap.Error(err))
		}
	} else {
		e.mu.Lock()
		e.stepDownLocked(e.cfg.Clock.Now(), "run ended")
		e.mu.Unlock()
	}
	if everLed && e.cfg.Callbacks.OnStoppedLeading != nil {
		e.cfg.Callbacks.OnStoppedLeading()
	}
}

// wait blocks until the elector's clock reaches next or ctx is done; it
// reports whether to go on.
func (e *Elector) wait(ctx context.Context, next time.Time) bool {
	timer := e.cfg.Clock.NewTimer(next.Sub(e.cfg.Clock.Now()))
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-timer.C():
		return true
	}
}

// runningTerm is one term's OnStartedLeading goroutine.
type runningTerm struct {
	term   int64
	cancel context.CancelFunc
	done   chan struct{}
}

func (e *Elector) startTerm(ctx context.Context, term int64) *runningTerm {
	termCtx, cancel := context.WithCancel(ctx)
	t := &runningTerm{term: term, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(t.done)
		if e.cfg.Callbacks.OnStartedLeading != nil {
			e.cfg.Callbacks.OnStartedLeading(termCtx)
		}
	}()
	return t
}

// stop cancels the term and waits for its goroutine.
func (t *runningTerm) stop() {
	t.cancel()
	<-t.done
}
