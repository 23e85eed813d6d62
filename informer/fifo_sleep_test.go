package informer

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/miniplane/miniplane/api"
)

// fifoPod returns a pod named name for the FIFO's sleep tests.
func fifoPod(name string) *api.Pod {
	return &api.Pod{Metadata: api.ObjectMeta{Namespace: "default", Name: name, ResourceVersion: "1"}}
}

// TestDeltaFIFOSleep checks the processing loop's wait, which reuses one
// buffered channel instead of Ready's channel per wait: whatever would
// close Ready wakes it, at once if it came before the loop slept, and no
// token is left behind to wake it for nothing later.
func TestDeltaFIFOSleep(t *testing.T) {
	tests := []struct {
		name string
		// before runs before sleep is called, during during its wait.
		before, during func(f *DeltaFIFO, cancel context.CancelFunc)
		wantLen        int
	}{
		{
			name:    "something already queued: no wait",
			before:  func(f *DeltaFIFO, _ context.CancelFunc) { f.Add(fifoPod("a")) },
			wantLen: 1,
		},
		{
			name:   "an empty first list is news: no wait",
			before: func(f *DeltaFIFO, _ context.CancelFunc) { f.Replace(nil) },
		},
		{
			name:   "closed before: no wait",
			before: func(f *DeltaFIFO, _ context.CancelFunc) { f.Close() },
		},
		{
			name:    "woken by an add",
			during:  func(f *DeltaFIFO, _ context.CancelFunc) { f.Add(fifoPod("a")) },
			wantLen: 1,
		},
		{
			name:    "woken by a list",
			during:  func(f *DeltaFIFO, _ context.CancelFunc) { f.Replace([]api.Object{fifoPod("a"), fifoPod("b")}) },
			wantLen: 2,
		},
		{
			name:   "woken by Close",
			during: func(f *DeltaFIFO, _ context.CancelFunc) { f.Close() },
		},
		{
			name:   "woken by the end of ctx",
			during: func(_ *DeltaFIFO, cancel context.CancelFunc) { cancel() },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := NewDeltaFIFO(NewIndexer(nil))
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				if tt.before != nil {
					tt.before(f, cancel)
				}
				returned := false
				go func() { f.sleep(ctx); returned = true }()
				synctest.Wait()
				if tt.during != nil {
					require.False(t, returned, "sleep returned before anything woke it")
					tt.during(f, cancel)
					synctest.Wait()
				}
				require.True(t, returned, "sleep still waits")
				assert.Equal(t, tt.wantLen, f.Len())
				assert.Zero(t, len(f.wake), "a token left behind")
				assert.False(t, f.sleeping, "still marked sleeping")
				assert.Nil(t, f.ready, "a Ready channel was made")
			})
		})
	}
}

// TestDeltaFIFOSleepAfterManyWakes: a processing loop that runs dry after
// every event, as Run's does under a steady trickle, pops each one and
// makes no channel; Ready still answers as before for whoever asks.
func TestDeltaFIFOSleepAfterManyWakes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := NewDeltaFIFO(NewIndexer(nil))
		popped := 0
		done := make(chan struct{})
		ctx, cancel := context.WithCancel(t.Context())
		go func() {
			defer close(done)
			for ctx.Err() == nil {
				if _, _, _, ok := f.Pop(); ok {
					popped++
					continue
				}
				f.sleep(ctx)
			}
		}()
		for i := range 100 {
			synctest.Wait()
			require.Equal(t, i, popped)
			require.True(t, f.sleeping, "the loop is not asleep after %d", i)
			f.Add(fifoPod("a"))
		}
		synctest.Wait()
		assert.Equal(t, 100, popped)
		assert.Nil(t, f.ready, "a Ready channel was made")

		ready := f.Ready()
		require.NotNil(t, f.ready, "Ready of an empty FIFO makes the channel it hands out")
		require.False(t, readyNow(ready), "empty")
		f.Add(fifoPod("b"))
		synctest.Wait()
		assert.True(t, readyNow(ready), "the channel handed out closes on the next add")
		cancel()
		<-done
	})
}

// readyNow reports whether c is closed, without waiting.
func readyNow(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
